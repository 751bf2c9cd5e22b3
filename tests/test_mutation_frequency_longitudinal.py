"""The longitudinal channel's sampler and estimator against their stated laws.

The two-stage sampler draws from integer uniforms only (the permanent
answer's coins or category, then each wave's).  A stub generator walks every
path of those draws, the coin range cut at the thresholds of the stage that
draws it, which gives the exact joint law of the waves as fractions; the
tests check it against the composed law the channel states (its table,
``p*``, ``q*``, the covariance of two waves) and the privacy claims.  The
estimator is checked on small report tables by hand, and its refusals by
their whole messages.  ``benchmarks/_mutation_specs_frequency.py`` lists
the mutants of ``skprivate/frequency/_longitudinal.py`` these tests were
checked against.
"""

import math
import re
from collections import defaultdict
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest

from skprivate.frequency import (
    FrequencyOracle,
    LongitudinalFrequencyEstimator,
    LongitudinalOracle,
)
from skprivate.frequency._coins import COIN_SCALE, MIN_EPSILON
from skprivate.frequency._longitudinal import (
    LongitudinalChannel,
    _log,
    _wave_estimates,
)


def _exact(message):
    return "^" + re.escape(message) + "$"


class PathGenerator:
    """A generator stub returning the draws of one path of choices.

    Coin calls (range ``[0, COIN_SCALE)``) take their cuts from ``cuts``,
    one list per coin call in order; one value stands for each run between
    cuts, weighted by its length.  Other ranges give any value, weighted
    equally.  A real generator first checks the arguments.
    """

    def __init__(self, cuts, path, n):
        self.cuts = list(cuts)
        self.path = path
        self.n = n
        self.choices, self.arity = [], []
        self.weight = Fraction(1)
        self.real = np.random.default_rng(0)

    def _choose(self, size):
        i = len(self.choices)
        c = self.path[i] if i < len(self.path) else 0
        self.choices.append(c)
        self.arity.append(size)
        return c

    def integers(self, low, high, size=None, dtype=np.int64):
        like = self.real.integers(low, high, size=size, dtype=dtype)
        assert np.shape(like)[0] == self.n, "one draw per respondent expected"
        out = np.empty(np.shape(like), dtype=like.dtype)
        highs = np.broadcast_to(high, out.shape)
        coin = int(np.max(highs)) == COIN_SCALE and low == 0
        if coin:
            cuts = sorted(set(self.cuts.pop(0)))
            starts, ends = [0, *cuts], [*cuts, COIN_SCALE]
        for idx in np.ndindex(out.shape):
            h = int(highs[idx])
            if coin:
                c = self._choose(len(starts))
                out[idx] = starts[c]
                self.weight *= Fraction(ends[c] - starts[c], COIN_SCALE)
            else:
                out[idx] = low + self._choose(h - low)
                self.weight *= Fraction(1, h - low)
        return out


def _cuts(channel, waves):
    if channel.kind == "krr":
        return [[channel.permanent.keep]] + [[channel.instant.keep]] * waves
    perm = [channel.permanent.own, channel.permanent.other]
    return [perm] + [list(channel.instant_numerators)] * waves


def joint_law(channel, x, waves):
    """``{all waves' report row: probability}`` for category ``x``."""
    law = defaultdict(Fraction)
    path = []
    while True:
        rng = PathGenerator(_cuts(channel, waves), path, 1)
        out = channel.sample(np.array([x], dtype=np.int64), waves, rng)
        assert out.shape == (1, waves * channel.n_outputs)
        assert out.dtype == np.int64
        law[tuple(int(v) for v in out[0])] += rng.weight
        i = len(rng.choices) - 1
        while i >= 0 and rng.choices[i] == rng.arity[i] - 1:
            i -= 1
        if i < 0:
            break
        path = [*rng.choices[:i], rng.choices[i] + 1]
    assert sum(law.values()) == 1
    return dict(law)


def _column(channel, report):
    if channel.kind == "krr":
        return report[0]
    return sum(bit << j for j, bit in enumerate(report))


CHANNELS = [("krr", 3, 1.0, 2.0), ("krr", 2, 2.0, 0.5), ("oue", 2, 1.0, 1.5)]


@pytest.fixture(scope="module", params=CHANNELS, ids=lambda p: "-".join(map(str, p)))
def two_waves(request):
    channel = LongitudinalChannel(*request.param)
    k = channel.n_categories
    return channel, [joint_law(channel, x, 2) for x in range(k)]


def _marginal(law, wave, width):
    out = defaultdict(Fraction)
    for report, p in law.items():
        out[report[wave * width : (wave + 1) * width]] += p
    return dict(out)


def test_each_wave_has_the_composed_law(two_waves):
    channel, laws = two_waves
    k, m = channel.n_categories, channel.n_outputs
    table, _ = channel.full_table([str(j) for j in range(k)])
    for x, law in enumerate(laws):
        for wave in (0, 1):
            marginal = _marginal(law, wave, m)
            assert len(marginal) == table.shape[1]
            for report, p in marginal.items():
                got = math.exp(table[x, _column(channel, report)])
                assert got == pytest.approx(float(p), rel=1e-12)


def test_support_probabilities_are_p_star_and_q_star(two_waves):
    channel, laws = two_waves
    k, m = channel.n_categories, channel.n_outputs
    reports = np.array(sorted(_marginal(laws[0], 0, m)), dtype=np.int64)
    assert channel.support(reports).dtype == bool
    assert channel.support(reports).shape == (len(reports), k)
    for x, law in enumerate(laws):
        marginal = _marginal(law, 0, m)
        for v in range(k):
            hit = sum(
                p
                for r, p in marginal.items()
                if channel.support(np.array([r], dtype=np.int64))[0, v]
            )
            want = channel.p_star if v == x else channel.q_star
            assert float(hit) == pytest.approx(want, rel=1e-14)


def test_covariance_of_two_waves_from_the_joint_law(two_waves):
    channel, laws = two_waves
    k, m = channel.n_categories, channel.n_outputs
    p, q = channel.p_star, channel.q_star

    def cov(law, v):
        both = one = two = Fraction(0)
        for r, pr in law.items():
            s = channel.support(np.array([r[:m], r[m:]], dtype=np.int64))[:, v]
            both += pr * int(s[0] and s[1])
            one += pr * int(s[0])
            two += pr * int(s[1])
        return float(both - one * two)

    own = cov(laws[0], 0)  # the respondent's own category
    other = cov(laws[1], 0)  # another category
    assert own > 0 and other > 0
    f = np.array([0.5, 0.5, *([0.0] * (k - 2))])
    n = 10
    want = (f * own + (1 - f) * other) / (n * (p - q) ** 2)
    got = channel.covariance(f, n)
    np.testing.assert_allclose(got, want, rtol=1e-10)
    var = channel.variance(f, n)
    np.testing.assert_allclose(
        var, (f * p * (1 - p) + (1 - f) * q * (1 - q)) / (n * (p - q) ** 2), rtol=1e-13
    )
    pooled = channel.pooled_variance(f, n, 4)
    np.testing.assert_allclose(pooled, var / 4 + 3 / 4 * got, rtol=1e-13)
    np.testing.assert_allclose(channel.pooled_variance(f, n, 1), var, rtol=1e-15)


def test_two_waves_leak_no_more_than_the_permanent_answer(two_waves):
    channel, laws = two_waves
    worst = max(math.log(a[r] / b[r]) for a in laws for b in laws for r in a if r in b)
    assert worst <= channel.lifetime_epsilon + 1e-12
    one = max(
        math.log(a[r] / b[r])
        for a in (_marginal(x, 0, channel.n_outputs) for x in laws)
        for b in (_marginal(x, 0, channel.n_outputs) for x in laws)
        for r in a
    )
    assert channel.wave_epsilon == pytest.approx(one, rel=1e-12)
    assert channel.lifetime_epsilon == channel.permanent.realised_epsilon


def _loss_distribution(p0, p1):
    mass = defaultdict(lambda: [0.0, 0.0])
    for a, b in zip(p0, p1):
        key = round(math.log(a) - math.log(b), 9)
        mass[key][0] += a
        mass[key][1] += b
    return sorted((key, round(m0, 12), round(m1, 12)) for key, (m0, m1) in mass.items())


@pytest.mark.parametrize("kind, k", [("krr", 2), ("krr", 4), ("oue", 3)])
def test_pair_table_is_the_two_categories_law_by_classes(kind, k):
    channel = LongitudinalChannel(kind, k, 1.0, 1.5)
    table, _ = channel.full_table([str(j) for j in range(k)])
    pair, labels = channel.pair_table()
    assert pair.shape == (2, len(labels))
    np.testing.assert_allclose(np.exp(pair).sum(axis=1), 1.0, rtol=1e-12)
    assert _loss_distribution(*np.exp(pair)) == _loss_distribution(*np.exp(table[:2]))


def test_pair_table_labels():
    krr = LongitudinalChannel("krr", 3, 1.0, 1.0).pair_table()[1]
    assert krr == ["the first category", "the second", "any other category"]
    assert LongitudinalChannel("krr", 2, 1.0, 1.0).pair_table()[1] == [
        "the first category",
        "the second",
    ]
    oue = LongitudinalChannel("oue", 3, 1.0, 1.0).pair_table()[1]
    assert oue == [
        f"bits ({a}, {b}) of the two categories" for a in (0, 1) for b in (0, 1)
    ]


def test_full_table_labels_and_limits():
    oue = LongitudinalChannel("oue", 2, 1.0, 1.0)
    assert oue.full_table(["a", "b"])[1] == ["{}", "{a}", "{b}", "{a, b}"]
    krr = LongitudinalChannel("krr", 3, 1.0, 1.0)
    assert krr.full_table(["a", "b", "c"])[1] == ["a", "b", "c"]
    # 1448**2 and 16 * 2**16 cells fit in 2**21; 1449**2 and 17 * 2**17 do not
    assert LongitudinalChannel("krr", 1448, 1.0, 1.0).full_table(["c"] * 1448)
    assert LongitudinalChannel("krr", 1449, 1.0, 1.0).full_table(["c"] * 1449) is None
    assert LongitudinalChannel("oue", 17, 1.0, 1.0).full_table(["c"] * 17) is None
    twelve = LongitudinalChannel("oue", 12, 1.0, 1.0).full_table(["c"] * 12)
    assert twelve[0].shape == (12, 2**12)


def test_stage_probabilities_are_the_exact_fractions():
    krr = LongitudinalChannel("krr", 3, 2.0, 1.0)
    p_p = Fraction(krr.permanent.keep, COIN_SCALE)
    p_i = Fraction(krr.instant.keep, COIN_SCALE)
    q_p, q_i = (1 - p_p) / 2, (1 - p_i) / 2
    a = p_p * p_i + (1 - p_p) * q_i
    b = q_p * p_i + (1 - q_p) * q_i
    assert (krr.p_star, krr.q_star) == (float(a), float(b))
    assert krr._composed == (a, b)  # the exact levels, as fractions
    assert krr.wave_epsilon == pytest.approx(math.log(a / b), rel=1e-15)
    oue = LongitudinalChannel("oue", 3, 2.0, 1.0)
    p_p = Fraction(oue.permanent.own, COIN_SCALE)
    q_p = Fraction(oue.permanent.other, COIN_SCALE)
    p_i, q_i = (Fraction(n, COIN_SCALE) for n in oue.instant_numerators)
    assert p_i == Fraction(1, 2)
    a = p_p * p_i + (1 - p_p) * q_i
    b = q_p * p_i + (1 - q_p) * q_i
    assert (oue.p_star, oue.q_star) == (float(a), float(b))
    ratio = a * (1 - b) / (b * (1 - a))
    assert oue.wave_epsilon == pytest.approx(math.log(ratio), rel=1e-14)
    assert (oue.n_outputs, krr.n_outputs) == (3, 1)


def test_log_of_a_fraction():
    assert _log(Fraction(3, 7)) == math.log(3) - math.log(7)
    assert _log(Fraction(10**400, 10**401)) == pytest.approx(-math.log(10))
    assert _log(Fraction(0)) == -math.inf


# -- the oracle: budget split, release, claims ------------------------------------


def _oracle(kind="krr", k=3, waves=1, eps_p=2.0, eps_i=1.0, **kw):
    return LongitudinalOracle(
        kind=kind,
        epsilon_permanent=eps_p,
        epsilon_instant=eps_i,
        waves=waves,
        categories=[list(range(k))],
        **kw,
    )


def test_budgets_are_split_over_the_columns():
    lo = LongitudinalOracle(
        epsilon_permanent=3.0,
        epsilon_instant=1.5,
        categories=[[0, 1], [0, 1, 2]],
    ).fit([[0, 0]])
    assert [(c.epsilon_permanent, c.epsilon_instant) for c in lo.oracles_] == [
        (1.5, 0.75),
        (1.5, 0.75),
    ]
    assert [c.n_categories for c in lo.oracles_] == [2, 3]
    assert lo._epsilon_per_feature == 1.5


@pytest.mark.parametrize("name", ["epsilon_permanent", "epsilon_instant"])
def test_a_share_below_the_coins_floor_is_refused(name):
    small = MIN_EPSILON * 1.5
    lo = LongitudinalOracle(categories=[[0, 1], [0, 1]], **{name: small})
    message = (
        f"{name} per column is {small / 2:.3g} over 2 columns; the exact coins "
        f"are set up for at least {MIN_EPSILON:g}."
    )
    with pytest.raises(ValueError, match=_exact(message)):
        lo.fit([[0, 0]])
    # the same budget on one column is enough
    LongitudinalOracle(categories=[[0, 1]], **{name: small}).fit([[0]])


def test_release_is_the_channels_draws_in_column_order():
    lo = LongitudinalOracle(
        kind="krr",
        waves=2,
        categories=[[0, 1, 2], ["a", "b"]],
    ).fit(pd.DataFrame({"x": [0], "y": ["a"]}))
    # the call's generator, seen by the test
    lo._next_generator = lambda data=None: np.random.default_rng(5)
    x = pd.DataFrame({"x": [0, 1, 2, 1], "y": ["b", "a", "a", "b"]})
    out = lo.transform(x)
    rng = np.random.default_rng(5)
    first = lo.oracles_[0].sample(np.array([0, 1, 2, 1]), 2, rng)
    second = lo.oracles_[1].sample(np.array([1, 0, 0, 1]), 2, rng)
    assert out.dtype == np.int64
    np.testing.assert_array_equal(out, np.hstack([first, second]))


def test_unknown_values_are_released_as_uniform_categories():
    lo = _oracle(k=3, handle_unknown="ignore", eps_p=30.0, eps_i=30.0)
    lo = lo.fit([[0]])
    x = np.array([[9]] * 3000)
    out = lo.transform(x)[:, 0]
    counts = np.bincount(out, minlength=3)
    # every category, about a third each (k-RR at eps 30 keeps the draw)
    assert counts.min() > 900, counts
    assert set(out.tolist()) == {0, 1, 2}


def test_exact_law_is_the_permanent_answers_for_several_waves():
    one = _oracle(kind="oue", waves=1).fit([[0]])
    many = _oracle(kind="oue", waves=2).fit([[0]])
    law_one, law_many = one._exact_law(0), many._exact_law(0)
    channel = many.oracles_[0]
    perm, _ = channel.permanent.full_table(["0", "1", "2"])
    np.testing.assert_allclose(law_many.log_prob, perm, rtol=1e-14)
    comp, _ = channel.full_table(["0", "1", "2"])
    np.testing.assert_allclose(law_one.log_prob, comp, rtol=1e-14)
    assert list(law_one.input_labels) == list(law_many.input_labels) == ["0", "1", "2"]


@pytest.mark.parametrize("waves", [1, 3])
def test_privacy_summary_figures(waves):
    lo = LongitudinalOracle(
        kind="krr",
        epsilon_permanent=2.0,
        epsilon_instant=1.0,
        waves=waves,
        categories=[[0, 1, 2], ["a", "b"]],
    ).fit(pd.DataFrame({"x": [0], "y": ["a"]}))
    s = lo.privacy_summary()
    per_wave = [c.wave_epsilon for c in lo.oracles_]
    lifetime = [c.lifetime_epsilon for c in lo.oracles_]
    np.testing.assert_allclose(s["epsilon_per_wave"], sum(per_wave), rtol=1e-12)
    np.testing.assert_allclose(s["epsilon_lifetime_per_feature"], lifetime, rtol=1e-12)
    release = per_wave if waves == 1 else lifetime
    np.testing.assert_allclose(s["epsilon_per_feature"], release, rtol=1e-12)
    assert s["realised_epsilon_per_feature"] == s["epsilon_per_feature"]
    assert s["epsilon"] == pytest.approx(sum(release), rel=1e-12)
    assert s["epsilon_lifetime"] == pytest.approx(sum(lifetime), rel=1e-12)
    assert s["epsilon_lifetime"] <= 2.0
    assert s["notion"] == "epsilon-LDP (longitudinal frequency oracle)"
    assert s["floating_point_safe"] is True
    assert s["condition"] == (
        f"epsilon covers the {waves} wave(s) one call releases per record; one "
        f"wave alone costs {s['epsilon_per_wave']:.6g}; all waves ever collected "
        "from a respondent whose value does not change cost "
        f"{s['epsilon_lifetime']:.6g} together (the permanent answer); a changed "
        "value gets a fresh permanent answer and adds epsilon_permanent"
    )
    assert [c["feature"] for c in s["oracles"]] == ["x", "y"]
    assert s["oracles"][1]["oracle"] == "longitudinal krr"


# -- the estimator ----------------------------------------------------------------


def test_wave_estimates_by_hand():
    channel = LongitudinalChannel("krr", 3, 2.0, 1.0)
    rows = np.array([[0, 1], [2, 2], [0, 0]])
    counts = np.array([3, 1, 2])
    p, q, n = channel.p_star, channel.q_star, 6
    support = np.array([[5, 0, 1], [2, 3, 1]])  # wave 0, wave 1
    want = (support / n - q) / (p - q)
    np.testing.assert_allclose(
        _wave_estimates(channel, 2, rows, counts), want, rtol=1e-13
    )
    oue = LongitudinalChannel("oue", 2, 2.0, 1.0)
    rows = np.array([[1, 0, 1, 1], [0, 1, 0, 0]])
    counts = np.array([1, 3])
    support = np.array([[1, 3], [1, 1]])
    want = (support / 4 - oue.q_star) / (oue.p_star - oue.q_star)
    np.testing.assert_allclose(_wave_estimates(oue, 2, rows, counts), want, rtol=1e-13)


@pytest.mark.parametrize("method", ["unbiased", "norm-sub"])
def test_estimator_attributes_by_hand(method):
    lo = _oracle(waves=2).fit([[0]])
    channel = lo.oracles_[0]
    X = np.array([[0, 1]] * 3 + [[2, 2]] + [[0, 0]] * 2)
    est = LongitudinalFrequencyEstimator(oracle=lo, method=method).fit(X)
    waves = _wave_estimates(
        channel, 2, np.array([[0, 1], [2, 2], [0, 0]]), np.array([3, 1, 2])
    )
    raw = waves.mean(axis=0)
    np.testing.assert_allclose(est.wave_estimates_, waves, rtol=1e-13)
    np.testing.assert_allclose(est.distribution_raw_, raw, rtol=1e-13)
    if method == "unbiased":
        np.testing.assert_allclose(est.distribution_, raw, rtol=1e-13)
    else:
        assert est.distribution_.sum() == pytest.approx(1.0)
        assert est.distribution_.min() >= 0
    f = np.clip(raw, 0, 1)
    assert raw.min() < 0 or raw.max() > 1  # the plug-in clips here
    np.testing.assert_allclose(est.wave_variance_, channel.variance(f, 6), rtol=1e-13)
    np.testing.assert_allclose(
        est.variance_, channel.pooled_variance(f, 6, 2), rtol=1e-13
    )
    assert (est.n_samples_seen_, est.n_waves_) == (6, 2)
    assert est.categories_.tolist() == [0, 1, 2]
    assert est.oracle_ is channel
    assert est.report_counts_.sum() == 6


def test_bootstrap_replicates_are_the_estimates_of_resampled_rows():
    lo = _oracle(waves=2).fit([[0]])
    X = np.array([[0, 1]] * 3 + [[2, 2]] + [[0, 0]] * 2)
    for method in ("unbiased", "norm-sub"):
        est = LongitudinalFrequencyEstimator(oracle=lo, method=method).fit(X)
        rows, counts = est.reports_[:2], np.array([2, 5])
        got = est._resampled_estimate(rows, counts)
        raw = _wave_estimates(est.oracle_, 2, rows, counts).mean(axis=0)
        if method == "unbiased":
            np.testing.assert_allclose(got, raw, rtol=1e-13)
        else:
            assert got.sum() == pytest.approx(1.0) and got.min() >= 0
            assert not np.allclose(got, raw)


def test_estimator_refusals_name_what_is_wrong():
    with pytest.raises(
        TypeError,
        match=_exact("oracle must be a LongitudinalOracle; got FrequencyOracle."),
    ):
        LongitudinalFrequencyEstimator(oracle=FrequencyOracle()).fit(
            np.zeros((2, 1), dtype=int)
        )
    bare = LongitudinalOracle(waves=2)
    message = (
        "oracle is not fitted and declares no categories; pass the fitted "
        "privatizer or declare categories=[[...]]."
    )
    with pytest.raises(ValueError, match=_exact(message)):
        LongitudinalFrequencyEstimator(oracle=bare).fit(np.zeros((2, 2), dtype=int))
    two = LongitudinalOracle(categories=[[0, 1], [0, 1]]).fit([[0, 0]])
    message = (
        "oracle privatizes 2 columns; one column is needed here. Fit one "
        "privatizer per column."
    )
    with pytest.raises(ValueError, match=_exact(message)):
        LongitudinalFrequencyEstimator(oracle=two).fit(np.zeros((2, 2), dtype=int))


def test_declared_oracle_is_fitted_on_its_first_categories():
    declared = LongitudinalOracle(kind="oue", waves=3, categories=[["b", "a", "c"]])
    est = LongitudinalFrequencyEstimator(oracle=declared)
    est.fit(np.zeros((2, 9), dtype=int))
    assert est.categories_.tolist() == ["b", "a", "c"]
    assert est.n_waves_ == 3 and est.oracle_.kind == "oue"


def test_report_checks_name_the_row_and_column():
    lo = _oracle(kind="oue", waves=2).fit([[0]])
    est = LongitudinalFrequencyEstimator(oracle=lo)
    message = "X must have 6 columns (2 waves of 3); got shape (2, 5)."
    with pytest.raises(ValueError, match=_exact(message)):
        est.fit(np.zeros((2, 5), dtype=int))
    bad = np.zeros((3, 6), dtype=int)
    bad[2, 4] = 2
    message = (
        "X must hold report codes in [0, 2) as released by the oracle; row 2, "
        "column 4 does not."
    )
    with pytest.raises(ValueError, match=_exact(message)):
        est.fit(bad)
    half = np.zeros((3, 6))
    half[1, 0] = 0.5
    with pytest.raises(ValueError, match="row 1, column 0 does not"):
        est.fit(half)
    negative = np.zeros((3, 6), dtype=int)
    negative[0, 5] = -1
    with pytest.raises(ValueError, match="row 0, column 5 does not"):
        est.fit(negative)
    text = pd.DataFrame(np.full((2, 6), "1"))
    with pytest.raises(
        TypeError, match=_exact("X must hold integer report codes; got dtype object.")
    ):
        est.fit(text)
    # a later chunk names its row in the whole data
    est.partial_fit(np.zeros((4, 6), dtype=int))
    with pytest.raises(ValueError, match="row 6, column 4 does not"):
        est.partial_fit(bad)


def test_chunks_merge_to_the_counts_of_one_fit():
    lo = _oracle(waves=2).fit([[0]])
    X = np.array([[0, 1], [2, 2], [0, 1], [0, 0], [0, 1], [2, 2]])
    whole = LongitudinalFrequencyEstimator(oracle=lo).fit(X)
    parts = LongitudinalFrequencyEstimator(oracle=lo)
    parts.partial_fit(X[:2]).partial_fit(X[2:5]).partial_fit(X[5:])
    np.testing.assert_array_equal(parts.reports_, whole.reports_)
    np.testing.assert_array_equal(parts.report_counts_, whole.report_counts_)
    assert whole.report_counts_.tolist() == [1, 3, 2]
    np.testing.assert_allclose(parts.distribution_, whole.distribution_)


def test_the_floor_itself_is_enough():
    # the share is compared with the floor itself: exactly the floor passes
    lo = LongitudinalOracle(
        epsilon_permanent=2 * MIN_EPSILON,
        epsilon_instant=2 * MIN_EPSILON,
        categories=[[0, 1], [0, 1]],
    ).fit([[0, 0]])
    assert lo.oracles_[0].epsilon_permanent == MIN_EPSILON


def test_a_refit_takes_a_new_number_of_columns():
    lo = LongitudinalOracle(categories=[[0, 1]]).fit([[0]])
    lo.set_params(categories=[[0, 1], ["a", "b"]]).fit(
        pd.DataFrame({"x": [0], "y": ["a"]})
    )
    assert lo.n_features_in_ == 2 and len(lo.oracles_) == 2


def test_release_refuses_a_different_number_of_columns():
    lo = _oracle().fit([[0]])
    message = (
        "X has 2 features, but LongitudinalOracle is expecting 1 features as input."
    )
    with pytest.raises(ValueError, match=_exact(message)):
        lo.transform(np.zeros((3, 2), dtype=int))


def test_a_seeded_release_depends_on_the_data():
    # the data enter the seed: one changed row changes the draws of the others
    x = np.zeros((200, 1), dtype=int)
    y = x.copy()
    y[-1, 0] = 1
    a = _oracle(eps_p=0.5, random_state=7).fit([[0]]).transform(x)
    b = _oracle(eps_p=0.5, random_state=7).fit([[0]]).transform(y)
    again = _oracle(eps_p=0.5, random_state=7).fit([[0]]).transform(x)
    np.testing.assert_array_equal(a, again)
    assert (a[:-1] != b[:-1]).any()


def test_two_declared_columns_are_refused_after_the_declared_fit():
    two = LongitudinalOracle(categories=[[0, 1], ["a", "b"]])
    message = (
        "oracle privatizes 2 columns; one column is needed here. Fit one "
        "privatizer per column."
    )
    with pytest.raises(ValueError, match=_exact(message)):
        LongitudinalFrequencyEstimator(oracle=two).fit(np.zeros((2, 1), dtype=int))


def test_one_wave_of_one_respondent_is_estimated():
    lo = _oracle(waves=1).fit([[0]])
    est = LongitudinalFrequencyEstimator(oracle=lo).fit(np.array([[2]]))
    channel = lo.oracles_[0]
    p, q = channel.p_star, channel.q_star
    want = (np.array([0.0, 0.0, 1.0]) - q) / (p - q)
    np.testing.assert_allclose(est.distribution_raw_, want, rtol=1e-13)
    assert est.reports_.dtype == np.int64
    assert est.reports_.tolist() == [[2]]


def test_an_empty_collection_has_nothing_to_estimate():
    da = pytest.importorskip("dask.array")
    lo = _oracle(waves=2).fit([[0]])
    X = da.from_array(np.zeros((0, 2), dtype=int), chunks=(1, 2))
    message = "X holds no report; there is nothing to estimate from."
    with pytest.raises(ValueError, match=_exact(message)):
        LongitudinalFrequencyEstimator(oracle=lo).fit(X)
