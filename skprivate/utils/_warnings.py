"""Warnings shown once per process under the default filter.

A learner refitted in every fold of a cross-validation repeats the same
warning.  Python's default filter would show an identical message once per
location, but scikit-learn's parallel helpers re-install the caller's
filters around every fit (``warnings.catch_warnings``), which resets that
memory, so the warning was printed once per fold.  :func:`warn_once`
remembers what it has shown in this process instead.  Filters the user (or
a test) installed still decide: under ``"always"`` or ``"error"`` every
call warns (or raises); ``"ignore"`` hides it.
"""

from __future__ import annotations

import re
import warnings

__all__ = ["warn_once"]

_SHOWN: set[tuple[type[Warning], str]] = set()


def _action(message: str, category: type[Warning]) -> str:
    """The action of the first filter matching ``message`` and ``category``."""
    for action, text, cat, _module, _lineno in warnings.filters:
        if not issubclass(category, cat):
            continue
        if text is not None and not re.match(text, message):
            continue
        return action
    return "default"


def warn_once(message: str, category: type[Warning], stacklevel: int = 2) -> None:
    """Warn like :func:`warnings.warn`, at most once per process by default.

    Parameters
    ----------
    message : str
        Warning text (should not vary between fits, so that repeats match).
    category : Warning subclass
        Warning category.
    stacklevel : int, default=2
        As for :func:`warnings.warn`, counted from the caller of this
        function.
    """
    key = (category, message)
    if _action(message, category) in ("default", "module", "once"):
        if key in _SHOWN:
            return
        _SHOWN.add(key)
    warnings.warn(message, category, stacklevel=stacklevel + 1)
