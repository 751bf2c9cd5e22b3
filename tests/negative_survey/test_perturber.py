"""RVNSPerturber: shapes, names, privacy statement, bad input."""

import numpy as np
import pandas as pd
import pytest
from scipy import integrate
from sklearn.base import clone
from sklearn.compose import ColumnTransformer
from sklearn.pipeline import make_pipeline

from skprivate.exceptions import InvalidParameterError, PrivacyLeakWarning
from skprivate.negative_survey import RVNSPerturber, rvns_transition_density


def test_shape_names_and_range():
    X = np.column_stack([np.linspace(0, 10, 50), np.linspace(100, 200, 50)])
    rvns = RVNSPerturber(
        d=[2.0, 20.0], k=3, bounds=([0, 100], [10, 200]), random_state=0
    )
    Y = rvns.fit_transform(X)
    assert Y.shape == (50, 6)
    assert rvns.get_feature_names_out().tolist() == [
        "x0_s0",
        "x0_s1",
        "x0_s2",
        "x1_s0",
        "x1_s1",
        "x1_s2",
    ]
    # the default (boundary-safe) reports range over [a - d, b + d]
    assert np.all((Y[:, :3] >= -2) & (Y[:, :3] <= 12))
    assert np.all((Y[:, 3:] >= 80) & (Y[:, 3:] <= 220))
    assert [r.tolist() for r in rvns.report_range_] == [[-2, 80], [12, 220]]


def test_reports_avoid_the_value_by_the_band_geometry():
    rng = np.random.default_rng(0)
    x = rng.uniform(2, 8, size=(20000, 1))
    Y = RVNSPerturber(d=2.0, k=4, bounds=(0, 10), random_state=1).fit_transform(x)
    below = np.where(x > Y, x - Y, np.inf).min(axis=1)
    above = np.where(x < Y, Y - x, np.inf).min(axis=1)
    # The band [x - d1, x - d1 + d] holds x and no report, so the nearest
    # reports below and above x are at least d apart.
    assert np.all(below + above >= 2.0 - 1e-12)


def test_pandas_in_and_out():
    df = pd.DataFrame({"age": [20.0, 30.0, 40.0], "hours": [10.0, 40.0, 60.0]})
    rvns = RVNSPerturber(d=5.0, k=2, bounds=(0, 100), random_state=0)
    out = rvns.set_output(transform="pandas").fit_transform(df)
    assert isinstance(out, pd.DataFrame)
    assert list(out.columns) == ["age_s0", "age_s1", "hours_s0", "hours_s1"]


def test_column_transformer_and_pipeline():
    df = pd.DataFrame({"age": [20.0, 30.0, 40.0], "sex": ["a", "b", "a"]})
    ct = ColumnTransformer(
        [("rvns", RVNSPerturber(d=5.0, bounds=(17, 90), random_state=0), ["age"])]
    )
    assert ct.fit_transform(df).shape == (3, 1)
    pipe = make_pipeline(RVNSPerturber(d=5.0, bounds=(17, 90), random_state=0))
    assert pipe.fit_transform(df[["age"]]).shape == (3, 1)


def test_seed_reproduces_and_clones_differ_with_none():
    X = np.linspace(0, 10, 100)[:, None]
    a = RVNSPerturber(2.0, bounds=(0, 10), random_state=3).fit_transform(X)
    b = clone(RVNSPerturber(2.0, bounds=(0, 10), random_state=3)).fit_transform(X)
    np.testing.assert_array_equal(a, b)
    c = RVNSPerturber(2.0, bounds=(0, 10)).fit_transform(X)
    assert not np.array_equal(a, c)


def test_bounds_from_data_warns():
    X = np.linspace(0, 10, 20)[:, None]
    with pytest.warns(PrivacyLeakWarning):
        rvns = RVNSPerturber(d=2.0).fit(X)
    assert rvns.bounds_[0][0] == 0 and rvns.bounds_[1][0] == 10


def test_fit_stores_no_data():
    X = np.linspace(0, 10, 20)[:, None]
    rvns = RVNSPerturber(d=2.0, bounds=(0, 10)).fit(X)
    for value in vars(rvns).values():
        assert not (isinstance(value, np.ndarray) and value.shape[0] == 20)


@pytest.mark.parametrize(
    "params, X, match",
    [
        ({"d": 10.0, "bounds": (0, 10)}, [[1.0]], "d must be smaller than the range"),
        ({"d": 12.0, "bounds": (0, 10)}, [[1.0]], "d must be smaller than the range"),
        ({"d": [1.0, 2.0, 3.0], "bounds": (0, 10)}, [[1.0]], "one entry per column"),
        ({"d": 1.0, "bounds": (10, 0)}, [[1.0]], "bounds"),
        ({"d": 1.0, "bounds": (0, 10)}, [[np.nan]], "NaN"),
        ({"d": 1.0, "bounds": (0, 10)}, [[np.inf]], "infinity"),
    ],
)
def test_bad_input_in_fit(params, X, match):
    with pytest.raises(ValueError, match=match):
        RVNSPerturber(**params).fit(X)


def test_bad_parameters():
    X = [[1.0]]
    with pytest.raises(InvalidParameterError, match="'k' parameter"):
        RVNSPerturber(d=1.0, k=0, bounds=(0, 10)).fit(X)
    with pytest.raises(InvalidParameterError, match="'d' parameter"):
        RVNSPerturber(d=-1.0, bounds=(0, 10)).fit(X)


def test_values_outside_bounds_are_refused():
    rvns = RVNSPerturber(d=1.0, bounds=(0, 10)).fit([[1.0]])
    with pytest.raises(ValueError, match="outside the declared bounds"):
        rvns.transform([[11.0]])


def test_wide_band_allowed_and_correct():
    # d > (b - a) / 2: every value is near an end; the band keeps width d.
    x = np.random.default_rng(0).uniform(0, 10, size=(20000, 1))
    Y = RVNSPerturber(
        d=7.0, k=1, bounds=(0, 10), random_state=1, placement="paper"
    ).fit_transform(x)
    assert np.all((Y >= 0) & (Y <= 10))
    assert np.all(np.abs(Y - x) > 0)


def test_epsilon_formula_and_summary():
    # Theorem 1 of the paper, for its placement
    rvns = RVNSPerturber(d=2.0, k=3, bounds=(0, 10), placement="paper").fit([[1.0]])
    assert rvns.epsilon(0.05) == pytest.approx(3 * np.log(160.0))
    summary = rvns.privacy_summary(delta=0.05)
    assert summary["notion"].startswith("real-value negative survey")
    # "epsilon" is one record's guarantee (a float, as for every privatizer);
    # the per-column quantities are lists with one entry per column
    assert summary["epsilon"] == pytest.approx(3 * np.log(160.0))
    assert summary["epsilon_per_feature"] == [pytest.approx(3 * np.log(160.0))]
    assert summary["band_fraction"] == [0.2]
    with pytest.raises(ValueError, match="delta"):
        rvns.epsilon(3.0)
    with pytest.raises(ValueError, match="delta"):
        rvns.epsilon(0.0)


def test_summary_per_record_is_the_sum_over_columns_and_matches_the_report():
    from skprivate import privacy_report

    rvns = RVNSPerturber(d=[2.0, 20.0], k=2, bounds=([0, 100], [10, 200]))
    rvns.fit([[1.0, 150.0]])
    summary = rvns.privacy_summary()  # what privacy_report reads
    eps = rvns.epsilon(summary["delta"])
    per_column = [eps[0], eps[1]]
    assert summary["epsilon_per_feature"] == pytest.approx(per_column)
    assert isinstance(summary["epsilon"], float)
    assert summary["epsilon"] == pytest.approx(sum(per_column))
    assert len(summary["boundary_margin"]) == len(summary["d"]) == 2
    report = privacy_report(rvns)
    assert report["epsilon"].iloc[:2].tolist() == pytest.approx(per_column)
    assert report.loc[report["column"] == "total", "epsilon"].item() == (
        pytest.approx(summary["epsilon"])
    )


def _window_probabilities(xs, centres, delta, d, a, b):
    """P(report in [y - delta, y + delta] | x) by exact integration."""
    fine = np.linspace(a, b, 40001)
    pdf = rvns_transition_density(xs[:, None], fine[None, :], d, (a, b), "paper")
    cdf = integrate.cumulative_trapezoid(pdf, fine, axis=1, initial=0.0)
    hi = np.array([np.interp(centres + delta, fine, row) for row in cdf])
    lo = np.array([np.interp(centres - delta, fine, row) for row in cdf])
    return hi - lo


def test_theorem_1_bound_holds_for_one_report():
    """Largest window-probability ratio vs 4d/delta (SPEC 5.4: 138.5 <= 160)."""
    a, b, d, delta = 0.0, 10.0, 2.0, 0.05
    xs = np.linspace(a, b, 201)
    centres = np.linspace(a, b, 2001)
    W = _window_probabilities(xs, centres, delta, d, a, b)
    support = rvns_transition_density(xs[:, None], centres[None, :], d, (a, b), "paper")
    support = support > 0
    den = np.where(support & (W > 0), W, np.nan)
    ratio = np.nanmax(W.max(axis=0) / np.nanmin(den, axis=0))
    assert ratio <= 4 * d / delta
    assert ratio > 100  # the bound is nearly tight (SPEC reports 138.5)
    # Without restricting the window centre to the support the ratio explodes.
    den_all = np.where(W > 0, W, np.nan)
    assert np.nanmax(W.max(axis=0) / np.nanmin(den_all, axis=0)) > 1e3


def test_grid_sampler_draws_the_exact_discrete_law():
    """A coarse grid (h = 1, indices 0..10, band of D + 1 = 4 points)."""
    from scipy import stats

    from skprivate.negative_survey._transition import sample_rvns_grid

    grid = (np.array([1.0]), np.array([0]), np.array([10]), np.array([3]))
    rng = np.random.default_rng(0)
    n = 100_000
    for jx in (0, 1, 2, 5, 9, 10):
        y = sample_rvns_grid(np.full((n, 1), float(jx)), grid, 2, rng)[:, 0, :]
        # the band s..s+3 with s uniform on [max(0, jx - 3), min(jx, 7)]; each
        # report uniform on the A = 7 points outside it
        starts = np.arange(max(0, jx - 3), min(jx, 7) + 1)
        out = (np.arange(11)[:, None] < starts) | (np.arange(11)[:, None] > starts + 3)
        p = out.mean(axis=1) / 7
        counts = np.bincount(y[:, 0].astype(int), minlength=11)
        assert counts[p == 0].sum() == 0
        assert stats.chisquare(counts[p > 0], p[p > 0] * n).pvalue > 1e-3
        # the two reports share one band
        both_equal = np.mean(y[:, 0] == y[:, 1])
        assert abs(both_equal - np.sum(out.mean(axis=1)) / 49) < 4 * np.sqrt(0.15 / n)


def test_default_reports_follow_the_continuous_transition_density():
    """The grid law is the continuous one to about 1e-7: a KS test at n = 2e5."""
    from scipy import stats

    rvns = RVNSPerturber(d=2.0, bounds=(0, 10), random_state=0).fit([[0.0]])
    assert rvns.privacy_summary()["floating_point_safe"] is True
    fine = np.linspace(-2, 12, 280_001)  # the boundary-safe report range
    for x in (0.0, 0.7, 5.0, 9.99):
        y = rvns.transform(np.full((200_000, 1), x))[:, 0]
        pdf = rvns_transition_density(x, fine, 2.0, (0, 10))
        cdf = integrate.cumulative_trapezoid(pdf, fine, initial=0.0)
        assert stats.kstest(y, lambda t, c=cdf: np.interp(t, fine, c)).pvalue > 1e-3


def test_continuous_opt_out_is_reported():
    rvns = RVNSPerturber(d=2.0, bounds=(0, 10), secure=False).fit([[0.0]])
    summary = rvns.privacy_summary()
    assert summary["floating_point_safe"] is False
    assert "output_grid" not in summary
    assert rvns.grid_step_ is None
    # the boundary-safe default: ln(2 d / delta) (the paper's ln(4 d / delta))
    assert rvns.epsilon(0.05) == pytest.approx(np.log(80.0), rel=1e-12)
