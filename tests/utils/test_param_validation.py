from numbers import Integral, Real

import numpy as np
import pytest

from skprivate.exceptions import InvalidParameterError
from skprivate.utils import HasMethods, Interval, Options, validate_params


@pytest.mark.parametrize(
    "interval, good, bad",
    [
        (
            Interval(Real, 0, None, closed="neither"),
            [1e-9, 3, 2.5, 1e300],
            [0, -1, np.nan, True, np.inf, float("inf"), float("nan"), -np.inf],
        ),
        (
            Interval(Integral, 1, 10, closed="both"),
            [1, 10, np.int64(5)],
            [0, 11, 2.0, False],
        ),
        (Interval(Real, 0, 1, closed="left"), [0.0, 0.999], [1.0, -0.1]),
        (Interval(Real, None, None), [-1e300, 0.0, 5.0], [np.inf, -np.inf, np.nan]),
        (
            Interval(Real, 0, None, closed="left", allow_inf=True),
            [0.0, np.inf],
            [-np.inf, np.nan, -1.0],
        ),
    ],
)
def test_interval(interval, good, bad):
    assert all(interval.is_satisfied_by(v) for v in good)
    assert not any(interval.is_satisfied_by(v) for v in bad)


def test_interval_text():
    assert (
        str(Interval(Real, 0, None, closed="neither"))
        == "a finite float in the range (0, inf)"
    )
    assert (
        str(Interval(Real, 0, None, closed="left", allow_inf=True))
        == "a float in the range [0, inf)"
    )
    assert str(Interval(Integral, 1, 5)) == "an int in the range [1, 5]"


def test_validate_params_message_names_parameter_and_value():
    constraints = {
        "epsilon": [Interval(Real, 0, None, closed="neither")],
        "kernel": [Options({"gaussian", "cauchy"})],
        "estimator": [HasMethods(["fit", "predict"]), None],
        "random_state": ["random_state"],
    }
    ok = {"epsilon": 1.0, "kernel": "cauchy", "estimator": None, "random_state": 3}
    validate_params(constraints, ok, "Thing")
    with pytest.raises(
        InvalidParameterError,
        match=r"'epsilon' parameter of Thing must be a finite float in the range "
        r"\(0, inf\)\. Got -1 instead",
    ):
        validate_params(constraints, {**ok, "epsilon": -1}, "Thing")
    with pytest.raises(InvalidParameterError, match="Got inf instead"):
        validate_params(constraints, {**ok, "epsilon": float("inf")}, "Thing")
    with pytest.raises(
        ValueError,
        match=r"'kernel' parameter of Thing must be one of \{'cauchy', 'gaussian'\}",
    ):
        validate_params(constraints, {**ok, "kernel": "box"}, "Thing")
    with pytest.raises(TypeError, match="implementing 'fit', 'predict' or None"):
        validate_params(constraints, {**ok, "estimator": object()}, "Thing")
    with pytest.raises(InvalidParameterError, match="RandomState"):
        validate_params(constraints, {**ok, "random_state": "seed"}, "Thing")


def test_undeclared_parameter_is_an_error():
    with pytest.raises(
        InvalidParameterError, match="no constraint declared for parameter 'x'"
    ):
        validate_params({}, {"x": 1}, "Thing")


def test_options_with_unhashable_value():
    assert not Options({"a"}).is_satisfied_by([1, 2])
