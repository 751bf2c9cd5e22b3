"""The parameter checks that stand between a user's epsilon and a release.

``Interval`` is what refuses an epsilon of 0, a negative, an infinite or a
NaN budget, and a bool passed for a number; ``validate_params`` runs it on
every ``fit`` (after ``set_params`` from a search too).  Each branch is
pinned on its edge: the bounds of every kind of interval, the finite-only
default, the texts of the messages.
"""

from __future__ import annotations

import math
import numbers
from fractions import Fraction

import numpy as np
import pytest

from skprivate import LaplaceLDP
from skprivate.exceptions import InvalidParameterError
from skprivate.utils._param_validation import (
    HasMethods,
    Interval,
    Options,
    _array_like_ok,
    _check_one,
    _random_state_ok,
    validate_params,
)

POSITIVE = Interval(numbers.Real, 0, None, closed="neither")
TINY = 2.0**-1074


@pytest.mark.parametrize(
    ("value", "ok"),
    [
        (TINY, True),
        (1.0, True),
        (np.float32(0.5), True),
        (Fraction(1, 3), True),
        (3, True),
        (np.int64(2), True),
        (0.0, False),
        (0, False),
        (-0.0, False),
        (-TINY, False),
        (math.inf, False),
        (-math.inf, False),
        (math.nan, False),
        (np.float64("nan"), False),
        (True, False),
        (np.bool_(True), False),
        ("1.0", False),
        (None, False),
        # a Real too large for a double: refused, not an error
        (10**400, False),
        (Fraction(10**400), False),
    ],
)
def test_a_positive_real_refuses_every_value_that_is_no_budget(value, ok):
    assert POSITIVE.is_satisfied_by(value) is ok


@pytest.mark.parametrize(
    ("closed", "at_left", "at_right"),
    [
        ("both", True, True),
        ("left", True, False),
        ("right", False, True),
        ("neither", False, False),
    ],
)
def test_each_kind_of_interval_on_its_bounds(closed, at_left, at_right):
    box = Interval(numbers.Real, 0.5, 2, closed=closed)
    assert box.is_satisfied_by(0.5) is at_left
    assert box.is_satisfied_by(2) is at_right
    assert box.is_satisfied_by(1.0) is True
    assert box.is_satisfied_by(float(np.nextafter(0.5, 0))) is False
    assert box.is_satisfied_by(float(np.nextafter(2.0, 3))) is False


def test_an_integral_interval_takes_integers_only():
    count = Interval(numbers.Integral, 1, None, closed="left")
    assert count.is_satisfied_by(1) and count.is_satisfied_by(np.int32(7))
    assert not count.is_satisfied_by(0)
    assert not count.is_satisfied_by(1.0)
    assert not count.is_satisfied_by(True)
    # an int beyond every double reads as infinite: refused as inf is
    assert count.is_satisfied_by(2**1023)
    assert not count.is_satisfied_by(10**400)


def test_infinity_only_where_allowed_and_never_nan():
    wide = Interval(numbers.Real, 0, None, closed="left", allow_inf=True)
    assert wide.is_satisfied_by(math.inf)
    assert not wide.is_satisfied_by(-math.inf)
    assert not wide.is_satisfied_by(math.nan)
    unbounded = Interval(numbers.Real, None, None, allow_inf=True)
    assert unbounded.is_satisfied_by(-math.inf) and unbounded.is_satisfied_by(7)
    finite = Interval(numbers.Real, None, None)
    assert not finite.is_satisfied_by(math.inf)
    assert finite.is_satisfied_by(-1e308)


@pytest.mark.parametrize(
    ("interval", "text"),
    [
        (POSITIVE, "a finite float in the range (0, inf)"),
        (Interval(numbers.Real, 0, 1), "a finite float in the range [0, 1]"),
        (
            Interval(numbers.Real, 0, 1, closed="left"),
            "a finite float in the range [0, 1)",
        ),
        (
            Interval(numbers.Real, 0, 1, closed="right"),
            "a finite float in the range (0, 1]",
        ),
        (
            Interval(numbers.Real, None, 0.25, allow_inf=True),
            "a float in the range (-inf, 0.25]",
        ),
        (
            Interval(numbers.Integral, 1, None, closed="left"),
            "an int in the range [1, inf)",
        ),
        (
            Interval(numbers.Integral, None, None, closed="both"),
            "an int in the range (-inf, inf)",
        ),
    ],
)
def test_the_text_of_an_interval(interval, text):
    assert str(interval) == text


def test_options_and_methods():
    choice = Options(["b", "a"])
    assert choice.options == frozenset({"a", "b"})
    assert choice.is_satisfied_by("a") and not choice.is_satisfied_by("c")
    assert choice.is_satisfied_by(["a"]) is False  # unhashable: refused
    assert str(choice) == "one of {'a', 'b'}"
    assert str(Options([2, "x", 1])) == "one of {1, 2, 'x'}"

    one = HasMethods("fit")
    assert one.methods == ("fit",)
    both = HasMethods(["fit", "predict"])
    assert str(both) == "an object implementing 'fit', 'predict'"

    class Half:
        def fit(self):
            return self

        predict = None  # an attribute, not a method

    assert one.is_satisfied_by(Half())
    assert not both.is_satisfied_by(Half())
    assert both.is_satisfied_by(object()) is False  # no such attribute: refused


def test_the_named_checks():
    for good in (
        None,
        0,
        np.int64(3),
        np.random.RandomState(0),
        np.random.default_rng(0),
    ):
        assert _random_state_ok(good)
    for bad in (True, 1.0, "0", np.random.SeedSequence(0)):
        assert not _random_state_ok(bad)

    class Arrayish:
        def __array__(self):
            return np.zeros(1)

    class Shaped:
        shape = (2,)

    for good in ([1], (), np.zeros(2), Arrayish(), Shaped()):
        assert _array_like_ok(good)
    for bad in ("abc", 3, None):
        assert not _array_like_ok(bad)

    assert _check_one("boolean", np.bool_(False)) == (True, "a bool")
    assert _check_one("boolean", 0) == (False, "a bool")
    assert _check_one("callable", len) == (True, "a callable")
    assert _check_one("string", b"x") == (False, "a str")
    assert _check_one("array-like", "x") == (False, "an array-like")
    assert _check_one("random_state", 1.5) == (
        False,
        "an int, a numpy RandomState or Generator, or None",
    )


def test_check_one_per_kind_of_constraint():
    assert _check_one(None, None) == (True, "None")
    assert _check_one(None, 0) == (False, "None")
    # a bool is no number for the number types, but is a bool
    for number_type in (numbers.Real, numbers.Integral, int, float):
        assert _check_one(number_type, True)[0] is False
        assert _check_one(number_type, np.bool_(True))[0] is False
    assert _check_one(int, 3) == (True, "an instance of 'int'")
    assert _check_one(bool, True) == (True, "an instance of 'bool'")
    assert _check_one(str, 3) == (False, "an instance of 'str'")
    assert _check_one(POSITIVE, 1.0) == (True, str(POSITIVE))
    ok, text = _check_one(Options(["x"]), "y")
    assert (ok, text) == (False, "one of {'x'}") and type(ok) is bool
    with pytest.raises(
        ValueError,
        match=r"^constraints holds an unknown constraint 'nope'; the named ones "
        r"are \['array-like', 'boolean', 'callable', 'random_state', 'string'\]\.$",
    ):
        _check_one("nope", 1)


CONSTRAINTS = {
    "epsilon": [POSITIVE],
    "mode": [Options(["a", "b"]), None],
    "seed": ["random_state"],
    "anything": "no_validation",
    "three": [Options(["x"]), None, "boolean"],
}


def test_validate_params_passes_a_value_any_constraint_takes():
    validate_params(
        CONSTRAINTS,
        {"epsilon": 0.5, "mode": None, "seed": 3, "anything": object(), "three": True},
        "Est",
    )


@pytest.mark.parametrize(
    ("params", "message"),
    [
        (
            {"epsilon": 0.0},
            "The 'epsilon' parameter of Est must be a finite float in the range "
            "(0, inf). Got 0.0 instead.",
        ),
        (
            {"mode": "c"},
            "The 'mode' parameter of Est must be one of {'a', 'b'} or None. "
            "Got 'c' instead.",
        ),
        (
            {"three": 2},
            "The 'three' parameter of Est must be one of {'x'}, None or a bool. "
            "Got 2 instead.",
        ),
        ({"other": 1}, "Est has no constraint declared for parameter 'other'."),
    ],
)
def test_validate_params_names_the_parameter_and_what_it_takes(params, message):
    with pytest.raises(InvalidParameterError) as info:
        validate_params(CONSTRAINTS, params, "Est")
    assert str(info.value) == message


def test_validate_params_checks_every_parameter_after_a_good_one():
    with pytest.raises(InvalidParameterError, match=r"^The 'mode' parameter"):
        validate_params(CONSTRAINTS, {"epsilon": 0.5, "mode": "c"}, "Est")
    with pytest.raises(InvalidParameterError, match=r"^The 'epsilon' parameter"):
        validate_params(CONSTRAINTS, {"anything": 1, "epsilon": -1.0}, "Est")


@pytest.mark.parametrize("which", ["constraints", "params"])
def test_validate_params_needs_mappings(which):
    args = {"constraints": CONSTRAINTS, "params": {"epsilon": 1.0}}
    args[which] = [("epsilon", 1.0)]
    with pytest.raises(
        TypeError,
        match=rf"^{which} must be a mapping from parameter names; got list\.$",
    ):
        validate_params(args["constraints"], args["params"], "Est")


@pytest.mark.parametrize("epsilon", [0, -1.0, math.inf, math.nan, True, 10**400])
def test_a_privatizer_refuses_a_budget_that_is_none_at_fit(epsilon):
    # through set_params, as a search sets it
    privatizer = LaplaceLDP(bounds=(0, 1)).set_params(epsilon=epsilon)
    with pytest.raises(InvalidParameterError, match=r"'epsilon' parameter of Lap"):
        privatizer.fit(np.zeros((3, 1)))
