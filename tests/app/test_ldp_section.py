"""The ldp demo section runs on the bundled data and reports sane numbers."""

import pytest

from skprivate._app.demo import DemoContext
from skprivate._app.sections import ldp
from skprivate.datasets import load_adult, load_life_expectancy


@pytest.mark.slow
def test_demo_section_compares_private_and_clean_answers():
    section = ldp.run(DemoContext(load_adult(), load_life_expectancy()))
    assert section.family == "ldp"
    rows = {row.task: row for row in section.rows}
    kernel = next(r for t, r in rows.items() if "deconvolution kernel" in t)
    logit = next(r for t, r in rows.items() if "logistic" in t)
    assert float(kernel.private) > float(logit.private)  # paper: -0.51 vs -0.53
    assert float(kernel.private) == pytest.approx(-0.51, abs=0.02)
    naive = next(r for t, r in rows.items() if "naive" in t)
    deconv = next(r for t, r in rows.items() if t.endswith("deconvolution KDE"))
    assert float(deconv.private) < float(naive.private)
    assert all(r.privacy.startswith("ε=") for r in section.rows)
    assert set(section.figures) == {
        "life_expectancy_density",
        "adult_income_by_education",
    }
