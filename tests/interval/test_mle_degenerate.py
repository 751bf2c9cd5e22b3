"""IntervalMLE on data without an MLE, at its iteration cap, and on steps
whose scale leaves the floats.

* Rows (of positive weight) that all enclose a common set ``[a, b]`` have
  no MLE: the likelihood rises to its supremum as the scale goes to 0.  The
  fit refuses them, as it refuses a single distinct exact value.
* A Newton iteration stopped at its cap warns (ConvergenceWarning).
* A trial step whose ``exp(log scale)`` underflows is halved, not raised:
  duplicated rows fit as the equivalent weights do.
"""

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

from skprivate.interval import (
    IntervalCaseII,
    IntervalMLE,
    IntervalNPMLE,
    _location_scale,
)

INF = np.inf


def _release(n=200):
    rng = np.random.default_rng(0)
    x = rng.normal(5.0, 1.0, n)
    return IntervalCaseII(
        loc=5, scale=1, anchor_loc=5, anchor_scale=1, random_state=0
    ).fit_transform(x[:, None])


COMMON = {
    # every row contains [1, 2]
    "overlapping": np.array([[-INF, 2.0], [1.0, INF], [0.0, 3.0], [0.5, 2.5]] * 10),
    # exact values inside every interval: the density is unbounded at 0 scale
    "exact_inside": np.array([[1.5, 1.5], [1.5, 1.5], [1.0, 2.0], [0.0, 3.0]]),
    # Case I cut at one anchor: only (1 - loc) / scale is identified
    "one_anchor": np.array([[-INF, 1.0], [1.0, INF], [1.0, INF]] * 5),
    # cells (0, 1] and (1, 2] meeting at 1
    "touching": np.array([[0.0, 1.0], [1.0, 2.0]] * 5),
}


@pytest.mark.parametrize("family", ["normal", "logistic"])
@pytest.mark.parametrize("case", sorted(COMMON))
def test_common_point_refused(case, family):
    Z = COMMON[case]
    a, b = Z[:, 0].max(), Z[:, 1].min()
    with pytest.raises(ValueError, match=r"\bX\b.*encloses.*does not exist") as info:
        IntervalMLE(family=family).fit(Z)
    assert f"[{a:g}, {b:g}]" in str(info.value)


def test_common_point_on_a_real_release_refused():
    # The first 100 rows of a Case-II release happen to share a point.
    S = _release()[:100]
    assert S[:, 0].max() <= S[:, 1].min()
    with pytest.raises(ValueError, match="does not exist"):
        IntervalMLE().fit(S)
    with pytest.raises(ValueError, match="does not exist"):
        IntervalMLE().fit(np.vstack([S, S]))
    # the nonparametric fit the message points to takes these rows
    IntervalNPMLE().fit(S)


def test_common_point_counts_positive_weights_only():
    Z = np.array([[0.0, 2.0], [1.0, 3.0], [5.0, 6.0]])
    # the row (5, 6] breaks the common set [1, 2], unless its weight is 0
    with pytest.raises(ValueError, match=r"encloses \[1, 2\]"):
        IntervalMLE().fit(Z, sample_weight=[1.0, 1.0, 0.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        mle = IntervalMLE().fit(Z, sample_weight=[1.0, 1.0, 1.0])
    assert np.isfinite(mle.loc_) and mle.scale_ > 0


def test_rows_without_common_point_fit_quietly():
    Z = _release()
    assert Z[:, 0].max() > Z[:, 1].min()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        mle = IntervalMLE().fit(Z)
    assert mle.n_iter_ < _location_scale._MAX_ITER
    assert abs(mle.loc_ - 5.0) < 0.5 and 0.5 < mle.scale_ < 1.5


@pytest.mark.parametrize("family", ["normal", "logistic"])
def test_iteration_cap_warns(monkeypatch, family):
    monkeypatch.setattr(_location_scale, "_MAX_ITER", 2)
    with pytest.warns(
        ConvergenceWarning, match=r"IntervalMLE.*did not converge"
    ) as rec:
        mle = IntervalMLE(family=family).fit(_release())
    assert mle.n_iter_ == 2
    # the warning names the caller's line, this file
    assert {w.filename for w in rec if w.category is ConvergenceWarning} == {__file__}


def test_duplicated_rows_fit_as_weights():
    # Its start differs from the weighted fit's (duplicates move the median
    # of the ends), and a trial step there takes exp(log scale) to 0.
    Z = _release()
    w = np.r_[2.0 * np.ones(100), np.ones(100)]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        weighted = IntervalMLE().fit(Z, sample_weight=w)
        duplicated = IntervalMLE().fit(np.vstack([Z, Z[:100]]))
    np.testing.assert_allclose(duplicated.loc_, weighted.loc_, rtol=0, atol=1e-8)
    np.testing.assert_allclose(duplicated.scale_, weighted.scale_, rtol=0, atol=1e-8)
    np.testing.assert_allclose(
        duplicated.log_likelihood_, weighted.log_likelihood_, rtol=0, atol=1e-12
    )


@pytest.mark.parametrize("log_scale", [-800.0, 800.0, np.nan])
def test_trial_point_outside_the_floats_is_rejected(log_scale):
    Z = _release()
    w = np.full(Z.shape[0], 1.0 / Z.shape[0])
    problem = _location_scale._Problem(Z[:, 0], Z[:, 1], w, "normal")
    ll, grad, hess = _location_scale._trial(problem, np.array([5.0, log_scale]))
    assert ll == -INF and grad is None and hess is None


@pytest.mark.parametrize("shift", [0.0, 1e6, 1e9])
def test_parametric_variance_is_the_family_s_far_from_zero(shift):
    # E[X^2] - mean^2 would cancel at 1e9; the frozen law's own variance not.
    rng = np.random.default_rng(0)
    lo = rng.normal(0, 1, 200)
    Z = np.column_stack([lo, lo + rng.uniform(0.5, 2.0, 200)]) + shift
    est = IntervalMLE().fit(Z)
    assert est.std() == pytest.approx(est.scale_, rel=1e-12)
    assert est.var() == pytest.approx(est.scale_**2, rel=1e-12)


def test_regressor_on_responses_sharing_a_common_set_warns_and_fits():
    # The marginal MLE that places the regressor's start does not exist
    # here; the regression's does not either, and the fit says so.
    from sklearn.linear_model import LinearRegression

    from skprivate import IterativeIntervalRegressor
    from skprivate.exceptions import NotIdentifiableWarning

    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 2))
    lo = -5.0 + rng.uniform(-0.5, 0.0, 40)
    Y = np.column_stack([lo, lo + 10.0 + rng.uniform(0.0, 0.5, 40)])
    with pytest.warns(NotIdentifiableWarning, match="encloses one common set") as rec:
        est = IterativeIntervalRegressor(LinearRegression(), max_iter=20).fit(X, Y)
    assert rec[0].filename == __file__
    assert np.isfinite(est.predict(X)).all()
    # rows that do not all overlap: no such warning
    Y2 = Y.copy()
    Y2[0] = [6.0, 7.0]
    with warnings.catch_warnings():
        warnings.simplefilter("error", NotIdentifiableWarning)
        IterativeIntervalRegressor(LinearRegression(), max_iter=20).fit(X, Y2)
