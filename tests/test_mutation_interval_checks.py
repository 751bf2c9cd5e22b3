"""Exact checks of the interval warnings split out of the families' interval code.

``ldp/_smoothed_warning.py`` (a smoothed deconvolution interval covers a
smoothed target) and ``interval/_subsampling_check.py`` (the NPMLE's
subsampling intervals at moderate n): the message, once per ``conf_int``
call, and the rule's ends.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from skprivate._uncertainty import IntervalRequest
from skprivate.exceptions import CoverageWarning
from skprivate.interval._subsampling_check import (
    MIN_WINDOW_ROWS,
    SubsamplingCheckMixin,
    window_rows,
)
from skprivate.ldp._smoothed_warning import warn_smoothed


def _request(kind="cdf", level=0.95):
    return IntervalRequest(
        kind=kind,
        points=[0.0],
        level=level,
        method="auto",
        X=None,
        y=None,
        n_resamples=None,
        random_state=None,
        n_jobs=None,
    )


def _caught(calls):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for call in calls:
            call()
    return caught


class _Owner:
    bandwidth_ = 0.5


def test_smoothed_warning_once_per_call_and_again_for_the_next():
    request = _request("pdf")
    owner = _Owner()
    caught = _caught(
        [lambda: warn_smoothed(owner, request, "pdf", "Use method='rbc'.")] * 3
    )
    assert len(caught) == 1 and caught[0].category is CoverageWarning
    assert request.cache == {"smoothed-warned": True}
    assert str(caught[0].message) == (
        "_Owner: the smoothed pdf interval covers the density smoothed by the "
        "kernel at the bandwidth (0.5), not its true value: the estimate's "
        "smoothing bias, of the order of its standard error at a bandwidth "
        "that balances bias and variance, is not in the interval, so its "
        "coverage of the true value can be far below the level. Use "
        "method='rbc'."
    )
    # a new call (a new request) warns again
    again = _caught([lambda: warn_smoothed(owner, _request("pdf"), "pdf", "R.")])
    assert len(again) == 1


def test_window_rows_of_tiny_samples():
    # b = min(max(20, ceil(n^(2/3))), max(n - 1, 1)): one row for n <= 2
    assert window_rows(1) == 1.0
    assert window_rows(2) == 1.0
    assert window_rows(3) == pytest.approx(2.0 ** (2.0 / 3.0), rel=1e-15)
    assert window_rows(2000) == pytest.approx(159.0 ** (2.0 / 3.0), rel=1e-15)


class _Base:
    def __init__(self, frame, n):
        self.frame, self.n = frame, n

    def _conf_int_cdf(self, request):
        return self.frame

    def _conf_int_quantile(self, request):
        return self.frame

    def _ci_interval_data(self, request):
        return np.zeros((self.n, 2))


class _Checked(SubsamplingCheckMixin, _Base):
    pass


def _frame(method):
    return pd.DataFrame({"method": [method], "lower": [0.1], "upper": [0.2]})


def test_subsampling_warning_text_kind_and_once_per_call():
    est = _Checked(_frame("subsampling (b = 159 of 2000 rows)"), 2000)
    for kind, call in (
        ("cdf", est._conf_int_cdf),
        ("quantile", est._conf_int_quantile),
    ):
        request = _request(kind)
        caught = _caught([lambda r=request, c=call: c(r)] * 2)
        assert [w.category for w in caught] == [CoverageWarning]
        assert str(caught[0].message) == (
            f"_Checked: the subsampling {kind} interval may cover less often "
            "than its level: with 2000 rows, its subsamples hold about 29 rows "
            "near each point (b**(2/3) for subsamples of b rows), fewer than "
            "100, too few for their estimates to follow the cube-root limit "
            "law (measured: 0.90 to 0.92 for a 0.95 interval at 500 to 2,000 "
            "rows of Case II data). Case I data at level 0.90, 0.95 or 0.99 "
            "get the likelihood-ratio interval instead."
        )


def test_subsampling_check_is_silent_for_other_methods_no_rows_and_large_n():
    assert MIN_WINDOW_ROWS == 100
    quiet = [
        _Checked(_frame("likelihood ratio"), 2000),
        _Checked(pd.DataFrame({"method": [], "lower": [], "upper": []}), 2000),
        # b = 1001: 1001**(2/3) = 100.07 rows, at least 100
        _Checked(_frame("subsampling"), 31_700),
    ]
    for est in quiet:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            frame = est._conf_int_cdf(_request())
        assert frame is est.frame
    # b = 1000: 1000**(2/3) is 99.99999999999997 in floating point, below 100
    caught = _caught(
        [lambda: _Checked(_frame("subsampling"), 31_600)._conf_int_cdf(_request())]
    )
    assert len(caught) == 1
