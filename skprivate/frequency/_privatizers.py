"""Frequency oracles as transformers: categories in, epsilon-LDP reports out."""

from __future__ import annotations

import numbers
import warnings
from typing import Any, ClassVar

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted, validate_data

from ..base import PrivatizerMixin
from ..exceptions import PrivacyLeakWarning
from ..utils import Interval, Options
from ..utils._budget import budget_share
from ..utils._dask import describe_collection, is_dask_collection
from ..utils._statistic import RowStatistic, reduce_rows
from ..utils._warnings import external_stacklevel
from ._coins import MIN_EPSILON
from ._laws import frequency_exact_law
from ._oracles import ORACLE_KINDS, choose_oracle, make_oracle

__all__ = [
    "BinaryLocalHashing",
    "FrequencyOracle",
    "GeneralizedRandomizedResponse",
    "HadamardResponse",
    "OptimizedLocalHashing",
    "OptimizedUnaryEncoding",
    "SymmetricUnaryEncoding",
]

_COMMON_CONSTRAINTS: dict = {
    "epsilon": [Interval(numbers.Real, 0, None, closed="neither")],
    "categories": [Options({"auto"}), list],
    "handle_unknown": [Options({"error", "ignore"})],
    "random_state": ["random_state"],
}


def _check_present(values: NDArray, name: str, first_row: int = 0) -> None:
    """Refuse a missing value, naming its column and row."""
    missing = pd.isna(values)
    if missing.any():
        row = int(np.flatnonzero(missing)[0])
        raise ValueError(
            f"Column {name!r} has a missing value (NaN/None) at row "
            f"{first_row + row}; a frequency oracle needs a category for every "
            "respondent."
        )


def _column_codes(
    values: NDArray, cats: NDArray, name: str, declared: bool, refuse: bool
) -> NDArray[np.int64]:
    """Codes of a column's values (-1 for an unknown value unless refused).

    A missing value, and an unknown one with ``refuse``, is named by its
    row; the value itself is never shown.  Declared categories are public
    and listed; categories read from the data are not.
    """
    _check_present(values, name)
    codes = pd.Index(cats).get_indexer(values)
    unknown = codes < 0
    if refuse and unknown.any():
        row = int(np.flatnonzero(unknown)[0])
        if declared:
            known = f"the declared categories are {np.asarray(cats).tolist()}"
        else:
            known = f"the {len(cats)} categories were read from the data"
        raise ValueError(
            f"Found an unknown category in column {name!r} at row {row}: {known}. "
            "Set handle_unknown='ignore' to release such a value as a uniformly "
            "drawn category."
        )
    return codes.astype(np.int64)


class _PresentValues(RowStatistic):
    """Refuses a missing value, naming its row in the whole data."""

    def __init__(self, names: list[str]) -> None:
        self.names = names

    def block(self, rows: Any, first_row: int) -> None:
        X = np.asarray(rows).reshape(len(rows), -1)
        for j, name in enumerate(self.names):
            _check_present(X[:, j], name, first_row)

    def merge(self, values: list) -> None:
        return None


class _FrequencyPrivatizer(PrivatizerMixin, BaseEstimator):
    """Categories, codes, one oracle per column, the per-record budget split."""

    _release_dtype = np.int64
    _parameter_constraints: ClassVar[dict] = dict(_COMMON_CONSTRAINTS)
    _kind = ""

    def __init__(
        self,
        epsilon: float = 1.0,
        categories: str | list = "auto",
        handle_unknown: str = "error",
        random_state: Any = None,
    ) -> None:
        self.epsilon = epsilon
        self.categories = categories
        self.handle_unknown = handle_unknown
        self.random_state = random_state

    def _fit_summary(self) -> str | None:
        if isinstance(self.categories, str):  # "auto" reads distinct values
            return "distinct"
        return None

    def _oracle_kind(self, n_categories: int, epsilon: float) -> str:
        return self._kind

    def fit(self, X: ArrayLike, y: Any = None):
        """Learn the categories of each column and set up its oracle.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Categorical columns (no missing values).
        y : None
            Ignored.

        Returns
        -------
        self : object
        """
        if is_dask_collection(X) and isinstance(self.categories, str):
            # the distinct values are read by one reduction, which cannot
            # name the row of a missing value: check the partitions first
            n_cols, names = describe_collection(X)
            if names is None:
                names = [f"x{j}" for j in range(n_cols)]
            reduce_rows(X, _PresentValues([str(c) for c in names]))
        return super().fit(X, y)

    def _fit(self, X: ArrayLike, y: Any = None):
        self._check_params()
        X = self._validate(X, reset=True)
        given = self.categories
        auto = isinstance(given, str)
        if not auto and len(given) != X.shape[1]:
            raise ValueError(
                f"categories must list one array per column ({X.shape[1]}); "
                f"got {len(given)}."
            )
        if auto:
            warnings.warn(
                f"{type(self).__name__} was fitted with categories='auto', so the "
                "categories of each column were read from the data and are "
                "published in categories_ and the output, including a value held "
                "by a single respondent. Declare the categories known before "
                "seeing the data instead: categories=[[...], ...], one list per "
                "column.",
                PrivacyLeakWarning,
                stacklevel=external_stacklevel(),
            )
        names = self._names()
        cats = []
        for j in range(X.shape[1]):
            if auto:
                column = X[:, j]
                _check_present(column, names[j])
                try:
                    values = np.unique(column)
                except TypeError:
                    raise TypeError(
                        f"Column {names[j]!r} mixes values of several types, which "
                        "have no order to list the categories in; convert it to one "
                        "type or declare categories=[[...]]."
                    ) from None
            else:
                values = np.asarray(list(given[j]), dtype=object)
                if pd.isna(values).any():
                    raise ValueError(f"categories[{j}] contains a missing value.")
                if pd.Index(values).has_duplicates:
                    raise ValueError(f"categories[{j}] contains duplicates.")
            if values.size < 2:
                raise ValueError(
                    f"Column {names[j]!r} has {values.size} category (from "
                    f"n_samples={X.shape[0]}); a frequency oracle needs at least 2."
                )
            cats.append(values)
        self.categories_ = cats
        eps = self._epsilon_per_feature
        if eps < MIN_EPSILON:
            raise ValueError(
                f"epsilon per column is {eps:.3g} (epsilon={self.epsilon!r} over "
                f"{X.shape[1]} columns); the exact coins are set up for at least "
                f"{MIN_EPSILON:g} per column."
            )
        self.oracles_ = [
            make_oracle(self._oracle_kind(c.size, eps), c.size, eps) for c in cats
        ]
        if not auto and self.handle_unknown == "error":
            self._codes(X)
        return self

    @property
    def _epsilon_per_feature(self) -> float:
        return budget_share(self.epsilon, self.n_features_in_)

    def _names(self) -> list[str]:
        if hasattr(self, "feature_names_in_"):
            return [str(c) for c in self.feature_names_in_]
        return [f"x{j}" for j in range(self.n_features_in_)]

    def _validate(self, X, reset):
        X = validate_data(self, X, reset=reset, dtype=None, ensure_all_finite=False)
        if X.dtype.kind in "fc" and np.isinf(X).any():
            row, col = np.argwhere(np.isinf(X))[0]
            raise ValueError(
                f"Column {self._names()[col]!r} has an infinite value at row {row}; "
                "categories must be finite."
            )
        return X

    def _codes(self, X) -> NDArray[np.int64]:
        names = self._names()
        declared = not isinstance(self.categories, str)
        refuse = self.handle_unknown == "error"
        return np.column_stack(
            [
                _column_codes(X[:, j], cats, names[j], declared, refuse)
                for j, cats in enumerate(self.categories_)
            ]
        )

    def transform(self, X: ArrayLike) -> NDArray[np.int64]:
        """Release each value through its column's oracle, with fresh noise.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Categorical columns.

        Returns
        -------
        reports : ndarray of int64, shape (n_samples, n_output_columns)
            One block of report columns per input column (see
            :meth:`get_feature_names_out`).
        """
        return super().transform(X)

    def _transform(self, X: ArrayLike) -> NDArray[np.int64]:
        check_is_fitted(self)
        X = self._validate(X, reset=False)
        codes = self._codes(X)
        rng = self._next_generator(X)
        unknown = codes < 0
        if unknown.any():
            # an unknown value is released as a uniformly drawn category: its
            # report law is the average of the categories' laws, so the loss
            # against any category stays within epsilon
            sizes = np.array([c.size for c in self.categories_])
            rows, cols = np.nonzero(unknown)
            codes[rows, cols] = rng.integers(0, sizes[cols])
        blocks = [
            oracle.sample(codes[:, j], rng).astype(np.int64)
            for j, oracle in enumerate(self.oracles_)
        ]
        return np.hstack(blocks)

    def _input_names(self, input_features: ArrayLike | None) -> list:
        """The names of the input columns, checked against ``n_features_in_``."""
        check_is_fitted(self)
        names = self._names() if input_features is None else list(input_features)
        if len(names) != self.n_features_in_:
            raise ValueError(
                f"input_features should have length {self.n_features_in_}; "
                f"got {len(names)}."
            )
        return names

    def get_feature_names_out(self, input_features: ArrayLike | None = None):
        """Names of the report columns.

        k-RR: ``feature`` (the reported category's code in ``categories_``);
        unary encoding: ``feature=category`` bits; local hashing:
        ``feature_seed`` and ``feature_hash``; Hadamard response:
        ``feature_hadamard``.

        Parameters
        ----------
        input_features : array-like of str or None
            Input names; defaults to ``feature_names_in_`` or ``x0, x1, ...``.

        Returns
        -------
        names : ndarray of str
        """
        names = self._input_names(input_features)
        out = []
        for name, cats, oracle in zip(names, self.categories_, self.oracles_):
            out.extend(oracle.output_names(str(name), [str(c) for c in cats]))
        return np.asarray(out, dtype=object)

    def _exact_law(self, column: int) -> Any:
        """Exact output law of ``column`` for :func:`skprivate.audit`."""
        check_is_fitted(self)
        return frequency_exact_law(self, column)

    def privacy_summary(self) -> dict[str, Any]:
        """Pure epsilon-LDP, split equally over the columns.

        Returns
        -------
        summary : dict
            ``notion``, ``epsilon`` (one record), ``epsilon_per_feature``,
            ``realised_epsilon_per_feature`` (the exact loss of the realised
            coins, at most the claim), ``floating_point_safe`` (True: every
            coin is an integer comparison), ``columns`` (each column's
            oracle, ``p_star``, ``q_star`` and, for local hashing, the
            public hash family), ``categories_from_data`` (True for
            ``categories="auto"``: the published categories were read from
            the data) and the ``reproducible`` entries.
        """
        check_is_fitted(self)
        policy = self._release_policy()
        columns = []
        for name, oracle in zip(self._names(), self.oracles_):
            columns.append({"feature": name, **oracle.summary()})
        return {
            "notion": "epsilon-LDP (frequency oracle)",
            "epsilon": float(self.epsilon),
            # the nominal share; the coins are set up for budget_share, at most it
            "epsilon_per_feature": float(self.epsilon) / self.n_features_in_,
            "realised_epsilon_per_feature": [o.realised_epsilon for o in self.oracles_],
            "floating_point_safe": True,
            "oracles": columns,
            # categories="auto": the published names are the data's values
            "categories_from_data": isinstance(self.categories, str),
            **policy,
        }

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.categorical = True
        tags.input_tags.string = True
        tags.input_tags.allow_nan = False
        tags.transformer_tags.preserves_dtype = []
        return tags


_PARAMETERS = """
    Parameters
    ----------
    epsilon : float, default=1.0
        Privacy-loss bound of one record (all columns together, split
        equally), ``> 0``.
    categories : "auto" or list of array-like, default="auto"
        Categories of each column, declared before seeing the data.
        ``"auto"`` reads the sorted distinct values in ``fit`` with a
        :class:`~skprivate.exceptions.PrivacyLeakWarning`: the published
        list then reveals every value present.
    handle_unknown : {"error", "ignore"}, default="error"
        A value outside the categories is refused (naming its column and
        row), or released as a category drawn uniformly, whose report law is
        the average of the categories' laws (so within ``epsilon`` of each).
    random_state : int, Generator, RandomState or None, default=None
        ``None`` for a real release (fresh entropy on every call); an int
        for simulations (see :class:`~skprivate.base.PrivatizerMixin`).

    Attributes
    ----------
    categories_ : list of ndarray
        Categories of each column (codes index them).
    oracles_ : list of oracle objects
        Each column's oracle: the public description the estimators read.
    n_features_in_ : int
        Number of input columns.
"""


def _doc(text: str) -> str:
    rest = _PARAMETERS.strip("\n").split("\n", 2)[2]  # without the heading
    return text.replace("%(parameters)s", _PARAMETERS.strip("\n")).replace(
        "%(rest)s", rest
    )


class GeneralizedRandomizedResponse(_FrequencyPrivatizer):
    __doc__ = _doc(
        """Generalized randomized response (k-RR, direct encoding).

    Each value is kept with probability ``p = e**eps / (e**eps + k - 1)``
    and otherwise replaced by one of the ``k - 1`` other categories chosen
    uniformly; the report is the code of the reported category.  Best for
    few categories (``k < 3 e**eps + 2``).  Probabilities are dyadic
    rationals rounded so the loss never exceeds ``epsilon``.

%(parameters)s
    References
    ----------
    Wang, Blocki, Li and Jha, "Locally Differentially Private Protocols
    for Frequency Estimation", USENIX Security 2017 (direct encoding).

    Examples
    --------
    >>> import numpy as np
    >>> from skprivate.frequency import GeneralizedRandomizedResponse
    >>> X = np.array([["a"], ["b"], ["c"], ["a"]])
    >>> krr = GeneralizedRandomizedResponse(
    ...     epsilon=2.0, categories=[["a", "b", "c"]], random_state=0
    ... )
    >>> reports = krr.fit_transform(X)
    >>> reports.shape, bool(set(reports.ravel()) <= {0, 1, 2})
    ((4, 1), True)
    """
    )

    _kind = "krr"


class SymmetricUnaryEncoding(_FrequencyPrivatizer):
    __doc__ = _doc(
        """Symmetric unary encoding (SUE, basic one-time RAPPOR).

    Each value becomes ``k`` bits, 1 at its category; every bit is kept
    with probability ``e**(eps/2) / (e**(eps/2) + 1)`` and flipped
    otherwise.

%(parameters)s
    Examples
    --------
    >>> import numpy as np
    >>> from skprivate.frequency import SymmetricUnaryEncoding
    >>> sue = SymmetricUnaryEncoding(epsilon=1.0, categories=[[0, 1, 2]])
    >>> sue.fit_transform(np.array([[0], [2]])).shape
    (2, 3)
    """
    )

    _kind = "sue"


class OptimizedUnaryEncoding(_FrequencyPrivatizer):
    __doc__ = _doc(
        """Optimized unary encoding (OUE).

    Each value becomes ``k`` bits; its own bit is 1 with probability 1/2,
    every other bit with probability ``1 / (e**eps + 1)``.  The variance
    does not grow with ``k``: the choice for many categories.

%(parameters)s
    Examples
    --------
    >>> import numpy as np
    >>> from skprivate.frequency import OptimizedUnaryEncoding
    >>> oue = OptimizedUnaryEncoding(epsilon=1.0, categories=[[0, 1, 2, 3]])
    >>> oue.fit_transform(np.array([[0], [3]])).shape
    (2, 4)
    """
    )

    _kind = "oue"


class OptimizedLocalHashing(_FrequencyPrivatizer):
    __doc__ = _doc(
        """Optimized local hashing (OLH).

    Each respondent draws a public seed ``s`` of a universal hash family,
    hashes the value to ``g = round(e**eps) + 1`` buckets and reports the
    seed with the bucket after ``g``-ary randomized response.  The family
    is ``((a x + b) mod P) mod g`` with ``a = 1 + s // P``, ``b = s % P``
    for the smallest prime ``P >= max(k, g)`` (``oracles_[j].prime``): the
    seed is part of the report, never secret.  The estimators use the
    family's exact collision probability.

%(parameters)s
    Examples
    --------
    >>> import numpy as np
    >>> from skprivate.frequency import OptimizedLocalHashing
    >>> olh = OptimizedLocalHashing(epsilon=1.0, categories=[list(range(10))])
    >>> reports = olh.fit_transform(np.arange(10).reshape(-1, 1))
    >>> list(olh.get_feature_names_out())
    ['x0_seed', 'x0_hash']
    """
    )

    _kind = "olh"


class BinaryLocalHashing(_FrequencyPrivatizer):
    __doc__ = _doc(
        """Binary local hashing (BLH): local hashing to two buckets.

    As :class:`OptimizedLocalHashing` with ``g = 2``.

%(parameters)s
    Examples
    --------
    >>> import numpy as np
    >>> from skprivate.frequency import BinaryLocalHashing
    >>> blh = BinaryLocalHashing(epsilon=1.0, categories=[list(range(5))])
    >>> reports = blh.fit_transform(np.arange(5).reshape(-1, 1))
    >>> bool(set(reports[:, 1]) <= {0, 1})
    True
    """
    )

    _kind = "blh"


class HadamardResponse(_FrequencyPrivatizer):
    __doc__ = _doc(
        """Hadamard response (HR).

    With ``K`` the smallest power of two above ``k``, category ``x`` owns
    the half ``C_x`` of ``{0..K-1}`` where row ``x + 1`` of the Sylvester
    Hadamard matrix is +1; the report is an index uniform in ``C_x`` with
    probability ``e**eps / (e**eps + 1)``, else uniform in its complement.
    One integer per report, estimation by a fast Walsh-Hadamard transform.

%(parameters)s
    References
    ----------
    Acharya, Sun and Zhang, "Hadamard Response: Estimating Distributions
    Privately, Efficiently, and with Little Communication", AISTATS 2019.

    Examples
    --------
    >>> import numpy as np
    >>> from skprivate.frequency import HadamardResponse
    >>> hr = HadamardResponse(epsilon=1.0, categories=[list("abc")])
    >>> reports = hr.fit_transform(np.array([["a"], ["c"]]))
    >>> bool(((0 <= reports) & (reports < 4)).all())
    True
    """
    )

    _kind = "hr"


class FrequencyOracle(_FrequencyPrivatizer):
    __doc__ = _doc(
        """The frequency oracle of lowest variance, or the one named.

    With ``oracle="auto"`` each column uses k-RR when
    ``k < 3 e**eps + 2`` (its variance is then the smaller) and OUE
    otherwise, ``eps`` being the column's share of the budget.

    Parameters
    ----------
    oracle : {"auto", "krr", "sue", "oue", "olh", "blh", "hr"}, default="auto"
        The oracle of every column.
%(rest)s
    Examples
    --------
    >>> import numpy as np
    >>> from skprivate.frequency import FrequencyOracle
    >>> fo = FrequencyOracle(epsilon=1.0, categories=[list(range(3)), list(range(40))])
    >>> fo.fit(np.array([[0, 0], [1, 39]]))
    FrequencyOracle(categories=[[0, 1, 2], [0, 1, 2, ...]])
    >>> [o.kind for o in fo.oracles_]
    ['krr', 'oue']
    """
    )

    _parameter_constraints: ClassVar[dict] = {
        **_COMMON_CONSTRAINTS,
        "oracle": [Options({"auto", *ORACLE_KINDS})],
    }

    def __init__(
        self,
        oracle: str = "auto",
        epsilon: float = 1.0,
        categories: str | list = "auto",
        handle_unknown: str = "error",
        random_state: Any = None,
    ) -> None:
        self.oracle = oracle
        self.epsilon = epsilon
        self.categories = categories
        self.handle_unknown = handle_unknown
        self.random_state = random_state

    def _oracle_kind(self, n_categories: int, epsilon: float) -> str:
        if self.oracle == "auto":
            return choose_oracle(n_categories, epsilon)
        return self.oracle
