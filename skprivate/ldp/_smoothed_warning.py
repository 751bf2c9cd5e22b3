"""The warning of the deconvolution learners' ``"smoothed"`` intervals.

A ``"smoothed"`` interval is centred on the deconvolution estimate, whose
mean is the density (or regression function) smoothed by the kernel at the
bandwidth: at a bandwidth that balances bias and variance the smoothing
bias is of the order of the standard error, so the interval covers the
smoothed quantity, not the true one.  ``conf_int`` says so with a
:class:`~skprivate.exceptions.CoverageWarning` whenever it returns such an
interval, asked for or chosen automatically.
"""

from __future__ import annotations

import warnings
from typing import Any

from .._uncertainty import IntervalRequest
from ..exceptions import CoverageWarning
from ..utils._warnings import external_stacklevel

__all__ = ["warn_smoothed"]

# What a "smoothed" interval's centre estimates, smoothed, by conf_int kind.
_SMOOTHED_QUANTITY = {
    "pdf": "density",
    "cdf": "distribution function",
    "quantile": "quantile (of the smoothed distribution function)",
    "predict": "regression function",
    "predict_proba": "class probability",
}


def warn_smoothed(owner: Any, request: IntervalRequest, kind: str, remedy: str) -> None:
    """Warn that the ``"smoothed"`` interval of ``kind`` does not cover the truth.

    The interval is centred on the estimate, whose mean is the quantity
    smoothed by the kernel at the bandwidth; at a bandwidth that balances
    bias and variance the bias is of the order of the standard error, so
    the interval covers that smoothed quantity, not the true one.  One
    warning per ``conf_int`` call (its levels share ``request.cache``),
    pointing at the caller's line; ``remedy`` names the interval that
    covers the true value.

    Parameters
    ----------
    owner : fitted deconvolution learner
        Named in the message, with its ``bandwidth_``.
    request : IntervalRequest
        The ``conf_int`` call.
    kind : {"pdf", "cdf", "quantile", "predict", "predict_proba"}
        The interval's kind.
    remedy : str
        The last sentence: what covers the true value.

    Examples
    --------
    >>> import warnings
    >>> from types import SimpleNamespace
    >>> from skprivate._uncertainty import IntervalRequest
    >>> from skprivate.ldp._smoothed_warning import warn_smoothed
    >>> request = IntervalRequest(
    ...     kind="pdf",
    ...     points=[0.0],
    ...     level=0.95,
    ...     method="smoothed",
    ...     X=None,
    ...     y=None,
    ...     n_resamples=None,
    ...     random_state=None,
    ...     n_jobs=None,
    ... )
    >>> owner = SimpleNamespace(bandwidth_=0.5)
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warn_smoothed(owner, request, "pdf", "Use method='rbc'.")
    ...     warn_smoothed(owner, request, "pdf", "Use method='rbc'.")
    >>> len(caught)  # once per request
    1
    """
    if request.cache.get("smoothed-warned"):
        return
    request.cache["smoothed-warned"] = True
    warnings.warn(
        f"{type(owner).__name__}: the smoothed {kind} interval covers the "
        f"{_SMOOTHED_QUANTITY[kind]} smoothed by the kernel at the bandwidth "
        f"({float(owner.bandwidth_):.3g}), not its true value: the estimate's "
        "smoothing bias, of the order of its standard error at a bandwidth "
        "that balances bias and variance, is not in the interval, so its "
        f"coverage of the true value can be far below the level. {remedy}",
        CoverageWarning,
        stacklevel=external_stacklevel(),
    )
