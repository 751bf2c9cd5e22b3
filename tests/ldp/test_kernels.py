"""Deconvolution kernels: closed forms, normalization, binned sums."""

import numpy as np
import pytest
from scipy import integrate

from skprivate.ldp import deconvolution_kernel
from skprivate.ldp._binned_1d import BinnedSums
from skprivate.ldp._direct_sums import direct_sums
from skprivate.ldp._kernels import base_kernel, base_kernel_ft, product_kernel


@pytest.mark.parametrize("kernel", ["gaussian", "cauchy"])
@pytest.mark.parametrize("b, h", [(0.3, 0.2), (0.6, 0.1), (0.0, 1.0)])
def test_kernel_integrates_to_one(kernel, b, h):
    # SPEC 2.3: int K_hat = 1 for b = 0.3, h = 0.2
    value, _err = integrate.quad(
        lambda u: deconvolution_kernel(u, b / h, kernel), -np.inf, np.inf, limit=400
    )
    assert value == pytest.approx(1.0, abs=1e-8)


def test_kernel_takes_negative_values():
    u = np.linspace(-5, 5, 1001)
    for kernel in ["gaussian", "cauchy"]:
        assert deconvolution_kernel(u, 1.5, kernel).min() < 0


def test_product_kernel_in_two_dimensions_integrates_to_one():
    ratio = np.array([1.5, 0.5])

    def f(v, u):
        return product_kernel(np.array([[u, v]]), ratio, "gaussian")[0]

    value, _ = integrate.dblquad(f, -12, 12, -12, 12)
    assert value == pytest.approx(1.0, abs=1e-6)


@pytest.mark.parametrize("kernel", ["gaussian", "cauchy"])
def test_kernel_is_k_minus_r_second_derivative(kernel):
    u = np.linspace(-4, 4, 81)
    eps = 1e-4
    second = (
        base_kernel(u + eps, kernel)
        - 2 * base_kernel(u, kernel)
        + base_kernel(u - eps, kernel)
    ) / eps**2
    r = 2.25
    expected = base_kernel(u, kernel) - r * second
    np.testing.assert_allclose(
        deconvolution_kernel(u, 1.5, kernel), expected, atol=1e-6
    )


def test_cauchy_matches_the_papers_form():
    u = np.linspace(-6, 6, 241)
    r = 0.7
    one = 1 + u**2
    paper = (1 / one - r * 8 * u**2 / one**3 + r * 2 / one**2) / np.pi
    np.testing.assert_allclose(
        deconvolution_kernel(u, np.sqrt(r), "cauchy"), paper, atol=4e-16 * 10
    )
    # K'' = (6x^2 - 2) / (pi (1 + x^2)^3) matches finite differences
    eps = 1e-4
    fd = (
        base_kernel(u + eps, "cauchy")
        - 2 * base_kernel(u, "cauchy")
        + base_kernel(u - eps, "cauchy")
    ) / eps**2
    np.testing.assert_allclose(fd, (6 * u**2 - 2) / (np.pi * one**3), atol=1e-6)


@pytest.mark.parametrize("kernel", ["gaussian", "cauchy"])
def test_fourier_transform_is_phi_k_times_inverse_laplace_cf(kernel):
    b, h = 0.4, 0.5
    for t in [0.3, 1.0, 2.5]:
        half, _ = integrate.quad(
            lambda u: deconvolution_kernel(u, b / h, kernel),
            0,
            np.inf,
            weight="cos",
            wvar=t,
        )
        re = 2 * half
        # FT of K_hat at t is phi_K(t) (1 + (b/h)^2 t^2)
        assert re == pytest.approx(
            base_kernel_ft(t, kernel) * (1 + (b / h) ** 2 * t**2), abs=1e-7
        )


def test_unknown_kernel_is_refused():
    with pytest.raises(ValueError, match="kernel must be one of"):
        deconvolution_kernel(0.0, 1.0, "epanechnikov")


@pytest.mark.parametrize("kernel", ["gaussian", "cauchy"])
def test_binned_sums_match_direct_sums(kernel):
    rng = np.random.default_rng(0)
    z = rng.normal(size=5000) + rng.laplace(scale=0.5, size=5000)
    W = np.column_stack([np.ones(5000), rng.normal(size=5000)])
    x = np.linspace(-3, 3, 200)
    binned = BinnedSums(z, W, 0.3, 0.5 / 0.3, kernel, absolute=True)
    direct = (
        direct_sums(
            x[:, None], z[:, None], W, 0.3, np.array([0.5 / 0.3]), kernel, absolute=True
        )
        / 0.3
    )
    got = binned(x)
    # errors relative to the peak of the unweighted sum (about 1e-5 here);
    # |K_hat| has kinks, so its binned sum (used only as a threshold) is coarser
    peak = np.abs(direct[:, 0]).max()
    assert np.abs(got - direct)[:, :2].max() < 1e-4 * peak
    assert np.abs(got - direct)[:, 2].max() < 1e-3 * peak


def test_pair_weight_is_the_points_own_contribution():
    rng = np.random.default_rng(1)
    z = rng.normal(size=50)
    x = z + rng.normal(scale=0.1, size=50)
    binned = BinnedSums(z, np.ones((50, 1)), 0.4, 1.0, "gaussian")
    full = binned(x)[:, 0]
    for j in [0, 17, 49]:
        keep = np.arange(50) != j
        without = BinnedSums(z[keep], np.ones((49, 1)), 0.4, 1.0, "gaussian")
        # same grid is needed for an exact identity: rebuild on the full grid
        without.lo, without.delta, without.size = binned.lo, binned.delta, binned.size
        counts = without.bin(z[keep], np.ones((49, 1)))
        from scipy.signal import fftconvolve

        vals = fftconvolve(counts, binned._kern[:, None], mode="same", axes=0)
        idx, frac = binned._positions(x[j : j + 1])
        expected = vals[idx, 0] * (1 - frac) + vals[idx + 1, 0] * frac
        own = binned.pair_weight(z[j : j + 1], x[j : j + 1])
        assert full[j] - own[0] == pytest.approx(expected[0], rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("q", [1, 2])
def test_windowed_exact_sums_equal_the_full_sums(q, monkeypatch):
    """Gaussian exact sums over many records use only the records within 12
    bandwidths of each point; the sums must not change (to rounding)."""
    from skprivate.ldp import _direct_sums
    from skprivate.ldp._kernels import moment_specs

    rng = np.random.default_rng(7)
    n = 30_000
    Z = rng.normal(size=(n, q)) * [1.0, 3.0][:q] + rng.laplace(scale=0.2, size=(n, q))
    W = np.column_stack([np.ones(n), rng.normal(size=n)])
    X = np.vstack([rng.normal(size=(40, q)) * 1.5, np.full((2, q), 9.0), -Z[:3]])
    h, ratio = 0.15, np.full(q, 0.2 / 0.15)
    specs = moment_specs(q, 1)
    windowed = direct_sums(X, Z, W, h, ratio, "gaussian", True, specs)
    monkeypatch.setattr(_direct_sums, "_WINDOW_MIN_POINTS", 10**9)
    full = direct_sums(X, Z, W, h, ratio, "gaussian", True, specs)
    peak = n * float(np.prod(deconvolution_kernel(np.zeros(q), ratio)))
    np.testing.assert_allclose(windowed, full, rtol=1e-11, atol=1e-14 * peak)
    # Far from every record both are negligible (the window may be empty).
    assert np.all(np.abs(windowed[40:42]) < 1e-150 * peak)
    assert np.all(np.abs(full[40:42]) < 1e-150 * peak)


def test_spec_kernels_are_the_products_of_each_coordinates_kernel():
    """Shared per-coordinate kernels give every spec's product, bit for bit."""
    from skprivate.ldp._kernels import moment_specs, product_kernel, spec_kernels

    rng = np.random.default_rng(3)
    U = rng.normal(scale=3.0, size=(7, 5, 3))
    U[0, 0, 1] = 1e200  # the far-out limit is kept
    ratio = np.array([0.0, 0.4, 2.5])
    specs = moment_specs(3, 1)
    got = list(spec_kernels(U, ratio, "gaussian", specs))
    assert len(got) == len(specs)
    for spec, K in zip(specs, got):
        expected = np.ones(U.shape[:-1])
        for j, k in enumerate(spec):
            expected = expected * deconvolution_kernel(
                U[..., j], ratio[j], "gaussian", k
            )
        assert np.array_equal(K, expected), spec
        assert np.array_equal(product_kernel(U, ratio, "gaussian", orders=spec), K)
