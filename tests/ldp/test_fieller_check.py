"""The warning where a deconvolution regression's interval holds every value."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from skprivate import (
    DeconvolutionKernelClassifier,
    DeconvolutionKernelRegressor,
    LaplaceLDP,
)
from skprivate.exceptions import NotIdentifiableWarning
from skprivate.ldp._fieller_check import uninformative_points

INF = np.inf
POINTS = [[-1.0], [0.0], [0.5], [1.0]]


def _fallback_message(name, kind, count, listed):
    """The warning naming the points where ``kind`` falls back."""
    proba = kind == "predict_proba"
    return (
        f"{name}: the {kind} interval is NaN at {count} point(s), {listed}, "
        f"where {kind} falls back to the training "
        f"{'class frequencies' if proba else 'mean'} (see fallback_mask: no "
        "records near them, or kernel weights that cannot be told from zero): "
        f"the records do not identify {'P(y | x)' if proba else 'E[y | x]'} "
        f"there. The estimate column holds the fallback value that {kind} "
        "returns."
    )


def _split(caught):
    """The fallback warnings and the others (the Fieller check's)."""
    texts = [str(w.message) for w in caught]
    fallback = [t for t in texts if " falls back to the training " in t]
    return fallback, [t for t in texts if t not in fallback]


def _frame(quantities, estimate, lower, upper):
    return pd.DataFrame(
        {"quantity": quantities, "estimate": estimate, "lower": lower, "upper": upper}
    )


def test_counts_whole_lines_of_points_with_an_interval_only():
    frame = _frame(
        ["predict"] * 5,
        [0.2, 0.9, np.nan, 0.1, 0.4],
        [-INF, 0.5, np.nan, -INF, -3.0],
        [INF, 1.3, np.nan, 2.0, INF],
    )
    # one-sided infinite ends do not count; the fallback point is not estimated
    assert uninformative_points(frame, proba=False) == (1, 4)
    assert uninformative_points(frame.iloc[[1, 2]], proba=False) == (0, 1)
    # an interval without an estimate (the bias-corrected fit where its
    # kernel sum is not above 0) counts
    nan_point = _frame(["predict"], [np.nan], [-INF], [INF])
    assert uninformative_points(nan_point, proba=False) == (1, 1)


def test_probabilities_count_each_point_once_over_its_classes():
    frame = _frame(
        ["P(y=0)"] * 3 + ["P(y=1)"] * 3,
        [0.3, 0.5, 0.2, 0.7, 0.5, 0.8],
        [0.0, 0.1, 0.0, 0.0, 0.0, 0.05],
        [1.0, 0.9, 0.7, 1.0, 1.0, 1.0],
    )
    # point 0: both classes [0, 1]; point 1: class 1 only; point 2: neither
    assert uninformative_points(frame, proba=True) == (2, 3)
    # a probability interval [0, 1] is not infinite: no whole line
    assert uninformative_points(frame.assign(quantity="predict"), proba=False) == (
        0,
        6,
    )
    inside = frame.assign(lower=1e-12, upper=1.0 - 1e-12)
    assert uninformative_points(inside, proba=True) == (0, 3)


def _releases(seed, classifier):
    rng = np.random.default_rng(seed)
    x = rng.uniform(-2, 2, size=(300, 1))
    y = np.sin(2 * x[:, 0]) + 0.3 * rng.normal(size=300)
    ldp = LaplaceLDP(epsilon=2.0, bounds=(-2, 2), random_state=seed)
    z = ldp.fit_transform(x)
    if classifier:
        y = (rng.uniform(size=300) < 1 / (1 + np.exp(-2 * x[:, 0]))).astype(int)
        cls = DeconvolutionKernelClassifier
    else:
        cls = DeconvolutionKernelRegressor
    return cls(bandwidth=0.4, degree=0, noise_scale=ldp.scale_).fit(z, y)


def test_regressor_warns_naming_how_many_points_hold_every_value():
    reg = _releases(1, classifier=False)
    # -1 and 1 fall back to the training mean: their estimate is predict's,
    # they have no interval and are not counted (2 of 2, not 2 of 4)
    assert reg.fallback_mask(POINTS).tolist() == [True, False, False, True]
    with pytest.warns(NotIdentifiableWarning) as caught:
        ci = reg.conf_int("predict", POINTS, level=(0.9, 0.95))
    # one fallback warning and one Fieller warning for the call, not one per
    # level, the fallback's first
    assert [w.category for w in caught] == [NotIdentifiableWarning] * 2
    fallback, fieller = _split(caught)
    assert fallback == [
        _fallback_message("DeconvolutionKernelRegressor", "predict", 2, "(-1), (1)")
    ]
    assert str(caught[0].message) == fallback[0]
    at95 = ci[ci["level"] == 0.95]
    assert np.isneginf(at95["lower"]).sum() == 2
    assert np.isnan(at95["lower"]).tolist() == [True, False, False, True]
    fell = reg.fallback_mask(POINTS)
    assert at95["estimate"][fell].tolist() == reg.predict(POINTS)[fell].tolist()
    assert np.isfinite(at95["estimate"]).all()
    assert fieller == [
        "DeconvolutionKernelRegressor: at 2 of 2 points the predict interval is "
        "the whole line: there the kernel weights' sum (the deconvolved density "
        "of the covariate, the estimate's denominator) is not significantly above "
        "0 at level 0.9, so the releases do not locate E[y | x] there and the "
        "estimate is unstable (with method='rbc', missing where that sum is not "
        "above 0). A wider bandwidth, more records or a larger epsilon give an "
        "estimate there."
    ]


def test_classifier_warns_where_the_interval_holds_every_probability():
    clf = _releases(4, classifier=True)
    # 0 and 0.5 fall back to the class frequencies: their estimate is
    # predict_proba's, they have no interval and are not counted (2 of 2)
    assert clf.fallback_mask(POINTS).tolist() == [False, True, True, False]
    with pytest.warns(NotIdentifiableWarning) as caught:
        ci = clf.conf_int("predict_proba", POINTS, level=0.95)
    assert [w.category for w in caught] == [NotIdentifiableWarning] * 2
    fallback, fieller = _split(caught)
    assert fallback == [
        _fallback_message(
            "DeconvolutionKernelClassifier", "predict_proba", 2, "(0), (0.5)"
        )
    ]
    assert str(caught[0].message) == fallback[0]
    every = (ci["lower"] <= 0) & (ci["upper"] >= 1)
    assert every.sum() == 4  # two points, both classes
    assert every.to_numpy().reshape(2, 4).tolist() == [[True, False, False, True]] * 2
    fell = clf.fallback_mask(POINTS)
    estimate = ci["estimate"].to_numpy().reshape(2, 4)
    np.testing.assert_array_equal(estimate[:, fell], clf.predict_proba(POINTS)[fell].T)
    assert np.isfinite(estimate).all()
    assert (
        ci[["lower", "upper"]].isna().to_numpy().reshape(2, 4, 2).all(axis=2).tolist()
        == [fell.tolist()] * 2
    )
    assert fieller == [
        "DeconvolutionKernelClassifier: at 2 of 2 points the predict_proba "
        "interval holds every probability ([0, 1]) at level 0.95: the releases "
        "do not narrow P(y | x) there (the kernel weights' sum, the deconvolved "
        "density of the covariate and the estimate's denominator, is not or "
        "barely significantly above 0), and the estimate is unstable (with "
        "method='rbc', missing where that sum is not above 0). A wider "
        "bandwidth, more records or a larger epsilon give an estimate there."
    ]


def test_bounded_intervals_do_not_warn():
    rng = np.random.default_rng(0)
    x = rng.uniform(-2, 2, size=(2000, 1))
    y = np.sin(2 * x[:, 0]) + 0.3 * rng.normal(size=2000)
    ldp = LaplaceLDP(epsilon=8.0, bounds=(-2, 2), random_state=0)
    z = ldp.fit_transform(x)
    reg = DeconvolutionKernelRegressor(
        bandwidth=0.4, degree=0, noise_scale=ldp.scale_
    ).fit(z, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error", NotIdentifiableWarning)
        ci = reg.conf_int("predict", [[0.0], [0.5]], level=0.95)
    assert np.isfinite(ci[["lower", "upper"]].to_numpy()).all()


def test_only_fallback_points_do_not_warn():
    # every point falls back to the training mean: the fallback warning names
    # them, and the Fieller check, with no point estimated, does not warn
    reg = _releases(5, classifier=False)
    assert reg.fallback_mask(POINTS).all()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ci = reg.conf_int("predict", POINTS, level=0.95)
    assert [w.category for w in caught] == [NotIdentifiableWarning]
    assert [str(w.message) for w in caught] == [
        _fallback_message(
            "DeconvolutionKernelRegressor", "predict", 4, "(-1), (0), (0.5), (1)"
        )
    ]
    # where the warning points is pinned by test_warning_points_to_the_caller
    assert ci["estimate"].tolist() == reg.predict(POINTS).tolist()
    assert ci[["se", "lower", "upper"]].isna().all(axis=None)


def test_warning_points_to_the_caller():
    reg = _releases(1, classifier=False)
    with pytest.warns(NotIdentifiableWarning) as caught:
        reg.conf_int("predict", POINTS, level=0.95)
    # the fallback warning and the Fieller warning both point at the caller
    assert len(caught) == 2
    assert [w.filename for w in caught] == [__file__] * 2
