"""IntervalEnsemble: several interval mechanisms with pooled anchors."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.base import clone

from ._anchors import (
    AnchorDistribution,
)
from ._base_mechanism import _BaseIntervalMechanism

__all__ = ["IntervalEnsemble"]


class IntervalEnsemble(_BaseIntervalMechanism):
    """Ensemble of interval mechanisms: pooled anchors (Definition 3).

    The anchors of every mechanism are drawn independently and pooled, and
    the acceptable ranges are united; each value is reported as the finest
    cell, i.e. the intersection of the cells each mechanism alone would
    report.  Theorem 2 bounds its leakage by the sum of the leakages
    (:func:`composition_bound`).

    Parameters
    ----------
    mechanisms : list of interval mechanisms
        :class:`IntervalCaseI`, :class:`IntervalCaseII` or
        :class:`IntervalMechanism` instances; their own ``random_state`` is
        ignored.
    random_state : None, int, RandomState or Generator, default=None
        Source of all anchors.

    Attributes
    ----------
    n_features_in_ : int
        Number of columns seen in fit.

    See Also
    --------
    composition_bound

    Examples
    --------
    >>> from skprivate.interval import IntervalCaseI, IntervalEnsemble
    >>> ens = IntervalEnsemble([IntervalCaseI(scale=2), IntervalCaseI(scale=2)])
    >>> ens.privacy_summary()["n_cells"]
    3
    """

    _parameter_constraints: ClassVar[dict[str, list]] = {
        "mechanisms": [list, tuple],
        "random_state": ["random_state"],
    }

    def __init__(self, mechanisms: Any = None, random_state: Any = None) -> None:
        self.mechanisms = mechanisms
        self.random_state = random_state

    def fit(self, X: ArrayLike, y: Any = None) -> IntervalEnsemble:
        """Validate the members and record the number of columns.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Raw values (only the shape and column names are used).
        y : None
            Ignored.

        Returns
        -------
        self : object
        """
        return super().fit(X, y)

    def _fit(self, X: ArrayLike, y: Any = None) -> IntervalEnsemble:
        self._check_params()
        members = [clone(m) for m in self._members()]
        for m in members:
            m._check_params()
        super()._fit(X)
        for m in members:
            m.n_features_in_ = self.n_features_in_
        self.mechanisms_ = members
        self._validate_design()
        return self

    def _members(self) -> list:
        if hasattr(self, "mechanisms_"):
            return self.mechanisms_
        members = list(self.mechanisms or [])
        if not members or not all(
            isinstance(m, _BaseIntervalMechanism)
            and not isinstance(m, IntervalEnsemble)
            for m in members
        ):
            raise ValueError(
                "mechanisms must be a non-empty list of IntervalCaseI, IntervalCaseII "
                f"or IntervalMechanism instances; got {self.mechanisms!r}."
            )
        return members

    def _n_columns_hint(self) -> int:
        if hasattr(self, "n_features_in_"):
            return self.n_features_in_
        return max(m._n_columns_hint() for m in self._members())

    def _validate_design(self) -> None:
        for m in self._members():
            m._validate_design()

    def _n_anchors(self) -> int:
        return sum(m._n_anchors() for m in self._members())

    def _fixed_set(self) -> NDArray:
        parts = [m._fixed_set() for m in self._members()]
        parts = [p for p in parts if p.shape[0]]
        if not parts:
            return np.empty((0, 2))
        cells = np.vstack(parts)
        cells = cells[np.argsort(cells[:, 0])]
        merged = [cells[0].copy()]
        for low, high in cells[1:]:
            if low <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], high)
            else:
                merged.append(np.array([low, high]))
        return np.asarray(merged)

    def _components(self, rng, n: int, j: int) -> list[tuple[NDArray, tuple]]:
        return [c for m in self._members() for c in m._components(rng, n, j)]

    def _anchor_support(self, j: int) -> tuple[float, float]:
        sup = [m._anchor_support(j) for m in self._members()]
        return min(s[0] for s in sup), max(s[1] for s in sup)

    def _value_support(self, j: int) -> tuple[float, float]:
        # the values lie where every member declares they can
        sup = [m._value_support(j) for m in self._members()]
        return max(s[0] for s in sup), min(s[1] for s in sup)

    def _anchor_distribution(self, j: int) -> AnchorDistribution:
        return self._members()[0]._anchor_distribution(j)

    def _standardization(self, j: int) -> tuple[float, float]:
        # The default reference population of privacy_summary follows the
        # first member's standardization.
        return self._members()[0]._standardization(j)

    @property
    def exact_cells(self):
        cells = []
        for m in self._members():
            own = getattr(m, "_exact_cells", None)
            if callable(own):
                cells += list(own())
            elif getattr(m, "exact_cells", None) is not None:
                cells += [int(c) for c in np.ravel(m.exact_cells)]
        return cells
