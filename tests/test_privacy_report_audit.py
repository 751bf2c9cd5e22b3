"""``privacy_report``'s audited columns: the exact figures beside the claims.

Every privatizer row carries ``audited_epsilon`` and ``audited_delta``, the
exact figures :func:`skprivate.audit` computes from the output law of its
sampler; they compose (and repeat) as the claimed figures do, and the total
row holds the audited per-record total.  An audited figure above its claim
is a broken guarantee, so the checks here are inequalities with no slack
besides exact equalities for the mechanisms whose claim is attained.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.compose import ColumnTransformer
from sklearn.ensemble import BaggingRegressor
from sklearn.model_selection import GridSearchCV, KFold
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from skprivate import (
    DeconvolutionKernelRegressor,
    IntervalCaseI,
    LaplaceLDP,
    audit,
    privacy_report,
)
from skprivate.ldp import FlippedHuberLDP, GeneralizedGaussianLDP, SquareWaveLDP


def _frame(n=60, seed=0):
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "a": rng.uniform(0, 1, n),
            "b": rng.uniform(0, 1, n),
            "c": rng.uniform(17, 90, n),
            "d": rng.uniform(0, 1, n),
        }
    )


def _column_transformer(delta=1e-5):
    return ColumnTransformer(
        [
            ("a", LaplaceLDP(epsilon=1.0, bounds=(0, 1)), ["a"]),
            ("b", FlippedHuberLDP(epsilon=1.0, delta=delta, bounds=(0, 1)), ["b"]),
            ("c", SquareWaveLDP(epsilon=2.0, bounds=(17, 90)), ["c"]),
            (
                "d",
                GeneralizedGaussianLDP(epsilon=0.5, delta=delta, bounds=(0, 1)),
                ["d"],
            ),
        ]
    )


def _total(report):
    return report.loc[report["column"] == "total"].iloc[0]


def test_each_row_carries_the_audit_of_its_privatizer():
    ct = _column_transformer().fit(_frame())
    report = privacy_report(ct)
    rows = report.set_index("column")
    # a pure claim: the exact worst-case loss, and no delta
    for name, privatizer in (("a", ct.named_transformers_["a"]),):
        found = audit(privatizer).iloc[0]
        assert rows.loc[name, "audited_epsilon"] == found["audited_epsilon"]
        assert rows.loc[name, "audited_delta"] == 0.0
    # Laplace and Square Wave attain their claims
    assert rows.loc["a", "audited_epsilon"] == pytest.approx(1.0, rel=1e-12)
    assert rows.loc["c", "audited_epsilon"] == pytest.approx(2.0, rel=1e-12)
    # an (epsilon, delta) claim: the exact delta at the claimed epsilon
    for name in ("b", "d"):
        found = audit(ct.named_transformers_[name]).iloc[0]
        assert rows.loc[name, "audited_epsilon"] == rows.loc[name, "epsilon"]
        assert rows.loc[name, "audited_delta"] == found["audited_delta"]
        assert rows.loc[name, "audited_delta"] > 0


def test_audited_figures_never_exceed_the_claims():
    for delta in (1e-3, 1e-5, 1e-9):
        report = privacy_report(_column_transformer(delta).fit(_frame()))
        body = report[report["column"] != "total"]
        assert (body["audited_epsilon"] <= body["epsilon"]).all(), body
        assert (body["audited_delta"] <= body["delta"]).all(), body
        total = _total(report)
        assert total["audited_epsilon"] <= total["epsilon"]
        assert total["audited_delta"] <= total["delta"]


def test_the_total_composes_the_audited_figures():
    report = privacy_report(_column_transformer().fit(_frame()))
    body = report[report["column"] != "total"]
    total = _total(report)
    assert total["audited_epsilon"] == pytest.approx(body["audited_epsilon"].sum())
    assert total["audited_delta"] == pytest.approx(body["audited_delta"].sum())


def test_repeated_releases_multiply_the_audited_figures():
    df = _frame()
    y = df["a"].to_numpy()
    member = DeconvolutionKernelRegressor(
        bandwidth=0.2,
        privatizer=FlippedHuberLDP(epsilon=1.0, delta=1e-5, bounds=(0, 1)),
    )
    bag = BaggingRegressor(member, n_estimators=3, bootstrap=False, random_state=0).fit(
        df[["b"]], y
    )
    report = privacy_report(bag)
    rows = report[report["mechanism"] == "FlippedHuberLDP"]
    one = audit(bag.estimators_[0].privatizer_).iloc[0]
    assert len(rows) == 3
    assert rows["audited_delta"].sum() == pytest.approx(3 * one["audited_delta"])
    # the search's repeats scale the audited figures like the claimed ones
    search = GridSearchCV(
        make_pipeline(LaplaceLDP(bounds=(0, 1)), StandardScaler()),
        {"laplaceldp__epsilon": [0.5, 1.0]},
        cv=KFold(2),
        scoring=lambda est, X, y=None: 0.0,
    ).fit(df[["a"]])
    report = privacy_report(search)
    row = report[report["mechanism"] == "LaplaceLDP"].iloc[0]
    assert row["audited_epsilon"] == pytest.approx(row["epsilon"], rel=1e-12)


def test_no_guarantee_keeps_the_audited_total_infinite():
    df = _frame()
    ct = ColumnTransformer(
        [("a", LaplaceLDP(epsilon=1.0, bounds=(0, 1)), ["a"])],
        remainder="passthrough",
    ).fit(df)
    total = _total(privacy_report(ct))
    assert total["epsilon"] == np.inf and total["audited_epsilon"] == np.inf


def test_a_continuous_sampler_is_not_audited_and_says_why():
    ldp = LaplaceLDP(epsilon=1.0, bounds=(0, 1), secure=False).fit(_frame()[["a"]])
    report = privacy_report(ldp)
    row = report.iloc[0]
    assert np.isnan(row["audited_epsilon"])
    assert "audit: not auditable" in row["note"]
    assert np.isnan(_total(report)["audited_epsilon"])


def test_an_interval_row_shows_its_pointwise_loss():
    ldp = IntervalCaseI(anchor_loc=0.5, anchor_scale=0.2, random_state=0)
    report = privacy_report(ldp.fit(_frame()[["a"]]))
    row = report.iloc[0]
    # coverage notion: no claimed epsilon; the release reveals an interval
    # holding the value, so the pointwise loss of its law is infinite
    assert np.isnan(row["epsilon"]) and row["audited_epsilon"] == np.inf


def test_audit_refuses_a_composite_and_points_to_the_report():
    pipe = make_pipeline(LaplaceLDP(epsilon=1.0, bounds=(0, 1))).fit(_frame()[["a"]])
    with pytest.raises(TypeError, match="privacy_report"):
        audit(pipe)
