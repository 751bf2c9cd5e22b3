"""Base classes shared by every privacy family.

Three roles exist in skprivate:

* **privatizers** (:class:`PrivatizerMixin`): transformers that apply a
  privacy mechanism to raw data, row by row;
* **learners** that consume privatized data (:class:`PrivatizedInputMixin`):
  their ``fit`` takes data in the privatized format together with the public
  description of the mechanism; given ``privatizer=``, ``fit`` takes raw data
  and privatizes it first, which is what lets a grid search tune the privacy
  parameters themselves;
* **population estimates** (:mod:`skprivate.distributions`): estimators of a
  population distribution exposing one common interface.

Where the data live is decided here, in the base classes' own methods, and
nowhere else: :class:`PrivatizerMixin`'s ``fit``, ``transform`` and
``fit_transform`` release a dask collection lazily, one row partition at a
time, and an in-memory array at once, both through the subclass's
``_fit`` and ``_transform``; :class:`SufficientStatisticMixin` fits a
learner from the statistic of its rows, one block in memory, the running
value merged with a chunk's in ``partial_fit``, or blocks merged in a tree
on a dask collection.  A learner that can do neither refuses a dask
collection with :func:`check_in_memory`.
"""

from __future__ import annotations

import contextvars
import hashlib
import numbers
import reprlib
import threading
from collections.abc import Callable
from typing import Any, ClassVar

import numpy as np
from sklearn import get_config
from sklearn.base import TransformerMixin, clone

from ._doc_link import DocLinkMixin
from .utils._dask import dask_transform, fit_sample, is_dask_collection
from .utils._param_validation import validate_params
from .utils._redact import raw_values_withheld
from .utils._seeding import canonical, data_fingerprint, words
from .utils._statistic import (
    FiniteRange,
    RowStatistic,
    count_and_reduce_rows,
    n_rows,
    rows_counted_from,
    validate_rows,
)
from .utils.discovery import all_estimators
from .utils.validation import check_numeric_input, check_unchanged_settings

__all__ = [
    "ParamsValidationMixin",
    "PrivatizedInputMixin",
    "PrivatizerMixin",
    "SufficientStatisticMixin",
    "check_in_memory",
]


class ParamsValidationMixin(DocLinkMixin):
    """Validate constructor parameters against ``_parameter_constraints``.

    Call ``self._check_params()`` at the start of ``fit`` (and of every other
    method that starts from parameters, such as ``partial_fit``).
    """

    _parameter_constraints: ClassVar[dict[str, Any]] = {}

    def _check_params(self) -> None:
        validate_params(
            self._parameter_constraints,
            self.get_params(deep=False),
            type(self).__name__,
        )


_RELEASE_LOCK = threading.Lock()
_BLOCK_GENERATOR: contextvars.ContextVar = contextvars.ContextVar(
    "skprivate_block_generator", default=None
)


def _check_random_state_value(random_state: Any) -> None:
    """Refuse a ``random_state`` that is none of the accepted kinds."""
    if random_state is None or isinstance(
        random_state, np.random.Generator | np.random.RandomState
    ):
        return
    if isinstance(random_state, numbers.Integral) and not isinstance(
        random_state, bool
    ):
        if random_state < 0:
            # numpy refuses it too; read modulo 2**64 it named the stream
            # of 2**64 - 1
            raise ValueError(
                "random_state must be a non-negative int (a seed); got "
                f"{int(random_state)}."
            )
        return
    raise ValueError(
        "random_state must be None, an int, a numpy RandomState or Generator; "
        f"got {type(random_state).__name__}."
    )


def _seed_words(random_state: Any) -> list[int]:
    """The seed material of a seeded ``random_state``, as 64-bit words.

    An int is its own seed, every 64 bits of it (an int below ``2**64`` is
    one word, so ``0`` and ``2**64`` differ); a ``Generator`` or
    ``RandomState`` gives one draw of four words (so it advances, as any
    other use of it would).
    """
    if isinstance(random_state, np.random.Generator):
        return [int(e) for e in random_state.integers(0, 2**63 - 1, size=4)]
    if isinstance(random_state, np.random.RandomState):
        return [int(e) for e in random_state.randint(0, 2**31 - 1, size=4)]
    value = int(random_state)
    seed = [value % 2**64]
    while value >= 2**64:
        value >>= 64
        seed.append(value % 2**64)
    return seed


class _ReleaseCounter:
    """How many releases a privatizer made with its current seed.

    A mutable object created at ``fit``, so ``transform`` advances it
    without adding or rebinding an attribute; advanced under a lock, so
    threads sharing one fitted privatizer never take the same index.
    """

    __slots__ = ("count",)

    def __init__(self) -> None:
        self.count = 0

    def take(self) -> int:
        with _RELEASE_LOCK:
            index = self.count
            self.count += 1
        return index

    def __getstate__(self) -> int:
        return self.count

    def __setstate__(self, state: int) -> None:
        self.count = int(state)


# settings in messages: long category lists and arrays cut short
_SHORT = reprlib.Repr()
_SHORT.maxstring = _SHORT.maxother = 40
_SHORT.maxlist = _SHORT.maxtuple = 6


def _settings_fingerprint(privatizer: Any) -> int:
    """A 128-bit SHA-256 fingerprint of a privatizer's class and settings.

    Every parameter but ``random_state`` enters, in the canonical form of
    :func:`skprivate.utils._seeding.canonical`, so the fingerprint is the
    same in every process and differs whenever a setting (say ``epsilon``)
    does.  A parameter a class lists in ``_PARAMETERS_ADDED_LATER`` (name ->
    default) enters only when it differs from its default, so that adding a
    parameter leaves the seeded releases of every earlier setting unchanged.
    """
    kind = type(privatizer)
    params = {}
    if hasattr(privatizer, "get_params"):
        params = privatizer.get_params(deep=False)
    params.pop("random_state", None)
    for name, default in getattr(kind, "_PARAMETERS_ADDED_LATER", {}).items():
        if name in params and params[name] is default:
            del params[name]
    text = f"{kind.__module__}.{kind.__qualname__}{canonical(params)}"
    digest = hashlib.sha256(b"skprivate privatizer settings\0" + text.encode())
    return int.from_bytes(digest.digest()[:16], "little")


def _fitted_state_fingerprint(privatizer: Any) -> int:
    """A 128-bit fingerprint of a privatizer's public fitted state.

    What ``fit`` read from the data (``bounds_`` and ``scale_`` with
    ``bounds=None``, ``categories_`` with ``categories="auto"``) shapes the
    noise law as a setting does: two privatizers with the same settings
    fitted on different data must not share a stream, or the same standard
    noise at two scales gives the value away.  The input's column names and
    count are left out (a dask frame and a dask array of the same data
    release alike).
    """
    state = {
        name: value
        for name, value in vars(privatizer).items()
        if name.endswith("_")
        and not name.startswith("_")
        and name not in ("feature_names_in_", "n_features_in_")
    }
    return data_fingerprint(canonical(state))


def _output_container(estimator: Any, released: Any, X: Any) -> Any:
    """``released`` in the container chosen by ``set_output`` (in memory).

    The choice is the one scikit-learn's ``set_output`` records on the
    estimator (``_sklearn_output_config``, which :func:`~sklearn.base.clone`
    carries), else the global ``transform_output``; a pandas frame keeps the
    index of a pandas ``X`` and takes ``get_feature_names_out()`` as column
    names, as scikit-learn's own wrapper does.
    """
    if isinstance(released, tuple):  # transform(X, return_anchors=True)
        return (_output_container(estimator, released[0], X), *released[1:])
    choice = getattr(estimator, "_sklearn_output_config", {}).get(
        "transform", get_config()["transform_output"]
    )
    if choice == "default":
        return released
    if choice not in ("pandas", "polars"):
        raise ValueError(
            f"output config must be 'default', 'pandas' or 'polars'; got {choice!r}."
        )
    columns = estimator.get_feature_names_out()
    if choice == "polars":
        import polars as pl

        return pl.DataFrame(released, schema=list(columns), orient="row")
    import pandas as pd

    if not isinstance(released, pd.DataFrame):
        index = X.index if isinstance(X, pd.DataFrame | pd.Series) else None
        if index is not None and not _labels_nothing(index):
            _warn_kept_index(estimator, index)
        released = pd.DataFrame(released, index=index, copy=False)
    released.columns = columns
    return released


def _labels_nothing(index: Any) -> bool:
    """Whether a row index is the default ``0 .. n - 1``, which says nothing.

    Any other range labels rows: since pandas 3 a filter whose kept rows
    are evenly spaced (``df[df.status == "pos"]`` on rows 1, 3, 5) or
    contiguous (rows 10 to 12) returns a ``RangeIndex`` of their positions.
    """
    import pandas as pd

    return isinstance(index, pd.RangeIndex) and index.start == 0 and index.step == 1


def _warn_kept_index(estimator: Any, index: Any) -> None:
    """Say that the pandas output carries ``X``'s row labels unprivatized.

    A frame's index is copied to the release, as scikit-learn's own
    wrapper does, so that the output aligns with the input's rows; labels
    other than a plain range (identifiers, a value set as the index, the
    rows a filter kept) are then published as they are.
    """
    import warnings

    from .exceptions import PrivacyLeakWarning
    from .utils._warnings import external_stacklevel

    warnings.warn(
        f"{type(estimator).__name__}: the pandas output keeps the index of X "
        f"({len(index)} row labels, {type(index).__name__}), which is "
        "released as it is, not privatized. If the labels say anything about "
        "the respondents (identifiers, a value set as the index, the rows a "
        "filter kept), reset it first: X.reset_index(drop=True).",
        PrivacyLeakWarning,
        stacklevel=external_stacklevel(),
    )


class PrivatizerMixin(
    ParamsValidationMixin, TransformerMixin, auto_wrap_output_keys=None
):
    """Mixin for privacy mechanisms implemented as transformers.

    A privatizer's ``fit`` learns only what the mechanism needs to be defined
    (number of features, categories, or bounds when asked to take them from
    the data, with a :class:`~skprivate.exceptions.PrivacyLeakWarning`); a
    fitted privatizer never stores raw values.

    Every concrete privatizer implements ``privacy_summary()``, returning a
    dict ``{"notion": str, ...}`` with the quantities that define its
    guarantee in its paper's own terms (for example ``epsilon`` or the
    expected ``coverage``); the common tests check that it exists.

    Notes
    -----
    **The randomness rule.**  Every call that releases data
    (``transform``, ``fit_transform``, ``partial_fit`` and methods such as
    ``draw_anchors``) draws *fresh* noise; no stored state decides it, so
    nothing that a copy, a pickle or a worker process carries can make two
    releases share noise.

    * ``random_state=None`` (the default, and the only setting for a real
      release): every call seeds its generator from fresh operating-system
      entropy.  Two copies of one fitted privatizer (``pickle``,
      ``copy.deepcopy``, ``joblib.dump``/``load``, joblib's process workers)
      draw independent noise.
    * an int seed is for *simulation*: the noise of a call is a function of
      ``(seed, settings at call time, fingerprint of the data, call
      index)``.  The settings fingerprint is a SHA-256 digest of the class
      and every other parameter (``epsilon``, ``bounds``, ...; the same in
      every process), so two privatizers that differ in a setting never
      share noise (otherwise the same standard noise at two scales would
      give ``x = (b2 y1 - b1 y2) / (b2 - b1)``).  The data fingerprint is a
      SHA-256 digest of the values released, so the same seed on other
      data (another month's batch, another fold, another chunking) draws
      independent noise.  The call index counts the releases of this
      object since ``fit`` or since ``random_state`` was last set; it is
      advanced under a lock, so threads sharing a fitted privatizer never
      take the same index.  A fresh instance (or a
      :func:`sklearn.base.clone`) with the same seed, settings and data
      reproduces call 1, call 2, ... in order.
    * a ``numpy.random.Generator`` or ``RandomState``: each call takes four
      words from it as its seed, mixed with the settings, data and call
      index as above (so a copy of the object that carries a copy of the
      generator still draws independent noise on other data).

    ``privacy_summary`` says ``"reproducible": True`` for a seeded
    privatizer: its releases are for simulation, not for a real release.

    **Settings are frozen by fit.**  A setting changed with ``set_params``
    after ``fit`` (other than ``random_state``) makes ``transform`` and
    ``privacy_summary`` raise until the privatizer is fitted again: the
    fitted state (noise scale, grid) belongs to the old settings, and a
    report of the new ones would misstate what ``transform`` does.

    Subclasses get the generator of a call from :meth:`_next_generator`
    (one call, one generator) and never build one from ``random_state``
    themselves.  The generator's bit generator carries its seed sequence,
    so work split into blocks can ``spawn`` independent streams from it.

    **The privatizer protocol.**  A subclass implements

    * ``_fit(X, y=None)``: learn what the mechanism needs from in-memory
      ``X`` (columns, and bounds or categories when asked to read them);
    * ``_transform(X)``: release in-memory ``X`` with the generator of
      :meth:`_next_generator`, returning an array;
    * ``_fit_summary()`` when ``_fit`` reads more than the default (see
      :meth:`_fit_summary`), and ``_release_dtype`` when the release is
      not float.

    The public ``fit``, ``transform`` and ``fit_transform`` are the
    templates below (a subclass may override them only to document its
    own parameters, calling ``super()``).  On an in-memory ``X`` they call
    the hooks and apply ``set_output``; on a dask collection, ``fit`` fits
    on the few rows of one reduction (:func:`~skprivate.utils._dask.fit_sample`)
    and ``transform`` maps :meth:`_transform_with_seed` over the row
    partitions, each with a seed that is a function of the call's seed,
    the partition's position and (for a seeded privatizer) its data, so a
    recomputed partition releases the same values.
    """

    #: dtype of the released values (a dask release declares it up front).
    _release_dtype: ClassVar[Any] = np.float64

    def __init_subclass__(cls, **kwargs: Any) -> None:
        # scikit-learn would wrap each subclass's transform to apply
        # set_output after it returns, turning a lazy dask release into an
        # in-memory frame; transform applies set_output itself, to in-memory
        # releases only.  set_output stays available.
        kwargs.setdefault("auto_wrap_output_keys", None)
        super().__init_subclass__(**kwargs)
        cls._sklearn_auto_wrap_output_keys = {"transform"}

    def fit(self, X: Any, y: Any = None):
        """Set up the mechanism for the columns of ``X``.

        Parameters
        ----------
        X : array-like or dask collection of shape (n_samples, n_features)
            Raw records; only what the mechanism needs is read (see
            :meth:`_fit_summary`), with one reduction for a dask collection.
        y : None
            Ignored.

        Returns
        -------
        self : object
        """
        # a fit that completed may have released: its settings stay on
        # record (a failed fit leaves no settings, and released nothing)
        self._remember_fitted_settings()
        with raw_values_withheld():
            try:
                rows = X
                if is_dask_collection(X):
                    # the range is read by the statistic that checks every
                    # value as the in-memory fit does, naming its row in the
                    # whole data
                    X = fit_sample(
                        X, self._fit_summary(), FiniteRange(columns=True, finite=True)
                    )
                fitted = self._fit(X, y)
                statistic = self._fitted_rows_statistic()
                if statistic is not None:
                    value, n_fitted = count_and_reduce_rows(rows, statistic)
                    self._assess_fitted_data(statistic, value, n_fitted)
            except BaseException:
                self._discard_fitted_state()
                raise
            return fitted

    def _discard_fitted_state(self) -> None:
        """Forget a fit that failed: the privatizer is then not fitted.

        A refit that raises may leave the state of the earlier fit, or part
        of a new one, next to the settings it was called with: ``transform``
        would release by one setting while ``privacy_summary`` reports the
        other.  The release counter stays, so a later fit never replays a
        release.
        """
        for name in list(vars(self)):
            if name.endswith("_") and not name.startswith("__"):
                delattr(self, name)
        self.__dict__.pop("_fitted_settings", None)
        self.__dict__.pop("_fitted_shown", None)

    def transform(self, X: Any, **params: Any) -> Any:
        """Release ``X`` with fresh noise.

        Parameters
        ----------
        X : array-like or dask collection of shape (n_samples, n_features)
            Raw records.  A dask array or DataFrame is released lazily, one
            random stream per row partition.
        **params
            Extra arguments of the mechanism's release (in memory only).

        Returns
        -------
        X_private : ndarray, DataFrame or dask collection
            In the container chosen by ``set_output`` for in-memory ``X``;
            the same lazy type as a dask ``X``.
        """
        with raw_values_withheld():
            if is_dask_collection(X):
                return dask_transform(self, X, **params)
            return _output_container(self, self._transform(X, **params), X)

    def fit_transform(self, X: Any, y: Any = None, **fit_params: Any) -> Any:
        """Fit on ``X``, then release it.

        Parameters
        ----------
        X : array-like or dask collection of shape (n_samples, n_features)
            Raw records.
        y : None
            Ignored.
        **fit_params
            Passed to ``fit``.

        Returns
        -------
        X_private : ndarray, DataFrame or dask collection
        """
        return self.fit(X, y, **fit_params).transform(X)

    def _fit(self, X: Any, y: Any = None):
        raise NotImplementedError  # pragma: no cover - the protocol's hook

    def _transform(self, X: Any) -> Any:
        raise NotImplementedError  # pragma: no cover - the protocol's hook

    def _fit_summary(self) -> str | None:
        """What ``_fit`` reads from the values besides the columns.

        ``"range"`` (each column's minimum and maximum) when the privatizer
        has a ``bounds`` parameter left to ``None``, else ``None``; a
        privatizer that reads other values overrides it (``"distinct"``:
        each column's distinct values).  A dask ``fit`` computes just that,
        with one reduction.

        Returns
        -------
        {None, "range", "distinct"}
        """
        params = self.get_params(deep=False)
        if "bounds" in params and params["bounds"] is None:
            return "range"
        return None

    def _fitted_rows_statistic(self) -> RowStatistic | None:
        """What ``fit`` checks against every fitted row, after ``_fit``.

        ``None`` (the default): ``_fit`` reads all it needs.  A privatizer
        that checks its design against the data (aggregates of the rows,
        never a row) returns a :class:`~skprivate.utils._statistic.RowStatistic`
        of the fitted columns; ``fit`` computes its value over all the rows
        (one block in memory, a tree of the partitions of a dask
        collection, each validated naming its rows in the whole data) and
        gives it to :meth:`_assess_fitted_data`.

        Returns
        -------
        RowStatistic or None
        """
        return None

    def _assess_fitted_data(
        self, statistic: RowStatistic, value: Any, n_rows: int
    ) -> None:
        """Keep and check the value of :meth:`_fitted_rows_statistic` (all rows)."""
        raise NotImplementedError  # pragma: no cover - the protocol's hook

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.non_deterministic = True
        return tags

    def set_params(self, **params: Any):
        """Set parameters; setting ``random_state`` restarts the call count.

        Any other setting changed after ``fit`` makes ``transform`` refuse
        until the privatizer is fitted again.

        Parameters
        ----------
        **params : dict
            Estimator parameters.

        Returns
        -------
        self : estimator instance
        """
        if "random_state" in params:
            self.__dict__.pop("_release_counter", None)
        return super().set_params(**params)

    def _mechanism_settings(self) -> dict[str, str]:
        """Every parameter but ``random_state``, in canonical text form."""
        params = self.get_params(deep=False)
        params.pop("random_state", None)
        return {name: canonical(value) for name, value in params.items()}

    def _settings_shown(self) -> dict[str, str]:
        """Every parameter but ``random_state``, as a short text for messages."""
        params = self.get_params(deep=False)
        params.pop("random_state", None)
        return {name: _SHORT.repr(value) for name, value in params.items()}

    def _check_params(self) -> None:
        super()._check_params()
        _check_random_state_value(getattr(self, "random_state", None))
        # Called at the start of fit: the settings the fitted state belongs to.
        # The counter is created here so that transform only advances it
        # (scikit-learn's checks expect transform to add no attribute); a
        # refit keeps counting, so refitting never replays a release.
        self._fitted_settings = self._mechanism_settings()
        self._fitted_shown = self._settings_shown()
        if "_release_counter" not in self.__dict__:
            self._release_counter = _ReleaseCounter()

    def __sklearn_is_fitted__(self) -> bool:
        """Fitted, with the settings it was fitted with.

        ``check_is_fitted`` calls this first thing in ``transform``, so a
        setting changed since ``fit`` is reported before any other check.
        """
        self._check_fitted_settings()
        return any(
            name.endswith("_") and not name.startswith("__") for name in vars(self)
        )

    def _remember_fitted_settings(self) -> None:
        """Keep the settings of the current fit before a new fit replaces them.

        Whatever that fit released may sit in the later steps of a
        composite: privacy_report reads the record (``_released_before``)
        and refuses such a privatizer inside one.  Each distinct setting is
        kept once.
        """
        before = self.__dict__.get("_fitted_settings")
        if before is None:
            return
        earlier = self.__dict__.setdefault("_earlier_settings", [])
        if all(seen != before for seen, _ in earlier):
            earlier.append((before, self.__dict__.get("_fitted_shown", {})))

    def _released_before(self) -> dict[str, tuple[str, str]]:
        """The settings this object was fitted under before, as they differ now.

        Each earlier fit under other settings (``set_params`` and a new
        ``fit``) may have released: steps fitted after it on that release
        keep it, whatever the privatizer states now.  Returns ``{name:
        (earlier, now)}`` over all earlier fits (the first earlier value of
        a setting that differs), empty when every fit used the current
        settings.  A :func:`~sklearn.base.clone` starts with none.
        """
        current, shown = self._mechanism_settings(), self._settings_shown()
        changed: dict[str, tuple[str, str]] = {}
        for earlier, earlier_shown in self.__dict__.get("_earlier_settings", []):
            for name in sorted(set(earlier) | set(current)):
                if earlier.get(name) != current.get(name) and name not in changed:
                    # a privatizer pickled before the settings were shown
                    # has their canonical text only
                    then = earlier_shown.get(name, earlier.get(name, "(unset)"))
                    changed[name] = (then, shown.get(name, "(unset)"))
        return changed

    def _check_fitted_settings(self) -> None:
        """Raise if a setting changed with ``set_params`` since ``fit``.

        Raises
        ------
        ValueError
            Naming the changed settings.
        """
        fitted = self.__dict__.get("_fitted_settings")
        if fitted is None:
            return
        current = self._mechanism_settings()
        changed = sorted(k for k in current if current[k] != fitted.get(k))
        if changed:
            raise ValueError(
                f"{type(self).__name__} settings changed since fit "
                f"({', '.join(changed)}): its fitted state belongs to the old "
                "settings, so it neither releases nor reports until it is fitted "
                "again. Call fit before transform or privacy_summary."
            )

    def _release_policy(self) -> dict[str, Any]:
        """The ``reproducible`` entries of ``privacy_summary``.

        Also refuses (``ValueError``) when a setting changed since ``fit``:
        a summary of the new settings would not describe what ``transform``
        does.

        Returns
        -------
        policy : dict
            ``reproducible`` (``True`` for any ``random_state`` but None)
            and ``random_state_note``.
        """
        self._check_fitted_settings()
        if self._is_seeded():
            note = (
                "reproducible: for simulation, not for release (the noise is a "
                "function of random_state, the settings and the data)"
            )
        else:
            note = "fresh operating-system entropy on every call"
        return {"reproducible": self._is_seeded(), "random_state_note": note}

    def _exact_law(self, column: int) -> Any:
        """The exact output law of ``column``, for :func:`skprivate.audit`.

        A family overrides this with a law object of ``skprivate._audit``
        (``ShiftLaw``, ``BandLaw``, ``MatrixLaw``, ...) describing what its
        sampler does, or a ``NoExactLaw`` giving the reason none exists.

        Parameters
        ----------
        column : int
            Index of the privatized column.

        Returns
        -------
        law : object
        """
        raise NotImplementedError(
            f"{type(self).__name__} does not describe its exact output law"
        )

    def _is_seeded(self) -> bool:
        """Whether releases are reproducible (any ``random_state`` but None)."""
        return getattr(self, "random_state", None) is not None

    def _next_generator(self, data: Any = None) -> np.random.Generator:
        """The generator of one release call, never the same twice.

        Parameters
        ----------
        data : object, optional
            What the call releases (the validated input, or a description of
            a draw that takes no data); enters the seed of a seeded call.

        Returns
        -------
        numpy.random.Generator
            Seeded from fresh OS entropy (``random_state=None``), or from
            ``(seed, settings, data fingerprint, call index)``; inside
            :meth:`_transform_with_seed`, the partition's generator.
        """
        self._check_fitted_settings()
        forced = _BLOCK_GENERATOR.get()
        if forced is not None:
            _BLOCK_GENERATOR.set(None)  # one generator, one call
            return forced
        state = getattr(self, "random_state", None)
        _check_random_state_value(state)
        if state is None:
            return np.random.default_rng(np.random.SeedSequence())
        counter = self.__dict__.get("_release_counter")
        if counter is None:  # a release before any fit (e.g. draw_anchors)
            with _RELEASE_LOCK:
                counter = self.__dict__.setdefault(
                    "_release_counter", _ReleaseCounter()
                )
        with _RELEASE_LOCK:
            seed = _seed_words(state)
        index = counter.take()
        entropy = [
            *seed,
            *words(_settings_fingerprint(self)),
            *words(data_fingerprint(data)),
            index,
        ]
        if self._law_read_from_data():
            # (only then: every other seeded release keeps its stream)
            entropy += words(_fitted_state_fingerprint(self))
        return np.random.default_rng(np.random.SeedSequence(entropy))

    def _law_read_from_data(self) -> bool:
        """Whether ``fit`` took part of the noise law from the data.

        ``bounds=None`` (the records' range) and ``categories="auto"`` (the
        categories seen) leave the bounds, the scale or the report alphabet
        to the fitted data, so a seeded release mixes the fitted state into
        its seed as it mixes the settings.
        """
        return bool(self._laws_read_from_data())

    def _laws_read_from_data(self) -> tuple[str, ...]:
        """The parts of the noise law ``fit`` reads from the data, by name.

        ``"bounds"`` for ``bounds=None``, ``"categories"`` for categories
        given as a string (``"auto"``), in that order; read from the
        settings, so it answers before ``fit`` too.
        """
        params = self.get_params(deep=False)
        read = []
        if "bounds" in params and params["bounds"] is None:
            read.append("bounds")
        if isinstance(params.get("categories"), str):
            read.append("categories")
        return tuple(read)

    def _transform_with_seed(
        self,
        X: Any,
        seed: np.random.SeedSequence,
        release: Callable[[Any, Any], Any] | None = None,
        first_row: int = 0,
    ) -> Any:
        """Release one block ``X`` with the generator of ``seed``.

        The privatizer protocol's unit of work: the dask driver maps this
        over the row partitions, each with a seed derived from the call and
        the partition, so recomputing a partition (a lost worker, a second
        ``compute``) gives the same release and adds no new noise.  Nothing
        is stored on the object.

        Parameters
        ----------
        X : array-like
            Raw records of one partition.
        seed : numpy.random.SeedSequence
            The partition's seed.
        release : callable, optional
            ``release(self, X)``; default ``type(self)._transform`` (an
            array, whatever ``set_output`` says).
        first_row : int, default=0
            Position of the block's first row in the whole data: a refused
            value is named by its row in the data, as in memory, and so is a
            row in a warning whose message goes through
            :func:`~skprivate.utils._statistic.global_rows`.  Such a warning
            is still raised per block (a share it states is the block's).

        Returns
        -------
        released : array-like
        """
        token = _BLOCK_GENERATOR.set(np.random.default_rng(seed))
        try:
            with rows_counted_from(first_row):
                if release is None:
                    return self._transform(X)
                return release(self, X)
        finally:
            _BLOCK_GENERATOR.reset(token)


class PrivatizedInputMixin:
    """Shared rule of learners: privatized data in, or ``privatizer=`` to simulate.

    A learner using this mixin has a ``privatizer`` parameter.  With
    ``privatizer=None`` its ``fit`` receives data already in the privatized
    format.  With a privatizer, ``fit`` receives raw data, and
    :meth:`_privatize` clones the privatizer, fits it and transforms the data,
    storing the fitted clone as ``privatizer_``.  ``predict`` and ``score``
    always take clean inputs.

    The fitted ``privatizer_`` is also the public description of the
    mechanism for the learner (noise scale, design, bounds), so a learner
    reads mechanism parameters from it when present.

    **The release is kept; the raw input never is.**  A learner that
    privatized its input keeps what its privatizer released as
    ``released_`` (the privatized data, every ``partial_fit`` chunk
    appended; ``None`` without a privatizer, when the user holds the
    privatized data, and for a dask collection, whose release stays lazy
    and is not computed a second time).  Methods called after ``fit`` that
    read records (``conf_int``, its bootstrap) read ``released_`` and
    refuse data passed to them: the data a user has at hand are the raw
    values given to ``fit``, and an interval computed from them would put
    raw values in its output (one record is the difference of two such
    intervals).  Keeping the release costs its memory; it leaks nothing
    that was not already released.

    Randomness follows the rule of :class:`PrivatizerMixin`: each ``fit``
    privatizes with a fresh clone of the privatizer, so with
    ``random_state=None`` every fit draws fresh noise, and with an int seed
    the noise is a function of the seed, the privatizer's settings and the
    data.  Two fits on different data (folds, bootstrap samples, another
    batch) never share noise, nor do two candidates of a grid search that
    differ in a privacy parameter, while refitting on the same data
    reproduces the same fit, as scikit-learn expects of a seeded estimator.
    Chunks passed to ``partial_fit`` are released by ``privatizer_``, each
    with its own call index and data fingerprint.

    Given a dask collection, ``privatizer.fit_transform`` releases it lazily
    (see :class:`PrivatizerMixin`), so :meth:`_privatize` serves both.
    """

    def _privatize(self, data: Any, stream: bool = False) -> Any:
        """Privatize ``data`` with a clone of ``self.privatizer`` if one is set.

        Parameters
        ----------
        data : array-like
            Raw data when ``self.privatizer`` is set; privatized data
            otherwise (returned unchanged).
        stream : bool, default=False
            Whether more chunks will be privatized later with
            ``self.privatizer_.transform`` (``partial_fit``).  Kept for
            callers; every fitted privatizer continues its own stream (see
            :class:`PrivatizerMixin`), so chunks always draw fresh noise.

        Returns
        -------
        data : array-like
            The data the learner should fit on.
        """
        if self.privatizer is None:
            self.privatizer_ = None
            self.released_ = None
            return data
        privatizer = clone(self.privatizer)
        privatized = privatizer.fit_transform(data)
        self.privatizer_ = privatizer
        self.released_ = None if is_dask_collection(privatized) else privatized
        return privatized

    def _release_chunk(self, data: Any) -> Any:
        """Release a later ``partial_fit`` chunk with ``privatizer_``.

        The chunk's release is appended to ``released_``, so the learner
        keeps all it released.

        Parameters
        ----------
        data : array-like
            Raw rows of the chunk.

        Returns
        -------
        released : array-like
            The chunk's release, which the learner fits on.
        """
        released = self.privatizer_.transform(data)
        kept = getattr(self, "released_", None)
        if kept is None:
            self.released_ = released
        elif hasattr(kept, "iloc"):
            import pandas as pd

            self.released_ = pd.concat([kept, released])
        else:
            self.released_ = np.concatenate([np.asarray(kept), np.asarray(released)])
        return released

    def _privatize_numeric(self, X: Any, reset: bool) -> Any:
        """Numeric ``X`` validated, then privatized (or released by ``privatizer_``).

        ``reset`` (``fit``, the first ``partial_fit`` chunk) sets the input
        attributes and privatizes with a fresh clone; later chunks are
        checked against them and released by the fitted ``privatizer_``.
        Values are not checked here: the learner's statistic refuses a
        non-finite one naming its row.  A dask collection stays lazy.

        Parameters
        ----------
        X : array-like or dask collection of shape (n_samples, n_features)
            Privatized data, or raw data with ``privatizer``.
        reset : bool
            Whether this call starts a fit.

        Returns
        -------
        data : ndarray or dask collection
            The data the learner's statistic reads.
        """
        X = validate_rows(
            self,
            check_numeric_input(X),
            reset=reset,
            dtype=np.float64,
            ensure_all_finite=False,
        )
        if reset:
            return self._privatize(X, stream=True)
        return X if self.privatizer_ is None else self._release_chunk(X)


class SufficientStatisticMixin:
    """Learners fitted from a statistic of their rows that merges across blocks.

    When a learner's estimate depends on its rows only through a statistic
    that merges (counts on a grid fixed in advance, counts of distinct
    rows), one implementation of that statistic serves three ways of
    fitting:

    * ``fit`` on an in-memory array: the statistic of one block;
    * ``partial_fit``: the statistic of each chunk merged into the running
      one (rows numbered from the rows seen before);
    * ``fit`` on a dask array or DataFrame: the statistic of every row
      partition computed on the workers and the values merged in a tree.

    A learner's public ``fit`` calls :meth:`_fit_statistic` and its
    ``partial_fit`` :meth:`_partial_fit_statistic`; it implements

    * ``_statistic_input(X, reset)``: validate ``X`` and privatize it (with
      :func:`~skprivate.utils._statistic.validate_rows` and
      :meth:`PrivatizedInputMixin._privatize`, which keep a dask
      collection lazy); ``reset`` is ``False`` for the later chunks of
      ``partial_fit``;
    * ``_statistic_plan(data, stream, **fit_params)``: a
      :class:`~skprivate.utils._statistic.RowStatistic` (its ``block``
      validates the rows and names a bad one by its row in the whole data,
      its ``merge`` merges values), set up from the settings and the
      fitted privatizer, reading at most a summary of ``data`` through
      :func:`~skprivate.utils._statistic.reduce_rows`; or ``None`` when
      the settings need all the rows at once (an in-memory fit then calls
      ``_fit_all_rows(data)``).  With ``stream`` (the first chunk of
      ``partial_fit``) it must return a statistic that later chunks can be
      added to (its grid fixed by the settings, not by the chunk);
    * ``_statistic_fit(statistic, total, added)``: the estimate from the
      merged value ``total`` (``added`` is the value of the rows given to
      this call), checking it before changing any attribute;
    * optionally ``_check_streaming(first)``: refuse ``partial_fit`` before
      anything is read or changed (settings that need all the rows);
    * optionally ``_STREAM_SETTINGS``, the parameters that shape the stored
      statistic (every parameter by default).

    ``partial_fit`` refuses a chunk when one of those settings changed
    (``set_params``, nested ones such as ``privatizer__epsilon`` included)
    since the statistic was started by the first chunk or by ``fit``: the
    running value belongs to the old settings.  A later chunk's rows are
    numbered from the rows seen before, in its validation and release as
    in its statistic, so a bad value is named by the row that ``fit`` of
    all the chunks would name.

    A new learner gains dask support by implementing these; the drivers
    below and :func:`check_in_memory`'s list of such learners find it.
    """

    #: Parameters that shape the statistic kept between ``partial_fit``
    #: calls (``None``: every parameter); those only read when the estimate
    #: is computed from the merged value may change between chunks.
    _STREAM_SETTINGS: ClassVar[tuple[str, ...] | None] = None

    def _fit_statistic(self, X: Any, y: Any = None, **fit_params: Any):
        """``fit``: one block of an array, or a tree over a dask collection."""
        self._check_params()
        if is_dask_collection(X) and (
            y is not None or any(v is not None for v in fit_params.values())
        ):
            given = ["y"] * (y is not None) + [
                k for k, v in fit_params.items() if v is not None
            ]
            raise ValueError(
                f"{type(self).__name__}.fit of a dask collection takes no y, "
                f"sample_weight or other argument; got {sorted(given)}."
            )
        for attr in (
            "_statistic",
            "_statistic_value",
            "_statistic_rows",
            "_statistic_settings",
        ):
            self.__dict__.pop(attr, None)
        data = self._statistic_input(X, reset=True)
        statistic = self._statistic_plan(data, stream=False, **fit_params)
        if statistic is None:
            return self._fit_all_rows(data)
        total, n_rows = count_and_reduce_rows(data, statistic)
        self._statistic_fit(statistic, total, total)
        if statistic.streamable:  # partial_fit may add chunks
            self._statistic = statistic
            self._statistic_value = total
            self._statistic_rows = n_rows
            self._statistic_settings = self._stream_settings()
        return self

    def _partial_fit_statistic(self, X: Any):
        """``partial_fit``: merge the chunk's statistic into the running one."""
        self._check_params()
        if is_dask_collection(X):
            raise TypeError(
                f"{type(self).__name__}.partial_fit takes in-memory chunks; give "
                "the whole dask collection to fit, which merges per-partition "
                "statistics (supported by " + ", ".join(_statistic_learners()) + ")."
            )
        first = "_statistic" not in self.__dict__
        settings = self._stream_settings()
        if not first:
            before = self._statistic_settings
            keys = sorted(before.keys() | settings.keys())  # a nested key may go
            check_unchanged_settings(
                {key: before.get(key) for key in keys},
                {key: settings.get(key) for key in keys},
            )
        self._check_streaming(first)
        seen = 0 if first else self._statistic_rows
        with rows_counted_from(seen):  # the chunk's checks and release
            data = self._statistic_input(X, reset=first)
        if first:
            statistic = self._statistic_plan(data, stream=True)
            before = []
        else:
            statistic = self._statistic
            before = [self._statistic_value]
        added = statistic.block(data, seen)
        total = statistic.merge([*before, added]) if before else added
        self._statistic_fit(statistic, total, added)
        self._statistic = statistic
        self._statistic_value = total
        self._statistic_rows = seen + n_rows(data)
        self._statistic_settings = settings
        return self

    def _stream_settings(self) -> dict[str, str]:
        """The settings that shape the statistic, as comparable text.

        The parameters of ``_STREAM_SETTINGS`` (all by default) with their
        nested ones (``privatizer__epsilon``), so that a change is named
        where it was made: an estimator by its class (its parameters are
        the nested entries), any other value in the canonical form of
        :func:`~skprivate.utils._seeding.canonical`.

        Returns
        -------
        dict
        """
        params = self.get_params(deep=True)
        names = self._STREAM_SETTINGS
        settings = {}
        for key, value in params.items():
            if names is not None and key.split("__")[0] not in names:
                continue
            if hasattr(value, "get_params") and not isinstance(value, type):
                kind = type(value)
                settings[key] = f"{kind.__module__}.{kind.__qualname__}"
            else:
                settings[key] = canonical(value)
        return settings

    def _check_streaming(self, first: bool) -> None:
        """Refuse ``partial_fit`` early; by default every call is accepted."""

    def _statistic_input(self, X: Any, reset: bool) -> Any:
        raise NotImplementedError  # pragma: no cover - the protocol's hook

    def _statistic_plan(
        self, data: Any, stream: bool, **fit_params: Any
    ) -> RowStatistic | None:
        raise NotImplementedError  # pragma: no cover - the protocol's hook

    def _statistic_fit(self, statistic: RowStatistic, total: Any, added: Any) -> None:
        raise NotImplementedError  # pragma: no cover - the protocol's hook

    def _fit_all_rows(self, data: Any):
        raise NotImplementedError  # pragma: no cover - the protocol's hook


def _statistic_learners() -> list[str]:
    """Names of the public learners that fit from merged statistics."""
    return [
        name
        for name, cls in all_estimators()
        if issubclass(cls, SufficientStatisticMixin)
    ]


def check_in_memory(estimator: Any, X: Any, method: str = "fit") -> None:
    """Refuse a dask collection given to a learner that needs all its rows.

    Parameters
    ----------
    estimator : estimator
        The learner.
    X : object
        Its input.
    method : str, default="fit"
        The method called, for the message.

    Raises
    ------
    TypeError
        When ``X`` is a dask collection; the message lists the learners
        that fit one (those implementing :class:`SufficientStatisticMixin`).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.base import BaseEstimator
    >>> from skprivate.base import check_in_memory
    >>> check_in_memory(BaseEstimator(), np.zeros((3, 1)))  # in memory: fine
    """
    if not is_dask_collection(X):
        return
    raise TypeError(
        f"{type(estimator).__name__}.{method} does not accept dask collections "
        "(its estimate needs all the records at once, or its statistics do not "
        "merge across partitions). Learners that fit a dask array or DataFrame "
        "from merged per-partition statistics: "
        f"{', '.join(_statistic_learners())}. Otherwise compute a sample that "
        "fits in memory first (X.sample(...).compute())."
    )
