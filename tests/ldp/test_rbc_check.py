"""The bandwidth check of the bias-corrected deconvolution density intervals."""

import warnings

import numpy as np
import pytest
from scipy import integrate, stats

from skprivate import DeconvolutionKernelDensity, LaplaceLDP
from skprivate.exceptions import CoverageWarning
from skprivate.ldp._rbc_check import bias_coverage, reference_bias


@pytest.mark.parametrize("h", [0.3, 0.8])
def test_reference_bias_is_the_fourth_order_kernel_smooth_minus_the_truth(h):
    # E f_rbc(v) = integral of L_h(v - t) phi_sd(t - mean) dt, by Simpson's
    # rule on a fine grid; E F_rbc(x) integrates it again up to x
    mean, sd = 0.4, 1.3
    t = np.linspace(mean - 9 * sd, mean + 9 * sd, 1001)
    v = t[:, None]
    u = (v - t[None, :]) / h
    kernel = (3.0 - u * u) * stats.norm.pdf(u) / (2.0 * h)
    smooth = integrate.simpson(kernel * stats.norm.pdf(t, mean, sd), x=t, axis=1)
    cumulative = integrate.cumulative_simpson(smooth, x=t, initial=0.0)
    for x in (0.0, 0.7, -1.9):
        i = int(np.argmin(np.abs(t - x)))
        point = np.array([t[i]])
        pdf_bias, density = reference_bias("pdf", point, mean, sd, h)
        assert pdf_bias[0] == pytest.approx(
            smooth[i] - stats.norm.pdf(t[i], mean, sd), abs=1e-9
        )
        assert density[0] == pytest.approx(stats.norm.pdf(t[i], mean, sd), abs=1e-15)
        cdf_bias, _ = reference_bias("cdf", point, mean, sd, h)
        assert cdf_bias[0] == pytest.approx(
            cumulative[i] - stats.norm.cdf(t[i], mean, sd), abs=1e-8
        )


def test_bias_coverage_exact():
    z = stats.norm.ppf(0.975)
    expected = stats.norm.cdf(z - 0.5) - stats.norm.cdf(-z - 0.5)
    assert bias_coverage(0.95, -0.5) == pytest.approx(expected, abs=1e-15)


def _release(seed=0, n=2000, epsilon=4.0):
    x = np.random.default_rng(seed).normal(size=(n, 1)).clip(-4, 4)
    ldp = LaplaceLDP(epsilon=epsilon, bounds=(-4, 4), random_state=seed)
    return ldp.fit_transform(x), ldp.scale_


def _caught(kde, z, kind, points, **kwargs):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ci = kde.conf_int(kind, points, X=z, **kwargs)
    return ci, [w for w in caught if w.category is CoverageWarning]


def test_warns_for_a_bandwidth_large_against_the_spread():
    z, scale = _release()
    kde = DeconvolutionKernelDensity(
        bandwidth=1.0, noise_scale=scale, support=(-4, 4), algorithm="binned"
    ).fit(z)
    _, caught = _caught(kde, z, "pdf", [0.0], level=(0.9, 0.95))
    assert len(caught) == 1  # once per call
    message = str(caught[0].message)
    assert "rbc pdf interval" in message and "smaller bandwidth" in message
    # the ratio of the bandwidth to the deconvolved standard deviation
    sd = np.sqrt(np.var(z, ddof=1) - 2 * float(scale[0]) ** 2)
    assert f"{1.0 / sd:.2f} times the deconvolved spread" in message
    # the smoothed interval is not checked for the rbc bias: its one warning
    # says that it covers the smoothed density
    _, smoothed = _caught(kde, z, "pdf", [0.0], method="smoothed")
    assert len(smoothed) == 1
    assert "the smoothed pdf interval" in str(smoothed[0].message)
    assert "rbc pdf interval" not in str(smoothed[0].message)


def test_silent_for_a_small_bandwidth():
    z, scale = _release()
    kde = DeconvolutionKernelDensity(
        bandwidth=0.3, noise_scale=scale, support=(-4, 4), algorithm="binned"
    ).fit(z)
    for kind, points in (("pdf", [0.0]), ("cdf", [0.5]), ("quantile", [0.5])):
        assert _caught(kde, z, kind, points)[1] == []


def test_quantile_flagged_by_the_cdf_bias_at_the_quantile():
    z, scale = _release()
    # at a large bandwidth the CDF bias of a symmetric law vanishes at its
    # centre (the median), so the median's interval is not flagged
    wide = DeconvolutionKernelDensity(
        bandwidth=1.0, noise_scale=scale, support=(-4, 4), algorithm="binned"
    ).fit(z)
    assert _caught(wide, z, "quantile", [0.5])[1] == []
    ci, caught = _caught(wide, z, "quantile", [0.8])
    assert len(caught) == 1
    # the quantile's bias in standard errors: the CDF's bias at the quantile
    # over the CDF's standard error (the quantile's times the density there)
    sd = np.sqrt(np.var(z, ddof=1) - 2 * float(scale[0]) ** 2)
    bias, density = reference_bias(
        "cdf", ci["estimate"].to_numpy(), float(np.mean(z)), sd, 1.0
    )
    se = density * (ci["upper"] - ci["lower"]).to_numpy() / (2 * stats.norm.ppf(0.975))
    assert f"{float(abs(bias[0]) / se[0]):.2g} standard errors" in str(
        caught[0].message
    )


def test_warns_when_the_releases_vary_less_than_the_noise():
    z, scale = _release(n=300)
    kde = DeconvolutionKernelDensity(
        bandwidth=0.5, noise_scale=scale * 3, support=(-4, 4), algorithm="binned"
    ).fit(z)
    _, caught = _caught(kde, z, "cdf", [0.5])
    assert len(caught) == 1
    assert "vary no more than the noise" in str(caught[0].message)
