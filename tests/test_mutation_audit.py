"""The audit's worst cases pinned on small exact laws.

``skprivate/_audit/_shift.py`` and ``skprivate/_audit/_finite.py`` turn an
exact output law into the privacy loss :func:`skprivate.audit` certifies.
These tests compare them with brute force on laws small enough to
enumerate; ``benchmarks/_mutation_specs_exact_laws.py`` lists the mutants
they kill.
"""

import itertools

import mpmath
import numpy as np
import pytest

from skprivate._audit import BandLaw, MatrixLaw, RoundedNoise, ShiftLaw


def _laplace_noise(s, precise=False, ratio=True):
    """Rounded Laplace of scale ``s`` steps (the audit's own description)."""

    def log_cdf_negative(t):
        return np.log(0.5) + np.asarray(t, dtype=float) / s

    def log_ratio_negative(t1, t2):
        return (np.asarray(t1, dtype=float) - np.asarray(t2, dtype=float)) / s

    def cdf(t):
        with mpmath.workdps(40):
            half = mpmath.exp(-abs(t) / mpmath.mpf(s)) / 2
            return half if t <= 0 else 1 - half

    return RoundedNoise(
        log_cdf_negative,
        "Laplace",
        log_ratio_negative if ratio else None,
        cdf if precise else None,
    )


def _brute(matrix, epsilon):
    """Largest log ratio and largest hockey-stick divergence, by enumeration."""
    P = np.exp(matrix)
    loss, delta, where = 0.0, 0.0, None
    for i, j in itertools.permutations(range(P.shape[0]), 2):
        with np.errstate(divide="ignore"):
            loss = max(loss, float(np.max(matrix[i] - matrix[j])))
        d = float(np.sum(np.maximum(P[i] - np.exp(epsilon) * P[j], 0.0)))
        if d > delta:
            delta, where = d, (i, j)
    return loss, delta, where


@pytest.mark.parametrize("precise", [False, True])
@pytest.mark.parametrize("ratio", [False, True])
@pytest.mark.parametrize(
    ("a", "b", "c_lo", "c_hi"), [(0, 4, -3, 7), (1, 3, -1, 9), (0, 5, -6, 6)]
)
def test_shift_law_worst_cases_equal_enumeration(a, b, c_lo, c_hi, precise, ratio):
    law = ShiftLaw(a, b, c_lo, c_hi, _laplace_noise(1.7, precise, ratio))
    matrix = law.to_matrix()
    np.testing.assert_allclose(np.exp(matrix).sum(axis=1), 1.0, rtol=1e-12)
    for eps in (0.3, 1.0):
        loss, delta, _ = _brute(matrix, eps)
        got = law.worst_epsilon()
        assert got.value == pytest.approx(loss, rel=1e-12)
        worst = law.worst_delta(eps)
        assert worst.value == pytest.approx(delta, rel=1e-9)
        # the pair is the extreme inputs, ordered as the divergence is taken
        assert set(worst.inputs) == {a, b}
        first, second = worst.inputs[0] - a, worst.inputs[1] - a
        P = np.exp(matrix)
        ordered = float(np.sum(np.maximum(P[first] - np.exp(eps) * P[second], 0)))
        assert ordered == pytest.approx(worst.value, rel=1e-9)


def _gaussian_noise(sigma):
    from scipy import stats

    return RoundedNoise(lambda t: stats.norm.logcdf(np.asarray(t) / sigma), "Gauss")


@pytest.mark.parametrize(
    ("c_lo", "c_hi", "pair", "output"), [(-2, 9, (4, 0), 9), (-5, 6, (0, 4), -5)]
)
def test_shift_law_worst_epsilon_names_the_clamp_it_is_attained_on(
    c_lo, c_hi, pair, output
):
    # Gaussian tails: the ratio of the extreme inputs grows with the
    # distance to the clamp, so the farther clamp is the worst output
    law = ShiftLaw(0, 4, c_lo, c_hi, _gaussian_noise(1.5))
    worst = law.worst_epsilon()
    assert worst.inputs == pair and worst.output == output
    loss, _, _ = _brute(law.to_matrix(), 1.0)
    assert worst.value == pytest.approx(loss, rel=1e-12)
    assert worst.method.startswith("shift law: monotone likelihood ratio")
    for eps in (0.5, 2.0):
        _, delta, _ = _brute(law.to_matrix(), eps)
        assert law.worst_delta(eps).value == pytest.approx(delta, rel=1e-9)


def test_shift_law_of_one_input_loses_nothing():
    law = ShiftLaw(2, 2, 0, 5, _laplace_noise(1.0), input_label=lambda k: 10 * k)
    assert law.worst_epsilon().value == 0.0
    assert law.worst_epsilon().inputs == (20, 20)
    assert law.worst_delta(0.5).value == 0.0


def test_shift_law_labels_and_the_half_line_of_delta():
    law = ShiftLaw(
        0,
        3,
        -4,
        7,
        _laplace_noise(1.3),
        input_label=lambda k: 0.5 * k,
        output_label=lambda m: 0.5 * m,
    )
    worst = law.worst_delta(0.2)
    assert set(worst.inputs) == {0.0, 1.5}
    assert worst.output.startswith("outputs <= ") or worst.output.startswith(
        "outputs >= "
    )
    assert law.worst_epsilon().output in (-2.0, 3.5)


def test_shift_law_refuses_an_inconsistent_range_and_a_large_table():
    with pytest.raises(ValueError, match="c_lo <= a <= b <= c_hi"):
        ShiftLaw(0, 4, 1, 9, _laplace_noise(1.0))
    with pytest.raises(ValueError, match="c_lo < c_hi"):
        ShiftLaw(0, 0, 0, 0, _laplace_noise(1.0))
    law = ShiftLaw(0, 9, -5, 15, _laplace_noise(1.0))
    with pytest.raises(ValueError, match="10 x 21 cells, more than max_cells=100"):
        law.to_matrix(max_cells=100)
    assert law.to_matrix(max_cells=210).shape == (10, 21)
    # outside the clamps nothing is released
    assert law.log_prob(0, 16) == -np.inf and law.log_prob(0, -6) == -np.inf


@pytest.mark.parametrize(("K", "W", "r"), [(4, 1, 1.2), (2, 3, 0.7), (6, 0, -0.9)])
def test_band_law_worst_cases_equal_enumeration(K, W, r):
    n_out = K + 2 * W + 1
    # q from the normalization: (2 W + 1) e**r q + K q = 1
    q = 1.0 / ((2 * W + 1) * np.exp(r) + K)
    law = BandLaw(K, W, float(np.log(q)), r)
    matrix = law.to_matrix()
    assert matrix.shape == (K + 1, n_out)
    np.testing.assert_allclose(np.exp(matrix).sum(axis=1), 1.0, rtol=1e-12)
    for eps in (0.1, 0.5, 2.0):
        loss, delta, _ = _brute(matrix, eps)
        assert law.worst_epsilon().value == pytest.approx(loss, rel=1e-12)
        assert law.worst_delta(eps).value == pytest.approx(delta, rel=1e-9, abs=1e-15)
    pair = (0, K) if r >= 0 else (K, 0)
    assert law.worst_epsilon().inputs == pair and law.worst_epsilon().output == -W
    assert law.worst_delta(0.1).output == f"{min(K, 2 * W + 1)} outputs from {-W}"


def test_band_law_of_one_input_and_its_normalization():
    law = BandLaw(0, 2, float(np.log(0.2)), 0.0)
    assert law.worst_epsilon().value == 0.0 and law.worst_delta(0.1).value == 0.0
    with pytest.raises(ValueError, match="sum to"):
        BandLaw(3, 1, float(np.log(0.1)), 0.0)


def test_matrix_law_worst_cases_equal_enumeration():
    rng = np.random.default_rng(3)
    P = rng.dirichlet(np.ones(5), size=4)
    P[1, 2] = 0.0
    P[1] /= P[1].sum()
    with np.errstate(divide="ignore"):
        lp = np.log(P)
    law = MatrixLaw(lp, input_labels=list("wxyz"), output_labels=[10, 11, 12, 13, 14])
    loss, delta, pair = _brute(lp, 0.4)
    assert law.worst_epsilon().value == loss  # an impossible output: inf
    worst = law.worst_delta(0.4)
    assert worst.value == pytest.approx(delta, rel=1e-12)
    assert worst.inputs == ("wxyz"[pair[0]], "wxyz"[pair[1]])
    assert worst.method == "finite law: every ordered input pair, all outputs summed"
    # without the zero, a finite loss and the output it is attained on
    law = MatrixLaw(np.log(rng.dirichlet(np.ones(3), size=3)))
    lp = law.log_prob
    spread = lp.max(axis=0) - lp.min(axis=0)
    worst = law.worst_epsilon()
    assert worst.value == pytest.approx(spread.max(), rel=1e-12)
    assert worst.output == int(np.argmax(spread))
    assert worst.inputs == (
        int(np.argmax(lp[:, worst.output])),
        int(np.argmin(lp[:, worst.output])),
    )


def test_matrix_law_refuses_tables_that_are_not_laws():
    with pytest.raises(ValueError, match="2-D table"):
        MatrixLaw(np.zeros(3))
    with pytest.raises(ValueError, match="row 1 does not sum to one"):
        MatrixLaw(np.log(np.array([[0.5, 0.5], [0.5, 0.6]])))


def test_rounded_noise_tails_and_their_ratios_by_hand():
    s = 1.7
    noise = _laplace_noise(s)
    plain = _laplace_noise(s, ratio=False)

    def F(t):  # P(Z <= t) of the Laplace law of scale s
        return 0.5 * np.exp(t / s) if t <= 0 else 1 - 0.5 * np.exp(-t / s)

    for n in (-3, -1, 0, 1, 2):
        assert noise.logcdf(n) == pytest.approx(np.log(F(n + 0.5)), rel=1e-13)
        assert noise.logsf(n) == pytest.approx(np.log(F(0.5 - n)), rel=1e-13)
        pmf = F(abs(n) + 0.5) - F(abs(n) - 0.5)
        assert noise.logpmf(n) == pytest.approx(np.log(pmf), rel=1e-12)
    for n1, n2 in ((-4, -1), (-2, 1), (1, 3), (0, -2)):
        for upper in (False, True):
            if upper:
                want = np.log(F(0.5 - n1)) - np.log(F(0.5 - n2))
            else:
                want = np.log(F(n1 + 0.5)) - np.log(F(n2 + 0.5))
            for rounded in (noise, plain):
                got = rounded.log_tail_ratio(n1, n2, upper=upper)
                assert got == pytest.approx(want, rel=1e-12, abs=1e-14), (n1, n2, upper)


@pytest.mark.parametrize(
    ("a", "b", "c_lo", "c_hi"),
    [(0, 3, 0, 6), (2, 5, -1, 5), (0, 2, 0, 2), (0, 1, 0, 3)],
)
@pytest.mark.parametrize("precise", [False, True])
def test_shift_law_with_inputs_on_the_clamps(a, b, c_lo, c_hi, precise):
    for noise in (_laplace_noise(0.9, precise), _gaussian_noise(1.1)):
        law = ShiftLaw(a, b, c_lo, c_hi, noise)
        matrix = law.to_matrix()
        np.testing.assert_allclose(np.exp(matrix).sum(axis=1), 1.0, rtol=1e-12)
        for eps in (0.05, 0.4, 1.5):
            loss, delta, _ = _brute(matrix, eps)
            assert law.worst_epsilon().value == pytest.approx(loss, rel=1e-12)
            assert law.worst_delta(eps).value == pytest.approx(
                delta, rel=1e-9, abs=1e-300
            )


def test_shift_law_reports_name_their_method_and_outputs():
    law = ShiftLaw(
        0,
        3,
        -4,
        7,
        _laplace_noise(1.3),
        input_label=lambda k: k / 3,
        output_label=lambda m: m / 3,
    )
    worst = law.worst_delta(0.2)
    assert worst.method == (
        "shift law: half-line rejection sets, extreme inputs, threshold by "
        "bisection (tail probabilities in log space)"
    )
    # float labels are shown to ten significant digits
    side, value = worst.output.split(" ", 2)[1:]
    assert side in ("<=", ">=")
    assert value == format(float(value), ".10g") and "." in value
    assert worst.inputs in ((0.0, 1.0), (1.0, 0.0))
    precise = ShiftLaw(0, 3, -4, 7, _laplace_noise(1.3, precise=True))
    worst = precise.worst_delta(0.2)
    assert worst.method.endswith("; delta evaluated at 40 significant digits")
    # integer labels are shown as they are
    assert worst.output.split(" ")[-1].lstrip("-").isdigit()
    assert precise.worst_epsilon().method == (
        "shift law: monotone likelihood ratio, extreme inputs, clamp outputs "
        "(tail probabilities in log space)"
    )


def test_shift_law_of_one_input_reports_the_input_twice_and_no_output():
    law = ShiftLaw(2, 2, 0, 5, _laplace_noise(1.0), input_label=lambda k: 10 * k)
    for worst in (law.worst_epsilon(), law.worst_delta(0.5)):
        assert worst.value == 0.0 and worst.inputs == (20, 20)
        assert worst.output is None and worst.method.startswith("shift law: ")


def test_shift_law_refusal_message_names_the_range():
    message = (
        "ShiftLaw needs c_lo <= a <= b <= c_hi and c_lo < c_hi; got a=0, b=4, "
        "c_lo=1, c_hi=9."
    )
    with pytest.raises(ValueError) as caught:
        ShiftLaw(0, 4, 1, 9, _laplace_noise(1.0))
    assert str(caught.value) == message
    for args in ((0, 4, 0, 4), (0, 0, 0, 1), (3, 3, 0, 3), (0, 3, 0, 3)):
        ShiftLaw(*args, _laplace_noise(1.0))  # the edges are allowed


def test_matrix_law_reports_and_refusal_of_a_large_table():
    import skprivate._audit._finite as finite

    P = np.array([[0.5, 0.3, 0.2, 0.0], [0.1, 0.2, 0.3, 0.4], [0.25, 0.25, 0.25, 0.25]])
    with np.errstate(divide="ignore"):
        lp = np.log(P)
    law = MatrixLaw(lp)  # no labels: the indices
    worst = law.worst_delta(0.1)
    _, delta, pair = _brute(lp, 0.1)
    assert worst.inputs == pair and worst.value == pytest.approx(delta, rel=1e-12)
    i, i2 = pair
    want = np.flatnonzero(P[i] - np.exp(0.1) * P[i2] > 0)[:5].tolist()
    assert worst.output == want
    worst = law.worst_epsilon()
    assert worst.method == "finite law: every input pair and every output enumerated"
    assert worst.value == np.inf and worst.output == 3 and worst.inputs == (1, 0)
    # a table of equal rows loses nothing
    same = MatrixLaw(np.log(np.full((3, 4), 0.25)))
    assert same.worst_epsilon().value == 0.0 and same.worst_delta(0.0).value == 0.0
    big = MatrixLaw(np.log(np.full((40, 5), 0.2)))
    old = finite._MAX_PAIR_CELLS
    try:
        finite._MAX_PAIR_CELLS = 40 * 40 * 5 - 1
        with pytest.raises(ValueError) as caught:
            big.worst_delta(1.0)
        assert str(caught.value) == (
            "40 inputs x 5 outputs is too large a table to enumerate pairs."
        )
        finite._MAX_PAIR_CELLS = 40 * 40 * 5
        assert big.worst_delta(1.0).value == 0.0
    finally:
        finite._MAX_PAIR_CELLS = old


def test_band_law_reports_name_their_method_and_labels():
    q = 1.0 / (3 * np.exp(0.8) + 4)
    law = BandLaw(
        4,
        1,
        float(np.log(q)),
        0.8,
        input_label=lambda k: f"x{k}",
        output_label=lambda j: f"y{j}",
    )
    worst = law.worst_epsilon()
    assert worst.inputs == ("x0", "x4") and worst.output == "y-1"
    assert (
        worst.method == "band law: two probability levels, extreme inputs, edge output"
    )
    worst = law.worst_delta(0.3)
    assert worst.inputs == ("x0", "x4") and worst.output == "3 outputs from y-1"
    assert worst.method == (
        "band law: outputs in one band only, counted for the extreme pair"
    )
    assert law.worst_delta(0.8).value == 0.0 and law.worst_delta(2.0).value == 0.0
    # a band wider than the inputs: K outputs differ, not 2 W + 1
    q = 1.0 / (7 * np.exp(0.5) + 2)
    wide = BandLaw(2, 3, float(np.log(q)), 0.5)
    _, delta, _ = _brute(wide.to_matrix(), 0.2)
    assert wide.worst_delta(0.2).value == pytest.approx(delta, rel=1e-12)
    assert wide.worst_delta(0.2).output == "2 outputs from -3"


def test_rounded_noise_ratio_at_the_centre_uses_the_tails_themselves():
    # t1 <= 0 but t2 = 1/2 > 0: the Laplace shortcut (t1 - t2) / s does not
    # apply there
    s = 1.7
    noise = _laplace_noise(s)
    want = np.log(0.5 * np.exp(-2.5 / s)) - np.log(1 - 0.5 * np.exp(-0.5 / s))
    assert noise.log_tail_ratio(-3, 0, upper=False) == pytest.approx(want, rel=1e-12)


class _SkewedGeometric:
    """Integer noise with P(N = n) proportional to exp(-right n) for n >= 0
    and exp(left n) below: log-concave, not symmetric (the upper half-lines
    can then be the worst rejection sets)."""

    def __init__(self, left, right):
        self.left, self.right = left, right
        self.log_z = np.log(
            1 / (1 - np.exp(-right)) + np.exp(-left) / (1 - np.exp(-left))
        )

    def _log_below(self, n):  # log P(N <= n), n < 0
        return self.left * n - np.log1p(-np.exp(-self.left)) - self.log_z

    def _log_above(self, n):  # log P(N >= n), n > 0
        return -self.right * n - np.log1p(-np.exp(-self.right)) - self.log_z

    def logpmf(self, n):
        n = np.asarray(n, dtype=float)
        return np.where(n >= 0, -self.right * n, self.left * n) - self.log_z

    def logcdf(self, n):
        n = np.asarray(n, dtype=float)
        with np.errstate(invalid="ignore", over="ignore"):
            low = self._log_below(np.minimum(n, -1))
            high = np.log1p(-np.exp(self._log_above(np.maximum(n + 1, 1))))
        return np.where(n < 0, low, high)

    def logsf(self, n):
        n = np.asarray(n, dtype=float)
        with np.errstate(invalid="ignore", over="ignore"):
            high = self._log_above(np.maximum(n, 1))
            low = np.log1p(-np.exp(self._log_below(np.minimum(n - 1, -1))))
        return np.where(n > 0, high, low)


@pytest.mark.parametrize("skew", [(0.4, 1.5), (1.5, 0.4)])
def test_shift_law_with_skewed_noise_reports_either_half_line(skew):
    noise = _SkewedGeometric(*skew)
    # the noise object is a law: its pmf sums to one, its cdf accumulates it
    n = np.arange(-200, 201)
    np.testing.assert_allclose(np.exp(noise.logpmf(n)).sum(), 1.0, rtol=1e-12)
    np.testing.assert_allclose(
        np.exp(noise.logcdf(n[:-1])),
        np.cumsum(np.exp(noise.logpmf(n)))[:-1],
        rtol=1e-9,
        atol=1e-15,
    )
    law = ShiftLaw(0, 3, -40, 43, noise, output_label=lambda m: m * 1e-5)
    matrix = law.to_matrix()
    loss, delta, pair = _brute(matrix, 0.2)
    assert law.worst_epsilon().value == pytest.approx(loss, rel=1e-9)
    worst = law.worst_delta(0.2)
    assert worst.value == pytest.approx(delta, rel=1e-9)
    assert worst.inputs == pair
    side = "<=" if pair == (0, 3) else ">="
    assert worst.output.startswith(f"outputs {side} ")
    value = worst.output.removeprefix(f"outputs {side} ")
    assert value == format(float(value), ".10g") and "e-05" in value


def test_shift_law_table_size_limit():
    with pytest.raises(ValueError, match="8 x 21 cells, more than max_cells=100"):
        ShiftLaw(2, 9, -5, 15, _laplace_noise(1.0)).to_matrix(max_cells=100)
    # the default limit is four million cells
    with pytest.raises(ValueError, match="1 x 4000001 cells"):
        ShiftLaw(0, 0, 0, 4_000_000, _laplace_noise(1.0)).to_matrix()


@pytest.mark.parametrize("precise", [False, True])
def test_shift_law_far_from_the_origin(precise):
    # grid indices far from 0: every offset t - a is read relative to its input
    law = ShiftLaw(40, 44, 31, 55, _laplace_noise(1.4, precise))
    matrix = law.to_matrix()
    for eps in (0.1, 0.7):
        loss, delta, _ = _brute(matrix, eps)
        assert law.worst_epsilon().value == pytest.approx(loss, rel=1e-12)
        assert law.worst_delta(eps).value == pytest.approx(delta, rel=1e-9)


def test_band_law_pairs_when_the_band_is_less_likely():
    # r < 0: the band is the less likely part, the pair is (K, 0)
    K, W, r = 6, 0, -0.9
    q = 1.0 / ((2 * W + 1) * np.exp(r) + K)
    law = BandLaw(K, W, float(np.log(q)), r, input_label=lambda k: 10 + k)
    assert law.worst_epsilon().inputs == (16, 10)
    assert law.worst_delta(0.1).inputs == (16, 10)
    one = BandLaw(0, 2, float(np.log(0.2)), 0.0, input_label=lambda k: 10 + k)
    worst = one.worst_epsilon()
    assert worst.inputs == (10, 10) and worst.output is None
    assert (
        worst.method == "band law: two probability levels, extreme inputs, edge output"
    )


def test_matrix_law_ignores_outputs_no_input_can_produce():
    P = np.array([[0.5, 0.0, 0.5], [0.2, 0.0, 0.8]])
    with np.errstate(divide="ignore"):
        law = MatrixLaw(np.log(P))
    worst = law.worst_epsilon()
    assert worst.value == pytest.approx(np.log(2.5), rel=1e-12)
    assert worst.output == 0 and worst.inputs == (0, 1)


def test_matrix_law_lists_at_most_five_outputs_of_the_worst_delta():
    P = np.vstack([np.full(8, 1 / 8), np.r_[np.full(7, 0.01), 0.93]])
    law = MatrixLaw(np.log(P))
    worst = law.worst_delta(0.1)
    assert worst.inputs == (0, 1) and worst.output == [0, 1, 2, 3, 4]


def test_matrix_law_shape_and_normalization_refusals():
    with pytest.raises(ValueError, match=r"2-D table; got shape \(0, 3\)"):
        MatrixLaw(np.zeros((0, 3)))
    with pytest.raises(ValueError, match="row 0 does not sum to one"):
        MatrixLaw(np.zeros((2, 0)))
    MatrixLaw(np.log(np.array([[0.5, 0.5]])))  # one input is a law too
    # the rows must sum to one within 1e-9, absolutely
    for excess, ok in ((5e-10, True), (5e-9, False), (5e-6, False)):
        table = np.log(np.array([[0.5, 0.5 + excess], [0.5, 0.5]]))
        if ok:
            MatrixLaw(table)
        else:
            with pytest.raises(ValueError, match="row 0 does not sum to one"):
                MatrixLaw(table)
    # the row named is the one farthest from one
    table = np.log(np.array([[0.25, 0.25], [0.6, 0.6], [0.5, 0.5]]))
    with pytest.raises(ValueError, match="row 0 does not sum to one"):
        MatrixLaw(table)


@pytest.mark.parametrize(
    ("skew", "args", "output"),
    [
        ((3.0, 0.2), (0, 3, -20, 3), "outputs <= 2"),
        ((0.2, 3.0), (0, 3, 0, 23), "outputs >= 1"),
    ],
)
def test_shift_law_best_threshold_next_to_a_clamp(skew, args, output):
    # a noise whose mass leans to one side puts the worst half-line right
    # against the clamp: {m <= c_hi - 1} or {m >= c_lo + 1}
    law = ShiftLaw(*args, _SkewedGeometric(*skew))
    _, delta, _ = _brute(law.to_matrix(), 0.2)
    worst = law.worst_delta(0.2)
    assert worst.value == pytest.approx(delta, rel=1e-9)
    assert worst.output == output
