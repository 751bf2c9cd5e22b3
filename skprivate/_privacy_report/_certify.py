"""Which steps before a privatizer keep its epsilon: the row-wise rule.

A privatizer's epsilon bounds what the release of one record reveals about
that record only if the record's input to the privatizer is computed from
the record alone.  A step that mixes records (a fitted mean, a maximum over
the batch) lets one record move every other record's released value, so a
step before a privatizer keeps the privatizer's epsilon only when it is

* a scikit-learn step known to act on each row alone whose fitted state, if
  any, follows from its parameters and the column count (``_KNOWN``), or
* declared row-wise with :class:`RowwiseTransformer` and has learned nothing
  from the records beyond the column count and names.
"""

from __future__ import annotations

from typing import Any

from sklearn.preprocessing import (
    Binarizer,
    FunctionTransformer,
    Normalizer,
    OneHotEncoder,
    OrdinalEncoder,
    PolynomialFeatures,
    SplineTransformer,
)

from ._inspect import _requires_fit
from ._rowwise import RowwiseTransformer

NOT_CERTIFIED = (
    "not certified: this step may let one record change other records' released values"
)
# What a fit may record without learning anything about the records.
_SCHEMA = frozenset({"n_features_in_", "feature_names_in_"})


def _fixed_categories(est: Any) -> bool:
    """Categories given as lists and no grouping of rare ones (learned)."""
    return (
        not isinstance(est.categories, str)
        and getattr(est, "min_frequency", None) is None
        and getattr(est, "max_categories", None) is None
    )


def _known(est: Any) -> str | None:
    """Why a scikit-learn step maps each row alone with a data-free fitted
    state, or None.  Exact classes only: a subclass may override transform."""
    kind = type(est)
    if kind is FunctionTransformer and est.func is None:
        return "the identity"
    if kind is Normalizer:
        return "divides each row by its own norm"
    if kind is Binarizer:
        return "compares each value with a fixed threshold"
    if kind is PolynomialFeatures:
        return (
            "multiplies a row's own columns; its fitted powers follow from "
            "the column count"
        )
    if kind is SplineTransformer and not isinstance(est.knots, str):
        return "evaluates B-splines on the knots given as a parameter"
    if kind in (OneHotEncoder, OrdinalEncoder) and _fixed_categories(est):
        return "encodes each value against the categories given as a parameter"
    return None


def _held(value: Any) -> list:
    """Estimators held by an attribute or parameter value."""
    if hasattr(value, "fit") and hasattr(value, "get_params"):
        return [] if isinstance(value, type) else [value]
    if isinstance(value, list | tuple):
        return [e for item in value for e in _held(item)]
    return []


def _learned(est: Any, path: str = "") -> list[str]:
    """Fitted attributes of ``est`` (and of the estimators it holds) that
    may hold information about the records: public names ending in ``_``
    beyond the column count and names, held estimators searched in turn."""
    if _known(est) is not None:
        return []
    found = []
    for name, value in vars(est).items():
        if name.startswith("_") or not name.endswith("_") or name in _SCHEMA:
            continue
        inner = _held(value)
        if inner:
            found += [a for e in inner for a in _learned(e, f"{path}{name}.")]
        else:
            found.append(f"{path}{name}")
    for name, value in est.get_params(deep=False).items():
        found += [a for e in _held(value) for a in _learned(e, f"{path}{name}.")]
    return found


def _stateless(est: Any) -> bool:
    """Whether an unfitted step can be seen to learn nothing in ``fit``."""
    if _known(est) is not None or isinstance(est, FunctionTransformer):
        return True
    held = [e for v in est.get_params(deep=False).values() for e in _held(v)]
    if held:
        return all(_stateless(e) for e in held)
    return not _requires_fit(est)


def step_status(step: Any, fitted: bool) -> tuple[bool, str]:
    """Whether ``step`` before a privatizer keeps its epsilon, and why.

    ``fitted=False`` judges an unfitted step from its parameters (the
    candidates of a search fitted with ``refit=False``).
    """
    name = type(step).__name__
    known = _known(step)
    if known is not None:
        return True, f"{name} {known} (row-wise)"
    if isinstance(step, RowwiseTransformer):
        inner = getattr(step, "transformer_", None) if fitted else None
        if inner is None:
            inner, fitted = step._inner(), False
        inner_name = type(inner).__name__
        label = f"RowwiseTransformer({inner_name})"
        if _known(inner) is not None:
            return True, f"{label}: {inner_name} {_known(inner)}"
        if fitted:
            learned = _learned(inner)
            if learned:
                return False, (
                    f"{label} is declared row-wise but learned "
                    f"{', '.join(learned)} from the records in fit"
                )
        elif not _stateless(inner):
            return False, (
                f"{label} is declared row-wise but {inner_name} may learn "
                "from the records in fit (not fitted: its state cannot be read)"
            )
        return True, f"{label}: declared row-wise, no state learned from the records"
    if isinstance(step, FunctionTransformer):
        func = getattr(step.func, "__name__", type(step.func).__name__)
        return False, (
            f"FunctionTransformer applies {func} to the whole array and is not "
            "declared row-wise (wrap it in RowwiseTransformer if each output "
            "row depends on its own input row only)"
        )
    if _requires_fit(step):
        return False, (
            f"{name} is fitted on the raw values: its fitted state may depend "
            "on every record"
        )
    return False, f"{name} is not known to compute each row from that row alone"
