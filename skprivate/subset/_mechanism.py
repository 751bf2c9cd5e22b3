"""Subset mechanisms as transformers: raw categories in, 0/1 subset indicators out."""

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
from ..utils._dask import describe_collection, is_dask_collection
from ..utils._statistic import RowStatistic, reduce_rows
from ..utils._warnings import external_stacklevel
from ._design import SubsetDesign
from ._exact_laws import alone_probability, subset_exact_law
from ._leakage import subset_leakage

__all__ = ["SubsetMechanism", "SubsetUniform"]

DUMMY_NAMES = ("<dummy1>", "<dummy2>")
# Default dummy mass for 2- and 3-category columns (the value of Sec. V-C).
SMALL_COLUMN_ALPHA = 0.05


def _check_present(X: NDArray, names: list[str], first_row: int = 0) -> None:
    """Refuse a missing or infinite category, naming its column and row."""
    if X.dtype.kind in "fc" and np.isinf(X).any():
        row, col = np.argwhere(np.isinf(X))[0]
        raise ValueError(
            f"Column {names[col]!r} has an infinite value (inf) at row "
            f"{first_row + row}; categories must be finite."
        )
    missing = pd.isna(X)
    if missing.any():
        row, col = np.argwhere(missing)[0]
        raise ValueError(
            f"Column {names[col]!r} has a missing value (NaN/None) at "
            f"row {first_row + row}; subset privacy needs an actual category "
            "for every respondent."
        )


class _PresentCategories(RowStatistic):
    """Checks that every category is present, naming the row in the whole data."""

    def __init__(self, names: list[str]) -> None:
        self.names = names

    def block(self, rows: Any, first_row: int) -> None:
        X = np.asarray(rows)
        _check_present(X.reshape(len(X), -1), self.names, first_row)

    def merge(self, values: list) -> None:
        return None


class _BaseSubsetPrivatizer(PrivatizerMixin, BaseEstimator):
    """Shared machinery: categories, codes, product mechanism, feature names.

    Subclasses define ``_make_design(j, n_categories)``, the design of column
    ``j``.
    """

    # Releases are 0/1 indicators.
    _release_dtype = np.int8

    def _fit_summary(self) -> str | None:
        # categories="auto" reads each column's distinct values
        if isinstance(self.categories, str) and self.categories == "auto":
            return "distinct"
        return None

    def fit(self, X: ArrayLike, y: Any = None):
        """Learn the categories of each column and build its design.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Categorical columns (strings, integers or floats; no missing
            values).
        y : None
            Ignored.

        Returns
        -------
        self : object
        """
        if is_dask_collection(X) and self._fit_summary() == "distinct":
            # the distinct values are read by one reduction, which cannot
            # name the row of a missing value: check the partitions first
            n_cols, names = describe_collection(X)
            names = names or [f"x{j}" for j in range(n_cols)]
            reduce_rows(X, _PresentCategories([str(c) for c in names]))
        return super().fit(X, y)

    def _fit(self, X: ArrayLike, y: Any = None):
        self._check_params()
        X = self._validate(X, reset=True)
        given = self.categories
        if given != "auto" and len(given) != X.shape[1]:
            raise ValueError(
                f"categories must list one array per column ({X.shape[1]}); "
                f"got {len(given)}."
            )
        if given == "auto":
            warnings.warn(
                f"{type(self).__name__} was fitted with categories='auto', so the "
                "categories of each column were read from the data and are "
                "published in categories_ and the output column names, including "
                "a value held by a single respondent. Declare the categories "
                "known before seeing the data instead: categories=[[...], ...], "
                "one list per column.",
                PrivacyLeakWarning,
                stacklevel=external_stacklevel(),
            )
        cats = []
        for j in range(X.shape[1]):
            if given == "auto":
                try:
                    values = np.unique(X[:, j])
                except TypeError:
                    kinds = sorted({type(v).__name__ for v in X[:, j].tolist()})
                    raise TypeError(
                        f"Column {self._names()[j]!r} mixes values of types "
                        f"{kinds}, which have no order to list the categories in; "
                        "convert the column to one type (e.g. str) or declare "
                        "categories=[[...]] in the order wanted."
                    ) from None
            else:
                values = np.asarray(given[j])
                if values.dtype.kind in "US" and not all(
                    isinstance(v, str | bytes) for v in list(given[j])
                ):
                    # numpy turns [1, "a"] into strings; keep the values as given
                    values = np.asarray(list(given[j]), dtype=object)
                if values.dtype == np.float16:
                    # pandas has no float16 index; float64 holds every value
                    values = values.astype(np.float64)
                if pd.isna(values).any():
                    raise ValueError(
                        f"categories[{j}] contains a missing value; categories "
                        "must be actual values."
                    )
                if pd.Index(values).has_duplicates:
                    raise ValueError(f"categories[{j}] contains duplicates.")
            if values.size < 2:
                raise ValueError(
                    f"Column {self._names()[j]!r} has {values.size} category (from "
                    f"n_samples={X.shape[0]}); subset privacy needs at least 2 "
                    "categories (p = 1 leaves nothing to hide)."
                )
            cats.append(values)
        self.categories_ = cats
        self.designs_ = [self._make_design(j, c.size) for j, c in enumerate(cats)]
        if given != "auto" and self.handle_unknown == "error":
            self._codes(X)
        return self

    def _names(self) -> list[str]:
        if hasattr(self, "feature_names_in_"):
            return [str(c) for c in self.feature_names_in_]
        return [f"x{j}" for j in range(self.n_features_in_)]

    def _validate(self, X, reset):
        X = validate_data(self, X, reset=reset, dtype=None, ensure_all_finite=False)
        if X.dtype == np.float16:
            # pandas has no float16 index; float64 holds every value exactly
            X = X.astype(np.float64)
        _check_present(X, self._names())
        return X

    def _codes(self, X) -> NDArray[np.int64]:
        codes = np.empty(X.shape, dtype=np.int64)
        for j, cats in enumerate(self.categories_):
            codes[:, j] = pd.Index(cats).get_indexer(X[:, j])
            unknown = codes[:, j] < 0
            if unknown.any() and self.handle_unknown == "error":
                row = int(np.flatnonzero(unknown)[0])
                # the unknown value is raw data: named by its row, not shown;
                # declared categories are public, categories read from the
                # data are not listed again.  No count of such rows: a block
                # of a dask collection knows its own rows only, and the
                # message must be the one of the same rows in memory.
                if isinstance(self.categories, str):  # "auto"
                    known = f"the {len(cats)} categories were read from the data"
                else:
                    known = f"the declared categories are {np.asarray(cats).tolist()}"
                raise ValueError(
                    f"Found an unknown category in column {self._names()[j]!r} at "
                    f"row {row}: {known}. Set handle_unknown='ignore' to report "
                    "an all-zero row instead."
                )
        return codes

    def transform(self, X: ArrayLike) -> NDArray[np.int8]:
        """Replace each value by a random subset of categories containing it.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Categorical columns.

        Returns
        -------
        A : ndarray of int8, shape (n_samples, n_output_columns)
            0/1 indicators, one block per input column (see
            :meth:`get_feature_names_out`).  A column with dummy categories
            has two extra indicator columns; exactly one of them is set.
        """
        return super().transform(X)

    def _transform(self, X: ArrayLike) -> NDArray[np.int8]:
        check_is_fitted(self)
        X = self._validate(X, reset=False)
        codes = self._codes(X)
        rng = self._next_generator(X)
        blocks = []
        for j, design in enumerate(self.designs_):
            col = codes[:, j]
            known = col >= 0
            if design.has_dummies:
                # Dummy respondents (App. B): each row is replaced, with
                # probability alpha per dummy, by a dummy user; this is how
                # the dummies carry mass alpha each, as App. B states.
                u = rng.random(col.size)
                alpha = design.min_coverage
                p = design.n_categories
                col = np.where(u < alpha, p, np.where(u < 2 * alpha, p + 1, col))
                known = known | (col >= p)
            block = np.zeros((col.size, design.n_outputs), dtype=np.int8)
            rows = np.flatnonzero(known)
            block[rows] = design.sample(col[rows], rng)
            blocks.append(block)
        return np.hstack(blocks)

    def get_feature_names_out(self, input_features: ArrayLike | None = None):
        """Output names ``feature=category`` (dummies: ``feature=<dummy1>``).

        Parameters
        ----------
        input_features : array-like of str or None
            Input names; defaults to ``feature_names_in_`` or ``x0, x1, ...``.

        Returns
        -------
        names : ndarray of str
        """
        check_is_fitted(self)
        if input_features is None:
            names = self._names()
        else:
            names = [str(c) for c in input_features]
            if len(names) != self.n_features_in_:
                raise ValueError(
                    f"input_features should have length {self.n_features_in_}; "
                    f"got {len(names)}."
                )
            if hasattr(self, "feature_names_in_") and not np.array_equal(
                np.asarray(names, dtype=object), self.feature_names_in_
            ):
                raise ValueError("input_features is not equal to feature_names_in_")
        out = []
        for name, cats, design in zip(names, self.categories_, self.designs_):
            out.extend(f"{name}={c}" for c in cats)
            if design.has_dummies:
                out.extend(f"{name}={d}" for d in DUMMY_NAMES)
        return np.asarray(out, dtype=object)

    def _exact_law(self, column: int) -> Any:
        """Exact output law of ``column`` for :func:`skprivate.audit`."""
        check_is_fitted(self)
        return subset_exact_law(self, column)

    def privacy_summary(self, weights: Any = None) -> dict:
        """The privacy level of each column's design.

        Parameters
        ----------
        weights : array-like, list of array-like or None
            The category distribution of each column (one array when there
            is one column).  When given, the population leakages of
            Section II-B (size, mutual information, prediction) are added;
            they depend on the distribution, the design alone does not fix
            them.

        Returns
        -------
        summary : dict
            ``{"notion": "subset privacy", "columns": [...]}``; each column
            entry has the design kind, the number of categories, the
            coverage lower bound ``min_coverage`` (``None`` without dummies),
            ``alone_probability`` (the largest probability, over the
            categories, that a report is the category alone, naming it as
            it is; ``None`` for a design too large to enumerate) and, with
            ``weights``, the output of
            :func:`~skprivate.subset.subset_leakage`.  Also
            ``categories_from_data`` (True for ``categories="auto"``: the
            published categories were read from the data),
            ``unknown_disclosed`` (True for ``handle_unknown="ignore"``: a
            value outside the categories is reported as the all-zero block,
            coverage 0, which says exactly that it is unknown),
            ``reproducible`` and ``random_state_note`` (a seeded release is
            for simulation, not for release).
        """
        check_is_fitted(self)
        if weights is not None and len(self.designs_) == 1:
            flat = np.asarray(weights, dtype=object)
            if flat.ndim == 1 and flat.size == self.designs_[0].n_categories:
                weights = [np.asarray(weights, dtype=float)]
        if weights is not None and len(weights) != len(self.designs_):
            raise ValueError(
                f"weights must give one distribution per column "
                f"({len(self.designs_)}); got {len(weights)}."
            )
        columns = []
        for j, design in enumerate(self.designs_):
            entry = {
                "feature": self._names()[j],
                "n_categories": design.n_categories,
                "design": design.kind,
                "min_coverage": design.min_coverage,
                "alone_probability": alone_probability(design),
            }
            if weights is not None:
                entry["leakage"] = subset_leakage(design, weights[j])
            columns.append(entry)
        return {
            "notion": "subset privacy",
            "columns": columns,
            # categories="auto": the published names are the data's values
            "categories_from_data": isinstance(self.categories, str),
            # handle_unknown="ignore": an unknown value leaves as the
            # all-zero block, which no known value produces
            "unknown_disclosed": self.handle_unknown == "ignore",
            **self._release_policy(),
        }

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.categorical = True
        tags.input_tags.string = True
        tags.input_tags.allow_nan = False
        tags.transformer_tags.preserves_dtype = []
        return tags


class SubsetUniform(_BaseSubsetPrivatizer):
    """Subset privacy with the uniform independent design (Definition 4).

    Each categorical value ``x`` becomes a random subset of the categories
    that contains ``x``: a subset ``Ã`` is drawn uniformly among those of
    size ``2..p-2``, independently of ``x``, and the report is ``Ã`` if it
    contains ``x`` and its complement otherwise.  The report is written as
    0/1 indicator columns in the style of
    :class:`~sklearn.preprocessing.OneHotEncoder`.  Several columns are
    privatized independently (the product mechanism, Definition 8).

    Columns with 2 or 3 categories use the dummy-category construction of
    Appendix C (subsets of size ``1..p-1`` plus one of two dummy
    categories); ``min_coverage`` (``alpha``) adds the dummies of Appendix B
    to every column, guaranteeing that each report covers at least
    ``alpha`` of the population.  Dummy respondents are simulated by
    replacing each row, with probability ``alpha`` per dummy, by a dummy
    user; their reports are indistinguishable from real ones.

    Parameters
    ----------
    categories : "auto" or list of array-like
        Categories of each column, declared before seeing the data (one
        array per column).  ``"auto"`` takes the sorted distinct values seen
        in ``fit`` with a :class:`~skprivate.exceptions.PrivacyLeakWarning`:
        the published category list then reveals every value present,
        including one held by a single respondent.
    min_coverage : float in (0, 0.5) or None
        ``alpha`` of Appendix B.  ``None`` means no dummies for columns with
        at least 4 categories and ``alpha = 0.05`` (the paper's value) for
        columns with 2 or 3.
    handle_unknown : {"error", "ignore"}
        What to do with a category not seen in ``fit``: raise, or report an
        all-zero block (which reveals that the value was unknown).
    random_state : int, Generator, RandomState or None
        Source of randomness of :meth:`transform`.

    Attributes
    ----------
    categories_ : list of ndarray
        Categories of each column.
    designs_ : list of SubsetDesign
        The design of each column (the public description of the mechanism
        that estimators need).
    n_features_in_ : int
        Number of input columns.
    feature_names_in_ : ndarray of str
        Input column names (pandas input only).

    See Also
    --------
    SubsetMechanism : any independent or conditional design.
    SubsetDistributionEstimator : estimate the category distribution.

    References
    ----------
    Wang, G. and Ding, J. "Subset Privacy: Draw from an Obfuscated Urn",
    Definitions 3, 4 and 8, Appendices B and C.

    Examples
    --------
    >>> import pandas as pd
    >>> from skprivate.subset import SubsetUniform
    >>> X = pd.DataFrame({"race": ["White", "Black", "Asian", "Other", "White"]})
    >>> races = ["Asian", "Black", "Other", "White"]
    >>> mech = SubsetUniform(categories=[races], random_state=0).fit(X)
    >>> list(mech.get_feature_names_out())
    ['race=Asian', 'race=Black', 'race=Other', 'race=White']
    >>> A = mech.transform(X)
    >>> A.sum(axis=1)
    array([2, 2, 2, 2, 2])
    >>> bool(
    ...     all(A[i, list(mech.categories_[0]).index(v)] for i, v in enumerate(X.race))
    ... )
    True
    """

    _parameter_constraints: ClassVar[dict] = {
        "categories": [Options({"auto"}), list],
        "min_coverage": [None, Interval(numbers.Real, 0, 0.5, closed="neither")],
        "handle_unknown": [Options({"error", "ignore"})],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        categories: str | list = "auto",
        min_coverage: float | None = None,
        handle_unknown: str = "error",
        random_state: Any = None,
    ) -> None:
        self.categories = categories
        self.min_coverage = min_coverage
        self.handle_unknown = handle_unknown
        self.random_state = random_state

    def _make_design(self, j, n_categories):
        alpha = self.min_coverage
        if alpha is None and n_categories < 4:
            alpha = SMALL_COLUMN_ALPHA
        return SubsetDesign.uniform(
            n_categories, None if alpha is None else float(alpha)
        )


class SubsetMechanism(_BaseSubsetPrivatizer):
    """Subset privacy with any independent or conditional design.

    Parameters
    ----------
    design : SubsetDesign, list of SubsetDesign or None
        The design of every column, or one per column (the product
        mechanism).  ``None`` means the uniform design.  A design fixes the
        number of categories: each column must have exactly that many.
    categories : "auto" or list of array-like
        Categories of each column, in the order of the design's indicator
        columns; ``"auto"`` takes the sorted distinct values seen in ``fit``
        with a :class:`~skprivate.exceptions.PrivacyLeakWarning` (declare
        them to publish no value read from the data).
    handle_unknown : {"error", "ignore"}
        What to do with a category not seen in ``fit``.
    random_state : int, Generator, RandomState or None
        Source of randomness of :meth:`transform`.

    Attributes
    ----------
    categories_ : list of ndarray
        Categories of each column.
    designs_ : list of SubsetDesign
        The design of each column.
    n_features_in_ : int
        Number of input columns.

    See Also
    --------
    SubsetDesign : build and validate a design.
    SubsetUniform : the uniform design with automatic dummies.

    References
    ----------
    Wang, G. and Ding, J. "Subset Privacy: Draw from an Obfuscated Urn",
    Definitions 2, 3 and 8.

    Examples
    --------
    >>> import numpy as np
    >>> from skprivate.subset import SubsetDesign, SubsetMechanism
    >>> pairs = np.array(
    ...     [
    ...         [1, 1, 0, 0],
    ...         [0, 0, 1, 1],
    ...         [1, 0, 1, 0],
    ...         [0, 1, 0, 1],
    ...         [1, 0, 0, 1],
    ...         [0, 1, 1, 0],
    ...     ]
    ... )
    >>> design = SubsetDesign.independent(pairs, [0.3, 0.3, 0.1, 0.1, 0.1, 0.1])
    >>> X = np.array([["a"], ["b"], ["c"], ["d"]])
    >>> cats = [["a", "b", "c", "d"]]
    >>> mech = SubsetMechanism(design, categories=cats, random_state=0)
    >>> A = mech.fit_transform(X)
    >>> A.shape, bool(np.all(A[np.arange(4), np.arange(4)] == 1))
    ((4, 4), True)
    """

    _parameter_constraints: ClassVar[dict] = {
        "design": [None, SubsetDesign, list],
        "categories": [Options({"auto"}), list],
        "handle_unknown": [Options({"error", "ignore"})],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        design: SubsetDesign | list | None = None,
        categories: str | list = "auto",
        handle_unknown: str = "error",
        random_state: Any = None,
    ) -> None:
        self.design = design
        self.categories = categories
        self.handle_unknown = handle_unknown
        self.random_state = random_state

    def _make_design(self, j, n_categories):
        design = self.design
        if isinstance(design, list):
            if len(design) != self.n_features_in_:
                raise ValueError(
                    f"design lists {len(design)} designs for {self.n_features_in_} "
                    "columns; give one per column or a single design."
                )
            design = design[j]
            if not isinstance(design, SubsetDesign):
                raise TypeError(f"design[{j}] must be a SubsetDesign.")
        if design is None:
            alpha = SMALL_COLUMN_ALPHA if n_categories < 4 else None
            return SubsetDesign.uniform(n_categories, alpha)
        if design.n_categories != n_categories:
            raise ValueError(
                f"Column {self._names()[j]!r} has {n_categories} categories but "
                f"its design has n_categories={design.n_categories}."
            )
        return design
