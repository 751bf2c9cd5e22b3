"""A range too narrow for double precision is refused by name.

``LaplaceLDP(bounds=(0, 5e-324))`` failed with "cannot convert NaN to
integer ratio", the generalized Gaussian and Flipped Huber privatizers with
``ZeroDivisionError``: the grid step and the noise scale underflow.  Every
bounded LDP privatizer now refuses a range below ``2**-960`` with a
``ValueError`` that names the column, and shows the bounds only when they
were declared.
"""

import warnings

import numpy as np
import pytest

from skprivate import LaplaceLDP, RVNSPerturber
from skprivate.ldp import FlippedHuberLDP, GeneralizedGaussianLDP, SquareWaveLDP
from skprivate.utils._bounds import MIN_WIDTH, check_grid_width

CLASSES = [LaplaceLDP, GeneralizedGaussianLDP, FlippedHuberLDP, SquareWaveLDP]


@pytest.mark.parametrize("make", CLASSES, ids=lambda c: c.__name__)
@pytest.mark.parametrize("high", [5e-324, 4e-323, 2.0**-961])
def test_a_declared_subnormal_range_is_refused(make, high):
    with pytest.raises(
        ValueError, match=r"bounds: column 'x' has a range below 2\*\*-960"
    ) as info:
        make(epsilon=1.0, bounds=(0.0, high)).fit(_frame())
    assert "between the declared bounds [0, " in str(info.value)


def _frame():
    import pandas as pd

    return pd.DataFrame({"x": [0.0]})


@pytest.mark.parametrize("make", CLASSES, ids=lambda c: c.__name__)
def test_the_narrowest_accepted_range_fits_and_releases(make):
    privatizer = make(epsilon=1.0, bounds=(0.0, MIN_WIDTH)).fit([[0.0]])
    out = privatizer.transform([[0.0], [MIN_WIDTH]])
    assert np.all(np.isfinite(out))


@pytest.mark.parametrize("make", CLASSES, ids=lambda c: c.__name__)
def test_a_narrow_range_read_from_the_data_is_refused_without_its_values(make):
    X = np.array([[0.0], [1e-300]])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # bounds read from the data
        with pytest.raises(ValueError, match="range below 2") as info:
            make(epsilon=1.0).fit(X)
    message = str(info.value)
    assert "the bounds read from the data at fit" in message
    assert "1e-300" not in message and "e-30" not in message


def test_rvns_refuses_a_subnormal_range_by_name():
    # it said "d must be finite and positive; got None" (no d was given:
    # the default d, a fraction of the range, underflowed to 0)
    with pytest.raises(ValueError, match="column 'x' has a range below"):
        RVNSPerturber(bounds=(0.0, 5e-324)).fit(_frame())
    out = RVNSPerturber(bounds=(0.0, MIN_WIDTH)).fit([[0.0]]).transform([[0.0]])
    assert np.all(np.isfinite(out))


def test_check_grid_width_names_the_first_narrow_column():
    low, high = np.array([0.0, 0.0, 0.0]), np.array([1.0, 1e-300, 1e-310])
    with pytest.raises(ValueError, match="column 1 has a range"):
        check_grid_width(low, high)
    check_grid_width(low[:1], high[:1])
    check_grid_width(np.array([0.0]), np.array([MIN_WIDTH]))
    with pytest.raises(ValueError, match="column 0 "):
        check_grid_width(np.array([0.0]), np.array([np.nextafter(MIN_WIDTH, 0)]))


def test_check_grid_width_message_in_full():
    with pytest.raises(ValueError) as info:
        check_grid_width(np.array([0.0]), np.array([1e-300]))
    assert str(info.value) == (
        "bounds: column 0 has a range below 2**-960 (about 1e-289) between the "
        "declared bounds [0, 1e-300]: the noise grid and scale would underflow "
        "double precision. Rescale the column (a change of units) so that its "
        "range is wider."
    )
    with pytest.raises(ValueError) as info:
        check_grid_width(
            np.array([0.0]), np.array([1e-300]), np.array(["w"]), declared=False
        )
    assert "column 'w' has a range" in str(info.value)
    assert "between the bounds read from the data at fit:" in str(info.value)


def test_rvns_names_narrow_bounds_as_declared_or_read_from_the_data():
    X = np.array([[0.0], [1e-300]])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # bounds read from the data
        with pytest.raises(ValueError, match="range below 2") as info:
            RVNSPerturber().fit(X)
    message = str(info.value)
    assert "between the bounds read from the data at fit:" in message
    assert "1e-300" not in message and "e-30" not in message
    with pytest.raises(ValueError, match="range below 2") as info:
        RVNSPerturber(bounds=(0.0, 1e-300)).fit(X)
    assert "between the declared bounds [0, 1e-300]:" in str(info.value)
