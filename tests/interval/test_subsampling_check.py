"""The warning of the NPMLE's subsampling CDF and quantile intervals."""

import warnings

import numpy as np
import pytest

from skprivate import IntervalCaseI, IntervalCaseII, IntervalNPMLE
from skprivate.exceptions import CoverageWarning
from skprivate.interval._subsampling_check import MIN_WINDOW_ROWS, window_rows


def test_window_rows_exact():
    # b = ceil(2000**(2/3)) = 159, and 159**(2/3)
    assert window_rows(2000) == pytest.approx(159 ** (2 / 3), abs=1e-12)
    # small samples: b is at least 20, at most n - 1
    assert window_rows(50) == pytest.approx(20 ** (2 / 3), abs=1e-12)
    assert window_rows(15) == pytest.approx(14 ** (2 / 3), abs=1e-12)
    # the rule's end: b = 1000 rows, whose window holds 100
    assert window_rows(31_623) >= MIN_WINDOW_ROWS > window_rows(31_622)


def _caught(est, Z, kind, points, **kwargs):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ci = est.conf_int(kind, points, X=Z, **kwargs)
    return ci, [w for w in caught if w.category is CoverageWarning]


def test_warns_for_subsampling_at_moderate_n():
    x = np.random.default_rng(0).normal(size=(200, 1))
    Z = IntervalCaseII(random_state=0).fit_transform(x)
    est = IntervalNPMLE().fit(Z)
    ci, caught = _caught(
        est, Z, "cdf", [0.5], level=(0.9, 0.95), n_resamples=10, random_state=0
    )
    assert len(caught) == 1  # once per call
    # 200 rows: subsamples of b = ceil(200**(2/3)) = 35, b**(2/3) = 10.7
    message = str(caught[0].message)
    assert "subsampling cdf interval" in message and "about 11 rows" in message
    assert ci["method"].str.contains("subsampling").all()
    _, caught = _caught(est, Z, "quantile", [0.5], n_resamples=10, random_state=0)
    assert len(caught) == 1


def test_silent_for_the_likelihood_ratio_interval():
    x = np.random.default_rng(0).normal(size=(300, 1))
    Z = IntervalCaseI(random_state=0).fit_transform(x)
    est = IntervalNPMLE().fit(Z)
    ci, caught = _caught(est, Z, "cdf", [0.5])
    assert caught == []
    assert ci["method"].str.contains("likelihood-ratio").all()
    # the same data by subsampling warn
    _, caught = _caught(
        est, Z, "cdf", [0.5], method="subsampling", n_resamples=10, random_state=0
    )
    assert len(caught) == 1
