"""Bounds or categories read from the data leave raw values exactly.

``LaplaceLDP(epsilon=1)`` fitted without bounds on ages 1, 2, 3 and 97.3
publishes (1, 97.3) in ``bounds_`` and its summary (and a grid sampler's
every release, whose grid starts at the lower bound); ``categories="auto"``
publishes every category present.  ``privacy_report`` said epsilon 1 and
no exact disclosure, and ``audit`` said the claim was respected.  The
report now gives epsilon inf with an exact disclosure, and the audit marks
the claim not respected and says why.  RVNS with the paper's placement
claims its epsilon only for inputs away from the bounds; the report's
epsilon is the one over every input (inf).
"""

import warnings

import numpy as np
import pytest

from skprivate import LaplaceLDP, RVNSPerturber, SubsetUniform, audit, privacy_report
from skprivate._audit import read_from_data
from skprivate.frequency import GeneralizedRandomizedResponse
from skprivate.ldp import GeneralizedGaussianLDP, SquareWaveLDP


def _fit(privatizer, X):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the fit's own PrivacyLeakWarning
        return privatizer.fit(X)


@pytest.mark.parametrize(
    "make",
    [LaplaceLDP, GeneralizedGaussianLDP, SquareWaveLDP],
    ids=lambda c: c.__name__,
)
def test_bounds_read_from_the_data_give_no_finite_epsilon(make):
    X = np.array([[1.0], [2.0], [3.0], [97.3]])
    read = _fit(make(epsilon=1.0), X)
    report = privacy_report(read)
    assert report["epsilon"].tolist() == [np.inf, np.inf]  # column and total
    assert bool(report.loc[0, "exact_disclosure"])
    assert report.loc[0, "note"].startswith(
        "values leave exactly: the bounds read from the data are published"
    )
    checked = audit(read)
    assert checked["respected"].tolist() == [False]  # False, not None
    assert checked.loc[0, "method"].endswith(
        "; not respected: the bounds read from the data are published exactly "
        "(raw values of the records), which no epsilon covers"
    )
    declared = _fit(make(epsilon=1.0, bounds=(0, 100)), X)
    report = privacy_report(declared)
    assert report.loc[0, "epsilon"] == 1.0
    assert not bool(report.loc[0, "exact_disclosure"])
    assert bool(audit(declared).loc[0, "respected"])


def test_categories_read_from_the_data_give_no_finite_epsilon():
    X = np.array([["flu"], ["flu"], ["rare"]])
    auto = _fit(GeneralizedRandomizedResponse(epsilon=1.0), X)
    report = privacy_report(auto)
    assert report.loc[0, "epsilon"] == np.inf and report.loc[0, "exact_disclosure"]
    checked = audit(auto)
    assert checked["respected"].tolist() == [False]
    assert checked.loc[0, "method"].endswith(
        "; not respected: the categories read from the data are published "
        "exactly (raw values of the records), which no epsilon covers"
    )
    declared = _fit(
        GeneralizedRandomizedResponse(epsilon=1.0, categories=[["flu", "rare"]]), X
    )
    assert privacy_report(declared).loc[0, "epsilon"] == 1.0
    assert bool(audit(declared).loc[0, "respected"])


def test_a_coverage_notion_with_auto_categories_loses_its_no_epsilon_note():
    auto = _fit(SubsetUniform(), np.array([["a"], ["b"], ["c"]]))
    row = privacy_report(auto).iloc[0]
    assert row["epsilon"] == np.inf
    assert "no epsilon" not in row["note"].split("; ")


def test_read_from_data_names_what_was_read():
    assert read_from_data({}) == ""
    assert read_from_data({"bounds_from_data": False}) == ""
    assert read_from_data({"bounds_from_data": True}) == "bounds"
    assert read_from_data({"bounds_from_data": np.bool_(True)}) == "bounds"
    assert read_from_data({"categories_from_data": [False, True]}) == "categories"
    both = {"bounds_from_data": True, "categories_from_data": True}
    assert read_from_data(both) == "bounds and categories"


def test_rvns_paper_placement_reports_the_loss_at_every_input():
    X = np.array([[1.0], [5.0]])
    paper = RVNSPerturber(d=2, bounds=(0, 10), placement="paper").fit(X)
    summary = paper.privacy_summary()
    assert np.isfinite(summary["epsilon_per_feature"][0])
    assert summary["epsilon_every_input"][0] == np.inf
    assert privacy_report(paper).loc[0, "epsilon"] == np.inf
    safe = RVNSPerturber(d=2, bounds=(0, 10)).fit(X)
    expected = safe.privacy_summary()["epsilon_per_feature"][0]
    assert privacy_report(safe).loc[0, "epsilon"] == pytest.approx(
        expected, rel=0, abs=0
    )


def test_subset_unknown_values_reported_as_all_zero_are_an_exact_disclosure():
    X = np.array([["yes"], ["no"]])
    ignore = SubsetUniform(categories=[["yes", "no"]], handle_unknown="ignore").fit(X)
    # an unknown value leaves as the all-zero block, which no known one does
    released = ignore.transform(np.array([["maybe"]] * 50 + [["yes"]] * 50))
    assert (released[:50].sum(axis=1) == 0).mean() > 0.5
    assert (released[50:].sum(axis=1) > 0).all()
    assert ignore.privacy_summary()["unknown_disclosed"] is True
    row = privacy_report(ignore).iloc[0]
    assert row["epsilon"] == np.inf and bool(row["exact_disclosure"])
    assert row["note"] == (
        "values leave exactly: handle_unknown='ignore' reports a value outside "
        "the categories as the all-zero block (coverage 0), which no known value "
        "produces; min_coverage: lower bound of the coverage of the released subset"
    )
    error = SubsetUniform(categories=[["yes", "no"]]).fit(X)
    assert error.privacy_summary()["unknown_disclosed"] is False
    assert np.isnan(privacy_report(error).loc[0, "epsilon"])


def test_the_total_says_when_a_seed_can_replay_the_noise():
    X = np.array([[0.5]])
    seeded = privacy_report(
        LaplaceLDP(epsilon=1.0, bounds=(0, 1), random_state=0).fit(X)
    )
    total = seeded.iloc[-1]
    assert bool(total["reproducible"]) and total["epsilon"] == 1.0
    assert total["note"] == (
        "sequential composition over the columns of one record; seeded "
        "(reproducible) privatizers: whoever holds random_state and the other "
        "records replays their noise; for simulation, not for release"
    )
    fresh = privacy_report(LaplaceLDP(epsilon=1.0, bounds=(0, 1)).fit(X)).iloc[-1]
    assert not bool(fresh["reproducible"])
    assert fresh["note"] == "sequential composition over the columns of one record"
