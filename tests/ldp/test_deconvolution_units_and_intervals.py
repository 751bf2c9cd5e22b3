"""Deconvolution learners: units, parameter spaces and fallbacks of intervals.

The moment correction of :class:`DeconvolutionKernelDensity` (and the tilt
it shares with the grid estimators) gives the same estimate whatever the
data's units; ``conf_int`` estimates lie in their intervals and in the
parameter space; the regressor keeps the feature names of a DataFrame,
emits no raw numpy warnings on tiny samples, and reports the fallback
points of ``predict`` consistently with it.
"""

import re
import warnings

import numpy as np
import pandas as pd
import pytest

from skprivate import (
    DeconvolutionKernelClassifier,
    DeconvolutionKernelDensity,
    DeconvolutionKernelRegressor,
    LaplaceLDP,
)
from skprivate._grid_density._moments import (
    additive_features,
    moment_covariance,
    tilt_to_moments,
)
from skprivate.exceptions import CoverageWarning, NotIdentifiableWarning

PROBABILITIES = [0.25, 0.5, 0.75]


def _release():
    rng = np.random.default_rng(0)
    x = rng.uniform(0, 1, (300, 1))
    ldp = LaplaceLDP(epsilon=2.0, bounds=(0, 1), random_state=0).fit(x)
    return ldp.transform(x), ldp.scale_


def _in_units(z, scale, c, offset, **params):
    """Quantiles, mean and pdf of the fit in units ``offset + c x``, in ``x``."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        kde = DeconvolutionKernelDensity(
            noise_scale=scale * c,
            support=(offset, offset + c),
            bandwidth=0.2 * c,
            **params,
        ).fit(z * c + offset)
        quantiles = (kde.quantile(PROBABILITIES) - offset) / c
        mean = (kde.mean() - offset) / c
        pdf = kde.pdf(offset + c * np.array([0.1, 0.5, 0.9])) * c
    flagged = [w for w in caught if issubclass(w.category, NotIdentifiableWarning)]
    return quantiles, mean, pdf, flagged


@pytest.mark.parametrize("c, offset", [(1e-6, 0.0), (1e6, 0.0), (1e9, 0.0), (1.0, 1e6)])
def test_moment_corrected_density_does_not_depend_on_units(c, offset):
    z, scale = _release()
    q1, mean1, pdf1, flagged1 = _in_units(z, scale, 1.0, 0.0)
    assert flagged1 == []
    # the correction does act on this fit
    q_raw = _in_units(z, scale, 1.0, 0.0, moment_correction=False)[0]
    assert np.max(np.abs(q1 - q_raw)) > 0.01
    q, mean, pdf, flagged = _in_units(z, scale, c, offset)
    assert [str(w.message) for w in flagged] == []
    np.testing.assert_allclose(q, q1, rtol=1e-8)
    assert mean == pytest.approx(mean1, rel=1e-8)
    np.testing.assert_allclose(pdf, pdf1, rtol=1e-8)


def _tilt_case():
    edges = np.linspace(0.0, 1.0, 201)
    mids = 0.5 * (edges[:-1] + edges[1:])
    mass = mids * (1 - mids) ** 3
    features = additive_features(edges, 0.05)
    return mass / mass.sum(), features


def _in_scale(features, target, c):
    power = np.array([c, c * c])
    return features * power, np.asarray(target) * power


@pytest.mark.parametrize("c", [1e-6, 1e6, 1e9])
def test_tilt_to_moments_is_the_same_in_any_units(c):
    mass, F = _tilt_case()
    # mean 0.4 and variance 0.03 of the values; the reports add 0.05
    target = [0.4, 0.4**2 + 0.03 + 0.05]
    p1, lam1 = tilt_to_moments(mass, F, target)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        p, lam = tilt_to_moments(mass, *_in_scale(F, target, c))
    np.testing.assert_allclose(p, p1, rtol=1e-8, atol=1e-15)
    # exp(l1 x + l2 x**2) with x' = c x: l1' = l1 / c, l2' = l2 / c**2
    np.testing.assert_allclose(lam * [c, c * c], lam1, rtol=1e-6)


_NUMBER = r"(-?[\d.]+(?:e[+-]?\d+)?)"
_OUT_OF_REACH = re.compile(
    rf"variance it implies \({_NUMBER}\) is outside the range "
    rf"\[{_NUMBER}, {_NUMBER}\] .* mean \({_NUMBER}\) .* moved to {_NUMBER},"
)


@pytest.mark.parametrize("c, offset", [(1e-6, 0.0), (1e6, 0.0), (1e9, 0.0), (1.0, 1e6)])
def test_tilt_to_moments_out_of_reach_second_moment_in_any_units(c, offset):
    mass, F = _tilt_case()
    # a variance of the values below zero: moved into the attainable range
    target = [0.4, 0.4**2 - 0.01 + 0.05]
    with pytest.warns(NotIdentifiableWarning, match="mean square") as caught1:
        p1, _ = tilt_to_moments(mass, F, target)
    with pytest.warns(NotIdentifiableWarning, match="mean square") as caught:
        if offset:  # features of the values in the units of the support
            p, _ = tilt_to_moments(mass, F, target, units=(offset, c))
        else:
            p, _ = tilt_to_moments(mass, *_in_scale(F, target, c))
    np.testing.assert_allclose(p, p1, rtol=1e-8, atol=1e-15)
    got = _OUT_OF_REACH.search(str(caught[0].message))
    assert got, str(caught[0].message)
    want = _OUT_OF_REACH.search(str(caught1[0].message))
    # the reports' variances (given, attainable range, moved) scale by c**2,
    # and the mean is in the data's units
    values = np.array(got.groups(), dtype=float)
    values = values * [1, 1, 1, 0, 1] / (c * c) + [0, 0, 0, (values[3] - offset) / c, 0]
    np.testing.assert_allclose(values, np.array(want.groups(), dtype=float), rtol=1e-5)


@pytest.mark.parametrize("c", [1e-6, 1e6, 1e9])
def test_tilt_to_moments_ellipse_in_any_units(c):
    mass, F = _tilt_case()
    rng = np.random.default_rng(3)
    z = rng.beta(2, 3, 400) + rng.laplace(scale=np.sqrt(0.025), size=400)
    powers = [np.mean(z**k) for k in (1, 2, 3, 4)]
    cov = moment_covariance(z.size, *powers)
    p1, lam1 = tilt_to_moments(mass, F, powers[:2], cov=cov)
    assert np.any(lam1 != 0)  # moved to the ellipse
    scaled = cov * np.outer([c, c * c], [c, c * c])
    p, lam = tilt_to_moments(mass, *_in_scale(F, powers[:2], c), cov=scaled)
    np.testing.assert_allclose(p, p1, rtol=1e-7, atol=1e-15)
    np.testing.assert_allclose(lam * [c, c * c], lam1, rtol=1e-6)


def _small_kde():
    x = np.random.default_rng(1).beta(2, 5, (60, 1))
    priv = LaplaceLDP(epsilon=1.0, bounds=(0, 1), random_state=1)
    return DeconvolutionKernelDensity(privatizer=priv, support=(0, 1)).fit(x)


@pytest.mark.parametrize("kind", ["cdf", "pdf"])
@pytest.mark.parametrize("method", ["rbc", "smoothed"])
def test_density_interval_estimate_lies_in_its_interval_and_range(kind, method):
    kde = _small_kde()
    points = [0.1, 0.3, 0.6]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CoverageWarning)
        ci = kde.conf_int(kind, points, method=method)
    est, lower, upper = (ci[k].to_numpy() for k in ("estimate", "lower", "upper"))
    assert np.all((lower <= est) & (est <= upper))
    top = 1.0 if kind == "cdf" else np.inf
    assert np.all((lower >= 0.0) & (upper <= top) & (est >= 0.0) & (est <= top))
    # the public CDF and density the user reads are in the parameter space
    cdf = kde.cdf(points)
    assert np.all((cdf >= 0) & (cdf <= 1)) and np.all(kde.pdf(points) >= 0)


def test_bootstrap_prediction_interval_keeps_the_feature_names():
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"age": rng.uniform(0, 1, 200)})
    y = np.sin(3 * X.age) + 0.1 * rng.normal(size=200)
    reg = DeconvolutionKernelRegressor(
        privatizer=LaplaceLDP(epsilon=3, bounds=(0, 1), random_state=0),
        random_state=0,
    ).fit(X, y)
    points = pd.DataFrame({"age": [0.3, 0.5]})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ci = reg.conf_int(
            "predict", points, method="bootstrap", n_resamples=5, random_state=0
        )
    assert not [w for w in caught if "feature names" in str(w.message)]
    np.testing.assert_allclose(ci["estimate"], reg.predict(points), rtol=1e-12)


@pytest.mark.parametrize(
    "make, y",
    [
        (DeconvolutionKernelRegressor, [1.0, 2.0]),
        (DeconvolutionKernelClassifier, [0, 1]),
    ],
)
def test_two_rows_give_no_raw_numpy_warnings(make, y):
    z = np.array([[0.1], [0.9]])
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        with pytest.warns(UserWarning, match="SIMEX losses are undefined"):
            est = make(noise_scale=0.5, random_state=0).fit(z, np.array(y))
    assert np.isfinite(est.bandwidth_)


def _fallback_regressor():
    rng = np.random.default_rng(0)
    x = rng.uniform(0, 1, (300, 1))
    y = np.sin(3 * x[:, 0]) + 0.1 * rng.normal(size=300)
    ldp = LaplaceLDP(epsilon=3.0, bounds=(0, 1), random_state=0).fit(x)
    z = ldp.transform(x)
    reg = DeconvolutionKernelRegressor(noise_scale=ldp.scale_, random_state=0)
    return reg.fit(z, y), z, y


@pytest.mark.parametrize("method", ["smoothed", "bootstrap"])
def test_prediction_interval_at_fallback_points_matches_predict_and_warns(method):
    reg, z, y = _fallback_regressor()
    points = np.array([[-10.0], [0.5], [10.0]])
    assert reg.fallback_mask(points).tolist() == [True, False, True]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CoverageWarning)
        with pytest.warns(NotIdentifiableWarning, match="falls back") as caught:
            ci = reg.conf_int(
                "predict",
                points,
                X=z,
                y=y,
                method=method,
                n_resamples=5,
                random_state=0,
            )
    message = " ".join(
        str(w.message) for w in caught if issubclass(w.category, NotIdentifiableWarning)
    )
    assert "(-10)" in message and "(10)" in message and "(0.5)" not in message
    np.testing.assert_allclose(ci["estimate"], reg.predict(points), rtol=1e-12)
    assert ci[["lower", "upper", "se"]].iloc[[0, 2]].isna().all().all()
    assert np.isfinite(ci[["lower", "upper"]].iloc[1]).all()


def test_prediction_interval_without_fallback_points_does_not_warn():
    reg, z, y = _fallback_regressor()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CoverageWarning)
        warnings.simplefilter("error", NotIdentifiableWarning)
        ci = reg.conf_int("predict", [[0.5]], X=z, y=y, level=[0.9, 0.95])
    assert np.isfinite(ci[["estimate", "lower", "upper"]].to_numpy()).all()


def test_probability_interval_at_fallback_points_matches_predict_proba():
    rng = np.random.default_rng(0)
    x = rng.uniform(0, 1, (300, 1))
    labels = (x[:, 0] + 0.3 * rng.normal(size=300) > 0.5).astype(int)
    ldp = LaplaceLDP(epsilon=3.0, bounds=(0, 1), random_state=0).fit(x)
    clf = DeconvolutionKernelClassifier(noise_scale=ldp.scale_, random_state=0)
    clf.fit(ldp.transform(x), labels)
    points = np.array([[0.5], [30.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CoverageWarning)
        with pytest.warns(NotIdentifiableWarning, match="class frequencies"):
            ci = clf.conf_int("predict_proba", points, method="smoothed")
    proba = clf.predict_proba(points)
    np.testing.assert_allclose(ci["estimate"], proba.T.ravel(), rtol=1e-12)
    assert ci[["lower", "upper"]].iloc[[1, 3]].isna().all().all()
