"""Validating 0/1 subset reports against a design, naming the first bad row.

Shared by the estimator (which counts the reports), the leakage measures and
the independence tests.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..utils.validation import check_finite
from ._design import SubsetDesign

__all__ = ["check_reports_block", "check_reports_shape", "check_subset_data"]


def check_reports_block(
    A, design: SubsetDesign, name: str, offset: int, skip_unknown: bool = False
):
    """Validate one block of 0/1 reports; return the true-category part.

    Row numbers in errors count from the start of the whole data
    (``offset`` is the block's first row).  With ``skip_unknown``, all-zero
    rows (``handle_unknown="ignore"`` reports of a value outside the
    categories) are left out and counted: the second value returned.
    """
    p = design.n_categories
    if A.dtype.kind == "f":
        check_finite(A, name=name, first_row=offset)
    binary = (A == 0) | (A == 1)
    if not binary.all():
        # reports are released, but raw values passed by mistake are not:
        # the message names the row and column, never the row's values
        row, column = (int(i) for i in np.argwhere(~binary)[0])
        raise ValueError(
            f"{name} must contain only 0 and 1 (subset indicators); row "
            f"{offset + row} holds another value, in column {column}."
        )
    del binary
    A = A.astype(bool, copy=False)
    unknown = ~A.any(axis=1) if skip_unknown else np.zeros(A.shape[0], dtype=bool)
    n_unknown = int(unknown.sum())
    ind = A[:, :p]
    empty = ~ind.any(axis=1) & ~unknown
    if empty.any():
        row = int(np.flatnonzero(empty)[0])
        raise ValueError(
            f"Row {offset + row} of {name} is an empty subset (all 0); every "
            "report must contain the respondent's category (an all-zero row, "
            "the report of SubsetUniform(handle_unknown='ignore') for an unknown "
            "value, has no posterior over the categories)."
        )
    if design.has_dummies:
        bad = (A[:, p:].sum(axis=1) != 1) & ~unknown
        if bad.any():
            row = int(np.flatnonzero(bad)[0])
            raise ValueError(
                f"Row {offset + row} of {name} must contain exactly one of the two "
                "dummy categories (its last two columns)."
            )
    if n_unknown:
        ind = ind[~unknown]
    ok = design.admissible(ind)
    if not ok.all():
        row = int(np.flatnonzero(~ok)[0])
        if n_unknown:  # position in the block before the all-zero rows left out
            row = int(np.flatnonzero(~unknown)[row])
        raise ValueError(
            f"Row {offset + row} of {name} is a subset the design never reports "
            "(inconsistent with the design); every report must be one of the "
            "design's admissible subsets."
        )
    if skip_unknown:
        return ind, n_unknown
    return ind


def check_reports_shape(A, design: SubsetDesign, name: str) -> None:
    if A.ndim != 2:
        raise ValueError(f"{name} must be 2-D 0/1 indicators; got shape {A.shape}.")
    if A.shape[1] != design.n_outputs:
        raise ValueError(
            f"{name} has {A.shape[1]} columns but the design reports "
            f"{design.n_outputs} ({design.n_categories} categories"
            f"{' + 2 dummies' if design.has_dummies else ''})."
        )


def check_subset_data(A: Any, design: SubsetDesign, name: str = "A"):
    """Validate 0/1 reports against a design; return the true-category part.

    Raises a ``ValueError`` naming the first offending row.
    """
    A = np.asarray(A)
    check_reports_shape(A, design, name)
    return check_reports_block(A, design, name, 0)
