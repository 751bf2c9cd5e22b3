"""The influence interval of the NPMLE mean says when the mean is not identified.

With declared bounds, the data locate the mean only up to its identified
set; the influence interval assumes the anchors span the values.  When the
set is wider than the interval, ``conf_int("mean", method="influence")``
warns with the share of the mass outside the anchors' supported range.
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

from skprivate.exceptions import NotIdentifiableWarning
from skprivate.interval import IntervalCaseI, IntervalNPMLE


def _fit(anchor_scale: float, n: int = 500, seed: int = 3):
    x = np.random.default_rng(seed).normal(size=(n, 1))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        Z = IntervalCaseI(
            distribution="normal", loc=0.0, scale=anchor_scale, random_state=1
        ).fit_transform(x)
    return IntervalNPMLE(bounds=(-4.0, 4.0)).fit(Z), Z


def test_narrow_anchors_warn_with_the_share_and_the_set_width():
    est, Z = _fit(0.5)
    low, high = est.mean_bounds()
    with pytest.warns(NotIdentifiableWarning) as record:
        ci = est.conf_int("mean", X=Z, method="influence", level=0.9)
    width = 2 * 1.6448536269514722 * float(ci["se"].iloc[0])
    assert high - low > width
    (message,) = [str(w.message) for w in record]
    share = float(re.search(r"([\d.]+)% of the estimated mass", message).group(1))
    assert 10 < share < 60
    assert f"set of width {high - low:.3g}" in message
    assert f"this 90% interval ({width:.3g})" in message
    assert "bounds=(-4, 4)" in message and "method='identified_set'" in message


def test_anchors_spanning_the_values_do_not_warn():
    est, Z = _fit(1.0)
    low, high = est.mean_bounds()
    with warnings.catch_warnings():
        warnings.simplefilter("error", NotIdentifiableWarning)
        ci = est.conf_int("mean", X=Z, method="influence")
    assert high - low < 2 * 1.959963984540054 * float(ci["se"].iloc[0])


def test_the_rule_compares_the_set_with_the_interval_at_its_level():
    # A set between the 50% and the 99% interval's widths: only the
    # narrower interval is narrower than the set.
    est, Z = _fit(0.8)
    low, high = est.mean_bounds()
    se = float(est.conf_int("mean", X=Z, method="influence")["se"].iloc[0])
    ratio = (high - low) / se
    assert 2 * 0.6744897501960817 < ratio < 2 * 2.5758293035489004
    with pytest.warns(NotIdentifiableWarning):
        est.conf_int("mean", X=Z, method="influence", level=0.5)
    with warnings.catch_warnings():
        warnings.simplefilter("error", NotIdentifiableWarning)
        est.conf_int("mean", X=Z, method="influence", level=0.99)


@pytest.mark.parametrize("method", ["influence", "jackknife", "bootstrap"])
def test_without_bounds_mass_beyond_the_anchors_is_not_located(method):
    # No bounds: the mass outside the anchors' range may lie arbitrarily far
    # out, so any of it leaves the mean unlocated, whatever the interval.
    _, Z = _fit(0.5)
    est = IntervalNPMLE().fit(Z)
    with pytest.warns(NotIdentifiableWarning) as record:
        est.conf_int("mean", X=Z, method=method, n_resamples=20, random_state=0)
    (message,) = [str(w.message) for w in record]
    assert "under bounds=(-inf, inf) it may lie arbitrarily far out" in message
    assert "Declare bounds=(low, high)" in message
    share = float(re.search(r"([\d.]+)% of the estimated mass", message).group(1))
    assert 10 < share < 60
    # anchors spanning the values leave no mass outside them: no warning
    _, Z = _fit(1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", NotIdentifiableWarning)
        IntervalNPMLE().fit(Z).conf_int(
            "mean", X=Z, method=method, n_resamples=20, random_state=0
        )
