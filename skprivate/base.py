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

import hashlib
import numbers
from typing import Any, ClassVar

import joblib
import numpy as np
from sklearn.base import TransformerMixin, clone

from ._doc_link import DocLinkMixin
from .utils._dask import add_dask_dispatch
from .utils._param_validation import validate_params
from .utils.validation import check_generator

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


def _same_random_state(a: Any, b: Any) -> bool:
    """Whether two ``random_state`` values are the same setting."""
    if a is b:
        return True
    return (
        isinstance(a, numbers.Integral)
        and isinstance(b, numbers.Integral)
        and not isinstance(a, bool)
        and not isinstance(b, bool)
        and int(a) == int(b)
    )


def _seed_sequence(random_state: Any) -> np.random.SeedSequence | None:
    """The root of a noise stream for ``random_state``.

    ``None`` gives fresh OS entropy and an int a fixed root; a ``Generator``
    or ``RandomState`` gives ``None``: such an object is itself the stream.
    """
    if random_state is None:
        return np.random.SeedSequence()
    if isinstance(random_state, np.random.Generator | np.random.RandomState):
        return None
    if isinstance(random_state, numbers.Integral) and not isinstance(
        random_state, bool
    ):
        return np.random.SeedSequence(int(random_state))
    raise ValueError(
        "random_state must be None, an int, a numpy RandomState or Generator; "
        f"got {random_state!r}."
    )


def _child_of(random_state: Any) -> np.random.SeedSequence:
    """A new seed sequence drawn from a ``Generator`` or ``RandomState``."""
    if isinstance(random_state, np.random.Generator):
        entropy = random_state.integers(0, 2**63 - 1, size=2)
    else:
        entropy = random_state.randint(0, np.iinfo(np.int32).max, size=4)
    return np.random.SeedSequence([int(e) for e in entropy])


def _fingerprint(data: Any, privatizer: Any) -> int:
    """A 128-bit SHA-256 fingerprint of ``data`` and the privatizer's settings.

    ``random_state`` is left out (it is mixed in separately).  Objects that
    cannot be hashed by content fall back to their type name.
    """
    digest = hashlib.sha256(b"skprivate privatizer seed\0")
    params = {}
    if hasattr(privatizer, "get_params"):
        params = privatizer.get_params(deep=False)
    params = {k: v for k, v in params.items() if k != "random_state"}
    for part in (data, type(privatizer).__qualname__, params):
        try:
            text = joblib.hash(part, hash_name="sha1")
        except Exception:  # unpicklable: hash the type only
            text = type(part).__qualname__
        digest.update(str(text).encode())
    return int.from_bytes(digest.digest()[:16], "little")


def _canonical(value: Any) -> str:
    """A text form of a parameter value that is the same in every process.

    Numbers compare by value (``1`` and ``1.0`` agree), sequences by their
    items (a tuple and a list agree), arrays by dtype, shape and bytes,
    estimators by class and parameters, and other objects by their type's
    qualified name (never by ``id`` or ``hash``, which vary between runs).
    """
    if value is None or isinstance(value, bool | np.bool_ | str | bytes):
        return repr(bool(value) if isinstance(value, np.bool_) else value)
    if isinstance(value, numbers.Integral):
        return f"n:{int(value)}"
    if isinstance(value, numbers.Real):
        number = float(value)
        if number.is_integer() and abs(number) < 2.0**63:
            return f"n:{int(number)}"
        return f"f:{number.hex()}"
    if isinstance(value, np.ndarray):
        if value.dtype == object:
            return f"a:{value.shape}:{_canonical(value.tolist())}"
        data = np.ascontiguousarray(value)
        digest = hashlib.sha256(data.tobytes()).hexdigest()
        return f"a:{data.dtype.str}:{data.shape}:{digest}"
    if isinstance(value, list | tuple):
        return "[" + ",".join(_canonical(v) for v in value) + "]"
    if isinstance(value, dict):
        items = sorted((_canonical(k), _canonical(v)) for k, v in value.items())
        return "{" + ",".join(f"{k}={v}" for k, v in items) + "}"
    kind = type(value)
    if hasattr(value, "get_params") and not isinstance(value, type):
        params = _canonical(value.get_params(deep=False))
        return f"e:{kind.__module__}.{kind.__qualname__}{params}"
    if callable(value) and hasattr(value, "__qualname__"):
        return f"c:{getattr(value, '__module__', '')}.{value.__qualname__}"
    return f"o:{kind.__module__}.{kind.__qualname__}"


def _settings_fingerprint(privatizer: Any) -> int:
    """A 128-bit SHA-256 fingerprint of a privatizer's class and settings.

    Every parameter but ``random_state`` enters, in the canonical form of
    :func:`_canonical`, so the fingerprint is the same in every process and
    differs whenever a setting (say ``epsilon``) does.
    """
    kind = type(privatizer)
    params = {}
    if hasattr(privatizer, "get_params"):
        params = privatizer.get_params(deep=False)
    params.pop("random_state", None)
    text = f"{kind.__module__}.{kind.__qualname__}{_canonical(params)}"
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
    ``draw_anchors``) draws *fresh* noise, whatever ``random_state`` is; no
    two calls ever reuse the same noise, so the difference of two releases
    never cancels the noise.  ``random_state`` fixes the *sequence* of
    calls, not one call:

    * ``None``: fresh OS entropy, nothing is reproducible;
    * an int: the instance keeps a stream rooted at
      ``numpy.random.SeedSequence([seed, fingerprint])``, where
      ``fingerprint`` is a SHA-256 digest of the class and of every other
      parameter (``epsilon``, ``bounds``, ...; the same in every process).
      Call 1 draws from the root itself and every later call from the next
      child of it (``SeedSequence.spawn``, which is independent of the
      root's own draws).  A fresh instance (or a
      :func:`sklearn.base.clone`) with the same seed *and the same
      settings* reproduces call 1, call 2, ... in order.  Two privatizers
      that differ in a setting draw independent noise even with the same
      seed: otherwise ``LaplaceLDP(epsilon=1, random_state=0)`` and
      ``LaplaceLDP(epsilon=2, random_state=0)`` would add the same standard
      noise at two scales, and ``x = (b2 y1 - b1 y2) / (b2 - b1)`` would
      recover the data from the two releases.  Refitting does not restart
      the stream (it would add the same noise to the new data); setting
      ``random_state`` with ``set_params`` does, even to the same value (an
      explicit request to replay the sequence, which scikit-learn's
      ``set_random_state`` makes before each fit it compares);
    * a ``numpy.random.Generator``: used as is, so calls continue its
      stream (and any other user of the same generator advances it);
    * a ``numpy.random.RandomState``: each call seeds a new generator from
      one draw of it.

    Subclasses get the generator of a call from :meth:`_next_generator`
    (one call, one generator) and never build one from ``random_state``
    themselves.  The generator's bit generator carries its seed sequence,
    so work split into blocks can ``spawn`` independent streams from it.

    Caveats: :func:`sklearn.base.clone` deep-copies a ``RandomState`` or
    ``Generator`` passed as ``random_state``, so two clones given the same
    instance draw the same noise sequence; pass an int seed with distinct
    values, or ``None``, when clones must differ.  Likewise a pickled
    fitted privatizer stores the position of its stream: two copies loaded
    from the same pickle draw the same noise on their next call.
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
        """Set parameters; setting ``random_state`` restarts the noise stream.

        Parameters
        ----------
        **params : dict
            Estimator parameters.

        Returns
        -------
        self : estimator instance
        """
        if "random_state" in params:
            self.__dict__.pop("_noise_state", None)
        return super().set_params(**params)

    def _check_params(self) -> None:
        super()._check_params()
        # Build the noise stream at fit time, so that transform only draws
        # from it (scikit-learn's checks expect transform to add no attribute).
        self._noise_stream()

    def _noise_stream(self) -> tuple[Any, np.random.SeedSequence | None, list]:
        """The ``(random_state, root, started)`` triple of the current stream.

        ``started`` is an empty list until the first call has drawn from the
        root.

        Built on first use and rebuilt when ``random_state`` has changed.
        """
        state = getattr(self, "random_state", None)
        current = self.__dict__.get("_noise_state")
        if current is None or not _same_random_state(current[0], state):
            root = _seed_sequence(state)
            if root is not None and state is not None:
                # an int seed: mix in the settings, so that two privatizers
                # differing only in, say, epsilon never share noise
                root = np.random.SeedSequence([int(state), _settings_fingerprint(self)])
            current = (state, root, [])
            self._noise_state = current
        return current

    def _seed_noise(self, seed_sequence: np.random.SeedSequence) -> None:
        """Root the stream at ``seed_sequence`` for the current ``random_state``.

        Used by learners with ``privatizer=``: each fit gives its fresh clone
        of the privatizer the next child of the learner's own stream, so that
        refits draw fresh noise while the whole sequence stays reproducible.
        """
        self._noise_state = (getattr(self, "random_state", None), seed_sequence, [])

    def _next_generator(self) -> np.random.Generator:
        """The generator of one release call, never the same twice.

        Returns
        -------
        numpy.random.Generator
            The next child of the instance's stream (an int or ``None``
            ``random_state``), the ``Generator`` given as ``random_state``
            itself, or a generator seeded by one draw of a ``RandomState``.
        """
        state, root, calls = self._noise_stream()
        if root is None:
            return check_generator(state)
        # call 1 draws from the root itself (what default_rng(seed) draws),
        # every later call from the next child of it
        if calls:
            return np.random.default_rng(root.spawn(1)[0])
        calls.append(True)
        return np.random.default_rng(root)


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

    Randomness follows the rule of :class:`PrivatizerMixin`.  Each ``fit``
    privatizes with a fresh clone whose stream is rooted at the privatizer's
    ``random_state`` *and* a SHA-256 fingerprint of the data and of the
    privatizer's other parameters.  So with an int seed, two fits on
    different data (folds, bootstrap samples, another batch) never share
    noise, nor do two candidates of a grid search that differ in a privacy
    parameter (same standard noise at two scales would reveal the data),
    while refitting on the same data reproduces the same fit, as
    scikit-learn expects of a seeded estimator.  With ``random_state=None``
    every fit is fresh; with a ``Generator`` or ``RandomState`` each fit
    draws its seed from it.  Chunks passed to ``partial_fit`` continue the
    stream of ``privatizer_``, one fresh child per chunk.
    """

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # dask input: merged per-partition statistics, or a clear TypeError
        add_dask_dispatch(cls, "learner")

    def _privatizer_seed(self, data: Any) -> np.random.SeedSequence:
        """The seed sequence of the privatizer fitted on ``data``."""
        state = getattr(self.privatizer, "random_state", None)
        root = _seed_sequence(state)
        if root is None:  # a Generator or RandomState: draw from the user's own
            return _child_of(state)
        if state is None:
            return root
        return np.random.SeedSequence([int(state), _fingerprint(data, self.privatizer)])

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
        if isinstance(privatizer, PrivatizerMixin):
            privatizer._seed_noise(self._privatizer_seed(data))
        privatized = privatizer.fit_transform(data)
        self.privatizer_ = privatizer
        return privatized
