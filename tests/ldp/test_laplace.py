"""LaplaceLDP: noise scale, the epsilon-LDP likelihood-ratio bound, bad input."""

import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from sklearn.base import clone
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from skprivate import LaplaceLDP
from skprivate.exceptions import InvalidParameterError, PrivacyLeakWarning


def _uniform(n=2000, q=3, seed=0):
    return np.random.default_rng(seed).uniform(size=(n, q))


def test_scale_follows_theorem_1_per_column_bounds():
    X = _uniform(q=3)
    ldp = LaplaceLDP(epsilon=2.0, bounds=([0, -1, 0], [1, 1, 4])).fit(X)
    # b_j = q (high_j - low_j) / epsilon
    np.testing.assert_allclose(ldp.scale_, 3 * np.array([1, 2, 4]) / 2.0)
    low, high = ldp.bounds_
    np.testing.assert_array_equal(low, [0, -1, 0])
    np.testing.assert_array_equal(high, [1, 1, 4])
    summary = ldp.privacy_summary()
    assert summary["notion"] == "epsilon-local differential privacy"
    assert summary["epsilon"] == 2.0
    assert summary["epsilon_per_feature"] == pytest.approx(2.0 / 3)
    assert summary["bounds_from_data"] is False


@pytest.mark.parametrize("secure", [False, True])
def test_noise_is_laplace_with_the_declared_scale(secure):
    X = np.full((200_000, 1), 0.5)
    ldp = LaplaceLDP(epsilon=1.0, bounds=(0, 1), random_state=0, secure=secure)
    noise = (ldp.fit_transform(X) - X)[:, 0]
    b = ldp.scale_[0]
    assert b == pytest.approx(1.0, rel=1e-5)
    # mean 0, variance 2 b^2: check within 4 standard errors
    se_mean = np.sqrt(2) * b / np.sqrt(noise.size)
    assert abs(noise.mean()) < 4 * se_mean
    se_var = np.sqrt((24 - 4) * b**4 / noise.size)  # Var of n^2 for Laplace
    assert abs(noise.var() - 2 * b**2) < 4 * se_var
    assert stats.kstest(noise, stats.laplace(scale=b).cdf).pvalue > 1e-3


@pytest.mark.parametrize("secure", [False, True])
@pytest.mark.parametrize("epsilon", [0.5, 2.0])
def test_output_likelihood_ratio_is_bounded_by_exp_epsilon(epsilon, secure):
    """P(z in A | x = low) / P(z in A | x = high) <= e^eps on histogram cells."""
    n = 400_000
    ldp = LaplaceLDP(epsilon=epsilon, bounds=(0, 1), random_state=1, secure=secure)
    ldp.fit([[0.0], [1.0]])
    z0 = ldp.transform(np.zeros((n, 1)))[:, 0]
    ldp.set_params(random_state=2)
    z1 = ldp.transform(np.ones((n, 1)))[:, 0]
    b = ldp.scale_[0]
    edges = np.linspace(-2 * b, 1 + 2 * b, 13)
    c0, _ = np.histogram(z0, edges)
    c1, _ = np.histogram(z1, edges)
    log_ratio = np.log(c0 / c1)
    se = np.sqrt(1 / c0 + 1 / c1)  # delta-method SE of a log count ratio
    assert np.all(np.abs(log_ratio) <= epsilon + 4 * se)
    # the bound is attained on cells outside [low, high]
    outside = edges[1:] <= 0
    np.testing.assert_allclose(
        log_ratio[outside], epsilon, atol=float(4 * se[outside].max())
    )


def test_secure_outputs_lie_on_a_power_of_two_grid():
    X = np.random.default_rng(0).uniform(0, 10, size=(5000, 2))
    ldp = LaplaceLDP(epsilon=1.0, bounds=(0, 10), secure=True, random_state=0)
    Z = ldp.fit_transform(X)
    step = ldp.grid_step_
    assert np.all(np.log2(step) == np.round(np.log2(step)))
    k = Z / step
    np.testing.assert_array_equal(k, np.round(k))
    # outputs are clamped 20 noise scales beyond the bounds
    assert np.all(np.abs(Z - 5) <= 5 + 20 * ldp.scale_ + step)
    assert ldp.privacy_summary()["sampler"] == "discrete Laplace on a grid"


@pytest.mark.parametrize("epsilon", [50.0, 1e6])
def test_secure_mode_follows_the_noise_scale_at_large_epsilon(epsilon):
    ldp = LaplaceLDP(epsilon=epsilon, bounds=(0, 1), random_state=0).fit([[0.5]])
    # the grid adapts to the noise scale: ~2**20 steps per scale
    assert ldp.scale_[0] / ldp.grid_step_[0] >= 2.0**20
    noise = ldp.transform(np.full((20_000, 1), 0.5))[:, 0] - 0.5
    b = ldp.scale_[0]
    se = np.sqrt(20 * b**4 / noise.size)
    assert abs(noise.var() - 2 * b**2) < 4 * se


def test_secure_mode_refuses_grid_indices_beyond_double_precision():
    with pytest.raises(ValueError, match="grid indices below 2..52"):
        LaplaceLDP(epsilon=1e9, bounds=(1e9, 1e9 + 1)).fit([[1e9]])


def test_bounds_from_data_warn_of_the_leak():
    X = _uniform()
    with pytest.warns(PrivacyLeakWarning, match="without bounds"):
        ldp = LaplaceLDP(epsilon=1.0).fit(X)
    np.testing.assert_allclose(ldp.bounds_[0], X.min(axis=0))
    assert ldp.privacy_summary()["bounds_from_data"] is True


def test_values_outside_bounds_are_clipped_with_a_warning_or_rejected():
    X = np.array([[-1.0], [0.5], [3.0]])
    ldp = LaplaceLDP(epsilon=1e6, bounds=(0, 1), random_state=0).fit(X)
    with pytest.warns(UserWarning, match="2 values lie outside the bounds"):
        Z = ldp.transform(X)
    np.testing.assert_allclose(Z[:, 0], [0, 0.5, 1], atol=1e-3)
    ldp.set_params(clip=False).fit(X)  # a changed setting needs a refit
    with pytest.raises(ValueError, match="outside the bounds.*clip=True"):
        ldp.transform(X)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ldp.transform(np.array([[0.0], [1.0]]))  # on the bounds: no warning


@pytest.mark.parametrize("epsilon", [0, -1.0])
def test_non_positive_epsilon_is_refused(epsilon):
    with pytest.raises(InvalidParameterError, match="'epsilon' parameter"):
        LaplaceLDP(epsilon=epsilon, bounds=(0, 1)).fit([[0.5]])


@pytest.mark.parametrize(
    "bounds, match",
    [
        ((1, 1), "low < high"),
        ((2, 1), "low < high"),
        ((0, [1, 2]), "bounds for 3 columns"),
    ],
)
def test_bad_bounds_are_refused(bounds, match):
    with pytest.raises(ValueError, match=match):
        LaplaceLDP(bounds=bounds).fit(_uniform(q=3))


def test_nan_is_refused():
    X = _uniform(q=2)
    X[3, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        LaplaceLDP(bounds=(0, 1)).fit(X)
    ldp = LaplaceLDP(bounds=(0, 1)).fit(_uniform(q=2))
    with pytest.raises(ValueError, match="NaN"):
        ldp.transform(X)


def test_wrong_number_of_features_is_refused():
    ldp = LaplaceLDP(bounds=(0, 1)).fit(_uniform(q=2))
    with pytest.raises(ValueError, match="features"):
        ldp.transform(_uniform(q=3))


def test_pandas_in_pandas_out_keeps_names():
    df = pd.DataFrame(_uniform(q=2) * [100, 1], columns=["age", "score"])
    ldp = LaplaceLDP(epsilon=1.0, bounds=([0, 0], [100, 1]), random_state=0)
    out = ldp.set_output(transform="pandas").fit_transform(df)
    assert isinstance(out, pd.DataFrame)
    assert list(out.columns) == ["age", "score"]
    assert list(ldp.get_feature_names_out()) == ["age", "score"]


def test_int_seed_reproduces_and_calls_differ():
    X = _uniform()
    a = LaplaceLDP(bounds=(0, 1), random_state=3).fit(X)
    np.testing.assert_array_equal(a.transform(X), clone(a).fit(X).transform(X))
    gen = LaplaceLDP(bounds=(0, 1), random_state=np.random.default_rng(0)).fit(X)
    assert not np.array_equal(gen.transform(X), gen.transform(X))


def test_fit_stores_no_raw_data():
    X = _uniform(n=50)
    ldp = LaplaceLDP(bounds=(0, 1)).fit(X)
    for value in vars(ldp).values():
        assert not (isinstance(value, np.ndarray) and value.size >= X.size)


def test_in_a_pipeline():
    X = _uniform()
    pipe = make_pipeline(LaplaceLDP(bounds=(0, 1), random_state=0), StandardScaler())
    out = pipe.fit_transform(X)
    np.testing.assert_allclose(out.std(axis=0), 1.0)


@pytest.mark.parametrize("kind", [np.float32, np.float16, np.int64])
def test_numpy_scalar_budgets_calibrate_as_python_floats(kind):
    # A grid search over np.float32 budgets passes numpy scalars: the exact
    # check of the realised loss must read them as their float values.
    x = np.random.default_rng(0).uniform(0, 1, (20, 1))
    got = LaplaceLDP(epsilon=kind(2), bounds=(0, 1)).fit(x)
    want = LaplaceLDP(epsilon=2.0, bounds=(0, 1)).fit(x)
    np.testing.assert_array_equal(got.scale_, want.scale_)
    assert got.transform(x).shape == (20, 1)
