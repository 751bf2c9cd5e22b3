"""The rows of one privatizer in ``privacy_report``, as mutation testing
found them unchecked.

Each test fits a stated privatizer of ``tests/test_mutation_report.py``
(it releases its input unchanged and states the summary it is given) and
asserts the exact rows read from the summary: the guarantee per column,
coverage notions and their reference law, exact disclosure, the audited
figures and reproducibility.  ``benchmarks/_mutation_specs_report.py``
lists the mutants of ``skprivate/_privacy_report/_rows.py`` these tests
kill.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.ensemble import StackingRegressor
from sklearn.linear_model import Ridge
from sklearn.model_selection import (
    GridSearchCV,
    KFold,
)
from sklearn.neighbors import KernelDensity
from sklearn.pipeline import make_pipeline

from skprivate import (
    LaplaceLDP,
    privacy_report,
)

from .test_mutation_report import (
    _COVERAGE,
    _LDP,
    _X,
    _Budget,
    _exact,
    _frame,
    _ldp,
    _Stated,
    _total,
    _y,
)


# -- the rows of one privatizer -------------------------------------------------
def _report_of(privatizer, k=2):
    return privacy_report(privatizer.fit(_X(k=k)))


def test_rows_of_an_ldp_summary_per_column():
    stated = _Stated(
        {
            "notion": _LDP,
            "epsilon_per_feature": [0.25, 0.5],
            "delta_per_feature": [2.0**-20, 2.0**-21],
            "bounds": ([0, 1], [2, 3]),
            "bounds_from_data": False,
            "floating_point_safe": True,
            "condition": "given as a condition",
        }
    )
    report = _report_of(stated)
    assert report["column"].tolist() == ["x0", "x1", "total"]
    assert report["epsilon"].tolist() == [0.25, 0.5, 0.75]
    assert report["delta"].tolist() == [2.0**-20, 2.0**-21, 3 * 2.0**-21]
    assert report["bounds"].iloc[:2].tolist() == [(0.0, 2.0), (1.0, 3.0)]
    assert report["bounds_from_data"].iloc[:2].tolist() == [False, False]
    assert report["floating_point_safe"].iloc[:2].tolist() == [True, True]
    assert report["note"].iloc[:2].tolist() == ["given as a condition"] * 2
    assert report["exact_disclosure"].iloc[:2].tolist() == [False, False]
    assert report["reproducible"].iloc[:2].tolist() == [False, False]


def test_rows_of_a_scalar_ldp_summary():
    # one figure for every column; no delta is a pure claim; no bounds
    report = _report_of(_Stated({"notion": _LDP, "epsilon_per_feature": 0.5}))
    rows = report.iloc[:2]
    assert rows["epsilon"].tolist() == [0.5, 0.5]
    assert rows["delta"].tolist() == [0.0, 0.0]
    assert rows["bounds"].tolist() == [None, None]
    assert rows["note"].tolist() == ["", ""]
    assert rows["bounds_from_data"].isna().all()
    assert rows["floating_point_safe"].isna().all()
    # scalar bounds hold for every column
    stated = _Stated({"notion": _LDP, "epsilon_per_feature": 0.5, "bounds": (-1, 4)})
    assert _report_of(stated)["bounds"].iloc[:2].tolist() == [(-1.0, 4.0)] * 2


def test_a_seeded_privatizer_is_reproducible():
    stated = _Stated({"notion": _LDP, "epsilon_per_feature": 1.0}, random_state=0)
    assert _report_of(stated, k=1)["reproducible"].iloc[0] == True  # noqa: E712


def test_rows_of_a_subset_summary():
    stated = _Stated(
        {
            "notion": "subset privacy",
            "columns": [
                {"min_coverage": 0.5, "leakage": 0.25},
                {"min_coverage": 0.75, "leakage": 0.125},
            ],
        }
    )
    report = _report_of(stated)
    rows = report.iloc[:2]
    assert rows["column"].tolist() == ["x0", "x1"]
    assert rows["mechanism"].tolist() == ["_Stated", "_Stated"]
    assert rows["notion"].tolist() == ["subset privacy"] * 2
    assert rows["coverage"].tolist() == [0.5, 0.75]
    assert rows["leakage"].tolist() == [0.25, 0.125]
    assert rows["epsilon"].isna().all()
    assert (
        rows["note"].tolist()
        == [
            "min_coverage: lower bound of the coverage of the released subset; "
            "no epsilon"
        ]
        * 2
    )
    assert _total(report)["note"] == "no composed epsilon: " + _COVERAGE


def _coverage_summary(**extra):
    summary = {"notion": "interval privacy", "coverage": 0.75, "leakage": 0.25}
    summary.update(extra)
    return _Stated(summary)


_NO_EPS = "coverage as in the mechanism's paper; no epsilon"


def _reference(law):
    return (
        f"coverage assumes the reference law {law} (coverage_reference); "
        "fit warns when the fitted data are covered far less"
    )


def test_rows_of_a_coverage_summary():
    report = _report_of(_coverage_summary(), k=1)
    row = report.iloc[0]
    assert (row["mechanism"], row["notion"]) == ("_Stated", "interval privacy")
    assert (row["coverage"], row["leakage"]) == (0.75, 0.25)
    assert np.isnan(row["epsilon"]) and np.isnan(row["delta"])
    assert row["note"] == _NO_EPS
    assert pd.isna(row["coverage_reference"]) and pd.isna(row["exact_disclosure"])
    # per-column figures; a figure of the data given by a summary is not shown
    stated = _coverage_summary(
        coverage=[0.5, 0.75], leakage=[0.5, 0.25], coverage_data=[0.5, 0.75]
    )
    report = _report_of(stated)
    rows = report.iloc[:2]
    assert rows["coverage"].tolist() == [0.5, 0.75]
    assert rows["leakage"].tolist() == [0.5, 0.25]
    assert "coverage_data" not in report.columns


def test_a_coverage_reference_is_named_in_the_note():
    stated = _coverage_summary(coverage_reference="N(0, 1^2)", coverage_data=0.5)
    row = _report_of(stated, k=1).iloc[0]
    assert row["coverage_reference"] == "N(0, 1^2)"
    assert row["note"] == "; ".join([_NO_EPS, _reference("N(0, 1^2)")])
    stated = _coverage_summary(coverage_reference=["R"])
    assert _report_of(stated, k=1)["note"].iloc[0] == f"{_NO_EPS}; {_reference('R')}"


def test_an_exact_design_names_the_shares_released_exactly():
    stated = _coverage_summary(
        exact_disclosure=True,
        exact_share_data=0.25,
        exact_share=0.5,
        coverage_reference="R",
        coverage_data=0.75,
    )
    report = _report_of(stated, k=1)
    row = report.iloc[0]
    assert row["epsilon"] == np.inf and row["exact_disclosure"] == True  # noqa: E712
    assert row["note"] == (
        "values leave exactly: the design reports the values in its "
        "acceptable_range or exact cells as they are (expected: 50% under the "
        "reference law); no guarantee for those records; coverage as in the "
        "mechanism's paper; " + _reference("R")
    )
    assert "_exact_share" not in report.columns
    total = _total(report)
    # released exactly: no "other columns have no epsilon"
    assert total["note"] == (
        "no guarantee: some columns leave exactly; values released exactly: x0"
    )
    # without shares, none is named
    row = _report_of(_coverage_summary(exact_disclosure=True), k=1).iloc[0]
    assert row["note"].startswith(
        "values leave exactly: the design reports the values in its "
        "acceptable_range or exact cells as they are; no guarantee"
    )
    assert row["note"].endswith("; coverage as in the mechanism's paper")


def test_a_design_without_exact_cells_keeps_its_coverage_row():
    row = _report_of(_coverage_summary(exact_disclosure=False), k=1).iloc[0]
    assert row["exact_disclosure"] == False  # noqa: E712 (numpy bool)
    assert np.isnan(row["epsilon"]) and row["note"] == _NO_EPS
    # an ldp summary may say so too
    stated = _Stated(
        {"notion": _LDP, "epsilon_per_feature": 1.0, "exact_disclosure": False}
    )
    row = _report_of(stated, k=1).iloc[0]
    assert (row["epsilon"], row["exact_disclosure"]) == (1.0, False)


def test_audited_figures_of_a_row():
    # a pure claim: the audited loss, and delta 0
    stated = _Stated({"notion": _LDP, "epsilon_per_feature": 1.0}, law=(0.75, None))
    row = _report_of(stated, k=1).iloc[0]
    assert (row["audited_epsilon"], row["audited_delta"]) == (0.75, 0.0)
    assert row["note"] == ""
    # an (epsilon, delta) claim: the exact delta at the claimed epsilon
    summary = {"notion": _LDP, "epsilon_per_feature": 1.0, "delta_per_feature": 0.5}
    row = _report_of(_Stated(summary, law=(3.0, 0.25)), k=1).iloc[0]
    assert (row["audited_epsilon"], row["audited_delta"]) == (1.0, 0.25)
    # a delta claim whose law gives no delta: the audited delta is unknown
    row = _report_of(_Stated(summary, law=(3.0, None)), k=1).iloc[0]
    assert row["audited_epsilon"] == 3.0 and np.isnan(row["audited_delta"])
    # a zero delta claim is a pure claim
    summary["delta_per_feature"] = 0.0
    row = _report_of(_Stated(summary, law=(0.5, None)), k=1).iloc[0]
    assert (row["audited_epsilon"], row["audited_delta"]) == (0.5, 0.0)


def test_a_law_that_cannot_be_audited_says_why():
    summary = {"notion": _LDP, "epsilon_per_feature": 1.0, "condition": "c"}
    report = _report_of(_Stated(summary, law="a continuous sampler"), k=2)
    for row in (report.iloc[0], report.iloc[1]):
        assert np.isnan(row["audited_epsilon"]) and np.isnan(row["audited_delta"])
        assert row["note"] == "c; audit: not auditable: a continuous sampler"
    assert np.isnan(_total(report)["audited_epsilon"])


class _Unseeded(_Stated):
    _is_seeded = None  # says nothing about its seeding


def test_rows_of_a_privatizer_that_does_not_say_whether_it_is_seeded():
    stated = _Unseeded({"notion": _LDP, "epsilon_per_feature": 1.0})
    assert np.isnan(_report_of(stated, k=1)["reproducible"].iloc[0])


def test_a_subset_summary_shorter_than_the_columns():
    stated = _Stated(
        {"notion": "subset privacy", "columns": [{"min_coverage": 0.5}]},
        law=(1.0, None),
    )
    report = _report_of(stated)
    # one entry, one row; the audit (one figure per column) does not fit it
    assert report["column"].tolist() == ["x0", "total"]
    assert np.isnan(report["audited_epsilon"].iloc[0])
    assert report["note"].iloc[0].endswith("no epsilon")


def test_repeats_multiply_the_audited_figures_too():
    summary = {"notion": _LDP, "epsilon_per_feature": 0.5, "delta_per_feature": 0.25}
    member = make_pipeline(_Stated(summary, law=(0.5, 2.0**-4)), Ridge())
    stack = StackingRegressor([("m", member)], final_estimator=Ridge(), cv=KFold(2))
    report = privacy_report(stack.fit(_frame(n=8)[["a"]], _y()))
    row = report.iloc[0]
    assert (row["epsilon"], row["delta"]) == (1.5, 0.75)
    assert (row["audited_epsilon"], row["audited_delta"]) == (1.5, 3 * 2.0**-4)


def test_an_unfitted_candidate_without_summary_has_no_exact_release():
    pipe = make_pipeline(LaplaceLDP(bounds=(0, 10)), KernelDensity())
    search = GridSearchCV(
        pipe, {"laplaceldp__epsilon": [0.5]}, cv=KFold(2), refit=False
    )
    row = privacy_report(search.fit(_X(k=1))).iloc[0]
    assert (row["epsilon"], row["delta"]) == (0.5, 0.0)
    assert row["exact_disclosure"] == False  # noqa: E712 (numpy bool)


def test_an_unfitted_candidate_with_a_delta_that_is_no_number():
    pipe = make_pipeline(_Budget(epsilon=0.5, delta=None), KernelDensity())
    search = GridSearchCV(pipe, {"_budget__epsilon": [0.5]}, cv=KFold(2), refit=False)
    row = privacy_report(search.fit(_X(k=1))).iloc[0]
    assert row["epsilon"] == 0.5 and np.isnan(row["delta"])


def test_a_summary_without_a_notion_names_none():
    row = _report_of(_Stated({"epsilon_per_feature": 1.0}), k=1).iloc[0]
    assert row["notion"] == ""


def test_figures_a_summary_does_not_give_are_numeric_nan():
    # a missing figure is NaN, as in every numeric column of the report, so
    # that the column can be compared with numbers
    report = _report_of(_Stated({"notion": _LDP, "epsilon_per_feature": 1.0}), k=1)
    for col in ("bounds_from_data", "floating_point_safe"):
        assert report[col].iloc[0] is not None
        assert (report[col] == True).tolist() == [False, False]  # noqa: E712
        assert report[col].dtype == np.float64
    # a coverage figure given as None for a column
    stated = _Stated(
        {
            "notion": "interval privacy",
            "coverage": 0.75,
            "leakage": 0.25,
            "exact_share": [None],
            "exact_disclosure": True,
        }
    )
    note = _report_of(stated, k=1)["note"].iloc[0]
    assert note.startswith(
        "values leave exactly: the design reports the values in its "
        "acceptable_range or exact cells as they are; no guarantee"
    )


def test_an_ldp_design_that_releases_values_exactly():
    stated = _Stated(
        {"notion": _LDP, "epsilon_per_feature": 1.0, "exact_disclosure": True}
    )
    row = _report_of(stated, k=1).iloc[0]
    assert (row["epsilon"], row["exact_disclosure"]) == (np.inf, True)
    assert row["note"] == (
        "values leave exactly: the design reports the values in its "
        "acceptable_range or exact cells as they are; no guarantee for those "
        "records"
    )


def test_a_column_released_exactly_gives_no_reason_for_a_missing_epsilon():
    # the exact design's coverage row has an epsilon now (inf): only the
    # stacking member, released an unknown number of times, lacks one
    splits = iter(list(KFold(2).split(_frame())))
    member = make_pipeline(_ldp(0.5), Ridge())
    stack = StackingRegressor([("m", member)], final_estimator=Ridge(), cv=splits)
    pipe = make_pipeline(_exact(), stack)
    report = privacy_report(pipe.fit(_frame(), _y()))
    assert report["column"].tolist() == ["a", "b", "a", "b", "y", "total"]
    assert report["epsilon"].iloc[:2].tolist() == [np.inf, np.inf]
    assert _total(report)["note"] == (
        "no guarantee: some columns leave raw and some columns leave exactly; "
        "raw columns (epsilon = inf): y; values released exactly: a, b; other "
        "columns have no epsilon: an unknown number of releases (fitted on all "
        "records and in cross_val_predict by StackingRegressor)"
    )


@pytest.mark.parametrize(
    "bounds",
    [(0, None), (None, 4), ([0, 1], [2, 3, 4]), ([0, 1, 2], [3, 4])],
)
def test_bounds_missing_on_one_side_are_no_bounds(bounds):
    # a pair the columns cannot be read from (one side missing, or one
    # figure per column on one side only) states no bounds
    stated = _Stated({"notion": _LDP, "epsilon_per_feature": 0.5, "bounds": bounds})
    report = _report_of(stated)
    assert report["bounds"].iloc[:2].tolist() == [None, None]
    assert report["epsilon"].tolist() == [0.5, 0.5, 1.0]


_READ_NOTE = (
    "values leave exactly: the categories read from the data are published "
    "(raw values of the records); no guarantee for those records"
)
_FROM_DATA_NOTE = (
    "categories read from the data (categories='auto'): their names, "
    "published with the release, include every value present, one held by a "
    "single respondent too"
)


def test_categories_read_from_the_data_are_flagged_and_noted():
    import warnings

    from skprivate import LaplaceLDP, SubsetUniform, privacy_report
    from skprivate.frequency import OptimizedUnaryEncoding

    X = pd.DataFrame({"r": ["a", "b", "c", "a"]})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the fit's own PrivacyLeakWarning
        auto = SubsetUniform().fit(X)
        oue = OptimizedUnaryEncoding().fit(X)
    declared = SubsetUniform(categories=[["a", "b", "c"]]).fit(X)
    assert auto.privacy_summary()["categories_from_data"] is True
    assert declared.privacy_summary()["categories_from_data"] is False
    assert oue.privacy_summary()["categories_from_data"] is True
    row = privacy_report(auto).iloc[0]
    assert not pd.isna(row["categories_from_data"]) and bool(
        row["categories_from_data"]
    )
    assert row["note"] == (
        _READ_NOTE + "; min_coverage: lower bound of the coverage of the "
        "released subset; " + _FROM_DATA_NOTE
    )
    assert row["epsilon"] == np.inf and bool(row["exact_disclosure"])
    row = privacy_report(declared).iloc[0]
    assert not pd.isna(row["categories_from_data"])
    assert not bool(row["categories_from_data"])
    assert row["note"] == (
        "min_coverage: lower bound of the coverage of the released subset; no epsilon"
    )
    row = privacy_report(oue).iloc[0]
    assert bool(row["categories_from_data"])
    assert row["note"] == _READ_NOTE + "; " + _FROM_DATA_NOTE
    laplace = privacy_report(LaplaceLDP(bounds=(0, 1)).fit(np.zeros((3, 1))))
    assert laplace["categories_from_data"].isna().all()
    assert list(laplace.columns)[-1] == "categories_from_data"


def test_a_row_without_a_note_gets_the_categories_note_alone():
    from skprivate._privacy_report._rows import _add_categories_from_data

    rows = [{}, {"note": "kept"}]
    _add_categories_from_data(rows, {"categories_from_data": True})
    text = (
        "categories read from the data (categories='auto'): their names, "
        "published with the release, include every value present, one held by "
        "a single respondent too"
    )
    assert rows == [
        {"categories_from_data": True, "note": text},
        {"categories_from_data": True, "note": f"kept; {text}"},
    ]
    rows = [{"note": "kept"}]
    _add_categories_from_data(rows, {"categories_from_data": False})
    assert rows == [{"categories_from_data": False, "note": "kept"}]
    _add_categories_from_data(rows, {})
    assert rows == [{"categories_from_data": False, "note": "kept"}]


def test_a_candidate_reading_bounds_and_categories_names_both():
    from sklearn.base import BaseEstimator

    from skprivate._privacy_report._rows import _static_rows
    from skprivate.base import PrivatizerMixin

    class _Both(PrivatizerMixin, BaseEstimator):
        def __init__(self, epsilon=1.0, bounds=None, categories="auto"):
            self.epsilon, self.bounds, self.categories = epsilon, bounds, categories

    (row,) = _static_rows(_Both(), "x", reads_data=True)
    assert row["epsilon"] == np.inf
    assert row["note"].startswith(
        "values leave exactly: the bounds and categories would be read from the "
        "data and published (raw values of the records); no guarantee for those "
        "records"
    )
