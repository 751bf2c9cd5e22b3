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

from typing import Any, ClassVar

from sklearn.base import TransformerMixin, clone

from .utils._param_validation import validate_params
from .utils.validation import check_generator

__all__ = ["ParamsValidationMixin", "PrivatizedInputMixin", "PrivatizerMixin"]


class ParamsValidationMixin:
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


class PrivatizerMixin(ParamsValidationMixin, TransformerMixin):
    """Mixin for privacy mechanisms implemented as transformers.

    A privatizer's ``fit`` learns only what the mechanism needs to be defined
    (number of features, categories, or bounds when asked to take them from
    the data, with a :class:`~skprivate.exceptions.PrivacyLeakWarning`); a
    fitted privatizer never stores raw values.  ``transform`` draws fresh
    randomness on every call, so ``fit_transform`` and ``fit().transform``
    give different (equally distributed) outputs; the ``non_deterministic``
    tag tells scikit-learn's checks so.

    Every concrete privatizer implements ``privacy_summary()``, returning a
    dict ``{"notion": str, ...}`` with the quantities that define its
    guarantee in its paper's own terms (for example ``epsilon`` or the
    expected ``coverage``); the common tests check that it exists.

    Notes
    -----
    :func:`sklearn.base.clone` deep-copies a ``numpy.random.RandomState``
    passed as ``random_state``, so two clones given the same instance draw
    the same noise.  Pass an int seed (or ``None``) when clones must differ.
    """

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.non_deterministic = True
        return tags


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
            ``self.privatizer_.transform`` (``partial_fit``).  The clone then
            gets one random generator made from its ``random_state``, so that
            every chunk draws fresh noise; an int seed would otherwise restart
            the same stream at every call.

        Returns
        -------
        data : array-like
            The data the learner should fit on.
        """
        if self.privatizer is None:
            self.privatizer_ = None
            return data
        privatizer = clone(self.privatizer)
        if stream and "random_state" in privatizer.get_params():
            seed = privatizer.get_params()["random_state"]
            privatizer.set_params(random_state=check_generator(seed))
        privatized = privatizer.fit_transform(data)
        self.privatizer_ = privatizer
        return privatized
