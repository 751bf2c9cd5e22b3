"""Coverage of ``conf_int``: every learner, every interval type, simulated.

For each learner and interval type, samples of ``n = 500`` and ``n = 2000``
are drawn from a known population, privatized at two privacy levels, the
learner is fitted on the release and ``conf_int`` computes the nominal 90%
and 95% intervals (one call, both levels).  The empirical coverage of the
true population quantity over the replications, its Monte Carlo standard
error and the mean width of the 95% interval are reported.  The target is a
95% coverage within ``[0.93, 0.97]``; every cell outside is listed with the
reason.  Intervals that declare a smoothed target (the deconvolution
``"smoothed"`` method, the linearized EMS intervals) are also scored
against that target, computed exactly from the population.

The linearized EMS intervals of the perturbed KDE, the Square Wave and
RVNS are computed by both methods: ``"rbc"`` (the default, centred on the
bias-corrected fit and scored against the true value only) and
``"smoothed"`` (centred on the fit), which declares as target the EMS fixed
point at the population law of the reports, at the smoothing width the fit
chose, after the fit's moment tilt (to the reports' population moments,
within the ellipse of the sample's moment covariance, as the fit does).
The column ``bias / SE`` is the mean error of the estimate against the
true value in units of the interval's standard error: it tells a miss
caused by bias from one caused by a wrong spread.

Cost.  Cells run 500 replications, except those whose interval refits the
estimator many times (stated per cell): the subsampling and bootstrap
intervals refit the NPMLE 400 and 200 times per interval, the jackknife
of its mean beyond Case I 20 times.  The narrow-anchor
cells of the NPMLE (anchors that do not reach the population's tails, so the
mean is only set-identified) run 400 replications and score both the
identified-set interval and the influence interval against the true
mean.  The perturbed KDE and RVNS maximum-likelihood fits choose their
smoothing by 5-fold held-out likelihood over nine widths (about 0.5 s a fit
on 50 cells).

Sampling weights.  Two sections draw an informative sample: a row of the
population enters with probability 0.8 when its value (for the regression,
its response minus the intercept) is above 0, else 0.2, so the sample's
law is not the population's; the learners are fitted with the weights
``1 / pi`` and their default intervals for a weighted fit (the sandwich
covariance) are scored against the population's quantities.
Running a part.  ``SKPRIVATE_COVERAGE_SECTIONS="name,name" python -m
benchmarks coverage`` runs the sections whose names contain one of the
given parts (a part ``=name`` names one section exactly) and rewrites
the report with the other sections' cells kept from their last run
(``results/coverage_cells.csv``); the ``run`` column and the summary say
when each section was run.  ``SKPRIVATE_COVERAGE_SECTIONS=none``
runs nothing and rewrites the report from the stored cells (and their
reasons and status in ``results/coverage_cells.csv`` by the current rules).
``SKPRIVATE_COVERAGE_REPS=n`` sets the replications per cell of the
sections run, in place of their defaults (the ``reps`` column records
them).  ``SKPRIVATE_COVERAGE_SETTINGS="n:privacy,..."`` (for example
``"500:8"``) runs only those sample sizes and privacy levels of the chosen
sections and keeps their other cells from the stored run: a longer run of
the cells near the band's ends.  Replication ``i`` of a cell always draws
from the same seed, so a run of ``3n`` replications holds the ``n`` of a
run of ``n`` and adds ``2n`` new ones.

Warnings and status.  The ``conf_int`` calls of the learners that check
their setting (the grid EMS width choice, the deconvolution bandwidth, the
NPMLE's cube-root intervals, the NPMLE mean's identification) record the
:class:`~skprivate.exceptions.CoverageWarning` or
:class:`~skprivate.exceptions.NotIdentifiableWarning` they raise; the column
``warned`` is the share of the samples in which the call warned.  The
``status`` of a cell is ``meets`` (95% coverage in [0.93, 0.97]),
``warns: <reason>`` (outside, and the learner warned in most samples,
with its message; or it warned in some samples and the coverage of the
others, at least ``MIN_UNWARNED`` of them, is inside the band, so the
samples it warned on carry the miss: column ``cov 95%, unwarned``),
``refuses: <reason>`` (the learner raised an error in most samples) or
``misses: <reason>`` (outside with neither).
Bandwidths of the deconvolution learners are fixed per design to the
data-driven choice (cross-validation, SIMEX) on an independent pilot
sample, so a fit costs milliseconds; the intervals treat the bandwidth as
given either way.
"""

from __future__ import annotations

import fcntl
import os
import time
import warnings
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import pandas as pd
from joblib import Parallel, delayed
from scipy import integrate, stats

from skprivate import (
    DeconvolutionKernelClassifier,
    DeconvolutionKernelDensity,
    DeconvolutionKernelRegressor,
    IntegralPrivateStatistics,
    IntervalCaseI,
    IntervalCaseII,
    IntervalMLE,
    IntervalNPMLE,
    IterativeIntervalRegressor,
    LaplaceLDP,
    laplace_describe,
    laplace_intervals,
)
from skprivate._grid_density._ems import (
    ML_MAX_ITER,
    ML_TOL,
    ems_cell_probabilities,
)
from skprivate._grid_density._intervals import binomial_filter_matrix, cell_cdf_weights
from skprivate._uncertainty import DEFAULT_RESAMPLES
from skprivate.exceptions import CoverageWarning, NotIdentifiableWarning
from skprivate.frequency import (
    FrequencyEstimator,
    FrequencyOracle,
    LongitudinalFrequencyEstimator,
    LongitudinalOracle,
)
from skprivate.interval._npmle_intervals import NPMLE_JACKKNIFE_GROUPS, NPMLE_SUBSAMPLES
from skprivate.ldp import PerturbedKDEEstimator, SquareWaveEMSEstimator, SquareWaveLDP
from skprivate.ldp._noise_laws import GeneralizedGaussianNoise
from skprivate.ldp._transitions import additive_transition, square_wave_transition
from skprivate.negative_survey import RVNSDensityEstimator, RVNSPerturber
from skprivate.subset import SubsetDistributionEstimator, SubsetUniform

from ._common import Section

TITLE = "Coverage of the confidence intervals of every learner (conf_int)"

SIZES = (500, 2000)
LEVELS = (0.90, 0.95)
TARGET = (0.93, 0.97)
FULL_REPS = 500

# Cells of the last full-length run of every section, so that a run of a few
# sections (``SKPRIVATE_COVERAGE_SECTIONS="name,name"``, names as in
# SCENARIOS or a part of them) rewrites the report with the other sections
# kept from their own runs, each row stamped with the date of its run.
CELLS_FILE = Path(__file__).resolve().parent / "results" / "coverage_cells.csv"
TIMES_FILE = Path(__file__).resolve().parent / "results" / "coverage_times.csv"
SECTIONS_VARIABLE = "SKPRIVATE_COVERAGE_SECTIONS"
# Sets the replications per cell of the sections run (a shorter run on a busy
# host, or a longer one for cells near the band's ends; each cell's ``reps``
# column records what was run).
REPS_VARIABLE = "SKPRIVATE_COVERAGE_REPS"
# Restricts the sections run to some (sample size, privacy level) settings.
SETTINGS_VARIABLE = "SKPRIVATE_COVERAGE_SETTINGS"


@dataclass
class Scenario:
    """A learner on a population, its privacy levels and interval types."""

    name: str
    privacy: tuple
    privacy_label: Callable[[object], str]
    replicate: Callable
    reps: int = FULL_REPS
    pilot: Callable | None = None
    notes: dict = field(default_factory=dict)


def _both(ci: pd.DataFrame) -> tuple[float, float, float, float, float]:
    """(estimate, lower90, upper90, lower95, upper95) of a two-level frame."""
    a = ci[np.isclose(ci["level"], 0.90)].iloc[0]
    b = ci[np.isclose(ci["level"], 0.95)].iloc[0]
    return float(b["estimate"]), a["lower"], a["upper"], b["lower"], b["upper"]


# The warnings by which a learner says its interval does not cover the true
# value as stated: the setting defeats the method, or the value is not
# identified from the data.
_SETTING_WARNINGS = (CoverageWarning, NotIdentifiableWarning)


def _ci(est, *args, **kwargs):
    """``est.conf_int(...)``, with the setting warning it raised in ``attrs``."""
    with warnings.catch_warnings(record=True) as caught:
        for category in _SETTING_WARNINGS:
            warnings.simplefilter("always", category)
        ci = est.conf_int(*args, **kwargs)
    messages = [str(w.message) for w in caught if w.category in _SETTING_WARNINGS]
    ci.attrs["warning"] = messages[0] if messages else None
    return ci


def _row(name, ci, truth, target=None):
    estimate, l90, u90, l95, u95 = _both(ci)
    return {
        "warning": ci.attrs.get("warning"),
        "interval": name,
        "estimate": estimate,
        "truth": truth,
        "target": truth if target is None else target,
        "l90": l90,
        "u90": u90,
        "l95": l95,
        "u95": u95,
    }


# --------------------------------------------------------------- populations
def _clipped_normal(rng, n):
    return rng.normal(size=(n, 1)).clip(-4, 4)


def _normal_cells(edges):
    p = np.diff(stats.norm.cdf(edges))
    p[0] += stats.norm.cdf(edges[0])
    p[-1] += stats.norm.sf(edges[-1])
    return p / p.sum()


# ----------------------------------------------------------- interval family
def _npmle_case_one(n, scale, rng, pilot):
    x = rng.normal(size=(n, 1))
    Z = IntervalCaseI(scale=scale, random_state=rng.integers(2**31)).fit_transform(x)
    est = IntervalNPMLE().fit(Z)
    return [
        _row(
            "cdf(0.5), likelihood ratio",
            _ci(est, "cdf", [0.5], X=Z, level=LEVELS),
            stats.norm.cdf(0.5),
        ),
        _row(
            "quantile(0.5), likelihood ratio",
            _ci(est, "quantile", [0.5], X=Z, level=LEVELS),
            0.0,
        ),
        _row("mean, influence", _ci(est, "mean", X=Z, level=LEVELS), 0.0),
    ]


def _npmle_resampling(n, case, rng, pilot):
    x = rng.normal(size=(n, 1))
    mech = IntervalCaseI if case == "I" else IntervalCaseII
    Z = mech(random_state=rng.integers(2**31)).fit_transform(x)
    est = IntervalNPMLE().fit(Z)
    seed = int(rng.integers(2**31))
    if case == "I":
        rows = [
            _row(
                f"mean, bootstrap ({DEFAULT_RESAMPLES} replicates)",
                _ci(
                    est,
                    "mean",
                    X=Z,
                    level=LEVELS,
                    method="bootstrap",
                    random_state=seed,
                ),
                0.0,
            )
        ]
    else:
        # The default beyond Case I.  The percentile bootstrap of 200
        # replicates, the default before it, covered 0.928 at 500 rows and
        # 0.942 at 2,000 (2,000 replications each).
        rows = [
            _row(
                f"mean, jackknife ({NPMLE_JACKKNIFE_GROUPS} groups)",
                _ci(est, "mean", X=Z, level=LEVELS, random_state=seed),
                0.0,
            )
        ]
    if case == "II":
        rows.append(
            _row(
                f"cdf(0.5), subsampling ({NPMLE_SUBSAMPLES} subsamples)",
                _ci(est, "cdf", [0.5], X=Z, level=LEVELS, random_state=seed),
                stats.norm.cdf(0.5),
            )
        )
    return rows


# Narrow anchors: the anchors cover only the middle of the population, whose
# tails the data never locate.  The values are clipped to declared bounds
# (the identified set needs finite ones); the true means are of the clipped
# laws.
_GAMMA_CLIP = 12.0
_NARROW = {
    # design: (population draw, anchor loc, anchor scale, bounds, true mean)
    "normal": (
        lambda rng, n: rng.normal(size=(n, 1)).clip(-4.0, 4.0),
        0.0,
        0.5,
        (-4.0, 4.0),
        0.0,
    ),
    "gamma(2)": (
        lambda rng, n: rng.gamma(2.0, size=(n, 1)).clip(0.0, _GAMMA_CLIP),
        2.0,
        0.7,
        (0.0, _GAMMA_CLIP),
        # E min(X, c) = 2 - E (X - c)+ with E (X - c)+ = e^-c (c + 2)
        2.0 - np.exp(-_GAMMA_CLIP) * (_GAMMA_CLIP + 2.0),
    ),
}


def _npmle_narrow(n, design, rng, pilot):
    draw, loc, scale, bounds, truth = _NARROW[design]
    x = draw(rng, n)
    mech = IntervalCaseI(
        distribution="normal", loc=loc, scale=scale, random_state=rng.integers(2**31)
    )
    Z = mech.fit_transform(x)
    est = IntervalNPMLE(bounds=bounds).fit(Z)
    seed = int(rng.integers(2**31))
    return [
        _row(
            f"mean, identified set (Imbens-Manski, {DEFAULT_RESAMPLES} bootstrap)",
            _ci(est, "mean", X=Z, level=LEVELS, random_state=seed),
            truth,
        ),
        _row(
            "mean, influence (assumes anchors span the values)",
            _ci(est, "mean", X=Z, level=LEVELS, method="influence"),
            truth,
        ),
    ]


def _interval_mle(n, scale, rng, pilot):
    x = rng.normal(size=(n, 1))
    Z = IntervalCaseI(scale=scale, random_state=rng.integers(2**31)).fit_transform(x)
    return _standard_normal_rows(IntervalMLE().fit(Z), Z, "wald")


def _standard_normal_rows(est, Z, method):
    """The mean, 0.9 quantile, CDF at 0.5 and density at 0 of N(0, 1)."""
    return [
        _row(f"mean, {method}", est.conf_int("mean", X=Z, level=LEVELS), 0.0),
        _row(
            f"quantile(0.9), {method}",
            est.conf_int("quantile", [0.9], X=Z, level=LEVELS),
            stats.norm.ppf(0.9),
        ),
        _row(
            f"cdf(0.5), {method}",
            est.conf_int("cdf", [0.5], X=Z, level=LEVELS),
            stats.norm.cdf(0.5),
        ),
        _row(
            f"pdf(0), {method}",
            est.conf_int("pdf", [0.0], X=Z, level=LEVELS),
            stats.norm.pdf(0.0),
        ),
    ]


_COEF = np.array([1.0, 2.0])
_POINT = np.array([[0.5, -0.5]])


def _interval_regression(n, scale, rng, pilot):
    X = rng.normal(size=(n, 2))
    y = 1.0 + X @ _COEF + rng.normal(size=n)
    mech = IntervalCaseI(
        scale=scale, anchor_scale=2.5, random_state=rng.integers(2**31)
    )
    Z = mech.fit_transform(y[:, None])
    reg = IterativeIntervalRegressor().fit(X, Z)
    return [
        _row(
            "predict(0.5, -0.5), default method (sandwich for the MLE)",
            reg.conf_int("predict", _POINT, X=X, y=Z, level=LEVELS),
            float(1.0 + (_POINT @ _COEF)[0]),
        )
    ]


def _informative_sample(rng, n, draw, value):
    """``n`` rows drawn with inclusion probability 0.2 or 0.8 by ``value``.

    Rows whose ``value`` is above 0 enter four times as often: the sample
    is not the population's law, and the weights ``1 / pi`` (sampling
    weights) make the weighted likelihood that of the population.
    """
    kept, weights = [], []
    while sum(len(k) for k in kept) < n:
        rows = draw(4 * n)
        pi = np.where(value(rows) > 0.0, 0.8, 0.2)
        take = rng.random(pi.size) < pi
        kept.append(rows[take])
        weights.append(1.0 / pi[take])
    return np.concatenate(kept)[:n], np.concatenate(weights)[:n]


def _weighted_interval_mle(n, scale, rng, pilot):
    x, w = _informative_sample(
        rng, n, lambda m: rng.normal(size=(m, 1)), lambda rows: rows[:, 0]
    )
    Z = IntervalCaseI(scale=scale, random_state=rng.integers(2**31)).fit_transform(x)
    est = IntervalMLE().fit(Z, sample_weight=w)
    return _standard_normal_rows(est, Z, "sandwich")


def _weighted_interval_regression(n, scale, rng, pilot):
    def draw(m):
        X = rng.normal(size=(m, 2))
        return np.column_stack([X, 1.0 + X @ _COEF + rng.normal(size=m)])

    rows, w = _informative_sample(rng, n, draw, lambda r: r[:, 2] - 1.0)
    X, y = rows[:, :2], rows[:, 2]
    mech = IntervalCaseI(
        scale=scale, anchor_scale=2.5, random_state=rng.integers(2**31)
    )
    Z = mech.fit_transform(y[:, None])
    reg = IterativeIntervalRegressor().fit(X, Z, sample_weight=w)
    coef = reg.conf_int("coef", X=X, y=Z, level=LEVELS)
    return [
        _row(
            "predict(0.5, -0.5), sandwich",
            reg.conf_int("predict", _POINT, X=X, y=Z, level=LEVELS),
            float(1.0 + (_POINT @ _COEF)[0]),
        ),
        _row(
            "coef of the first feature, sandwich",
            coef[coef["point"].astype(str) == "0"],
            float(_COEF[0]),
        ),
    ]


# ---------------------------------------------------------------- ldp family
_LDP_BOUNDS = (-4.0, 4.0)


def _dkde_pilot(n, epsilon, rng):
    x = _clipped_normal(rng, n)
    ldp = LaplaceLDP(epsilon=epsilon, bounds=_LDP_BOUNDS, random_state=1)
    z = ldp.fit_transform(x)
    kde = DeconvolutionKernelDensity(noise_scale=ldp.scale_, support=_LDP_BOUNDS)
    return {"bandwidth": kde.fit(z).bandwidth_}


def _dkde(n, epsilon, rng, pilot):
    x = _clipped_normal(rng, n)
    ldp = LaplaceLDP(
        epsilon=epsilon, bounds=_LDP_BOUNDS, random_state=rng.integers(2**31)
    )
    z = ldp.fit_transform(x)
    h = pilot["bandwidth"]
    kde = DeconvolutionKernelDensity(
        bandwidth=h, noise_scale=ldp.scale_, support=_LDP_BOUNDS, algorithm="binned"
    ).fit(z)
    smoothed_f0 = stats.norm.pdf(0.0, scale=np.sqrt(1.0 + h * h))
    return [
        _row("mean, noisy mean", _ci(kde, "mean", X=z, level=LEVELS), 0.0),
        _row(
            "pdf(0), rbc",
            _ci(kde, "pdf", [0.0], X=z, level=LEVELS),
            stats.norm.pdf(0.0),
        ),
        _row(
            "pdf(0), smoothed",
            _ci(kde, "pdf", [0.0], X=z, level=LEVELS, method="smoothed"),
            stats.norm.pdf(0.0),
            smoothed_f0,
        ),
        _row(
            "cdf(0.5), rbc",
            _ci(kde, "cdf", [0.5], X=z, level=LEVELS),
            stats.norm.cdf(0.5),
        ),
        _row(
            "quantile(0.5), rbc",
            _ci(kde, "quantile", [0.5], X=z, level=LEVELS),
            0.0,
        ),
    ]


_REG_BOUNDS = (-2.0, 2.0)
_X0 = 0.5


def _regression_function(u):
    return np.sin(2.0 * u)


def _smoothed_regression(h):
    """``int K_h(u - x0) m(u) f(u) du / int K_h(u - x0) f(u) du``, uniform f."""

    def weight(u):
        return stats.norm.pdf((u - _X0) / h)

    num = integrate.quad(lambda u: weight(u) * _regression_function(u), *_REG_BOUNDS)
    den = integrate.quad(weight, *_REG_BOUNDS)
    return num[0] / den[0]


def _regression_data(n, rng, classifier):
    x = rng.uniform(*_REG_BOUNDS, size=(n, 1))
    if classifier:
        y = (rng.uniform(size=n) < 1.0 / (1.0 + np.exp(-2.0 * x[:, 0]))).astype(int)
    else:
        y = _regression_function(x[:, 0]) + 0.3 * rng.normal(size=n)
    return x, y


def _dk_pilot(n, epsilon, rng, classifier=False):
    x, y = _regression_data(n, rng, classifier)
    ldp = LaplaceLDP(epsilon=epsilon, bounds=_REG_BOUNDS, random_state=1)
    z = ldp.fit_transform(x)
    cls = DeconvolutionKernelClassifier if classifier else DeconvolutionKernelRegressor
    model = cls(degree=0, noise_scale=ldp.scale_, random_state=0).fit(z, y)
    return {"bandwidth": model.bandwidth_}


def _dk_regressor(n, epsilon, rng, pilot):
    x, y = _regression_data(n, rng, False)
    ldp = LaplaceLDP(
        epsilon=epsilon, bounds=_REG_BOUNDS, random_state=rng.integers(2**31)
    )
    z = ldp.fit_transform(x)
    h = pilot["bandwidth"]
    reg = DeconvolutionKernelRegressor(
        bandwidth=h, degree=0, noise_scale=ldp.scale_
    ).fit(z, y)
    truth = float(_regression_function(_X0))
    return [
        _row("predict(0.5), rbc", _ci(reg, "predict", [[_X0]], level=LEVELS), truth),
        _row(
            "predict(0.5), smoothed",
            _ci(reg, "predict", [[_X0]], level=LEVELS, method="smoothed"),
            truth,
            _smoothed_regression(h),
        ),
    ]


def _dk_classifier(n, epsilon, rng, pilot):
    x, y = _regression_data(n, rng, True)
    ldp = LaplaceLDP(
        epsilon=epsilon, bounds=_REG_BOUNDS, random_state=rng.integers(2**31)
    )
    z = ldp.fit_transform(x)
    clf = DeconvolutionKernelClassifier(
        bandwidth=pilot["bandwidth"], degree=0, noise_scale=ldp.scale_
    ).fit(z, y)
    ci = _ci(clf, "predict_proba", [[_X0]], level=LEVELS)
    warning = ci.attrs["warning"]
    ci = ci[ci["quantity"] == "P(y=1)"]
    ci.attrs["warning"] = warning
    return [_row("P(y=1 | 0.5), rbc", ci, 1.0 / (1.0 + np.exp(-2.0 * _X0)))]


def _ems_rows(est, X, quantity, truth, smoothed_target=None):
    """The bias-corrected (default) and smoothed linearized EMS intervals.

    ``quantity`` is ``"cdf(x)"`` or ``"quantile(p)"``; both intervals are
    scored against ``truth``, the smoothed one also against its declared
    target when one is given.
    """
    kind, point = quantity[:-1].split("(")
    rows = []
    for method, label in (("rbc", "bias-corrected"), ("smoothed", "smoothed")):
        ci = _ci(est, kind, [float(point)], X=X, level=LEVELS, method=method)
        target = smoothed_target if method == "smoothed" else None
        rows.append(_row(f"{quantity}, linearized EMS, {label}", ci, truth, target))
    return rows


def _grid_quantile(theta, edges, p=0.5):
    """The ``p`` quantile of cell masses ``theta`` (uniform within cells)."""
    return float(np.interp(p, np.concatenate([[0.0], np.cumsum(theta)]), edges))


def _ems_target(A, theta_true, S, tol=1e-12, max_iter=20000):
    """The EMS fixed point at the population law of the reports."""
    pi = A @ theta_true
    theta = np.full(theta_true.size, 1.0 / theta_true.size)
    for _ in range(max_iter):
        new = theta * (A.T @ (pi / np.maximum(A @ theta, 1e-300)))
        if S is not None:
            new = S @ new
        new /= new.sum()
        if np.max(np.abs(new - theta)) < tol:
            return new
        theta = new
    return theta


# E[min(x^2, 16)] of a standard normal clipped to [-4, 4].
_CLIPPED_SQUARE = float(
    integrate.quad(lambda u: u * u * stats.norm.pdf(u), -4.0, 4.0)[0]
    + 16.0 * 2.0 * stats.norm.sf(4.0)
)


def _tilted_target(tilt, theta_pop, moments):
    """The fit's moment tilt of the population fixed point (declared target)."""
    population = replace(
        tilt, unit_moments=np.asarray(moments, dtype=float)[None, :], untilted=theta_pop
    )
    return population.tilted()[0]


def _perturbed_kde(n, epsilon, rng, pilot):
    x = _clipped_normal(rng, n)
    seed = int(rng.integers(2**31))
    released = LaplaceLDP(epsilon=epsilon, bounds=_LDP_BOUNDS, random_state=seed)
    released = released.fit_transform(x)
    est = PerturbedKDEEstimator(
        n_points=50,
        privatizer=LaplaceLDP(epsilon=epsilon, bounds=_LDP_BOUNDS, random_state=seed),
    ).fit(x)
    edges = est.edges_
    law = GeneralizedGaussianNoise(float(est.privatizer_.scale_[0]), 1.0)
    A, _ = additive_transition(edges, law)
    theta_pop, _ = ems_cell_probabilities(
        A,
        A @ _normal_cells(edges),
        est.smoothing_width_,
        max_iter=ML_MAX_ITER,
        tol=ML_TOL,
    )
    # The fit's moment tilt, applied to the population fixed point with the
    # releases' population moments (E z = E x, E z^2 = E x^2 + Var(noise))
    # and the ellipse of this sample's moment covariance.
    A_ci, bins, S = est._ci_ems_system(released)
    tilt = est._ci_moment_tilt(released, A_ci, bins, S)
    if tilt is not None:
        square = _CLIPPED_SQUARE + 2.0 * float(est.privatizer_.scale_[0]) ** 2
        theta_pop = _tilted_target(tilt, theta_pop, [0.0, square])
    W = cell_cdf_weights(edges, np.array([0.5]))
    target_cdf = float((W @ theta_pop)[0])
    # fitted with privatizer=, the estimator's intervals use its own release
    # (released_, the same draws as ``released``): conf_int takes no X
    return [
        _row("mean, noisy mean", est.conf_int("mean", level=LEVELS), 0.0),
        *_ems_rows(est, None, "cdf(0.5)", stats.norm.cdf(0.5), target_cdf),
        *_ems_rows(est, None, "quantile(0.5)", 0.0, _grid_quantile(theta_pop, edges)),
    ]


def _square_wave(n, epsilon, rng, pilot):
    x = _clipped_normal(rng, n)
    reports = SquareWaveLDP(
        epsilon=epsilon, bounds=_LDP_BOUNDS, random_state=rng.integers(2**31)
    ).fit_transform(x)
    est = SquareWaveEMSEstimator(epsilon=epsilon, bounds=_LDP_BOUNDS).fit(reports)
    m = est.edges_.size - 1
    A, _ = square_wave_transition(np.linspace(0.0, 1.0, m + 1), epsilon)
    cells = _normal_cells(est.edges_)
    theta_pop = _ems_target(A, cells, binomial_filter_matrix(m))
    # the fit's moment tilt, to the reports' population moments (within the
    # ellipse of this sample's moment covariance)
    tilt = est._ci_moment_tilt(reports, *est._ci_ems_system(reports))
    if tilt is not None:
        theta_pop = _tilted_target(tilt, theta_pop, tilt.features.T @ cells)
    target_cdf = float((cell_cdf_weights(est.edges_, np.array([0.5])) @ theta_pop)[0])
    return [
        _row("mean, moment", est.conf_int("mean", X=reports, level=LEVELS), 0.0),
        *_ems_rows(est, reports, "cdf(0.5)", stats.norm.cdf(0.5), target_cdf),
        *_ems_rows(
            est, reports, "quantile(0.5)", 0.0, _grid_quantile(theta_pop, est.edges_)
        ),
    ]


# ------------------------------------------------------- negative survey
_RVNS_BOUNDS = (0.0, 10.0)
_BETA = stats.beta(2, 5, scale=10.0)


def _rvns_report_moments(d):
    """E[Y] and E[Y^2] of boundary-safe RVNS reports (RVNSDensityEstimator notes)."""
    a, b = _RVNS_BOUNDS
    span = b - a + d
    m1, m2 = float(_BETA.mean()), float(_BETA.moment(2))
    mean = ((b + d) ** 2 - (a - d) ** 2) / (2 * span) - d * m1 / span
    square = (((b + d) ** 3 - (a - d) ** 3) / 3 - d * m2 - d**3 / 6) / span
    return [mean, square]


def _rvns(n, d, rng, pilot):
    x = _BETA.rvs(size=(n, 1), random_state=rng)
    reports = RVNSPerturber(
        d=d, k=1, bounds=_RVNS_BOUNDS, random_state=rng.integers(2**31)
    ).fit_transform(x)
    est = RVNSDensityEstimator(d=d, bounds=_RVNS_BOUNDS, n_points=50).fit(reports)
    # The declared target: the EMS fixed point at the population law of the
    # reports, through the estimator's own cell probabilities.
    A = est._cell_matrix(est.d_, est.edges_, est.report_edges_, est.placement_)
    theta_pop, _ = ems_cell_probabilities(
        A,
        A @ np.diff(_BETA.cdf(est.edges_)),
        est.smoothing_width_,
        max_iter=ML_MAX_ITER,
        tol=ML_TOL,
    )
    tilt = est._ci_moment_tilt(reports, *est._ci_ems_system(reports))
    if tilt is not None:
        theta_pop = _tilted_target(tilt, theta_pop, _rvns_report_moments(d))
    return [
        _row(
            "mean, moment",
            est.conf_int("mean", X=reports, level=LEVELS),
            float(_BETA.mean()),
        ),
        *_ems_rows(
            est,
            reports,
            "cdf(2)",
            float(_BETA.cdf(2.0)),
            float((cell_cdf_weights(est.edges_, np.array([2.0])) @ theta_pop)[0]),
        ),
        *_ems_rows(
            est,
            reports,
            "quantile(0.5)",
            float(_BETA.median()),
            _grid_quantile(theta_pop, est.edges_),
        ),
    ]


# ------------------------------------------------------------ subset family
_SHARES = np.array([0.1, 0.2, 0.3, 0.4])


def _subset(n, alpha, rng, pilot):
    x = rng.choice(4, size=(n, 1), p=_SHARES)
    mech = SubsetUniform(
        categories=[np.arange(4)], min_coverage=alpha, random_state=rng.integers(2**31)
    )
    reports = mech.fit_transform(x)
    est = SubsetDistributionEstimator(method="mle", design=mech).fit(reports)
    return [
        _row("pmf(0), wald", est.conf_int("pmf", [0], level=LEVELS), _SHARES[0]),
        _row("pmf(3), wald", est.conf_int("pmf", [3], level=LEVELS), _SHARES[3]),
        _row(
            "cdf(1), wald",
            est.conf_int("cdf", [1], level=LEVELS),
            float(_SHARES[:2].sum()),
        ),
    ]


# --------------------------------------------------------- frequency oracles
_FIRST_ORACLES = (
    ("krr", "unbiased"),
    ("oue", "unbiased"),
    ("krr", "norm-sub"),
)
_OTHER_ORACLES = (
    ("olh", "unbiased"),
    ("hr", "unbiased"),
    ("krr", "base-cut"),
    ("oue", "ibu"),
)


def _frequency(n, epsilon, rng, pilot, cases=_FIRST_ORACLES):
    # The intervals bound the population share: the normal one adds the
    # sampling variance of the respondents to the oracle's variance, the
    # bootstrap resamples respondents.
    x = rng.choice(4, size=(n, 1), p=_SHARES)
    rows = []
    for oracle, method in cases:
        fo = FrequencyOracle(
            epsilon=epsilon,
            oracle=oracle,
            categories=[list(range(4))],
            random_state=int(rng.integers(2**31)),
        )
        reports = fo.fit_transform(x)
        est = FrequencyEstimator(oracle=fo, method=method).fit(reports)
        rows += _pmf_rows(est, rng, oracle, method)
    return rows


def _pmf_rows(est, rng, oracle, method):
    """The rows of pmf(0) and pmf(3), normal or bootstrapped by ``method``."""
    ci = _ci(est, "pmf", level=LEVELS, n_resamples=200, random_state=rng)
    # base-cut's default is the normal interval of the unbiased estimate
    # (its bootstrap is not consistent where the cut falls near the share)
    normal = method in ("unbiased", "base-cut")
    how = "normal" if normal else "bootstrap (200 replicates)"
    rows = []
    for j in (0, 3):
        one = ci[ci["point"] == j].reset_index(drop=True)
        one.attrs = ci.attrs
        rows.append(_row(f"pmf({j}), {oracle} {method}, {how}", one, float(_SHARES[j])))
    return rows


def _frequency_other(n, epsilon, rng, pilot):
    # The oracles and estimates the first section leaves out: local hashing
    # and Hadamard response with the normal interval, and two
    # post-processed estimates: base-cut (zeroes the estimates under its
    # threshold; its default interval is the normal one of the unbiased
    # estimate, widened to hold the cut estimate) and the iterative
    # Bayesian update (a maximum-likelihood fit on the simplex, bootstrapped).
    return _frequency(n, epsilon, rng, pilot, _OTHER_ORACLES)


def _frequency_symmetric(n, epsilon, rng, pilot):
    # Symmetric unary encoding and binary local hashing, the last two oracles.
    cases = (("sue", "unbiased"), ("blh", "unbiased"))
    return _frequency(n, epsilon, rng, pilot, cases)


def _longitudinal(n, epsilon, rng, pilot):
    # Three waves of memoized answers: the permanent answer at epsilon, each
    # wave's randomization of it at epsilon / 2; the pooled estimate's
    # variance includes the covariance of a respondent's waves.
    x = rng.choice(4, size=(n, 1), p=_SHARES)
    rows = []
    for kind, method in (("krr", "unbiased"), ("oue", "unbiased"), ("krr", "norm-sub")):
        lo = LongitudinalOracle(
            kind=kind,
            epsilon_permanent=epsilon,
            epsilon_instant=epsilon / 2,
            waves=3,
            categories=[list(range(4))],
            random_state=int(rng.integers(2**31)),
        )
        reports = lo.fit_transform(x)
        est = LongitudinalFrequencyEstimator(oracle=lo, method=method).fit(reports)
        rows += _pmf_rows(est, rng, kind, method)
    return rows


# ---------------------------------------------------------- integral family
_INTEGRAL_MEAN = 10.037


def _integral(n, decimals, rng, pilot):
    # A population mean off the rounding grid (on it, the release is the
    # mean itself with high probability whatever the interval).
    x = rng.normal(_INTEGRAL_MEAN, 2.0, size=(n, 1))
    est = IntegralPrivateStatistics(
        statistics=("count", "mean", "std"),
        n_resamples=500,
        decimals=decimals,
        random_state=rng.integers(2**31),
    ).fit(x)
    ci = _ci(est, "mean", level=LEVELS)
    if not np.isfinite(ci["lower"]).all():
        return [{"interval": "mean, release rule", "missing": True}]
    return [_row("mean, release rule", ci, _INTEGRAL_MEAN)]


def _laplace(n, epsilon, rng, pilot):
    x = rng.uniform(20.0, 60.0, size=n)
    table = laplace_describe(
        pd.DataFrame({"x": x}),
        epsilon,
        bounds=(0.0, 100.0),
        statistics=("count", "mean", "std", "sum"),
        random_state=rng.integers(2**31),
    )
    frames = {
        target: laplace_intervals(
            table, epsilon, (0.0, 100.0), n=n, target=target, level=LEVELS
        )
        for target in ("sample", "population")
    }
    rows = []
    for target, stat, truth in [
        ("sample", "mean", float(x.mean())),
        ("sample", "std", float(x.std(ddof=1))),
        ("sample", "count", float(n)),
        ("population", "mean", 40.0),
        ("population", "sum", 40.0 * n),
    ]:
        ci = frames[target]
        rows.append(_row(f"{stat}, {target} target", ci[ci["quantity"] == stat], truth))
    return rows


# ------------------------------------------------------------------ runner
def _eps(v):
    return f"ε={v:g}"


SCENARIOS = [
    Scenario(
        "IntervalNPMLE (Case I)",
        (1.0, 3.0),
        lambda s: f"anchor scale {s:g}",
        _npmle_case_one,
    ),
    Scenario(
        "IntervalNPMLE, bootstrap (Case I)",
        ("I",),
        lambda s: "anchor scale 1",
        _npmle_resampling,
    ),
    Scenario(
        "IntervalNPMLE, resampling (Case II)",
        ("II",),
        lambda s: "anchor scale 1",
        _npmle_resampling,
    ),
    Scenario(
        "IntervalNPMLE, narrow anchors (Case I)",
        ("normal", "gamma(2)"),
        lambda d: {
            "normal": "N(0,1) in (-4,4), anchors N(0,0.5)",
            "gamma(2)": "gamma(2) in (0,12), anchors N(2,0.7)",
        }[d],
        _npmle_narrow,
        reps=400,
    ),
    Scenario(
        "IntervalMLE (normal)",
        (1.0, 3.0),
        lambda s: f"anchor scale {s:g}",
        _interval_mle,
    ),
    Scenario(
        "IterativeIntervalRegressor (LinearRegression)",
        (1.0, 3.0),
        lambda s: f"anchor scale {s:g}",
        _interval_regression,
    ),
    Scenario(
        "IntervalMLE (normal), sampling weights",
        (1.0, 3.0),
        lambda s: f"anchor scale {s:g}, informative sample",
        _weighted_interval_mle,
    ),
    Scenario(
        "IterativeIntervalRegressor (LinearRegression), sampling weights",
        (1.0, 3.0),
        lambda s: f"anchor scale {s:g}, informative sample",
        _weighted_interval_regression,
    ),
    Scenario(
        "DeconvolutionKernelDensity",
        (4.0, 8.0),
        _eps,
        _dkde,
        pilot=_dkde_pilot,
    ),
    Scenario(
        "DeconvolutionKernelRegressor",
        (4.0, 8.0),
        _eps,
        _dk_regressor,
        pilot=_dk_pilot,
    ),
    Scenario(
        "DeconvolutionKernelClassifier",
        (4.0, 8.0),
        _eps,
        _dk_classifier,
        pilot=lambda n, e, rng: _dk_pilot(n, e, rng, classifier=True),
    ),
    Scenario(
        "PerturbedKDEEstimator (ml, Laplace, 50 cells)",
        (2.0, 8.0),
        _eps,
        _perturbed_kde,
    ),
    Scenario(
        "SquareWaveEMSEstimator",
        (1.0, 4.0),
        _eps,
        _square_wave,
    ),
    Scenario(
        "RVNSDensityEstimator (ml, 50 cells)",
        (1.0, 3.0),
        lambda d: f"d={d:g}",
        _rvns,
    ),
    Scenario(
        "SubsetDistributionEstimator (mle)",
        (None, 0.1),
        lambda a: "no dummies" if a is None else f"α={a:g}",
        _subset,
    ),
    Scenario(
        "IntegralPrivateStatistics (500 resamples)",
        (2, 1),
        lambda d: f"decimals={d}",
        _integral,
    ),
    Scenario("laplace_intervals", (0.5, 2.0), _eps, _laplace),
    Scenario("FrequencyEstimator", (1.0, 4.0), _eps, _frequency),
    Scenario(
        "FrequencyEstimator, other oracles and methods",
        (1.0, 4.0),
        _eps,
        _frequency_other,
    ),
    Scenario(
        "FrequencyEstimator, SUE and BLH",
        (1.0, 4.0),
        _eps,
        _frequency_symmetric,
    ),
    Scenario(
        "LongitudinalFrequencyEstimator (3 waves)",
        (2.0, 4.0),
        lambda e: f"ε permanent={e:g}, per wave={e / 2:g}",
        _longitudinal,
    ),
]


def _chunk(scenario, n, privacy, pilot, seeds):
    out = []
    start = time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for seed in seeds:
            rng = np.random.default_rng(seed)
            try:
                out.extend(scenario.replicate(n, privacy, rng, pilot))
            except (ValueError, np.linalg.LinAlgError) as exc:
                out.append({"interval": "error", "error": str(exc).splitlines()[0]})
    return out, time.process_time() - start


def _summarize(rows: list[dict]) -> pd.DataFrame:
    frame = pd.DataFrame(rows)
    cells = []
    for name, group in frame.groupby("interval", sort=False):
        if name == "error":
            continue
        done = group[group["l95"].notna()]
        truth = done["truth"].to_numpy(float)
        target = done["target"].to_numpy(float)
        l90, u90 = done["l90"].to_numpy(float), done["u90"].to_numpy(float)
        l95, u95 = done["l95"].to_numpy(float), done["u95"].to_numpy(float)
        r = truth.size
        cov95 = float(np.mean((l95 <= truth) & (truth <= u95)))
        # Mean error of the estimate against the true value, in units of
        # the interval's standard error (95% half-width / 1.96): how much of
        # a miss is bias rather than a wrong spread.
        half = (u95 - l95) / (2.0 * stats.norm.ppf(0.975))
        estimate = done["estimate"].to_numpy(float)
        ok = np.isfinite(estimate) & (half > 0)
        bias_se = (
            float(np.mean(estimate[ok] - truth[ok]) / np.median(half[ok]))
            if ok.any()
            else np.nan
        )
        warned = (
            done["warning"].notna().to_numpy()
            if "warning" in done
            else np.zeros(r, dtype=bool)
        )
        messages = done["warning"][warned] if warned.any() else pd.Series([], dtype=str)
        covered = (l95 <= truth) & (truth <= u95)
        quiet = ~warned
        cells.append(
            {
                "interval": name,
                "warned": float(warned.mean()) if r else np.nan,
                # coverage of the samples whose call did not warn: whether
                # a miss comes from the samples the learner flagged
                "cov 95%, unwarned": (
                    float(np.mean(covered[quiet])) if quiet.any() else np.nan
                ),
                "unwarned reps": int(quiet.sum()),
                "warning": messages.mode().iloc[0] if len(messages) else "",
                "reps": r,
                "no interval": int(group.shape[0] - r),
                "cov 90%": float(np.mean((l90 <= truth) & (truth <= u90))),
                "cov 95%": cov95,
                "MC SE": float(np.sqrt(0.95 * 0.05 / max(r, 1))),
                "width 95%": float(np.mean(u95 - l95)),
                "bias / SE": bias_se,
                "cov 95%, declared target": (
                    float(np.mean((l95 <= target) & (target <= u95)))
                    if not np.allclose(target, truth)
                    else np.nan
                ),
            }
        )
    return pd.DataFrame(cells)


def _reason(row: pd.Series) -> str:
    """Why a cell is outside [0.93, 0.97], with a note on stored old cells."""
    reason = _miss_reason(row)
    if str(row["interval"]).endswith("linearized EMS"):
        # a cell stored before the bias-corrected EMS intervals existed
        reason += (
            " (this cell is the interval now called method='smoothed', the "
            "default when it was run; the default is now the bias-corrected "
            "'rbc' interval, not yet run for this learner)"
        )
    return reason


def _miss_reason(row: pd.Series) -> str:
    """Why a cell is outside [0.93, 0.97]: the mechanism behind the miss."""
    cov, r = row["cov 95%"], row["reps"]
    declared = row["cov 95%, declared target"]
    interval, learner = row["interval"], row["learner"]
    side = "above" if cov > TARGET[1] else "below"
    within_mc = abs(cov - 0.95) <= 2 * np.sqrt(0.95 * 0.05 / max(r, 1))
    if "Deconvolution" in learner:
        r = int(r)
        missing = int(row.get("no interval", 0))
        if missing > r:
            return (
                f"{missing} of {r + missing} samples had no interval at the point: "
                "the fit fell back to the training mean there (its kernel weights "
                "sum to almost nothing, see fallback_mask); the coverage of the "
                f"other {r} samples (a selected subset) says little"
            )
    bias = row.get("bias / SE", np.nan)
    bias_text = (
        f"; the estimate's mean error against the true value is {bias:+.2f} "
        "standard errors"
        if np.isfinite(bias)
        else ""
    )
    if np.isfinite(declared):
        if TARGET[0] <= declared <= TARGET[1]:
            verdict = "which meets the target"
        elif "Deconvolution" in learner:
            verdict = (
                f"itself off the target over the {int(r)} samples with an interval"
            )
        elif "RVNS" in learner:
            verdict = (
                "itself off the target: the linearization holds the smoothing "
                "width fixed, while the width chosen by held-out likelihood "
                "ranges over the candidates from sample to sample at this "
                "noise, a variability the interval does not include "
                "(method='bootstrap' re-chooses it, at one refit per replicate)"
            )
        else:
            verdict = (
                "itself off the target: the linearization holds the smoothing "
                "width fixed and treats the fit as the EMS fixed point, while "
                "the fit stops at its tolerance before that point and the "
                "width choice varies between samples"
            )
        return (
            "the interval covers a smoothed quantity by design (its `target` "
            f"column says so); coverage of that quantity {declared:.3f}, "
            f"{verdict}{bias_text}"
        )
    if "identified set" in interval and cov > TARGET[1]:
        return (
            "above by design: the interval covers every point of the mean's "
            "identified set, and the true mean lies inside that set, away from "
            "its ends (the set is wide because the anchors do not reach the tails)"
        )
    if "assumes anchors span" in interval:
        return (
            f"{side}: the mean is not identified beyond the anchors; this "
            "interval treats the NPMLE's placement of the tail mass (at the "
            f"extreme anchors) as the truth{bias_text}"
        )
    if within_mc:
        return f"within 2 Monte Carlo SE of 0.95 at {r} replications"
    setting = row.get("setting", "")
    setting = setting if isinstance(setting, str) else ""
    if "Deconvolution" in learner:
        missing = int(row.get("no interval", 0))
        extra = (
            f"; {missing} of {r + missing} samples had no interval at the point "
            "(the fit fell back to the training mean there, see fallback_mask), "
            f"so the coverage is that of the {r} samples with an interval"
            if missing
            else ""
        )
        if cov > TARGET[1] and not np.isfinite(row.get("width 95%", 0.0)):
            return (
                "above: where the kernel weights' sum is not significant at the "
                "level, Fieller's interval is the whole line (the ratio is not "
                "estimable there), which covers by construction; the mean width "
                f"is infinite for that reason{extra}"
            )
        if "rbc" in interval:
            return (
                "residual bias of the bias-corrected estimate: it is O(h^4) only "
                f"for a bandwidth small against the spread of the data ({setting}, "
                "chosen for the heavy noise); the smoothed interval covers its own "
                f"target{extra}"
            )
        return f"the ratio estimator is unstable at this noise level{extra}"
    if "likelihood ratio" in interval:
        return (
            f"{side}: the likelihood-ratio law D is the n -> infinity limit of a "
            "cube-root problem; at this n and anchor spread the statistic is "
            "not yet at its limit"
        )
    if "subsampling" in interval:
        return (
            f"{side}: subsampling a cube-root estimator with b = n^(2/3) is "
            "inaccurate at moderate n (Politis, Romano & Wolf, 1999, ch. 9): "
            "the subsample statistics are further from their limit law than "
            "the full-sample one; calibrating b would help"
        )
    if "jackknife" in interval:
        return (
            f"{side}: finite-sample error of the jackknife t interval at this "
            f"n{bias_text}"
        )
    if "bootstrap" in interval:
        return (
            f"{side}: finite-sample error of the percentile interval at this "
            f"n{bias_text}, so the interval is too short rather than off "
            "centre"
        )
    if "bias-corrected" in interval:
        chosen_width = "RVNS" in learner or "PerturbedKDE" in learner
        if cov > TARGET[1]:
            if chosen_width:
                return (
                    "conservative: the coverage given the chosen smoothing width "
                    "depends on the choice: the samples that choose a wider width "
                    "cover more often than the level (with that width's interval "
                    "alone, before the union over the tied widths), those that "
                    "choose the narrowest less, and the two balance only roughly "
                    "(pilot per choice: notes of "
                    "skprivate/_grid_density/_width_choice.py)"
                )
            return (
                "conservative: the variance of the corrected estimate includes "
                "that of the bias estimate"
            )
        if np.isfinite(bias) and abs(bias) < 0.25:
            if not chosen_width:
                return (
                    f"{side}, with little bias{bias_text}: the interval is too "
                    "short for the estimate's spread (the smoothing is a fixed "
                    "filter here: no width choice enters)"
                )
            return (
                f"{side}, with little bias{bias_text}: the interval is too short "
                "for the estimate's spread, since the linearization holds the "
                "smoothing width fixed, while the width chosen by held-out "
                "likelihood varies from sample to sample (under heavy noise the "
                "held-out likelihood barely separates the candidate widths)"
            )
        return (
            "residual bias: the correction removes the bias that the fitted "
            "law shows at the chosen width; where that width is wide against "
            "the features of the law (the widest candidates are often chosen "
            "under heavy noise) the fitted law is itself too smooth to show "
            f"all of it{bias_text}"
        )
    if "linearized EMS" in interval:
        if cov > TARGET[1]:
            return (
                "conservative: the linearization is the variance of the EMS fixed "
                "point; the fit stops early, which shrinks its variance"
            )
        if np.isfinite(bias) and abs(bias) < 0.25:
            return (
                f"{side}, with little bias{bias_text}: the interval is too short "
                "for the estimate's spread, since the linearization holds the "
                "smoothing width fixed (its choice by held-out likelihood varies "
                "between samples) and treats the fit as the EMS fixed point"
            )
        return (
            "smoothing bias: the EMS estimate is pulled towards its smoothed "
            f"target, which differs from the true value{bias_text}"
        )
    if "release rule" in interval:
        return (
            f"{side}: the release is rounded to `decimals`; with a rounding step "
            "comparable to the standard error its error is far from normal"
        )
    if "population target" in interval:
        return (
            f"{side}: the sampling SD comes from the noisy released SD "
            "(sd_quantile=0.75 calibration)"
        )
    if "wald" in interval:
        return f"{side}: finite-sample error of the Wald interval at this n"
    return f"{side} the target by more than 2 Monte Carlo SE"


# Learners whose default interval checks its setting at conf_int.
_CHECKED = (
    "PerturbedKDEEstimator",
    "RVNSDensityEstimator",
    "DeconvolutionKernelDensity",
    "DeconvolutionKernelRegressor",
    "narrow anchors",
)


# Samples without a warning needed before a cell's miss is put down to the
# samples that warned (the band is then judged to about 0.01).
MIN_UNWARNED = 400


def _status(row: pd.Series) -> str:
    """``meets``, ``warns: ...``, ``refuses: ...`` or ``misses: ...``."""
    if row["meets target"] == "yes":
        return "meets"
    warned = pd.to_numeric(pd.Series([row.get("warned")]), errors="coerce")[0]
    reps = pd.to_numeric(pd.Series([row.get("reps")]), errors="coerce")[0]
    failed = pd.to_numeric(pd.Series([row.get("failed fits")]), errors="coerce")[0]
    message = str(row.get("warning", "")).split(". ")[0]
    if np.isfinite(warned) and warned >= 0.5:
        return f"warns: {message} (warned in {warned:.0%} of the samples)"
    quiet_cov = pd.to_numeric(
        pd.Series([row.get("cov 95%, unwarned")]), errors="coerce"
    )[0]
    quiet = pd.to_numeric(pd.Series([row.get("unwarned reps")]), errors="coerce")[0]
    if (
        np.isfinite(warned)
        and warned > 0
        and np.isfinite(quiet)
        and quiet >= MIN_UNWARNED
        and TARGET[0] <= quiet_cov <= TARGET[1]
    ):
        # the samples the learner flagged carry the miss: without them the
        # cell meets the band, so the warning is what tells the user
        return (
            f"warns: {message} (warned in {warned:.0%} of the samples; the "
            f"other {int(quiet)} cover {quiet_cov:.3f}, inside "
            f"[{TARGET[0]}, {TARGET[1]}], so the miss comes from the samples "
            "it warned on)"
        )
    if np.isfinite(failed) and np.isfinite(reps) and failed > reps:
        return f"refuses: {row['reason']}"
    share = f"; it warned in {warned:.0%} of the samples" if warned > 0 else ""
    if not np.isfinite(warned) and any(
        name in str(row["learner"]) for name in _CHECKED
    ):
        share = (
            "; this cell was run before conf_int checked its setting "
            "(CoverageWarning, NotIdentifiableWarning) and has not been run since"
        )
    return f"misses: {row['reason']}{share}"


def _chosen_scenarios() -> list[Scenario]:
    """The scenarios named in ``SKPRIVATE_COVERAGE_SECTIONS`` (all if unset)."""
    wanted = os.environ.get(SECTIONS_VARIABLE, "").strip()
    if not wanted:
        return list(SCENARIOS)
    if wanted == "none":  # rewrite the report from the stored cells only
        return []
    parts = [w.strip() for w in wanted.split(",") if w.strip()]

    def matches(part: str, name: str) -> bool:
        # "=name" names one section exactly; other parts match by substring
        return name == part[1:] if part.startswith("=") else part in name

    chosen = [s for s in SCENARIOS if any(matches(w, s.name) for w in parts)]
    unknown = [w for w in parts if not any(matches(w, s.name) for s in SCENARIOS)]
    if unknown:
        raise ValueError(
            f"{SECTIONS_VARIABLE}: no section matches {unknown}; sections: "
            f"{[s.name for s in SCENARIOS]}"
        )
    return chosen


def _chosen_settings() -> set[tuple[int, float]] | None:
    """The ``(n, privacy)`` settings named in ``SKPRIVATE_COVERAGE_SETTINGS``."""
    wanted = os.environ.get(SETTINGS_VARIABLE, "").strip()
    if not wanted:
        return None
    settings = set()
    for part in (w.strip() for w in wanted.split(",") if w.strip()):
        n, _, privacy = part.partition(":")
        try:
            settings.add((int(n), float(privacy)))
        except ValueError:
            raise ValueError(
                f"{SETTINGS_VARIABLE}: expected 'n:privacy' items such as "
                f"'500:8', got {part!r}"
            ) from None
    return settings


def _runs_setting(settings, n, privacy) -> bool:
    if settings is None:
        return True
    return privacy is not None and (n, float(privacy)) in settings


def _merge_previous(table, timings, chosen, stamp, settings=None):
    """The cells not run now, from their last run."""
    if not (CELLS_FILE.exists() and TIMES_FILE.exists()):
        raise ValueError(
            f"{SECTIONS_VARIABLE} runs a part of the benchmark and keeps the "
            f"rest from {CELLS_FILE.name}, which does not exist: run all sections."
        )
    old = pd.read_csv(CELLS_FILE)
    old_times = pd.read_csv(TIMES_FILE)
    names = {s.name for s in chosen}
    if settings is None:
        replaced = old["learner"].isin(names)
        kept_times = ~old_times["learner"].isin(names)
    else:
        # only the cells of the settings run are replaced; the section's
        # time row stays, and the run adds its own row
        ran = set(zip(table["learner"], table["n"], table["privacy"]))
        replaced = pd.Series(
            [
                (r.learner, r.n, r.privacy) in ran
                for r in old[["learner", "n", "privacy"]].itertuples()
            ],
            index=old.index,
        )
        run_names = {t[0] for t in timings}
        kept_times = ~old_times["learner"].isin(run_names)
    table = pd.concat([old[~replaced], table], ignore_index=True)
    times = pd.concat(
        [
            old_times[kept_times],
            pd.DataFrame(timings, columns=["learner", "reps", "CPU s", "wall s"]),
        ],
        ignore_index=True,
    )
    order = {s.name: i for i, s in enumerate(SCENARIOS)}
    table = table.sort_values(
        "learner", key=lambda c: c.map(order), kind="stable"
    ).reset_index(drop=True)
    times = times.sort_values(
        "learner", key=lambda c: c.map(order), kind="stable"
    ).reset_index(drop=True)
    return table, times


def run(quick: bool = False, n_jobs: int = -1) -> list:
    sections = []
    tables = []
    timings = []
    chosen = _chosen_scenarios()
    settings = _chosen_settings()
    stamp = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    for scenario in chosen:
        reps = max(20, scenario.reps // 10) if quick else scenario.reps
        cap = os.environ.get(REPS_VARIABLE, "").strip()
        reps = int(cap) if cap else reps
        t0 = time.perf_counter()
        cpu = 0.0
        ran = []
        for n in SIZES:
            for privacy in scenario.privacy:
                if not _runs_setting(settings, n, privacy):
                    continue
                ran.append(f"n={n}, {scenario.privacy_label(privacy)}")
                pilot = None
                p0 = time.process_time()
                if scenario.pilot is not None:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        pilot = scenario.pilot(n, privacy, np.random.default_rng(7))
                cpu += time.process_time() - p0
                key = zlib.crc32(f"{scenario.name}|{privacy}".encode())
                seeds = np.random.SeedSequence([n, key]).spawn(reps)
                seeds = [int(s.generate_state(1)[0]) for s in seeds]
                chunks = [seeds[i : i + 25] for i in range(0, reps, 25)]
                parts = Parallel(n_jobs=n_jobs)(
                    delayed(_chunk)(scenario, n, privacy, pilot, c) for c in chunks
                )
                rows = [r for part, _ in parts for r in part]
                cpu += sum(seconds for _, seconds in parts)
                errors = [r["error"] for r in rows if r["interval"] == "error"]
                summary = _summarize(rows)
                summary.insert(0, "n", n)
                summary.insert(0, "privacy", scenario.privacy_label(privacy))
                summary.insert(0, "learner", scenario.name)
                summary["failed fits"] = len(errors)
                if pilot is not None:
                    summary["setting"] = f"h = {pilot['bandwidth']:.3g} (pilot)"
                tables.append(summary)
        if not ran:
            continue
        label = (
            scenario.name if settings is None else f"{scenario.name} [{'; '.join(ran)}]"
        )
        timings.append((label, reps, cpu, time.perf_counter() - t0))
    if settings is not None and not tables:
        raise ValueError(
            f"{SETTINGS_VARIABLE}: no setting of the chosen sections matches "
            f"{sorted(settings)}"
        )
    if tables:
        table = pd.concat(tables, ignore_index=True)
        table["run"] = stamp
        table["meets target"] = np.where(
            (table["cov 95%"] >= TARGET[0]) & (table["cov 95%"] <= TARGET[1]),
            "yes",
            "no",
        )
        table["reason"] = [
            _reason(r) if r["meets target"] == "no" else "" for _, r in table.iterrows()
        ]
        table["status"] = [_status(r) for _, r in table.iterrows()]
    else:
        table = pd.DataFrame(columns=["learner"])
    partial = len(chosen) < len(SCENARIOS) or settings is not None
    # Runs of different sections may overlap on one host: each reads the
    # stored cells and writes them back under one lock, so neither loses
    # the other's sections.
    with open(CELLS_FILE.with_suffix(".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        return _store_and_report(
            table, timings, chosen, stamp, partial, quick, sections, settings
        )


def _store_and_report(
    table, timings, chosen, stamp, partial, quick, sections, settings=None
):
    """Merge with the stored cells, write them back, and build the report."""
    if partial:
        table, times = _merge_previous(table, timings, chosen, stamp, settings)
        # stored cells with the full summary get their reason from the
        # current text (cells of the earlier run keep theirs)
        if "no interval" in table:
            fresh = table["no interval"].notna() & (table["meets target"] == "no")
            table.loc[fresh, "reason"] = [
                _reason(r) for _, r in table[fresh].iterrows()
            ]
        table["status"] = [_status(r) for _, r in table.iterrows()]
        # counts stay integers through the merge with an empty frame
        for column in ("n", "reps", "no interval", "failed fits"):
            if column in table:
                table[column] = pd.to_numeric(table[column]).astype("Int64")
    else:
        times = pd.DataFrame(timings, columns=["learner", "reps", "CPU s", "wall s"])
    if not quick and chosen:
        table.to_csv(CELLS_FILE, index=False)
        times.to_csv(TIMES_FILE, index=False)
    elif not quick and partial:
        # no section run: the stored cells get the current reasons and status
        table.to_csv(CELLS_FILE, index=False)
    table["reason"] = table["reason"].fillna("")
    misses = table[table["meets target"] == "no"]
    runs = table.groupby("run", sort=True)["learner"].unique()
    provenance = " ".join(
        f"Sections run {when}: {', '.join(names)}." for when, names in runs.items()
    )
    timings = list(times.itertuples(index=False, name=None))
    cpu = sum(t[2] for t in timings)
    met = int((table["meets target"] == "yes").sum())
    words = table["status"].fillna("").str.split(":").str[0].value_counts()
    text = (
        f"{met} of {len(table)} cells meet the target 0.93 <= coverage <= 0.97 "
        "at 95%; status of the cells: "
        + ", ".join(f"{int(v)} {k}" for k, v in words.items() if k)
        + f". Replications per cell: {FULL_REPS} unless stated in `reps` "
        "(reduced for the cells whose fit or interval refits the estimator "
        "many times, see the module notes). `cov 95%, declared target`: "
        "coverage of the smoothed quantity the interval declares in its "
        "`target` column, for the intervals that do not claim the true value. "
        f"CPU time (all workers, summed over the sections' runs): {cpu:.0f} s. "
        "The host was shared with "
        "other work (load above its 2 cores), so wall times are inflated. "
        + (
            "This report is assembled from more than one run (each row's "
            "section was run with the code of that date; the `run` column "
            "says when it started, or for the earlier full run when it "
            f"finished; the time on the first line is the last run's): {provenance}"
            if runs.size > 1
            else ""
        )
    )
    sections.append(Section("Summary", text))
    columns = [
        "learner",
        "privacy",
        "n",
        "interval",
        "reps",
        "cov 90%",
        "cov 95%",
        "MC SE",
        "width 95%",
        "bias / SE",
        "cov 95%, declared target",
        "warned",
        "cov 95%, unwarned",
        "meets target",
        "run",
    ]
    for column in columns:  # cells stored before a column existed
        if column not in table:
            table[column] = np.nan
    sections.append(
        Section(
            "Coverage by learner, interval, privacy level and sample size",
            "",
            [table[columns]],
        )
    )
    sections.append(
        Section(
            "Cells outside [0.93, 0.97] at 95%, with their status and reason",
            "" if len(misses) else "None.",
            [
                misses[
                    ["learner", "privacy", "n", "interval", "cov 95%", "status"]
                ].reset_index(drop=True)
            ]
            if len(misses)
            else [],
        )
    )
    sections.append(
        Section(
            "Time per learner",
            "CPU seconds summed over the workers (fits, intervals and pilots) "
            "and wall seconds on a shared 2-core machine.",
            [times],
        )
    )
    return sections
