"""Exact checks of ``audit`` and ``audited_columns`` (``_audit/_audit.py``):
how each column's claim is read, compared with its exact worst case, and
reported.

A stand-in privatizer returns prescribed laws, so that every branch (no law,
a pure claim, an ``(epsilon, delta)`` claim, a claim of another notion,
per-column claims) is checked on figures known in advance.
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd
import pytest
from sklearn.exceptions import NotFittedError

import skprivate
from skprivate._audit import InfiniteLoss, NoExactLaw, WorstCase, audited_columns
from skprivate._audit._audit import NOTE


class _Law:
    def __init__(self, eps, delta=None, other=None):
        self.eps, self.delta, self.other_notion = eps, delta, other
        self.asked = []

    def worst_epsilon(self):
        return WorstCase(self.eps, (0.0, 1.0), 7.0, "by hand")

    def worst_delta(self, epsilon):
        self.asked.append(epsilon)
        if self.delta is None:
            return None
        return WorstCase(self.delta, (1.0, 0.0), "half-line", "tail")


class _Stand:
    """A fitted privatizer with prescribed claims and laws."""

    def __init__(self, summary, laws, names=None, n=None):
        self.summary, self.laws = summary, laws
        self.n_features_in_ = len(laws) if n is None else n
        if names is not None:
            self.feature_names_in_ = np.asarray(names, dtype=object)
        self.fitted_ = True

    def privacy_summary(self):
        return dict(self.summary)

    def _exact_law(self, j):
        law = self.laws[j]
        if isinstance(law, Exception):
            raise law
        return law


def test_a_pure_claim_is_respected_up_to_equality():
    laws = [_Law(1.0), _Law(1.0 + 1e-12), _Law(0.5)]
    before = time.perf_counter()
    rows = audited_columns(_Stand({"epsilon_per_feature": 1.0}, laws))
    elapsed = time.perf_counter() - before
    assert all(0 <= r["seconds"] <= elapsed for r in rows)
    assert [r["respected"] for r in rows] == [True, False, True]
    assert [r["audited_epsilon"] for r in rows] == [1.0, 1.0 + 1e-12, 0.5]
    assert [r["column"] for r in rows] == ["x0", "x1", "x2"]
    first = rows[0]
    assert first["claimed_epsilon"] == 1.0 and first["claimed_delta"] is None
    assert first["worst_inputs"] == (0.0, 1.0) and first["worst_output"] == 7.0
    assert first["method"] == "by hand" and first["exact"] is True
    assert first["audited_delta"] is None and first["seconds"] >= 0
    # no delta is asked for a pure claim
    assert laws[0].asked == []


def test_a_delta_claim_is_judged_by_the_delta_at_the_claimed_epsilon():
    laws = [_Law(3.0, delta=1e-6), _Law(3.0, delta=1e-6 + 1e-15), _Law(0.1, delta=0.0)]
    summary = {"epsilon_per_feature": 0.5, "delta_per_feature": 1e-6}
    rows = audited_columns(_Stand(summary, laws))
    assert [r["respected"] for r in rows] == [True, False, True]
    assert [law.asked for law in laws] == [[0.5], [0.5], [0.5]]
    first = rows[0]
    # epsilon alone exceeds the claim; the delta row says what was judged
    assert first["audited_epsilon"] == 3.0 and first["audited_delta"] == 1e-6
    assert first["worst_inputs"] == (1.0, 0.0)
    assert first["worst_output"] == "half-line"
    assert first["method"] == "by hand; delta: tail"


def test_a_law_without_a_delta_leaves_the_delta_claim_unjudged():
    summary = {"epsilon_per_feature": 1.0, "delta_per_feature": 1e-5}
    row = audited_columns(_Stand(summary, [_Law(0.2, delta=None)]))[0]
    assert row["respected"] is None and row["audited_delta"] is None
    assert row["audited_epsilon"] == 0.2 and row["method"] == "by hand"
    # a delta claim without an epsilon claim is not judged either
    row = audited_columns(_Stand({"delta_per_feature": 1e-5}, [_Law(0.2, 0.0)]))[0]
    assert row["respected"] is None and row["claimed_epsilon"] is None


def test_claims_per_column_and_missing_entries():
    summary = {"epsilon_per_feature": [1.0, 2.0], "delta_per_feature": None}
    rows = audited_columns(_Stand(summary, [_Law(1.5), _Law(1.5), _Law(1.5)]))
    assert [r["claimed_epsilon"] for r in rows] == [1.0, 2.0, None]
    assert [r["respected"] for r in rows] == [False, True, None]
    assert all(r["claimed_delta"] is None for r in rows)
    summary = {"epsilon_per_feature": np.float32(0.25)}
    row = audited_columns(_Stand(summary, [_Law(0.25)]))[0]
    assert type(row["claimed_epsilon"]) is float and row["claimed_epsilon"] == 0.25
    # one claim per column as an array
    summary = {"epsilon_per_feature": np.array([0.5, 0.75])}
    rows = audited_columns(_Stand(summary, [_Law(0.5), _Law(0.5)]))
    assert [r["claimed_epsilon"] for r in rows] == [0.5, 0.75]


def test_a_claim_of_another_notion_is_not_judged():
    law = _Law(4.0, other="a loss between windows of outputs")
    row = audited_columns(_Stand({"epsilon_per_feature": 1.0}, [law]))[0]
    assert row["respected"] is None and row["audited_epsilon"] == 4.0
    assert row["method"] == "by hand; the claim is a loss between windows of outputs"
    loss = InfiniteLoss((0, 1), "cell", "impossible for 1")
    row = audited_columns(_Stand({"epsilon_per_feature": 1.0}, [loss]))[0]
    assert row["audited_epsilon"] == np.inf and row["respected"] is False
    assert row["method"] == "impossible for 1" and loss.worst_delta(1.0) is None
    assert row["worst_output"] == "cell" and row["worst_inputs"] == (0, 1)


def test_columns_without_an_exact_law_say_why():
    laws = [
        NoExactLaw("a continuous sampler"),
        NotImplementedError("no law for this design"),
        NotImplementedError(),
    ]
    rows = audited_columns(_Stand({"epsilon_per_feature": 1.0}, laws))
    assert [r["method"] for r in rows] == [
        "not auditable: a continuous sampler",
        "not auditable: no law for this design",
        "not auditable: no exact output law is implemented",
    ]
    assert all(r["respected"] is None and r["exact"] is False for r in rows)
    assert all(r["audited_epsilon"] is None for r in rows)


def test_named_columns_are_reported_by_name():
    stand = _Stand({"epsilon_per_feature": 1.0}, [_Law(1.0), _Law(1.0)], names=["a", 5])
    assert [r["column"] for r in audited_columns(stand)] == ["a", "5"]


def test_the_summary_given_is_used_and_none_reads_the_privatizers():
    stand = _Stand({"epsilon_per_feature": 1.0}, [_Law(1.5)])
    assert audited_columns(stand)[0]["respected"] is False
    row = audited_columns(stand, {"epsilon_per_feature": 2.0})[0]
    assert row["claimed_epsilon"] == 2.0 and row["respected"] is True


def test_audit_frame_columns_mechanism_and_note():
    ldp = skprivate.LaplaceLDP(epsilon=1.0, bounds=(0, 1)).fit(np.zeros((3, 2)))
    report = skprivate.audit(ldp)
    assert list(report.columns) == [
        "column",
        "mechanism",
        "claimed_epsilon",
        "audited_epsilon",
        "claimed_delta",
        "audited_delta",
        "worst_inputs",
        "worst_output",
        "method",
        "respected",
    ]
    assert report["mechanism"].tolist() == ["LaplaceLDP", "LaplaceLDP"]
    assert report["column"].tolist() == ["x0", "x1"]
    assert report.attrs["note"] == NOTE
    assert isinstance(report, pd.DataFrame)


def test_audit_refuses_what_it_cannot_read():
    with pytest.raises(
        TypeError,
        match=r"^audit takes a fitted privatizer of skprivate; got Pipeline\. For a "
        r"pipeline, column transformer, learner, ensemble or search, "
        r"privacy_report\(estimator\) gives the audited figures of every "
        r"privatizer it holds \(columns audited_epsilon and audited_delta\) and "
        r"their audited total\.$",
    ):
        from sklearn.pipeline import make_pipeline

        skprivate.audit(make_pipeline(skprivate.LaplaceLDP()))
    with pytest.raises(
        NotFittedError,
        match=r"^privatizer LaplaceLDP is not fitted: audit reads the output law of "
        r"a fitted privatizer \(its bounds, grid and noise scale are set by fit\); "
        r"call fit first\.$",
    ):
        skprivate.audit(skprivate.LaplaceLDP(bounds=(0, 1)))


@pytest.mark.parametrize(
    "audited, claim",
    [([np.inf, 0.5], 3.0), ([1.0, 0.5], np.inf), ([np.nan, 0.5], 3.0)],
    ids=["a column of infinite loss", "an infinite claim", "a NaN figure"],
)
def test_the_record_is_added_up_only_for_finite_figures(audited, claim):
    """An infinite (or NaN) figure on either side: no sum, no record verdict.

    A column of infinite audited loss is already not respected on its own;
    a record claim of infinity is never exceeded.  The sum is exact
    (fractions of the doubles), which no infinite figure has.
    """
    from skprivate._audit._audit import _check_record

    frame = pd.DataFrame(
        {
            "audited_epsilon": audited,
            "respected": [False, True],
            "method": ["by hand", "by hand"],
        }
    )
    _check_record(_Stand({"epsilon": claim}, []), frame)
    assert dict(frame.attrs) == {}
    assert frame["respected"].tolist() == [False, True]
    assert frame["method"].tolist() == ["by hand", "by hand"]
