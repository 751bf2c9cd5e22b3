"""Exact output laws of the frequency oracles, for :func:`skprivate.audit`.

Each oracle's realised probabilities (the dyadic coins of its sampler)
give its law.  When the table of inputs by outputs is small enough it is
enumerated in full (a :class:`~skprivate._audit.MatrixLaw`): k-RR's
``k x k`` table, unary encoding's ``k x 2**k`` bit vectors, local hashing's
``k x`` (seeds x buckets), Hadamard response's ``k x K`` indices.

Otherwise the law is audited on two categories, with the outputs grouped
into classes of equal probability ratio.  Every oracle here treats all
pairs of categories alike (the hash family's collision probability and the
Hadamard rows' overlaps are the same for every pair), and grouping outputs
whose two probabilities have the same ratio changes neither the largest
ratio nor the hockey-stick divergence, so the reduced law's worst case is
the full law's exactly.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .._audit import MatrixLaw, WorstCase

__all__ = ["PairReducedLaw", "frequency_exact_law", "oracle_law"]


@dataclass(frozen=True)
class PairReducedLaw:
    """Two categories' law over classes of outputs with equal probability ratio.

    Parameters
    ----------
    law : MatrixLaw
        Two inputs by the output classes.
    kind : str
        The oracle, named in the audit's method.
    """

    law: MatrixLaw
    kind: str

    def _method(self, worst: WorstCase) -> WorstCase:
        method = (
            f"{self.kind}: every pair of categories alike; outputs grouped in "
            "classes of equal probability ratio, each enumerated"
        )
        return WorstCase(worst.value, worst.inputs, worst.output, method)

    def worst_epsilon(self) -> WorstCase:
        """Largest log ratio of two categories' probabilities of one output."""
        return self._method(self.law.worst_epsilon())

    def worst_delta(self, epsilon: float) -> WorstCase:
        """Largest hockey-stick divergence at ``epsilon``."""
        return self._method(self.law.worst_delta(epsilon))


def oracle_law(
    oracle: Any, categories: list[str], full: bool | None = None
) -> MatrixLaw | PairReducedLaw:
    """The exact law of one oracle.

    Parameters
    ----------
    oracle : oracle object
        A fitted column's oracle (``oracles_[j]``).
    categories : list of str
        Labels of the inputs.
    full : bool or None
        Force the full table (True; ``ValueError`` when it is too large) or
        the pair reduction (False); None picks the full table when small.

    Returns
    -------
    MatrixLaw or PairReducedLaw
    """
    table = None if full is False else oracle.full_table(categories)
    if table is None and full:
        raise ValueError(
            f"the {oracle.kind} table for {oracle.n_categories} categories is too "
            "large to enumerate in full."
        )
    if table is not None:
        log_prob, labels = table
        return MatrixLaw(np.asarray(log_prob), list(categories), labels)
    log_prob, labels = oracle.pair_table()
    pair = MatrixLaw(np.asarray(log_prob), list(categories[:2]), labels)
    return PairReducedLaw(pair, oracle.kind)


def frequency_exact_law(model: Any, j: int) -> MatrixLaw | PairReducedLaw:
    """Law of column ``j`` of a fitted frequency privatizer."""
    cats = [str(c) for c in model.categories_[j]]
    return oracle_law(model.oracles_[j], cats)
