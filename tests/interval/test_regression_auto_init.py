"""init="auto" with a LightGBM base: the start chosen by held-out likelihood."""

import warnings

import numpy as np
import pytest

from skprivate.interval import (
    IntervalCaseI,
    IntervalCaseII,
    IterativeIntervalRegressor,
)
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
