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
