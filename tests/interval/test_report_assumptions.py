"""What an interval report assumes, and what the design does to the data.

The coverage of ``privacy_summary`` is computed for a reference population,
``N(anchor_loc, anchor_scale²)`` by default.  The summary names it; ``fit``
computes the coverage against the fitted data and the share of values
released exactly, warns when the data are covered far less or would be
released raw, and keeps neither figure (the tests read them through the
``fit_figures`` fixture).
Microaggregation with clusters of one record warns too.
"""

import warnings

import numpy as np
import pytest
from scipy import integrate, stats

from skprivate.exceptions import PrivacyLeakWarning
from skprivate.integral import Microaggregator
from skprivate.interval import (
    IntervalCaseI,
    IntervalCaseII,
    IntervalEnsemble,
    IntervalMechanism,
    average_coverage,
)

# Fit-time figures: 20,000 anchor draws of means of terms in [0, 1], so a
# Monte Carlo standard error of at most 0.5 / sqrt(20,000).
DATA_SE = 0.5 / np.sqrt(20_000)
DATA_TOL = 4 * DATA_SE
# privacy_summary's reference figures: 200,000 anchor draws.
REF_SE = 0.5 / np.sqrt(200_000)


def _case_one_coverage():
    def f(u):
        return (stats.norm.cdf(u) ** 2 + stats.norm.sf(u) ** 2) * stats.logistic.pdf(u)

    return integrate.quad(f, -np.inf, np.inf)[0]


def test_tiny_anchor_scale_warns_on_the_coverage_against_the_data(fit_figures):
    X = np.random.default_rng(0).normal(size=(20_000, 1))
    mech = IntervalCaseI(anchor_scale=1e-9, random_state=0)
    with pytest.warns(PrivacyLeakWarning, match=r"0\.1 below the 0\.76"):
        mech.fit(X)
    s = mech.privacy_summary()
    # the reference coverage is scale-free, so it still says 0.76 ...
    assert s["coverage"] == pytest.approx(_case_one_coverage(), abs=4 * REF_SE)
    assert s["coverage_reference"] == "N(0, 1e-09^2)"
    # ... but every anchor lies within 4e-8 of 0 and no value is that close,
    # so every draw cuts the data at 0: coverage p² + (1 - p)², about 0.5
    assert np.min(np.abs(X)) > 1e-6
    p = np.mean(X <= 0)
    ((coverage, share),) = fit_figures
    assert coverage == pytest.approx(p**2 + (1 - p) ** 2, abs=1e-12)
    assert share == 0.0 and s["exact_share"] == 0.0
    # the released intervals agree: their coverage against the data is ~0.5
    Z = mech.transform(X)
    assert average_coverage(Z, X[:, 0]) == pytest.approx(0.5, abs=1e-3)


def _uniform_window(half_width):
    """Anchors U - 1 and U + 1 with U uniform on [-L, L]; the middle is exact.

    A value y with |y| <= L - 1 is reported exactly when y - 1 <= U < y + 1,
    with probability 2 / (2 L) = 1 / L.
    """
    return IntervalMechanism(
        n_anchors=2,
        offsets=[-1, 1],
        exact_cells=[1],
        distribution="uniform",
        loc=-half_width,
        scale=2 * half_width,
        random_state=0,
    )


def test_exact_cells_report_the_share_released_exactly(fit_figures):
    L = 1 / 0.46
    X = np.random.default_rng(1).uniform(-1, 1, size=(20_000, 1))
    mech = _uniform_window(L)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        mech.fit(X)
    # 46 % is below one half: reported, not warned about
    assert not [w for w in caught if "exactly" in str(w.message)]
    s = mech.privacy_summary()
    assert s["exact_disclosure"] is True
    ((_, share_data),) = fit_figures
    assert abs(share_data - 1 / L) <= DATA_TOL
    # under the reference N(0, 1): E[|[Y - 1, Y + 1] ∩ [-L, L]|] / (2 L)
    ref, _ = integrate.quad(
        lambda y: (
            stats.norm.pdf(y) * max(0.0, min(y + 1, L) - max(y - 1, -L)) / (2 * L)
        ),
        -np.inf,
        np.inf,
    )
    assert s["exact_share"] == pytest.approx(ref, abs=4 * REF_SE)
    assert s["coverage_reference"] == "N(0, 1^2)"
    # the releases agree: about 46 % of the reports are exact
    Z = mech.transform(X)
    share = np.mean(Z[:, 0] == Z[:, 1])
    assert abs(share - 1 / L) < 4 * np.sqrt(0.46 * 0.54 / X.shape[0])


def test_exact_cells_covering_most_of_the_data_warn(fit_figures):
    L = 1.6
    X = np.random.default_rng(2).uniform(-0.6, 0.6, size=(5_000, 1))
    mech = _uniform_window(L)
    with pytest.warns(PrivacyLeakWarning, match="more than half .* exactly"):
        mech.fit(X)
    ((_, share),) = fit_figures
    assert abs(share - 1 / L) <= DATA_TOL
    # also with few rows
    with pytest.warns(PrivacyLeakWarning, match="more than half .* exactly"):
        _uniform_window(L).fit(X[:50])


def test_default_window_share_matches_the_releases(fit_figures):
    # The paper's M1 (window of width 2, middle cell exact) on N(0, 1) data.
    X = np.random.default_rng(3).normal(size=(20_000, 1))
    mech = IntervalMechanism(offsets=[-1, 1], exact_cells=[1], random_state=0)
    mech.fit(X)
    s = mech.privacy_summary()
    Z = mech.transform(X)
    share = np.mean(Z[:, 0] == Z[:, 1])
    se = np.sqrt(share * (1 - share) / X.shape[0])
    ((coverage_data, share_data),) = fit_figures
    assert abs(share_data - share) <= DATA_TOL + 4 * se
    # the data follow the reference, so both figures agree
    assert abs(s["exact_share"] - share_data) <= DATA_TOL + 4 * REF_SE
    assert abs(s["coverage"] - coverage_data) <= DATA_TOL + 4 * REF_SE


def test_ensemble_reports_and_warns_per_column(fit_figures):
    rng = np.random.default_rng(4)
    # column 1 is three times wider than the reference N(0, 1): the pooled
    # anchors cut it into cells each holding less of it than 0.50 assumes
    X = np.column_stack([rng.normal(size=2_000), 3 * rng.normal(size=2_000)])
    ens = IntervalEnsemble([IntervalCaseI(), IntervalCaseII()], random_state=0)
    with pytest.warns(PrivacyLeakWarning, match="column 'x1'") as record:
        ens.fit(X)
    assert not [w for w in record if "column 'x0'" in str(w.message)]
    s = ens.privacy_summary()
    (first, _), (second, _) = fit_figures
    assert len(s["coverage"]) == 2
    assert abs(first - s["coverage"][0]) <= DATA_TOL + 4 * REF_SE
    assert second < s["coverage"][1] - 0.1
    assert s["coverage_reference"] == ["N(0, 1^2)", "N(0, 1^2)"]


def test_the_gap_is_checked_from_200_rows_and_nothing_is_kept(fit_figures):
    X = np.random.default_rng(5).normal(size=(1_000, 1))
    anchors = {"anchor_scale": 1e-9, "random_state": 0}
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyLeakWarning)
        IntervalCaseII(**anchors).fit(X[:199])
    with pytest.warns(PrivacyLeakWarning, match="0.1 below"):
        IntervalCaseII(**anchors).fit(X[:200])
    assert len(fit_figures) == 2  # computed both times
    unfitted = IntervalCaseII(random_state=0).privacy_summary()
    fitted = IntervalCaseII(random_state=0).fit(X).privacy_summary()
    assert fitted == unfitted
    assert "coverage_data" not in fitted and "data_aggregates" not in fitted


def test_microaggregation_with_single_record_clusters_warns():
    X = np.array([[3.0], [1.0], [7.0], [4.0]])
    with pytest.warns(PrivacyLeakWarning, match="single record"):
        released = Microaggregator(min_cluster_size=1).fit_transform(X)
    np.testing.assert_array_equal(released, X)  # the raw values, unchanged
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyLeakWarning)
        Microaggregator(min_cluster_size=2).fit_transform(X)


# --- what privacy_report shows of the assumption and the exact releases -------


def _report_row(report, column="x0"):
    return report.loc[report["column"] == column].iloc[0]


def test_report_shows_the_reference_law_and_no_figure_of_the_data():
    from skprivate import privacy_report

    X = np.random.default_rng(0).normal(size=(20_000, 1))
    with pytest.warns(PrivacyLeakWarning, match="0.1 below"):
        mech = IntervalCaseI(anchor_scale=1e-9, random_state=0).fit(X)
    report = privacy_report(mech)
    row = _report_row(report)
    assert row["coverage"] == pytest.approx(_case_one_coverage(), abs=4 * REF_SE)
    assert row["coverage_reference"] == "N(0, 1e-09^2)"
    assert "coverage_data" not in report.columns
    assert row["note"] == (
        "coverage as in the mechanism's paper; no epsilon; coverage assumes the "
        "reference law N(0, 1e-09^2) (coverage_reference); fit warns when the "
        "fitted data are covered far less"
    )
    # nothing is released exactly: a coverage notion, no composed epsilon
    assert not row["exact_disclosure"]
    assert np.isnan(row["epsilon"]) and np.isnan(report["epsilon"].iloc[-1])


def test_report_columns_keep_their_order_and_append_the_new_ones():
    from skprivate import privacy_report

    X = np.random.default_rng(1).normal(size=(300, 1))
    report = privacy_report(IntervalCaseII(random_state=0).fit(X))
    assert list(report.columns) == [
        "column",
        "mechanism",
        "notion",
        "epsilon",
        "delta",
        "coverage",
        "leakage",
        "bounds",
        "bounds_from_data",
        "floating_point_safe",
        "reproducible",
        "note",
        "coverage_reference",
        "exact_disclosure",
        "audited_epsilon",
        "audited_delta",
        "categories_from_data",
    ]


def test_acceptable_range_over_the_data_is_reported_as_an_exact_release():
    from skprivate import privacy_report

    X = np.random.default_rng(2).uniform(0, 100, size=(1_000, 1))
    mech = IntervalMechanism(acceptable_range=(-1, 101), random_state=0)
    with pytest.warns(PrivacyLeakWarning, match="exactly"):
        mech.fit(X)
    Z = mech.transform(X)
    np.testing.assert_array_equal(Z, np.hstack([X, X]))  # every value, raw
    report = privacy_report(mech)
    row = _report_row(report)
    assert row["exact_disclosure"] == True  # noqa: E712 (numpy bool)
    assert row["epsilon"] == np.inf
    assert row["note"].startswith("values leave exactly")
    # under the reference N(0, 1): P(-1 < Y < 101) = 0.84
    assert "(expected: 84% under the reference law)" in row["note"]
    assert "no epsilon" not in row["note"]
    total = report.iloc[-1]
    assert total["epsilon"] == np.inf
    assert total["note"] == (
        "no guarantee: some columns leave exactly; values released exactly: x0; "
        "seeded (reproducible) privatizers: whoever holds random_state and the "
        "other records replays their noise; for simulation, not for release"
    )


@pytest.mark.parametrize("n", [5_000, 50])
def test_exact_cells_flag_the_column_however_many_rows(n):
    # the window's middle cell holds an expected 1 / 1.6 of these values;
    # the column is flagged however many rows: a design that reports any
    # value exactly is an exact release
    from skprivate import privacy_report

    X = np.random.default_rng(3).uniform(-0.6, 0.6, size=(n, 1))
    with pytest.warns(PrivacyLeakWarning, match="exactly"):
        mech = _uniform_window(1.6).fit(X)
    row = _report_row(privacy_report(mech))
    assert row["exact_disclosure"] == True  # noqa: E712 (numpy bool)
    assert row["epsilon"] == np.inf
    assert "exact_share_data" not in row.index


def test_exact_column_beside_an_ldp_column_names_only_itself():
    from sklearn.compose import ColumnTransformer

    from skprivate import LaplaceLDP, privacy_report

    rng = np.random.default_rng(4)
    X = np.column_stack([rng.uniform(0, 100, 400), rng.uniform(0, 100, 400)])
    ct = ColumnTransformer(
        [
            ("a", LaplaceLDP(epsilon=1, bounds=(0, 100), random_state=0), [0]),
            ("b", IntervalMechanism(acceptable_range=(-1, 101), random_state=0), [1]),
        ]
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        report = privacy_report(ct.fit(X))
    assert list(report["exact_disclosure"][:2]) == [False, True]
    assert report["epsilon"].tolist() == [1.0, np.inf, np.inf]
    assert (
        report["note"]
        .iloc[-1]
        .split("; seeded")[0]
        .endswith("values released exactly: 1")
    )
