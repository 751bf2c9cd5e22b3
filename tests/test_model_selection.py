import numpy as np
import pytest
from sklearn.linear_model import Ridge
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer

from skprivate.model_selection import MostPrivateWithin, most_private_setting

RESULTS = {
    "params": [{"eps": e} for e in (0.1, 0.5, 1.0, 2.0, 8.0)],
    "mean_test_score": np.array([0.20, 0.70, 0.78, 0.80, 0.81]),
    "std_test_score": np.array([0.05, 0.05, 0.05, 0.05, 0.04]),
    "split0_test_score": np.zeros(5),
    "split1_test_score": np.zeros(5),
    "split2_test_score": np.zeros(5),
    "split3_test_score": np.zeros(5),
}


@pytest.mark.parametrize(
    "tolerance, rule, expected",
    [
        (0.0, "absolute", 8.0),
        (0.02, "absolute", 2.0),
        (0.031, "absolute", 1.0),
        (0.2, "absolute", 0.5),
        (0.15, "relative", 0.5),
        (1.0, "one-se", 2.0),  # SE of best = 0.04 / sqrt(4) = 0.02: need >= 0.79
        (2.0, "one-se", 1.0),  # need >= 0.77
    ],
)
def test_selects_most_private_within_tolerance(tolerance, rule, expected):
    out = most_private_setting(RESULTS, "eps", tolerance=tolerance, rule=rule)
    assert out["params"] == {"eps": expected}
    assert out["best_params"] == {"eps": 8.0}
    assert out["table"]["selected"].sum() == 1


def test_higher_is_more_private_and_callables():
    res = {
        "params": [{"d": 1, "k": 1}, {"d": 2, "k": 1}, {"d": 2, "k": 3}],
        "mean_test_score": np.array([0.9, 0.88, 0.89]),
    }
    out = most_private_setting(res, "d", more_private="higher", tolerance=0.05)
    assert out["params"] == {"d": 2, "k": 3}  # ties in privacy broken by score
    out = most_private_setting(res, lambda p: p["d"] / p["k"], tolerance=0.05)
    assert out["params"] == {"d": 2, "k": 1}


def test_errors_are_clear():
    with pytest.raises(ValueError, match="not a searched parameter"):
        most_private_setting(RESULTS, "epsilon")
    with pytest.raises(ValueError, match="more_private"):
        most_private_setting(RESULTS, "eps", more_private="up")
    with pytest.raises(ValueError, match="tolerance"):
        most_private_setting(RESULTS, "eps", tolerance=-1)
    with pytest.raises(ValueError, match="score_key"):
        most_private_setting(RESULTS, "eps", score_key="mean_test_r2")


def test_as_refit_strategy_of_grid_search():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 1))
    y = 2 * X[:, 0] + rng.normal(scale=0.1, size=200)

    def add_noise(X, scale=0.0):
        return X + np.random.default_rng(1).normal(scale=scale, size=X.shape)

    pipe = make_pipeline(
        FunctionTransformer(add_noise, kw_args={"scale": 0.0}), Ridge()
    )
    grid = {"functiontransformer__kw_args": [{"scale": s} for s in (0.0, 0.1, 3.0)]}
    selector = MostPrivateWithin(
        lambda p: p["functiontransformer__kw_args"]["scale"], tolerance=0.05
    )
    search = GridSearchCV(pipe, grid, refit=selector, cv=3).fit(X, y)
    chosen = search.cv_results_["params"][search.best_index_]
    assert chosen["functiontransformer__kw_args"] == {"scale": 0.1}
    assert hasattr(search, "best_estimator_")


def _two_scorer_results():
    """RESULTS as a search with the scorers "r2" and "mse" would give them."""
    out = {"params": RESULTS["params"]}
    for key, value in RESULTS.items():
        if key.endswith("_test_score"):
            out[key.replace("_test_score", "_test_r2")] = value
            out[key.replace("_test_score", "_test_mse")] = -value
    return out


@pytest.mark.parametrize("tolerance, expected", [(1.0, 2.0), (2.0, 1.0)])
def test_one_se_reads_the_columns_of_score_key(tolerance, expected):
    # the same selection as with one scorer: std_test_r2 over 4 splits
    results = _two_scorer_results()
    for select in (
        lambda: most_private_setting(
            results, "eps", tolerance=tolerance, rule="one-se", score_key="mean_test_r2"
        )["params"],
        lambda: results["params"][
            MostPrivateWithin(
                "eps", tolerance=tolerance, rule="one-se", score_key="mean_test_r2"
            )(results)
        ],
    ):
        assert select() == {"eps": expected}
    # the SE of another score_key is read from its own columns: doubling the
    # std of r2 (SE 0.04, need >= 0.77) selects 1.0 at tolerance 1
    results["std_test_r2"] = 2 * results["std_test_r2"]
    out = most_private_setting(
        results, "eps", tolerance=1.0, rule="one-se", score_key="mean_test_r2"
    )
    assert out["params"] == {"eps": 1.0}


def test_one_se_with_several_scorers_of_a_fitted_search():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 1))
    y = 2 * X[:, 0] + rng.normal(scale=0.5, size=60)

    def add_noise(X, scale=0.0):
        return X + np.random.default_rng(1).normal(scale=scale, size=X.shape)

    def scale(params):
        return params["functiontransformer__kw_args"]["scale"]

    pipe = make_pipeline(FunctionTransformer(add_noise), Ridge())
    grid = {"functiontransformer__kw_args": [{"scale": s} for s in (0.0, 0.5, 3.0)]}
    search = GridSearchCV(
        pipe, grid, cv=3, scoring=["r2", "neg_mean_squared_error"], refit="r2"
    ).fit(X, y)
    results = search.cv_results_
    # r2: 0.899 (std 0.038), 0.811, 0.058; the SE of the best is 0.022, so
    # scale 0.5 is within 5 SE of the best (0.788) but not within 3 (0.832)
    np.testing.assert_allclose(
        results["mean_test_r2"], [0.899, 0.811, 0.058], atol=1e-3
    )
    np.testing.assert_allclose(results["std_test_r2"][0], 0.038, atol=1e-3)
    for tolerance, expected in [(3.0, 0.0), (5.0, 0.5)]:
        out = most_private_setting(
            search, scale, tolerance=tolerance, rule="one-se", score_key="mean_test_r2"
        )
        assert scale(out["params"]) == expected


def test_one_se_names_the_missing_column():
    results = _two_scorer_results()
    del results["std_test_r2"]
    with pytest.raises(ValueError) as error:
        most_private_setting(
            results, "eps", tolerance=1.0, rule="one-se", score_key="mean_test_r2"
        )
    assert "'std_test_r2'" in str(error.value)
    assert "score_key 'mean_test_r2'" in str(error.value)
    results = _two_scorer_results()
    for i in range(4):
        del results[f"split{i}_test_r2"]
    with pytest.raises(ValueError) as error:
        most_private_setting(
            results, "eps", tolerance=1.0, rule="one-se", score_key="mean_test_r2"
        )
    assert "'split<i>_test_r2'" in str(error.value)
    results["r2"] = results["mean_test_r2"]
    with pytest.raises(ValueError, match="rule='one-se' needs a score_key 'mean_"):
        most_private_setting(results, "eps", rule="one-se", score_key="r2")


def test_a_grid_point_without_a_number_is_refused_naming_param():
    results = {
        "params": [{"eps": None}, {"eps": 1.0}],
        "mean_test_score": np.array([0.5, 0.6]),
    }
    with pytest.raises(TypeError, match="param 'eps' is None in the grid point"):
        most_private_setting(results, "eps")
    results["params"][0] = {"eps": float("nan")}
    with pytest.raises(ValueError, match="param 'eps' is NaN in the grid point"):
        most_private_setting(results, "eps")


def test_a_search_without_grid_points_is_refused():
    results = {"params": [], "mean_test_score": np.array([])}
    with pytest.raises(ValueError, match="search has no grid point"):
        most_private_setting(results, "eps")
    with pytest.raises(ValueError, match="search has no grid point"):
        MostPrivateWithin("eps")({"params": []})
