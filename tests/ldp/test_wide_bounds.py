"""A range too wide for the noise is refused by name, and no search hangs.

``LaplaceLDP(epsilon=1e-3, bounds=(-1e307, 1e307))`` failed with "cannot
convert Infinity to integer ratio", ``FlippedHuberLDP`` at ``epsilon=1e-6``
and bounds ``±1e300`` with scipy's "function value is NaN", and
``GeneralizedGaussianLDP(secure=False)`` at bounds ``±5e299`` never returned
(the privacy-profile search doubled its left end to ``-inf``).  The additive
privatizers now refuse a range over epsilon (per column) above ``2**1000``
with a ``ValueError`` naming the column, and search noise scales only up to
``MAX_NOISE_SCALE``.
"""

import re
import warnings

import numpy as np
import pandas as pd
import pytest

from skprivate import LaplaceLDP
from skprivate.ldp import FlippedHuberLDP, GeneralizedGaussianLDP
from skprivate.ldp._noise_laws import GeneralizedGaussianNoise, additive_privacy_profile
from skprivate.utils._bounds import MAX_NOISE_SCALE, check_noise_scale

ADDITIVE = [LaplaceLDP, GeneralizedGaussianLDP, FlippedHuberLDP]


def _make(cls, epsilon, bounds, **kw):
    if cls is not LaplaceLDP:
        kw.setdefault("delta", 1e-3)
    return cls(epsilon=epsilon, bounds=bounds, **kw)


def _message(column, shown, eps):
    return (
        f"bounds: {column} has a range between {shown} that is more than 2**1000 "
        f"(about 1e301) times its epsilon of {eps} per column: the noise and the "
        "released values would overflow double precision. Rescale the column (a "
        "change of units) so that its range is narrower, or give a larger epsilon."
    )


def test_the_message_in_full_declared_and_read_from_the_data():
    low, high = np.array([0.0, -1e300]), np.array([1.0, 1e300])
    with pytest.raises(
        ValueError,
        match=re.escape(
            _message("column 'b'", "the declared bounds [-1e+300, 1e+300]", "0.001")
        ),
    ):
        check_noise_scale(low, high, 1e-3, np.array(["a", "b"]))
    with pytest.raises(
        ValueError,
        match=re.escape(
            _message("column 1", "the bounds read from the data at fit", "0.001")
        ),
    ):
        check_noise_scale(low, high, 1e-3, declared=False)


def test_the_limit_is_inclusive_and_overflow_is_refused():
    # a width of exactly 2**1000 at epsilon 1 passes; one ulp more does not
    check_noise_scale(np.array([0.0]), np.array([MAX_NOISE_SCALE]), 1.0)
    with pytest.raises(ValueError, match="more than 2\\*\\*1000"):
        check_noise_scale(
            np.array([0.0]), np.array([np.nextafter(2.0**1000, np.inf)]), 1.0
        )
    # range / epsilon overflows to inf
    with pytest.raises(ValueError, match="more than 2\\*\\*1000"):
        check_noise_scale(np.array([-1e300]), np.array([1e300]), 1e-10)
    # the epsilon is the column's: the same range passes at a larger one
    check_noise_scale(np.array([0.0]), np.array([2.0**1001]), 2.0)


@pytest.mark.parametrize("cls", ADDITIVE, ids=lambda c: c.__name__)
def test_an_overflowing_ratio_is_refused_without_a_floating_point_warning(cls):
    """range / epsilon overflowing to inf is the refusal's case, not numpy's.

    Only the ValueError reaches the caller: no "overflow encountered in
    divide" RuntimeWarning comes with it (warnings are errors here).
    """
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match="more than 2\\*\\*1000"):
            check_noise_scale(np.array([-1e300]), np.array([1e300]), 1e-10)
        with pytest.raises(ValueError, match="more than 2\\*\\*1000"):
            _make(cls, 1e-3, (-1e307, 1e307)).fit(np.zeros((3, 1)))


@pytest.mark.parametrize("cls", ADDITIVE, ids=lambda c: c.__name__)
@pytest.mark.parametrize("secure", [True, False])
def test_every_additive_privatizer_refuses_by_name(cls, secure):
    X = pd.DataFrame({"x": [0.0], "income": [0.0]})
    bounds = ([0.0, -1e300], [1.0, 1e300])
    # two columns share epsilon 2e-3: 1e-3 each
    with pytest.raises(
        ValueError,
        match=re.escape(
            _message(
                "column 'income'", "the declared bounds [-1e+300, 1e+300]", "0.001"
            )
        ),
    ):
        _make(cls, 2e-3, bounds, secure=secure).fit(X)


@pytest.mark.parametrize("cls", ADDITIVE, ids=lambda c: c.__name__)
def test_bounds_read_from_the_data_are_not_shown(cls):
    X = np.array([[-1e300], [1e300]])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ValueError) as info:
            _make(cls, 1e-3, None).fit(X)
    assert str(info.value) == _message(
        "column 0", "the bounds read from the data at fit", "0.001"
    )


@pytest.mark.parametrize("cls", [LaplaceLDP, FlippedHuberLDP])
@pytest.mark.parametrize("secure", [True, False])
def test_the_widest_accepted_range_releases_finite_values(cls, secure):
    half = 2.0**999  # a range of 2**1000 at epsilon 1
    X = np.array([[-half], [0.0], [half]])
    z = _make(cls, 1.0, (-half, half), secure=secure).fit(X).transform(X)
    assert np.isfinite(z).all()


@pytest.mark.parametrize("secure", [True, False])
def test_generalized_gaussian_near_the_limit_ends_with_a_clear_answer(secure):
    # at a range of 1e300 it calibrates; at 1e301 the scale it needs is
    # beyond MAX_NOISE_SCALE and epsilon is refused as too small, naming the
    # smallest epsilon that works (and that one does)
    X = np.zeros((2, 1))
    model = GeneralizedGaussianLDP(
        epsilon=1.0, delta=1e-3, bounds=(-5e299, 5e299), secure=secure
    ).fit(X)
    assert np.isfinite(model.transform(X)).all()
    assert model.scale_[0] <= MAX_NOISE_SCALE
    wide = (-5e300, 5e300)
    with pytest.raises(ValueError) as info:
        GeneralizedGaussianLDP(epsilon=1.0, delta=1e-3, bounds=wide).fit(X)
    text = str(info.value)
    assert text.startswith(
        "epsilon=1 is too small for GeneralizedGaussianLDP at delta=0.001 and "
        "power=2: no noise scale up to 1.07151e+301 attains it; the smallest "
        "accepted is "
    )
    smallest = float(text.rsplit(" ", 1)[1].rstrip("."))
    fitted = GeneralizedGaussianLDP(epsilon=smallest, delta=1e-3, bounds=wide).fit(X)
    assert fitted.scale_[0] <= MAX_NOISE_SCALE


def test_the_profile_search_ends_when_its_limit_overflows():
    # 1e6 (D + scale) overflows: the search used to double its left end to
    # -inf and loop for ever.  The bound it returns is F(left) at the
    # largest double, an upper bound of delta.
    law = GeneralizedGaussianNoise(1.7e307, 2.0)
    delta = additive_privacy_profile(law, 1e300, 1.0)
    assert 0.0 <= delta <= float(np.exp(law.logcdf(np.array(-np.finfo(float).max))))
    # a profile with a finite search limit is unchanged: Laplace noise of
    # scale D / epsilon has delta 0
    laplace = GeneralizedGaussianNoise(2.0, 1.0)
    assert additive_privacy_profile(laplace, 2.0, 1.0) == 0.0
