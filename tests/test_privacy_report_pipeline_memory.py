"""A Pipeline with ``memory=`` writes its transformers' raw input to disk.

joblib's cache of each transformer's fit stores the repr of the call's
arguments in ``metadata.json``: the raw values of a small input in full,
the first and last rows of a large one, and the response.  The report
names those columns as raw channels.
"""

from __future__ import annotations

import json
import warnings

import joblib
import numpy as np
import pytest
from sklearn.linear_model import LinearRegression
from sklearn.model_selection import GridSearchCV, KFold
from sklearn.neighbors import KernelDensity
from sklearn.pipeline import Pipeline

from skprivate import LaplaceLDP, privacy_report

X = np.array([[1.234567], [7.654321], [3.3333], [5.5], [2.25], [8.125]])
Y = np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
CACHE = (
    "Pipeline(memory=...) caches each transformer's fit: joblib writes the "
    "repr of its input (raw values of the records) to metadata.json in the "
    "cache directory; released raw"
)
RESPONSE = (
    "Pipeline(memory=...) caches each transformer's fit: joblib writes the "
    "repr of the response it is given (raw values of the records) to "
    "metadata.json in the cache directory"
)


def _pipe(final, memory):
    return Pipeline(
        [("ldp", LaplaceLDP(epsilon=1.0, bounds=(0, 10))), ("final", final)],
        memory=memory,
    )


def _fit(est, *data):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return est.fit(*data)


def test_the_cache_holds_the_raw_values_and_the_report_says_so(tmp_path):
    pipe = _fit(_pipe(KernelDensity(), str(tmp_path)), X)
    written = [
        json.loads(f.read_text())["input_args"]["X"]
        for f in tmp_path.glob("**/metadata.json")
    ]
    assert any("1.234567" in text and "7.654321" in text for text in written)
    report = privacy_report(pipe)
    assert report["column"].tolist() == ["x0", "x0", "total"]
    row = report.iloc[1]
    assert (row["mechanism"], row["notion"]) == ("raw (Pipeline memory)", "none (raw)")
    assert row["epsilon"] == np.inf and row["exact_disclosure"] == True  # noqa: E712
    assert row["note"] == CACHE
    assert report.iloc[-1]["epsilon"] == np.inf
    assert report.iloc[0]["epsilon"] == 1.0


def test_without_a_cache_location_nothing_is_written():
    for memory in (None, joblib.Memory(location=None, verbose=0)):
        report = privacy_report(_fit(_pipe(KernelDensity(), memory), X))
        assert report["column"].tolist() == ["x0", "total"]
        assert report.iloc[-1]["epsilon"] == 1.0


@pytest.mark.parametrize("as_object", [False, True])
def test_a_supervised_pipeline_caches_the_response_too(tmp_path, as_object):
    memory = joblib.Memory(str(tmp_path), verbose=0) if as_object else str(tmp_path)
    pipe = _fit(_pipe(LinearRegression(), memory), X, Y)
    report = privacy_report(pipe).set_index("column")
    assert report.loc["y", "mechanism"] == "raw (Pipeline memory)"
    assert report.loc["y", "note"] == (
        f"{RESPONSE}; response used raw by LinearRegression; its fitted state is "
        "computed from it"
    )


def test_only_the_raw_input_of_a_cached_step_is_named(tmp_path):
    # the second transformer's input is already privatized: only the first
    # step's raw input is written raw
    pipe = Pipeline(
        [
            ("ldp", LaplaceLDP(epsilon=1.0, bounds=(0, 10))),
            ("again", LaplaceLDP(epsilon=2.0, bounds=(-50, 60))),
            ("kde", KernelDensity()),
        ],
        memory=str(tmp_path),
    )
    report = privacy_report(_fit(pipe, X))
    assert report["mechanism"].tolist() == [
        "LaplaceLDP",
        "LaplaceLDP",
        "raw (Pipeline memory)",
        "",
    ]
    assert report["column"].tolist() == ["x0", "x0", "x0", "total"]


def test_a_search_over_a_cached_pipeline_names_the_cache(tmp_path):
    search = GridSearchCV(
        _pipe(KernelDensity(), str(tmp_path)),
        {"final__bandwidth": [1.0]},
        cv=KFold(2),
        refit=False,
    )
    report = privacy_report(_fit(search, X))
    assert "raw (Pipeline memory)" in report["mechanism"].tolist()


def test_the_response_is_read_by_the_final_step_not_the_second(tmp_path):
    # the scaler in the middle reads no response; the regressor at the end
    # does: the cache holds y as given
    from sklearn.preprocessing import StandardScaler

    pipe = Pipeline(
        [
            ("ldp", LaplaceLDP(epsilon=1.0, bounds=(0, 10))),
            ("scale", StandardScaler()),
            ("final", LinearRegression()),
        ],
        memory=str(tmp_path),
    )
    report = privacy_report(_fit(pipe, X, Y)).set_index("column")
    assert report.loc["y", "mechanism"] == "raw (Pipeline memory)"
    assert report.loc["y", "note"].startswith(RESPONSE)
