"""What a new user meets in the first minutes: imports, help(), defaults."""

import pydoc
import subprocess
import sys
import warnings

import numpy as np
import pytest
from sklearn.model_selection import cross_val_score

import skprivate as skp
from skprivate.exceptions import PrivacyLeakWarning


def test_import_skprivate_loads_the_datasets():
    code = "import skprivate; print(skprivate.datasets.load_adult().shape)"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    assert "(32561, 15)" in result.stdout


@pytest.mark.parametrize(
    "scorer, words",
    [
        (skp.interval_r2_scorer, ["interval_r2_score", "not comparable"]),
        (skp.neg_interval_mae_scorer, ["interval_mae", "distance"]),
    ],
)
def test_help_on_a_scorer_explains_it(scorer, words):
    text = pydoc.render_doc(scorer, renderer=pydoc.plaintext)
    for word in words:
        assert word in text
    assert scorer.__doc__ and "interval" in scorer.__doc__


def test_scorers_still_work_in_model_selection():
    X, y = skp.datasets.make_interval_regression(60, random_state=0)
    learner = skp.IterativeIntervalRegressor(
        max_iter=20, privatizer=skp.IntervalCaseI(random_state=0)
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r2 = cross_val_score(learner, X, y, cv=3, scoring=skp.interval_r2_scorer)
        mae = cross_val_score(learner, X, y, cv=3, scoring=skp.neg_interval_mae_scorer)
    assert np.all(np.isfinite(r2)) and np.all(mae <= 0)


def test_interval_r2_docstring_warns_it_is_not_ordinary_r2():
    assert "not comparable with ordinary R²" in skp.interval_r2_score.__doc__


def test_rvns_perturber_builds_with_all_defaults():
    X = np.array([[17.0], [40.0], [90.0]])
    rvns = skp.RVNSPerturber()
    with pytest.warns(PrivacyLeakWarning):
        rvns.fit(X)
    np.testing.assert_allclose(rvns.d_, [(90 - 17) / 5])
    reports = rvns.transform(X)
    assert reports.shape == (3, 1)
    # the default (boundary-safe) reports range over [a - d, b + d]
    low, high = (float(v[0]) for v in rvns.report_range_)
    assert (low, high) == (17 - rvns.d_[0], 90 + rvns.d_[0])
    assert np.all((reports >= low) & (reports <= high))
    # with declared bounds there is no warning, and d follows their range
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        declared = skp.RVNSPerturber(bounds=(0, 10)).fit(X.clip(0, 10))
    np.testing.assert_allclose(declared.d_, [2.0])


def test_docs_landing_page_quick_start_runs(capsys):
    from pathlib import Path

    index = Path(__file__).resolve().parents[1] / "doc" / "index.rst"
    text = index.read_text(encoding="utf-8")
    start = text.index(".. code-block:: python", text.index("Quick start"))
    body = text[start:].split("\n\n", 1)[1]
    lines = []
    for line in body.splitlines():
        if line and not line.startswith("    "):
            break
        lines.append(line[4:])
    code = "\n".join(lines)
    assert 10 <= len([x for x in lines if x.strip()]) <= 20
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exec(compile(code, "doc/index.rst", "exec"), {})
    assert "np.float64(" not in capsys.readouterr().out
