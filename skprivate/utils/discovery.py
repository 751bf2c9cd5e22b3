"""Find every public estimator of skprivate."""

from __future__ import annotations

import importlib
import inspect
import os
import pkgutil

from sklearn.base import BaseEstimator

__all__ = ["all_estimators"]


def all_estimators() -> list[tuple[str, type]]:
    """List the public estimator classes of skprivate.

    A class counts when it is a non-abstract subclass of
    :class:`sklearn.base.BaseEstimator` defined in skprivate and listed in the
    ``__all__`` of a public (non-underscore) module or subpackage.  Adding a
    class to a family's ``__all__`` is therefore enough for the common tests
    to cover it.

    Returns
    -------
    estimators : list of (name, class)
        Sorted by name, without duplicates.

    Examples
    --------
    >>> from skprivate.utils import all_estimators
    >>> names = [name for name, _ in all_estimators()]
    """
    # The package is walked by path at call time (as scikit-learn's own
    # all_estimators does), not imported by name: utils sits below every
    # family and imports none of them.
    root = os.path.dirname(os.path.dirname(__file__))
    name = __name__.partition(".")[0]
    found: dict[str, type] = {}
    modules = [importlib.import_module(name)]
    for info in pkgutil.walk_packages([root], prefix=f"{name}."):
        parts = info.name.split(".")
        if any(p.startswith("_") for p in parts) or "tests" in parts:
            continue
        modules.append(importlib.import_module(info.name))
    for module in modules:
        for name in getattr(module, "__all__", ()):
            obj = getattr(module, name, None)
            if (
                inspect.isclass(obj)
                and issubclass(obj, BaseEstimator)
                and obj.__module__.startswith("skprivate")
                and not inspect.isabstract(obj)
                and not name.startswith("_")
            ):
                found[name] = obj
    return sorted(found.items())
