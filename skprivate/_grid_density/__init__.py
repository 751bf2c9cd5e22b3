"""Density estimation on a grid of cells, shared by two families.

The RVNS reconstruction (:mod:`skprivate.negative_survey`) and the density
estimators behind the LDP report mechanisms (:mod:`skprivate.ldp`) estimate a
density on cells of ``[a, b]`` from reports counted in bins:

* ``_kde`` -- Gaussian kernel density of reports on a grid (MATLAB's
  ``ksdensity`` bandwidth, binned evaluation);
* ``_ems`` -- EM with a smoothing step for binned reports and the held-out
  choice of its smoothing width;
* ``_estimate`` -- the grid of cells and the population interface of a
  density estimated on it.

Nothing here is public; each family exports what its users need.
"""
