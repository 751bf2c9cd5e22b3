"""Fast paths agree with the reference computation they replace.

One test (or small group) per row of ``benchmarks/peers.py``: each fails when
the faster path drifts from the slower reference path by more than the
stated tolerance.  Speed itself is measured by the benchmark, not here.
"""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

import skprivate

# -- row 1: the command line imports only what a command uses ----------------

_HEAVY = ("sklearn", "scipy", "pandas")

_HELP_PROBE = """
import contextlib, io, json, runpy, sys
sys.argv = ["skprivate", "--help"]
with contextlib.redirect_stdout(io.StringIO()) as out:
    try:
        runpy.run_module("skprivate", run_name="__main__")
    except SystemExit as exc:
        code = exc.code
heavy = sorted({m.split(".")[0] for m in sys.modules} & set(HEAVY))
print(json.dumps({"code": code, "heavy": heavy, "usage": out.getvalue()[:40]}))
"""


def test_help_imports_no_heavy_module():
    probe = _HELP_PROBE.replace("HEAVY", repr(_HEAVY))
    proc = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    )
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert result["code"] == 0
    assert result["usage"].startswith("usage: python -m skprivate")
    assert result["heavy"] == []


def test_lazy_names_match_the_families():
    # the table that resolves names without importing every family
    for family, names in skprivate._FAMILY_EXPORTS.items():
        module = getattr(skprivate, family)
        assert sorted(names) == sorted(module.__all__), family
    assert sorted(skprivate.FAMILIES) == sorted(skprivate._FAMILY_NAMES)
    assert skprivate.LaplaceLDP is skprivate.ldp.LaplaceLDP
    assert skprivate.IntervalMLE is skprivate.interval.IntervalMLE
    namespace: dict = {}
    exec("from skprivate import *", namespace)
    assert set(skprivate.__all__) <= set(namespace)
    with pytest.raises(AttributeError, match="no attribute 'NoSuchName'"):
        skprivate.NoSuchName  # noqa: B018


# -- row 2: deconvolution kernel sums -----------------------------------------


@pytest.mark.parametrize("ratio", [0.0, 2.0])
def test_gaussian_sums_match_the_general_kernel_path(ratio):
    from skprivate.ldp._direct_sums import direct_sums

    rng = np.random.default_rng(3)
    Z = rng.normal(size=(700, 1)) * 2.0
    X = np.linspace(-7.0, 7.0, 301)[:, None]
    W = rng.uniform(size=(700, 2))
    h = 0.4
    fast = direct_sums(X, Z, W, h, np.array([ratio]), "gaussian")
    # specs given explicitly: the general path through deconvolution_kernel
    reference = direct_sums(X, Z, W, h, np.array([ratio]), "gaussian", specs=[(0,)])
    scale = np.abs(reference).max(axis=0)
    np.testing.assert_array_less(np.abs(fast - reference) / scale, 1e-10)


def test_density_from_deferred_tabulation_is_unchanged():
    from skprivate import DeconvolutionKernelDensity

    rng = np.random.default_rng(4)
    z = (rng.normal(size=400) + rng.laplace(scale=0.5, size=400))[:, None]
    est = DeconvolutionKernelDensity(bandwidth=0.35, noise_scale=0.5).fit(z)
    assert est._dist is None  # not tabulated by fit
    grid = np.linspace(-2.0, 2.0, 9)
    first = est.pdf(grid)
    est._build_distribution()  # the tabulation fit used to run
    np.testing.assert_allclose(est.pdf(grid), first, rtol=1e-12)
    assert est.cdf(np.array([z.max()]))[0] == pytest.approx(1.0)
    # one distinct record: refused in fit, as before
    with pytest.raises(ValueError, match="not positive anywhere"):
        DeconvolutionKernelDensity(bandwidth=0.35, noise_scale=0.5).fit(z[:1])


# -- row 3: subset EM reaches the optimum -------------------------------------


def _scipy_subset_optimum(est):
    """The MLE by scipy's trust-region Newton in ``w[:-1]`` (interior optimum)."""
    from scipy.optimize import minimize

    U = est.subsets_.astype(float)
    c = est.subset_counts_
    s, t = est.design_.scale, est.design_.offset
    p = U.shape[1]
    D = U[:, :-1] - U[:, -1:]  # d lik / d theta, theta = w[:-1]

    def parts(theta):
        lik = s * (U[:, -1] + D @ theta) + t
        return lik, c / lik

    n = c.sum()  # the mean log-likelihood: a gradient of order one

    def f(theta):
        return -float(c @ np.log(parts(theta)[0])) / n

    def grad(theta):
        return -s * D.T @ parts(theta)[1] / n

    def hess(theta):
        lik, r = parts(theta)
        return (s * s) * (D.T * (r / lik)) @ D / n

    res = minimize(
        f,
        np.full(p - 1, 1.0 / p),
        jac=grad,
        hess=hess,
        method="trust-exact",
        options={"gtol": 1e-11},
    )
    # status 2: stopped at the rounding of f, where the gradient is checked
    assert res.success or np.abs(res.jac).max() < 1e-9, res.message
    return np.append(res.x, 1.0 - res.x.sum())


@pytest.mark.parametrize(("p", "seed"), [(10, 0), (16, 2)])
def test_subset_em_is_within_tol_of_scipys_optimum(p, seed):
    from skprivate import SubsetDistributionEstimator, SubsetUniform

    # designs where plain EM's stopping rule left it 9e-7 and 2e-6 away
    rng = np.random.default_rng(seed)
    w = rng.dirichlet(np.full(p, 5.0))
    x = rng.choice(p, size=5000, p=w)
    mech = SubsetUniform(categories=[list(range(p))], random_state=seed)
    A = mech.fit_transform(x[:, None])
    for acceleration in ("squarem", None):
        est = SubsetDistributionEstimator(
            method="em", acceleration=acceleration, tol=1e-7
        ).fit(A)
        optimum = _scipy_subset_optimum(est)
        assert optimum.min() > 1e-3  # interior: the reduced problem is the MLE
        assert np.abs(est.distribution_ - optimum).max() <= est.tol


# -- row 4: IntervalMLE at the maximum of its likelihood ----------------------


def _newton_distance(Z, loc, scale, family):
    """``|H^-1 g|`` in (location, log scale) from differences of the likelihood.

    Richardson-extrapolated central differences (error ~1e-12 here), an
    estimate of the distance to the optimum that shares no code with the
    fit beyond the likelihood itself.
    """
    from skprivate.interval._truncated import interval_log_likelihood

    noise = "gaussian" if family == "normal" else "logistic"
    n = Z.shape[0]

    def f(a, b):
        return (
            interval_log_likelihood(
                Z[:, 0], Z[:, 1], loc + a * scale, noise, scale * np.exp(b)
            )
            / n
        )

    def d1(fun, h):
        return (fun(h) - fun(-h)) / (2 * h)

    def rich(fun, h=1e-3):
        return (4 * d1(fun, h / 2) - d1(fun, h)) / 3

    g = np.array([rich(lambda e: f(e, 0)), rich(lambda e: f(0, e))])
    e = 1e-3
    H = np.empty((2, 2))
    H[0, 0] = (f(e, 0) - 2 * f(0, 0) + f(-e, 0)) / e**2
    H[1, 1] = (f(0, e) - 2 * f(0, 0) + f(0, -e)) / e**2
    H[0, 1] = H[1, 0] = (f(e, e) - f(e, -e) - f(-e, e) + f(-e, -e)) / (4 * e * e)
    step = np.linalg.solve(H, -g)
    return np.abs(step * np.array([scale, 1.0]))


@pytest.mark.parametrize("family", ["normal", "logistic"])
@pytest.mark.parametrize("case", ["I", "II", "mixed"])
def test_interval_mle_is_at_the_maximum(family, case):
    from skprivate import IntervalCaseI, IntervalCaseII, IntervalMLE

    rng = np.random.default_rng(7)
    x = rng.normal(3.0, 2.0, size=(800, 1))
    mech = IntervalCaseI if case == "I" else IntervalCaseII
    Z = mech(anchor_loc=3.0, anchor_scale=2.0, random_state=1).fit_transform(x)
    if case == "mixed":  # exact values next to two-sided cells
        Z[:100] = x[:100]
    est = IntervalMLE(family=family).fit(Z)
    # loc within 1e-8 (data units, sd 2) and log scale within 1e-8
    assert np.all(_newton_distance(Z, est.loc_, est.scale_, family) < 1e-8)


# -- row 5: the default linear interval regression skips the boosted check ---


@pytest.mark.parametrize("case", ["I", "II"])
def test_screened_default_equals_the_mle_and_the_checked_default(case, monkeypatch):
    # Where the score test does not reject, the default is the interval MLE
    # (init="constant") to the last digit, and it is what the full check
    # (forced by a level of 1) keeps on a linear model.  The sample is one
    # where the test does not reject (about 92 % of linear samples do not;
    # the first assertion checks it).
    import warnings

    from sklearn.linear_model import LinearRegression

    from skprivate import IntervalCaseI, IntervalCaseII, IterativeIntervalRegressor
    from skprivate.interval import _auto_init

    rng = np.random.default_rng(12)
    X = rng.normal(size=(800, 4))
    y = X @ np.array([1.0, -2.0, 0.5, 0.0]) + rng.normal(size=800)
    mech = IntervalCaseI if case == "I" else IntervalCaseII
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        Z = mech(random_state=2).fit_transform(y[:, None])
        fast = IterativeIntervalRegressor(LinearRegression(), random_state=0).fit(X, Z)
        mle = IterativeIntervalRegressor(LinearRegression(), init="constant").fit(X, Z)
        monkeypatch.setattr(_auto_init, "_SCREEN_LEVEL", 1.0)
        checked = IterativeIntervalRegressor(LinearRegression(), random_state=0).fit(
            X, Z
        )
    assert set(fast.start_scores_) == {"specification p-value"}
    assert "z boosting" in checked.start_scores_
    np.testing.assert_array_equal(fast.predict(X), mle.predict(X))
    np.testing.assert_array_equal(fast.predict(X), checked.predict(X))
    assert fast.sigma_ == mle.sigma_ == checked.sigma_


# -- row 7: the NPMLE's resampling refits, batched ----------------------------


class _OneByOne:
    """A statistic the batched refits do not take: one refit per draw."""

    def __init__(self, statistic):
        self.statistic = statistic

    def __call__(self, est):
        return self.statistic(est)


@pytest.mark.parametrize("scheme", ["jackknife", "bootstrap", "subsampling"])
def test_batched_npmle_refits_equal_one_refit_per_draw(scheme):
    # The mean's jackknife (the default beyond Case I) and bootstrap, and the
    # CDF's subsampling: the batched refits reach the optimum closer than a
    # refit at the default tolerance, so they agree to about 1e-7.
    import warnings

    from sklearn.base import clone

    from skprivate import IntervalCaseII, IntervalNPMLE
    from skprivate._uncertainty import (
        group_jackknife_indices,
        replicate_statistics,
        resample_indices,
    )
    from skprivate.interval._resampled_statistics import CdfAt, Mean

    n = 600
    x = np.random.default_rng(3).normal(3.0, 2.0, size=(n, 1))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        Z = IntervalCaseII(anchor_loc=3.0, anchor_scale=2.0, random_state=4)
        Z = Z.fit_transform(x)
    est = IntervalNPMLE()
    if scheme == "jackknife":
        stat, draws = Mean(), group_jackknife_indices(n, 20, 0)[0]
    elif scheme == "bootstrap":
        stat, draws = Mean(), resample_indices(n, 15, 0)
    else:
        stat, draws = CdfAt(np.array([3.0])), resample_indices(n, 15, 0, 72, False)
    fast = replicate_statistics(clone(est), Z, stat, draws)
    slow = replicate_statistics(clone(est), Z, _OneByOne(stat), draws)
    assert not np.isnan(slow).any()
    np.testing.assert_allclose(fast, slow, rtol=0, atol=5e-7)
