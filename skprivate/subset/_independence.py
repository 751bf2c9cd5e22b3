"""Independence tests for two subset-privatized variables (Section IV).

Under the product design the probability of a pair of reports is
``P(a, b) = mu_a mu_b u_aᵀ W u_b``, where ``u_a = s 1_a + t`` is the
effective indicator of the design (``s = 1, t = 0`` without dummies) and
``W`` the joint distribution.  A pair of reports is therefore a mixture
observation with known component likelihoods ``kron(u_a, u_b)``, and the
joint MLE is the same computation as the marginal one on ``p·q`` cells.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike
from scipy import stats

from ..utils import check_generator
from . import _fitting as fitting
from ._design import SubsetDesign, indicators_to_masks, masks_to_indicators
from ._estimator import count_subsets, resolve_design
from ._reports import check_subset_data

__all__ = ["SubsetIndependenceResult", "subset_independence_test"]

METHODS = ("pearson", "lrt-mle", "lrt-mom", "bonferroni")


@dataclass
class SubsetIndependenceResult:
    """Outcome of :func:`subset_independence_test`.

    Attributes
    ----------
    statistic : float
        Test statistic (for ``"bonferroni"``, the largest 2×2 chi-square).
    pvalue : float
        P-value (permutation-calibrated when ``n_permutations`` was given).
    dof : int
        Degrees of freedom of the asymptotic chi-square reference.
    method : str
        The test.
    pvalue_asymptotic : float
        P-value from the chi-square reference.
    n_permutations : int or None
        Number of permutations used for calibration.

    Examples
    --------
    >>> import numpy as np
    >>> from skprivate import SubsetUniform, subset_independence_test
    >>> rng = np.random.default_rng(0)
    >>> a = rng.choice(list("ABCD"), 2000)[:, None]
    >>> b = rng.choice(list("WXYZ"), 2000)[:, None]
    >>> A = SubsetUniform(random_state=0).fit_transform(a)
    >>> B = SubsetUniform(random_state=1).fit_transform(b)
    >>> result = subset_independence_test(A, B)
    >>> result.dof, bool(result.pvalue > 0.05)
    (9, True)
    """

    statistic: float
    pvalue: float
    dof: int
    method: str
    pvalue_asymptotic: float
    n_permutations: int | None = None


class _Variable:
    """One privatized variable: design, effective indicators, marginal fits."""

    def __init__(self, data, design, name, data_name, feature_names=None):
        self.design, _ = resolve_design(
            design,
            np.shape(data)[1],
            name=name,
            feature_names=feature_names,
            reports=data,
        )
        self.ind = check_subset_data(np.asarray(data), self.design, name=data_name)
        d = self.design
        self.s, self.t = d.scale, d.offset
        self.m = d.scale * d.q_matrix() + d.offset  # E[1_A] = m w
        self.p = d.n_categories

    def effective(self, ind):
        return self.s * ind.astype(float) + self.t

    def fit(self, ind, method):
        rows, counts = count_subsets(ind)
        U = rows.astype(float)
        q = self.design.q_matrix()
        w = fitting.project_simplex(fitting.mom(U, counts, q, self.s, self.t))
        if method == "mle":
            w, _ = fitting.mle_newton(U, counts, 0.9 * w + 0.1 / self.p, self.s, self.t)
        return w


def _pair_counts(ind_a, ind_b):
    rows, counts = count_subsets(np.hstack([ind_a, ind_b]))
    p = ind_a.shape[1]
    return rows[:, :p].astype(bool), rows[:, p:].astype(bool), counts


def _joint_matrix(var_a, var_b, ra, rb):
    ua, ub = var_a.effective(ra), var_b.effective(rb)
    return (ua[:, :, None] * ub[:, None, :]).reshape(ra.shape[0], -1)


def _lrt(var_a, var_b, ind_a, ind_b, method):
    ra, rb, counts = _pair_counts(ind_a, ind_b)
    wx, wy = var_a.fit(ind_a, method), var_b.fit(ind_b, method)
    joint = _joint_matrix(var_a, var_b, ra, rb)
    if method == "mle":
        start = np.outer(wx, wy).ravel()
        start = 0.9 * start + 0.1 / start.size
        W, _ = fitting.mle_newton(joint, counts, start)
    else:
        gam = (ra.T * counts) @ rb.astype(float) / counts.sum()
        W = np.linalg.solve(var_a.m, gam) @ np.linalg.inv(var_b.m).T
        W = fitting.project_simplex(W.ravel())
        wx, wy = fitting.interior(wx), fitting.interior(wy)
    W = fitting.interior(W) if method == "mom" else W
    l1 = fitting.log_likelihood(joint, counts, W)
    l0 = fitting.log_likelihood(
        var_a.effective(ra), counts, wx
    ) + fitting.log_likelihood(var_b.effective(rb), counts, wy)
    stat = 2.0 * (l1 - l0)
    dof = (var_a.p - 1) * (var_b.p - 1)
    return stat, dof


def _pearson(var_a, var_b, ind_a, ind_b):
    for var in (var_a, var_b):
        var.design._require_enumeration("Pearson's test")
    n = ind_a.shape[0]
    wx, wy = var_a.fit(ind_a, "mle"), var_b.fit(ind_b, "mle")
    da, db = var_a.design, var_b.design
    prob_a = da._mu * da.coverage(masks_to_indicators(da._masks, var_a.p), wx)
    prob_b = db._mu * db.coverage(masks_to_indicators(db._masks, var_b.p), wy)
    ia = np.searchsorted(da._masks, indicators_to_masks(ind_a))
    ib = np.searchsorted(db._masks, indicators_to_masks(ind_b))
    observed = np.zeros((prob_a.size, prob_b.size))
    np.add.at(observed, (ia, ib), 1.0)
    expected = n * np.outer(prob_a, prob_b)
    keep = expected > 0
    stat = float((((observed - expected) ** 2)[keep] / expected[keep]).sum())
    dof = int(prob_a.size * prob_b.size - var_a.p - var_b.p + 1)
    return stat, max(dof, 1)


def _bonferroni(var_a, var_b, ind_a, ind_b):
    n = ind_a.shape[0]
    a = ind_a.astype(float)
    b = ind_b.astype(float)
    n11 = a.T @ b
    na, nb = a.sum(axis=0), b.sum(axis=0)
    # 2x2 Pearson without continuity correction, all (x, y) pairs at once.
    denom = na[:, None] * (n - na[:, None]) * nb[None, :] * (n - nb[None, :])
    with np.errstate(divide="ignore", invalid="ignore"):
        chi2 = np.where(
            denom > 0, n * (n * n11 - na[:, None] * nb[None, :]) ** 2 / denom, 0.0
        )
    pmin = float(stats.chi2.sf(chi2.max(), 1))
    return float(chi2.max()), 1, min(1.0, chi2.size * pmin)


def _statistic(method, var_a, var_b, ind_a, ind_b):
    if method == "pearson":
        stat, dof = _pearson(var_a, var_b, ind_a, ind_b)
        return stat, dof, float(stats.chi2.sf(stat, dof))
    if method == "bonferroni":
        return _bonferroni(var_a, var_b, ind_a, ind_b)
    stat, dof = _lrt(var_a, var_b, ind_a, ind_b, method.split("-")[1])
    return stat, dof, float(stats.chi2.sf(stat, dof))


def subset_independence_test(
    A: ArrayLike,
    B: ArrayLike,
    method: str = "lrt-mom",
    design_a: SubsetDesign | Any = None,
    design_b: SubsetDesign | Any = None,
    n_permutations: int | None = None,
    random_state: Any = None,
) -> SubsetIndependenceResult:
    """Test independence of two variables from their subset reports (Section IV).

    Parameters
    ----------
    A, B : array-like of shape (n, n_outputs_a) and (n, n_outputs_b)
        0/1 reports of the two variables for the same respondents.
    method : {"lrt-mom", "lrt-mle", "pearson", "bonferroni"}
        ``"lrt-mle"``: likelihood ratio of the joint MLE against the product
        of the marginal MLEs, referred to ``chi2((p-1)(q-1))``;
        ``"lrt-mom"``: the same statistic with projected MoM estimates (can
        be negative; the paper's recommendation); ``"pearson"``: Pearson's
        statistic over the ``s × r`` report cells with the marginal MLEs,
        ``dof = s r - p - q + 1`` (cells - 1 - estimated parameters; the
        paper's ``s r`` is wrong); ``"bonferroni"``: the smallest p-value of
        the ``p q`` 2×2 Pearson tests of ``(1{x ∈ A}, 1{y ∈ B})`` (no continuity
        correction), times ``p q``.
    design_a, design_b : SubsetDesign, fitted mechanism or None
        Designs of the two variables (``None``: uniform).
    n_permutations : int or None
        When given, the p-value is calibrated by permuting the rows of ``B``
        against ``A``: ``(1 + #{permuted p-values <= observed}) / (1 + R)``.
    random_state : int, Generator, RandomState or None
        Source of the permutations.

    Returns
    -------
    result : SubsetIndependenceResult
        ``statistic``, ``pvalue``, ``dof`` and more.

    References
    ----------
    Wang, G. and Ding, J. "Subset Privacy: Draw from an Obfuscated Urn",
    Section IV.

    Examples
    --------
    >>> import numpy as np
    >>> from skprivate.subset import SubsetUniform, subset_independence_test
    >>> rng = np.random.default_rng(0)
    >>> x = rng.integers(0, 4, size=(2000, 2))
    >>> A = SubsetUniform(random_state=1).fit_transform(x[:, :1])
    >>> B = SubsetUniform(random_state=2).fit_transform(x[:, 1:])
    >>> res = subset_independence_test(A, B, method="lrt-mle")
    >>> res.dof, bool(res.pvalue > 0.05)
    (9, True)
    """
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}; got {method!r}.")
    if n_permutations is not None and (
        isinstance(n_permutations, bool)
        or not isinstance(n_permutations, int | np.integer)
        or n_permutations < 1
    ):
        raise ValueError(
            f"n_permutations must be a positive int or None; got {n_permutations!r}."
        )
    rng = check_generator(random_state)
    names_a, names_b = getattr(A, "columns", None), getattr(B, "columns", None)
    A, B = np.asarray(A), np.asarray(B)
    if A.ndim != 2 or B.ndim != 2 or A.shape[0] != B.shape[0]:
        raise ValueError(
            "A and B must be 2-D with the same number of rows; got shapes "
            f"{A.shape} and {B.shape}."
        )
    if A.shape[0] < 2:
        raise ValueError(
            f"A and B have {A.shape[0]} rows; the test needs at least 2 pairs of "
            "reports."
        )
    var_a = _Variable(A, design_a, "design_a", "A", names_a)
    var_b = _Variable(B, design_b, "design_b", "B", names_b)
    stat, dof, pval = _statistic(method, var_a, var_b, var_a.ind, var_b.ind)
    if n_permutations is None:
        return SubsetIndependenceResult(stat, pval, int(dof), method, pval)
    perm_p = np.empty(n_permutations)
    for r in range(n_permutations):
        order = rng.permutation(A.shape[0])
        perm_p[r] = _statistic(method, var_a, var_b, var_a.ind, var_b.ind[order])[2]
    calibrated = (1.0 + np.sum(perm_p <= pval)) / (1.0 + n_permutations)
    return SubsetIndependenceResult(
        stat, float(calibrated), int(dof), method, pval, int(n_permutations)
    )
