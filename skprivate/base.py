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
"""

from __future__ import annotations

import contextvars
import hashlib
import numbers
import threading
from collections.abc import Callable
from typing import Any, ClassVar

import numpy as np
from sklearn.base import TransformerMixin, clone

from ._doc_link import DocLinkMixin
from .utils._dask import add_dask_dispatch
from .utils._param_validation import validate_params
from .utils._seeding import canonical, data_fingerprint, words

__all__ = ["ParamsValidationMixin", "PrivatizedInputMixin", "PrivatizerMixin"]


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
        return
    raise ValueError(
        "random_state must be None, an int, a numpy RandomState or Generator; "
        f"got {type(random_state).__name__}."
    )


def _seed_words(random_state: Any) -> list[int]:
    """The seed material of a seeded ``random_state``, as 64-bit words.

    An int is its own seed; a ``Generator`` or ``RandomState`` gives one
    draw of four words (so it advances, as any other use of it would).
    """
    if isinstance(random_state, np.random.Generator):
        return [int(e) for e in random_state.integers(0, 2**63 - 1, size=4)]
    if isinstance(random_state, np.random.RandomState):
        return [int(e) for e in random_state.randint(0, 2**31 - 1, size=4)]
    return [int(random_state) % 2**64]


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


def _settings_fingerprint(privatizer: Any) -> int:
    """A 128-bit SHA-256 fingerprint of a privatizer's class and settings.

    Every parameter but ``random_state`` enters, in the canonical form of
    :func:`skprivate.utils._seeding.canonical`, so the fingerprint is the
    same in every process and differs whenever a setting (say ``epsilon``)
    does.
    """
    kind = type(privatizer)
    params = {}
    if hasattr(privatizer, "get_params"):
        params = privatizer.get_params(deep=False)
    params.pop("random_state", None)
    text = f"{kind.__module__}.{kind.__qualname__}{canonical(params)}"
    digest = hashlib.sha256(b"skprivate privatizer settings\0" + text.encode())
    return int.from_bytes(digest.digest()[:16], "little")


class PrivatizerMixin(ParamsValidationMixin, TransformerMixin):
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
    A dask release privatizes each partition with
    :meth:`_transform_with_seed`, whose seed is a function of the call's
    seed, the partition's position and (for a seeded privatizer) its data.
    """

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # dask arrays/DataFrames are privatized lazily (skprivate.utils._dask)
        add_dask_dispatch(cls, "privatizer")

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

    def _check_params(self) -> None:
        super()._check_params()
        _check_random_state_value(getattr(self, "random_state", None))
        # Called at the start of fit: the settings the fitted state belongs to.
        # The counter is created here so that transform only advances it
        # (scikit-learn's checks expect transform to add no attribute); a
        # refit keeps counting, so refitting never replays a release.
        self._fitted_settings = self._mechanism_settings()
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
        return np.random.default_rng(np.random.SeedSequence(entropy))

    def _transform_with_seed(
        self,
        X: Any,
        seed: np.random.SeedSequence,
        release: Callable[[Any, Any], Any] | None = None,
    ) -> Any:
        """Release ``X`` with the generator of ``seed`` (one partition).

        The dask driver maps this over partitions: the seed is derived from
        the call and the partition, so recomputing a partition (a lost
        worker, a second ``compute``) gives the same release and adds no
        new noise.  Nothing is stored on the object.

        Parameters
        ----------
        X : array-like
            Raw records of one partition.
        seed : numpy.random.SeedSequence
            The partition's seed.
        release : callable, optional
            ``release(self, X)``; default ``type(self).transform``.

        Returns
        -------
        released : array-like
        """
        token = _BLOCK_GENERATOR.set(np.random.default_rng(seed))
        try:
            if release is None:
                return self.transform(X)
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
    """

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # dask input: merged per-partition statistics, or a clear TypeError
        add_dask_dispatch(cls, "learner")

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
            return data
        privatizer = clone(self.privatizer)
        privatized = privatizer.fit_transform(data)
        self.privatizer_ = privatizer
        return privatized
