"""Whether the bias-corrected deconvolution intervals can be trusted at the bandwidth.

The ``method="rbc"`` intervals of :class:`~skprivate.DeconvolutionKernelDensity`
centre on the estimate with the fourth-order kernel ``L = (3 - u**2) phi /
2`` (:mod:`._intervals`), whose bias is ``O(h**4)``: small against the
standard error only while the bandwidth ``h`` is small against the spread
of the clean values.  Under heavy noise the bandwidth chosen for the noise
can be a large fraction of that spread, and the bias that remains then
shifts the interval off the true value.  This module measures that bias by
a normal reference, as Silverman's rule of thumb measures the bias of a
kernel estimate, and warns (:class:`~skprivate.exceptions.CoverageWarning`)
where it would push the coverage below the band.

The rule (no constant is fitted to a benchmark design):

1. *The reference.*  The clean values are taken normal with the mean of
   the releases and the deconvolved variance ``s_x**2 = var(z) - 2 b**2``
   (Laplace noise of scale ``b`` adds ``2 b**2``).
2. *The bias there, in closed form.*  The deconvolution estimate's mean is
   ``L_h * f``; for ``f`` normal with standard deviation ``s_x``, with ``s**2
   = s_x**2 + h**2`` and ``y = x - mean``,
   ``E f_rbc(x) = phi_s(y) (1.5 - 0.5 (s_x**2 / s**2 + h**2 y**2 / s**4))``
   and ``E F_rbc(x) = Phi(y / s) + 0.5 (h / s)**2 (y / s) phi(y / s)``
   (``phi_s`` the normal density of standard deviation ``s``, ``phi`` and
   ``Phi`` the standard ones); the bias is their difference from ``f(x)``
   and ``F(x)`` of the reference.  A quantile's interval inverts the CDF
   intervals, so its bias is the CDF's at the quantile, and its standard
   error the CDF's divided by the reference density there.
3. *What that does to the coverage.*  A normal interval ``estimate -/+ z se``
   whose centre is off by ``delta`` standard errors covers with
   probability ``Phi(z - delta) - Phi(-z - delta)``.  The call warns when
   that is more than ``COVERAGE_SLACK = 0.02`` below the level (the band
   ``[0.93, 0.97]`` of a 95% interval); at 95% this is ``delta > 0.415``.
   Where the releases' variance is at most the noise's (``s_x`` not
   estimable), it warns too: the bandwidth cannot be judged against the
   spread.

What the rule does not see: the reference has one mode and the spread of
the whole law, so bias from features narrower than that spread (the modes
of a multimodal law, a sharp edge) is underestimated, as by every normal
reference rule.  On an equal mixture of normals at -1.5 and 1.5 with
standard deviation 0.7 (Laplace noise, ``epsilon`` 4 and 8, 500 and 2,000
rows), the rbc intervals of the density at a mode covered 0.44 to 0.78
and of the CDF 0.74 to 0.88 without a warning.

The alternative named in the warning is a smaller ``bandwidth`` (the bias
falls as ``h**4``, the variance grows), or ``method="smoothed"``, whose
declared target is the smoothed density.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray
from scipy import stats

from .._grid_density._width_choice import COVERAGE_SLACK
from ..exceptions import CoverageWarning
from ..utils._warnings import external_stacklevel
from ._intervals import _records

__all__ = [
    "BandwidthCheckMixin",
    "bias_coverage",
    "reference_bias",
]


def reference_bias(
    kind: str, x: NDArray, mean: float, sd: float, h: float
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """``(bias, density)`` of the rbc estimate at ``x`` for a normal reference.

    ``kind`` is ``"pdf"`` or ``"cdf"``; ``density`` is the reference density
    at ``x``.

    Examples
    --------
    >>> import numpy as np
    >>> from skprivate.ldp._rbc_check import reference_bias
    >>> bias, _ = reference_bias("pdf", np.array([0.0]), 0.0, 1.0, 0.8)
    >>> float(bias[0].round(4))
    -0.0266
    >>> bias, _ = reference_bias("cdf", np.array([0.0]), 0.0, 1.0, 0.8)
    >>> float(bias[0])  # the CDF at the centre of a symmetric law is unbiased
    0.0
    """
    y = np.asarray(x, dtype=float) - mean
    s2 = sd * sd + h * h
    s = np.sqrt(s2)
    density = stats.norm.pdf(y, scale=sd)
    if kind == "pdf":
        smoothed = stats.norm.pdf(y, scale=s) * (
            1.5 - 0.5 * (sd * sd / s2 + h * h * y * y / (s2 * s2))
        )
        return smoothed - density, density
    v = y / s
    smoothed = stats.norm.cdf(v) + 0.5 * (h * h / s2) * v * stats.norm.pdf(v)
    return smoothed - stats.norm.cdf(y / sd), density


def bias_coverage(level: float, delta: NDArray) -> NDArray[np.float64]:
    """Coverage of a level-``level`` normal interval off centre by ``delta`` SEs.

    Examples
    --------
    >>> from skprivate.ldp._rbc_check import bias_coverage
    >>> float(bias_coverage(0.95, 0.0).round(3))
    0.95
    >>> float(bias_coverage(0.95, 0.415).round(3))
    0.93
    """
    z = stats.norm.ppf(0.5 + 0.5 * level)
    delta = np.abs(np.asarray(delta, dtype=float))
    return stats.norm.cdf(z - delta) - stats.norm.cdf(-z - delta)


class BandwidthCheckMixin:
    """Warns at ``conf_int`` where the rbc bias at the bandwidth is not negligible.

    Put before the deconvolution density's intervals mixin; the ``"rbc"``
    intervals of ``"pdf"``, ``"cdf"`` and ``"quantile"`` are checked by the
    rule of the module notes, their values unchanged.
    """

    def _conf_int_pdf(self, request: Any) -> pd.DataFrame:
        frame = super()._conf_int_pdf(request)
        self._ci_check_bandwidth(request, frame, "pdf")
        return frame

    def _conf_int_cdf(self, request: Any) -> pd.DataFrame:
        frame = super()._conf_int_cdf(request)
        self._ci_check_bandwidth(request, frame, "cdf")
        return frame

    def _conf_int_quantile(self, request: Any) -> pd.DataFrame:
        frame = super()._conf_int_quantile(request)
        self._ci_check_bandwidth(request, frame, "quantile")
        return frame

    def _ci_check_bandwidth(self, request: Any, frame: pd.DataFrame, kind: str) -> None:
        method = str(frame["method"].iloc[0]) if len(frame) else ""
        if not method.startswith("rbc") or request.cache.get("bandwidth-warned"):
            return
        z = _records(request, getattr(self, "_Z", None))
        h = float(self.bandwidth_)
        noise = 2.0 * float(np.ravel(self.noise_scale_)[0]) ** 2
        variance = float(np.var(z, ddof=1)) - noise
        zq = stats.norm.ppf(0.5 + 0.5 * request.level)
        if not variance > 0:
            coverage, reason = (
                np.nan,
                (
                    "the releases vary no more than the noise does, so the spread "
                    "of the clean values (against which the bandwidth must be small "
                    "for the bias correction to hold) cannot be estimated"
                ),
            )
        else:
            sd = np.sqrt(variance)
            x = frame["estimate" if kind == "quantile" else "point"].to_numpy(float)
            bias, density = reference_bias(
                "pdf" if kind == "pdf" else "cdf", x, float(np.mean(z)), sd, h
            )
            half = 0.5 * (frame["upper"] - frame["lower"]).to_numpy(float) / zq
            se = half * density if kind == "quantile" else frame["se"].to_numpy(float)
            with np.errstate(divide="ignore", invalid="ignore"):
                delta = np.where(se > 0, np.abs(bias) / se, 0.0)
            coverage = float(np.min(bias_coverage(request.level, delta)))
            if not coverage < request.level - COVERAGE_SLACK:
                return
            reason = (
                f"the bandwidth ({h:.3g}) is {h / sd:.2f} times the deconvolved "
                f"spread of the values (standard deviation {sd:.3g}), where the "
                "bias the correction leaves is, for a normal law of that spread, "
                f"{float(np.max(delta)):.2g} standard errors, which brings the "
                f"coverage of this {request.level:g} interval to about "
                f"{coverage:.2f}"
            )
        request.cache["bandwidth-warned"] = True
        warnings.warn(
            f"{type(self).__name__}: the rbc {kind} interval may cover less often "
            f"than its level: {reason}. A smaller bandwidth reduces that bias "
            "(as h**4); method='smoothed' covers the density smoothed at this "
            "bandwidth instead.",
            CoverageWarning,
            stacklevel=external_stacklevel(),
        )
