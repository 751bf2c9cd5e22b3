"""Privacy leakage of subset designs (Section II-B), population and per respondent."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ..utils.validation import check_float_array
from ._design import SubsetDesign, masks_to_indicators
from ._reports import check_subset_data

__all__ = ["subset_individual_leakage", "subset_leakage"]


def _check_design(design: Any, function: str) -> None:
    if not isinstance(design, SubsetDesign):
        raise TypeError(
            f"{function}: design must be a SubsetDesign (for a fitted SubsetUniform "
            f"or SubsetMechanism, pass its designs_[j]); got {type(design).__name__}."
        )


def _check_weights(weights: ArrayLike, p: int):
    w = check_float_array(weights, name="weights")
    if w.shape != (p,):
        raise ValueError(
            f"weights must have one entry per category ({p}); got shape {w.shape}."
        )
    if not np.all(np.isfinite(w)) or np.any(w < 0) or abs(w.sum() - 1) > 1e-6:
        raise ValueError("weights must be non-negative and sum to 1.")
    return w


def _entropy_bits(w) -> float:
    w = w[w > 0]
    return float(-(w * np.log2(w)).sum())


def subset_leakage(design: SubsetDesign, weights: ArrayLike) -> dict[str, float]:
    """Population privacy leakages of a design (Section II-B).

    Parameters
    ----------
    design : SubsetDesign
        The mechanism.  With dummy categories, the measures refer to the
        enlarged variable on ``p + 2`` categories (true categories with mass
        ``(1 - 2 alpha) w``, dummies with ``alpha`` each), as in Appendix B.
    weights : array-like of shape (n_categories,)
        The category distribution ``w``.

    Returns
    -------
    leakage : dict
        ``size_coverage`` (``tau = sum_a mu_a L(a)^2``, the average share of
        the population a report covers), ``size_leakage`` (``1 - tau``),
        ``mutual_information_bits`` (``I(X; A)``), ``entropy_bits``
        (``H(X)``), ``conditional_entropy_bits`` (``H(X | A)``, the
        information coverage), ``prediction_leakage`` (``R``, the accuracy
        of the best guess of ``X`` from ``A``) and the same three leakages
        for the non-private (``A = {X}``) and fully private (``A = [p]``)
        references, with the suffixes ``_nonprivate`` and ``_fully_private``.

    References
    ----------
    Wang, G. and Ding, J. "Subset Privacy: Draw from an Obfuscated Urn",
    Definitions 5–7.

    Examples
    --------
    >>> from skprivate.subset import SubsetDesign, subset_leakage
    >>> out = subset_leakage(SubsetDesign.uniform(4), [0.01, 0.1, 0.2, 0.69])
    >>> round(out["size_coverage"], 4)
    0.6841
    """
    _check_design(design, "subset_leakage")
    p = design.n_categories
    w = _check_weights(weights, p)
    design._require_enumeration("The leakage")
    ind = masks_to_indicators(design._masks, p)
    mu = design._mu
    s, t = design.scale, design.offset
    lik = design.coverage(ind, w)
    tau = float((mu * lik**2).sum())
    with np.errstate(divide="ignore", invalid="ignore"):
        mi = float(-np.where(lik > 0, mu * lik * np.log2(lik), 0.0).sum())
    best = np.max(np.where(ind, s * w[None, :], 0.0), axis=1)
    pred = float((mu * np.maximum(best, t)).sum())
    full_w = np.concatenate([s * w, [t, t]]) if design.has_dummies else w
    h = _entropy_bits(full_w)
    return {
        "size_coverage": tau,
        "size_leakage": 1.0 - tau,
        "mutual_information_bits": mi,
        "entropy_bits": h,
        "conditional_entropy_bits": h - mi,
        "prediction_leakage": pred,
        "size_leakage_nonprivate": float(1.0 - (full_w**2).sum()),
        "mutual_information_bits_nonprivate": h,
        "prediction_leakage_nonprivate": 1.0,
        "size_leakage_fully_private": 0.0,
        "mutual_information_bits_fully_private": 0.0,
        "prediction_leakage_fully_private": float(full_w.max()),
    }


def subset_individual_leakage(
    A: ArrayLike, design: SubsetDesign, weights: ArrayLike, y_true: Any = None
) -> dict[str, np.ndarray]:
    """Privacy of each respondent, given their reported subset.

    Parameters
    ----------
    A : array-like of shape (n, n_outputs)
        0/1 reports (true categories, then the dummies if the design has
        them).
    design : SubsetDesign
        The mechanism.
    weights : array-like of shape (n_categories,)
        The category distribution (true or estimated).
    y_true : array-like of int, shape (n,) or None
        True category codes; when given, the 0/1 prediction leakage is
        returned too.

    Returns
    -------
    leakage : dict of ndarray
        ``size_coverage`` ``L(a)``, ``size_leakage`` ``1 - L(a)``,
        ``information_bits`` ``-log2 L(a)`` (pointwise mutual information:
        it averages to ``I(X; A)``), ``guess`` (code of the most likely
        category in the subset; ``p`` or ``p + 1`` for a dummy),
        ``guess_probability`` (its posterior probability) and, with
        ``y_true``, ``prediction_leakage`` ``1{guess = y}``.

    Examples
    --------
    >>> from skprivate.subset import SubsetDesign, subset_individual_leakage
    >>> w = [0.009551, 0.031909, 0.095943, 0.008323, 0.854274]
    >>> out = subset_individual_leakage([[0, 1, 0, 0, 1]], SubsetDesign.uniform(5), w)
    >>> round(float(out["size_leakage"][0]), 2)
    0.11
    """
    _check_design(design, "subset_individual_leakage")
    p = design.n_categories
    w = _check_weights(weights, p)
    a = check_float_array(A, name="A")
    if a.ndim != 2 or a.shape[1] != design.n_outputs:
        raise ValueError(f"A must have shape (n, {design.n_outputs}); got {a.shape}.")
    # 0/1 entries, a non-empty subset the design can report, one dummy.
    check_subset_data(a, design, name="A")
    ind = a[:, :p].astype(bool)
    s, t = design.scale, design.offset
    lik = design.coverage(ind, w)
    masses = np.where(ind, s * w[None, :], -1.0)
    if design.has_dummies:
        dummy = np.where(a[:, p:].astype(bool), t, -1.0)
        masses = np.hstack([masses, dummy])
    guess = np.argmax(masses, axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = {
            "size_coverage": lik,
            "size_leakage": 1.0 - lik,
            "information_bits": -np.log2(lik),
            "guess": guess,
            "guess_probability": masses[np.arange(a.shape[0]), guess] / lik,
        }
    if y_true is not None:
        y = check_float_array(y_true, name="y_true")
        if y.shape != (a.shape[0],):
            raise ValueError(
                f"y_true must have one entry per row ({a.shape[0]}); got {y.shape}."
            )
        bad = (y != np.round(y)) | (y < 0) | (y >= p)
        if bad.any():
            row = int(np.flatnonzero(bad)[0])
            raise ValueError(
                f"y_true must hold category codes, ints in [0, {p - 1}]; row {row} "
                f"does not ({int(bad.sum())} such rows)."
            )
        out["prediction_leakage"] = (guess == y).astype(float)
    return out
