"""Intervals of the deconvolution learners: points, degree, workers and ends.

How the prediction intervals read their points (one-dimensional rows, a
DataFrame by its feature names), the fitted degree they follow, the
workers of their bootstrap, the fallback warning's text and location, a
missing response, the whole line where the bias-corrected fit has no
estimate, a probability's set beyond ``[0, 1]`` cut to it, and a density
interval above 1.
"""

import os
import threading
import warnings

import numpy as np
import pandas as pd
import pytest
from joblib import parallel_config
from scipy import stats

import skprivate
from skprivate import (
    DeconvolutionKernelClassifier,
    DeconvolutionKernelDensity,
    DeconvolutionKernelRegressor,
)
from skprivate.exceptions import NotIdentifiableWarning
from skprivate.ldp import deconvolution_kernel

from .test_mutation_family_intervals_ldp2 import _fieller_by_hand

# the tiny samples here are far from the sizes the estimators are meant for
pytestmark = [
    pytest.mark.filterwarnings("ignore::skprivate.exceptions.CoverageWarning"),
    pytest.mark.filterwarnings("ignore::skprivate.exceptions.NotIdentifiableWarning"),
]

ZR = np.array([-1.0, -0.4, 0.0, 0.3, 0.8, 1.5])
YR = np.array([0.5, 1.0, 0.2, 1.4, 2.0, 2.2])
HR, BR = 0.9, 0.25
_COLUMNS = ["estimate", "se", "lower", "upper"]


def _regressor(X=ZR[:, None], y=YR, **kw):
    return DeconvolutionKernelRegressor(bandwidth=HR, noise_scale=BR, **kw).fit(X, y)


def _rbc_kernel(u, ratio):
    return 1.5 * deconvolution_kernel(u, ratio) - 0.5 * deconvolution_kernel(
        u, ratio, order=2
    )


def _fallback_warnings(est, kind, points):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        est.conf_int(kind, points, method="smoothed")
    return [w for w in caught if w.category is NotIdentifiableWarning]


def test_fallback_warning_shows_every_feature_of_a_point_to_six_digits():
    """A fallback point of two features is listed as (x1, x2), 6 significant digits."""
    rng = np.random.default_rng(1)
    Z = rng.normal(size=(12, 2))
    reg = _regressor(Z, Z[:, 0] - Z[:, 1], degree=0)
    points = [[50.1234567, -60.0], [0.0, 0.0]]
    assert reg.fallback_mask(points).tolist() == [True, False]
    (found,) = _fallback_warnings(reg, "predict", points)
    assert str(found.message) == (
        "DeconvolutionKernelRegressor: the predict interval is NaN at 1 "
        "point(s), (50.1235, -60), where predict falls back to the training mean "
        "(see fallback_mask: no records near them, or kernel weights that cannot "
        "be told from zero): the records do not identify E[y | x] there. The "
        "estimate column holds the fallback value that predict returns."
    )


def test_fallback_warning_names_a_line_outside_the_library():
    """The fallback warning points past skprivate's frames, at the caller."""
    (found,) = _fallback_warnings(_regressor(degree=0), "predict", [[50.0], [0.0]])
    library = os.path.dirname(skprivate.__file__) + os.sep
    assert not found.filename.startswith(library)
    if "MUTANT_UNDER_TEST" not in os.environ:
        # mutation runs put a trampoline frame between the test and the warning
        assert found.filename == __file__


def test_prediction_interval_follows_the_fitted_degree():
    """degree='auto' intervals are those of its fitted degree_ (1 here), not 0's."""
    auto, linear, constant = (_regressor(degree=d) for d in ("auto", 1, 0))
    assert auto.degree_ == 1
    points = [[0.0], [0.5]]
    got = auto.conf_int("predict", points, method="smoothed")
    pd.testing.assert_frame_equal(
        got, linear.conf_int("predict", points, method="smoothed")
    )
    # the local linear sandwich, not the local constant one, around predict
    local = constant.conf_int("predict", points, method="smoothed")
    assert (np.abs(got["se"] - local["se"]) > 0.04).all()
    np.testing.assert_allclose(got["estimate"], auto.predict(points), rtol=1e-12)


@pytest.mark.filterwarnings("ignore:X does not have valid feature names")
def test_prediction_interval_reads_one_dimensional_points_as_rows():
    """Points given as a flat list are rows of one feature, for any fit."""
    plain = _regressor(degree=0)
    named = _regressor(pd.DataFrame({"age": ZR}), degree=0)
    rows = [[0.0], [0.5]]
    for reg in (plain, named):
        flat = reg.conf_int("predict", [0.0, 0.5], method="smoothed")
        pd.testing.assert_frame_equal(
            flat, reg.conf_int("predict", rows, method="smoothed")
        )
        np.testing.assert_allclose(flat["estimate"], plain.predict(rows), rtol=1e-9)
        assert flat["point"].tolist() == [0.0, 0.5]
        boot = reg.conf_int(
            "predict", [0.0, 0.5], method="bootstrap", n_resamples=3, random_state=0
        )
        np.testing.assert_allclose(boot["estimate"], plain.predict(rows), rtol=1e-12)


def test_prediction_interval_with_a_missing_response_is_nan():
    """A NaN response leaves the ratio's interval NaN, not Fieller's whole line."""
    reg = _regressor(degree=0)
    # at x = 2.2 the weights' sum is not significant: the whole line
    assert reg.fallback_mask([[2.2]]).tolist() == [False]
    y = YR.copy()
    for method in ("rbc", "smoothed"):
        whole = reg.conf_int("predict", [[2.2]], X=ZR, y=y, method=method)
        assert whole[["lower", "upper"]].iloc[0].tolist() == [-np.inf, np.inf]
    y[0] = np.nan
    for method in ("rbc", "smoothed"):
        row = reg.conf_int("predict", [[2.2]], X=ZR, y=y, method=method).iloc[0]
        assert np.isnan(row[["se", "lower", "upper"]].to_numpy(float)).all()


def test_probability_interval_reads_a_named_frame_by_its_feature_names():
    """A DataFrame of points reaches predict_proba as a frame: no names warning."""
    labels = np.array(["a", "b", "a", "c", "b", "b"])
    clf = DeconvolutionKernelClassifier(bandwidth=HR, degree=0, noise_scale=BR)
    clf.fit(pd.DataFrame({"age": ZR}), labels)
    points = pd.DataFrame({"age": [0.0, 0.6]})
    for method in ("rbc", "smoothed"):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            ci = clf.conf_int("predict_proba", points, method=method)
        assert [
            str(w.message) for w in caught if "feature names" in str(w.message)
        ] == []
        assert ci["quantity"].tolist() == [f"P(y={c})" for c in "aabbcc"]
        if method == "smoothed":
            np.testing.assert_allclose(
                ci["estimate"], clf.predict_proba(points).T.ravel(), rtol=1e-12
            )


_FIT_THREADS = []


class _ThreadRecordingRegressor(DeconvolutionKernelRegressor):
    """Records the thread of every fit (the bootstrap's refits among them)."""

    def fit(self, X, y):
        _FIT_THREADS.append(threading.get_ident())
        return super().fit(X, y)


def test_prediction_bootstrap_refits_in_the_requested_workers():
    """n_jobs of conf_int reaches the bootstrap's refits (threads under joblib)."""
    reg = _ThreadRecordingRegressor(bandwidth=HR, degree=0, noise_scale=BR)
    reg.fit(ZR[:, None], YR)
    main = threading.get_ident()
    frames = {}
    with parallel_config(backend="threading"):
        for n_jobs, in_main in ((None, True), (2, False)):
            _FIT_THREADS.clear()
            frames[n_jobs] = reg.conf_int(
                "predict",
                [[0.0], [0.5]],
                method="bootstrap",
                n_resamples=4,
                random_state=0,
                n_jobs=n_jobs,
            )
            assert [t == main for t in _FIT_THREADS] == [in_main] * 4
    pd.testing.assert_frame_equal(frames[None], frames[2])


def _whole_line_warnings(est, kind, points, level):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ci = est.conf_int(kind, points, level=level)
    texts = [str(w.message) for w in caught if w.category is NotIdentifiableWarning]
    return ci, texts


def test_rbc_interval_is_the_whole_line_where_the_corrected_weights_sum_below_zero():
    """No rbc estimate where its kernel sum is negative, and no bounded interval.

    Fieller's quadratic still has a bounded set there (the sum is
    significantly below 0), but a negative deconvolved density is the
    fourth-order kernel's bias, not the covariate's: the ratio of the sums'
    expectations is not E[y | x], so the interval is the whole line, warned.
    """
    # records 2 bandwidths from x = 0, where the fourth-order kernel is
    # negative and the Gaussian one positive (predict does not fall back)
    Z = np.linspace(1.9, 2.4, 12)
    y = np.arange(12.0)
    reg = DeconvolutionKernelRegressor(bandwidth=1.0, degree=0, noise_scale=0.05)
    reg.fit(Z[:, None], y)
    assert reg.fallback_mask([[0.0]]).tolist() == [False]
    K = _rbc_kernel(Z, 0.05)
    assert K.sum() < 0
    lower, upper = _fieller_by_hand(K, y, 0.9)
    assert np.isfinite([lower, upper]).all()  # the quadratic's bounded set
    ci, texts = _whole_line_warnings(reg, "predict", [[0.0]], 0.9)
    row = ci.iloc[0]
    assert row["method"] == "rbc (fourth-order kernel, sandwich)"
    assert np.isnan(row["estimate"]) and np.isnan(row["se"])
    assert (row["lower"], row["upper"]) == (-np.inf, np.inf)
    assert len(texts) == 1
    assert texts[0].startswith(
        "DeconvolutionKernelRegressor: at 1 of 1 points the predict interval is "
        "the whole line"
    )


def test_probability_interval_where_the_corrected_weights_sum_below_zero():
    """A probability without an rbc estimate holds every probability, warned."""
    # class b 2.236 bandwidths from x = 0 (the fourth-order kernel's minimum),
    # class a at 1.7: the bias-corrected sums are N / D = 1.32 for b and
    # -0.32 for a, with D < 0 significant: Fieller's quadratic has bounded
    # sets beyond 1 and below 0, which are not confidence sets for P(y | x)
    Z = np.r_[np.full(10, 2.236), np.full(20, 1.7)]
    labels = np.array(["b"] * 10 + ["a"] * 20)
    clf = DeconvolutionKernelClassifier(bandwidth=1.0, degree=0, noise_scale=0.05)
    clf.fit(Z[:, None], labels)
    assert clf.fallback_mask([[0.0]]).tolist() == [False]
    K = _rbc_kernel(Z, 0.05)
    assert K.sum() < 0
    lower_b, upper_b = _fieller_by_hand(K, (labels == "b").astype(float), 0.95)
    lower_a, upper_a = _fieller_by_hand(K, (labels == "a").astype(float), 0.95)
    assert 1.0 < lower_b < 2.0 < upper_b and lower_a < upper_a < 0.0
    ci, texts = _whole_line_warnings(clf, "predict_proba", [[0.0]], 0.95)
    assert ci["quantity"].tolist() == ["P(y=a)", "P(y=b)"]
    assert ci[["estimate", "se"]].isna().all().all()
    assert ci["lower"].tolist() == [0.0, 0.0]
    assert ci["upper"].tolist() == [1.0, 1.0]
    assert len(texts) == 1
    assert texts[0].startswith(
        "DeconvolutionKernelClassifier: at 1 of 1 points the predict_proba "
        "interval holds every probability ([0, 1]) at level 0.95"
    )


def test_probability_interval_beyond_one_is_cut_to_the_unit_interval():
    """Fieller's bounded set beyond [0, 1] (a positive kernel sum) is cut to it.

    Twenty records of class b at x = 0 and ten of class a where the
    fourth-order kernel is negative: the corrected sums give N / D above 1
    for b and below 0 for a, with D significantly above 0; the sets are cut
    to [0, 1] (to the point 1 and the point 0), then widened to the corrected
    estimate, clipped and renormalized as predict_proba does.
    """
    Z = np.r_[np.zeros(20), np.full(10, 2.236)]
    labels = np.array(["b"] * 20 + ["a"] * 10)
    clf = DeconvolutionKernelClassifier(bandwidth=1.0, degree=0, noise_scale=0.05)
    clf.fit(Z[:, None], labels)
    K = _rbc_kernel(Z, 0.05)
    z2 = stats.norm.ppf(0.975) ** 2 / (1 + stats.norm.ppf(0.975) ** 2 / K.size)
    assert K.sum() > 0 and K.sum() ** 2 > z2 * (K @ K)
    lower_b, upper_b = _fieller_by_hand(K, (labels == "b").astype(float), 0.95)
    lower_a, upper_a = _fieller_by_hand(K, (labels == "a").astype(float), 0.95)
    assert 1.0 < lower_b < upper_b and lower_a < upper_a < 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("error", NotIdentifiableWarning)
        ci = clf.conf_int("predict_proba", [[0.0]])
    assert ci["quantity"].tolist() == ["P(y=a)", "P(y=b)"]
    # predict_proba's floor 1e-6 and renormalization move the estimate just
    # inside [0, 1]; each interval is widened to hold it
    est_a, est_b = 1e-6 / (1 + 1e-6), 1 / (1 + 1e-6)
    np.testing.assert_allclose(ci["estimate"], [est_a, est_b], rtol=1e-12)
    np.testing.assert_allclose(ci["lower"], [0.0, est_b], rtol=1e-12, atol=0)
    np.testing.assert_allclose(ci["upper"], [est_a, 1.0], rtol=1e-12, atol=0)


def test_density_interval_above_one_is_not_cut():
    """A density's interval is cut at 0 only: an estimate and ends above 1 stay."""
    Z = np.array([-0.03, 0.0, 0.01, 0.02, 0.05])[:, None]
    kde = DeconvolutionKernelDensity(
        bandwidth=0.1, noise_scale=0.02, support=(-1, 1), moment_correction=False
    ).fit(Z)
    row = kde.conf_int("pdf", [0.0], method="smoothed", level=0.9).iloc[0]
    assert row["estimate"] == pytest.approx(kde.pdf([0.0])[0], rel=1e-6)
    z = stats.norm.ppf(0.95)
    assert 1.0 < row["lower"] == pytest.approx(row["estimate"] - z * row["se"])
    assert row["upper"] == pytest.approx(row["estimate"] + z * row["se"])
    assert row["estimate"] > 3.9
