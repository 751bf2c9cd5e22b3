"""The estimate column of the deconvolution learners' prediction intervals.

The raw kernel fit of a class probability can leave ``[0, 1]`` (the
deconvolution kernel has negative lobes); ``predict_proba`` clips it to
``[1e-6, 1]`` and renormalizes over the classes, and the interval of a
probability is cut to ``[0, 1]``.  The ``estimate`` of ``conf_int`` must be
the estimate the interval is built around on the probability scale (what
``predict_proba`` returns, for the methods whose interval is built around
the fit), and it must lie within its own interval.
"""

import warnings

import numpy as np
import pytest
from numpy.polynomial import Polynomial
from scipy import stats

from skprivate import DeconvolutionKernelClassifier, DeconvolutionKernelRegressor
from skprivate._uncertainty import bootstrap_replicates
from skprivate.exceptions import CoverageWarning
from skprivate.ldp import LaplaceLDP
from skprivate.ldp._kernels import deconvolution_kernel

# -- the report's reproducer: every method, both degrees ---------------------------
METHODS = [
    (0, "rbc"),
    (0, "smoothed"),
    (0, "bootstrap"),
    (1, "smoothed"),
    (1, "bootstrap"),
]


def _reproducer(degree):
    rng = np.random.default_rng(0)
    x = rng.uniform(0, 1, size=(300, 1))
    y = np.sin(3 * x[:, 0]) + 0.1 * rng.normal(size=300)
    labels = np.where(y > 0.7, "hi", "lo")
    clf = DeconvolutionKernelClassifier(
        privatizer=LaplaceLDP(epsilon=5, bounds=(0, 1), random_state=0),
        random_state=0,
        bandwidth=0.1,
        degree=degree,
    ).fit(x, labels)
    # the report's three rows, and a grid reaching where the fit falls back
    points = np.vstack([x[:3], np.linspace(-0.1, 1.1, 13)[:, None]])
    return clf, points, labels


def _by_class(ci, column):
    """A frame column as (points, classes): rows are class by class."""
    return ci[column].to_numpy().reshape(2, -1).T


@pytest.mark.parametrize(("degree", "method"), METHODS)
def test_probability_estimates_lie_in_their_intervals(degree, method):
    clf, points, labels = _reproducer(degree)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ci = clf.conf_int(
            "predict_proba", points, method=method, n_resamples=30, random_state=0
        )
    est, lower, upper = (_by_class(ci, c) for c in ("estimate", "lower", "upper"))
    proba = clf.predict_proba(points)
    raw, fallback = clf._predict_raw(points)
    # the report's case: raw fits outside [0, 1] where no fallback applies
    assert ((raw < 0) | (raw > 1))[~fallback].any()
    assert fallback.any() and not fallback[:3].any()
    fitted = ~fallback
    assert np.all(lower[fitted] <= est[fitted])
    assert np.all(est[fitted] <= upper[fitted])
    assert np.all((lower[fitted] >= 0) & (upper[fitted] <= 1))
    np.testing.assert_allclose(est.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    # where the fit falls back: what predict_proba returns, and no interval
    np.testing.assert_array_equal(est[fallback], proba[fallback])
    assert np.isnan(lower[fallback]).all() and np.isnan(upper[fallback]).all()
    if method == "rbc":
        # built around the bias-corrected fit, made a probability vector as
        # predict_proba makes the fit: clipped to [1e-6, 1], renormalized
        Z = clf.released_
        u = (Z[:, 0][None, :] - points[:, :1]) / clf.bandwidth_
        r = float(clf.noise_scale_[0]) / clf.bandwidth_
        K = 1.5 * deconvolution_kernel(u, r) - 0.5 * deconvolution_kernel(u, r, order=2)
        Y = (labels[:, None] == clf.classes_[None, :]).astype(float)
        centre = np.clip((K @ Y) / K.sum(axis=1, keepdims=True), 1e-6, 1.0)
        centre /= centre.sum(axis=1, keepdims=True)
        np.testing.assert_allclose(est[fitted], centre[fitted], rtol=1e-10)
    else:
        np.testing.assert_array_equal(est, proba)


def test_the_reported_rows_read_as_predict_proba():
    clf, points, _ = _reproducer("auto")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ci = clf.conf_int("predict_proba", points[:3])
    assert set(ci["method"]) == {"smoothed (sandwich)"}
    # the raw fits were 1.4288, 0.5000 and -0.1083 for P(y=hi)
    np.testing.assert_allclose(
        ci["estimate"][:3],
        [1 / (1 + 1e-6), 0.500005185, 1e-6 / (1 + 1e-6)],
        rtol=1e-8,
    )
    np.testing.assert_array_equal(
        _by_class(ci, "estimate"), clf.predict_proba(points[:3])
    )
    assert (ci["lower"] <= ci["estimate"]).all()
    assert (ci["estimate"] <= ci["upper"]).all()


# -- an exact small case -----------------------------------------------------------
Z6 = np.array([-1.0, -0.4, 0.0, 0.3, 0.8, 1.5])
H6, B6 = 0.3, 0.25
LABELS6 = np.array(list("aacbaa"))


def _fieller_by_polynomial(K, y, level):
    """The ``t`` with ``(N - t D)**2 <= z'**2 sum_i K_i**2 (y_i - t)**2``.

    ``z'**2 = z**2 / (1 + z**2 / n)``; the roots of the difference of the
    two sides, built as polynomials in ``t``, bound the interval when its
    leading coefficient is positive.
    """
    z2 = stats.norm.ppf(0.5 + level / 2) ** 2
    z2 = z2 / (1 + z2 / y.size)
    t = Polynomial([0.0, 1.0])
    gap = (K @ y - t * K.sum()) ** 2
    spread = sum(k * k * (yi - t) ** 2 for k, yi in zip(K, y))
    poly = gap - z2 * spread
    assert poly.coef[2] > 0  # bounded here
    lo, hi = np.sort(poly.roots().real)
    return lo, hi


@pytest.mark.parametrize("rbc", [False, True])
def test_three_class_interval_is_widened_to_the_renormalized_estimate(rbc):
    # at x = 0.2 the raw fits are (-0.127, 0.653, 0.474): predict_proba
    # clips the first to 1e-6 and renormalizes to (0, 0.580, 0.420), below
    # the 10% Fieller intervals of the raw fits of b and c
    clf = DeconvolutionKernelClassifier(bandwidth=H6, degree=0, noise_scale=B6)
    clf.fit(Z6[:, None], LABELS6)
    x0, level = 0.2, 0.1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CoverageWarning)  # said of "smoothed"
        ci = clf.conf_int(
            "predict_proba", [[x0]], level=level, method="rbc" if rbc else "smoothed"
        )
    u, r = (Z6 - x0) / H6, B6 / H6
    K = deconvolution_kernel(u, r)
    if rbc:
        K = 1.5 * K - 0.5 * deconvolution_kernel(u, r, order=2)
    raw = np.array([K @ np.equal(LABELS6, c) / K.sum() for c in "abc"])
    clipped = np.clip(raw, 1e-6, 1.0)
    estimate = clipped / clipped.sum()
    ends = np.array(
        [
            _fieller_by_polynomial(K, np.equal(LABELS6, c).astype(float), level)
            for c in "abc"
        ]
    )
    lower = np.minimum(np.clip(ends[:, 0], 0, 1), estimate)
    upper = np.maximum(np.clip(ends[:, 1], 0, 1), estimate)
    np.testing.assert_allclose(ci["estimate"], estimate, rtol=1e-12)
    np.testing.assert_allclose(ci["lower"], lower, rtol=1e-9, atol=1e-15)
    np.testing.assert_allclose(ci["upper"], upper, rtol=1e-9, atol=1e-15)
    if not rbc:
        np.testing.assert_array_equal(ci["estimate"], clf.predict_proba([[x0]])[0])
        np.testing.assert_allclose(raw, [-0.12694586, 0.65317889, 0.47376697])
        np.testing.assert_allclose(
            ci["estimate"], [8.87353287e-07, 0.579600434, 0.420398679], rtol=1e-8
        )
        # the widening acts: each estimate is an end of its interval
        np.testing.assert_allclose(ci["lower"][1:], ci["estimate"][1:], rtol=1e-15)
        np.testing.assert_allclose(ci["upper"][0], ci["estimate"][0], rtol=1e-15)
        assert ends[1, 0] == pytest.approx(0.6043, abs=1e-4)
        assert ends[2, 0] == pytest.approx(0.4247, abs=1e-4)
    assert (ci["lower"] <= ci["estimate"]).all()
    assert (ci["estimate"] <= ci["upper"]).all()


def test_two_class_interval_beyond_one_is_widened_to_the_floor():
    # labels a a b a b b, x = 0.25: raw P(y=a) = 1.121 with a 50% Fieller
    # interval above 1; predict_proba gives 1 / (1 + 1e-6)
    labels = np.array(list("abaabb"))
    clf = DeconvolutionKernelClassifier(bandwidth=H6, degree=0, noise_scale=B6)
    clf.fit(Z6[:, None], labels)
    K = deconvolution_kernel((Z6 - 0.25) / H6, B6 / H6)
    y = (labels == "a").astype(float)
    assert K @ y / K.sum() == pytest.approx(1.1210214, abs=1e-7)
    assert _fieller_by_polynomial(K, y, 0.5)[0] > 1
    with pytest.warns(CoverageWarning, match="smoothed predict_proba interval"):
        ci = clf.conf_int("predict_proba", [[0.25]], level=0.5, method="smoothed")
    top, floor = 1 / (1 + 1e-6), 1e-6 / (1 + 1e-6)
    np.testing.assert_allclose(ci["estimate"], [top, floor], rtol=1e-12)
    np.testing.assert_allclose(ci["lower"], [top, 0.0], rtol=1e-12, atol=0)
    np.testing.assert_allclose(ci["upper"], [1.0, floor], rtol=1e-12, atol=0)


def test_classifier_bootstrap_interval_holds_predict_proba():
    # 10 resamples of 6 records (every one with both classes): at x = 0 the
    # 50% percentile interval of P(y=a) is (0.417, 0.911), below
    # predict_proba's 0.959, and that of P(y=b) above its 0.041
    labels = np.array(list("abaabb"))
    clf = DeconvolutionKernelClassifier(bandwidth=H6, degree=0, noise_scale=B6)
    clf.fit(Z6[:, None], labels)
    rows = np.array([[0.0], [0.25]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no resampled fit fails
        ci = clf.conf_int(
            "predict_proba",
            rows,
            level=0.5,
            method="bootstrap",
            n_resamples=10,
            random_state=2,
        )
    reps = bootstrap_replicates(
        DeconvolutionKernelClassifier(bandwidth=H6, degree=0, noise_scale=B6),
        Z6[:, None],
        lambda est: est.predict_proba(rows).T.ravel(),
        y=labels,
        n_resamples=10,
        random_state=2,
    )
    lo, hi = np.nanquantile(reps, 0.25, axis=0), np.nanquantile(reps, 0.75, axis=0)
    predicted = clf.predict_proba(rows).T.ravel()
    assert predicted[0] > hi[0] and predicted[2] < lo[2]
    assert predicted[0] == pytest.approx(0.959, abs=5e-4)
    np.testing.assert_array_equal(ci["estimate"], predicted)
    np.testing.assert_allclose(ci["lower"], np.minimum(lo, predicted), rtol=1e-12)
    np.testing.assert_allclose(ci["upper"], np.maximum(hi, predicted), rtol=1e-12)
    assert ci["upper"].iloc[0] == predicted[0] == 1 - ci["lower"].iloc[2]


# -- the regressor -----------------------------------------------------------------
Y6 = np.array([0.5, 1.0, 0.2, 1.4, 2.0, 2.2])


def test_regressor_bootstrap_interval_holds_the_prediction():
    # 10 resamples of 6 records: the 50% percentile interval at x = 0 is
    # (0.882, 1.31), above the prediction 0.852; it is widened to it
    reg = DeconvolutionKernelRegressor(bandwidth=0.5, degree=0, noise_scale=B6)
    reg.fit(Z6[:, None], Y6)
    rows = np.array([[0.0], [0.6]])
    ci = reg.conf_int(
        "predict", rows, level=0.5, method="bootstrap", n_resamples=10, random_state=0
    )
    reps = bootstrap_replicates(
        DeconvolutionKernelRegressor(bandwidth=0.5, degree=0, noise_scale=B6),
        Z6[:, None],
        lambda est: est.predict(rows),
        y=Y6,
        n_resamples=10,
        random_state=0,
    )
    lo, hi = np.nanquantile(reps, 0.25, axis=0), np.nanquantile(reps, 0.75, axis=0)
    predicted = reg.predict(rows)
    assert lo[0] > predicted[0]  # the percentile interval misses it
    np.testing.assert_array_equal(ci["estimate"], predicted)
    np.testing.assert_allclose(ci["lower"], np.minimum(lo, predicted), rtol=1e-12)
    np.testing.assert_allclose(ci["upper"], np.maximum(hi, predicted), rtol=1e-12)
    assert ci["lower"].iloc[0] == predicted[0]


@pytest.mark.parametrize(("degree", "method"), METHODS)
def test_regressor_estimates_lie_in_their_intervals(degree, method):
    # a raw regression estimate may lie anywhere: not clipped, only held
    rng = np.random.default_rng(1)
    x = rng.uniform(0, 1, size=(200, 1))
    y = np.sin(3 * x[:, 0]) + 0.1 * rng.normal(size=200)
    reg = DeconvolutionKernelRegressor(
        privatizer=LaplaceLDP(epsilon=5, bounds=(0, 1), random_state=0),
        bandwidth=0.1,
        degree=degree,
    ).fit(x, y)
    points = np.linspace(-0.1, 1.1, 13)[:, None]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ci = reg.conf_int(
            "predict", points, method=method, n_resamples=30, random_state=0
        )
    fitted = ~reg.fallback_mask(points)
    est, lower, upper = (ci[c].to_numpy() for c in ("estimate", "lower", "upper"))
    assert np.all(lower[fitted] <= est[fitted]) and np.all(est[fitted] <= upper[fitted])
    if method != "rbc":
        np.testing.assert_allclose(est, reg.predict(points), rtol=1e-12, atol=1e-12)
