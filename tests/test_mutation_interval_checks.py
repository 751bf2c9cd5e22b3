"""Exact checks of the interval warnings split out of the families' interval code.

``ldp/_smoothed_warning.py`` (a smoothed deconvolution interval covers a
smoothed target) and ``interval/_subsampling_check.py`` (the NPMLE's
subsampling intervals at moderate n): the message, once per ``conf_int``
call, and the rule's ends.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from skprivate._uncertainty import IntervalRequest
from skprivate.exceptions import CoverageWarning
from skprivate.interval._subsampling_check import (
    MIN_WINDOW_ROWS,
    SubsamplingCheckMixin,
    window_rows,
)
from skprivate.ldp._smoothed_warning import warn_smoothed


def _request(kind="cdf", level=0.95, X=None):
    return IntervalRequest(
        kind=kind,
        points=[0.0],
        level=level,
        method="auto",
        X=X,
        y=None,
        n_resamples=None,
        random_state=None,
        n_jobs=None,
    )


def _caught(calls):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for call in calls:
            call()
    return caught


class _Owner:
    bandwidth_ = 0.5


def test_smoothed_warning_once_per_call_and_again_for_the_next():
    request = _request("pdf")
    owner = _Owner()
    caught = _caught(
        [lambda: warn_smoothed(owner, request, "pdf", "Use method='rbc'.")] * 3
    )
    assert len(caught) == 1 and caught[0].category is CoverageWarning
    assert request.cache == {"smoothed-warned": True}
    assert str(caught[0].message) == (
        "_Owner: the smoothed pdf interval covers the density smoothed by the "
        "kernel at the bandwidth (0.5), not its true value: the estimate's "
        "smoothing bias, of the order of its standard error at a bandwidth "
        "that balances bias and variance, is not in the interval, so its "
        "coverage of the true value can be far below the level. Use "
        "method='rbc'."
    )
    # a new call (a new request) warns again
    again = _caught([lambda: warn_smoothed(owner, _request("pdf"), "pdf", "R.")])
    assert len(again) == 1


def test_window_rows_of_tiny_samples():
    # b = min(max(20, ceil(n^(2/3))), max(n - 1, 1)): one row for n <= 2
    assert window_rows(1) == 1.0
    assert window_rows(2) == 1.0
    assert window_rows(3) == pytest.approx(2.0 ** (2.0 / 3.0), rel=1e-15)
    assert window_rows(2000) == pytest.approx(159.0 ** (2.0 / 3.0), rel=1e-15)


class _Base:
    def __init__(self, frame, n):
        self.frame, self.n = frame, n

    def _conf_int_cdf(self, request):
        return self.frame

    def _conf_int_quantile(self, request):
        return self.frame

    def _ci_interval_data(self, request):
        return np.zeros((self.n, 2))


class _Checked(SubsamplingCheckMixin, _Base):
    pass


def _frame(method):
    return pd.DataFrame({"method": [method], "lower": [0.1], "upper": [0.2]})


def test_subsampling_warning_text_kind_and_once_per_call():
    est = _Checked(_frame("subsampling (b = 159 of 2000 rows)"), 2000)
    for kind, call in (
        ("cdf", est._conf_int_cdf),
        ("quantile", est._conf_int_quantile),
    ):
        request = _request(kind)
        caught = _caught([lambda r=request, c=call: c(r)] * 2)
        assert [w.category for w in caught] == [CoverageWarning]
        assert str(caught[0].message) == (
            f"_Checked: the subsampling {kind} interval may cover less often "
            "than its level: with 2000 rows, its subsamples hold about 29 rows "
            "near each point (b**(2/3) for subsamples of b rows), fewer than "
            "100, too few for their estimates to follow the cube-root limit "
            "law (measured: 0.90 to 0.92 for a 0.95 interval at 500 to 2,000 "
            "rows of Case II data). Case I data at level 0.90, 0.95 or 0.99 "
            "get the likelihood-ratio interval instead."
        )


def test_subsampling_check_is_silent_for_other_methods_no_rows_and_large_n():
    assert MIN_WINDOW_ROWS == 100
    quiet = [
        _Checked(_frame("likelihood ratio"), 2000),
        _Checked(pd.DataFrame({"method": [], "lower": [], "upper": []}), 2000),
        # b = 1001: 1001**(2/3) = 100.07 rows, at least 100
        _Checked(_frame("subsampling"), 31_700),
    ]
    for est in quiet:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            frame = est._conf_int_cdf(_request())
        assert frame is est.frame
    # b = 1000: 1000**(2/3) is 99.99999999999997 in floating point, below 100
    caught = _caught(
        [lambda: _Checked(_frame("subsampling"), 31_600)._conf_int_cdf(_request())]
    )
    assert len(caught) == 1


# -- the rbc bandwidth check of the deconvolution density (ldp/_rbc_check.py) --


class _DensityBase:
    def _conf_int_pdf(self, request):
        return self.frame

    def _conf_int_cdf(self, request):
        return self.frame

    def _conf_int_quantile(self, request):
        return self.frame


def _density(frame, z=None, noise_scale=0.5, bandwidth=1.5):
    from skprivate.ldp._rbc_check import BandwidthCheckMixin

    class _Deconvolved(BandwidthCheckMixin, _DensityBase):
        pass

    est = _Deconvolved()
    est.frame, est.bandwidth_, est.noise_scale_ = frame, bandwidth, noise_scale
    if z is not None:
        est._Z = np.asarray(z, dtype=float)
    return est


def _rbc_frame(point, estimate, se, half=None):
    half = se if half is None else half
    return pd.DataFrame(
        {
            "point": [point],
            "estimate": [estimate],
            "lower": [estimate - half],
            "upper": [estimate + half],
            "se": [se],
            "method": ["rbc (robust bias-corrected)"],
        }
    )


_TAIL = (
    ". A smaller bandwidth reduces that bias (as h**4); method='smoothed' "
    "covers the density smoothed at this bandwidth instead."
)
_NO_SPREAD = (
    "the releases vary no more than the noise does, so the spread of the "
    "clean values (against which the bandwidth must be small for the bias "
    "correction to hold) cannot be estimated"
)


@pytest.mark.parametrize(
    "z, noise_scale",
    [
        ([0.0, 2.0], 1.0),  # variance 2 - 2 b**2 = 0 exactly
        ([0.0, np.sqrt(30.0)], 3.0),  # 15 - 2 (9) < 0 (not 15 - 2 (3) (2))
    ],
)
def test_rbc_check_without_spread_beyond_the_noise(z, noise_scale):
    est = _density(_rbc_frame(0.0, 0.3, 0.01), z, noise_scale)
    request = _request("cdf")
    caught = _caught([lambda: est._conf_int_cdf(request)] * 2)
    assert [w.category for w in caught] == [CoverageWarning]
    assert str(caught[0].message) == (
        "_Deconvolved: the rbc cdf interval may cover less often than its "
        "level: " + _NO_SPREAD + _TAIL
    )


def test_rbc_check_reason_names_bandwidth_spread_bias_and_coverage():
    from skprivate.ldp._rbc_check import bias_coverage, reference_bias

    z = np.random.default_rng(4).normal(0.0, 2.0, 400)
    sd = np.sqrt(np.var(z, ddof=1) - 2 * 0.25)
    # the pdf at 0.5 (not at the estimate 0.1) with se 0.002
    est = _density(_rbc_frame(0.5, 0.1, 0.002, half=0.05), z)
    bias, _ = reference_bias("pdf", np.array([0.5]), float(np.mean(z)), sd, 1.5)
    delta = float(np.abs(bias[0]) / 0.002)
    coverage = float(bias_coverage(0.95, delta))
    caught = _caught([lambda: est._conf_int_pdf(_request("pdf"))])
    assert len(caught) == 1
    assert str(caught[0].message) == (
        "_Deconvolved: the rbc pdf interval may cover less often than its "
        f"level: the bandwidth (1.5) is {1.5 / sd:.2f} times the deconvolved "
        f"spread of the values (standard deviation {sd:.3g}), where the bias "
        "the correction leaves is, for a normal law of that spread, "
        f"{delta:.2g} standard errors, which brings the coverage of this 0.95 "
        f"interval to about {coverage:.2f}" + _TAIL
    )
    # a quantile is judged at its estimate (1.0, not the level 0.5), with
    # se = half-width / z times the density there (not the se column)
    q = _density(_rbc_frame(0.5, 1.0, 0.3, half=0.005), z)
    zq = float(stats.norm.ppf(0.975))
    qbias, qdens = reference_bias("cdf", np.array([1.0]), float(np.mean(z)), sd, 1.5)
    qdelta = float(np.abs(qbias[0]) / (0.005 / zq * qdens[0]))
    found = _caught([lambda: q._conf_int_quantile(_request("quantile"))])
    assert len(found) == 1
    message = str(found[0].message)
    assert message.startswith("_Deconvolved: the rbc quantile interval may cover")
    assert f"{qdelta:.2g} standard errors" in message and "about 0.00" in message


def test_rbc_check_is_silent_for_zero_se_other_methods_and_empty_frames():
    z = np.random.default_rng(4).normal(0.0, 2.0, 400)
    frames = [
        _rbc_frame(0.5, 0.1, 0.0, half=0.0),  # se 0: no bias in SE units
        _rbc_frame(0.5, 0.1, 0.002).assign(method="smoothed"),
        _rbc_frame(0.5, 0.1, 0.002).iloc[:0],
    ]
    for frame in frames:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert _density(frame, z)._conf_int_pdf(_request("pdf")) is frame


def test_rbc_check_reads_the_records_given_to_the_call():
    z = np.random.default_rng(4).normal(0.0, 2.0, 400)
    est = _density(_rbc_frame(0.5, 0.1, 0.002, half=0.05))  # keeps no records
    request = _request("pdf", X=z[:, None])
    caught = _caught([lambda: est._conf_int_pdf(request)])
    assert len(caught) == 1 and "the rbc pdf interval" in str(caught[0].message)


def test_rbc_reference_and_coverage_read_extended_precision_as_float64():
    """reference_bias and bias_coverage take their values as float64 (a
    long double gives the float64 answer of the closed forms)."""
    from skprivate.ldp._rbc_check import bias_coverage, reference_bias

    # normal reference N(0, 1), h = 0.8, at y = 0.5: s**2 = 1.64
    s2, y = 1.64, 0.5
    phi_s = np.exp(-y * y / (2 * s2)) / np.sqrt(2 * np.pi * s2)
    pdf_bias = phi_s * (1.5 - 0.5 * (1 / s2 + 0.64 * y * y / s2**2)) - stats.norm.pdf(y)
    v = y / np.sqrt(s2)
    cdf_bias = (
        stats.norm.cdf(v)
        + 0.5 * (0.64 / s2) * v * stats.norm.pdf(v)
        - stats.norm.cdf(y)
    )
    point = np.array([0.5], dtype=np.longdouble)
    for kind, want in (("pdf", pdf_bias), ("cdf", cdf_bias)):
        bias, density = reference_bias(kind, point, 0.0, 1.0, 0.8)
        assert bias.dtype == np.float64 and density.dtype == np.float64
        assert bias[0] == pytest.approx(want, rel=1e-14, abs=1e-16)
        assert density[0] == pytest.approx(stats.norm.pdf(0.5), rel=1e-15)
    z = stats.norm.ppf(0.975)
    coverage = bias_coverage(0.95, np.longdouble("0.5"))
    assert coverage.dtype == np.float64
    assert coverage == pytest.approx(
        stats.norm.cdf(z - 0.5) - stats.norm.cdf(-z - 0.5), rel=1e-15
    )


def test_rbc_check_warns_only_beyond_the_slack_below_the_level():
    """The warning needs a coverage strictly more than COVERAGE_SLACK below the
    level: a coverage of 0 at level 0.02 sits on the boundary and is not
    flagged, at level 0.021 it is."""
    from skprivate._grid_density._width_choice import COVERAGE_SLACK
    from skprivate.ldp._rbc_check import bias_coverage

    assert COVERAGE_SLACK == 0.02 and 0.02 - COVERAGE_SLACK == 0.0
    z = np.random.default_rng(4).normal(0.0, 2.0, 400)
    # se 1e-9 puts the bias millions of standard errors off: coverage 0 exactly
    frame = _rbc_frame(0.5, 0.1, 1e-9)
    assert bias_coverage(0.02, 1e6) == 0.0 and bias_coverage(0.021, 1e6) == 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _density(frame, z)._conf_int_pdf(_request("pdf", level=0.02))
    caught = _caught([lambda: _density(frame, z)._conf_int_pdf(_request("pdf", 0.021))])
    assert [w.category for w in caught] == [CoverageWarning]
    assert "coverage of this 0.021 interval to about 0.00" in str(caught[0].message)


@pytest.mark.parametrize(("kind", "inside"), [("pdf", 0.0), ("cdf", 0.8)])
@pytest.mark.parametrize("far", [100.0, -100.0])
def test_rbc_check_of_a_point_far_outside_the_support(kind, inside, far):
    """A point far outside the support (estimate exact, se 0, reference bias 0)
    neither hides the bias found at the other points nor makes numpy warn of
    0/0: the call warns exactly as for the inside point alone."""
    from skprivate import DeconvolutionKernelDensity, LaplaceLDP
    from skprivate.ldp._rbc_check import reference_bias

    x = np.random.default_rng(0).normal(size=(2000, 1)).clip(-4, 4)
    ldp = LaplaceLDP(epsilon=4.0, bounds=(-4, 4), random_state=0)
    z = ldp.fit_transform(x)
    kde = DeconvolutionKernelDensity(
        bandwidth=1.0, noise_scale=ldp.scale_, support=(-4, 4), algorithm="binned"
    ).fit(z)

    def warned(points):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            ci = kde.conf_int(kind, points, X=z)
        return ci, caught

    ci, both = warned([inside, far])
    assert ci["se"].iloc[1] == 0.0
    sd = np.sqrt(np.var(z, ddof=1) - 2 * float(ldp.scale_[0]) ** 2)
    far_bias, _ = reference_bias(kind, np.array([far]), float(np.mean(z)), sd, 1.0)
    assert far_bias.tolist() == [0.0]
    _, alone = warned([inside])
    assert [w.category for w in both] == [CoverageWarning]
    assert [str(w.message) for w in both] == [str(w.message) for w in alone]
