"""Moments of the density estimates against the unbiased moment estimates.

For each learner, mechanism budget and sample size: the clean mean and
variance estimated without bias from the privatized data (Laplace:
``mean(Z)``, ``var(Z) - 2 b**2``; Square Wave and boundary-safe RVNS: the
inverse of their affine report maps), their standard errors (delta method
from the sample variance of the reports), and the mean and variance of the
default estimate (``moment_correction=True``) and of the uncorrected one,
with the largest distance in standard errors.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from ._common import Section

TITLE = "Density estimates against the unbiased moment estimates"


def _affine_moments(y, m1, m2):
    y = np.asarray(y, dtype=float).ravel()
    n = y.size
    mean = (y.mean() - m1[0]) / m1[1]
    square = (np.mean(y * y) - m2[0] - m2[1] * mean) / m2[2]
    infl_mean = (y - y.mean()) / m1[1]
    infl_square = ((y * y - np.mean(y * y)) - m2[1] * infl_mean) / m2[2]
    infl_var = infl_square - 2 * mean * infl_mean
    return (
        mean,
        square - mean**2,
        np.std(infl_mean) / np.sqrt(n),
        np.std(infl_var) / np.sqrt(n),
    )


def _square_wave_maps(epsilon, a, b):
    from skprivate.ldp._square_wave import _square_wave_terms

    w, odds = _square_wave_terms(epsilon)
    q = 1.0 / (1.0 + odds)
    p = odds / (2.0 * w) * q
    r, s = b - a, 2 * w * (p - q)
    c1 = q * (1 + 2 * w) / 2
    c2 = q * ((1 + w) ** 3 + w**3) / 3 + (p - q) * 2 * w**3 / 3
    m1 = (a + r * c1 - s * a, s)
    m2 = (a * a + 2 * a * (r * c1 - s * a) + r * r * c2 + s * a * a, 0.0, s)
    return m1, m2


def _cases(quick: bool):
    from skprivate import DeconvolutionKernelDensity, LaplaceLDP
    from skprivate.ldp import (
        PerturbedKDEEstimator,
        SquareWaveEMSEstimator,
        SquareWaveLDP,
    )
    from skprivate.negative_survey import RVNSDensityEstimator, RVNSPerturber

    sizes = [20_000] if quick else [20_000, 200_000]
    for n in sizes:
        rng = np.random.default_rng(n)
        x = rng.normal(40, 10, size=(n, 1))
        for eps in (0.5, 1.0, 4.0):
            priv = LaplaceLDP(epsilon=eps, bounds=(0, 100), random_state=1)
            z = priv.fit_transform(x)
            b = float(priv.scale_[0])
            target = _affine_moments(z, (0.0, 1.0), (2 * b * b, 0.0, 1.0))
            for label, make in (
                (
                    "DeconvolutionKernelDensity(privatizer=...), support (0, 100)",
                    lambda mc, priv=priv, x=x: DeconvolutionKernelDensity(
                        privatizer=priv, bandwidth=2.0, moment_correction=mc
                    ).fit(x),
                ),
                (
                    "DeconvolutionKernelDensity(noise_scale=b), support = range of Z",
                    lambda mc, b=b, z=z: DeconvolutionKernelDensity(
                        noise_scale=b, bandwidth=2.0, moment_correction=mc
                    ).fit(z),
                ),
            ):
                yield label, eps, n, target, make
        u = rng.beta(2, 5, size=(n, 1)) * 10
        for eps in (0.5, 1.0, 4.0):
            priv = LaplaceLDP(epsilon=eps, bounds=(0, 10), random_state=2)
            z = priv.fit_transform(u)
            b = float(priv.scale_[0])
            yield (
                "PerturbedKDEEstimator(privatizer=LaplaceLDP), beta(2, 5) on (0, 10)",
                eps,
                n,
                _affine_moments(z, (0.0, 1.0), (2 * b * b, 0.0, 1.0)),
                lambda mc, priv=priv, u=u: PerturbedKDEEstimator(
                    privatizer=priv, moment_correction=mc
                ).fit(u),
            )
            sw = SquareWaveLDP(epsilon=eps, bounds=(0, 10), random_state=1)
            y = sw.fit_transform(u)
            yield (
                "SquareWaveEMSEstimator, beta(2, 5) on (0, 10)",
                eps,
                n,
                _affine_moments(y, *_square_wave_maps(eps, 0.0, 10.0)),
                lambda mc, y=y, eps=eps: SquareWaveEMSEstimator(
                    epsilon=eps, bounds=(0, 10), moment_correction=mc
                ).fit(y),
            )
        for d in (1.0, 4.0):
            y = RVNSPerturber(d=d, k=2, bounds=(0, 10), random_state=1).fit_transform(u)
            c = 1.0 / (10 + d)
            m1 = (c * ((10 + d) ** 2 - d * d) / 2, -c * d)
            m2 = (c * (((10 + d) ** 3 + d**3) / 3 - d**3 / 6), 0.0, -c * d)
            yield (
                f"RVNSDensityEstimator (boundary-safe, d = {d:g}), beta(2, 5)",
                None,
                n,
                _affine_moments(y, m1, m2),
                lambda mc, y=y, d=d: RVNSDensityEstimator(
                    d=d, bounds=(0, 10), moment_correction=mc
                ).fit(y),
            )


def run(quick: bool, n_jobs: int) -> list[Section]:
    rows = []
    for label, eps, n, (mean, var, se_m, se_v), make in _cases(quick):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fixed, raw = make(True), make(False)
        rows.append(
            {
                "learner": label,
                "epsilon": "" if eps is None else eps,
                "n": n,
                "unbiased mean": mean,
                "SE mean": se_m,
                "estimate mean": fixed.mean(),
                "uncorrected mean": raw.mean(),
                "unbiased var": var,
                "SE var": se_v,
                "estimate var": fixed.var(),
                "uncorrected var": raw.var(),
                "max |z| (estimate)": max(
                    abs(fixed.mean() - mean) / se_m, abs(fixed.var() - var) / se_v
                ),
                "max |z| (uncorrected)": max(
                    abs(raw.mean() - mean) / se_m, abs(raw.var() - var) / se_v
                ),
            }
        )
    table = pd.DataFrame(rows)
    text = (
        "Unbiased moment estimates of the clean values from the privatized data, "
        "with their standard errors, against the mean and variance of the default "
        "estimate and of the same estimate with `moment_correction=False`; "
        "`max |z|` is the larger of the two distances in standard errors (3 is the "
        "agreement threshold). N(40, 10) through LaplaceLDP(bounds=(0, 100)) for the "
        "deconvolution KDE (bandwidth 2), beta(2, 5) * 10 for the others. Where the "
        "variance estimate is below what a density on the support can have (few "
        "records, much noise), the estimate warns and takes the nearest attainable "
        "variance."
    )
    return [
        Section("Mean and variance: estimate against unbiased moments", text, [table])
    ]
