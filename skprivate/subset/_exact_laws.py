"""Exact output law of a subset design, for :func:`skprivate.audit`.

Inputs are the ``p`` categories of a column, outputs the reports (a subset,
plus the dummy indicator with dummy categories), with the probabilities
the privatizer's ``transform`` realises:

* independent design ``nu``: the shown subset ``A`` has probability
  ``nu_A / sum(nu)``; category ``x`` reports ``A`` if ``x`` is in it, its
  complement otherwise, so ``P_x(B) = [x in B] (nu_B + nu_{B^c})``;
* conditional design ``mu``: ``P_x(B) = mu_B / sum_{B' ∋ x} mu_B'`` for
  ``x`` in ``B``;
* dummy categories (``min_coverage = alpha``): with probability ``alpha``
  each the respondent is replaced by a dummy respondent who reports the
  shown subset itself with that dummy; otherwise the report gets either
  dummy with probability 1/2.

Without dummies a report always contains the category, so two categories
have an output possible for one and impossible for the other: the loss is
infinite, which is what subset privacy accepts (it bounds leakage, not a
likelihood ratio).  With dummies every report is possible for every
category and the loss is finite.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._audit import MatrixLaw, NoExactLaw
from ._design import masks_to_indicators

__all__ = ["alone_probability", "subset_exact_law"]


def _design_table(design: Any) -> tuple[np.ndarray, list[tuple[int, int]]]:
    """Probabilities, categories by reports ``(mask, dummy or -1)``."""
    p = design.n_categories
    masks = np.asarray(design._masks, dtype=np.int64)
    full = (1 << p) - 1
    ind = masks_to_indicators(masks, p)
    if design.is_independent:
        nu = np.asarray(design._nu, dtype=float)
        nu = nu / nu.sum()
        shown = dict(zip(masks.tolist(), nu.tolist(), strict=True))
        reports = sorted(set(masks.tolist()) | {full ^ m for m in masks.tolist()})
        table = np.zeros((p, len(reports)))
        for c, mask in enumerate(reports):
            both = shown.get(mask, 0.0) + shown.get(full ^ mask, 0.0)
            for x in range(p):
                if mask >> x & 1:
                    table[x, c] = both
        dummy_table = np.array([shown.get(m, 0.0) for m in reports])
    else:
        mu = np.asarray(design._mu, dtype=float)
        reports = masks.tolist()
        table = np.zeros((p, len(reports)))
        for x in range(p):
            holds = ind[:, x]
            table[x, holds] = mu[holds] / mu[holds].sum()
        dummy_table = None
    if not design.has_dummies:
        return table, [(m, -1) for m in reports]
    alpha = float(design.min_coverage)
    outputs = [(m, d) for d in (0, 1) for m in reports]
    real = np.hstack([table, table]) * (1.0 - 2.0 * alpha) / 2.0
    if dummy_table is None:  # conditional: a dummy respondent reports no category
        empty = [(0, 0), (0, 1)]
        outputs += empty
        real = np.hstack([real, np.zeros((p, 2))])
        dummy_row = np.zeros(len(outputs))
        dummy_row[-2:] = alpha
    else:
        dummy_row = np.concatenate([dummy_table, dummy_table]) * alpha
    return real + dummy_row[None, :], outputs


def subset_exact_law(model: Any, j: int) -> MatrixLaw | NoExactLaw:
    """Law of column ``j`` of a fitted subset privatizer."""
    design = model.designs_[j]
    if not design.enumerable:
        return NoExactLaw(
            f"the design has {design.n_categories} categories, too many subsets "
            "to enumerate"
        )
    table, outputs = _design_table(design)
    keep = table.sum(axis=0) > 0
    table = table[:, keep]
    outputs = [o for o, k in zip(outputs, keep, strict=True) if k]
    cats = [str(c) for c in model.categories_[j]]
    labels = []
    for mask, dummy in outputs:
        names = (
            "{" + ", ".join(cats[x] for x in range(len(cats)) if mask >> x & 1) + "}"
        )
        labels.append(names if dummy < 0 else f"{names} + dummy{dummy + 1}")
    with np.errstate(divide="ignore"):
        log_prob = np.log(table)
    return MatrixLaw(log_prob, cats, labels)


def alone_probability(design: Any) -> float | None:
    """The largest probability, over the categories, that a report is it alone.

    A report ``{x}`` (with or without a dummy indicator) names the category
    as it is.  Read from the exact law of the design; None for a design too
    large to enumerate.
    """
    if not design.enumerable:
        return None
    table, outputs = _design_table(design)
    worst = 0.0
    for x in range(design.n_categories):
        alone = [c for c, (mask, _) in enumerate(outputs) if mask == 1 << x]
        worst = max(worst, float(table[x, alone].sum()))
    return worst
