"""Estimating a category distribution from subset reports (Section III)."""

from __future__ import annotations

import numbers
import warnings
from typing import Any, ClassVar

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray
from sklearn.base import BaseEstimator, clone
from sklearn.utils import check_array
from sklearn.utils.validation import check_is_fitted, validate_data

from ..base import (
    ParamsValidationMixin,
    PrivatizedInputMixin,
    SufficientStatisticMixin,
)
from ..distributions import (
    DiscreteDistribution,
    PopulationEstimateMixin,
    mean_log_pmf_of_categories,
)
from ..utils import HasMethods, Interval, Options, check_generator, validate_params
from ..utils._dask import is_dask_collection
from ..utils._redact import raw_values_withheld
from ..utils._statistic import RowStatistic, validate_rows
from ..utils._warnings import external_stacklevel
from . import _fitting as fitting
from ._design import SubsetDesign, indicators_to_masks
from ._intervals import SubsetIntervalsMixin
from ._reports import check_reports_block, check_reports_shape, check_subset_data

__all__ = ["SubsetDistributionEstimator"]


# Rows validated and counted at a time: memory of a fit is the distinct
# subsets plus temporaries of this many rows, whatever the number of rows.
CHUNK_ROWS = 65_536


def _report_rows(data):
    """The reports a privatizer released, as rows the statistic counts.

    An in-memory release becomes an array (its column names are the
    privatizer's outputs, not the learner's input); a dask collection stays
    lazy and is checked block by block.
    """
    if is_dask_collection(data):
        return data
    with raw_values_withheld():
        return check_array(data, dtype=None, ensure_all_finite=False)


def _pack(ind: NDArray[np.bool_]) -> NDArray:
    """One sortable key per 0/1 row: its bits packed into bytes.

    Up to 64 columns the key is a uint64 (on a little-endian machine, the
    bitmask of the row); beyond, a fixed-width byte string.
    """
    packed = np.packbits(ind, axis=1, bitorder="little")
    width = -(-packed.shape[1] // 8) * 8
    if width != packed.shape[1]:
        packed = np.pad(packed, ((0, 0), (0, width - packed.shape[1])))
    if width == 8:
        return np.ascontiguousarray(packed).view(np.uint64)[:, 0]
    return np.ascontiguousarray(packed).view(np.dtype((np.void, width)))[:, 0]


def _unpack(keys: NDArray, p: int) -> NDArray[np.int8]:
    """0/1 rows (int8) of keys made by :func:`_pack`."""
    if keys.size == 0:
        return np.zeros((0, p), dtype=np.int8)
    raw = np.ascontiguousarray(keys).view(np.uint8).reshape(keys.size, -1)
    return np.unpackbits(raw, axis=1, count=p, bitorder="little").view(np.int8)


class SubsetCounter:
    """Counts of distinct subsets, accumulated block by block.

    Keys of a block are reduced with :func:`numpy.unique`; the reduced
    blocks are merged into the running counts whenever they hold more keys
    than the counts (and at the end), so the memory is proportional to the
    number of distinct subsets plus one block, and the total work to
    ``n log k``.
    """

    def __init__(self, p: int) -> None:
        self.p = p
        self.n_unknown = 0
        self._keys = None
        self._counts = None
        self._pending: list[tuple[NDArray, NDArray]] = []
        self._n_pending = 0

    def add(self, ind: NDArray[np.bool_], weights=None) -> None:
        keys, inverse = np.unique(_pack(ind), return_inverse=True)
        counts = np.bincount(inverse.ravel(), weights=weights, minlength=keys.size)
        self._pending.append((keys, counts.astype(float)))
        self._n_pending += keys.size
        held = 0 if self._keys is None else self._keys.size
        if self._n_pending > max(held, CHUNK_ROWS):
            self._merge()

    def add_rows(self, rows, counts) -> None:
        """Add already counted 0/1 rows."""
        self.add(np.asarray(rows, dtype=bool), np.asarray(counts, dtype=float))

    @classmethod
    def merged(cls, counters: list[SubsetCounter]) -> SubsetCounter:
        """One counter holding the counts (and unknown rows) of ``counters``."""
        out = cls(counters[0].p)
        for counter in counters:
            rows, counts = counter.result()
            if counts.size:
                out.add_rows(rows, counts)
            out.n_unknown += counter.n_unknown
        return out

    def _merge(self) -> None:
        parts = self._pending
        if self._keys is not None:
            parts = [(self._keys, self._counts), *parts]
        if not parts:
            return
        if len(parts) == 1:
            self._keys, self._counts = parts[0]
        else:
            keys, inverse = np.unique(
                np.concatenate([k for k, _ in parts]), return_inverse=True
            )
            weights = np.concatenate([c for _, c in parts])
            self._counts = np.bincount(
                inverse.ravel(), weights=weights, minlength=keys.size
            )
            self._keys = keys
        self._pending = []
        self._n_pending = 0

    def result(self) -> tuple[NDArray[np.int8], NDArray[np.float64]]:
        """Distinct rows (int8, in key order) and their counts."""
        self._merge()
        if self._keys is None:
            return np.zeros((0, self.p), dtype=np.int8), np.zeros(0)
        return _unpack(self._keys, self.p), self._counts


def count_subsets(ind: NDArray[np.bool_], weights=None):
    """Distinct rows and how often they occur (the sufficient statistic)."""
    ind = np.asarray(ind)
    counter = SubsetCounter(ind.shape[1])
    for start in range(0, ind.shape[0], CHUNK_ROWS):
        stop = start + CHUNK_ROWS
        counter.add(
            ind[start:stop].astype(bool, copy=False),
            None if weights is None else weights[start:stop],
        )
    return counter.result()


def warn_unknown_rows(n_unknown: int, n_rows: int, n_known: float) -> None:
    """Warn about all-zero report rows; refuse when no row is left."""
    if n_unknown:
        warnings.warn(
            f"{n_unknown} of {n_rows} rows of A are all zero (the "
            "report of SubsetUniform(handle_unknown='ignore') for a value "
            "outside the categories); they are left out, and distribution_ "
            "is the distribution among respondents with a known category. "
            "Their total is in n_unknown_.",
            UserWarning,
            stacklevel=external_stacklevel(),
        )
    if n_known == 0:
        raise ValueError(
            "Every row of A is all zero (unknown categories); there is no "
            "report to estimate the distribution from."
        )


def count_reports(
    A: Any,
    design: SubsetDesign,
    name: str = "A",
    counter=None,
    skip_unknown: bool = False,
    first_row: int = 0,
):
    """Validate reports and count their distinct subsets in one pass.

    ``A`` is read ``CHUNK_ROWS`` rows at a time, so no copy of it is made.
    With ``skip_unknown``, all-zero rows are left out and counted in the
    counter's ``n_unknown``.  Errors name rows from ``first_row`` on (``A``
    a block of more reports).

    Returns
    -------
    counter : SubsetCounter
        ``counter`` (or a new one) with the subsets of ``A`` added.
    """
    A = np.asarray(A)
    check_reports_shape(A, design, name)
    if counter is None:
        counter = SubsetCounter(design.n_categories)
    for start in range(0, A.shape[0], CHUNK_ROWS):
        block = A[start : start + CHUNK_ROWS]
        if skip_unknown:
            ind, n_unknown = check_reports_block(
                block, design, name, first_row + start, True
            )
            counter.n_unknown += n_unknown
        else:
            ind = check_reports_block(block, design, name, first_row + start)
        counter.add(ind)
    return counter


def resolve_design(
    design: Any,
    n_columns: int,
    *,
    name: str = "design",
    feature_names: Any = None,
    reports: Any = None,
):
    """A SubsetDesign and category labels from a design argument.

    ``design`` is ``None`` (the uniform design on ``n_columns``
    categories), a :class:`SubsetDesign` (labels ``0..p-1``), a fitted
    :class:`SubsetUniform`/:class:`SubsetMechanism` (its design and
    categories) or an unfitted one, whose mechanism is rebuilt from what is
    public: the categories it declares, else the categories named by the
    report columns ``feature=category`` (``feature_names``), else the
    number of report columns (labels ``0..p-1``), ``reports`` ruling out a
    candidate design that never produces one of them.
    """
    from ._mechanism import _BaseSubsetPrivatizer

    if design is None:
        if n_columns < 4:
            raise ValueError(
                f"The uniform design needs at least 4 categories; the data have "
                f"{n_columns} columns. Pass the design (with its dummy categories) "
                f"as {name}=."
            )
        _refuse_dummy_reports(n_columns, name, feature_names, reports)
        return SubsetDesign.uniform(n_columns), np.arange(n_columns)
    if isinstance(design, SubsetDesign):
        return design, np.arange(design.n_categories)
    if not isinstance(design, _BaseSubsetPrivatizer):
        raise TypeError(
            f"{name} must be a SubsetDesign, a SubsetUniform or SubsetMechanism "
            f"(fitted or not) or None; got {type(design).__name__}."
        )
    if hasattr(design, "designs_"):
        if len(design.designs_) != 1:
            raise ValueError(
                f"{name} privatizes {len(design.designs_)} columns; one variable "
                "is needed here. Fit one mechanism per column."
            )
        return design.designs_[0], np.asarray(design.categories_[0])
    return _public_definition(design, n_columns, name, feature_names, reports)


_DUMMY_SUFFIXES = ("=<dummy1>", "=<dummy2>")


def _refuse_dummy_reports(n_columns, name, feature_names, reports) -> None:
    """Refuse the uniform design for reports of a column with dummy categories.

    A 2- or 3-category column privatized with dummy categories (the default
    of :class:`SubsetUniform`) gives 4 or 5 report columns, exactly one of
    the last two (the dummies) in every report.  Read as the uniform design
    on 4 or 5 categories they would give wrong estimates and tests without
    an error.  The report names say so (``feature=<dummy1>``), and so do the
    reports: under a uniform design on ``p`` categories a report holds
    exactly one of two given categories with probability about 1/2, so a
    few dozen reports that all do are not uniform ones.
    """
    if n_columns not in (4, 5):
        return
    named = feature_names is not None and all(
        str(n).endswith(sfx)
        for n, sfx in zip(list(feature_names)[-2:], _DUMMY_SUFFIXES)
    )
    shaped = False
    if reports is not None and not named:
        try:
            tail = np.asarray(reports, dtype=float)[:, -2:]
        except (TypeError, ValueError):
            tail = None
        shaped = (
            tail is not None
            and tail.ndim == 2
            and tail.shape[0] >= 20
            and bool(np.all(np.nansum(tail, axis=1) == 1))
        )
    if named or shaped:
        why = (
            "its report columns are named as dummies"
            if named
            else f"each of its {np.shape(reports)[0]} reports holds exactly one "
            "of the last two columns"
        )
        raise ValueError(
            f"{name}=None reads the {n_columns} report columns as the uniform "
            f"design on {n_columns} categories, but {why}: these look like the "
            f"reports of a {n_columns - 2}-category column with dummy categories "
            "(SubsetUniform's default for 2 or 3 categories), which that design "
            f"would misread. Pass {name}= the fitted mechanism, or "
            f"SubsetUniform(categories=[[...]]) with the {n_columns - 2} "
            f"categories; for a uniform design on {n_columns} categories pass "
            f"{name}=SubsetDesign.uniform({n_columns})."
        )


def _parse_report_names(names) -> tuple[str, list[str]] | None:
    """``(feature, categories)`` from output names ``feature=category``.

    With the two dummy columns last, the feature is what precedes their
    suffix; otherwise the shortest prefix before a ``=`` shared by every
    name.  Dummy columns are not categories.
    """
    names = [str(n) for n in names]
    dummies = len(names) >= 3 and all(
        n.endswith(sfx) for n, sfx in zip(names[-2:], _DUMMY_SUFFIXES)
    )
    if dummies:
        prefixes = [names[-2][: -len(_DUMMY_SUFFIXES[0])]]
    else:
        prefixes = [names[0][:i] for i, ch in enumerate(names[0]) if ch == "="]
    for feature in prefixes:
        head = feature + "="
        if all(n.startswith(head) for n in names):
            cats = [n[len(head) :] for n in names]
            return feature, cats[:-2] if dummies else cats
    return None


def _public_definition(privatizer, n_columns, name, feature_names, reports):
    """Fit a clone of an unfitted privatizer on public information only."""
    declared = privatizer.get_params().get("categories", "auto")
    if isinstance(declared, str):
        declared = None
    elif len(declared) != 1:
        raise ValueError(
            f"{name} declares categories for {len(declared)} columns; one variable "
            "is needed here."
        )
    parsed = None
    if feature_names is not None:
        parsed = _parse_report_names(feature_names)
    if declared is not None:
        feature = parsed[0] if parsed is not None else "x0"
        candidates = [(feature, list(declared[0]))]
        source = f"the declared categories {list(declared[0])}"
    elif parsed is not None:
        candidates = [parsed]
        source = f"the categories {parsed[1]} named by the report columns"
    elif feature_names is not None:
        raise ValueError(
            f"{name} is not fitted and declares no categories, and the report "
            f"columns {[str(c) for c in feature_names][:4]} are not named "
            "'feature=category' as by its get_feature_names_out(); declare "
            f"categories=[[...]] in {name} or pass a fitted {name}."
        )
    else:
        candidates = [("x0", list(range(p))) for p in (n_columns, n_columns - 2)]
        candidates = [c for c in candidates if len(c[1]) >= 2]
        source = f"the {n_columns} report columns"
    fits = []
    for feature, cats in candidates:
        mech = clone(privatizer).set_params(categories=[cats])
        try:
            mech.fit(pd.DataFrame({feature: pd.Series(cats, dtype=object)}))
        except ValueError:
            continue
        if mech.designs_[0].n_outputs != n_columns:
            continue
        fits.append(mech)
    if len(fits) > 1 and reports is not None:
        kept = []
        for mech in fits:
            try:
                count_reports(reports, mech.designs_[0], skip_unknown=True)
            except ValueError:
                continue
            kept.append(mech)
        fits = kept or fits
    if not fits:
        raise ValueError(
            f"{name} ({type(privatizer).__name__}, not fitted) with {source} "
            f"does not produce {n_columns} report columns; pass the reports of "
            "this mechanism or the fitted mechanism."
        )
    if len(fits) > 1:
        sizes = [m.designs_[0].n_categories for m in fits]
        raise ValueError(
            f"{name} ({type(privatizer).__name__}, not fitted, categories='auto') "
            f"produces {n_columns} report columns for {sizes} categories and the "
            "reports are consistent with both; declare categories=[[...]] in it, "
            "pass the reports as a DataFrame with its output names "
            "(set_output(transform='pandas')) or pass a SubsetDesign."
        )
    return fits[0].designs_[0], np.asarray(fits[0].categories_[0])


class _SubsetCounts(RowStatistic):
    """Counts of the distinct subsets reported, and of the all-zero rows.

    The sufficient statistic of every estimate of
    :class:`SubsetDistributionEstimator`: a block of reports is validated
    against the design (rows named from the block's first row) and its
    distinct subsets counted; counters merge by adding counts.
    """

    def __init__(self, design: SubsetDesign, categories: Any) -> None:
        self.design = design
        self.categories = categories

    def block(self, rows, first_row):
        return count_reports(rows, self.design, skip_unknown=True, first_row=first_row)

    def merge(self, values):
        return SubsetCounter.merged(values)


class SubsetDistributionEstimator(
    SubsetIntervalsMixin,
    SufficientStatisticMixin,
    PrivatizedInputMixin,
    PopulationEstimateMixin,
    ParamsValidationMixin,
    BaseEstimator,
):
    """Estimate a category distribution from subset reports (Section III).

    Every respondent reports a random subset of the categories that contains
    their own; the estimator recovers the population distribution ``w``.

    Parameters
    ----------
    method : {"mom", "em", "mle", "one-step"}
        ``"mom"``: method of moments ``Q^{-1}(γ̂ - t)/s`` (for the uniform
        design with ``p <= 4`` this is the closed form
        ``(r_p γ̂ - 1)/(r_p - 1)``), then projected onto the simplex;
        ``"em"``: expectation–maximization of the paper (accelerated by
        SQUAREM unless ``acceleration=None``); ``"mle"``: maximum
        likelihood by active-set projected Newton (same optimum as EM, far
        fewer iterations); ``"one-step"``: one Newton step of the likelihood
        from the projected MoM, ``θ̂ - [∇²ℓ]^{-1}∇ℓ``, halved until it stays
        in the simplex and does not lower the likelihood.
    design : SubsetDesign, SubsetUniform, SubsetMechanism or None
        Public description of the mechanism that produced the reports,
        including its dummy categories.  ``None`` means the uniform design
        on as many categories as ``A`` has columns.  A fitted privatizer
        gives its design and ``categories_``.  An unfitted one (as a clone
        in :func:`~sklearn.model_selection.cross_val_score` or
        :class:`~sklearn.model_selection.GridSearchCV` leaves it) is
        rebuilt at fit time from what the analyst sees: the categories it
        declares; else the categories named by the report columns when ``A``
        is a DataFrame with its output names ``race=White``, ... (labels
        are then these strings); else the number of report columns, with
        labels ``0..p-1`` (an error when two designs fit the columns and the
        reports).  Ignored when ``privatizer`` is set.
    privatizer : SubsetUniform, SubsetMechanism or None
        With a privatizer, :meth:`fit` takes raw categories (one column),
        privatizes them and reads the design from the fitted privatizer.
    max_iter : int
        Iteration limit of EM and Newton.
    tol : float
        Convergence tolerance (largest change of ``w`` in one EM update for
        EM; step size or relative log-likelihood change for Newton).  EM
        then finishes with Newton steps held to ``tol / 1000``, so that its
        answer is within ``tol`` of the optimum rather than one small update
        away from it.
    acceleration : {"squarem", None}, default="squarem"
        How ``method="em"`` iterates.  ``"squarem"``: SQUAREM (Varadhan and
        Roland, 2008) extrapolates two EM updates, keeping a step only when
        it stays inside the simplex and does not lower the likelihood; it
        has the fixed points of EM and stops on the same test, with 10–40×
        fewer updates at ``p = 50``.  ``None``: the plain EM iteration of
        the paper.  Ignored by the other methods.

    Attributes
    ----------
    distribution_ : ndarray of shape (n_categories,)
        Estimated ``w``: non-negative, sums to one.
    distribution_raw_ : ndarray of shape (n_categories,)
        Before projection onto the simplex (MoM and one-step can leave it;
        risk studies use this value).
    covariance_ : ndarray of shape (n_categories, n_categories)
        Estimated covariance of ``distribution_raw_``: plug-in
        ``Q^{-1} C Q^{-1} / n`` for the MoM, inverse observed Fisher
        information for the likelihood methods.
    log_likelihood_ : float
        Log-likelihood of the reports at ``distribution_``.
    categories_ : ndarray
        Category labels (codes ``0..p-1`` without a named privatizer).
    design_ : SubsetDesign
        The design used.
    subsets_ : ndarray of int8, shape (k, n_categories)
        The distinct observed subsets (true categories).
    subset_counts_ : ndarray of shape (k,)
        How often each was observed.
    n_samples_seen_ : int
        Number of reports, including the all-zero ones.
    privatizer_ : SubsetUniform, SubsetMechanism or None
        Fitted clone of ``privatizer``.
    released_ : ndarray of shape (n_samples, n_categories) or None
        The subset reports ``privatizer`` released (0/1 indicators; the
        chunks of ``partial_fit`` appended): what ``subsets_`` and
        ``subset_counts_`` count.  None without ``privatizer`` and after a
        fit on a dask collection.  ``conf_int`` needs no data and, fitted
        with ``privatizer``, refuses any (it would be the raw categories).
    n_unknown_ : int
        Number of all-zero reports (see Notes), left out of the estimate.
    n_features_in_ : int
        Columns of ``fit``'s input: 1 with ``privatizer`` (the raw column),
        otherwise the reports' width.
    feature_names_in_ : ndarray of str
        Their names, when ``fit`` was given them.
    n_iter_ : int
        Iterations of Newton, EM updates computed by EM plus the Newton
        steps that finish it (0 for the MoM, 1 for one-step).

    Notes
    -----
    An all-zero row is the report of ``handle_unknown="ignore"`` for a value
    outside the categories: it says exactly that the value is unknown and
    nothing about the categories.  Such rows are left out of the likelihood
    with a warning and counted in ``n_unknown_``; ``distribution_`` is then
    the distribution among respondents whose value is one of the categories
    (the population share of unknown values is ``n_unknown_ /
    n_samples_seen_`` without dummy categories).  Without dummy categories
    the likelihood factorizes into the zero rows and the others, so this is
    the maximum-likelihood estimate of that conditional distribution.  With
    dummy categories, respondents with an unknown value are also replaced by
    dummies (probability ``2 alpha``), so the kept rows hold slightly more
    dummy reports than ``alpha`` each, a bias of order ``alpha`` times the
    unknown share.

    See Also
    --------
    SubsetUniform : the mechanism.
    subset_independence_test : tests on two privatized variables.

    References
    ----------
    Wang, G. and Ding, J. "Subset Privacy: Draw from an Obfuscated Urn",
    Section III.

    Examples
    --------
    >>> import numpy as np
    >>> from skprivate.subset import SubsetDistributionEstimator, SubsetUniform
    >>> rng = np.random.default_rng(0)
    >>> x = rng.choice(4, size=(5000, 1), p=[0.1, 0.2, 0.3, 0.4])
    >>> est = SubsetDistributionEstimator(
    ...     method="mle", privatizer=SubsetUniform(random_state=1)
    ... )
    >>> est.fit(x).distribution_.round(2)  # sample shares 0.105 0.194 0.304 0.396
    array([0.1 , 0.19, 0.32, 0.39])
    >>> lower, upper = est.confidence_intervals(0.95)  # one 95% interval each
    >>> np.column_stack([lower, upper]).round(3)
    array([[0.078, 0.118],
           [0.167, 0.207],
           [0.3  , 0.34 ],
           [0.375, 0.415]])
    """

    _parameter_constraints: ClassVar[dict] = {
        "method": [Options({"mom", "em", "mle", "one-step"})],
        "design": [None, SubsetDesign, HasMethods(["fit", "transform"])],
        "privatizer": [None, HasMethods(["fit", "transform"])],
        "max_iter": [Interval(numbers.Integral, 1, None)],
        "tol": [Interval(numbers.Real, 0, None, closed="neither")],
        "acceleration": [Options({"squarem"}), None],
    }
    # the subset counts depend on the design only; every method reads them
    _STREAM_SETTINGS = ("design", "privatizer")

    def __init__(
        self,
        method: str = "mom",
        design: Any = None,
        privatizer: Any = None,
        max_iter: int = 10_000,
        tol: float = 1e-7,
        acceleration: str | None = "squarem",
    ) -> None:
        self.method = method
        self.design = design
        self.privatizer = privatizer
        self.max_iter = max_iter
        self.tol = tol
        self.acceleration = acceleration

    def fit(self, A: ArrayLike, y: Any = None):
        """Estimate the distribution from reports ``A``.

        Parameters
        ----------
        A : array-like of shape (n_samples, n_outputs)
            0/1 subset indicators (or raw categories, one column, when
            ``privatizer`` is set).
        y : None
            Ignored.

        Returns
        -------
        self : object
        """
        return self._fit_statistic(A)

    def partial_fit(self, A: ArrayLike, y: Any = None):
        """Add a chunk of reports; the subset counts of all chunks are merged.

        Parameters
        ----------
        A : array-like of shape (n_samples, n_outputs)
            0/1 subset indicators (raw categories with ``privatizer``; the
            privatizer is fitted on the first chunk).
        y : None
            Ignored.

        Returns
        -------
        self : object
        """
        return self._partial_fit_statistic(A)

    # -- the statistic: counts of distinct subsets (fit, partial_fit, dask) --
    def _statistic_input(self, A, reset):
        if reset:
            for attr in ("subsets_", "subset_counts_"):
                self.__dict__.pop(attr, None)
        # values are checked by the statistic, naming their row
        if self.privatizer is None:
            if reset:
                self._privatize(A, stream=True)  # records that none is set
            return validate_rows(
                self, A, reset=reset, dtype=None, ensure_all_finite=False
            )
        # The learner's input is the raw column: n_features_in_ and
        # feature_names_in_ describe it, not the reports it releases.
        validate_rows(self, A, reset=reset, dtype=None, ensure_all_finite=False)
        data = self._privatize(A, stream=True) if reset else self._release_chunk(A)
        return _report_rows(data)

    def _statistic_plan(self, data, stream):
        if self.privatizer is not None:
            design, cats = resolve_design(self.privatizer_, 0, name="privatizer")
        else:
            design, cats = resolve_design(
                self.design,
                self.n_features_in_,
                feature_names=getattr(self, "feature_names_in_", None),
                # reports tell apart designs of the same width (in memory)
                reports=None if is_dask_collection(data) else data,
            )
        return _SubsetCounts(design, cats)

    def _statistic_fit(self, statistic, total, added):
        rows, counts = total.result()
        added_known = added.result()[1].sum()
        warn_unknown_rows(
            added.n_unknown, round(added_known) + added.n_unknown, counts.sum()
        )
        self.design_ = statistic.design
        self.categories_ = statistic.categories
        self.subsets_ = rows
        self.subset_counts_ = counts
        self.n_unknown_ = int(total.n_unknown)
        self.n_samples_seen_ = round(counts.sum()) + self.n_unknown_
        self._estimate()

    def _estimate(self):
        design = self.design_
        U = fitting.SubsetMatrix(self.subsets_)
        counts = self.subset_counts_
        s, t = design.scale, design.offset
        q = design.q_matrix()
        # The general Q^{-1}γ̂ (not the uniform closed form, which equals it
        # for p <= 4 and has a larger limit risk for p >= 5: 2.93 vs 2.80 on
        # the Adult race distribution).
        r = None
        w_mom = fitting.mom(U, counts, q, s, t, uniform_r=r)
        self.n_iter_ = 0
        if self.method == "mom":
            raw = w_mom
            self.covariance_ = fitting.mom_covariance(U, counts, q, s, uniform_r=r)
        elif self.method == "one-step":
            raw = fitting.one_step(U, counts, w_mom, s, t)
            self.n_iter_ = 1
        else:
            p = design.n_categories
            if self.method == "em":
                raw, self.n_iter_ = fitting.em(
                    U,
                    counts,
                    np.full(p, 1.0 / p),
                    s,
                    t,
                    self.max_iter,
                    self.tol,
                    acceleration=self.acceleration,
                )
                if self.n_iter_ < self.max_iter:
                    # EM's test bounds its last update, not its distance to
                    # the optimum, which is that update over one minus the
                    # (often near 1) rate of EM: 10-1000x tol.  Newton's
                    # method from EM's answer, held to a 1,000x tighter
                    # step, lands on the optimum EM converges to.
                    raw, steps = fitting.mle_newton(
                        U, counts, raw, s, t, self.max_iter, self.tol * 1e-3
                    )
                    self.n_iter_ += steps
            else:
                start = 0.9 * fitting.project_simplex(w_mom) + 0.1 / p
                raw, self.n_iter_ = fitting.mle_newton(
                    U, counts, start, s, t, self.max_iter, self.tol
                )
        self.distribution_raw_ = raw
        self.distribution_ = fitting.project_simplex(raw)
        if self.method != "mom":
            self.covariance_ = fitting.fisher_covariance(
                U, counts, self.distribution_, s, t
            )
        self.log_likelihood_ = self._log_likelihood(self.distribution_)

    def _log_likelihood(self, w) -> float:
        """Full log-likelihood ``sum_i log P(A = a_i)`` of the reports."""
        return self._report_log_likelihood(self.subsets_, self.subset_counts_, w)

    def _report_log_likelihood(self, subsets, counts, w) -> float:
        design = self.design_
        U = fitting.SubsetMatrix(subsets)
        k, p = U.shape
        if design.enumerable:
            masks = np.concatenate(
                [
                    indicators_to_masks(subsets[i : i + CHUNK_ROWS])
                    for i in range(0, k, CHUNK_ROWS)
                ]
                or [np.zeros(0, dtype=np.int64)]
            )
            log_mu = np.log(design.mu_of(masks))
        else:
            # Every counted subset passed the design's check: sizes 2..p-2 of
            # the uniform design, all with the same mu.
            log_mu = np.log(2.0 / (2.0**p - 2 * p - 2))
        # With dummies, each of the two dummies is equally likely given a.
        extra = np.log(0.5) if design.has_dummies else 0.0
        lik = design.scale * U.dot(np.asarray(w, dtype=float)) + design.offset
        with np.errstate(divide="ignore"):
            return float(counts @ (log_mu + np.log(lik) + extra))

    def score(self, X: ArrayLike, y: Any = None) -> float:
        """Mean log-likelihood per row of held-out data.

        Like every learner of skprivate, the estimator is scored on the
        data it would see: with a ``privatizer``, ``X`` holds clean
        categories (one column) and the score is the mean log of their
        estimated masses (floored at 1e-12), so a grid search over the
        privatizer's parameters is scored on clean data; without one, ``X``
        holds subset reports and the score is the mean of
        ``log P(A = a)`` under the estimate and the design.

        Parameters
        ----------
        X : array-like
            Clean categories (with a privatizer) or 0/1 subset reports.
        y : None
            Ignored.

        Returns
        -------
        score : float
        """
        check_is_fitted(self)
        if self.privatizer_ is not None:
            return mean_log_pmf_of_categories(self.pmf, X)
        data = validate_data(self, X, reset=False, dtype=None, ensure_all_finite=True)
        rows, counts = count_reports(data, self.design_, skip_unknown=True).result()
        if counts.sum() == 0:
            raise ValueError("Every row of X is all zero (unknown categories).")
        total = self._report_log_likelihood(rows, counts, self.distribution_)
        return total / counts.sum()

    # ----------------------------------------------------------- inference
    def confidence_intervals(self, level: float = 0.95):
        """Normal-approximation intervals for each category's mass.

        Parameters
        ----------
        level : float in (0, 1)
            Coverage level.

        Returns
        -------
        lower, upper : ndarray of shape (n_categories,)
            ``distribution_raw_ ± z · se``, clipped to ``[0, 1]`` and
            stretched to take in ``distribution_`` (the intervals of
            ``conf_int("pmf")``).
        """
        check_is_fitted(self)
        if not 0 < level < 1:
            raise ValueError(f"level must lie in (0, 1); got {level!r}.")
        _, _, lower, upper = self._ci_shares(np.eye(self.distribution_.size), level)
        return lower, upper

    def predict_proba(self, A: ArrayLike) -> NDArray[np.float64]:
        """Posterior of each respondent's category given their report.

        Parameters
        ----------
        A : array-like of shape (n_samples, n_outputs)
            0/1 subset indicators.

        Returns
        -------
        proba : ndarray of shape (n_samples, n_categories)
            ``w_j 1{j ∈ a} / 1_aᵀw`` (for a true respondent when the design
            has dummies); uniform over ``a`` if ``w`` puts no mass on it.
        """
        check_is_fitted(self)
        if self.privatizer_ is None:
            X = validate_data(self, A, reset=False, dtype=None, ensure_all_finite=True)
        else:  # reports, not the raw column the learner was fitted on
            with raw_values_withheld():
                X = check_array(A, dtype=None, ensure_all_finite=True)
        ind = check_subset_data(X, self.design_).astype(float)
        num = ind * self.distribution_[None, :]
        tot = num.sum(axis=1, keepdims=True)
        fallback = ind / ind.sum(axis=1, keepdims=True)
        return np.where(tot > 0, num / np.where(tot > 0, tot, 1.0), fallback)

    # ------------------------------------------------- population interface
    def _distribution(self) -> DiscreteDistribution:
        return DiscreteDistribution(
            np.arange(self.distribution_.size), self.distribution_
        )

    def pmf(self, x: ArrayLike) -> NDArray[np.float64]:
        """Estimated mass of categories ``x`` (labels of ``categories_``).

        Parameters
        ----------
        x : array-like
            Category labels.

        Returns
        -------
        ndarray
            Masses (0 for a label that is not a category).
        """
        check_is_fitted(self)
        x = np.asarray(x, dtype=object)
        lookup = {c: i for i, c in enumerate(self.categories_.tolist())}
        idx = np.array([lookup.get(v, -1) for v in x.ravel().tolist()])
        out = np.where(idx >= 0, self.distribution_[np.maximum(idx, 0)], 0.0)
        return out.reshape(x.shape)

    def sample(self, n_samples: int = 1, random_state: Any = None) -> NDArray:
        """Draw categories (labels of ``categories_``) from the estimate.

        Parameters
        ----------
        n_samples : int
            Number of draws.
        random_state : int, Generator, RandomState or None
            Source of randomness.

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        check_is_fitted(self)
        validate_params(
            {"n_samples": [Interval(numbers.Integral, 0, None, closed="left")]},
            {"n_samples": n_samples},
            f"{type(self).__name__}.sample",
        )
        rng = check_generator(random_state)
        codes = rng.choice(
            self.distribution_.size, size=n_samples, p=self.distribution_
        )
        return self.categories_[codes]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.categorical = True
        tags.requires_fit = True
        return tags
