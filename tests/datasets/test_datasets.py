import numpy as np
import pytest
from scipy import stats

from skprivate.datasets import (
    load_adult,
    load_life_expectancy,
    make_gaussian_mixture,
    make_interval_regression,
    make_truncated_chi2,
    sample_truncated,
)


def test_adult_matches_its_provenance():
    adult = load_adult()
    assert adult.shape == (32561, 15)
    expected = {
        "Amer-Indian-Eskimo": 0.009551,
        "Asian-Pac-Islander": 0.031909,
        "Black": 0.095943,
        "Other": 0.008323,
        "White": 0.854274,
    }
    got = adult["race"].value_counts(normalize=True)
    for race, p in expected.items():
        assert round(float(got[race]), 6) == p
    table = adult.groupby(["sex", "income"]).size()
    assert table[("Female", "<=50K")] == 9592 and table[("Male", ">50K")] == 6662
    assert adult["workclass"].isna().sum() == 1836
    assert adult["education_num"].between(1, 16).all()


def test_life_expectancy_matches_its_provenance():
    life = load_life_expectancy()
    assert life.shape == (10545, 9)
    assert life["life_expectancy"].notna().all()
    assert life["country"].nunique() == 185
    assert life["year"].min() == 1960 and life["year"].max() == 2016
    assert life["gdp"].isna().sum() == 2972


def test_truncated_chi2_is_the_conditional_distribution():
    x = make_truncated_chi2(20_000, 3, low=0.0, high=3.0, random_state=0)
    assert x.min() >= 0 and x.max() <= 3
    chi2 = stats.chi2(3)

    def cdf(t):
        return chi2.cdf(t) / chi2.cdf(3.0)

    assert stats.kstest(x, cdf).pvalue > 0.01
    np.testing.assert_array_equal(
        x[:10], make_truncated_chi2(20_000, 3, high=3.0, random_state=0)[:10]
    )


def test_gaussian_mixture_mean_matches_truncated_mixture():
    x = make_gaussian_mixture(100_000, random_state=0)
    assert x.min() >= -3 and x.max() <= 3
    comps = [stats.norm(-1, 1), stats.norm(1.5, np.sqrt(0.5))]
    w = np.array([1 / 3, 2 / 3])
    grid = np.linspace(-3, 3, 20001)
    dens = sum(wi * c.pdf(grid) for wi, c in zip(w, comps))
    mean = np.trapezoid(grid * dens, grid) / np.trapezoid(dens, grid)
    assert abs(x.mean() - mean) < 4 * x.std() / np.sqrt(x.size)


def test_sample_truncated_reports_empty_interval():
    with pytest.raises(ValueError, match="almost no mass"):
        sample_truncated(
            lambda rng, m: rng.normal(size=m), 10, 50.0, 51.0, 0, max_rounds=3
        )
    with pytest.raises(ValueError, match="low must be smaller"):
        sample_truncated(lambda rng, m: rng.normal(size=m), 10, 1.0, 0.0)


def test_interval_regression_data_follow_the_model():
    X, y = make_interval_regression(5000, random_state=0)
    slope = np.polyfit(X[:, 0], y, 1)[0]
    assert abs(slope - 1.0) < 0.05
    Xq, yq = make_interval_regression(5000, function="quadratic", random_state=0)
    resid = yq - (Xq[:, 1] - 2 * Xq[:, 0] + 3)
    assert abs(resid.std() - 1.0) < 0.05
    _, yt = make_interval_regression(10, noise="t", noise_df=3, random_state=0)
    assert yt.shape == (10,)
    with pytest.raises(ValueError, match="noise_df"):
        make_interval_regression(10, noise="t")
    with pytest.raises(ValueError, match="function"):
        make_interval_regression(10, function="cubic")


def test_interval_regression_with_a_privatizer():
    from sklearn.preprocessing import FunctionTransformer

    widen = FunctionTransformer(lambda y: np.column_stack([y[:, 0] - 1, y[:, 0] + 1]))
    _, y, intervals = make_interval_regression(20, privatizer=widen, random_state=0)
    assert intervals.shape == (20, 2)
    assert np.all((intervals[:, 0] < y) & (y <= intervals[:, 1]))


@pytest.mark.parametrize("noise_scale", [0.0, -1.0, np.inf, np.nan])
def test_interval_regression_refuses_a_non_finite_or_non_positive_noise_scale(
    noise_scale,
):
    with pytest.raises(
        ValueError,
        match=r"'noise_scale' parameter .* finite float in the range \(0, inf\)",
    ):
        make_interval_regression(10, noise_scale=noise_scale, random_state=0)
