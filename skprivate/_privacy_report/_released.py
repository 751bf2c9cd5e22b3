"""Estimators fitted on reports released elsewhere, and the release they read.

``FrequencyEstimator(oracle=fitted_grr).fit(reports)`` privatizes nothing:
its input is reports that a privatizer released before, and the parameter
``oracle=`` describes that privatizer.  The estimate only post-processes the
reports, so the guarantee of the records behind it is the release's: the
rows of that privatizer, read as :func:`~skprivate.privacy_report` reads the
privatizer on its own.

The parameter may hold the fitted privatizer, or an unfitted one that the
estimator rebuilt at fit time from what is public (its declared categories,
or the report columns): a clone in a search or in ``cross_val_score`` is
unfitted.  The report then rebuilds it the same way, from the categories the
fitted estimator read the reports with.  Either way the mechanism read must
be the one the fit used: a parameter changed or refitted since ``fit`` is
refused, so the report never states the guarantee of other reports.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.utils.validation import check_is_fitted

from ..base import PrivatizedInputMixin, PrivatizerMixin
from ..frequency import FrequencyEstimator, LongitudinalFrequencyEstimator
from ..subset import SubsetDistributionEstimator

# (class, parameter describing the release, the fitted estimator's attribute
# holding the column's channel, the privatizer's attribute of the same
# channels, one per column)
_READERS: tuple[tuple[type, str, str, str], ...] = (
    (FrequencyEstimator, "oracle", "oracle_", "oracles_"),
    (LongitudinalFrequencyEstimator, "oracle", "oracle_", "oracles_"),
    (SubsetDistributionEstimator, "design", "design_", "designs_"),
)


def _reader(est: Any) -> tuple[type, str, str, str] | None:
    for entry in _READERS:
        if isinstance(est, entry[0]):
            return entry
    return None


def reader_param(est: Any) -> str | None:
    """The parameter of ``est`` that describes a release made elsewhere, or None.

    The privatizer it holds never privatizes anything in ``est``: with
    ``privatizer=`` the estimator ignores it, without it the estimator reads
    reports that privatizer released before.
    """
    entry = _reader(est)
    return None if entry is None else entry[1]


def report_source(est: Any) -> tuple[str, Any] | None:
    """``(parameter, privatizer)`` of the release ``est`` reads, or None.

    None when ``est`` is not one of the estimators that read reports
    released elsewhere, when it privatizes its own input (``privatizer=``
    takes precedence), or when the parameter holds no privatizer (a
    :class:`~skprivate.subset.SubsetDesign`, ``None``).
    """
    param = reader_param(est)
    if param is None:
        return None
    params = est.get_params(deep=False)
    if params.get("privatizer") is not None:
        return None
    source = params.get(param)
    return (param, source) if isinstance(source, PrivatizerMixin) else None


def _is_fitted(privatizer: Any) -> bool:
    try:
        # a setting changed since fit raises here, naming it
        check_is_fitted(privatizer)
    except NotFittedError:
        return False
    return True


def same_channel(a: Any, b: Any) -> bool:
    """Whether two column channels (oracles, designs) are the same mechanism.

    Compared by type and state, recursively (arrays by value), so a channel
    rebuilt from the same public settings, or a pickled copy, is the same; a
    channel of other settings (epsilon, categories, design) is not.  The
    private attributes count: a subset design keeps its subsets and their
    probabilities in them, and two designs of one kind and size differ there
    only.  (A channel's state is set when it is built and never changes, so
    no cache makes two equal channels differ.)
    """
    if a is b:
        return True
    if type(a) is not type(b):
        return False
    if isinstance(a, np.ndarray):
        return a.shape == b.shape and bool(
            np.array_equal(a, b, equal_nan=a.dtype.kind in "fc")
        )
    if isinstance(a, list | tuple):
        return len(a) == len(b) and all(map(same_channel, a, b))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same_channel(a[k], b[k]) for k in a)
    if hasattr(a, "__dict__"):
        return same_channel(vars(a), vars(b))
    try:
        return bool(a == b)
    except (TypeError, ValueError):
        return False


def _feature_name(mechanism: Any, report_names: Any) -> str | None:
    """The raw column's name that makes ``mechanism`` output ``report_names``.

    ``mechanism`` is fitted on a column named ``x0``; its output names are
    ``x0`` followed by a suffix (``=A``, ``_wave0``, ...).  The report
    columns the estimator was fitted on carry the real name before the same
    suffixes, when they were given as a DataFrame of the privatizer's
    output.
    """
    if report_names is None:
        return None
    try:
        out = [str(n) for n in mechanism.get_feature_names_out()]
    except (AttributeError, ValueError):
        return None
    names = [str(n) for n in report_names]
    if len(out) != len(names) or not all(n.startswith("x0") for n in out):
        return None
    heads = set()
    for name, made in zip(names, out, strict=True):
        suffix = made[len("x0") :]
        if not name.endswith(suffix) or len(name) == len(suffix):
            return None
        heads.add(name[: len(name) - len(suffix)])
    return heads.pop() if len(heads) == 1 else None


def _rebuilt(source: Any, categories: list, report_names: Any) -> Any:
    """A clone of the unfitted ``source`` fitted on ``categories`` only."""
    mechanism = clone(source).set_params(categories=[categories])

    def fitted(name: str) -> Any:
        frame = pd.DataFrame({name: pd.Series(categories, dtype=object)})
        return clone(mechanism).fit(frame)

    out = fitted("x0")
    feature = _feature_name(out, report_names)
    return out if feature is None or feature == "x0" else fitted(feature)


def released_mechanism(
    est: Any,
    param: str,
    source: Any,
    static: bool = False,
    report_names: Any = None,
) -> tuple[Any, bool] | None:
    """The fitted privatizer describing the reports ``est`` reads.

    Parameters
    ----------
    est : estimator
        A reader (see ``_READERS``), fitted unless ``static``.
    param : str
        Its parameter naming the release.
    source : privatizer
        The value of that parameter.
    static : bool, default=False
        Whether ``est`` is an unfitted candidate of a search: the categories
        are then the declared ones, and nothing is checked against a fit.
    report_names : list of str or None, default=None
        Names of the report columns given to the candidate (``static``),
        which name the raw column of a rebuilt privatizer; a fitted
        ``est`` has its own ``feature_names_in_``.

    Returns
    -------
    (mechanism, rebuilt) or None
        The fitted privatizer and whether it was rebuilt from an unfitted
        ``source``; None when ``static`` and ``source`` is neither fitted nor
        declares its categories (its guarantee is then read from its
        parameters).

    Raises
    ------
    ValueError
        If ``est`` is not fitted, or if the mechanism of ``source`` is not
        the one ``est`` was fitted with (``source`` changed with
        ``set_params`` or refitted since).
    """
    _, _, fitted_attr, channels_attr = _reader(est)
    name = type(est).__name__
    fitted = _is_fitted(source)
    if static:
        if fitted:
            return source, False
        declared = source.get_params(deep=False).get("categories")
        if isinstance(declared, str) or declared is None or len(declared) != 1:
            return None
        return _rebuilt(source, list(declared[0]), report_names), True
    if not hasattr(est, fitted_attr) or not hasattr(est, "categories_"):
        raise ValueError(
            f"{name} is not fitted: privacy_report reads the reports a fitted "
            f"{name} was fitted on; call fit first."
        )
    mechanism = source
    if not fitted:
        names = getattr(est, "feature_names_in_", None)
        mechanism = _rebuilt(source, np.asarray(est.categories_).tolist(), names)
    channels = getattr(mechanism, channels_attr, [])
    if len(channels) != 1 or not same_channel(channels[0], getattr(est, fitted_attr)):
        raise ValueError(
            f"{name}'s {param}= ({type(source).__name__}) is not the mechanism "
            f"{name} was fitted with: it was changed with set_params or "
            f"refitted since fit. Fit {name} again, so that privacy_report "
            "states the guarantee of the reports it was fitted on."
        )
    return mechanism, not fitted


def no_privatizer_hint(est: Any) -> str:
    """What to give ``est`` so that its report has a privatizer to read ("")."""
    name = type(est).__name__
    get_params = getattr(est, "get_params", None)
    if get_params is None or get_params(deep=False).get("privatizer") is not None:
        # not an estimator, or one that privatizes its own input
        return ""
    param = reader_param(est)
    if param is not None and report_source(est) is None:
        return (
            f" {name} reads reports released elsewhere: give {param}= the "
            "privatizer that released them (fitted, or with its categories "
            "declared) and privacy_report states its guarantee."
        )
    if isinstance(est, PrivatizedInputMixin):
        return (
            f" {name} was fitted without privatizer=, on data it takes as "
            "already privatized: report on the fitted privatizer that released "
            f"them (privacy_report(privatizer)), or fit {name} with privatizer= "
            "to simulate the release."
        )
    return ""
