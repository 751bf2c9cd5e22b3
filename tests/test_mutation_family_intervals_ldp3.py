"""Intervals of the deconvolution learners: the smoothed warning and the ends.

The :class:`~skprivate.exceptions.CoverageWarning` of a ``"smoothed"``
interval (its whole text, with the remedy each kernel and degree gets, and
its absence for the other methods), the clipping of CDF intervals whose
estimate overshoots 1, the quantile inversion where the bias-corrected CDF
is not monotone, and the bootstrap of a regression fitted with a
privatizer.  ``benchmarks/_mutation_specs_family_intervals.py`` lists the
mutants these tests were checked against.
"""

import warnings

import numpy as np
import pytest

from skprivate import (
    DeconvolutionKernelClassifier,
    DeconvolutionKernelDensity,
    DeconvolutionKernelRegressor,
)
from skprivate._uncertainty import bootstrap_replicates
from skprivate.exceptions import CoverageWarning
from skprivate.ldp import LaplaceLDP

# the rbc intervals' own check of the bandwidth warns on these small or
# degenerate samples; the tests of the smoothed warning record every warning
pytestmark = pytest.mark.filterwarnings("ignore::skprivate.exceptions.CoverageWarning")

Z4 = np.array([-0.5, 0.1, 0.4, 1.2])
H, B, LOW, HIGH = 0.8, 0.3, -2.0, 2.0
ZR = np.array([-1.0, -0.4, 0.0, 0.3, 0.8, 1.5])
YR = np.array([0.5, 1.0, 0.2, 1.4, 2.0, 2.2])
LABELS = np.array(["a", "b", "a", "c", "b", "b"])
HR, BR = 0.9, 0.25

_QUANTITY = {
    "pdf": "density",
    "cdf": "distribution function",
    "quantile": "quantile (of the smoothed distribution function)",
    "predict": "regression function",
    "predict_proba": "class probability",
}


def _message(name, kind, bandwidth, remedy):
    return (
        f"{name}: the smoothed {kind} interval covers the {_QUANTITY[kind]} "
        f"smoothed by the kernel at the bandwidth ({bandwidth:.3g}), not its "
        "true value: the estimate's smoothing bias, of the order of its "
        "standard error at a bandwidth that balances bias and variance, is "
        "not in the interval, so its coverage of the true value can be far "
        f"below the level. {remedy}"
    )


def _coverage_warnings(est, *args, **kw):
    """The smoothed warnings of ``est.conf_int(*args, **kw)``, and its result."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = est.conf_int(*args, **kw)
    texts = [str(w.message) for w in caught if w.category is CoverageWarning]
    # the rbc intervals' own check of the bandwidth may warn too
    return [t for t in texts if ": the smoothed " in t], got


_DENSITY_GAUSSIAN = (
    "method='rbc' (the default with kernel='gaussian') covers the true value."
)
_DENSITY_CAUCHY = (
    "Refit with kernel='gaussian' and use method='rbc' (the default with that "
    "kernel), which covers the true value."
)
_REGRESSION_RBC = (
    "method='rbc' (the default with degree=0 and kernel='gaussian') covers the "
    "true value."
)
_REGRESSION_REFIT = (
    "Refit with degree=0 and kernel='gaussian' and use method='rbc' (the "
    "default there), which covers the true value."
)


def _kde(**kw):
    return DeconvolutionKernelDensity(
        bandwidth=H, noise_scale=B, support=(LOW, HIGH), **kw
    ).fit(Z4[:, None])


@pytest.mark.parametrize(
    "kind, points", [("pdf", [0.0]), ("cdf", [0.0]), ("quantile", [0.5])]
)
def test_density_smoothed_interval_warns_with_the_remedy_of_its_kernel(kind, points):
    kde = _kde()
    texts, got = _coverage_warnings(kde, kind, points, method="smoothed")
    assert texts == [_message("DeconvolutionKernelDensity", kind, H, _DENSITY_GAUSSIAN)]
    assert got["method"].iloc[0].startswith("smoothed")
    # the Cauchy kernel: smoothed by default, with the advice to refit
    cauchy = _kde(kernel="cauchy")
    for method in ("auto", "smoothed"):
        texts, got = _coverage_warnings(cauchy, kind, points, method=method)
        assert texts == [
            _message("DeconvolutionKernelDensity", kind, H, _DENSITY_CAUCHY)
        ]
        assert got["method"].iloc[0].startswith("smoothed")


@pytest.mark.parametrize(
    "kind, points", [("pdf", [0.0]), ("cdf", [0.0]), ("quantile", [0.5])]
)
def test_density_rbc_and_bootstrap_intervals_do_not_warn(kind, points):
    kde = _kde()
    texts, got = _coverage_warnings(kde, kind, points)
    assert texts == []
    assert got["method"].iloc[0].startswith("rbc")
    if kind != "pdf":
        texts, _ = _coverage_warnings(
            kde,
            kind,
            points,
            method="bootstrap",
            X=Z4[:, None],
            n_resamples=3,
            random_state=0,
        )
        assert texts == []


def test_regression_smoothed_interval_warns_with_the_remedy_of_its_fit():
    rows = [[0.0], [0.6]]
    for degree, kernel, remedy in (
        (0, "gaussian", _REGRESSION_RBC),
        (1, "gaussian", _REGRESSION_REFIT),
        (0, "cauchy", _REGRESSION_REFIT),
    ):
        reg = DeconvolutionKernelRegressor(
            bandwidth=HR, degree=degree, kernel=kernel, noise_scale=BR
        ).fit(ZR[:, None], YR)
        default = degree == 0 and kernel == "gaussian"
        methods = ("smoothed",) if default else ("auto", "smoothed")
        for method in methods:
            texts, got = _coverage_warnings(reg, "predict", rows, method=method)
            assert texts == [
                _message("DeconvolutionKernelRegressor", "predict", HR, remedy)
            ]
            assert set(got["method"]) == {"smoothed (sandwich)"}
    # the default of degree 0 with the Gaussian kernel, and the bootstrap:
    # no warning
    reg = DeconvolutionKernelRegressor(bandwidth=HR, degree=0, noise_scale=BR).fit(
        ZR[:, None], YR
    )
    for kw in ({}, {"method": "bootstrap", "n_resamples": 3, "random_state": 0}):
        texts, _ = _coverage_warnings(reg, "predict", rows, **kw)
        assert texts == []


def test_classifier_smoothed_interval_warns_about_the_class_probability():
    for degree, remedy in ((0, _REGRESSION_RBC), (1, _REGRESSION_REFIT)):
        clf = DeconvolutionKernelClassifier(
            bandwidth=HR, degree=degree, noise_scale=BR
        ).fit(ZR[:, None], LABELS)
        texts, got = _coverage_warnings(
            clf, "predict_proba", [[0.2]], method="smoothed"
        )
        # one warning for the call, not one per class
        assert texts == [
            _message("DeconvolutionKernelClassifier", "predict_proba", HR, remedy)
        ]
        assert got["quantity"].tolist() == ["P(y=a)", "P(y=b)", "P(y=c)"]


def test_cdf_interval_of_an_estimate_above_one_is_clipped_to_one():
    # identical records: no spread (se 0), and the fourth-order kernel's CDF
    # overshoots 1 inside the support; the estimate and both ends are cut to
    # 1, so the estimate stays inside its interval
    kde = DeconvolutionKernelDensity(
        bandwidth=H, noise_scale=B, support=(LOW, HIGH)
    ).fit(np.full((5, 1), 0.3))
    for boundary in ("reflect", "clip"):
        kde.set_params(boundary=boundary)
        # the linear (bias-corrected) estimate before the cut overshoots 1
        raw, raw_se = kde._ci_linear_ratio(
            np.full(5, 0.3), np.array([1.4]), "cdf", True
        )
        assert raw[0] > 1.03
        assert raw_se[0] == 0.0
        row = kde.conf_int("cdf", [1.4], method="rbc").iloc[0]
        assert row["se"] == 0.0
        assert row["estimate"] == 1.0
        assert row["lower"] == row["upper"] == 1.0
        assert row["lower"] <= row["estimate"] <= row["upper"]


def test_regression_with_a_privatizer_bootstraps_a_clone_on_its_release():
    # the replicates refit a clone without the privatizer (the release is
    # not released again) at the privatizer's noise scale and the bandwidth
    priv = LaplaceLDP(epsilon=8, bounds=(-2, 2), random_state=1)
    reg = DeconvolutionKernelRegressor(bandwidth=HR, degree=0, privatizer=priv).fit(
        ZR[:, None], YR
    )
    assert reg.get_params()["noise_scale"] is None
    rows = np.array([[0.0], [0.6]])
    got = reg.conf_int(
        "predict", rows, method="bootstrap", n_resamples=4, random_state=3
    )
    reps = bootstrap_replicates(
        DeconvolutionKernelRegressor(bandwidth=HR, degree=0, noise_scale=0.5),
        reg.released_,
        lambda est: est.predict(rows),
        y=YR,
        n_resamples=4,
        random_state=3,
    )
    # the percentile interval, widened to the prediction where it misses it
    # (here above its upper end at 0)
    predicted = reg.predict(rows)
    upper = np.nanquantile(reps, 0.975, axis=0)
    assert predicted[0] > upper[0]
    np.testing.assert_allclose(
        got["lower"], np.minimum(np.nanquantile(reps, 0.025, axis=0), predicted)
    )
    np.testing.assert_allclose(got["upper"], np.maximum(upper, predicted))
    np.testing.assert_array_equal(got["estimate"], predicted)


def test_quantile_where_the_fourth_order_cdf_is_not_monotone():
    # two clusters of identical records, a bandwidth much smaller than the
    # coarse grid's step: the bias-corrected CDF jumps past 1/2 between two
    # coarse points, overshoots to 0.54 at -0.9375 and comes back to 1/2
    z = np.r_[np.full(2000, -0.97), np.full(2000, 1.03)]
    kde = DeconvolutionKernelDensity(
        bandwidth=0.02, noise_scale=0.01, support=(LOW, HIGH)
    ).fit(z[:, None])
    grid = np.array([-1.0, -0.9375, -0.875])
    # the linear CDF the quantile inverts dips below 0 at -1.0
    raw, _ = kde._ci_linear_ratio(z, grid, "cdf", True)
    assert raw.tolist() == pytest.approx([-0.0486, 0.5428, 0.5], abs=1e-4)
    # the reported CDF estimate is cut into [0, 1], and so are both ends
    ci = kde.conf_int("cdf", grid, X=z)
    assert ci["estimate"].tolist() == pytest.approx([0.0, 0.5428, 0.5], abs=1e-4)
    assert ci["estimate"].iloc[0] == 0.0
    assert ci["lower"].iloc[0] == ci["upper"].iloc[0] == 0.0
    got = kde.conf_int("quantile", [0.497, 0.562], X=z)["estimate"]
    # q = 0.497: the fine grid starts at the overshoot's coarse point (the
    # one before the first within 3.29 se of q), whose CDF is already above
    # q: the estimate is that first point, not an interpolation
    assert got.iloc[0] == -0.9375
    # q = 0.562: no point of the fine grid around the overshoot reaches q
    # (the CDF rises again at its last point): the estimate is that last
    # point, not an extrapolation beyond it
    assert got.iloc[1] == -0.875
