"""Shared confidence-interval behaviour that mutation testing found unchecked.

Each test pins a documented behaviour of the one interval interface
(``skprivate/_uncertainty.py``) with an exact small case: the normal,
percentile and subsampling formulas, the level honoured, the seeding of
the resampled rows, the refusals and their messages (parameter named, no
data value shown), and the rows the reports read (``conf_int_rows``).
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
    check_levels,
    check_points,
    interval_frame,
    normal_frame,
    normal_interval,
    percentile_interval,
    probabilities_of,
    replicate_statistics,
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
    assert frame["point"].tolist() == [1.0, 2.0]
    assert frame["level"].tolist() == [0.95, 0.95]
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
    # without replacement: sorted distinct rows, numpy's uniform subset
    rng = np.random.default_rng(np.random.SeedSequence(5))
    sub = resample_indices(10, 2, 5, size=4, replace=False)
    for idx in sub:
        want = np.sort(rng.choice(10, 4, replace=False, shuffle=False))
        np.testing.assert_array_equal(idx, want)
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


class _Batched(_Empirical):
    """Refits all draws at once: the statistic of each draw, plus 1000.

    The offset tells a batched answer from a one-by-one refit; ``decline``
    makes the hook answer None, which hands the draws back to the caller.
    """

    def __init__(self, min_rows=1, decline=False):
        super().__init__(min_rows)
        self.decline = decline

    def _resampled_statistics(self, X, indices, statistic):
        self.seen_ = (X, [i.copy() for i in indices])
        if self.decline:
            return None
        return [
            np.asarray(statistic(_Empirical().fit(X[i])), dtype=float) + 1000.0
            for i in indices
        ]


def test_bootstrap_replicates_take_an_estimators_batched_refits():
    x = np.arange(10.0)[:, None] ** 2
    idx = resample_indices(10, 4, 7)
    one_by_one = [x[i, 0].mean() for i in idx]
    template = _Batched()
    reps = bootstrap_replicates(
        template, x, lambda e: e.mean(), n_resamples=4, random_state=7
    )
    # the hook's values are used as they are, one per draw, for the data and
    # the draws given, with the caller's statistic
    np.testing.assert_allclose(reps[:, 0], np.add(one_by_one, 1000.0), rtol=1e-14)
    seen_x, seen_idx = template.seen_
    assert seen_x is x
    for a, b in zip(seen_idx, idx):
        np.testing.assert_array_equal(a, b)
    # declining (None) refits one by one
    declined = _Batched(decline=True)
    reps = bootstrap_replicates(
        declined, x, lambda e: e.mean(), n_resamples=4, random_state=7
    )
    np.testing.assert_allclose(reps[:, 0], one_by_one, rtol=1e-14)
    assert hasattr(declined, "seen_")
    # with a response the hook is not asked (it refits from X alone)
    with_y = _Batched()
    reps = bootstrap_replicates(
        with_y, x, lambda e: e.mean(), y=np.ones(10), n_resamples=4, random_state=7
    )
    np.testing.assert_allclose(reps[:, 0], one_by_one, rtol=1e-14)
    assert not hasattr(with_y, "seen_")


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
    # the message names the type given, never the value (data passed as
    # kind by mistake)
    with pytest.raises(ValueError) as info:
        est.conf_int("not a name")
    assert str(info.value) == (
        "kind must be a name; got a str that is not a name (such as 'mean')."
    )
    with pytest.raises(ValueError) as info:
        est.conf_int(3)
    assert str(info.value) == (
        "kind must be a name; got an object of type int, not a str such as "
        "'mean' (data goes in X=)."
    )
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
    with pytest.raises(ValueError) as info:
        values_of(None)
    assert str(info.value) == "points= is required: the values at which to evaluate."
    for bad in ([1.0, np.inf], [np.nan], [-np.inf]):
        with pytest.raises(
            ValueError, match=re.escape("points must be finite numbers; got ")
        ):
            values_of(bad)


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


# -- conf_int_rows: the rows the reports (CLI estimate, survey status) read ----


class _Answers:
    """Answers ``conf_int`` with a fixed frame (or error) and records the call."""

    def __init__(self, answer, privatizer_=None):
        self.answer = answer
        self.privatizer_ = privatizer_
        self.calls = []

    def conf_int(self, *args, **kwargs):
        self.calls.append((args, kwargs))
        if isinstance(self.answer, BaseException):
            raise self.answer
        return self.answer


def _three_rows():
    # every column distinct per row, so each value is traced to its column
    return interval_frame(
        "quantile",
        [0.25, 0.5, 0.75],
        [1.0, 2.0, 3.0],
        [0.5, 1.5, 2.5],
        [1.5, 2.5, 3.5],
        0.9,
        ["m1", "m2", "m3"],
        ["t1", "t2", "t3"],
        se=[0.1, 0.2, 0.3],
    )


def test_conf_int_rows_are_lower_upper_method_centre_target_per_point():
    from skprivate._uncertainty import conf_int_rows

    est = _Answers(_three_rows())
    X = np.arange(4.0)[:, None]
    rows = conf_int_rows(est, "quantile", [0.25, 0.5, 0.75], 0.9, X=X)
    assert rows == [
        (0.5, 1.5, "m1", 1.0, "t1"),
        (1.5, 2.5, "m2", 2.0, "t2"),
        (2.5, 3.5, "m3", 3.0, "t3"),
    ]
    assert all(isinstance(row, tuple) for row in rows)
    # one call, with the kind, points and level given, the data as X and a
    # fixed seed (a report is reproducible)
    ((args, kwargs),) = est.calls
    assert args == ("quantile", [0.25, 0.5, 0.75])
    assert kwargs.keys() == {"level", "X", "random_state"}
    assert kwargs["level"] == 0.9 and kwargs["X"] is X
    assert kwargs["random_state"] == 0 and type(kwargs["random_state"]) is int
    # without data, X=None is passed on
    est = _Answers(_three_rows())
    conf_int_rows(est, "mean", None, 0.8)
    assert est.calls == [(("mean", None), {"level": 0.8, "X": None, "random_state": 0})]


def test_conf_int_rows_of_a_privatizing_estimator_pass_no_data():
    from skprivate._uncertainty import conf_int_rows

    est = _Answers(_three_rows(), privatizer_=object())
    conf_int_rows(est, "quantile", [0.25, 0.5, 0.75], 0.9, X=np.ones((3, 1)))
    assert est.calls[0][1]["X"] is None
    # an estimator without the attribute at all is read as not privatizing
    bare = _Answers(_three_rows())
    del bare.privatizer_
    X = np.ones((3, 1))
    conf_int_rows(bare, "quantile", [0.5], 0.9, X=X)
    assert bare.calls[0][1]["X"] is X
    # the real interface: a privatizing estimator refuses X, so the rows
    # read its kept release instead of the reason of that refusal
    kinds = _Kinds().fit()
    kinds.privatizer_, kinds.released_ = object(), np.arange(3.0)
    assert conf_int_rows(kinds, "mean", None, 0.7, X=np.ones(3)) == [
        (-0.7, 0.7, "m", 0.0, "t")
    ]


def test_conf_int_rows_reproduce_the_bootstrap_at_seed_zero():
    from skprivate._uncertainty import conf_int_rows

    x = np.arange(12.0)[:, None] ** 1.5
    est = _Empirical().fit(x)
    rows = conf_int_rows(est, "cdf", [3.0, 20.0], 0.8, X=x)
    ci = est.conf_int("cdf", [3.0, 20.0], level=0.8, X=x, random_state=0)
    assert rows == list(
        zip(ci["lower"], ci["upper"], ci["method"], ci["estimate"], ci["target"])
    )
    other = est.conf_int("cdf", [3.0, 20.0], level=0.8, X=x, random_state=1)
    assert [r[:2] for r in rows] != list(zip(other["lower"], other["upper"]))
    wider = conf_int_rows(est, "cdf", [3.0, 20.0], 0.95, X=x)
    assert wider[0][0] <= rows[0][0] and wider[0][1] >= rows[0][1]
    assert wider[1][0] < rows[1][0]


@pytest.mark.parametrize(
    "error",
    [
        ValueError("no interval here\nsecond line"),
        TypeError("not a number\nmore"),
        np.linalg.LinAlgError("singular matrix"),
    ],
)
def test_conf_int_rows_give_the_reason_when_there_is_no_interval(error):
    from skprivate._uncertainty import conf_int_rows

    first = str(error).splitlines()[0]
    reason = f"unavailable: {first}"
    rows = conf_int_rows(_Answers(error), "quantile", [0.1, 0.5, 0.9], 0.9)
    assert len(rows) == 3
    for row in rows:
        assert isinstance(row, tuple) and len(row) == 5
        assert np.isnan(row[0]) and np.isnan(row[1]) and np.isnan(row[3])
        assert row[2] == reason and row[4] == ""
    # no points: one row
    (row,) = conf_int_rows(_Answers(error), "mean", None, 0.9)
    assert row[2] == reason and np.isnan(row[0])
    assert conf_int_rows(_Answers(error), "quantile", np.array([0.5]), 0.9)[0][2] == (
        reason
    )


def test_conf_int_rows_let_other_errors_through():
    from skprivate._uncertainty import conf_int_rows

    with pytest.raises(RuntimeError, match="^broken$"):
        conf_int_rows(_Answers(RuntimeError("broken")), "mean", None, 0.9)


def test_conf_int_rows_of_a_real_refusal_name_the_kind():
    from skprivate._uncertainty import conf_int_rows

    est = _Kinds().fit()
    (row,) = conf_int_rows(est, "pdf", None, 0.9)
    assert row[2] == (
        "unavailable: _Kinds has no confidence intervals for kind='pdf'; "
        "available: ['b_kind', 'mean']."
    )
    x = np.arange(5.0)[:, None]
    rows = conf_int_rows(_Empirical().fit(x), "cdf", [1.0, 2.0], 0.9)
    assert [r[2] for r in rows] == [
        "unavailable: 'cdf' intervals by this method are computed from the "
        "privatized records: pass X=, the release the estimator was fitted on "
        "(an estimator fitted with privatizer= keeps its own release and takes "
        "none)."
    ] * 2


# -- numbers as a database returns them; array-likes; kept releases ------------


def test_decimal_numbers_give_float_intervals():
    from decimal import Decimal

    z = stats.norm.ppf(0.95)
    lower, upper = normal_interval([Decimal("1.5")], [Decimal("0.5")], 0.9)
    assert lower.dtype == upper.dtype == np.float64
    assert lower[0] == pytest.approx(1.5 - 0.5 * z) and upper[0] == pytest.approx(
        1.5 + 0.5 * z
    )
    frame = interval_frame(
        "mean",
        None,
        [Decimal("2.5")],
        [Decimal("1")],
        [Decimal("4")],
        0.9,
        "m",
        "t",
        se=[Decimal("0.5")],
    )
    for column in ("estimate", "se", "lower", "upper", "level"):
        assert frame[column].dtype == np.float64, column
    assert frame[["estimate", "se", "lower", "upper"]].iloc[0].tolist() == [
        2.5,
        0.5,
        1.0,
        4.0,
    ]
    q = probabilities_of([Decimal("0.25"), Decimal("0.5")])
    assert q.dtype == np.float64 and q.tolist() == [0.25, 0.5]
    x = values_of([Decimal("1.5")])
    assert x.dtype == np.float64 and x.tolist() == [1.5]
    lower, upper = subsampling_interval(
        [Decimal("10")], np.arange(0.0, 21.0)[:, None], 16, 4, 0.5, 0.9
    )
    assert (lower[0], upper[0]) == pytest.approx((10.0 - 18.0 / 4.0, 14.5))


def test_a_statistic_that_is_not_numbers_counts_as_a_failed_fit():
    x = np.arange(6.0)[:, None]

    def stat(e):
        # a replicate without row 5 has no defined value here
        return [e.mean()] if 5.0 in e.values_ else ["undefined"]

    idx = resample_indices(6, 8, 3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        reps = bootstrap_replicates(
            _Empirical(), x, stat, n_resamples=8, random_state=3
        )
    held = [5 in i for i in idx]
    assert 0 < sum(held) < 8
    for row, i, h in zip(reps[:, 0], idx, held, strict=True):
        assert row == pytest.approx(x[i, 0].mean()) if h else np.isnan(row)


class _Rows(BaseEstimator):
    """Keeps the row labels and the type of the data it was fitted on."""

    def fit(self, X, y=None):
        self.frame_ = isinstance(X, pd.DataFrame)
        self.labels_ = list(X.index) if self.frame_ else list(np.ravel(X))
        return self


class _Column:
    """An array-like with a shape and the numpy array protocol, but no len."""

    def __init__(self, values):
        self.values = np.asarray(values, dtype=float)
        self.shape = self.values.shape

    def __array__(self, dtype=None, copy=None):
        return self.values if dtype is None else self.values.astype(dtype)


def test_resampled_rows_keep_the_type_of_the_data():
    frame = pd.DataFrame({"v": np.arange(5.0)}, index=[50, 40, 30, 20, 10])
    idx = resample_indices(5, 3, 1)
    reps = bootstrap_replicates(
        _Rows(), frame, lambda e: [e.frame_, *e.labels_], n_resamples=3, random_state=1
    )
    for row, i in zip(reps, idx, strict=True):
        assert row[0] == 1.0
        assert row[1:].tolist() == frame.index[i].tolist()
    # a list of rows is counted by len, an array-like by its shape
    listed = bootstrap_replicates(
        _Rows(),
        [[3.0], [4.0], [5.0], [6.0], [7.0]],
        lambda e: e.labels_,
        n_resamples=3,
        random_state=1,
    )
    for row, i in zip(listed, idx, strict=True):
        assert row.tolist() == (3.0 + i).tolist()
    shaped = bootstrap_replicates(
        _Rows(),
        _Column(np.arange(5.0)),
        lambda e: e.labels_,
        n_resamples=3,
        random_state=1,
    )
    for row, i in zip(shaped, idx, strict=True):
        assert row.tolist() == i.astype(float).tolist()


def test_a_kept_release_stands_only_for_the_names_it_holds():
    est = _Kinds().fit()
    est.privatizer_ = object()
    # nothing kept: the handler reads the estimator's own records
    request = est.conf_int("b_kind")
    assert request.X is None and request.y is None and request.released
    # a kept y as well as X
    est._ci_kept_release = lambda: {"X": "kept X", "y": "kept y"}
    request = est.conf_int("b_kind")
    assert (request.X, request.y) == ("kept X", "kept y")
    # only y kept: X passes through
    est._ci_kept_release = lambda: {"y": "kept y"}
    request = est.conf_int("b_kind", X="features")
    assert (request.X, request.y) == ("features", "kept y")


def test_the_message_of_a_release_that_was_not_kept():
    assert _request(kind="mean", released=True).missing_data_message("y") == (
        "'mean' intervals by this method are computed from the released "
        "records, and this estimator privatized a dask collection itself "
        "(privatizer=), whose release stays lazy and is not kept (computing it "
        "again would release the raw data a second time). Fit it on an "
        "in-memory array, or privatize the data first and fit an estimator "
        "without privatizer= on the release."
    )
    with pytest.raises(ValueError, match=re.escape("whose release stays lazy")):
        _request(released=True).data("X")


def _untemper(y):
    """The MT19937 state word whose tempered output is ``y``."""
    y ^= y >> 18
    y ^= (y << 15) & 0xEFC60000
    r = y
    for _ in range(5):
        r = y ^ ((r << 7) & 0x9D2C5680)
    y = r & 0xFFFFFFFF
    r = y
    for _ in range(3):
        r = y ^ (r >> 11)
    return r & 0xFFFFFFFF


def test_a_random_state_seeds_with_words_up_to_two_to_the_31_minus_two():
    # a RandomState whose next 32-bit output is 2**31 - 2: the first of the
    # four seed words is that largest value of [0, 2**31 - 1)
    key = np.random.RandomState(0).get_state()[1].copy()
    key[623] = _untemper(2**31 - 2)

    def state():
        s = np.random.RandomState()
        s.set_state(("MT19937", key, 623, 0, 0.0))
        return s

    words = state().randint(0, 2**31 - 1, size=4)
    assert words[0] == 2**31 - 2
    rng = np.random.default_rng(np.random.SeedSequence([int(v) for v in words]))
    expected = [rng.integers(0, 9, 9) for _ in range(2)]
    for got, want in zip(resample_indices(9, 2, state()), expected, strict=True):
        np.testing.assert_array_equal(got, want)


def test_points_keep_their_own_types():
    # category labels of mixed types are not turned into one type
    frame = interval_frame("pmf", ["a", 1], [0.5, 0.5], [0, 0], [1, 1], 0.9, "m", "t")
    assert frame["point"].tolist() == ["a", 1]
    assert type(frame["point"].iloc[1]) is int


_FIT_THREADS = []


class _Threaded(_Empirical):
    """Notes the thread of every fit in ``_FIT_THREADS``."""

    def fit(self, x, y=None):
        import threading

        _FIT_THREADS.append(threading.get_ident())
        return super().fit(x, y)


def test_population_bootstrap_uses_the_requested_workers_and_points():
    import threading

    from joblib import parallel_config

    x = np.arange(8.0)[:, None]
    est = _Empirical().fit(x)
    frame = est.conf_int("mean", X=x, n_resamples=3, random_state=0)
    assert frame["quantity"].tolist() == ["mean"]
    q = est.conf_int("quantile", [0.1, 0.9], X=x, n_resamples=3, random_state=0)
    assert q["point"].tolist() == [0.1, 0.9]
    assert q["quantity"].tolist() == ["quantile", "quantile"]
    np.testing.assert_allclose(q["estimate"], est.quantile([0.1, 0.9]))
    threaded = _Threaded().fit(x)
    with parallel_config(backend="threading"):
        for n_jobs, in_main in ((None, True), (2, False)):
            _FIT_THREADS.clear()
            threaded.conf_int("mean", X=x, n_resamples=4, random_state=0, n_jobs=n_jobs)
            main = threading.get_ident()
            assert len(_FIT_THREADS) == 4
            assert [t == main for t in _FIT_THREADS] == [in_main] * 4


def test_subsamples_are_uniform_over_the_subsets():
    # every 2-subset of 5 rows equally likely: 20,000 draws, 10 subsets,
    # chi-square with 9 degrees of freedom
    from itertools import combinations

    from scipy import stats

    draws = resample_indices(5, 20_000, 11, size=2, replace=False)
    pairs = list(combinations(range(5), 2))
    counts = np.zeros(len(pairs))
    for idx in draws:
        counts[pairs.index(tuple(idx.tolist()))] += 1
    assert stats.chisquare(counts).pvalue > 1e-3


# -- the records of the fitted rows and weights, and the checks of level and
# points (the shared machinery of a weighted fit) ------------------------------


def test_empty_levels_and_points_name_their_type():
    for empty, name in (([], "list"), ((), "tuple"), (np.array([]), "ndarray")):
        with pytest.raises(
            ValueError,
            match=re.escape(
                "level must be a number in (0, 1) or a non-empty sequence of "
                f"them; got an empty {name}."
            ),
        ):
            check_levels(empty)
        with pytest.raises(
            ValueError,
            match=re.escape(
                "points is empty: conf_int needs at least one point at which to "
                "evaluate the quantity (or points=None for the kind's default "
                f"points); got {name} with no entries."
            ),
        ):
            check_points(empty)


def test_points_are_counted_by_their_rows_whatever_the_container():
    import scipy.sparse as sp

    # text is one point, even empty; a 0-d array is one point; a sparse
    # matrix (which has no len) is counted by its rows
    for fine in ("", b"", "x", np.array(0.5), sp.csr_matrix(np.ones((2, 2))), 3.0):
        assert check_points(fine) is None
    with pytest.raises(ValueError, match=re.escape("got csr_matrix with no entries")):
        check_points(sp.csr_matrix((0, 2)))
    with pytest.raises(ValueError, match=re.escape("got DataFrame with no entries")):
        check_points(pd.DataFrame({"a": []}))


class _WeightedMean(ConfidenceIntervalMixin, BaseEstimator):
    """The weighted mean of column 0; its interval does not read the weights.

    ``method`` labels the interval rows; ``rows`` is how many it returns.
    """

    def __init__(self, rows=1):
        self.rows = rows

    def fit(self, X, y=None, sample_weight=None):
        data = _dense(X)
        self._ci_forget_fit_data()
        self._ci_remember_fit_data(data, sample_weight)
        w = np.ones(len(data)) if sample_weight is None else sample_weight
        self.mean_ = float(np.average(data[:, 0], weights=np.ravel(w)))
        return self

    def _ci_fit_data_form(self, X):
        return _dense(X)

    def _ci_offers_kind(self, kind):
        return kind == "mean"

    def _conf_int_mean(self, request):
        return interval_frame(
            "mean",
            np.arange(self.rows),
            np.full(self.rows, self.mean_),
            np.full(self.rows, self.mean_ - 1),
            np.full(self.rows, self.mean_ + 1),
            request.level,
            [f"unweighted {i}" for i in range(self.rows)],
            "t",
        )


def _dense(X):
    import scipy.sparse as sp

    return X.toarray() if sp.issparse(X) else np.asarray(X, dtype=float)


def test_an_interval_that_ignores_the_weights_of_a_weighted_fit_is_refused():
    X = np.arange(12.0).reshape(6, 2)
    w = np.array([1.0, 2.0, 1.0, 3.0, 1.0, 1.0])
    # the message names the method of the interval's first row, or the
    # method asked for when the handler returned no row
    for rows, label in ((2, "unweighted 0"), (0, "auto")):
        est = _WeightedMean(rows=rows).fit(X, sample_weight=w)
        with pytest.raises(
            ValueError,
            match=re.escape(
                "_WeightedMean was fitted with sample_weight, and its 'mean' "
                f"interval by method {label!r} does not use the weights (it "
                "would be computed as if the rows were unweighted): intervals "
                "of a weighted fit are not offered for that method. Use a "
                "resampling method that refits with the rows' weights "
                "(method='bootstrap' where offered), or fit without "
                "sample_weight."
            ),
        ):
            est.conf_int("mean", X=X)
    # weights equal on every row are the unweighted fit: no refusal
    est = _WeightedMean(rows=2).fit(X, sample_weight=np.full(6, 2.0))
    assert est.conf_int("mean", X=X)["method"].tolist() == [
        "unweighted 0",
        "unweighted 1",
    ]


def test_fit_records_column_weights_and_refuses_a_wrong_count():
    X = np.arange(12.0).reshape(6, 2)
    w = np.array([[1.0], [2.0], [1.0], [3.0], [1.0], [1.0]])
    est = _WeightedMean().fit(X, sample_weight=w)
    np.testing.assert_array_equal(est._ci_fit_record.sample_weight, w.ravel())
    with pytest.raises(
        ValueError,
        match=re.escape(
            "sample_weight must have one weight per row (6); got shape (5,)."
        ),
    ):
        _WeightedMean().fit(X, sample_weight=np.ones(5))


def test_x_other_than_the_fitted_rows_is_refused_with_the_whole_reason():
    X = np.arange(12.0).reshape(6, 2)
    est = _WeightedMean().fit(X)
    tail = (
        "The interval is centred on the fitted estimate, so an X other than "
        "the fitted data would give an interval for another estimate. To bound "
        "an estimate of other data, fit a new estimator on them."
    )
    for other, differs in (
        (X[:5], "X has 5 rows, and the fit had 6"),
        (
            X[::-1],
            "X has the fit's 6 rows in number but other values, or the rows "
            "in another order",
        ),
    ):
        with pytest.raises(
            ValueError,
            match=re.escape(
                "X must be the data passed to _WeightedMean.fit (the rows, in the "
                f"same order): {differs}. {tail}"
            ),
        ):
            est.conf_int("mean", X=other)
    assert est.conf_int("mean", X=X)["estimate"].tolist() == [est.mean_]
    # after the record is dropped nothing is checked
    est._ci_forget_fit_data()
    assert est.conf_int("mean", X=X[:5])["estimate"].tolist() == [est.mean_]


def test_the_default_fit_data_form_is_the_array_of_x():
    class _Plain(_WeightedMean):
        _ci_fit_data_form = ConfidenceIntervalMixin._ci_fit_data_form

    X = np.arange(12.0).reshape(6, 2)
    est = _Plain().fit(X)
    assert est.conf_int("mean", X=X.tolist())["estimate"].tolist() == [est.mean_]
    with pytest.raises(ValueError, match="other values, or the rows in another"):
        est.conf_int("mean", X=X[::-1].tolist())


@pytest.mark.parametrize("container", ["list", "sparse"])
def test_replicate_weights_are_counted_against_the_rows_of_any_container(container):
    import scipy.sparse as sp

    X = np.arange(12.0).reshape(6, 2)
    data = X.tolist() if container == "list" else sp.csr_matrix(X)
    w = np.array([1.0, 2.0, 1.0, 3.0, 1.0, 1.0])
    draws = [np.array([0, 1, 3]), np.array([2, 3, 3, 5])]
    reps = replicate_statistics(
        _WeightedMean(), data, lambda est: est.mean_, draws, sample_weight=w
    )
    want = [np.average(X[idx, 0], weights=w[idx]) for idx in draws]
    np.testing.assert_allclose(reps[:, 0], want)
    with pytest.raises(
        ValueError,
        match=re.escape(
            "sample_weight must have one weight per row of X (6); got shape (5,)."
        ),
    ):
        replicate_statistics(
            _WeightedMean(), data, lambda est: est.mean_, draws, sample_weight=w[:5]
        )


def test_one_row_of_positive_weight_is_the_unweighted_fit_of_that_row():
    X = np.arange(12.0).reshape(6, 2)
    est = _WeightedMean().fit(X, sample_weight=[0.0, 0.0, 3.0, 0.0, 0.0, 0.0])
    # the rows left all weigh the same: no weights, so no refusal
    assert est.conf_int("mean", X=X)["estimate"].tolist() == [X[2, 0]]


@pytest.mark.parametrize("read", [values_of, probabilities_of])
def test_points_that_are_no_numbers_are_named_points(read):
    with pytest.raises(TypeError) as info:
        read([0.5, "SECRET"])
    assert str(info.value) == (
        "points must be numeric; entry (1,) is a str, not a number."
    )


@pytest.mark.parametrize(
    ("points", "what", "entry"),
    [([1.0, np.nan], "NaN", 1), ([[2.0], [np.inf]], "an infinite value", 1)],
)
def test_values_that_are_not_finite_are_named_by_kind_and_entry(points, what, entry):
    with pytest.raises(ValueError) as info:
        values_of(points)
    assert str(info.value) == (
        f"points must be finite numbers; got {what} at entry {entry} (in flat order)."
    )


def test_a_scalar_given_as_the_fit_data_is_named_by_its_type():
    from skprivate import IterativeIntervalRegressor

    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 2))
    y = X @ [1.0, 1.0] + rng.normal(size=40)
    est = IterativeIntervalRegressor().fit(X, np.column_stack([y - 0.5, y + 0.5]))
    with pytest.raises(ValueError) as info:
        est.conf_int("predict", X[:2], X=7.5)
    assert str(info.value) == (
        "X must be the data passed to IterativeIntervalRegressor.fit, an array "
        "of rows; got a scalar of type float."
    )
