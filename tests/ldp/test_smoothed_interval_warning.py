"""The deconvolution learners warn whenever a "smoothed" interval is returned.

The ``method="smoothed"`` intervals cover the density (or regression
function) smoothed by the kernel at the bandwidth, not the true value, so
``conf_int`` raises a CoverageWarning naming the learner, what the interval
covers and the interval that covers the true value, at the caller's line.
"""

import warnings

import numpy as np
import pytest

from skprivate import (
    DeconvolutionKernelClassifier,
    DeconvolutionKernelDensity,
    DeconvolutionKernelRegressor,
    LaplaceLDP,
)
from skprivate.exceptions import CoverageWarning


def _caught(call):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        frame = call()
    return frame, [w for w in caught if w.category is CoverageWarning]


def _smoothed(found):
    return [w for w in found if "the smoothed" in str(w.message)]


@pytest.fixture(scope="module")
def releases():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(400, 1)).clip(-4, 4)
    ldp = LaplaceLDP(epsilon=6, bounds=(-4, 4), random_state=0)
    return ldp.fit_transform(x), float(ldp.scale_[0])


@pytest.mark.parametrize(
    "kind, points", [("pdf", [0.0]), ("cdf", [0.5]), ("quantile", [0.5])]
)
def test_density_warns_for_explicit_smoothed(releases, kind, points):
    z, b = releases
    kde = DeconvolutionKernelDensity(bandwidth=0.5, noise_scale=b, support=(-4, 4))
    kde.fit(z)
    _, found = _caught(
        lambda: kde.conf_int(kind, points, level=(0.9, 0.95), method="smoothed")
    )
    smoothed = _smoothed(found)
    # once per call, whatever the number of levels
    assert len(smoothed) == 1
    message = str(smoothed[0].message)
    assert message.startswith(
        f"DeconvolutionKernelDensity: the smoothed {kind} interval covers the "
    )
    assert "smoothed by the kernel at the bandwidth (0.5), not its true value" in (
        message
    )
    assert "method='rbc' (the default with kernel='gaussian')" in message
    # it names the caller's line, not the library's
    assert smoothed[0].filename == __file__


def test_density_warns_for_the_automatic_choice_with_the_cauchy_kernel(releases):
    z, b = releases
    kde = DeconvolutionKernelDensity(
        bandwidth=0.5, noise_scale=b, support=(-4, 4), kernel="cauchy"
    ).fit(z)
    frame, found = _caught(lambda: kde.conf_int("pdf", [0.0]))
    assert frame["method"].iloc[0].startswith("smoothed")
    smoothed = _smoothed(found)
    assert len(smoothed) == 1
    assert "Refit with kernel='gaussian' and use method='rbc'" in str(
        smoothed[0].message
    )


def test_density_rbc_and_mean_do_not_give_the_smoothed_warning(releases):
    z, b = releases
    kde = DeconvolutionKernelDensity(bandwidth=0.5, noise_scale=b, support=(-4, 4))
    kde.fit(z)
    for kind, points in (("pdf", [0.0]), ("cdf", [0.5]), ("mean", None)):
        frame, found = _caught(lambda k=kind, p=points: kde.conf_int(k, p))
        assert not frame["method"].iloc[0].startswith("smoothed")
        assert _smoothed(found) == []


@pytest.fixture(scope="module")
def regression():
    rng = np.random.default_rng(1)
    x = rng.uniform(-2, 2, size=(400, 1))
    y = np.sin(2 * x[:, 0]) + 0.3 * rng.normal(size=400)
    ldp = LaplaceLDP(epsilon=8, bounds=(-2, 2), random_state=0)
    return ldp.fit_transform(x), y, float(ldp.scale_[0])


def test_regressor_warns_for_smoothed_not_for_rbc(regression):
    z, y, b = regression
    reg = DeconvolutionKernelRegressor(bandwidth=0.4, degree=0, noise_scale=b)
    reg.fit(z, y)
    _, found = _caught(lambda: reg.conf_int("predict", [[0.5]], method="smoothed"))
    smoothed = _smoothed(found)
    assert len(smoothed) == 1
    message = str(smoothed[0].message)
    assert message.startswith(
        "DeconvolutionKernelRegressor: the smoothed predict interval covers the "
        "regression function smoothed by the kernel at the bandwidth (0.4)"
    )
    assert "method='rbc' (the default with degree=0 and kernel='gaussian')" in message
    assert smoothed[0].filename == __file__
    frame, found = _caught(lambda: reg.conf_int("predict", [[0.5]]))
    assert frame["method"].iloc[0].startswith("rbc")
    assert _smoothed(found) == []


def test_regressor_warns_for_the_automatic_choice_of_a_local_linear_fit(regression):
    z, y, b = regression
    reg = DeconvolutionKernelRegressor(bandwidth=0.4, degree=1, noise_scale=b)
    reg.fit(z, y)
    frame, found = _caught(lambda: reg.conf_int("predict", [[0.5]]))
    assert frame["method"].iloc[0].startswith("smoothed")
    smoothed = _smoothed(found)
    assert len(smoothed) == 1
    assert "Refit with degree=0 and kernel='gaussian'" in str(smoothed[0].message)


def test_classifier_warns_for_smoothed_probabilities(regression):
    z, y, b = regression
    clf = DeconvolutionKernelClassifier(bandwidth=0.4, degree=0, noise_scale=b)
    clf.fit(z, (y > 0).astype(int))
    _, found = _caught(
        lambda: clf.conf_int("predict_proba", [[0.5]], method="smoothed")
    )
    smoothed = _smoothed(found)
    assert len(smoothed) == 1
    assert str(smoothed[0].message).startswith(
        "DeconvolutionKernelClassifier: the smoothed predict_proba interval "
        "covers the class probability smoothed"
    )
