"""Declarative validation of estimator parameters.

Every estimator declares ``_parameter_constraints``: a mapping from each
constructor parameter to a list of accepted constraints.  ``validate_params``
checks the current values in ``fit`` (never in ``__init__``, so that
``set_params`` from a grid search is validated too) and raises
:class:`~skprivate.exceptions.InvalidParameterError` with a message that
names the parameter, what it accepts and what it got.

Only public scikit-learn API is used here; the module mirrors the vocabulary
of scikit-learn's constraints so that a reader of either feels at home.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..exceptions import InvalidParameterError

__all__ = [
    "HasMethods",
    "Interval",
    "Options",
    "validate_params",
]


@dataclass(frozen=True)
class Interval:
    """Numbers of a given type within ``[left, right]``.

    Parameters
    ----------
    type : {numbers.Integral, numbers.Real}
        ``Integral`` accepts Python and NumPy integers (not bools); ``Real``
        accepts every real number except bools.
    left, right : float or None
        Bounds; ``None`` means unbounded on that side.
    closed : {"left", "right", "both", "neither"}
        Which bounds belong to the interval.
    allow_inf : bool, default=False
        Whether ``inf`` and ``-inf`` are accepted (when within the bounds).
        NaN is always refused.  Privacy parameters (epsilon, delta, noise
        scales) keep the default: an infinite budget or scale is no
        guarantee at all.

    Examples
    --------
    >>> import numbers
    >>> from skprivate.utils import Interval
    >>> positive = Interval(numbers.Real, 0, None, closed="neither")
    >>> positive.is_satisfied_by(2.5), positive.is_satisfied_by(float("inf"))
    (True, False)
    >>> str(positive)
    'a finite float in the range (0, inf)'
    """

    type: type
    left: float | None
    right: float | None
    closed: str = "both"
    allow_inf: bool = False

    def is_satisfied_by(self, value: Any) -> bool:
        if isinstance(value, bool | np.bool_) or not isinstance(value, self.type):
            return False
        if isinstance(value, numbers.Real):
            try:  # any Real (a Fraction too) is read through its float
                as_float = float(value)
            except (OverflowError, ValueError, TypeError):
                return False
            if math.isnan(as_float) or (math.isinf(as_float) and not self.allow_inf):
                return False
        if self.left is not None:
            if self.closed in ("left", "both"):
                if value < self.left:
                    return False
            elif value <= self.left:
                return False
        if self.right is not None:
            if self.closed in ("right", "both"):
                if value > self.right:
                    return False
            elif value >= self.right:
                return False
        return True

    def __str__(self) -> str:
        if self.type is numbers.Integral:
            kind = "an int"
        else:
            kind = "a float" if self.allow_inf else "a finite float"
        lo = "-inf" if self.left is None else f"{self.left:g}"
        hi = "inf" if self.right is None else f"{self.right:g}"
        lb = "[" if self.closed in ("left", "both") and self.left is not None else "("
        rb = "]" if self.closed in ("right", "both") and self.right is not None else ")"
        return f"{kind} in the range {lb}{lo}, {hi}{rb}"


@dataclass(frozen=True)
class Options:
    """One of a fixed set of values (typically strings)."""

    options: frozenset

    def __init__(self, options: Iterable) -> None:
        object.__setattr__(self, "options", frozenset(options))

    def is_satisfied_by(self, value: Any) -> bool:
        try:
            return value in self.options
        except TypeError:  # unhashable value
            return False

    def __str__(self) -> str:
        return (
            "one of {" + ", ".join(repr(o) for o in sorted(self.options, key=str)) + "}"
        )


@dataclass(frozen=True)
class HasMethods:
    """An object with all of the given methods (duck-typed estimators)."""

    methods: tuple[str, ...]

    def __init__(self, methods: str | Iterable[str]) -> None:
        if isinstance(methods, str):
            methods = (methods,)
        object.__setattr__(self, "methods", tuple(methods))

    def is_satisfied_by(self, value: Any) -> bool:
        return all(callable(getattr(value, m, None)) for m in self.methods)

    def __str__(self) -> str:
        return "an object implementing " + ", ".join(f"'{m}'" for m in self.methods)


def _random_state_ok(value: Any) -> bool:
    return (
        value is None
        or (isinstance(value, numbers.Integral) and not isinstance(value, bool))
        or isinstance(value, np.random.RandomState | np.random.Generator)
    )


def _array_like_ok(value: Any) -> bool:
    return (
        hasattr(value, "__len__")
        or hasattr(value, "shape")
        or hasattr(value, "__array__")
    ) and not isinstance(value, str)


_NAMED: dict[str, tuple[Callable[[Any], bool], str]] = {
    "random_state": (
        _random_state_ok,
        "an int, a numpy RandomState or Generator, or None",
    ),
    "boolean": (lambda v: isinstance(v, bool | np.bool_), "a bool"),
    "array-like": (_array_like_ok, "an array-like"),
    "callable": (callable, "a callable"),
    "string": (lambda v: isinstance(v, str), "a str"),
}


def _check_one(constraint: Any, value: Any) -> tuple[bool, str]:
    if constraint is None:
        return value is None, "None"
    if isinstance(constraint, str):
        if constraint not in _NAMED:
            raise ValueError(
                f"constraints holds an unknown constraint {constraint!r}; the "
                f"named ones are {sorted(_NAMED)}."
            )
        test, text = _NAMED[constraint]
        return bool(test(value)), text
    if isinstance(constraint, type):
        ok = isinstance(value, constraint) and not (
            constraint in (numbers.Real, numbers.Integral, int, float)
            and isinstance(value, bool | np.bool_)
        )
        return ok, f"an instance of '{constraint.__name__}'"
    return bool(constraint.is_satisfied_by(value)), str(constraint)


def validate_params(
    constraints: Mapping[str, list | str],
    params: Mapping[str, Any],
    caller_name: str,
) -> None:
    """Check ``params`` against ``constraints``.

    Parameters
    ----------
    constraints : dict
        Maps a parameter name to a list of constraints (``None``, a type, an
        :class:`Interval`, :class:`Options` or :class:`HasMethods` instance,
        or one of the strings ``"random_state"``, ``"boolean"``,
        ``"array-like"``, ``"callable"``, ``"string"``) or to the string
        ``"no_validation"``.
    params : dict
        Current parameter values (``estimator.get_params(deep=False)``).
    caller_name : str
        Used in the error message, usually the class name.

    Raises
    ------
    InvalidParameterError
        If a value satisfies none of its constraints.
    """
    for arg, given in (("constraints", constraints), ("params", params)):
        if not isinstance(given, Mapping):
            raise TypeError(
                f"{arg} must be a mapping from parameter names; got "
                f"{type(given).__name__}."
            )
    for name, value in params.items():
        allowed = constraints.get(name)
        if allowed is None:
            raise InvalidParameterError(
                f"{caller_name} has no constraint declared for parameter '{name}'."
            )
        if allowed == "no_validation":
            continue
        texts = []
        for constraint in allowed:
            ok, text = _check_one(constraint, value)
            if ok:
                break
            texts.append(text)
        else:
            expected = (
                texts[0]
                if len(texts) == 1
                else (", ".join(texts[:-1]) + " or " + texts[-1])
            )
            raise InvalidParameterError(
                f"The '{name}' parameter of {caller_name} must be {expected}. "
                f"Got {value!r} instead."
            )
