"""Exact checks of the bounded privatizers' shared fit and transform
(``ldp/_bounded.py``) and of the refusal of values outside the bounds
(``utils/_bounds.py``).

The bounded privatizers (Square Wave, generalized Gaussian, flipped Huber)
split the record's budget evenly over the columns, calibrate each column to
its own width, and refuse a value outside its column's bounds before any
noise is drawn, naming the row and the column but never the value.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import skprivate
from skprivate.exceptions import PrivacyLeakWarning
from skprivate.ldp import FlippedHuberLDP, GeneralizedGaussianLDP, SquareWaveLDP
from skprivate.ldp._bounded import GRID_BITS
from skprivate.utils._bounds import bounds_text, check_values_in_bounds, column_label

LOW = np.array([0.0, -5.0, 10.0])
HIGH = np.array([1.0, 5.0, 40.0])
X_IN = np.array([[0.5, 0.0, 20.0], [0.0, -5.0, 40.0], [1.0, 5.0, 10.0]])

PRIVATIZERS = {
    "square_wave": lambda **kw: SquareWaveLDP(epsilon=2.4, **kw),
    "generalized_gaussian": lambda **kw: GeneralizedGaussianLDP(
        epsilon=2.4, delta=3e-4, **kw
    ),
    "flipped_huber": lambda **kw: FlippedHuberLDP(epsilon=2.4, delta=3e-4, **kw),
}


def _make(name, **kw):
    return PRIVATIZERS[name](random_state=0, **kw)


@pytest.mark.parametrize("name", PRIVATIZERS)
def test_summary_states_the_budget_split_bounds_and_grid(name):
    p = _make(name, bounds=(LOW, HIGH)).fit(X_IN)
    assert p._epsilon_per_feature == pytest.approx(0.8, rel=1e-15)
    s = p.privacy_summary()
    assert s["epsilon"] == 2.4
    assert s["epsilon_per_feature"] == pytest.approx(0.8, rel=1e-15)
    assert s["bounds"] == (LOW.tolist(), HIGH.tolist())
    assert s["bounds_from_data"] is False
    assert s["floating_point_safe"] is True
    assert s["output_grid"]["origin"] == LOW.tolist()
    step = np.asarray(s["output_grid"]["step"])
    np.testing.assert_array_equal(step, p.grid_step_)
    # each column's grid is its own width over the same number of steps
    np.testing.assert_allclose(step / (HIGH - LOW), step[0] / (HIGH - LOW)[0])
    np.testing.assert_array_equal(p.bounds_[0], LOW)
    np.testing.assert_array_equal(p.bounds_[1], HIGH)


@pytest.mark.parametrize("name", ["generalized_gaussian", "flipped_huber"])
def test_delta_is_split_over_the_columns(name):
    p = _make(name, bounds=(LOW, HIGH)).fit(X_IN)
    assert p._delta_per_feature == pytest.approx(1e-4, rel=1e-12)


def test_square_wave_has_no_delta():
    p = _make("square_wave", bounds=(LOW, HIGH)).fit(X_IN)
    assert p._delta_per_feature == 0.0
    assert "output_grid" in p.privacy_summary()


def test_summary_without_the_grid_for_the_float_sampler():
    p = SquareWaveLDP(epsilon=1.0, bounds=(0, 1), secure=False, random_state=0)
    s = p.fit([[0.2], [0.4]]).privacy_summary()
    assert s["floating_point_safe"] is False and "output_grid" not in s
    assert s["epsilon_per_feature"] == 1.0


@pytest.mark.parametrize("name", PRIVATIZERS)
def test_audit_of_each_column_meets_its_share_exactly(name):
    """Each column is calibrated to its own width: the audited loss of every
    column is its share of the budget (the Square Wave's band law reaches it;
    the additive laws meet their delta at that epsilon)."""
    p = _make(name, bounds=(LOW, HIGH)).fit(X_IN)
    report = skprivate.audit(p)
    assert len(report) == 3
    np.testing.assert_allclose(report["claimed_epsilon"], 0.8, rtol=1e-12)
    assert report["respected"].all()
    if name == "square_wave":
        np.testing.assert_allclose(report["audited_epsilon"], 0.8, rtol=1e-9)
    else:
        delta = report["audited_delta"].astype(float).to_numpy()
        np.testing.assert_allclose(report["claimed_delta"].astype(float), 1e-4)
        assert np.all(delta <= 1e-4) and np.all(delta > 0.5e-4)


@pytest.mark.parametrize("name", PRIVATIZERS)
def test_releases_stay_on_each_columns_grid(name):
    p = _make(name, bounds=(LOW, HIGH)).fit(X_IN)
    Z = p.transform(np.repeat(X_IN, 50, axis=0))
    k = (Z - LOW) / p.grid_step_
    np.testing.assert_allclose(k, np.rint(k), atol=1e-6)
    # the releases of a value spread on its column's scale, not another's
    spread = np.ptp(Z, axis=0) / (HIGH - LOW)
    assert spread.max() / spread.min() < 3


@pytest.mark.parametrize("name", PRIVATIZERS)
def test_bounds_read_from_the_data_warn_and_say_so(name):
    with pytest.warns(PrivacyLeakWarning):
        p = _make(name, bounds=None).fit(X_IN)
    np.testing.assert_array_equal(p.bounds_[0], X_IN.min(axis=0))
    np.testing.assert_array_equal(p.bounds_[1], X_IN.max(axis=0))
    assert p.privacy_summary()["bounds_from_data"] is True
    bad = X_IN.copy()
    bad[2, 1] = 6.0
    with pytest.raises(ValueError) as err:
        p.transform(bad)
    text = str(err.value)
    assert text.startswith("X column 1, row 2: value outside the bounds read ")
    assert "declare bounds" in text and "6" not in text


@pytest.mark.parametrize("name", PRIVATIZERS)
def test_values_outside_declared_bounds_are_refused_before_any_draw(name):
    p = _make(name, bounds=(LOW, HIGH)).fit(X_IN)
    first = p.transform(X_IN)  # the bounds themselves are accepted
    assert first.shape == X_IN.shape
    for j, value in [(0, -1e-9), (0, 1.0 + 1e-9), (2, 9.5), (2, 41.0)]:
        bad = X_IN.copy()
        bad[1, j] = value
        with pytest.raises(ValueError) as err:
            p.transform(bad)
        text = str(err.value)
        assert text.startswith(f"X column {j}, row 1: value outside the declared ")
        assert f"[{LOW[j]:g}, {HIGH[j]:g}]" in text and "widen bounds" in text
    # named columns are named
    frame = pd.DataFrame(X_IN, columns=["a", "b", "c"])
    q = _make(name, bounds=(LOW, HIGH)).fit(frame)
    bad = frame.copy()
    bad.iloc[0, 2] = 100.0
    with pytest.raises(ValueError, match=r"^X column 'c', row 0: value outside"):
        q.transform(bad)


def test_column_label_and_bounds_text():
    assert column_label(3) == "column 3"
    assert column_label(1, np.array(["age", "income"])) == "column 'income'"
    assert bounds_text(0.0, 2.5e6, True) == "the declared bounds [0, 2.5e+06]"
    assert bounds_text(-1.25, 3.0, True) == "the declared bounds [-1.25, 3]"
    assert bounds_text(0.0, 1.0, False) == "the bounds read from the data at fit"


def test_check_values_in_bounds_names_the_first_column_then_its_first_row():
    low, high = np.array([0.0, 0.0, 0.0]), np.array([1.0, 1.0, 1.0])
    X = np.full((5, 3), 0.5)
    check_values_in_bounds(X, low, high)  # inside: silent
    X[[0, 4], 0] = 0.0, 1.0  # on the bounds: accepted
    check_values_in_bounds(X, low, high)
    X[3, 2] = 1.5  # a later column, an earlier row
    X[4, 1] = -0.5
    X[2, 1] = 2.0
    with pytest.raises(ValueError) as err:
        check_values_in_bounds(X, low, high, np.array(["a", "b", "c"]))
    assert str(err.value) == (
        "X column 'b', row 2: value outside the declared bounds [0, 1] "
        "(2 such value(s) in that column). Clip the data or widen bounds."
    )
    with pytest.raises(ValueError) as err:
        check_values_in_bounds(X, low, high, declared=False)
    assert str(err.value) == (
        "X column 1, row 2: value outside the bounds read from the data at fit "
        "(2 such value(s) in that column). Clip the data or declare bounds."
    )
    # one value just below a bound, one just above another
    Y = np.array([[0.5, -1e-12], [0.5, 0.5]])
    with pytest.raises(ValueError, match=r"column 1, row 0"):
        check_values_in_bounds(Y, np.zeros(2), np.ones(2))
    Y = np.array([[0.5, 0.5], [1 + 1e-12, 0.5]])
    with pytest.raises(ValueError, match=r"column 0, row 1: .*\(1 such"):
        check_values_in_bounds(Y, np.zeros(2), np.ones(2))


def test_grid_has_two_to_the_grid_bits_steps_per_range():
    p = SquareWaveLDP(epsilon=1.0, bounds=(LOW, HIGH), random_state=0).fit(X_IN)
    np.testing.assert_allclose(p.grid_step_ * 2.0**GRID_BITS, HIGH - LOW, rtol=1e-15)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        p.transform(X_IN)


@pytest.mark.parametrize("name", PRIVATIZERS)
def test_data_read_bounds_warning_names_the_privatizer(name):
    p = _make(name, bounds=None)
    with pytest.warns(
        PrivacyLeakWarning,
        match=rf"^{type(p).__name__} was fitted without bounds, so the domain",
    ):
        p.fit(X_IN)


@pytest.mark.parametrize("name", PRIVATIZERS)
def test_bounds_given_by_column_name_follow_the_frames_columns(name):
    frame = pd.DataFrame(X_IN, columns=["a", "b", "c"])
    bounds = {"c": (10.0, 40.0), "a": (0.0, 1.0), "b": (-5.0, 5.0)}
    p = _make(name, bounds=bounds).fit(frame)
    np.testing.assert_array_equal(p.bounds_[0], LOW)
    np.testing.assert_array_equal(p.bounds_[1], HIGH)


@pytest.mark.parametrize("name", PRIVATIZERS)
def test_missing_and_infinite_values_are_refused_by_row(name):
    bad = X_IN.copy()
    bad[2, 1] = np.nan
    with pytest.raises(ValueError, match=r"^X contains NaN at row 2, column 1; "):
        _make(name, bounds=(LOW, HIGH)).fit(bad)
    p = _make(name, bounds=(LOW, HIGH)).fit(X_IN)
    bad[2, 1] = -np.inf
    with pytest.raises(ValueError, match=r"^X contains infinity at row 2, column 1; "):
        p.transform(bad)
    with pytest.raises(ValueError, match=r"X has 2 features, but \w+ is expecting 3"):
        p.transform(X_IN[:, :2])


@pytest.mark.parametrize("name", PRIVATIZERS)
def test_integer_data_is_released_as_its_float_values(name):
    """The release depends on the values, not on their dtype: with one seed,
    integer columns give exactly the release of the same values as floats,
    and bounds read from integer data are floats."""
    ints = np.array([[0, -5, 20], [1, 5, 40], [1, 0, 10]])
    with pytest.warns(PrivacyLeakWarning):
        p = _make(name, bounds=None).fit(ints)
    assert p.bounds_[0].dtype == np.float64 and p.bounds_[1].dtype == np.float64
    as_int = _make(name, bounds=(LOW, HIGH)).fit(ints).transform(ints)
    as_float = _make(name, bounds=(LOW, HIGH)).fit(ints).transform(ints.astype(float))
    np.testing.assert_array_equal(as_int, as_float)


@pytest.mark.parametrize("name", PRIVATIZERS)
def test_one_seed_does_not_repeat_its_noise_on_another_batch(name):
    """A seeded call's generator depends on the data released: two batches
    of the same shape get different noise at the same call of two equally
    seeded privatizers."""
    other = X_IN[[2, 0, 1]]
    first = _make(name, bounds=(LOW, HIGH)).fit(X_IN)
    second = _make(name, bounds=(LOW, HIGH)).fit(X_IN)
    noise_a = first.transform(X_IN) - X_IN
    noise_b = second.transform(other) - other
    assert not np.allclose(noise_a, noise_b)
