"""Confidence-interval behaviour that mutation testing found unchecked.

Each test pins a documented behaviour of the shared interval interface
(``skprivate/_uncertainty.py``) or of the grid-EMS and interval-family
intervals with an exact small case: the normal, percentile and
subsampling formulas, the level honoured, the seeding of the resampled
rows, the refusals and their messages (parameter named, no data value
shown).  ``benchmarks/_mutation_specs_intervals.py`` lists the mutants of
each module the tests kill.
"""

import re
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from sklearn.base import BaseEstimator

from skprivate._uncertainty import (
    COLUMNS,
    DEFAULT_RESAMPLES,
    ConfidenceIntervalMixin,
    IntervalRequest,
    bootstrap_replicates,
    check_level,
    interval_frame,
    normal_frame,
    normal_interval,
    percentile_interval,
    probabilities_of,
    resample_indices,
    subsampling_interval,
    values_of,
    z_value,
)
from skprivate.distributions import DiscreteDistribution, PopulationEstimateMixin

# -- the shared interface: skprivate/_uncertainty.py ---------------------------


def _request(**given):
    args = {
        "kind": "cdf",
        "points": None,
        "level": 0.9,
        "method": "auto",
        "X": None,
        "y": None,
        "n_resamples": None,
        "random_state": None,
        "n_jobs": None,
    }
    return IntervalRequest(**{**args, **given})


class _Empirical(PopulationEstimateMixin, BaseEstimator):
    """The empirical law of its rows; fails on fewer than ``min_rows`` rows."""

    def __init__(self, min_rows=1):
        self.min_rows = min_rows

    def fit(self, x, y=None):
        x = np.asarray(x, dtype=float).ravel()
        if np.unique(x).size < self.min_rows:
            raise ValueError("too few distinct rows")
        self.values_ = x
        self.y_ = None if y is None else np.asarray(y, dtype=float).ravel()
        return self

    def _distribution(self):
        v, c = np.unique(self.values_, return_counts=True)
        return DiscreteDistribution(v, c)


def test_level_is_a_float_strictly_inside_the_unit_interval():
    assert check_level(0.9) == 0.9 and isinstance(check_level(0.9), float)
    assert check_level(np.float32(0.5)) == 0.5
    assert type(check_level(np.float32(0.5))) is float
    for bad, shown in [(1, "1"), (0.0, "0.0"), (True, "True"), ("0.9", "'0.9'")]:
        with pytest.raises(
            ValueError,
            match=re.escape(f"level must be a number in (0, 1); got {shown}."),
        ):
            check_level(bad)


def test_normal_interval_is_estimate_plus_minus_z_se_at_the_level():
    assert z_value(0.95) == pytest.approx(stats.norm.ppf(0.975), rel=1e-15)
    assert z_value(0.9) == pytest.approx(1.6448536269514722, rel=1e-15)
    lower, upper = normal_interval([1.0, 2.0], [0.5, 2.0], 0.9)
    z = stats.norm.ppf(0.95)
    np.testing.assert_allclose(lower, [1.0 - 0.5 * z, 2.0 - 2.0 * z], rtol=1e-15)
    np.testing.assert_allclose(upper, [1.0 + 0.5 * z, 2.0 + 2.0 * z], rtol=1e-15)
    # the widths at two levels are in the ratio of their z's
    lo95, up95 = normal_interval([1.0], [0.5], 0.95)
    ratio = (up95 - lo95) / (upper[0] - lower[0])
    assert ratio[0] == pytest.approx(stats.norm.ppf(0.975) / z, rel=1e-12)


def test_normal_frame_clips_to_the_range_of_the_quantity():
    z = stats.norm.ppf(0.975)
    frame = normal_frame(
        "cdf", [1.0, 2.0], [0.05, 0.9], [0.1, 0.01], 0.95, "wald", "F(x)", clip=(0, 1)
    )
    assert list(frame.columns) == COLUMNS
    np.testing.assert_allclose(frame["lower"], [0.0, 0.9 - 0.01 * z], rtol=1e-14)
    np.testing.assert_allclose(frame["upper"], [0.05 + 0.1 * z, 0.9 + 0.01 * z])
    assert frame["se"].tolist() == [0.1, 0.01]
    assert frame["estimate"].tolist() == [0.05, 0.9]
    assert frame["method"].tolist() == ["wald", "wald"]
    assert frame["target"].tolist() == ["F(x)", "F(x)"]
    assert frame["quantity"].tolist() == ["cdf", "cdf"]
    # the upper end is clipped too
    high = normal_frame("cdf", [0.0], [0.95], [0.1], 0.95, "w", "t", clip=(0, 1))
    assert high["upper"].iloc[0] == 1.0
    assert high["lower"].iloc[0] == pytest.approx(0.95 - 0.1 * z)
    # without clip the ends stay where the formula puts them
    free = normal_frame("mean", None, [0.05], [0.1], 0.95, "w", "t")
    assert free["lower"].iloc[0] == pytest.approx(0.05 - 0.1 * z)
    assert np.isnan(free["point"].iloc[0])


def test_interval_frame_reads_points_methods_and_targets():
    # a scalar estimate and no points: one row, point NaN, se NaN
    one = interval_frame("mean", None, 2.0, 1.0, 3.0, 0.8, "m", "t")
    assert one.shape == (1, len(COLUMNS)) and list(one.columns) == COLUMNS
    assert np.isnan(one["point"].iloc[0]) and np.isnan(one["se"].iloc[0])
    assert one[["estimate", "lower", "upper", "level"]].iloc[0].tolist() == [
        2.0,
        1.0,
        3.0,
        0.8,
    ]
    # rows of a one-column 2-d array are its values; of a wider one, tuples
    col = interval_frame(
        "q", np.array([[1.0], [2.0]]), [0, 0], [0, 0], [0, 0], 0.9, "m", "t"
    )
    assert col["point"].tolist() == [1.0, 2.0]
    rows = interval_frame(
        "predict",
        np.array([[1.0, 2.0], [3.0, 4.0]]),
        [0, 0],
        [0, 0],
        [0, 0],
        0.9,
        "m",
        "t",
    )
    assert rows["point"].tolist() == [(1.0, 2.0), (3.0, 4.0)]
    # nested lists are flattened; per-row methods and targets are kept
    flat = interval_frame(
        "cdf", [[1], [2]], [0, 0], [0, 0], [0, 0], 0.9, ["a", "b"], ("s", "t")
    )
    assert flat["point"].tolist() == [1, 2]
    assert flat["method"].tolist() == ["a", "b"]
    assert flat["target"].tolist() == ["s", "t"]


def test_interval_request_memo_resamples_and_method_choice():
    calls = []
    request = _request()
    for _ in range(3):
        assert request.memo("k", lambda: calls.append(1) or len(calls)) == 1
    assert calls == [1]
    assert request.memo("other", lambda: "x") == "x"
    assert request.resamples() == DEFAULT_RESAMPLES == 200
    assert request.resamples(50) == 50
    assert _request(n_resamples=7).resamples(50) == 7
    assert _request(n_resamples=np.int64(9)).resamples() == 9
    assert _request(method="auto").choose(["a", "b"], "b", "Est") == "b"
    assert _request(method="a").choose(["a", "b"], "b", "Est") == "a"
    with pytest.raises(
        ValueError,
        match=re.escape(
            "Est computes 'cdf' intervals with method in ['a', 'b'] (or 'auto'); "
            "got method='c'."
        ),
    ):
        _request(method="c").choose(["b", "a"], "b", "Est")


def test_interval_request_data_and_the_missing_data_messages():
    X, y = np.zeros((2, 1)), np.ones(2)
    request = _request(X=X, y=y)
    assert request.data() is X
    assert request.data("y") is y
    assert request.data("X", fallback=y) is X
    assert _request().data("X", fallback=y) is y
    with pytest.raises(
        ValueError,
        match=re.escape(
            "'cdf' intervals by this method are computed from the privatized "
            "records: pass y=, the release the estimator was fitted on (an "
            "estimator fitted with privatizer= keeps its own release and takes "
            "none)."
        ),
    ):
        _request(X=X).data("y")
    message = _request(released=True).missing_data_message("X")
    assert message.startswith(
        "'cdf' intervals by this method are computed from the released records, "
        "and this estimator privatized a dask collection itself (privatizer=)"
    )
    assert "pass X=" not in message
    assert _request().missing_data_message() == _request().missing_data_message("X")
    assert "pass X=" in _request().missing_data_message()


def test_resampled_rows_follow_the_seed():
    # an int seed: numpy's generator seeded by SeedSequence(seed mod 2**63)
    rng = np.random.default_rng(np.random.SeedSequence(3))
    expected = [rng.integers(0, 10, size=10) for _ in range(4)]
    got = resample_indices(10, 4, 3)
    assert len(got) == 4
    for a, b in zip(got, expected, strict=True):
        np.testing.assert_array_equal(a, b)
    for a, b in zip(resample_indices(10, 4, 3 + 2**63), got, strict=True):
        np.testing.assert_array_equal(a, b)
    # a smaller size draws that many rows per replicate
    assert [len(i) for i in resample_indices(10, 3, 0, size=4)] == [4, 4, 4]
    assert resample_indices(10, 3, 0, size=np.int64(4))[0].dtype.kind == "i"
    # without replacement: sorted distinct rows, as a sorted permutation prefix
    rng = np.random.default_rng(np.random.SeedSequence(5))
    sub = resample_indices(10, 2, 5, size=4, replace=False)
    for idx in sub:
        np.testing.assert_array_equal(idx, np.sort(rng.permutation(10)[:4]))
        assert len(set(idx.tolist())) == 4
    # a Generator or RandomState seeds the draws from its stream (and moves on)
    gen = np.random.default_rng(1)
    words = [int(v) for v in np.random.default_rng(1).integers(0, 2**63 - 1, size=4)]
    rng = np.random.default_rng(np.random.SeedSequence(words))
    np.testing.assert_array_equal(resample_indices(8, 2, gen)[0], rng.integers(0, 8, 8))
    assert not np.array_equal(
        resample_indices(8, 2, gen)[0],
        resample_indices(8, 2, np.random.default_rng(1))[0],
    )
    state = np.random.RandomState(2)
    words = [int(v) for v in np.random.RandomState(2).randint(0, 2**31 - 1, size=4)]
    rng = np.random.default_rng(np.random.SeedSequence(words))
    np.testing.assert_array_equal(
        resample_indices(8, 2, state)[0], rng.integers(0, 8, 8)
    )
    # None draws fresh entropy: two calls differ (with probability 1 - 8**-16)
    a, b = resample_indices(8, 2, None), resample_indices(8, 2, None)
    assert not all(np.array_equal(u, v) for u, v in zip(a, b, strict=True))
    assert (
        resample_indices(8, 2, np.int32(3))[0].tolist()
        == resample_indices(8, 2, 3)[0].tolist()
    )


def test_resampling_refuses_bad_seeds_and_too_few_replicates():
    with pytest.raises(
        ValueError, match=re.escape("n_resamples must be at least 2; got 1.")
    ):
        resample_indices(10, 1, 0)
    assert len(resample_indices(10, 2, 0)) == 2
    for bad, name in [(True, "bool"), (1.5, "float"), ("3", "str")]:
        with pytest.raises(
            ValueError,
            match=re.escape(
                "random_state must be None, an int, a numpy RandomState or "
                f"Generator; got {name}."
            ),
        ):
            resample_indices(10, 2, bad)


def test_bootstrap_replicates_refit_on_the_drawn_rows():
    x = np.arange(10.0)[:, None] ** 2
    reps = bootstrap_replicates(
        _Empirical(), x, lambda e: e.mean(), n_resamples=5, random_state=4
    )
    idx = resample_indices(10, 5, 4)
    np.testing.assert_allclose(reps[:, 0], [x[i, 0].mean() for i in idx], rtol=1e-14)
    assert reps.shape == (5, 1)
    # a DataFrame's rows are taken by position; y is resampled with X
    frame = pd.DataFrame({"v": x[:, 0]}, index=np.arange(10)[::-1])
    both = bootstrap_replicates(
        _Empirical(),
        frame,
        lambda e: [e.mean(), e.y_.sum()],
        y=np.arange(10.0),
        n_resamples=5,
        random_state=4,
    )
    np.testing.assert_allclose(both[:, 0], reps[:, 0], rtol=1e-14)
    np.testing.assert_allclose(both[:, 1], [i.sum() for i in idx], rtol=1e-14)
    # m-out-of-n and subsampling draws
    small = bootstrap_replicates(
        _Empirical(), x, lambda e: e.values_.size, n_resamples=3, size=4, replace=False
    )
    assert small[:, 0].tolist() == [4.0, 4.0, 4.0]
    distinct = bootstrap_replicates(
        _Empirical(),
        x,
        lambda e: np.unique(e.values_).size,
        n_resamples=3,
        size=4,
        replace=False,
    )
    assert distinct[:, 0].tolist() == [4.0, 4.0, 4.0]


def test_bootstrap_replicates_report_failed_fits():
    # rows 0..3 take two values: a replicate with one distinct value fails
    x = np.array([[0.0], [0.0], [0.0], [1.0]])
    idx = resample_indices(4, 40, 0)
    fails = sum(np.unique(x[i, 0]).size < 2 for i in idx)
    assert 4 < fails < 40  # more than 10 %: a warning
    with pytest.warns(
        RuntimeWarning,
        match=re.escape(
            f"{fails} of 40 resampled fits failed; the interval uses the others."
        ),
    ):
        reps = bootstrap_replicates(
            _Empirical(min_rows=2),
            x,
            lambda e: e.mean(),
            n_resamples=40,
            random_state=0,
        )
    assert int(np.isnan(reps[:, 0]).sum()) == fails
    ok = ~np.isnan(reps[:, 0])
    np.testing.assert_allclose(
        reps[ok, 0], [x[i, 0].mean() for i, g in zip(idx, ok, strict=True) if g]
    )
    # (where the warning points is checked in tests/test_warning_location.py:
    # under mutmut a trampoline stands between caller and callee)
    # exactly 10 % failed (1 of 10): no warning
    x = np.array([[0.0]] * 2 + [[1.0]] * 38)
    idx = resample_indices(40, 10, 0)
    assert sum(np.unique(x[i, 0]).size < 2 for i in idx) == 1
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        reps = bootstrap_replicates(
            _Empirical(min_rows=2),
            x,
            lambda e: e.mean(),
            n_resamples=10,
            random_state=0,
        )
    assert int(np.isnan(reps[:, 0]).sum()) == 1
    with pytest.raises(
        ValueError,
        match=re.escape(
            "Every resampled fit failed; the data are too few or too degenerate "
            "for resampling intervals."
        ),
    ):
        bootstrap_replicates(
            _Empirical(min_rows=3), x[:2], lambda e: e.mean(), n_resamples=3
        )


def test_a_replicate_of_another_width_is_dropped():
    x = np.arange(6.0)[:, None]

    def stat(e):
        # two values, except on replicates holding row 0 (one value)
        return [e.mean()] if 0.0 in e.values_ else [e.mean(), e.values_.max()]

    idx = resample_indices(6, 8, 1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        reps = bootstrap_replicates(
            _Empirical(), x, stat, n_resamples=8, random_state=1
        )
    assert reps.shape == (8, 2)
    for row, i in zip(reps, idx, strict=True):
        if 0 in i:
            assert np.isnan(row).all()
        else:
            np.testing.assert_allclose(row, [x[i, 0].mean(), x[i, 0].max()])


def test_percentile_interval_takes_the_order_statistics_and_skips_nan():
    reps = np.column_stack([np.arange(1.0, 22.0), np.arange(21.0, 0.0, -1.0)])
    reps[3, 1] = np.nan
    lower, upper = percentile_interval(reps, 0.9)
    # 21 values: the 5 % quantile is the 2nd order statistic, 95 % the 20th
    np.testing.assert_allclose(lower, [2.0, np.nanquantile(reps[:, 1], 0.05)])
    np.testing.assert_allclose(upper, [20.0, np.nanquantile(reps[:, 1], 0.95)])
    lower, upper = percentile_interval(reps[:, :1], 0.8)
    assert (lower[0], upper[0]) == pytest.approx((3.0, 19.0), rel=1e-14)


def test_subsampling_interval_centres_the_roots_on_the_estimate():
    # theta_n = (10, 0), b = 4, n = 16, rate 1/2: roots 2 (theta_b - theta_n)
    reps = np.column_stack([np.arange(0.0, 21.0), -np.arange(0.0, 21.0)])
    lower, upper = subsampling_interval([10.0, 0.0], reps, 16, 4, 0.5, 0.9)
    # roots of column 0: 2 (k - 10), k = 0..20, quantiles at 5 % and 95 %
    # (-18, 18); of column 1: -2 k, quantiles -38 and -2
    np.testing.assert_allclose(lower, [10.0 - 18.0 / 4.0, 0.0 + 2.0 / 4.0])
    np.testing.assert_allclose(upper, [10.0 + 18.0 / 4.0, 0.0 + 38.0 / 4.0])
    reps[0, 0] = np.nan
    lower, _ = subsampling_interval([10.0, 0.0], reps, 16, 4, 0.5, 0.9)
    roots = 2.0 * (np.arange(1.0, 21.0) - 10.0)
    assert lower[0] == pytest.approx(10.0 - np.quantile(roots, 0.95) / 4.0)


class _Kinds(ConfidenceIntervalMixin, BaseEstimator):
    """Offers 'mean' and 'b_kind'; 'hidden' is defined but not offered."""

    def __init__(self, privatizer=None):
        self.privatizer = privatizer

    def fit(self, X=None, y=None):
        self.fitted_ = True
        return self

    def _ci_offers_kind(self, kind):
        return kind != "hidden"

    def _conf_int_mean(self, request):
        return interval_frame(
            "mean", None, 0.0, -request.level, request.level, request.level, "m", "t"
        )

    def _conf_int_b_kind(self, request):
        return request

    def _conf_int_hidden(self, request):  # pragma: no cover - never offered
        return request


def test_conf_int_lists_the_offered_kinds_and_checks_its_arguments():
    est = _Kinds().fit()
    assert est._ci_interval_kinds() == ["b_kind", "mean"]
    for kind in ("hidden", "pdf"):
        with pytest.raises(
            ValueError,
            match=re.escape(
                f"_Kinds has no confidence intervals for kind='{kind}'; "
                "available: ['b_kind', 'mean']."
            ),
        ):
            est.conf_int(kind)
    for kind in ("not a name", 3):
        with pytest.raises(
            ValueError, match=re.escape(f"kind must be a name; got {kind!r}.")
        ):
            est.conf_int(kind)
    with pytest.raises(ValueError, match=re.escape("method must be a string; got 3.")):
        est.conf_int("mean", method=3)
    for bad in (1, True, 2.0, 0):
        with pytest.raises(
            ValueError,
            match=re.escape(f"n_resamples must be an integer >= 2; got {bad!r}."),
        ):
            est.conf_int("mean", n_resamples=bad)
    with pytest.raises(ValueError, match=re.escape("level must be a number")):
        est.conf_int("mean", level=[0.9, 1.0])


def test_conf_int_hands_every_argument_to_the_kind_and_stacks_levels():
    est = _Kinds().fit()
    X, y, state = np.zeros((2, 1)), np.ones(2), np.random.default_rng(0)
    request = est.conf_int(
        "b_kind",
        [1.0],
        level=0.8,
        method="m",
        X=X,
        y=y,
        n_resamples=np.int64(2),
        random_state=state,
        n_jobs=3,
    )
    assert (request.kind, request.points, request.level, request.method) == (
        "b_kind",
        [1.0],
        0.8,
        "m",
    )
    assert request.X is X and request.y is y and request.random_state is state
    assert (request.n_resamples, request.n_jobs, request.released) == (2, 3, False)
    default = est.conf_int("b_kind")
    assert (default.level, default.method, default.X, default.y) == (
        0.95,
        "auto",
        None,
        None,
    )
    assert default.n_resamples is None and default.random_state is None
    assert default.n_jobs is None and default.points is None
    assert est.conf_int().shape == (1, len(COLUMNS))  # kind defaults to the mean
    frame = est.conf_int("mean", level=[0.8, 0.9])
    assert frame.index.tolist() == [0, 1]
    assert frame["upper"].tolist() == [0.8, 0.9]
    one = est.conf_int("mean", level=np.array([0.7]))
    assert one["upper"].tolist() == [0.7]


def test_conf_int_levels_share_one_cache():
    seen = []

    class _Cached(_Kinds):
        def _conf_int_mean(self, request):
            seen.append(request.cache)
            request.memo("k", list)
            return super()._conf_int_mean(request)

    _Cached().fit().conf_int("mean", level=[0.8, 0.9])
    assert len(seen) == 2 and seen[0] is seen[1] and list(seen[0]) == ["k"]


def test_conf_int_of_a_privatizing_estimator_reads_its_release():
    est = _Kinds().fit()
    assert est._ci_kept_release() is None
    assert isinstance(est._ci_resampling_template(), _Kinds)
    est.privatizer_ = object()
    est.released_ = np.arange(3.0)
    assert est._ci_kept_release()["y"] is None
    assert est._ci_kept_release()["X"] is est.released_
    request = est.conf_int("b_kind")
    assert request.X is est.released_ and request.y is None and request.released
    for given, names in [
        ({"X": 1}, "X"),
        ({"y": 1}, "y"),
        ({"X": 1, "y": 2}, "X and y"),
    ]:
        with pytest.raises(ValueError) as info:
            est.conf_int("b_kind", **given)
        assert str(info.value) == (
            "_Kinds was fitted with privatizer=, so it privatized its input "
            "itself: its intervals are computed from its own release "
            "(released_), and data passed as "
            f"{names} would be the raw values given to fit, which an interval "
            "must not use (two intervals on data that differ in one record "
            f"reveal that record). Call conf_int without {names}."
        )
    # a name the estimator does not keep is passed through
    est._ci_kept_release = lambda: {"X": None}
    request = est.conf_int("b_kind", y=7)
    assert request.y == 7 and request.X is None
    with pytest.raises(
        ValueError,
        match=re.escape(
            "_Kinds was fitted with a privatizer; resampling intervals need the "
            "released data and a clone that takes it, which this estimator does "
            "not provide."
        ),
    ):
        _Kinds(privatizer="p")._ci_resampling_template()


def test_population_bootstrap_is_the_percentile_interval_of_refits():
    x = np.arange(12.0)[:, None] ** 1.5
    est = _Empirical().fit(x)
    frame = est.conf_int("mean", X=x, level=0.8, n_resamples=9, random_state=2)
    idx = resample_indices(12, 9, 2)
    reps = np.array([[x[i, 0].mean()] for i in idx])
    lower, upper = percentile_interval(reps, 0.8)
    assert frame["estimate"].iloc[0] == pytest.approx(x.mean())
    assert frame["lower"].iloc[0] == pytest.approx(lower[0])
    assert frame["upper"].iloc[0] == pytest.approx(upper[0])
    assert frame["se"].iloc[0] == pytest.approx(reps.std(ddof=1))
    assert frame["method"].iloc[0] == "bootstrap-percentile"
    assert frame["target"].iloc[0] == (
        "the estimator's expectation at its smoothing (its bias not covered)"
    )
    assert np.isnan(frame["point"].iloc[0])
    # quantiles (default points 1/4, 1/2, 3/4) and cdf values
    q = est.conf_int("quantile", X=x, n_resamples=9, random_state=2, method="bootstrap")
    assert q["point"].tolist() == [0.25, 0.5, 0.75]
    np.testing.assert_allclose(q["estimate"], est.quantile([0.25, 0.5, 0.75]))
    reps = np.array([_Empirical().fit(x[i]).quantile([0.25, 0.5, 0.75]) for i in idx])
    np.testing.assert_allclose(q["lower"], np.quantile(reps, 0.025, axis=0))
    c = est.conf_int("cdf", [3.0, 20.0], X=x, n_resamples=9, random_state=2)
    reps = np.array([_Empirical().fit(x[i]).cdf([3.0, 20.0]) for i in idx])
    np.testing.assert_allclose(c["upper"], np.quantile(reps, 0.975, axis=0))
    assert c["point"].tolist() == [3.0, 20.0]
    # the default number of replicates
    d = est.conf_int("cdf", [3.0], X=x, random_state=2)
    reps = [_Empirical().fit(x[i]).cdf([3.0])[0] for i in resample_indices(12, 200, 2)]
    assert d["se"].iloc[0] == pytest.approx(np.std(reps, ddof=1))


def test_population_bootstrap_refusals_name_the_parameter():
    x = np.arange(5.0)[:, None]
    est = _Empirical().fit(x)
    for kind, points in [("mean", None), ("quantile", [0.5]), ("cdf", [1.0])]:
        with pytest.raises(
            ValueError,
            match=re.escape(
                f"_Empirical computes '{kind}' intervals with method in "
                "['bootstrap'] (or 'auto'); got method='wald'."
            ),
        ):
            est.conf_int(kind, points, X=x, method="wald")
        with pytest.raises(ValueError, match=re.escape("pass X=, the release")):
            est.conf_int(kind, points)
    assert probabilities_of(None).tolist() == [0.25, 0.5, 0.75]
    assert probabilities_of([[0.1], [0.9]]).tolist() == [0.1, 0.9]
    assert probabilities_of(0.5).tolist() == [0.5]
    for bad in ([0.0, 0.5], [0.5, 1.0], [np.nan]):
        with pytest.raises(
            ValueError,
            match=re.escape("quantile points must be probability levels in (0, 1)"),
        ):
            probabilities_of(bad)
    assert values_of([[1], [2]]).tolist() == [1.0, 2.0]
    assert values_of(3).tolist() == [3.0]
    with pytest.raises(
        ValueError,
        match=re.escape("points= is required: the values at which to evaluate."),
    ):
        values_of(None)
    for bad in ([1.0, np.inf], [np.nan], [-np.inf]):
        with pytest.raises(
            ValueError, match=re.escape("points must be finite numbers; got ")
        ):
            values_of(bad)


# -- the identified set of the NPMLE's mean: skprivate/interval/_identified.py --

INF = np.inf
# Six Case-I rows (tests/interval/test_identified.py): masses 1/2 on (1, 2],
# 1/6 on (3, 4], 1/3 on (6, inf); supported range (3, 4) (k = 3).
SIX = np.array(
    [[1.0, INF], [-INF, 2.0], [3.0, INF], [-INF, 4.0], [-INF, 5.0], [6.0, INF]]
)
# Nine Case-I rows, every value 5, anchors 1..9: all the mass on (4, 5],
# inside the supported range (3, 7).
U9 = np.arange(1.0, 10.0)
NINE = np.where(
    (U9 >= 5)[:, None], np.c_[np.full(9, -INF), U9], np.c_[U9, np.full(9, INF)]
)
# Case-II rows: masses 4/9 on (1, 1.5], 10/27 on (4, 4.5], 5/27 on (5, 6];
# supported range (2, 4.5).
CASE_TWO = np.array(
    [
        [0.0, 2.0],
        [1.0, 3.0],
        [2.0, 5.0],
        [4.0, 6.0],
        [1.0, 2.0],
        [3.0, 7.0],
        [0.5, 1.5],
        [2.5, 4.5],
        [5.0, 8.0],
    ]
)


def _npmle(Z, bounds):
    from skprivate import IntervalNPMLE

    return IntervalNPMLE(bounds=bounds).fit(Z)


def test_value_bounds_are_checked_naming_the_parameter_and_side():
    from skprivate.interval._identified import check_value_bounds

    assert check_value_bounds(None) == (-INF, INF)
    got = check_value_bounds((np.int64(0), 10))
    assert got == (0.0, 10.0) and all(type(v) is float for v in got)
    assert check_value_bounds([-INF, 0.5]) == (-INF, 0.5)
    cases = [
        (3, "bounds must be None or a pair (low, high) of numbers; got int."),
        ((1, 2, 3), "bounds must be None or a pair (low, high) of numbers; got tuple."),
        (
            (np.nan, 1.0),
            "bounds: low must be a number (infinite allowed, not NaN); got float.",
        ),
        (
            (0.0, True),
            "bounds: high must be a number (infinite allowed, not NaN); got bool.",
        ),
        (
            (0.0, "9"),
            "bounds: high must be a number (infinite allowed, not NaN); got str.",
        ),
        ((1.0, 1.0), "bounds must satisfy low < high; got low >= high."),
        ((2.0, 1.0), "bounds must satisfy low < high; got low >= high."),
    ]
    for bounds, message in cases:
        with pytest.raises(ValueError, match=re.escape(message)):
            check_value_bounds(bounds)
    with pytest.raises(ValueError, match=re.escape("range must be None or a pair")):
        check_value_bounds(3, name="range")
    with pytest.raises(ValueError, match=re.escape("range: low must be a number")):
        check_value_bounds((None, 1.0), name="range")


def test_supported_range_takes_the_kth_ends_by_weight():
    from skprivate.interval._identified import support_trim, supported_range

    assert [support_trim(n) for n in (0, 1, 4, 6, 9, 10)] == [1, 1, 2, 3, 3, 4]
    assert supported_range(SIX) == (3.0, 4.0)
    assert supported_range(SIX, k=1) == (1.0, 6.0)
    assert supported_range(SIX, k=2) == (2.0, 5.0)
    # more than half from each side: the median end from both
    four = np.c_[np.full(4, -INF), [1.0, 2.0, 3.0, 4.0]]
    assert supported_range(four, k=3) == (2.0, 3.0)
    # weights: the ends where the weight share first reaches k / n
    assert supported_range(four, np.array([3.0, 1.0, 1.0, 1.0]), k=1) == (1.0, 3.0)
    assert supported_range(four, np.array([3.0, 1.0, 1.0, 1.0]), k=2) == (1.0, 2.0)
    assert supported_range(four, np.array([1.0, 1.0, 1.0, 1.0]), k=2) == (2.0, 3.0)
    assert supported_range(four, np.array([1, 1, 1, 1]), k=np.int64(1)) == (1.0, 4.0)
    got = supported_range(CASE_TWO)
    assert got == (2.0, 4.5) and all(type(v) is float for v in got)
    with pytest.raises(
        ValueError,
        match=re.escape("X has no finite interval end: nothing is located."),
    ):
        supported_range(np.array([[-INF, INF]]))


def test_placements_move_unsupported_mass_to_the_bounds():
    from skprivate.interval._identified import mean_set, outside_share, placements

    innermost = np.array([[1.0, 2.0], [3.0, 4.0], [6.0, INF]])
    low, high, out = placements(innermost, (3.0, 4.0), (0.0, 10.0))
    assert low.tolist() == [0.0, 3.0, 4.0]
    assert high.tolist() == [3.0, 4.0, 10.0]
    assert out.tolist() == [True, False, True]
    # ends at the supported range are inside it
    low, high, out = placements(np.array([[3.0, 4.0]]), (3.0, 4.0), (0.0, 10.0))
    assert (low.tolist(), high.tolist(), out.tolist()) == ([3.0], [4.0], [False])
    # positions are clipped to the declared bounds
    low, high, _ = placements(np.array([[-INF, -5.0]]), (-10.0, 10.0), (-2.0, 2.0))
    assert (low.tolist(), high.tolist()) == ([-2.0], [-2.0])
    low, high, _ = placements(np.array([[5.0, 6.0]]), (0.0, 10.0), (-2.0, 2.0))
    assert (low.tolist(), high.tolist()) == ([2.0], [2.0])
    probs = np.array([0.5, 1 / 6, 1 / 3])
    assert outside_share(innermost, probs, (3.0, 4.0)) == pytest.approx(5 / 6)
    assert outside_share(innermost, probs, (1.0, 6.0)) == pytest.approx(1 / 3)
    assert outside_share(innermost, probs, (1.0, INF)) == 0.0
    low, high = mean_set(innermost, probs, (3.0, 4.0), (0.0, 10.0))
    assert low == pytest.approx(0.5 / 1 + 0.0 + 0.5 + 4 / 3 - 0.5)
    assert high == pytest.approx(1.5 + 4 / 6 + 10 / 3)
    # an interval holding no mass never makes an end infinite
    assert mean_set(
        np.array([[-INF, 1.0], [1.0, 2.0], [2.0, INF]]),
        np.array([0.0, 1.0, 0.0]),
        (1.0, 2.0),
        (-INF, INF),
    ) == (1.0, 2.0)
    assert mean_set(innermost, probs, (3.0, 4.0), (0.0, INF)) == (
        pytest.approx(11 / 6),
        INF,
    )
    assert mean_set(innermost, probs, (3.0, 4.0), (-INF, 10.0))[0] == -INF


def test_imbens_manski_critical_value_against_scipy():
    from skprivate.interval._identified import imbens_manski_critical

    for width, sigma, level in [(1.0, 0.5, 0.9), (0.3, 1.0, 0.95), (0.05, 2.0, 0.99)]:
        c = imbens_manski_critical(width, sigma, level)
        r = width / sigma
        root = optimize_brentq(
            lambda x, r=r, level=level: (
                stats.norm.cdf(x + r) - stats.norm.cdf(-x) - level
            ),
            0.0,
            5.0,
        )
        assert c == pytest.approx(root, abs=1e-10)
        assert stats.norm.ppf(level) < c < stats.norm.ppf(0.5 + level / 2)
    # a point: the two-sided quantile (at every level: the gap there may
    # round below 0); a wide or infinite set: one-sided
    for level in (0.8, 0.9, 0.95, 0.99):
        for width in (0.0, -1.0):
            assert imbens_manski_critical(width, 1.0, level) == pytest.approx(
                stats.norm.ppf(0.5 + level / 2), abs=1e-10
            )
    assert imbens_manski_critical(50.0, 1.0, 0.9) == pytest.approx(
        stats.norm.ppf(0.9), abs=1e-10
    )
    assert imbens_manski_critical(INF, 1.0, 0.9) == stats.norm.ppf(0.9)
    # no spread: a point, else one-sided
    assert imbens_manski_critical(0.0, 0.0, 0.9) == stats.norm.ppf(0.95)
    assert imbens_manski_critical(-1.0, 0.0, 0.9) == stats.norm.ppf(0.95)
    assert imbens_manski_critical(0.5, 0.0, 0.9) == stats.norm.ppf(0.9)
    assert imbens_manski_critical(0.5, np.nan, 0.9) == stats.norm.ppf(0.9)
    assert imbens_manski_critical(0.0, -1.0, 0.9) == stats.norm.ppf(0.95)
    # the width in units of sigma decides, not the width
    assert imbens_manski_critical(2.0, 2.0, 0.9) == pytest.approx(
        imbens_manski_critical(1.0, 1.0, 0.9), abs=1e-12
    )


def optimize_brentq(func, a, b):
    from scipy import optimize

    return optimize.brentq(func, a, b, xtol=1e-14)


def test_case_one_resampler_is_the_npmle_of_the_drawn_rows():
    from skprivate.interval._identified import (
        CaseOneResampler,
        MeanSetAt,
        mean_set,
    )

    est = _npmle(SIX, (0.0, 10.0))
    cuts = est.supported_range_
    resampler = CaseOneResampler(SIX)
    assert resampler.anchors.tolist() == [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
    assert resampler.delta.tolist() == [0.0, 1.0, 0.0, 1.0, 1.0, 0.0]
    # rows 1, 1, 2, 3: anchors 2 (twice, hit), 3 (miss), 4 (hit); PAVA pools
    # 2 and 3 to 2/3, then F(4) = 1: masses 2/3 on (-inf, 2], 1/3 on (3, 4]
    idx = np.array([1, 1, 2, 3])
    expected = mean_set(
        np.array([[-INF, 2.0], [2.0, 3.0], [3.0, 4.0], [4.0, INF]]),
        np.array([2 / 3, 0.0, 1 / 3, 0.0]),
        cuts,
        (0.0, 10.0),
    )
    assert resampler.ends(idx, cuts, (0.0, 10.0)) == pytest.approx(expected)
    reps = resampler.replicates(6, 3, cuts, (0.0, 10.0))
    draws = resample_indices(6, 6, 3)
    assert reps.shape == (6, 2)
    for row, i in zip(reps, draws, strict=True):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            refit = _npmle(SIX[i], None)
        assert tuple(row) == pytest.approx(tuple(MeanSetAt(cuts, (0.0, 10.0))(refit)))
        assert tuple(row) == pytest.approx(resampler.ends(i, cuts, (0.0, 10.0)))


def test_mean_interval_without_outside_mass_does_not_warn():
    from skprivate.interval._identified import imbens_manski_critical

    est = _npmle(NINE, (0.0, 10.0))
    assert est.supported_range_ == (3.0, 7.0)
    assert est.mean_bounds() == (4.0, 5.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ci = est.conf_int("mean", X=NINE, n_resamples=30, random_state=1, level=0.9)
    from skprivate.interval._identified import CaseOneResampler

    reps = CaseOneResampler(NINE).replicates(30, 1, (3.0, 7.0), (0.0, 10.0))
    se_low, se_high = np.nanstd(reps, axis=0, ddof=1)
    sigma = max(se_low, se_high)
    c = imbens_manski_critical(1.0, sigma, 0.9)
    row = ci.iloc[0]
    assert row["lower"] == pytest.approx(4.0 - c * se_low)
    assert row["upper"] == pytest.approx(5.0 + c * se_high)
    assert row["se"] == pytest.approx(sigma)
    assert row["estimate"] == pytest.approx(est.mean())
    assert row["level"] == 0.9 and np.isnan(row["point"])
    assert row["method"] == "identified_set (Imbens-Manski)"
    assert row["target"] == "every mean in the identified set under the declared bounds"


def test_mean_interval_of_case_two_rows_refits_the_npmle():
    from sklearn.base import clone

    from skprivate.exceptions import NotIdentifiableWarning
    from skprivate.interval._identified import MeanSetAt, imbens_manski_critical

    est = _npmle(CASE_TWO, (-1.0, 9.0))
    assert est.supported_range_ == (2.0, 4.5)
    low, high = est.mean_bounds()
    assert low == pytest.approx(-4 / 9 + 40 / 27 + 22.5 / 27)
    assert high == pytest.approx(8 / 9 + 45 / 27 + 45 / 27)
    with pytest.warns(NotIdentifiableWarning) as record:
        ci = est.conf_int("mean", X=CASE_TWO, n_resamples=12, random_state=5)
    assert str(record[0].message) == (
        "63.0% of the estimated mass lies outside the anchors' supported range, "
        "where the data do not locate it: the mean is identified only up to a "
        "set under the declared bounds=(-1, 9), and the interval covers that set "
        "(Imbens-Manski), not a point."
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        reps = bootstrap_replicates(
            clone(est),
            CASE_TWO,
            MeanSetAt((2.0, 4.5), (-1.0, 9.0)),
            n_resamples=12,
            random_state=5,
        )
    se_low, se_high = np.nanstd(reps, axis=0, ddof=1)
    sigma = max(se_low, se_high)
    c = imbens_manski_critical(high - low, sigma, 0.95)
    row = ci.iloc[0]
    assert row["lower"] == pytest.approx(low - c * se_low)
    assert row["upper"] == pytest.approx(high + c * se_high)
    assert row["se"] == pytest.approx(sigma)


def test_mean_interval_with_an_unbounded_side():
    from skprivate.exceptions import NotIdentifiableWarning
    from skprivate.interval._identified import CaseOneResampler

    est = _npmle(SIX, (0.0, INF))
    with pytest.warns(NotIdentifiableWarning) as record:
        ci = est.conf_int("mean", X=SIX, n_resamples=20, random_state=0, level=0.9)
    assert len(record) == 1
    assert str(record[0].message) == (
        "83.3% of the estimated mass lies outside the anchors' supported range "
        "and bounds=(0, inf) leaves a side unbounded: the identified set of the "
        "mean is unbounded on that side, so the interval's end there is "
        "infinite. Declare finite bounds on the values, known before the data "
        "are seen, for a finite interval."
    )
    reps = CaseOneResampler(SIX).replicates(20, 0, (3.0, 4.0), (0.0, INF))
    se_low = np.std(reps[:, 0], ddof=1)
    row = ci.iloc[0]
    # an infinite set: the one-sided quantile, with the finite end's se
    assert row["lower"] == pytest.approx(11 / 6 - stats.norm.ppf(0.9) * se_low)
    assert row["upper"] == INF
    assert row["se"] == pytest.approx(se_low)
    low_side = _npmle(SIX, (-INF, 10.0))
    with pytest.warns(NotIdentifiableWarning, match="bounds=\\(-inf, 10\\)"):
        ci = low_side.conf_int("mean", X=SIX, n_resamples=20, random_state=0)
    assert ci["lower"].iloc[0] == -INF and np.isfinite(ci["upper"].iloc[0])
    # no finite end: nothing is resampled, and the se is 0
    both = _npmle(SIX, None)
    with pytest.warns(NotIdentifiableWarning, match="bounds=\\(-inf, inf\\)"):
        ci = both.conf_int("mean", X=SIX, method="identified_set")
    assert ci[["lower", "upper", "se"]].iloc[0].tolist() == [-INF, INF, 0.0]


def test_pointwise_intervals_are_widened_over_the_unsupported_region():
    from skprivate.exceptions import NotIdentifiableWarning
    from skprivate.interval._identified import widen_pointwise

    est = _npmle(SIX, (0.0, 10.0))
    F_lo, F_hi = est.cdf(np.array([3.0, 4.0]))
    assert (F_lo, F_hi) == pytest.approx((0.5, 2 / 3))
    q = np.array([F_lo, 0.6, F_hi, 0.7, 0.6, 0.6, 0.6, 0.6])
    lower = np.array([3.5, 3.5, 3.5, 3.5, 2.9, 3.0, 3.5, 3.5])
    upper = np.array([3.8, 3.8, 3.8, 3.8, 3.8, 3.8, 4.0, 4.1])
    with pytest.warns(NotIdentifiableWarning) as record:
        lo, up, label = widen_pointwise(est, "quantile", q, lower, upper, "lab")
    assert lo.tolist() == [0.0, 3.5, 3.5, 3.5, 0.0, 3.0, 3.5, 3.5]
    assert up.tolist() == [3.8, 3.8, 3.8, 10.0, 3.8, 3.8, 4.0, 10.0]
    assert label == "lab, widened over the unsupported region"
    assert str(record[0].message) == (
        "4 of the quantile intervals reach the unsupported region, which holds "
        "83.3% of the estimated mass and where the data do not locate it: they "
        "are widened to the declared bounds=(0, 10) there (for the CDF, to 0 or 1)."
    )
    assert lower.tolist()[0] == 3.5  # the given arrays are not changed
    x = np.array([2.9, 3.0, 3.5, 4.0, 4.1])
    with pytest.warns(NotIdentifiableWarning, match="^2 of the cdf intervals"):
        lo, up, label = widen_pointwise(
            est, "cdf", x, np.full(5, 0.4), np.full(5, 0.6), "lab"
        )
    assert lo.tolist() == [0.0, 0.4, 0.4, 0.4, 0.4]
    assert up.tolist() == [0.6, 0.6, 0.6, 0.6, 1.0]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        lo, up, label = widen_pointwise(est, "cdf", x[1:4], [0.4] * 3, [0.6] * 3, "lab")
    assert label == "lab" and lo.tolist() == [0.4] * 3 and up.tolist() == [0.6] * 3


# -- the grid-EMS intervals: skprivate/_grid_density/_intervals.py ------------


def _grid_module():
    from skprivate._grid_density import _intervals

    return _intervals


S3 = np.array([[0.75, 0.25, 0.0], [0.25, 0.5, 0.25], [0.0, 0.25, 0.75]])
EDGES3 = np.array([0.0, 1.0, 2.0, 3.0])
# Five respondents with two exact reports each (the cell of each report).
BINS = np.array([[0, 1], [1, 1], [2, 0], [1, 1], [0, 0]])


def _grid_estimator():
    from skprivate.distributions import PiecewiseUniformDistribution

    class _Grid(
        _grid_module().GridEMSIntervalsMixin, PopulationEstimateMixin, BaseEstimator
    ):
        """Exact reports on three cells of (0, 3): the EMS fixed point is S t."""

        def __init__(self, ems=True):
            self.ems = ems

        def fit(self, X, y=None):
            bins = np.asarray(X, dtype=int).reshape(len(X), -1)
            t = np.bincount(bins.ravel(), minlength=3) / bins.size
            self.edges_ = EDGES3
            self.density_ = S3 @ t  # cells of width 1
            self.smoothing_width_ = 1.0
            self.systems_ = 0
            return self

        def _distribution(self):
            return PiecewiseUniformDistribution(self.edges_, self.density_)

        def _ci_ems_system(self, X):
            self.systems_ += 1
            return (np.eye(3), X.astype(int), S3) if self.ems else None

        def _ci_uses_ems(self):
            return self.ems

        def _ci_ems_refit(self, A, frequencies, start):
            return S3 @ frequencies

    return _Grid


def _hand_rbc():
    """theta, its covariance, and the corrected cells with theirs, by hand.

    With exact reports (A = I) the EM step returns t whatever theta, so the
    EMS fixed point is S t and its derivative in t is (I - theta 1^T) S; the
    fit's map is Phi(t) = S t, so theta_bc = 2 theta - S theta with
    derivative 2 I - (I - S theta 1^T) S.
    """
    n, v = BINS.shape
    c = np.array([np.bincount(row, minlength=3) for row in BINS], dtype=float)
    t = c.sum(axis=0) / (n * v)
    cov_t = np.cov(c, rowvar=False, ddof=0) / (n * v * v)
    theta = S3 @ t
    G = (np.eye(3) - np.outer(theta, np.ones(3))) @ S3
    cov = G @ cov_t @ G.T
    again = S3 @ theta
    M = 2.0 * np.eye(3) - (np.eye(3) - np.outer(again, np.ones(3))) @ S3
    return theta, cov, 2.0 * theta - again, M @ cov @ M.T


def test_grid_filters_and_cdf_weights():
    mod = _grid_module()
    np.testing.assert_array_equal(mod.binomial_filter_matrix(3), S3)
    np.testing.assert_array_equal(mod.binomial_filter_matrix(1), [[1.0]])
    four = mod.binomial_filter_matrix(4)
    np.testing.assert_array_equal(four[1], [0.25, 0.5, 0.25, 0.0])
    np.testing.assert_array_equal(four[3], [0.0, 0.0, 0.25, 0.75])
    for width in (None, 0, 0.0, -1.0):
        assert mod.smoothing_matrix(4, width) is None
    from skprivate._grid_density._ems import _smoother

    np.testing.assert_array_equal(mod.smoothing_matrix(4, 1), _smoother(4, 1.0))
    np.testing.assert_array_equal(mod.smoothing_matrix(4, 0.5), _smoother(4, 0.5))
    W = mod.cell_cdf_weights([0.0, 1.0, 3.0], [-1.0, 0.5, 1.0, 2.0, 4.0])
    np.testing.assert_array_equal(
        W, [[0.0, 0.0], [0.5, 0.0], [1.0, 0.0], [1.0, 0.5], [1.0, 1.0]]
    )


def test_report_covariance_is_over_respondents():
    mod = _grid_module()
    t, cov = mod._report_covariance(BINS, 3)
    c = np.array([np.bincount(row, minlength=3) for row in BINS], dtype=float)
    np.testing.assert_allclose(t, [0.4, 0.5, 0.1])
    np.testing.assert_allclose(cov, np.cov(c, rowvar=False, ddof=0) / 20, atol=1e-15)
    # one report per respondent, given as a 1-d array: the multinomial one
    t, cov = mod._report_covariance(np.array([0, 1, 1, 3]), 4)
    p = np.array([0.25, 0.5, 0.0, 0.25])
    np.testing.assert_allclose(t, p)
    np.testing.assert_allclose(cov, (np.diag(p) - np.outer(p, p)) / 4, atol=1e-15)


def test_ems_gradient_is_the_implicit_derivative():
    mod = _grid_module()
    # reports equal to the cells: the EM step returns t, so only the
    # normalization and the smoothing act: (I - theta 1^T) S
    theta = np.array([0.2, 0.5, 0.3])
    t = np.array([0.1, 0.6, 0.3])
    np.testing.assert_allclose(
        mod.ems_gradient(np.eye(3), theta, S3, t),
        (np.eye(3) - np.outer(theta, np.ones(3))) @ S3,
        atol=1e-15,
    )
    np.testing.assert_allclose(
        mod.ems_gradient(np.eye(3), theta, None, t),
        np.eye(3) - np.outer(theta, np.ones(3)),
        atol=1e-15,
    )
    # an invertible 2 x 2 mechanism: theta = A^-1 t on the simplex, so a
    # change (1, -1) of t moves theta by A^-1 (1, -1) = (2, -2)
    A = np.array([[0.8, 0.3], [0.2, 0.7]])
    G = mod.ems_gradient(A, np.array([0.6, 0.4]), None, np.array([0.6, 0.4]))
    np.testing.assert_allclose(G @ [1.0, -1.0], [2.0, -2.0], atol=1e-12)
    # reports that say nothing (every value reports bin 0): no derivative,
    # although the implicit system is singular
    G = mod.ems_gradient(
        np.array([[1.0, 1.0], [0.0, 0.0]]), np.array([0.5, 0.5]), None, [1.0, 0.0]
    )
    np.testing.assert_allclose(G, np.zeros((2, 2)), atol=1e-12)


def test_ems_covariance_is_the_delta_method_of_the_fixed_point():
    mod = _grid_module()
    cov = mod.ems_covariance(
        np.eye(3), np.array([0.25, 0.5, 0.25]), None, np.array([[0], [1], [1], [2]])
    )
    np.testing.assert_allclose(
        cov * 4,
        [[0.1875, -0.125, -0.0625], [-0.125, 0.25, -0.125], [-0.0625, -0.125, 0.1875]],
        atol=1e-15,
    )
    theta, hand, _, _ = _hand_rbc()
    np.testing.assert_allclose(
        mod.ems_covariance(np.eye(3), theta, S3, BINS), hand, atol=1e-15
    )


def test_bias_correction_is_twicing_on_exact_reports():
    mod = _grid_module()
    theta = np.array([0.2, 0.5, 0.3])
    theta_bc, M = mod.ems_bias_correction(np.eye(3), theta, S3, lambda t: S3 @ t)
    np.testing.assert_allclose(theta_bc, 2 * theta - S3 @ theta, atol=1e-15)
    np.testing.assert_allclose(theta_bc, [0.125, 0.625, 0.25], atol=1e-15)
    again = S3 @ theta
    np.testing.assert_allclose(
        M, 2 * np.eye(3) - (np.eye(3) - np.outer(again, np.ones(3))) @ S3, atol=1e-15
    )
    # the refit is normalized before it is used
    theta_bc, _ = mod.ems_bias_correction(np.eye(3), theta, S3, lambda t: 4 * S3 @ t)
    np.testing.assert_allclose(theta_bc, [0.125, 0.625, 0.25], atol=1e-15)
    # plain EM on exact reports is unbiased: no correction
    theta_bc, M = mod.ems_bias_correction(np.eye(3), theta, None, lambda t: t)
    np.testing.assert_allclose(theta_bc, theta, atol=1e-15)


def test_quantile_inversion_takes_the_values_whose_cdf_interval_holds_q():
    mod = _grid_module()
    edges = np.array([0.0, 1.0, 2.0])
    theta = np.array([0.5, 0.5])
    # no spread: the value where the CDF is q, on the grid of eighths
    lower, upper = mod._quantile_inversion(
        edges, theta, np.zeros((2, 2)), np.array([0.25, 0.3, 0.0, 1.0]), 0.9
    )
    assert lower.tolist() == [0.5, 0.625, 0.0, 2.0]
    assert upper.tolist() == [0.5, 0.625, 0.0, 2.0]
    # se 0.1 x in the first cell, 0.1 (2 - x) in the second: |x / 2 - 1/4|
    # <= z 0.1 x holds for x in [0.376, 0.745] at 0.9, [0.33, 1.031] at 0.99
    cov = np.array([[0.01, -0.01], [-0.01, 0.01]])
    lower, upper = mod._quantile_inversion(edges, theta, cov, np.array([0.25]), 0.9)
    assert (lower[0], upper[0]) == (0.5, 0.625)
    lower, upper = mod._quantile_inversion(edges, theta, cov, np.array([0.25]), 0.99)
    assert (lower[0], upper[0]) == (0.375, 1.0)
    lower, upper = mod._quantile_inversion(
        edges, theta, cov, np.array([0.25]), 0.9, per_cell=4
    )
    assert (lower[0], upper[0]) == (0.5, 0.5)


def test_rearranged_quantiles_sort_a_dipping_cdf():
    mod = _grid_module()
    # cumulative masses 0, 0.6, 0.4, 1 sorted to 0, 0.4, 0.6, 1
    got = mod._rearranged_quantiles(
        EDGES3, np.array([0.6, -0.2, 0.6]), np.array([0.2, 0.5, 0.8])
    )
    np.testing.assert_allclose(got, [0.5, 1.5, 2.5])
    # masses are normalized first
    got = mod._rearranged_quantiles(
        EDGES3, np.array([1.2, -0.4, 1.2]), np.array([0.2, 0.5])
    )
    np.testing.assert_allclose(got, [0.5, 1.5])


def test_grid_rbc_intervals_are_the_corrected_delta_method_ones():
    theta, _, theta_bc, cov_bc = _hand_rbc()
    est = _grid_estimator()().fit(BINS)
    np.testing.assert_allclose(np.diff(est.cdf(EDGES3)), theta)
    x = np.array([0.5, 1.0, 2.5])
    W = np.array([[0.5, 0.0, 0.0], [1.0, 0.0, 0.0], [1.0, 1.0, 0.5]])
    z = stats.norm.ppf(0.95)
    ci = est.conf_int("cdf", x, X=BINS, level=0.9)
    F = W @ theta_bc
    se = np.sqrt(np.diag(W @ cov_bc @ W.T))
    np.testing.assert_allclose(ci["estimate"], F, atol=1e-14)
    np.testing.assert_allclose(ci["se"], se, atol=1e-14)
    np.testing.assert_allclose(ci["lower"], np.clip(F - z * se, 0, 1), atol=1e-14)
    np.testing.assert_allclose(ci["upper"], np.clip(F + z * se, 0, 1), atol=1e-14)
    assert ci["method"].iloc[0] == "linearized EMS, bias-corrected (delta method)"
    assert ci["target"].iloc[0] == (
        "F(x), the true value (the fit's bias at the fitted law removed to first "
        "order; the smoothing width held at the fit's choice)"
    )
    assert ci["point"].tolist() == x.tolist()
    # the mean: midpoints 0.5, 1.5, 2.5 of the corrected cells
    mids = np.array([0.5, 1.5, 2.5])
    mean = est.conf_int("mean", X=BINS)
    assert mean["estimate"].iloc[0] == pytest.approx(mids @ theta_bc, abs=1e-14)
    assert mean["se"].iloc[0] == pytest.approx(np.sqrt(mids @ cov_bc @ mids), abs=1e-14)
    assert mean["upper"].iloc[0] == pytest.approx(
        mids @ theta_bc + stats.norm.ppf(0.975) * np.sqrt(mids @ cov_bc @ mids)
    )
    assert mean["method"].iloc[0] == "linearized EMS, bias-corrected (delta method)"
    assert mean["target"].iloc[0].startswith("E[X], the true value (")
    # quantiles: the rearranged corrected CDF and the inverted CDF intervals
    q = est.conf_int("quantile", [0.5], X=BINS)
    lower, upper = _grid_module()._quantile_inversion(
        EDGES3, theta_bc, cov_bc, np.array([0.5]), 0.95
    )
    cdf = np.concatenate([[0.0], np.cumsum(theta_bc)])
    assert q["estimate"].iloc[0] == pytest.approx(np.interp(0.5, cdf, EDGES3))
    assert (q["lower"].iloc[0], q["upper"].iloc[0]) == (lower[0], upper[0])
    assert q["method"].iloc[0] == "linearized EMS, bias-corrected, CDF test inversion"
    assert q["target"].iloc[0].startswith("the quantile of X, the true value (")


def test_grid_smoothed_intervals_are_centred_on_the_fit():
    theta, cov, _, _ = _hand_rbc()
    est = _grid_estimator()().fit(BINS)
    x = np.array([0.5, 2.5])
    W = np.array([[0.5, 0.0, 0.0], [1.0, 1.0, 0.5]])
    smoothed_target = (
        "the EMS-smoothed target at the chosen width, after the fit's moment "
        "tilt if any (smoothing bias and the variability of the width choice "
        "not covered)"
    )
    for name in ("smoothed", "linearized"):
        ci = est.conf_int("cdf", x, X=BINS, method=name, level=0.8)
        se = np.sqrt(np.diag(W @ cov @ W.T))
        np.testing.assert_allclose(ci["estimate"], W @ theta, atol=1e-14)
        np.testing.assert_allclose(ci["se"], se, atol=1e-14)
        np.testing.assert_allclose(
            ci["upper"], W @ theta + stats.norm.ppf(0.9) * se, atol=1e-14
        )
        assert ci["method"].iloc[0] == "linearized EMS (delta method)"
        assert ci["target"].iloc[0] == smoothed_target
        mean = est.conf_int("mean", X=BINS, method=name)
        mids = np.array([0.5, 1.5, 2.5])
        assert mean["estimate"].iloc[0] == pytest.approx(mids @ theta, abs=1e-14)
        assert mean["se"].iloc[0] == pytest.approx(np.sqrt(mids @ cov @ mids))
        q = est.conf_int("quantile", [0.3, 0.5], X=BINS, method=name)
        np.testing.assert_allclose(q["estimate"], est.quantile([0.3, 0.5]))
        lower, upper = _grid_module()._quantile_inversion(
            EDGES3, theta, cov, np.array([0.3, 0.5]), 0.95
        )
        assert q["lower"].tolist() == lower.tolist()
        assert q["upper"].tolist() == upper.tolist()
        assert q["method"].iloc[0] == "linearized EMS, CDF test inversion"
        assert q["target"].iloc[0] == smoothed_target
    # the smoothed mean through the helper, under its former name too
    frame = est._ci_linearized_mean(
        _request(kind="mean", X=BINS, level=0.9), "linearized"
    )
    assert frame["estimate"].iloc[0] == pytest.approx(np.array([0.5, 1.5, 2.5]) @ theta)
    frame = est._ci_linearized_mean(_request(kind="mean", X=BINS, level=0.9))
    assert frame["method"].iloc[0] == "linearized EMS, bias-corrected (delta method)"


def test_grid_intervals_share_the_linearization_and_honour_the_level():
    est = _grid_estimator()().fit(BINS)
    ci = est.conf_int("mean", X=BINS, level=[0.9, 0.95])
    assert est.systems_ == 1
    width = ci["upper"] - ci["lower"]
    assert width.iloc[1] / width.iloc[0] == pytest.approx(
        stats.norm.ppf(0.975) / stats.norm.ppf(0.95), rel=1e-12
    )
    # a 1-d X is one report per respondent
    one = est.conf_int("mean", X=BINS[:, 0])
    two = est.conf_int("mean", X=BINS[:, :1])
    pd.testing.assert_frame_equal(one, two)
    # the corrected cell estimate of the CDF stays in [0, 1]
    est.density_ = np.array([0.0, 0.2, 0.8])
    ci = est.conf_int("cdf", [0.5, 2.9], X=BINS[:, :1])
    F = 2 * est.density_ - S3 @ est.density_
    assert F[0] < 0 and ci["estimate"].iloc[0] == 0.0
    assert ci["estimate"].iloc[1] == pytest.approx(F[0] + F[1] + 0.9 * F[2])


def test_grid_without_ems_bootstraps_and_refuses_the_linearized_methods():
    est = _grid_estimator()(ems=False).fit(BINS[:, :1])
    assert est._ci_interval_kinds() == ["cdf", "mean", "quantile"]
    with pytest.raises(
        ValueError,
        match=re.escape("kind='pdf'; available: ['cdf', 'mean', 'quantile']"),
    ):
        est.conf_int("pdf", [1.0])
    X = BINS[:, :1]
    mean = est.conf_int("mean", X=X, n_resamples=5, random_state=0)
    assert mean["method"].iloc[0] == "bootstrap-percentile"
    q = est.conf_int("quantile", [0.5], X=X, n_resamples=5, random_state=0)
    assert q["method"].iloc[0] == "bootstrap-percentile"
    c = est.conf_int("cdf", [1.0], X=X, n_resamples=5, random_state=0)
    assert c["method"].iloc[0] == "bootstrap-percentile"
    idx = resample_indices(5, 5, 0)
    reps = [est.__class__(ems=False).fit(X[i]).cdf([1.0])[0] for i in idx]
    assert c["se"].iloc[0] == pytest.approx(np.std(reps, ddof=1))
    for kind, points in [("mean", None), ("cdf", [1.0]), ("quantile", [0.5])]:
        for method in ("rbc", "smoothed"):
            with pytest.raises(
                ValueError,
                match=re.escape(
                    "_Grid was not fitted by EM with smoothing (method='paper'); "
                    "use method='bootstrap'."
                ),
            ):
                est.conf_int(kind, points, X=X, method=method)
    with pytest.raises(
        ValueError,
        match=re.escape(
            "_Grid computes 'mean' intervals with method in ['bootstrap', "
            "'linearized', 'rbc', 'smoothed'] (or 'auto'); got method='wald'."
        ),
    ):
        est.conf_int("mean", X=X, method="wald")
    # with EMS the bootstrap is still offered on request
    ems = _grid_estimator()().fit(X)
    boot = ems.conf_int("mean", X=X, method="bootstrap", n_resamples=5, random_state=0)
    assert boot["method"].iloc[0] == "bootstrap-percentile"
    assert (
        ems.conf_int("mean", X=X)["method"].iloc[0].startswith("linearized EMS, bias")
    )


def test_grid_default_refit_is_the_fits_ems():
    from skprivate._grid_density._ems import ML_MAX_ITER, ML_TOL, ems_cell_probabilities

    mod = _grid_module()

    class _Plain(mod.GridEMSIntervalsMixin):
        smoothing_width_ = 0.7

    A = np.array([[0.7, 0.2, 0.1], [0.2, 0.6, 0.2], [0.1, 0.2, 0.7]])
    freq = np.array([0.5, 0.3, 0.2])
    start = np.array([0.2, 0.3, 0.5])
    got = _Plain()._ci_ems_refit(A, freq, start)
    expected = ems_cell_probabilities(
        A, freq, 0.7, max_iter=ML_MAX_ITER, tol=ML_TOL, start=start, warn=False
    )[0]
    np.testing.assert_array_equal(got, expected)
    assert _Plain()._ci_uses_ems() is True
    assert _Plain()._ci_moment_tilt(None, A, None, None) is None


# -- the NPMLE's intervals: skprivate/interval/_intervals.py ------------------


def _iv():
    from skprivate.interval import _intervals

    return _intervals


def _quiet_npmle(Z, bounds=None):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return _npmle(Z, bounds)


def test_likelihood_ratio_critical_values_by_level():
    iv = _iv()
    assert iv._lr_critical(0.9) == 1.602
    assert iv._lr_critical(0.95) == 2.269
    assert iv._lr_critical(0.99) == 3.836
    assert iv._lr_critical(0.95 + 5e-10) == 2.269
    assert iv._lr_critical(0.95 - 5e-10) == 2.269
    assert iv._lr_critical(0.95 + 2e-9) is None
    assert iv._lr_critical(0.8) is None


def test_rows_without_information_are_dropped():
    iv = _iv()
    Z = np.array([[-INF, INF], [1.0, INF], [-INF, 2.0]])
    np.testing.assert_array_equal(iv._informative(Z), Z[1:])
    with pytest.raises(
        ValueError,
        match=re.escape("X carries no information: every row is (-inf, inf)."),
    ):
        iv._informative(np.array([[-INF, INF], [-INF, INF]]))
    assert iv._is_case_one(SIX)
    assert not iv._is_case_one(np.array([[1.0, INF], [0.0, 1.0]]))
    assert not iv._is_case_one(np.array([[1.0, INF], [-INF, INF]]))


def test_current_status_likelihood_ratio_on_six_rows():
    # anchors 1..6, indicators 0 1 0 1 1 0: F = 0, 1/2, 1/2, 2/3, 2/3, 2/3
    cs = _iv()._CurrentStatus(SIX)
    assert cs.anchors.tolist() == [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
    assert cs.weight.tolist() == [1.0] * 6
    assert cs.hits.tolist() == [0.0, 1.0, 0.0, 1.0, 1.0, 0.0]
    np.testing.assert_allclose(cs.F, [0, 0.5, 0.5, 2 / 3, 2 / 3, 2 / 3])
    best = 2 * np.log(0.5) + 2 * np.log(2 / 3) + np.log(1 / 3)
    assert cs.max_loglik == pytest.approx(best)
    assert [cs.n_left(t) for t in (0.5, 1.0, 2.5, 6.0, 9.0)] == [0, 1, 2, 6, 6]
    assert [cs.value(t) for t in (0.5, 1.0, 2.5, 6.0)] == pytest.approx(
        [0.0, 0.0, 0.5, 2 / 3]
    )
    left, right = cs.split(3)
    np.testing.assert_allclose(left, [0.0, 0.5, 0.5])
    np.testing.assert_allclose(right, [2 / 3] * 3)
    assert cs.split(0)[0].size == 0
    # F(3.5) = 0.8: the right part floored at 0.8
    ratio = 2 * ((2 * np.log(2 / 3) + np.log(1 / 3)) - (2 * np.log(0.8) + np.log(0.2)))
    assert cs.ratio((left, right), 0.8) == pytest.approx(ratio)
    assert cs.ratio((left, right), 0.6) == pytest.approx(0.0, abs=1e-12)
    # F(3.5) = theta < 1/2 caps anchors 2, 3: ratio 2 (2 log 1/2 - log theta
    # - log (1 - theta)), which reaches d at theta (1 - theta) = e^(-d/2) / 4
    d = 2.269
    est, lower, upper = cs.cdf_interval(3.5, d)
    assert est == 0.5
    assert lower == pytest.approx((1 - np.sqrt(1 - np.exp(-d / 2))) / 2, abs=1e-12)
    # above 2/3 the right part is floored: 2 log theta + log(1 - theta)
    top = optimize_brentq(
        lambda th: (
            2
            * ((2 * np.log(2 / 3) + np.log(1 / 3)) - (2 * np.log(th) + np.log(1 - th)))
            - d
        ),
        2 / 3,
        1 - 1e-12,
    )
    assert upper == pytest.approx(top, abs=1e-12)
    # left of every anchor F = 0, and theta = 0 is not rejected
    est, lower, upper = cs.cdf_interval(0.5, d)
    assert (est, lower) == (0.0, 0.0) and 0 < upper < 1
    assert cs.ratio(cs.split(0), upper) == pytest.approx(d, abs=1e-9)


def test_current_status_intervals_reach_the_ends_of_the_unit_interval():
    # three rows with every indicator 1 at anchors 1, 2, 3: F = 1 everywhere
    Z = np.array([[-INF, 1.0], [-INF, 2.0], [-INF, 3.0]])
    cs = _iv()._CurrentStatus(Z)
    est, lower, upper = cs.cdf_interval(2.5, 2.269)
    assert est == 1.0 and upper == 1.0
    # theta < 1 costs 2 * 3 * log(1 / theta) on the capped left part (two
    # anchors left of 2.5): 4 log(1 / theta) = d
    assert lower == pytest.approx(np.exp(-2.269 / 4), abs=1e-12)


def test_current_status_quantile_interval_is_the_accepted_anchor_range():
    rng = np.random.default_rng(3)
    u = rng.uniform(0, 4, size=40)
    x = rng.uniform(0, 4, size=40)
    Z = np.where(
        (x <= u)[:, None], np.c_[np.full(40, -INF), u], np.c_[u, np.full(40, INF)]
    )
    cs = _iv()._CurrentStatus(Z)
    K = cs.anchors.size
    for q, d in [
        (0.5, 2.269),
        (0.3, 1.602),
        (0.8, 3.836),
        (0.05, 2.269),
        (0.97, 1.602),
    ]:
        accepted = [s for s in range(K + 1) if cs.ratio(cs.split(s), q) <= d]
        s_min, s_max = min(accepted), max(accepted)
        lower, upper = cs.quantile_interval(q, d)
        assert lower == (-INF if s_min == 0 else cs.anchors[s_min - 1])
        assert upper == (INF if s_max >= K else cs.anchors[s_max])
        assert accepted == list(range(s_min, s_max + 1))


def test_kde_of_the_anchors_is_silvermans_gaussian_kernel():
    iv = _iv()
    rng = np.random.default_rng(0)
    v = rng.normal(size=300)
    pts = np.array([-1.0, 0.0, 0.3, 2.0])
    spread = min(v.std(), stats.iqr(v) / 1.349)
    h = 0.9 * spread * 300 ** (-0.2)
    exact = stats.norm.pdf((pts[:, None] - v[None, :]) / h).mean(axis=1) / h
    np.testing.assert_allclose(iv._kde_at(v, pts), exact, rtol=2e-3)
    # the bandwidth takes the smaller spread: a heavy tail leaves the IQR
    w = np.concatenate([v, [60.0, -60.0]])
    spread = min(w.std(), stats.iqr(w) / 1.349)
    assert spread < w.std()
    h = 0.9 * spread * 302 ** (-0.2)
    exact = stats.norm.pdf((pts[:, None] - w[None, :]) / h).mean(axis=1) / h
    np.testing.assert_allclose(iv._kde_at(w, pts), exact, rtol=2e-3)
    # points beyond the values: the grid reaches them; far off, the floor
    far = iv._kde_at(v, np.array([v.max() + 0.5]))
    h = 0.9 * min(v.std(), stats.iqr(v) / 1.349) * 300 ** (-0.2)
    edge = stats.norm.pdf((v.max() + 0.5 - v) / h).mean() / h
    assert far[0] == pytest.approx(edge, rel=2e-3)
    assert iv._kde_at(v, np.array([v.min() - 0.5]))[0] == pytest.approx(
        stats.norm.pdf((v.min() - 0.5 - v) / h).mean() / h, rel=2e-3
    )
    assert 0 < iv._kde_at(v, np.array([v.max() + 100.0]))[0] < 1e-12
    # values without spread: the bandwidth 0.9 n^-0.2 (unit spread)
    same = iv._kde_at(np.zeros(32), np.array([0.0, 0.5]))
    h = 0.9 * 32 ** (-0.2)
    np.testing.assert_allclose(same, stats.norm.pdf([0.0, 0.5], scale=h), rtol=2e-3)
    # half the values equal: the IQR is 0, the standard deviation is used
    tied = np.r_[np.zeros(30), [1.0, 2.0, 3.0]]
    assert stats.iqr(tied) == 0.0
    h = 0.9 * tied.std() * 33 ** (-0.2)
    exact = stats.norm.pdf((pts[:, None] - tied[None, :]) / h).mean(axis=1) / h
    np.testing.assert_allclose(iv._kde_at(tied, pts), exact, rtol=2e-3)


def test_npmle_likelihood_ratio_frames():
    est = _quiet_npmle(SIX)
    cs = _iv()._CurrentStatus(SIX)
    ci = est.conf_int("cdf", [3.5, 0.5], X=SIX, level=0.99)
    for i, t in enumerate([3.5, 0.5]):
        _, lo, up = cs.cdf_interval(t, 3.836)
        assert (ci["lower"].iloc[i], ci["upper"].iloc[i]) == pytest.approx((lo, up))
    np.testing.assert_allclose(ci["estimate"], est.cdf([3.5, 0.5]))
    assert ci["method"].tolist() == ["likelihood-ratio (Banerjee-Wellner)"] * 2
    assert ci["target"].tolist() == ["F(t)"] * 2
    assert ci["level"].tolist() == [0.99] * 2
    q = est.conf_int("quantile", [0.5, 0.6], X=SIX, level=0.9)
    for i, p in enumerate([0.5, 0.6]):
        lo, up = cs.quantile_interval(p, 1.602)
        assert (q["lower"].iloc[i], q["upper"].iloc[i]) == (lo, up)
    np.testing.assert_allclose(q["estimate"], est.quantile([0.5, 0.6]))
    assert q["target"].tolist() == ["F^-1(q), between anchors"] * 2
    assert q["method"].iloc[0] == "likelihood-ratio (Banerjee-Wellner)"
    # the rows (-inf, inf) carry nothing: the same intervals with them
    more = np.vstack([SIX, [[-INF, INF]]])
    pd.testing.assert_frame_equal(
        est.conf_int("cdf", [3.5], X=more), est.conf_int("cdf", [3.5], X=SIX)
    )
    with pytest.raises(
        ValueError,
        match=re.escape(
            "method='likelihood-ratio' uses the tabulated quantiles of Banerjee & "
            "Wellner's law D, for level in [0.9, 0.95, 0.99]; got level=0.8. Use "
            "method='subsampling'."
        ),
    ):
        est.conf_int("cdf", [1.0], X=SIX, level=0.8, method="likelihood-ratio")
    with pytest.raises(
        ValueError,
        match=re.escape(
            "method='likelihood-ratio' needs Case-I data (every row (-inf, u] or "
            "(u, inf)); use method='subsampling' for other interval data."
        ),
    ):
        _quiet_npmle(CASE_TWO).conf_int(
            "cdf", [1.0], X=CASE_TWO, method="likelihood-ratio"
        )
    with pytest.raises(
        ValueError,
        match=re.escape(
            "IntervalNPMLE computes 'quantile' intervals with method in "
            "['likelihood-ratio', 'subsampling'] (or 'auto'); got method='bootstrap'."
        ),
    ):
        est.conf_int("quantile", [0.5], X=SIX, method="bootstrap")


def test_npmle_subsampling_frames(monkeypatch):
    from sklearn.base import clone

    iv = _iv()
    est = _quiet_npmle(CASE_TWO)
    # n = 9 rows: subsamples of min(max(20, n^(2/3)), n - 1) = 8 rows
    ci = est.conf_int(
        "cdf", [1.0, 3.0, 9.0], X=CASE_TWO, n_resamples=6, random_state=2, level=0.9
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        reps = bootstrap_replicates(
            clone(est),
            CASE_TWO,
            lambda e: e.cdf([1.0, 3.0, 9.0]),
            n_resamples=6,
            random_state=2,
            size=8,
            replace=False,
        )
    estimate = est.cdf([1.0, 3.0, 9.0])
    lower, upper = subsampling_interval(estimate, reps, 9, 8, 1 / 3, 0.9)
    np.testing.assert_allclose(ci["lower"], np.clip(lower, 0, 1))
    np.testing.assert_allclose(ci["upper"], np.clip(upper, 0, 1))
    assert ci["method"].tolist() == ["subsampling (rate n^1/3)"] * 3
    assert ci["target"].iloc[0] == "F(t)"
    q = est.conf_int("quantile", [0.5], X=CASE_TWO, n_resamples=6, random_state=2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        reps = bootstrap_replicates(
            clone(est),
            CASE_TWO,
            lambda e: e.quantile([0.5]),
            n_resamples=6,
            random_state=2,
            size=8,
            replace=False,
        )
    lower, upper = subsampling_interval(est.quantile([0.5]), reps, 9, 8, 1 / 3, 0.95)
    assert (q["lower"].iloc[0], q["upper"].iloc[0]) == pytest.approx(
        (lower[0], upper[0])
    )
    # the draws: 400 subsamples by default, of b = max(20, ceil(n^(2/3)))
    # rows without replacement, shared by the levels
    seen = []

    def fake(template, X, statistic, **kwargs):
        seen.append((X.shape[0], kwargs))
        return np.zeros((kwargs["n_resamples"], 1))

    monkeypatch.setattr(iv, "bootstrap_replicates", fake)
    rows = np.vstack([CASE_TWO] * 100)  # n = 900: b = ceil(93.2) = 94
    big = _quiet_npmle(rows)
    big.conf_int("cdf", [1.0], X=rows, level=[0.9, 0.95], random_state=1, n_jobs=2)
    assert len(seen) == 1
    n, kwargs = seen[0]
    assert n == 900
    assert kwargs == {
        "n_resamples": 400,
        "random_state": 1,
        "n_jobs": 2,
        "size": 94,
        "replace": False,
    }
    seen.clear()
    rows = np.vstack([CASE_TWO] * 3)  # n = 27: b = 20
    _quiet_npmle(rows).conf_int("cdf", [1.0], X=rows, n_resamples=5)
    assert seen[0][1]["size"] == 20 and seen[0][1]["n_resamples"] == 5


def test_npmle_mean_methods():
    from skprivate.interval._identified import mean_interval

    iv = _iv()
    est = _quiet_npmle(SIX)
    cs = iv._CurrentStatus(SIX)
    F = cs.F[np.searchsorted(cs.anchors, cs.u)]
    g = iv._kde_at(cs.u, cs.u)
    se = np.sqrt(np.sum(F * (1 - F) / g**2)) / 6
    ci = est.conf_int("mean", X=SIX, level=0.9)
    assert ci["se"].iloc[0] == pytest.approx(se, rel=1e-12)
    assert ci["estimate"].iloc[0] == pytest.approx(est.mean())
    assert ci["lower"].iloc[0] == pytest.approx(est.mean() - stats.norm.ppf(0.95) * se)
    assert ci["method"].iloc[0] == "influence (Huang-Wellner)"
    assert ci["target"].iloc[0] == "E[X] (anchors spanning the values)"
    boot = est.conf_int(
        "mean", X=SIX, method="bootstrap", n_resamples=5, random_state=0
    )
    from sklearn.base import clone

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        reps = bootstrap_replicates(
            clone(est), SIX, lambda e: e.mean(), n_resamples=5, random_state=0
        )
    assert boot["se"].iloc[0] == pytest.approx(np.nanstd(reps, ddof=1))
    assert boot["method"].iloc[0] == "bootstrap-percentile"
    # Case-II rows: the bootstrap by default, influence refused
    two = _quiet_npmle(CASE_TWO)
    auto = two.conf_int("mean", X=CASE_TWO, n_resamples=5, random_state=0)
    assert auto["method"].iloc[0] == "bootstrap-percentile"
    with pytest.raises(
        ValueError,
        match=re.escape(
            "method='influence' needs Case-I data; use method='bootstrap'."
        ),
    ):
        two.conf_int("mean", X=CASE_TWO, method="influence")
    with pytest.raises(
        ValueError,
        match=re.escape(
            "IntervalNPMLE computes 'mean' intervals with method in ['bootstrap', "
            "'identified_set', 'influence'] (or 'auto'); got method='wald'."
        ),
    ):
        two.conf_int("mean", X=CASE_TWO, method="wald")
    # declared bounds: the identified set by default
    bounded = _quiet_npmle(NINE, (0.0, 10.0))
    got = bounded.conf_int("mean", X=NINE, n_resamples=5, random_state=0)
    from skprivate._uncertainty import IntervalRequest as _Req

    request = _Req("mean", None, 0.95, "auto", NINE, None, 5, 0, None)
    pd.testing.assert_frame_equal(got, mean_interval(bounded, request, NINE))
    assert bounded._ci_interval_kinds() == ["cdf", "mean", "quantile"]


def test_npmle_pointwise_intervals_widen_with_declared_bounds():
    from skprivate.exceptions import NotIdentifiableWarning

    est = _npmle(SIX, (0.0, 10.0))
    with pytest.warns(NotIdentifiableWarning):
        q = est.conf_int("quantile", [0.9], X=SIX)
    assert q["upper"].iloc[0] == 10.0
    assert q["method"].iloc[0] == (
        "likelihood-ratio (Banerjee-Wellner), widened over the unsupported region"
    )
    plain = _quiet_npmle(SIX).conf_int("quantile", [0.9], X=SIX)
    assert plain["method"].iloc[0] == "likelihood-ratio (Banerjee-Wellner)"


# -- the MLE's Wald intervals: skprivate/interval/_intervals.py ---------------

# Mixed rows (exact values, intervals, half-lines) for the parametric MLE.
MIXED = np.array(
    [
        [0.3, 0.3],
        [1.2, 1.2],
        [-0.4, -0.4],
        [2.0, 2.0],
        [0.0, 1.0],
        [-1.0, 0.5],
        [1.5, 3.0],
        [-INF, 0.2],
        [0.8, INF],
        [-0.7, -0.7],
        [0.9, 0.9],
        [-2.0, -0.5],
    ]
)


def _mle(Z, family="normal"):
    from skprivate import IntervalMLE

    return IntervalMLE(family=family).fit(Z)


def _numeric_gradient(func, theta, step=1e-6):
    theta = np.asarray(theta, dtype=float)
    out = []
    for i in range(theta.size):
        e = np.zeros(theta.size)
        e[i] = step
        out.append((func(theta + e) - func(theta - e)) / (2 * step))
    return np.array(out).T


def _scipy_loglik(Z, family, theta):
    """Interval log-likelihood in (mu, log sigma) by scipy's laws."""
    law = stats.norm if family == "normal" else stats.logistic
    mu, s = theta[0], np.exp(theta[1])
    exact = Z[:, 0] == Z[:, 1]
    ll = law.logpdf(Z[exact, 0], mu, s).sum()
    lo, hi = Z[~exact, 0], Z[~exact, 1]
    ll += np.log(law.cdf(hi, mu, s) - law.cdf(lo, mu, s)).sum()
    return ll


def test_hessian_and_covariance_of_a_quadratic():
    iv = _iv()
    Q = np.array([[2.0, 0.5, 0.0], [0.5, 1.0, 0.25], [0.0, 0.25, 3.0]])
    b = np.array([1.0, -1.0, 0.5])

    def f(theta):
        return -0.5 * theta @ Q @ theta + b @ theta

    H = iv._hessian(f, np.array([0.3, -0.2, 0.1]), np.array([1e-2, 2e-2, 5e-3]))
    np.testing.assert_allclose(H, -Q, atol=1e-8)
    np.testing.assert_allclose(iv._covariance(H, "m"), np.linalg.inv(Q), atol=1e-6)
    message = (
        "The observed information of m is singular or not positive definite: "
        "the data do not identify the parameters well enough for Wald "
        "intervals (use method='bootstrap')."
    )
    for bad in (np.zeros((2, 2)), np.diag([-1.0, -1.0]) * -1, np.diag([-1.0, 1.0])):
        with pytest.raises(ValueError, match=re.escape(message)):
            iv._covariance(bad, "m")
    with pytest.raises(ValueError, match=re.escape(message)):
        iv._covariance(np.array([[-np.nan, 0.0], [0.0, -1.0]]), "m")


def test_row_log_likelihood_of_exact_and_interval_rows():
    iv = _iv()
    lower = np.array([0.5, -1.0, -INF, 2.0])
    upper = np.array([0.5, 1.0, 0.0, 2.0])
    center = np.array([0.0, 0.2, -0.3, 1.0])
    s = 1.7
    got = iv._row_loglik(lower, upper, center, "gaussian", np.log(s))
    expected = [
        stats.norm.logpdf(0.5, 0.0, s),
        np.log(stats.norm.cdf(1.0, 0.2, s) - stats.norm.cdf(-1.0, 0.2, s)),
        stats.norm.logcdf(0.0, -0.3, s),
        stats.norm.logpdf(2.0, 1.0, s),
    ]
    np.testing.assert_allclose(got, expected, rtol=1e-12)
    got = iv._row_loglik(lower, upper, center, "logistic", np.log(s))
    expected = [
        stats.logistic.logpdf(0.5, 0.0, s),
        np.log(stats.logistic.cdf(1.0, 0.2, s) - stats.logistic.cdf(-1.0, 0.2, s)),
        stats.logistic.logcdf(0.0, -0.3, s),
        stats.logistic.logpdf(2.0, 1.0, s),
    ]
    np.testing.assert_allclose(got, expected, rtol=1e-12)
    # only exact rows, only interval rows
    np.testing.assert_allclose(
        iv._row_loglik(lower[:1], upper[:1], center[:1], "gaussian", 0.0),
        [stats.norm.logpdf(0.5)],
    )
    np.testing.assert_allclose(
        iv._row_loglik(lower[1:3], upper[1:3], center[1:3], "logistic", 0.0),
        [
            np.log(stats.logistic.cdf(0.8) - stats.logistic.cdf(-1.2)),
            stats.logistic.logcdf(0.3),
        ],
    )


@pytest.mark.parametrize("family", ["normal", "logistic"])
def test_mle_wald_intervals_are_the_delta_method_of_the_information(family):
    est = _mle(MIXED, family)
    law = stats.norm if family == "normal" else stats.logistic
    theta = np.array([est.loc_, np.log(est.scale_)])
    # the observed information, by differentiating scipy's likelihood
    H = _numeric_gradient(
        lambda t: _numeric_gradient(lambda u: _scipy_loglik(MIXED, family, u), t, 1e-4),
        theta,
        1e-4,
    )
    cov = np.linalg.inv(-0.5 * (H + H.T))
    np.testing.assert_allclose(est._ci_parameter_covariance(MIXED), cov, rtol=2e-4)
    z = stats.norm.ppf(0.95)

    def wald(func, kind, points, back):
        g = _numeric_gradient(func, theta)
        g = np.atleast_2d(g)
        se = np.sqrt(np.einsum("ij,jk,ik->i", g, cov, g))
        value = np.atleast_1d(func(theta))
        ci = est.conf_int(kind, points, X=MIXED, level=0.9)
        np.testing.assert_allclose(ci["estimate"], back(value), rtol=1e-6)
        np.testing.assert_allclose(ci["lower"], back(value - z * se), rtol=2e-4)
        np.testing.assert_allclose(ci["upper"], back(value + z * se), rtol=2e-4)
        assert (ci["method"] == "wald (observed information)").all()
        return ci, se

    ci, se = wald(lambda t: t[0], "mean", None, lambda v: v)
    np.testing.assert_allclose(ci["se"], se, rtol=2e-4)
    assert ci["target"].iloc[0] == "E[X]" and ci["quantity"].iloc[0] == "mean"
    q = np.array([0.1, 0.5, 0.9])
    ci, se = wald(
        lambda t: t[0] + np.exp(t[1]) * law.ppf(q), "quantile", q, lambda v: v
    )
    np.testing.assert_allclose(ci["se"], se, rtol=2e-4)
    assert ci["target"].iloc[0] == "F^-1(q)"
    x = np.array([-1.0, 0.5, 2.0])
    ci, _ = wald(lambda t: (x - t[0]) / np.exp(t[1]), "cdf", x, law.cdf)
    assert ci["se"].isna().all() and ci["target"].iloc[0] == "F(x)"
    ci, _ = wald(lambda t: law.logpdf(x, t[0], np.exp(t[1])), "pdf", x, np.exp)
    assert ci["se"].isna().all() and ci["target"].iloc[0] == "f(x)"
    ci, _ = wald(lambda t: t[1], "scale", None, np.exp)
    assert ci["target"].iloc[0] == "the scale of the family (sigma)"
    assert ci["estimate"].iloc[0] == pytest.approx(est.scale_)
    assert est._ci_interval_kinds() == ["cdf", "mean", "pdf", "quantile", "scale"]


def test_mle_bootstrap_intervals_refit_the_family():
    from sklearn.base import clone

    est = _mle(MIXED)
    x = np.array([0.0, 1.0])
    stats_of = {
        "mean": (None, lambda e: e.mean()),
        "quantile": ([0.25], lambda e: e.quantile([0.25])),
        "cdf": (x, lambda e: e.cdf(x)),
        "pdf": (x, lambda e: e.pdf(x)),
        "scale": (None, lambda e: e.scale_),
    }
    for kind, (points, stat) in stats_of.items():
        ci = est.conf_int(
            kind, points, X=MIXED, method="bootstrap", n_resamples=4, random_state=1
        )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            reps = bootstrap_replicates(
                clone(est), MIXED, stat, n_resamples=4, random_state=1
            )
        lower, upper = percentile_interval(reps, 0.95)
        np.testing.assert_allclose(ci["lower"], lower, err_msg=kind)
        np.testing.assert_allclose(ci["upper"], upper, err_msg=kind)
        assert ci["method"].iloc[0] == "bootstrap-percentile"
    with pytest.raises(
        ValueError,
        match=re.escape(
            "IntervalMLE computes 'mean' intervals with method in ['bootstrap', "
            "'wald'] (or 'auto'); got method='profile'."
        ),
    ):
        est.conf_int("mean", X=MIXED, method="profile")
    with pytest.raises(ValueError, match=re.escape("pass X=, the release")):
        est.conf_int("mean")


def test_mle_information_is_computed_once_for_every_level(monkeypatch):
    est = _mle(MIXED)
    calls = []
    original = type(est)._ci_parameter_covariance

    def counted(self, X):
        calls.append(1)
        return original(self, X)

    monkeypatch.setattr(type(est), "_ci_parameter_covariance", counted)
    ci = est.conf_int("cdf", [0.0, 1.0], X=MIXED, level=[0.8, 0.9, 0.99])
    assert len(calls) == 1 and ci.shape[0] == 6
    assert ci["level"].tolist() == [0.8, 0.8, 0.9, 0.9, 0.99, 0.99]


# -- the regressor's predict and coef intervals --------------------------------


def _exact_regression(n=60, seed=0, offset=0.0):
    rng = np.random.default_rng(seed)
    X = rng.normal(offset, 1.0, size=(n, 2))
    y = 1.0 + X @ [2.0, -1.0] + rng.normal(size=n)
    return X, y


def _regressor(**params):
    from skprivate import IterativeIntervalRegressor

    return IterativeIntervalRegressor(**params)


def test_regression_wald_with_a_known_scale_is_ols_with_that_scale():
    X, y = _exact_regression()
    reg = _regressor(sigma=2.0, init="constant").fit(X, y)
    D = np.column_stack([np.ones(60), X])
    inv = np.linalg.inv(D.T @ D)
    beta = np.linalg.lstsq(D, y, rcond=None)[0]
    z = stats.norm.ppf(0.95)
    coef = reg.conf_int("coef", X=X, y=y, level=0.9)
    assert coef["point"].tolist() == ["intercept", 0, 1]
    np.testing.assert_allclose(coef["estimate"], beta, rtol=1e-6)
    se = 2.0 * np.sqrt(np.diag(inv))
    np.testing.assert_allclose(coef["se"], se, rtol=1e-4)
    np.testing.assert_allclose(coef["lower"], beta - z * se, rtol=1e-4)
    np.testing.assert_allclose(coef["upper"], beta + z * se, rtol=1e-4)
    assert coef["method"].iloc[0] == "wald (observed information)"
    assert (
        coef["target"].iloc[0] == "coefficients of the linear interval-regression model"
    )
    points = np.array([[0.5, 1.5], [-1.0, 0.0]])
    pred = reg.conf_int("predict", points, X=X, y=y, level=0.9)
    d = np.column_stack([np.ones(2), points])
    se = 2.0 * np.sqrt(np.einsum("ij,jk,ik->i", d, inv, d))
    np.testing.assert_allclose(pred["estimate"], d @ beta, rtol=1e-6)
    np.testing.assert_allclose(pred["se"], se, rtol=1e-4)
    np.testing.assert_allclose(pred["upper"], d @ beta + z * se, rtol=1e-4)
    assert pred["point"].tolist() == [(0.5, 1.5), (-1.0, 0.0)]
    assert pred["target"].iloc[0] == "f(x) of the linear model"
    assert pred["method"].iloc[0] == "wald (observed information)"
    # feature rows as a DataFrame give the same intervals
    frame = pd.DataFrame(points, columns=["a", "b"])
    again = _regressor(sigma=2.0, init="constant").fit(
        pd.DataFrame(X, columns=["a", "b"]), y
    )
    got = again.conf_int(
        "predict", frame, X=pd.DataFrame(X, columns=["a", "b"]), y=y, level=0.9
    )
    np.testing.assert_allclose(got["se"], se, rtol=1e-4)
    assert got["point"].tolist() == [(0.5, 1.5), (-1.0, 0.0)]


def test_regression_wald_without_an_intercept_is_ols_through_the_origin():
    from sklearn.linear_model import LinearRegression

    X, y = _exact_regression(offset=3.0)
    y = y - 1.0
    reg = _regressor(
        estimator=LinearRegression(fit_intercept=False), init="constant"
    ).fit(X, y)
    beta, rss = np.linalg.lstsq(X, y, rcond=None)[:2]
    inv = np.linalg.inv(X.T @ X)
    sigma2 = rss[0] / 60
    coef = reg.conf_int("coef", X=X, y=y)
    assert coef["point"].tolist() == [0, 1]
    np.testing.assert_allclose(coef["estimate"], beta, rtol=1e-6)
    np.testing.assert_allclose(coef["se"], np.sqrt(sigma2 * np.diag(inv)), rtol=1e-3)
    pred = reg.conf_int("predict", [[3.0, 2.0]], X=X, y=y)
    d = np.array([3.0, 2.0])
    np.testing.assert_allclose(pred["se"], [np.sqrt(sigma2 * d @ inv @ d)], rtol=1e-3)


def test_regression_coefficient_names_and_refusals():
    X, y = _exact_regression()
    frame = pd.DataFrame(X, columns=["a", "b"])
    reg = _regressor(init="constant").fit(X, y)
    # fitted on an array: the names of the X given here, else indices
    assert reg.conf_int("coef", X=frame, y=y)["point"].tolist() == [
        "intercept",
        "a",
        "b",
    ]
    assert reg.conf_int("coef", X=X, y=y)["point"].tolist() == ["intercept", 0, 1]
    numbered = pd.DataFrame(X, columns=[0, 1])
    assert reg.conf_int("coef", X=numbered, y=y)["point"].tolist() == [
        "intercept",
        0,
        1,
    ]
    wide = pd.DataFrame(np.c_[X, X[:, :1]], columns=["a", "b", "c"])
    names, values, has_b = reg._ci_coefficients(wide)
    assert names == ["intercept", 0, 1] and has_b
    np.testing.assert_allclose(
        values, np.r_[reg.estimator_.intercept_, reg.estimator_.coef_]
    )
    with pytest.raises(
        ValueError,
        match=re.escape(
            "conf_int('predict') of IterativeIntervalRegressor needs X=, the "
            "features given to fit (the model is refitted or its information "
            "computed on them), with y=, the interval responses given to fit."
        ),
    ):
        reg.conf_int("predict", X[:1], y=y)
    with pytest.raises(ValueError, match=re.escape("pass y=, the release")):
        reg.conf_int("predict", X[:1], X=X)
    with pytest.raises(
        ValueError,
        match=re.escape("points= is required: the feature rows to predict at."),
    ):
        reg.conf_int("predict", X=X, y=y)
    with pytest.raises(
        ValueError,
        match=re.escape(
            "IterativeIntervalRegressor computes 'coef' intervals with method in "
            "['bootstrap', 'wald'] (or 'auto'); got method='profile'."
        ),
    ):
        reg.conf_int("coef", X=X, y=y, method="profile")
    with pytest.raises(
        ValueError,
        match=re.escape(
            "X must have one row per interval of y; got (59, 2) and 60 intervals."
        ),
    ):
        reg.conf_int("coef", X=X[1:], y=y)
    assert reg._ci_interval_kinds() == ["coef", "predict"]
    assert reg._ci_kept_release() is None


def test_regression_wald_refusals_name_the_reason():
    from sklearn.linear_model import Ridge

    X, y = _exact_regression()
    ridge = _regressor(estimator=Ridge(alpha=1.0), max_iter=5, tol=None).fit(X, y)
    with pytest.raises(
        ValueError,
        match=re.escape(
            "method='wald' needs a LinearRegression base regressor; use "
            "method='bootstrap'."
        ),
    ):
        ridge.conf_int("predict", X[:1], X=X, y=y, method="wald")
    logistic = _regressor(noise="logistic", init="constant", max_iter=5, tol=None).fit(
        X, y
    )
    with pytest.raises(
        ValueError,
        match=re.escape(
            "method='wald' is the interval MLE's, which the iteration reaches with "
            "noise='gaussian' only; with noise='logistic' its fixed point is not "
            "the MLE. Use method='bootstrap'."
        ),
    ):
        logistic.conf_int("coef", X=X, y=y, method="wald")
    projected = _regressor(init="constant").fit(X, y)
    projected.solver_ = "projection"
    with pytest.raises(
        ValueError,
        match=re.escape(
            "method='wald' is the interval MLE's; this fit is the least-squares "
            "projection init='auto' chose (solver_='projection'), whose variance "
            "it does not give. Use method='bootstrap', or fit with "
            "init='constant' for the MLE."
        ),
    ):
        projected.conf_int("coef", X=X, y=y, method="wald")


def test_regression_pairs_bootstrap_refits_clones():
    X, y = _exact_regression(n=30)
    reg = _regressor(init="constant", max_iter=5, tol=None).fit(X, y)
    template = _regressor(init="constant", max_iter=5, tol=None)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        reps = bootstrap_replicates(
            template,
            X,
            lambda e: np.r_[e.estimator_.intercept_, e.estimator_.coef_],
            y=y,
            n_resamples=4,
            random_state=0,
        )
        coef = reg.conf_int(
            "coef",
            X=X,
            y=y,
            method="bootstrap",
            n_resamples=4,
            random_state=0,
            level=[0.8, 0.9],
        )
    lower, upper = percentile_interval(reps, 0.8)
    np.testing.assert_allclose(coef["lower"].iloc[:3], lower)
    np.testing.assert_allclose(coef["upper"].iloc[:3], upper)
    np.testing.assert_allclose(coef["se"].iloc[:3], np.nanstd(reps, axis=0, ddof=1))
    assert coef["method"].iloc[0] == "bootstrap-percentile (pairs)"
    assert coef["target"].iloc[0] == (
        "E over resamples of the fitted coefficients (the learner's bias not covered)"
    )
    points = X[:2]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pred = reg.conf_int(
            "predict",
            points,
            X=X,
            y=y,
            method="bootstrap",
            n_resamples=4,
            random_state=0,
        )
        reps = bootstrap_replicates(
            template, X, lambda e: e.predict(points), y=y, n_resamples=4, random_state=0
        )
    np.testing.assert_allclose(pred["lower"], percentile_interval(reps, 0.95)[0])
    assert pred["target"].iloc[0] == (
        "E over resamples of the fitted f(x) (the learner's bias not covered)"
    )
    # without an intercept the coefficients alone are resampled
    from sklearn.linear_model import LinearRegression

    no_b = _regressor(
        estimator=LinearRegression(fit_intercept=False),
        init="constant",
        max_iter=5,
        tol=None,
    ).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = no_b.conf_int(
            "coef", X=X, y=y, method="bootstrap", n_resamples=4, random_state=0
        )
    assert got["point"].tolist() == [0, 1]
    assert got["lower"].notna().all()


def test_a_privatizing_regressor_resamples_without_its_privatizer():
    from skprivate import IntervalCaseI

    X, y = _exact_regression(n=30)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        reg = _regressor(
            privatizer=IntervalCaseI(scale=2.0, random_state=0), init="constant"
        ).fit(X, y)
    template = reg._ci_resampling_template()
    assert template.privatizer is None and template.init == "constant"
    assert reg.privatizer is not None
    kept = reg._ci_kept_release()
    assert list(kept) == ["y"] and kept["y"] is reg.released_
    with pytest.raises(
        ValueError,
        match=re.escape("with no y: the intervals it released are kept (released_)."),
    ):
        reg.conf_int("coef")


# six cells on (0, 1); a report lands near its value's cell
M6 = 6
MIDS6 = (np.arange(M6) + 0.5) / M6
_BLUR = np.exp(-np.abs(np.subtract.outer(np.arange(M6), np.arange(M6))) / 1.5)
A6 = _BLUR / _BLUR.sum(axis=0)
FEATURES6 = A6.T @ np.column_stack([MIDS6, MIDS6**2])
# eight respondents with two reports each (report bins)
BINS6 = np.array([[0, 1], [1, 1], [2, 3], [5, 4], [1, 0], [2, 2], [3, 1], [4, 5]])


def _tilt6(within=0.0):
    mod = _grid_module()
    reports = MIDS6[BINS6]
    unit = np.column_stack([reports.mean(axis=1), (reports**2).mean(axis=1)])
    untilted = np.array([0.05, 0.1, 0.2, 0.3, 0.25, 0.1])
    cov = np.cov(unit, rowvar=False) / len(unit)
    return mod.MomentTilt(FEATURES6, unit, untilted, cov, within)


def test_tilted_covariance_chains_the_joint_covariance_of_reports_and_moments():
    mod = _grid_module()
    tilt = _tilt6()
    w_t, lam = tilt.tilted()
    assert lam is not None and np.all(lam != 0)
    np.testing.assert_allclose(FEATURES6.T @ w_t, tilt.target(), atol=1e-9)
    S = mod.smoothing_matrix(M6, 1.0)
    cov = mod.ems_covariance(A6, w_t, S, BINS6, tilt)
    # the joint covariance of (t, mu_hat): each respondent's bin shares and
    # moment contributions, averaged over the eight respondents
    n, v = BINS6.shape
    shares = np.array([np.bincount(r, minlength=M6) / v for r in BINS6])
    joint = np.cov(np.c_[shares, tilt.unit_moments], rowvar=False, ddof=0) / n
    t = shares.mean(axis=0)
    G = mod.ems_gradient(A6, tilt.untilted, S, t)
    J_w, J_mu = tilt.jacobians()
    H = np.c_[J_w @ G, J_mu]
    np.testing.assert_allclose(cov, H @ joint @ H.T, atol=1e-14)
    # one report per respondent, as a 1-d array
    one = mod.MomentTilt(
        FEATURES6,
        np.column_stack([MIDS6[BINS6[:, 0]], MIDS6[BINS6[:, 0]] ** 2]),
        tilt.untilted,
        tilt.moment_cov,
        0.0,
    )
    got = mod.ems_covariance(A6, w_t, S, BINS6[:, 0], one)
    shares = np.eye(M6)[BINS6[:, 0]]
    joint = np.cov(np.c_[shares, one.unit_moments], rowvar=False, ddof=0) / n
    G = mod.ems_gradient(A6, one.untilted, S, shares.mean(axis=0))
    J_w, J_mu = one.jacobians()
    H = np.c_[J_w @ G, J_mu]
    np.testing.assert_allclose(got, H @ joint @ H.T, atol=1e-14)


def test_tilt_jacobians_match_finite_differences_within_an_ellipse():
    tilt = _tilt6(within=0.5)
    base, lam = tilt.tilted()
    assert lam is not None and np.all(lam != 0)
    J_w, J_mu = tilt.jacobians()
    w = tilt.untilted / tilt.untilted.sum()
    dw = np.array([0.3, -0.2, 0.1, -0.4, 0.5, -0.3]) * w
    dw -= w * dw.sum()
    step = 1e-6
    moved = (
        _grid_module()
        .MomentTilt(FEATURES6, tilt.unit_moments, w + step * dw, tilt.moment_cov, 0.5)
        .tilted()[0]
    )
    np.testing.assert_allclose((moved - base) / step, J_w @ dw, atol=1e-5)
    dmu = np.array([1e-2, -2e-2])
    shifted = (
        _grid_module()
        .MomentTilt(FEATURES6, tilt.unit_moments + step * dmu, w, tilt.moment_cov, 0.5)
        .tilted()[0]
    )
    np.testing.assert_allclose((shifted - base) / step, J_mu @ dmu, atol=1e-5)
    # an untilted fit given unnormalized: the same tilt
    scaled = _grid_module().MomentTilt(
        FEATURES6, tilt.unit_moments, 3 * w, tilt.moment_cov, 0.5
    )
    np.testing.assert_allclose(scaled.tilted()[0], base, atol=1e-12)
    np.testing.assert_allclose(scaled.jacobians()[0], J_w, atol=1e-9)
    # far inside the ellipse nothing moves: identity and zero
    calm = _grid_module().MomentTilt(
        FEATURES6, tilt.unit_moments, w, tilt.moment_cov, 1e6
    )
    J_w, J_mu = calm.jacobians()
    np.testing.assert_array_equal(J_w, np.eye(M6))
    np.testing.assert_array_equal(J_mu, np.zeros((M6, 2)))
    assert (
        _grid_module()
        .MomentTilt(FEATURES6, tilt.unit_moments, w, tilt.moment_cov)
        .within
        == 2.0
    )


def test_bias_correction_through_the_tilt_matches_finite_differences():
    mod = _grid_module()
    tilt = _tilt6()
    theta = tilt.tilted()[0]
    S = mod.smoothing_matrix(M6, 1.0)

    def refit(freq):
        from skprivate._grid_density._ems import ems_cell_probabilities

        return ems_cell_probabilities(
            A6, freq, 1.0, max_iter=20000, tol=1e-13, warn=False
        )[0]

    theta_bc, M = mod.ems_bias_correction(A6, theta, S, refit, tilt)

    def corrected(th):
        untilted = refit(A6 @ th)
        untilted = untilted / untilted.sum()
        stage = mod.MomentTilt(
            FEATURES6, (FEATURES6.T @ th)[None, :], untilted, tilt.moment_cov, 0.0
        )
        return 2 * th - stage.tilted()[0]

    np.testing.assert_allclose(theta_bc, corrected(theta), atol=1e-9)
    d = np.array([0.2, -0.1, 0.3, -0.2, -0.3, 0.1]) * theta
    d -= theta * d.sum()
    step = 1e-5
    numeric = (corrected(theta + step * d) - corrected(theta - step * d)) / (2 * step)
    np.testing.assert_allclose(M @ d, numeric, atol=1e-5)


def test_conf_int_checks_each_level_as_given():
    est = _Kinds().fit()
    with pytest.raises(
        ValueError, match=re.escape("level must be a number in (0, 1); got True.")
    ):
        est.conf_int("mean", level=[0.5, True])


def test_bootstrap_replicates_use_the_requested_workers():
    import threading

    from joblib import parallel_config

    x = np.arange(8.0)[:, None]
    main = threading.get_ident()

    def where(e):
        return [float(threading.get_ident() == main), e.mean()]

    with parallel_config(backend="threading"):
        alone = bootstrap_replicates(
            _Empirical(), x, where, n_resamples=6, random_state=0, n_jobs=None
        )
        shared = bootstrap_replicates(
            _Empirical(), x, where, n_resamples=6, random_state=0, n_jobs=2
        )
    assert alone[:, 0].tolist() == [1.0] * 6
    assert shared[:, 0].tolist() == [0.0] * 6
    np.testing.assert_array_equal(alone[:, 1], shared[:, 1])
