"""Confidence intervals of :class:`RVNSDensityEstimator`.

With ``method="ml"`` the reconstruction is the EMS fixed point of the
reports counted in the grid cells, through the exact cell-to-cell
transition probabilities of the mechanism; its mean, CDF and quantiles get
the linearized (delta-method) intervals of
:mod:`skprivate._grid_density._intervals`, with each respondent's ``k``
reports as one unit (they share the respondent's value).  They cover the
EMS-smoothed target at the smoothing width the fit chose, not the true
value: the smoothing bias is not included.  ``method="bootstrap"`` resamples
respondents and refits (the smoothing width re-chosen each time), and is
the only method for ``method="paper"`` fits.

There is no exact unbiased mean for RVNS reports: ``E[Y | x]`` is linear in
``x`` only at least ``d`` away from the bounds (the band is shifted inside
near them), so the mean is estimated from the reconstruction.

References
----------
H. Jiang et al., "A Privacy-Preserving Data Collection Method for
Diversified Statistical Analysis" (the mechanism and Algorithm 2).

B. W. Silverman, M. C. Jones, J. D. Wilson and D. W. Nychka (1990), "A
smoothed EM approach to indirect estimation problems", JRSS-B 52, 271-324.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray
from sklearn.base import clone

from .._grid_density._intervals import GridEMSIntervalsMixin, smoothing_matrix

__all__ = ["RVNSIntervalsMixin"]


class RVNSIntervalsMixin(GridEMSIntervalsMixin):
    """``conf_int`` of :class:`RVNSDensityEstimator`: mean, quantiles, CDF.

    ``method="linearized"`` (default for ``method="ml"`` fits) or
    ``"bootstrap"`` (respondents resampled, the estimator refitted on their
    reports; the default for ``method="paper"``).  ``X`` is the reports, one
    row of ``k`` reports per respondent.
    """

    def _ci_uses_ems(self) -> bool:
        # An "ml" fit sets the smoothing width and no L2 weight.
        return (
            getattr(self, "smoothing_width_", None) is not None
            and getattr(self, "l2_", None) is None
        )

    def _ci_ems_system(self, X: NDArray):
        if not self._ci_uses_ems():
            return None
        from ._solvers import cell_transition_matrix

        a, b = self.bounds_
        m = self.edges_.size - 1
        bins = np.clip(((X - a) / (b - a) * m).astype(np.intp), 0, m - 1)
        A = cell_transition_matrix(self.edges_, self.d_, (a, b))
        return A, bins, smoothing_matrix(m, self.smoothing_width_)

    def _ci_resampling_template(self) -> Any:
        return clone(self).set_params(
            privatizer=None, d=float(self.d_), bounds=tuple(self.bounds_)
        )
