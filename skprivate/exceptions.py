"""Warnings and errors raised by skprivate."""

from __future__ import annotations

__all__ = [
    "CoverageWarning",
    "InvalidParameterError",
    "NotIdentifiableWarning",
    "PrivacyLeakWarning",
]


class PrivacyLeakWarning(RuntimeWarning):
    """A quantity that should be public was derived from the private data.

    Raised, for instance, when a privatizer is fitted without ``bounds`` and
    reads the range of each column from the raw values: the bounds are then a
    function of the data and the stated privacy guarantee no longer holds for
    the records at the extremes.  Fix it by passing bounds that are known
    before the data are seen.
    """


class NotIdentifiableWarning(UserWarning):
    """The data cannot identify the quantity asked for.

    For example, interval reports whose anchors never reach part of the
    support leave the population distribution unidentified there.
    """


class CoverageWarning(UserWarning):
    """A confidence interval is likely to cover less often than its level.

    Or its coverage depends on the unknown truth far more than on chance (a
    release rounded to a coarse grid covers more or less often depending on
    where the truth lies between two grid values).

    Raised by ``conf_int`` where a documented check on the data says that the
    interval's approximation does not hold for this setting (for instance,
    the held-out likelihood cannot tell apart smoothing widths that give
    different estimates, a variability the linearized interval leaves out).
    The message names the reason and the method that does not rely on it.
    """


class InvalidParameterError(ValueError, TypeError):
    """A constructor parameter has the wrong type or value.

    Subclasses both :class:`ValueError` and :class:`TypeError`, so callers can
    catch either, as with scikit-learn's own parameter validation.
    """
