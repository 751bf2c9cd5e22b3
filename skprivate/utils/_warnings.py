"""Warnings that name the user's line, and warnings shown once per process.

A warning is about the call the user made, so it names the first frame of
the stack outside skprivate and the libraries that call it on the user's
behalf (scikit-learn's meta-estimators, joblib, dask): :func:`external_stacklevel`
counts the frames to skip, whatever the path from the user's call to the
warning (a template method, a learner privatizing its data, a dask driver).

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

import os
import re
import sys
import warnings

__all__ = ["external_stacklevel", "warn_once"]

_SHOWN: set[tuple[type[Warning], str]] = set()


def _library_roots() -> tuple[str, ...]:
    """Folders of skprivate and of the libraries that call it, as frames name them."""
    roots = [os.path.dirname(os.path.dirname(__file__))]
    for name in ("sklearn", "joblib", "dask", "distributed"):
        module = sys.modules.get(name)
        if module is not None and getattr(module, "__file__", None):
            roots.append(os.path.dirname(module.__file__))
    return tuple(root + os.sep for root in roots)


def external_stacklevel() -> int:
    """The ``stacklevel`` that makes a warning name the user's line.

    Call it as the ``stacklevel`` argument of :func:`warnings.warn`: the
    count starts at the function that warns and skips every frame in
    skprivate, scikit-learn, joblib or dask, so the warning points at the
    first frame outside them (the outermost frame when there is none, as in
    a worker thread).

    Returns
    -------
    int

    Examples
    --------
    >>> from skprivate.utils._warnings import external_stacklevel
    >>> external_stacklevel()  # called from outside the library: its caller
    1
    """
    roots = _library_roots()
    frame = sys._getframe(1)
    level = 1
    while frame.f_back is not None and frame.f_code.co_filename.startswith(roots):
        frame = frame.f_back
        level += 1
    return level


def _action(message: str, category: type[Warning]) -> str:
    """The action of the first filter matching ``message`` and ``category``."""
    for action, text, cat, _module, _lineno in warnings.filters:
        if not issubclass(category, cat):
            continue
        if text is not None and not re.match(text, message):
            continue
        return action
    return "default"


def warn_once(
    message: str, category: type[Warning], stacklevel: int | None = None
) -> None:
    """Warn like :func:`warnings.warn`, at most once per process by default.

    Parameters
    ----------
    message : str
        Warning text (should not vary between fits, so that repeats match).
    category : Warning subclass
        Warning category.
    stacklevel : int, optional
        As for :func:`warnings.warn`, counted from the caller of this
        function; by default the user's line (:func:`external_stacklevel`).
    """
    key = (category, message)
    if _action(message, category) in ("default", "module", "once"):
        if key in _SHOWN:
            return
        _SHOWN.add(key)
    if stacklevel is None:
        warnings.warn(message, category, stacklevel=external_stacklevel())
    else:
        warnings.warn(message, category, stacklevel=stacklevel + 1)
