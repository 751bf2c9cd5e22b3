"""A record's privacy budget split over its columns."""

from __future__ import annotations

from fractions import Fraction

import numpy as np

__all__ = ["budget_share"]


def budget_share(total: float, n_columns: int) -> float:
    """The largest double whose ``n_columns`` copies sum to at most ``total``.

    Each of ``n_columns`` independent releases spends the share, and by
    sequential composition the record spends their sum.  The rounded quotient
    ``total / n_columns`` can exceed the exact one by half an ulp (1.0 over 5
    columns: five times ``fl(0.2)`` is above 1.0), so it is stepped down
    when it does.  ``total`` is read as a double first: a float16 or float32
    budget divided in its own precision rounds far more.

    Parameters
    ----------
    total : float
        The budget of the whole record (epsilon or delta), at least 0.
    n_columns : int
        The number of columns sharing it, at least 1.

    Returns
    -------
    share : float

    Examples
    --------
    >>> from skprivate.utils._budget import budget_share
    >>> budget_share(1.0, 5) < 0.2
    True
    >>> budget_share(1.0, 4)
    0.25
    """
    total = float(total)
    share = total / n_columns
    if np.isfinite(share) and Fraction(share) * n_columns > Fraction(total):
        share = float(np.nextafter(share, 0.0))
    return share
