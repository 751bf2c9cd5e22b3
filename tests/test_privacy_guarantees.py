"""Empirical privacy guarantees of every discovered privatizer.

Each privatizer found by :func:`skprivate.utils.all_estimators` must have an
entry in ``CONFIGS``.  For epsilon-LDP mechanisms the worst log-ratio of
output histograms for two inputs must stay below the per-record epsilon that
``privacy_summary()`` reports, plus a Monte Carlo allowance from the counts;
the default sampler must put every output on the fixed public grid it
reports (no floating-point side channel).
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.compose import ColumnTransformer
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline

from skprivate import (
    DeconvolutionKernelDensity,
    FlippedHuberLDP,
    GeneralizedGaussianLDP,
    IntervalCaseI,
    LaplaceLDP,
    RVNSPerturber,
    SquareWaveLDP,
    privacy_report,
)
from skprivate.base import PrivatizerMixin
from skprivate.utils import all_estimators

PRIVATIZERS = sorted(
    (name, cls) for name, cls in all_estimators() if issubclass(cls, PrivatizerMixin)
)

_LDP_SKIP = None
# name -> (factory(epsilon, **kw) or None, reason to skip the epsilon tests)
CONFIGS = {
    "LaplaceLDP": (
        lambda eps, **kw: LaplaceLDP(epsilon=eps, bounds=(0, 1), **kw),
        None,
    ),
    "SquareWaveLDP": (
        lambda eps, **kw: SquareWaveLDP(epsilon=eps, bounds=(0, 1), **kw),
        None,
    ),
    "GeneralizedGaussianLDP": (
        lambda eps, **kw: GeneralizedGaussianLDP(
            epsilon=eps, delta=1e-3, bounds=(0, 1), **kw
        ),
        None,
    ),
    "FlippedHuberLDP": (
        lambda eps, **kw: FlippedHuberLDP(epsilon=eps, delta=1e-3, bounds=(0, 1), **kw),
        None,
    ),
    "RVNSPerturber": (None, "real-value negative survey: epsilon only up to a window"),
    "IntervalCaseI": (None, "interval privacy: a coverage notion, no epsilon"),
    "IntervalCaseII": (None, "interval privacy: a coverage notion, no epsilon"),
    "IntervalEnsemble": (None, "interval privacy: a coverage notion, no epsilon"),
    "IntervalMechanism": (None, "interval privacy: a coverage notion, no epsilon"),
    "SubsetMechanism": (None, "subset privacy: a coverage notion, no epsilon"),
    "SubsetUniform": (None, "subset privacy: a coverage notion, no epsilon"),
    **dict.fromkeys(
        [
            "BinaryLocalHashing",
            "FrequencyOracle",
            "GeneralizedRandomizedResponse",
            "HadamardResponse",
            "OptimizedLocalHashing",
            "OptimizedUnaryEncoding",
            "SymmetricUnaryEncoding",
        ],
        (
            None,
            "categorical frequency oracles: their exact output laws are audited "
            "by enumeration in tests/frequency/test_laws.py",
        ),
    ),
    "LongitudinalOracle": (
        None,
        "longitudinal frequency oracle: one wave's composed law is enumerated and "
        "audited in tests/frequency/test_longitudinal.py",
    ),
}

LDP = [name for name, (factory, _) in CONFIGS.items() if factory is not None]
# mechanisms whose default sampler releases points of a public grid
GRID_FACTORIES = {name: CONFIGS[name][0] for name in LDP} | {
    "RVNSPerturber": lambda eps, **kw: RVNSPerturber(bounds=(0, 1), **kw),
}


def test_every_privatizer_has_a_config():
    missing = [name for name, _ in PRIVATIZERS if name not in CONFIGS]
    assert not missing, f"add a CONFIGS entry for {missing}"


def _max_log_ratio(za, zb, n_cells=12):
    """Worst |log ratio| of histogram counts and its Monte Carlo allowance."""
    edges = np.quantile(np.concatenate([za, zb]), np.linspace(0, 1, n_cells + 1))
    edges = np.unique(edges)
    ca = np.histogram(za, edges)[0].astype(float)
    cb = np.histogram(zb, edges)[0].astype(float)
    ok = (ca > 50) & (cb > 50)
    ratio = np.abs(np.log(ca[ok] / cb[ok]))
    se = np.sqrt(1 / ca[ok] + 1 / cb[ok])  # delta method for a log count ratio
    i = int(np.argmax(ratio - 4 * se))
    return ratio[i], 4 * se[i], ratio.max()


def _loss(name, epsilon, xa, xb, n, seed=0, n_features=1):
    factory, _ = CONFIGS[name]
    fit = np.array([[0.0] * n_features, [1.0] * n_features])
    a = factory(epsilon, random_state=seed).fit(fit)
    b = factory(epsilon, random_state=seed + 1).fit(fit)
    za = a.transform(np.tile(xa, (n, 1)))
    zb = b.transform(np.tile(xb, (n, 1)))
    if n_features == 1:
        return (*_max_log_ratio(za[:, 0], zb[:, 0]), a)
    # the joint loss of a record: both columns in the same (product) cell
    qa = [np.quantile(np.r_[za[:, j], zb[:, j]], [0.1, 0.5, 0.9]) for j in range(2)]
    cells_a = sum(np.digitize(za[:, j], qa[j]) * 4**j for j in range(2))
    cells_b = sum(np.digitize(zb[:, j], qa[j]) * 4**j for j in range(2))
    return (*_max_log_ratio(cells_a + 0.5, cells_b + 0.5, n_cells=16), a)


def _reported_epsilon(privatizer):
    return privatizer.privacy_summary()["epsilon"]


PAIRS = {"interior": (0.3, 0.7), "boundary": (0.0, 1.0)}


@pytest.mark.parametrize("pair", PAIRS)
@pytest.mark.parametrize("name", LDP)
def test_one_column_loss_is_below_reported_epsilon(name, pair):
    xa, xb = PAIRS[pair]
    ratio, allowance, _, priv = _loss(name, 1.0, [xa], [xb], 40_000)
    assert ratio <= _reported_epsilon(priv) + allowance


@pytest.mark.parametrize("name", LDP)
def test_two_column_loss_per_record_is_below_reported_epsilon(name):
    """Before the budget split, SquareWave & co. lost about 2 at epsilon = 1."""
    ratio, allowance, _, priv = _loss(name, 1.0, [0.0, 0.0], [1.0, 1.0], 60_000, 2, 2)
    assert _reported_epsilon(priv) == 1.0
    assert ratio <= 1.0 + allowance


@pytest.mark.slow
@pytest.mark.parametrize("pair", PAIRS)
@pytest.mark.parametrize("name", LDP)
def test_loss_large_sample(name, pair):
    xa, xb = PAIRS[pair]
    ratio, allowance, _, priv = _loss(name, 2.0, [xa], [xb], 1_000_000)
    assert ratio <= _reported_epsilon(priv) + allowance
    ratio, allowance, _, priv = _loss(
        name, 1.0, [0.0, 0.0], [1.0, 1.0], 1_000_000, 3, 2
    )
    assert ratio <= 1.0 + allowance


@pytest.mark.parametrize("name", list(GRID_FACTORIES))
def test_default_sampler_outputs_lie_on_the_public_grid(name):
    """Share of outputs for x = a that x = b could not produce: below 1e-3."""
    factory = GRID_FACTORIES[name]
    priv = factory(1.0, random_state=0).fit([[0.0], [1.0]])
    summary = priv.privacy_summary()
    assert summary["floating_point_safe"] is True
    grid = summary["output_grid"]
    origin, step = grid["origin"][0], grid["step"][0]
    for x in (0.0, 0.3, 1.0):
        z = priv.transform(np.full((20_000, 1), x))[:, 0]
        k = np.rint((z - origin) / step)
        off_grid = np.mean(origin + k * step != z)
        assert off_grid < 1e-3


def _reachable_additive(z, x, scale):
    """Whether a float ``n = fl(scale * u)`` exists with ``fl(x + n) == z``."""
    out = np.zeros(z.shape, dtype=bool)
    base = z - x
    for shift in range(-3, 4):
        n = base
        for _ in range(abs(shift)):
            n = np.nextafter(n, np.inf if shift > 0 else -np.inf)
        lands = (x + n) == z
        u = n / scale
        ok = np.zeros_like(lands)
        for s2 in (-1, 0, 1):
            uu = u if s2 == 0 else np.nextafter(u, np.inf * s2)
            ok |= (uu * scale) == n
        out |= lands & ok
    return out


@pytest.mark.parametrize("name", ["LaplaceLDP", "GeneralizedGaussianLDP"])
def test_opt_out_sampler_leaks_and_says_so(name):
    factory, _ = CONFIGS[name]
    priv = factory(1.0, random_state=0, secure=False).fit([[0.0], [1.0]])
    assert priv.privacy_summary()["floating_point_safe"] is False
    z = priv.transform(np.zeros((20_000, 1)))[:, 0]
    scale = float(np.ravel(priv.scale_)[0])
    impossible = ~_reachable_additive(z, 1.0, scale)
    assert _reachable_additive(z, 0.0, scale).all()  # the check is sound
    assert impossible.mean() > 0.05


def _rvns_reachable_from_zero(y, secure, priv):
    """Whether report ``y`` can come out of the sampler for x = 0.

    Bounds (0, 1), d = 0.2: for x = 0 the band is fixed at [0, 0.2].  The
    continuous sampler then computes ``fl(fl(U * 0.8) + 0.2)`` with
    ``U = i * 2**-53``; the grid sampler releases ``j * h`` for the integers
    ``j`` above the band.  Only for ``0.5 <= y < 0.8`` (where the search
    below is exhaustive).
    """
    if secure:
        h, _, jb, D = (np.ravel(v)[0] for v in priv._grid)
        j = y / h
        return (j == np.rint(j)) & (j > D) & (j <= jb)
    # y in [0.5, 0.8): the draws u near y - 0.2 are 0.8 * 2**-53 apart and
    # y's ulp is 2**-53, so a few indices around the nearest cover every
    # draw that can round to y
    out = np.zeros(y.shape, dtype=bool)
    i0 = np.rint((y - 0.2) / 0.8 * 2.0**53)
    for di in range(-3, 4):
        out |= ((i0 + di) * 2.0**-53 * 0.8 + 0.2) == y
    return out


@pytest.mark.parametrize("secure", [True, False])
def test_rvns_float_distinguishability(secure):
    """Reports of x = 1 inside x = 0's support that x = 0 could not produce.

    The band legitimately rules out reports near x (that is priced by the
    delta window); this counts only reports where x = 0's law is positive.
    The default grid sampler has none; the continuous opt-out leaks.
    """
    # the paper's placement, whose x = 0 has the fixed band [0, 0.2]
    priv = RVNSPerturber(
        bounds=(0, 1), random_state=0, secure=secure, placement="paper"
    )
    priv.fit([[0.0], [1.0]])
    assert priv.d_[0] == 0.2
    assert priv.privacy_summary()["floating_point_safe"] is secure
    zero = priv.transform(np.zeros((40_000, 1)))[:, 0]
    zero = zero[(zero >= 0.5) & (zero < 0.8)]
    assert _rvns_reachable_from_zero(zero, secure, priv).all()  # sound check
    one = priv.transform(np.ones((40_000, 1)))[:, 0]
    overlap = one[(one >= 0.5) & (one < 0.8)]  # both laws positive here
    impossible = ~_rvns_reachable_from_zero(overlap, secure, priv)
    if secure:
        assert impossible.mean() < 1e-3
    else:
        assert impossible.mean() > 0.05


def test_square_wave_works_at_every_large_epsilon():
    for eps in (355.0, 400.0, 709.0, 710.0, 1e4):
        for secure in (True, False):
            sw = SquareWaveLDP(
                epsilon=eps, bounds=(0, 10), random_state=0, secure=secure
            )
            z = sw.fit([[0.0]]).transform(np.full((200, 1), 3.0))[:, 0]
            assert np.all(np.isfinite(z))
            # almost every report is the value itself at such budgets
            assert np.mean(np.abs(z - 3.0) < 1e-6) > 0.9


@pytest.mark.parametrize("cls", [GeneralizedGaussianLDP, FlippedHuberLDP])
def test_large_epsilon_works_or_fails_clearly(cls):
    for eps in (50.0, 1e3, 1e5):
        try:
            priv = cls(epsilon=eps, delta=1e-3, bounds=(0, 10), random_state=0)
            z = priv.fit([[0.0]]).transform(np.full((100, 1), 3.0))
        except ValueError as exc:
            assert "epsilon" in str(exc)
            continue
        assert np.all(np.isfinite(z))
        assert priv.privacy_summary()["delta"] <= 1e-3 * (1 + 1e-6)


def _rvns_window_probability(x, lo, hi, n, seed):
    # the paper's placement: its epsilon needs the boundary margin
    priv = RVNSPerturber(
        d=2.0, bounds=(0, 10), random_state=seed, placement="paper"
    ).fit([[0.0]])
    y = priv.transform(np.full((n, 1), x))[:, 0]
    return np.mean((y >= lo) & (y <= hi)), priv


def test_rvns_reports_where_its_epsilon_fails_near_a_bound():
    """x = 0.001 vs x = 5, window [x - delta, x + delta] clipped at a = 0."""
    n, x, delta = 2_000_000, 0.001, 0.1
    p_near, priv = _rvns_window_probability(x, 0.0, x + delta, n, 0)
    p_mid, _ = _rvns_window_probability(5.0, 0.0, x + delta, n, 1)
    measured = np.log(p_mid / p_near)
    summary = priv.privacy_summary(delta=delta)
    eps = summary["epsilon_per_feature"][0]
    assert measured > eps  # the claim fails here ...
    assert x < summary["boundary_margin"][0]  # ... and the summary says why
    # the documented boundary loss ln(2 + 2 delta / r)
    se = np.sqrt(1 / (p_near * n) + 1 / (p_mid * n))
    assert abs(measured - np.log(2 + 2 * delta / x)) < 4 * se


def test_rvns_epsilon_holds_beyond_the_margin():
    n = 400_000
    delta = 0.1
    r = 2 * delta**2 / (4.0 - delta)  # twice the margin
    p_near, priv = _rvns_window_probability(r, r - delta, r + delta, n, 0)
    p_mid, _ = _rvns_window_probability(5.0, r - delta, r + delta, n, 1)
    measured = np.log(p_mid / p_near)
    se = np.sqrt(1 / (p_near * n) + 1 / (p_mid * n))
    assert measured <= priv.epsilon(delta) + 4 * se


# --- privacy_report ---------------------------------------------------------


def _ages():
    rng = np.random.default_rng(0)
    return np.column_stack([rng.uniform(18, 90, 200), rng.uniform(0, 1, 200)])


def test_report_column_transformer_composes_epsilon():
    ct = ColumnTransformer(
        [
            ("a", LaplaceLDP(epsilon=1, bounds=(18, 90)), [0]),
            ("b", SquareWaveLDP(epsilon=2, bounds=(0, 1)), [1]),
        ]
    ).fit(_ages())
    report = privacy_report(ct)
    assert list(report["column"]) == ["0", "1", "total"]
    assert report["epsilon"].iloc[-1] == 3.0
    assert report["bounds"].iloc[0] == (18.0, 90.0)
    assert not report["bounds_from_data"].iloc[0]


def test_report_splits_a_two_column_privatizer():
    ldp = LaplaceLDP(epsilon=2, bounds=(0, 100)).fit(_ages())
    report = privacy_report(ldp)
    np.testing.assert_allclose(report["epsilon"], [1.0, 1.0, 2.0])
    gg = GeneralizedGaussianLDP(epsilon=2, delta=1e-4, bounds=(0, 100)).fit(_ages())
    report = privacy_report(gg)
    np.testing.assert_allclose(report["epsilon"], [1.0, 1.0, 2.0])
    assert report["delta"].iloc[-1] == pytest.approx(1e-4, rel=1e-6)


def test_report_pipeline_learner_and_search():
    X = _ages()[:, :1]
    pipe = make_pipeline(LaplaceLDP(epsilon=1.5, bounds=(18, 90))).fit(X)
    assert privacy_report(pipe)["epsilon"].iloc[-1] == 1.5
    kde = DeconvolutionKernelDensity(
        bandwidth=5.0, privatizer=LaplaceLDP(epsilon=2.0, bounds=(18, 90))
    ).fit(X)
    assert privacy_report(kde)["epsilon"].iloc[-1] == 2.0
    search = GridSearchCV(
        DeconvolutionKernelDensity(
            bandwidth=5.0, privatizer=LaplaceLDP(epsilon=1.0, bounds=(18, 90))
        ),
        {"privatizer__epsilon": [1.0, 4.0]},
        cv=2,
    ).fit(X)
    best = search.best_params_["privatizer__epsilon"]
    # the model ships alone at its epsilon; the search also keeps scores of
    # the density at the raw held-out ages, which no epsilon covers
    assert privacy_report(search.best_estimator_)["epsilon"].iloc[-1] == best
    report = privacy_report(search)
    assert report["column"].tolist() == ["x0", "search scores", "total"]
    assert report["epsilon"].tolist() == [best, np.inf, np.inf]


def test_report_coverage_notion_has_no_total_epsilon():
    X = _ages()[:, :1]
    report = privacy_report(IntervalCaseI(anchor_loc=50, anchor_scale=20).fit(X))
    assert np.isnan(report["epsilon"].iloc[-1])
    assert 0 < report["coverage"].iloc[0] < 1
    assert "coverage" in report["note"].iloc[-1]


def test_report_refuses_an_estimator_without_privatizer():
    with pytest.raises(ValueError, match="no fitted privatizer"):
        privacy_report(
            make_pipeline(DeconvolutionKernelDensity(noise_scale=1.0)).fit(
                np.random.default_rng(0).normal(size=(50, 1))
            )
        )
