"""init="auto": the start (LightGBM base) or the projection (linear base) chosen
by held-out likelihood."""

import importlib.util
import warnings

import numpy as np
import pytest
from sklearn.linear_model import LinearRegression

from skprivate.interval import (
    IntervalCaseI,
    IntervalCaseII,
    IterativeIntervalRegressor,
)
from skprivate.interval._auto_init import _paired_z
from skprivate.interval._truncated import interval_log_likelihood

lightgbm = pytest.importorskip("lightgbm")


def _lgbm():
    return lightgbm.LGBMRegressor(
        n_estimators=30, learning_rate=0.1, min_child_samples=10, verbose=-1, n_jobs=1
    )


def _weak(n, seed):
    # A weak signal under unit noise: clean R^2 about 0.01.
    rng = np.random.default_rng(seed)
    X = rng.uniform(size=(n, 5))
    f = 0.3 * X[:, 0]
    return X, f, f + rng.normal(size=n)


def _friedman2(n, seed):
    from sklearn.datasets import make_friedman2

    X, f = make_friedman2(n, noise=0.0, random_state=seed)
    return X, f, f + 10.0 * np.random.default_rng(seed).normal(size=n)


def _fit(reg, X, Z):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return reg.fit(X, Z)


def _fresh_log_likelihood(reg, mech, X, y):
    # Interval log-likelihood per row of fresh answers to fresh responses.
    Z = mech.transform(y[:, None])
    pred = reg.predict(X)
    return interval_log_likelihood(
        Z[:, 0], Z[:, 1], pred, "gaussian", reg.sigma_
    ) / len(y)


@pytest.mark.parametrize(
    ("make", "kind", "shift", "spread", "scale", "chosen"),
    [
        # Wide Case-I cells on a weak signal: the boosted start fits the
        # noise of the imputations (the information rule took it: 0.11 < 0.3).
        (_weak, IntervalCaseI, 0.0, 1.0, 5.0, "constant"),
        # Narrow anchors above the centre on a strong signal: the constant
        # start creeps where the answers say little (the information rule
        # kept it: 0.55 >= 0.3).
        (_friedman2, IntervalCaseII, 1.0, 0.3, 2.0, "boosting"),
    ],
    ids=["weak-signal", "narrow-anchors"],
)
def test_auto_init_keeps_the_start_that_generalizes(
    make, kind, shift, spread, scale, chosen
):
    X, _, y = make(400, 0)
    mech = kind(
        scale=scale,
        anchor_loc=float(y.mean() + shift * y.std()),
        anchor_scale=float(spread * y.std()),
        random_state=0,
    )
    with warnings.catch_warnings():
        # the narrow anchors are meant not to match the data's spread
        warnings.simplefilter("ignore")
        Z = mech.fit_transform(y[:, None])
    reg = _fit(IterativeIntervalRegressor(_lgbm(), max_iter=6, tol=None), X, Z)
    other = "boosting" if chosen == "constant" else "constant"
    assert reg.init_ == chosen
    scores = reg.start_scores_
    assert scores[chosen] > scores[other]
    # The former rule (boosted below an information fraction of 0.3) would
    # have taken the other start.
    assert (reg.start_information_ < 0.3) == (other == "boosting")
    # On fresh data, the chosen start's fit has the higher interval
    # likelihood; the default's fit on all rows is the explicit start's.
    fits = {
        start: _fit(
            IterativeIntervalRegressor(_lgbm(), init=start, max_iter=6, tol=None), X, Z
        )
        for start in ("constant", "boosting")
    }
    X_new, _, y_new = make(4000, 1)
    fresh = {s: _fresh_log_likelihood(r, mech, X_new, y_new) for s, r in fits.items()}
    assert fresh[chosen] > fresh[other]
    np.testing.assert_array_equal(reg.predict(X_new), fits[chosen].predict(X_new))
    assert reg.n_iter_ == 6


def test_auto_init_too_few_rows_keeps_the_constant_start():
    # Below 25 rows on either side of the split nothing is held out.
    X, _, y = _weak(80, 0)
    Z = IntervalCaseI(scale=5.0, random_state=0).fit_transform(y[:, None])
    reg = _fit(IterativeIntervalRegressor(_lgbm(), max_iter=3, tol=None), X, Z)
    assert reg.start_scores_ is None and reg.init_ == "constant"
    assert reg.start_information_ is not None


def _narrow_friedman2(n, seed, linear=False):
    # Case-II answers with narrow anchors above the centre (anchor_loc =
    # mean + 1 sd, anchor_scale = 0.3 sd): most answers say only "below".
    # Friedman #2 is not linear in X; ``linear`` replaces its regression
    # function by a linear one of about the same spread.
    X, f, y = _friedman2(n, seed)
    if linear:
        f = X @ np.array([0.5, 0.2, 200.0, 10.0])
        y = f + 10.0 * np.random.default_rng(seed).normal(size=n)
    mech = IntervalCaseII(
        scale=2.0,
        anchor_loc=float(y.mean() + y.std()),
        anchor_scale=float(0.3 * y.std()),
        random_state=seed,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return X, f, mech.fit_transform(y[:, None])


def _l2_projection_error(reg, linear=False):
    # Mean squared distance of the predictions to the least-squares
    # projection of the clean regression function on the linear functions
    # (from 20,000 fresh clean rows), over the variance of that function.
    X, f, _ = _friedman2(20_000, 100)
    if linear:
        f = X @ np.array([0.5, 0.2, 200.0, 10.0])
    best = LinearRegression().fit(X, f).predict(X)
    return float(np.mean((reg.predict(X) - best) ** 2) / np.var(f))


def test_linear_auto_projects_a_misspecified_model():
    # Friedman #2 with narrow anchors: the boosted model from the MLE has a
    # clearly higher held-out interval likelihood (z about 4), so the final
    # model is the least-squares fit to its imputations, which lies closer
    # to the least-squares projection than the interval MLE (0.037 against
    # 0.058 of the variance).
    X, _, Z = _narrow_friedman2(1000, 0)
    reg = _fit(IterativeIntervalRegressor(random_state=0), X, Z)
    mle = _fit(IterativeIntervalRegressor(init="constant"), X, Z)
    assert mle.solver_ == "newton" and mle.projection_ is None
    assert reg.solver_ == "projection" and reg.projection_ == "mle"
    scores = reg.start_scores_
    assert scores["z boosting from MLE"] > 2.0
    assert scores["boosting from MLE"] > scores["MLE"]
    assert reg.converged_
    assert _l2_projection_error(reg) < 0.8 * _l2_projection_error(mle)


def test_linear_auto_keeps_the_mle_of_a_linear_model():
    # The same answers on a linear regression function: no boosted model
    # predicts held-out answers better, and the fit is the interval MLE,
    # exactly that of init="constant".
    X, _, Z = _narrow_friedman2(1000, 0, linear=True)
    reg = _fit(IterativeIntervalRegressor(random_state=0), X, Z)
    mle = _fit(IterativeIntervalRegressor(init="constant"), X, Z)
    assert reg.solver_ == "newton" and reg.projection_ is None
    assert reg.start_scores_["z boosting"] < 2.0
    assert reg.start_scores_["z boosting from MLE"] < 2.0
    np.testing.assert_array_equal(reg.predict(X), mle.predict(X))
    assert reg.sigma_ == mle.sigma_
    assert _l2_projection_error(reg, linear=True) < 1e-3


def test_linear_auto_choice_uses_the_answers_alone():
    # The MLE's score is the held-out interval log-likelihood per row of
    # the answers, recomputed here from Z and the documented split alone
    # (random_state=0: the first permutation of default_rng(0), a quarter
    # held out); the clean responses never enter.
    X, _, Z = _narrow_friedman2(1000, 0)
    reg = _fit(IterativeIntervalRegressor(random_state=0), X, Z)
    perm = np.random.default_rng(0).permutation(1000)
    val, part = np.sort(perm[:250]), np.sort(perm[250:])
    mle = _fit(IterativeIntervalRegressor(init="constant"), X[part], Z[part])
    held_out = interval_log_likelihood(
        Z[val, 0], Z[val, 1], mle.predict(X[val]), "gaussian", mle.sigma_
    )
    assert reg.start_scores_["MLE"] == pytest.approx(held_out / 250, rel=1e-6)


def test_paired_z_statistic():
    # Mean 2 of d = (1, 2, 3), standard error sqrt(2) / 3.
    assert _paired_z(np.array([1.0, 2.0, 3.0]), np.ones(3)) == pytest.approx(
        2.0 / (np.sqrt(2.0) / 3.0)
    )
    # Weights 2 on the first row: mean 7 / 4, se sqrt(4 (3/4)^2 + (1/4)^2
    # + (5/4)^2) / 4.
    w = np.array([2.0, 1.0, 1.0])
    se = np.sqrt(4 * 0.75**2 + 0.25**2 + 1.25**2) / 4
    assert _paired_z(np.array([1.0, 2.0, 3.0]), w) == pytest.approx(1.75 / se)
    assert np.isnan(_paired_z(np.zeros(3), np.ones(3)))


def test_linear_auto_without_lightgbm_keeps_the_mle(monkeypatch):
    original = importlib.util.find_spec

    def find_spec(name, *args, **kwargs):
        if name == "lightgbm":
            return None
        return original(name, *args, **kwargs)

    monkeypatch.setattr(importlib.util, "find_spec", find_spec)
    X, _, Z = _narrow_friedman2(1000, 0)
    reg = _fit(IterativeIntervalRegressor(random_state=0), X, Z)
    assert reg.solver_ == "newton" and reg.projection_ is None
    assert reg.start_scores_ is None


def test_conf_int_after_a_projection_bootstraps_and_refuses_wald():
    # The observed information of the interval likelihood is the MLE's
    # variance, not the two-stage projection's: after a projection the
    # default interval is the pairs bootstrap, and method="wald" is refused.
    X, _, Z = _narrow_friedman2(1000, 0)
    reg = _fit(IterativeIntervalRegressor(random_state=0), X, Z)
    assert reg.solver_ == "projection"
    ci = reg.conf_int("predict", X[:3], X=X, y=Z, n_resamples=8, random_state=0)
    assert ci["method"].str.startswith("bootstrap").all()
    with pytest.raises(ValueError, match="projection"):
        reg.conf_int("predict", X[:3], X=X, y=Z, method="wald")
    mle = _fit(IterativeIntervalRegressor(init="constant"), X, Z)
    ci = mle.conf_int("predict", X[:3], X=X, y=Z)
    assert ci["method"].str.startswith("wald").all()
