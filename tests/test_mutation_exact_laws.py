"""Exact output laws of the LDP grid samplers, pinned on small cases.

``skprivate/ldp/_exact_laws.py`` describes the law each ``secure=True``
sampler implements, which :func:`skprivate.audit` turns into the certified
privacy loss.  ``benchmarks/_mutation_specs_exact_laws.py`` lists the
mutants these tests kill.
"""

import math
from types import SimpleNamespace

import mpmath
import numpy as np
import pytest
from scipy import integrate, stats

from skprivate._audit import BandLaw, NoExactLaw, ShiftLaw
from skprivate.ldp._exact_laws import (
    _flipped_huber_cdf_precise,
    _flipped_huber_log_cdf,
    _generalized_gaussian_cdf_precise,
    _generalized_gaussian_log_cdf,
    additive_exact_law,
    laplace_exact_law,
    square_wave_exact_law,
)


def _laplace_model(secure=True):
    # column 1 is the one read: step 0.5, indices -3..7, margin 4, scale 2
    # (4 steps); low = -2.0 rounds to index -4, below k_lo, and is clipped
    return SimpleNamespace(
        secure=secure,
        grid_step_=np.array([0.1, 0.5]),
        _k_low=np.array([0, -3]),
        _k_high=np.array([9, 7]),
        _margin=np.array([1, 4]),
        bounds_=(np.array([0.0, -2.0]), np.array([1.0, 3.3])),
        scale_=np.array([1.0, 2.0]),
    )


def test_laplace_law_reads_the_column_and_its_grid():
    law = laplace_exact_law(_laplace_model(), 1)
    assert isinstance(law, ShiftLaw)
    assert (law.a, law.b, law.c_lo, law.c_hi) == (-3, 7, -7, 11)
    t = np.array([-8.0, -2.0, 0.0])
    np.testing.assert_array_equal(law.noise.log_cdf_negative(t), np.log(0.5) + t / 4.0)
    np.testing.assert_array_equal(
        law.noise.log_ratio_negative(np.array([-3.0]), np.array([-1.0])), [-0.5]
    )
    assert law.noise.description == "rounded Laplace of scale 4 steps"
    # the bounds label their own indices; the other indices are k * step
    assert (law.input_label(-3), law.input_label(7)) == (-2.0, 3.3)
    assert (law.input_label(0), law.input_label(3)) == (0.0, 1.5)
    assert (law.output_label(5), law.output_label(-7)) == (2.5, -3.5)


def test_laplace_law_rounds_the_bounds_to_their_indices():
    model = _laplace_model()
    model.bounds_ = (np.array([0.0, -1.2]), np.array([1.0, 1.3]))
    law = laplace_exact_law(model, 1)
    # -1.2 / 0.5 = -2.4 -> -2; 1.3 / 0.5 = 2.6 -> 3
    assert (law.a, law.b) == (-2, 3)
    model.bounds_ = (np.array([0.0, -0.2]), np.array([1.0, 9.0]))
    law = laplace_exact_law(model, 1)
    assert (law.a, law.b) == (0, 7)  # 18 is clipped to k_hi


@pytest.mark.parametrize(
    "make, model",
    [
        (laplace_exact_law, _laplace_model(secure=False)),
        (additive_exact_law, SimpleNamespace(secure=False)),
        (square_wave_exact_law, SimpleNamespace(secure=False)),
    ],
)
def test_floating_point_samplers_have_no_exact_law(make, model):
    law = make(model, 0)
    assert isinstance(law, NoExactLaw)
    assert law.reason.startswith("secure=False draws floating-point noise")
    assert "is not floating-point safe" in law.reason


def test_generalized_gaussian_log_cdf_is_the_scaled_law():
    law = SimpleNamespace(scale=1.5, power=1.7)
    log_cdf = _generalized_gaussian_log_cdf(law, 0.25)  # 6 steps
    ref = stats.gennorm(beta=1.7, scale=6.0)
    t = np.array([-0.3, -2.0, -10.0, -40.0])
    np.testing.assert_allclose(log_cdf(t), ref.logcdf(t), rtol=1e-12)
    np.testing.assert_allclose(log_cdf(np.array([0.0])), [np.log(0.5)], rtol=1e-15)


def test_generalized_gaussian_precise_cdf_on_both_sides():
    law = SimpleNamespace(scale=1.5, power=1.7)
    cdf = _generalized_gaussian_cdf_precise(law, 0.25)
    ref = stats.gennorm(beta=1.7, scale=6.0)
    for t in (-13.0, -3.0, 0.0, 0.7, 2.5, 9.0):
        assert float(cdf(mpmath.mpf(t))) == pytest.approx(ref.cdf(t), rel=1e-13)
    assert cdf(mpmath.mpf(0)) == mpmath.mpf(1) / 2


def _huber_cdf(t, unit, beta):
    """P(Z <= t) for the density exp(-rho(z / unit)), by quadrature."""

    def density(u):
        return np.exp(
            -(abs(u) if abs(u) <= beta else (u * u + beta * beta) / (2 * beta))
        )

    pieces = [(-np.inf, -beta), (-beta, 0.0), (0.0, beta), (beta, np.inf)]
    total = sum(
        integrate.quad(density, lo, hi, epsabs=0, epsrel=1e-13)[0] for lo, hi in pieces
    )
    u = t / unit
    below = 0.0
    for lo, hi in pieces:
        if u > lo:
            below += integrate.quad(density, lo, min(hi, u), epsabs=0, epsrel=1e-13)[0]
    return below / total


def test_flipped_huber_log_cdf_in_the_centre_and_the_tails():
    law = SimpleNamespace(scale=0.8, beta=1.3)
    log_cdf = _flipped_huber_log_cdf(law, 0.2)  # 4 steps per unit
    # centre (|u| <= beta), the knee, the Gaussian tails
    for t in (-0.5, -3.0, -5.2, -6.0, -12.0):
        assert float(log_cdf(np.array([t]))[0]) == pytest.approx(
            math.log(_huber_cdf(t, 4.0, 1.3)), rel=1e-10
        )
    # far in the tail, where the probability underflows a subtraction
    far = float(log_cdf(np.array([-400.0]))[0])
    assert np.isfinite(far) and far < -1000


def test_flipped_huber_precise_cdf_on_both_sides():
    law = SimpleNamespace(scale=0.8, beta=1.3)
    cdf = _flipped_huber_cdf_precise(law, 0.2)
    for t in (-6.0, -1.0, 0.0, 1.0, 6.0):
        assert float(cdf(mpmath.mpf(t))) == pytest.approx(
            _huber_cdf(t, 4.0, 1.3), rel=1e-11
        )


def test_additive_law_of_each_noise_family():
    gg = SimpleNamespace(scale=1.5, power=1.7)
    fh = SimpleNamespace(scale=0.8, beta=1.3)
    model = SimpleNamespace(
        secure=True,
        noise_=[gg, fh],
        grid_step_=np.array([0.25, 0.2]),
        _n_cells=np.array([12, 20]),
        _margin=np.array([3, 5]),
        bounds_=(np.array([1.0, -2.0]), np.array([4.0, 2.0])),
    )
    law = additive_exact_law(model, 1)
    assert isinstance(law, ShiftLaw)
    assert (law.a, law.b, law.c_lo, law.c_hi) == (0, 20, -5, 25)
    assert law.noise.description == "rounded flipped Huber"
    t = np.array([-3.0, -7.5])
    np.testing.assert_array_equal(
        law.noise.log_cdf_negative(t), _flipped_huber_log_cdf(fh, 0.2)(t)
    )
    assert float(law.noise.cdf_precise(mpmath.mpf(-3))) == pytest.approx(
        _huber_cdf(-3.0, 4.0, 1.3), rel=1e-11
    )
    # indices count from the low bound
    assert (law.input_label(0), law.input_label(20)) == (-2.0, 2.0)
    assert law.input_label(1) == pytest.approx(-1.8)
    assert law.input_label(3) == pytest.approx(-1.4)
    assert law.output_label(-5) == pytest.approx(-3.0)
    law = additive_exact_law(model, 0)
    assert (law.a, law.b, law.c_lo, law.c_hi) == (0, 12, -3, 15)
    assert law.noise.description == "rounded generalized Gaussian (power 1.7)"
    np.testing.assert_array_equal(
        law.noise.log_cdf_negative(t), _generalized_gaussian_log_cdf(gg, 0.25)(t)
    )
    assert law.output_label(13) == pytest.approx(4.25)


def test_square_wave_law_is_the_coin_it_realises():
    p = 0.3
    model = SimpleNamespace(
        secure=True,
        _n_cells=10,
        _half_cells=2,
        _p_far=p,
        grid_step_=np.array([9.0, 0.5]),
        bounds_=(np.array([7.0, 1.0]), np.array([8.0, 6.0])),
    )
    law = square_wave_exact_law(model, 1)
    assert isinstance(law, BandLaw)
    assert (law.K, law.W) == (10, 2)
    realised = math.ceil(p * 2.0**53)
    assert realised / 2.0**53 > p  # the coin is true slightly more often
    far = realised / 2.0**53
    assert law.log_far == pytest.approx(math.log(far / 10), rel=1e-15)
    near_each = (1 - far) / 5
    assert law.log_ratio == pytest.approx(
        math.log(near_each) - math.log(far / 10), rel=1e-14
    )
    assert (law.input_label(0), law.input_label(10)) == (1.0, 6.0)
    assert law.input_label(1) == 1.5 and law.input_label(4) == 3.0
    assert law.output_label(-2) == 0.0


# -- the subset designs: the law audit() certifies is the one transform draws


# the six pairs of four categories (a subset and its complement each)
_PAIRS = np.array(
    [
        [1, 1, 0, 0],
        [0, 0, 1, 1],
        [1, 0, 1, 0],
        [0, 1, 0, 1],
        [1, 0, 0, 1],
        [0, 1, 1, 0],
    ]
)


def _subset_privatizers():
    from skprivate import SubsetUniform
    from skprivate.subset import SubsetDesign, SubsetMechanism

    cats = [list("abcd")]
    pairs = _PAIRS
    independent = SubsetDesign.independent(pairs, [0.3, 0.3, 0.1, 0.1, 0.1, 0.1])
    # the six pairs and the full set: each category's subsets carry
    # probability one (a: 0.3 + 0.25 + 0.2 + 0.25)
    subsets = np.vstack([pairs, [[1, 1, 1, 1]]])
    conditional = SubsetDesign.conditional(
        subsets, [0.3, 0.3, 0.25, 0.25, 0.2, 0.2, 0.25]
    )
    # a subset and its complement shown with different probabilities
    skewed = SubsetDesign.independent(pairs, [0.4, 0.2, 0.1, 0.1, 0.1, 0.1])
    # dummy categories on a conditional design (no builder makes one; the
    # design and the sampler accept it): a dummy respondent reports no category
    dummies = SubsetDesign(
        4, "conditional", conditional._masks, conditional._mu, min_coverage=0.1
    )
    return [
        SubsetUniform(categories=cats, min_coverage=0.15, random_state=1),
        SubsetMechanism(independent, categories=cats, random_state=2),
        SubsetMechanism(conditional, categories=cats, random_state=3),
        SubsetMechanism(skewed, categories=cats, random_state=4),
        SubsetMechanism(dummies, categories=cats, random_state=5),
    ]


@pytest.mark.parametrize("index", [0, 1, 2, 3, 4])
def test_subset_exact_law_is_the_law_transform_draws(index):
    model = _subset_privatizers()[index]
    model.fit(np.array([["a"], ["b"], ["c"], ["d"]]))
    law = model._exact_law(0)
    cats = list(law.input_labels)
    assert cats == ["a", "b", "c", "d"]
    labels = list(law.output_labels)
    assert len(set(labels)) == len(labels)
    # every output listed is possible for some category
    assert np.isfinite(law.log_prob).any(axis=0).all()
    n = 40_000
    for row, x in enumerate(cats):
        R = model.transform(np.full((n, 1), x))
        names = [
            "{" + ", ".join(c for c, bit in zip(cats, r[:4], strict=True) if bit) + "}"
            for r in R
        ]
        if R.shape[1] > 4:  # the dummy columns
            names = [
                f"{m} + dummy{int(np.argmax(r[4:])) + 1}" for m, r in zip(names, R)
            ]
        seen, counts = np.unique(names, return_counts=True)
        # every report drawn is an output of the law, with positive probability
        assert set(seen) <= set(labels)
        p = np.exp(law.log_prob[row])
        expected = np.array([p[labels.index(s)] for s in seen]) * n
        assert expected.sum() == pytest.approx(n, rel=1e-12)  # nothing missed
        stat, pvalue = stats.chisquare(counts, expected)
        assert pvalue > 1e-4, (x, stat)


# -- the interval release: infinite loss, shown by a real pair of values


def _interval_models():
    from skprivate import IntervalCaseI
    from skprivate.interval import IntervalMechanism

    return [
        IntervalCaseI(
            distribution="normal",
            loc=0.5,
            scale=2.0,
            anchor_loc=10.0,
            anchor_scale=3.0,
            random_state=0,
        ),
        IntervalMechanism(
            n_anchors=2, offsets=[-1.5, 1.0], anchor_scale=2.0, random_state=1
        ),
    ]


def test_interval_law_names_the_thirds_of_the_first_anchor():
    model = _interval_models()[0].fit(np.zeros((4, 1)))
    loss = model._exact_law(0)
    # the anchor is 10 + 3 (0.5 + 2 Z), Z standard normal
    u, v = stats.norm(11.5, 6.0).ppf([1 / 3, 2 / 3])
    assert loss.inputs == pytest.approx((u, v), rel=1e-12)
    assert loss.output == (
        f"an interval (lower, upper] with {u:.6g} <= upper < {v:.6g}"
    )
    assert loss.reason == (
        "interval release: the interval always contains the value, so an output "
        "excluding the second value (probability 0 for it, positive for the "
        "first) makes the likelihood ratio infinite; the notion is coverage, "
        "not epsilon"
    )
    assert loss.worst_epsilon().value == np.inf


@pytest.mark.parametrize("index", [0, 1])
def test_interval_law_pair_is_a_witness_of_the_sampler(index):
    model = _interval_models()[index].fit(np.zeros((4, 1)))
    u, v = model._exact_law(0).inputs
    assert u < v
    n = 20_000
    upper_u = model.transform(np.full((n, 1), u))[:, 1]
    upper_v = model.transform(np.full((n, 1), v))[:, 1]
    # the output is possible for u (often: the anchors fall there) ...
    assert np.mean((upper_u >= u) & (upper_u < v)) > 0.05
    # ... and impossible for v, whose interval always contains it
    assert not np.any(upper_v < v)


def test_interval_law_moves_with_the_first_offset():
    model = _interval_models()[1].fit(np.zeros((4, 1)))
    # logistic anchors of scale 2, the first moved by 2 * (-1.5)
    u, v = stats.logistic(-3.0, 2.0).ppf([1 / 3, 2 / 3])
    assert model._exact_law(0).inputs == pytest.approx((u, v), rel=1e-12)


# -- the negative survey: the grid law its windowed claim is audited on


def _rvns(placement, **kw):
    from skprivate import RVNSPerturber

    X = np.array([[1.0, 20.0], [4.0, 25.0]])
    params = {"d": [2.0, 3.0], "bounds": ([0.0, 18.0], [10.0, 30.0])}
    params.update(kw)
    return RVNSPerturber(placement=placement, random_state=0, **params).fit(X)


@pytest.mark.parametrize("k", [1, 2])
def test_rvns_law_reads_the_columns_grid_and_the_claims_delta(k):
    model = _rvns("boundary_safe", k=k)
    for j in (0, 1):
        law = model._exact_law(j)
        h, ja, jb, D = (np.asarray(v)[j] for v in model._grid)
        delta = float(model.privacy_summary()["delta"])
        assert (law.origin, law.step, law.delta) == (int(ja), float(h), delta)
        assert law.placement == "boundary_safe"
        g = law.grid
        assert (g.K, g.D, g.m, g.k, g.safe) == (
            int(jb - ja),
            int(D),
            math.floor(delta / float(h)),
            k,
            True,
        )
        assert g.inputs == (0, g.K)
        worst = law.worst_epsilon()
        assert worst.value == pytest.approx(
            math.log(g.worst().ratio.numerator) - math.log(g.worst().ratio.denominator)
        )
        x, x2 = g.worst().inputs
        assert worst.inputs == ((int(ja) + x) * float(h), (int(ja) + x2) * float(h))
        noun = "window" if k == 1 else f"{k} windows"
        assert worst.output.startswith(f"{noun} of half-width {delta:.6g} around y = ")
        assert "over every input searched" in worst.method
        assert law.worst_delta(1.0) is None


def test_rvns_paper_law_audits_the_inputs_at_the_margin():
    model = _rvns("paper")
    delta = float(model.privacy_summary()["delta"])
    for j, (low, high) in enumerate([(0.0, 10.0), (18.0, 30.0)]):
        law = model._exact_law(j)
        h, ja, jb, _ = (np.asarray(v)[j] for v in model._grid)
        margin = float(np.broadcast_to(model.boundary_margin(delta), (2,))[j])
        assert margin > 0
        K = int(jb - ja)
        lo = min(max(int(np.rint((low + margin) / h)) - int(ja), 0), K)
        hi = min(max(int(np.rint((high - margin) / h)) - int(ja), 0), K)
        assert law.grid.inputs == (lo, hi) and 0 < lo < hi < K
        assert law.placement == "paper" and not law.grid.safe
        assert "inputs at least boundary_margin from the bounds" in (
            law.worst_epsilon().method
        )


def test_rvns_law_refusals():
    from skprivate import RVNSPerturber

    model = RVNSPerturber(d=2.0, bounds=(0, 10), secure=False).fit([[1.0]])
    law = model._exact_law(0)
    assert isinstance(law, NoExactLaw)
    assert law.reason.startswith("secure=False draws floating-point reports")


def test_interval_law_of_an_ensemble_reads_its_first_member():
    from skprivate import IntervalCaseI, IntervalCaseII
    from skprivate.interval import IntervalEnsemble

    model = IntervalEnsemble(
        [IntervalCaseI(distribution="normal"), IntervalCaseII()], random_state=0
    ).fit(np.zeros((4, 1)))
    # an ensemble has no offsets of its own: the first member's anchor law
    u, v = stats.norm.ppf([1 / 3, 2 / 3])
    assert model._exact_law(0).inputs == pytest.approx((u, v), rel=1e-12)


def test_subset_law_normalizes_probabilities_within_the_designs_tolerance():
    from skprivate.subset import SubsetDesign, SubsetMechanism

    # the designs accept probabilities 1e-8 from summing to one; the law
    # divides them out, so its rows sum to one (the audit checks to 1e-9)
    pairs = _PAIRS
    nu = np.array([0.4, 0.2, 0.1, 0.1, 0.1, 0.1]) * (1 + 8e-9)
    mu = np.array([0.3, 0.3, 0.25, 0.25, 0.2, 0.2, 0.25]) * (1 + 8e-9)
    designs = [
        SubsetDesign.independent(pairs, nu),
        SubsetDesign.conditional(np.vstack([pairs, [[1, 1, 1, 1]]]), mu),
    ]
    X = np.array([["a"], ["b"], ["c"], ["d"]])
    for design in designs:
        model = SubsetMechanism(design, categories=[list("abcd")]).fit(X)
        law = model._exact_law(0)
        np.testing.assert_allclose(np.exp(law.log_prob).sum(axis=1), 1.0, atol=1e-12)


def test_subset_law_of_a_design_too_large_to_enumerate():
    from skprivate import SubsetUniform
    from skprivate.subset._design import MAX_ENUMERATED

    p = MAX_ENUMERATED + 1
    cats = [f"c{i}" for i in range(p)]
    model = SubsetUniform(categories=[cats]).fit(np.array([[cats[0]]]))
    law = model._exact_law(0)
    assert isinstance(law, NoExactLaw)
    assert law.reason == (
        f"the design has {p} categories, too many subsets to enumerate"
    )


@pytest.mark.parametrize(("placement", "k"), [("boundary_safe", 2), ("paper", 1)])
def test_rvns_law_report_texts_in_full(placement, k):
    model = _rvns(placement, k=k)
    law = model._exact_law(1)
    g = law.grid
    found = g.worst()
    delta = law.delta
    centres = ", ".join(f"{(law.origin + c) * law.step:.10g}" for c in found.centres)
    noun = "window" if k == 1 else f"{k} windows"
    worst = law.worst_epsilon()
    assert worst.output == f"{noun} of half-width {delta:.6g} around y = {centres}"
    scope = (
        "every input"
        if placement == "boundary_safe"
        else "inputs at least boundary_margin from the bounds"
    )
    assert worst.method == (
        f"windowed grid law ({placement}, k={k}, delta={delta:.6g}: "
        f"band D={g.D} and window m={g.m} steps of {law.step:.6g}): exact "
        "window probabilities (integer counts), the worst pair and window "
        f"tuple over {scope} searched from the law's piecewise structure"
    )


def test_rvns_float_sampler_reason_in_full():
    from skprivate import RVNSPerturber

    law = RVNSPerturber(d=2.0, bounds=(0, 10), secure=False).fit([[1.0]])._exact_law(0)
    assert law.reason == (
        "secure=False draws floating-point reports whose rounding depends on "
        "the band, hence on the value: no exact law, not floating-point safe"
    )
