"""IterativeIntervalRegressor in any units: shifted and scaled responses,
scaled weights, and designs without a varying feature.

The interval-regression MLE of a linear model is equivariant: fitting
``Y + c`` gives the fit to ``Y`` shifted by ``c`` (intercept + c, the same
slopes, noise scale and log-likelihood), fitting ``a Y`` scales the slopes
and sigma by ``a`` and moves the log-likelihood of the exact rows by
``-log a`` each, and multiplying every weight by the same constant changes
nothing.  Newton's method must find that same point in any units, and
report convergence only at the maximum.
"""

import warnings

import numpy as np
import pytest
from scipy import sparse
from sklearn.linear_model import LinearRegression

from skprivate.interval import (
    IntervalCaseI,
    IntervalCaseII,
    IterativeIntervalRegressor,
    _regression,
)
from skprivate.interval._boosting_start import boosted_fit, varying_features
from skprivate.interval._newton import (
    CensoredNormal,
    ResponseFrame,
    newton_interval_mle,
)
from skprivate.interval._truncated import interval_log_likelihood


def _quiet(fn, *args, **kwargs):
    # (the mechanisms' coverage warnings on these small designs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


def _answers(kind, n=300, seed=0):
    """Features, interval answers on a grid of 2**-20, and a random stream.

    On that grid ``Z + c`` is exact for ``|c| <= 2**32``: a shifted fit
    sees exactly the shifted data.
    """
    rng = np.random.default_rng(seed)
    X = rng.uniform(0.0, 1.0, (n, 2))
    y = X @ np.array([1.0, 2.0]) + 0.3 * rng.normal(size=n)
    mech = IntervalCaseI if kind == "case-I" else IntervalCaseII
    privatizer = mech(anchor_loc=1.5, anchor_scale=1.0, random_state=seed)
    Z = _quiet(privatizer.fit_transform, y[:, None])
    if kind == "mixed":
        # exact values, two-sided cells and half-lines open either way
        k = rng.integers(0, 4, n)
        finite = np.isfinite(Z).all(axis=1)
        Z[k == 0] = y[k == 0, None]
        Z[(k == 1) & finite, 0] = -np.inf
        Z[(k == 2) & finite, 1] = np.inf
    return X, np.round(Z * 2**20) / 2**20, rng


KINDS = ["case-II", "case-I", "mixed"]


def _fit(X, Z, w=None, fit_intercept=True, **params):
    reg = IterativeIntervalRegressor(
        LinearRegression(fit_intercept=fit_intercept), init="constant", **params
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no warning at any offset or scale
        return reg.fit(X, Z, sample_weight=w)


def _at_the_maximum(reg, X, Z, w=None, shift=0.0, h=1e-3):
    """Whether no move of the fit by ``h`` sigma raises the log-likelihood.

    ``reg`` was fitted to ``Z + shift``; the likelihood is computed on
    ``Z`` and the fitted values less ``shift``, whose residuals keep their
    digits.
    """
    w = np.ones(len(Z)) if w is None else w
    lower, upper = Z[:, 0], Z[:, 1]
    f, sigma = reg.predict(X) - shift, reg.sigma_
    design = np.column_stack([np.ones(len(Z)), X])

    def ll(f, s):
        return interval_log_likelihood(lower, upper, f, "gaussian", s, w)

    best = ll(f, sigma)
    moves = [ll(f, sigma * (1 + h)), ll(f, sigma * (1 - h))]
    for column in design.T:
        step = h * sigma * column / np.sqrt(np.mean(column**2))
        moves += [ll(f + step, sigma), ll(f - step, sigma)]
    # (at the maximum each move lowers it by about n h**2 / 2)
    return max(moves) <= best + 1e-9 * abs(best)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("options", ["plain", "weighted", "known-sigma"])
def test_a_shifted_response_gives_the_shifted_fit(kind, options):
    # Before: at c = 1e6 the Newton step dropped the direction of sigma
    # (sigma 0.756 instead of 0.345, log-likelihood -69.5 instead of -53.5)
    # and reported convergence.
    X, Z, rng = _answers(kind)
    w = rng.uniform(0.2, 2.0, len(Z)) if options == "weighted" else None
    params = {"sigma": 0.4} if options == "known-sigma" else {}
    ref = _fit(X, Z, w, **params)
    assert ref.solver_ == "newton" and ref.converged_
    for c in (1e3, 3e5, 1e6, 1e9, -1e9):
        reg = _fit(X, Z + c, w, **params)
        assert reg.solver_ == "newton" and reg.converged_
        # The data are exact; the final least-squares fit and its
        # predictions are rounded to the spacing of doubles near c.
        ulp = np.spacing(abs(c))
        np.testing.assert_allclose(
            reg.estimator_.coef_, ref.estimator_.coef_, rtol=1e-9, atol=2 * ulp
        )
        assert reg.estimator_.intercept_ - c == pytest.approx(
            ref.estimator_.intercept_, abs=1e-9 + 8 * ulp
        )
        assert reg.sigma_ == pytest.approx(ref.sigma_, rel=1e-10)
        assert reg.log_likelihood_ == pytest.approx(ref.log_likelihood_, rel=1e-10)
        np.testing.assert_allclose(
            reg.predict(X) - c, ref.predict(X), rtol=0, atol=1e-9 + 8 * ulp
        )
        if options != "known-sigma":
            assert _at_the_maximum(reg, X, Z, w, shift=c)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize(
    "options", ["plain", "weighted", "known-sigma", "no-intercept"]
)
def test_a_scaled_response_gives_the_scaled_fit(kind, options):
    X, Z, rng = _answers(kind)
    w = rng.uniform(0.2, 2.0, len(Z)) if options == "weighted" else None
    intercept = options != "no-intercept"
    exact = (Z[:, 0] == Z[:, 1]) * (1.0 if w is None else w)
    ref = _fit(
        X, Z, w, intercept, **({"sigma": 0.4} if options == "known-sigma" else {})
    )
    for a in (1e6, 1e-6, 3.7):
        params = {"sigma": 0.4 * a} if options == "known-sigma" else {}
        reg = _fit(X, Z * a, w, intercept, **params)
        assert reg.solver_ == "newton" and reg.converged_
        np.testing.assert_allclose(
            reg.estimator_.coef_ / a, ref.estimator_.coef_, rtol=1e-9
        )
        assert reg.estimator_.intercept_ / a == pytest.approx(
            ref.estimator_.intercept_, rel=1e-9, abs=1e-12
        )
        assert reg.sigma_ / a == pytest.approx(ref.sigma_, rel=1e-10)
        # each exact row's log density moves by -log(a)
        assert reg.log_likelihood_ + exact.sum() * np.log(a) == pytest.approx(
            ref.log_likelihood_, rel=1e-10
        )
        np.testing.assert_allclose(
            reg.predict(X) / a, ref.predict(X), rtol=0, atol=1e-12
        )


@pytest.mark.parametrize("kind", KINDS)
def test_no_intercept_with_a_constant_column_at_large_offsets(kind):
    # Without an intercept a shift is no change of units (only scaling is),
    # but a column of ones carries the offset: its coefficient moves by c.
    # Before: squarem after a failed Newton solve at 1e6 (sigma off by 2e-4
    # of itself), and at 1e9 a "converged" fit with coefficients of 1e20.
    X, Z, _ = _answers(kind)
    ones = np.column_stack([np.ones(len(Z)), X])
    ref = _fit(ones, Z, fit_intercept=False)
    for c in (1e6, 1e9):
        reg = _fit(ones, Z + c, fit_intercept=False)
        assert reg.solver_ == "newton" and reg.converged_
        coef = reg.estimator_.coef_ - np.array([c, 0.0, 0.0])
        np.testing.assert_allclose(coef, ref.estimator_.coef_, rtol=0, atol=1e-14 * c)
        assert reg.sigma_ == pytest.approx(ref.sigma_, rel=1e-14 * c)
        assert _at_the_maximum(reg, ones, Z, shift=c)


def test_the_frame_maps_the_mle_back_exactly():
    # The MLE found in the frame's units is the MLE in the data's units.
    X, Z, rng = _answers("mixed")
    w = rng.uniform(0.2, 2.0, len(Z))
    for fit_intercept in (True, False):
        frame = ResponseFrame(X, Z[:, 0] + 50.0, Z[:, 1] + 50.0, w, fit_intercept)
        lower, upper = frame.bounds(Z[:, 0] + 50.0, Z[:, 1] + 50.0)
        model = CensoredNormal(X, lower, upper, w, fit_intercept)
        sol = newton_interval_mle(
            model, 0.0, 1.0, start=frame.constant_start(model, 0.0, 1.0)
        )
        exact = w[Z[:, 0] == Z[:, 1]].sum()
        back = frame.restore(sol, exact)
        raw = CensoredNormal(X, Z[:, 0] + 50.0, Z[:, 1] + 50.0, w, fit_intercept)
        direct = newton_interval_mle(raw, 50.0, 1.0)
        np.testing.assert_allclose(back.coef, direct.coef, rtol=1e-9)
        assert back.intercept == pytest.approx(direct.intercept, rel=1e-9)
        assert back.sigma == pytest.approx(direct.sigma, rel=1e-9)
        np.testing.assert_allclose(back.fitted, direct.fitted, rtol=1e-10)
        np.testing.assert_allclose(back.imputed, direct.imputed, rtol=1e-10)


def test_newton_never_returns_a_point_that_is_not_the_maximum():
    # In raw units at an offset of 1e6 the intercept and the bounds columns
    # are nearly collinear: the direction of sigma falls below the rank cut
    # of the step, whose size then says nothing.  Before: a solution with
    # sigma 0.756 (the start) where the maximum is at 0.345.
    X, Z, _ = _answers("case-II", n=200)
    c = 1e6
    raw = CensoredNormal(X, Z[:, 0] + c, Z[:, 1] + c, np.ones(len(Z)), True)
    sol = newton_interval_mle(raw, 1.65 + c, 0.756)
    ref = _fit(X, Z)
    assert sol is None or sol.sigma == pytest.approx(ref.sigma_, rel=1e-6)


def test_newton_stops_only_when_sigma_has_settled():
    # Responses symmetric about 0 and an intercept-only model: the MLE's
    # fitted values are 0 whatever sigma, so a step that changes sigma
    # changes no fitted value.  Before: one step from sigma = 10 stopped at
    # 5.05, and from 0.3 at 1.195 (the MLE is 0.986).
    rng = np.random.default_rng(0)
    y = rng.normal(size=400)
    cut = np.floor(2.0 * y) / 2.0
    Z = np.column_stack([cut, cut + 0.5])
    Z = np.vstack([Z, -Z[:, ::-1]])
    model = CensoredNormal(
        np.ones((len(Z), 1)), Z[:, 0], Z[:, 1], np.ones(len(Z)), True
    )
    sigmas = [newton_interval_mle(model, 0.0, s).sigma for s in (0.3, 1.0, 3.0, 10.0)]
    np.testing.assert_allclose(sigmas, sigmas[1], rtol=1e-10)

    # the MLE: the likelihood falls either side of it
    def ll(s):
        return interval_log_likelihood(Z[:, 0], Z[:, 1], 0.0, "gaussian", s)

    assert ll(sigmas[1]) > max(ll(sigmas[1] * 1.001), ll(sigmas[1] / 1.001))


class _RawUnits(ResponseFrame):
    # The data's own units (no centring, no scaling): the problem as it was.
    def __init__(self, X, lower, upper, weights, fit_intercept):
        super().__init__(X, lower, upper, weights, fit_intercept)
        self.shift, self.scale = 0.0, 1.0
        self.slopes = np.zeros_like(self.slopes)
        self.center = np.zeros_like(self.center)
        self.pilot = np.zeros_like(self.pilot)


def test_converged_is_reported_only_at_the_maximum(monkeypatch):
    # Newton's method on the ill-conditioned raw units: whatever path the
    # fit then takes, converged_ must mean that it is at the maximum.
    # Before: converged_ True with sigma 0.756 against 0.345.
    monkeypatch.setattr(_regression, "ResponseFrame", _RawUnits)
    X, Z, _ = _answers("case-II", n=200)
    c = 1e6
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        reg = IterativeIntervalRegressor(
            LinearRegression(), init="constant", tol=1e-9, max_iter=20_000
        ).fit(X, Z + c)
    if reg.converged_:
        assert _at_the_maximum(reg, X, Z, shift=c)
    # (the raw problem leaves Newton's solver, whose check refuses the point)
    assert reg.solver_ != "newton"


def test_the_convergence_check_accepts_rank_deficient_designs():
    # Flat directions of a collinear design carry no slope: still Newton.
    X, Z, _ = _answers("mixed")
    for design in (
        np.column_stack([X, X[:, 0]]),
        np.column_stack([X, X[:, 0] + 2.0 * X[:, 1]]),
    ):
        reg = _fit(design, Z)
        assert reg.solver_ == "newton" and reg.converged_
        ref = _fit(X, Z)
        np.testing.assert_allclose(reg.predict(design), ref.predict(X), atol=1e-9)
        assert reg.sigma_ == pytest.approx(ref.sigma_, rel=1e-10)


def _weighted_design(shape, n=400, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(0.0, 1.0, (n, 2))
    if shape == "linear":
        y = X @ np.array([1.0, 2.0]) + 0.3 * rng.normal(size=n)
    else:  # init="auto" then fits the boosted models and projects
        y = 2 * np.sin(8 * X[:, 0]) + 3 * X[:, 1] ** 2 + 0.2 * rng.normal(size=n)
    privatizer = IntervalCaseII(anchor_loc=1.0, anchor_scale=1.0, random_state=seed)
    return X, _quiet(privatizer.fit_transform, y[:, None]), rng.uniform(0.2, 2.0, n)


@pytest.mark.parametrize(
    "init, shape", [("auto", "linear"), ("auto", "nonlinear"), ("constant", "linear")]
)
def test_weights_scaled_by_a_constant_change_nothing(init, shape):
    # Before: 1e160 raised OverflowError (the squared sum of the weights in
    # init="auto"'s check), 1e50 leaked LightGBM's float32 overflow
    # warnings, 1e-100 made the specification test's p-value 1.
    X, Z, v = _weighted_design(shape)

    def fit(w):
        reg = IterativeIntervalRegressor(LinearRegression(), init=init, random_state=0)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            return reg.fit(X, Z, sample_weight=w)

    plain, weighted = fit(None), fit(v)
    for scale in (1e-100, 1e50, 1e100, 1e160):
        for ref, w in ((plain, np.ones(len(Z))), (weighted, v)):
            reg = fit(w * scale)
            assert reg.solver_ == ref.solver_ and reg.projection_ == ref.projection_
            np.testing.assert_allclose(
                reg.predict(X), ref.predict(X), rtol=1e-8, atol=1e-10
            )
            assert reg.sigma_ == pytest.approx(ref.sigma_, rel=1e-8)
            # (weighted by sample_weight as given)
            assert reg.log_likelihood_ == pytest.approx(
                scale * ref.log_likelihood_, rel=1e-8
            )
            if ref.start_scores_ is None:
                assert reg.start_scores_ is None
            else:
                assert reg.start_scores_ == pytest.approx(ref.start_scores_, rel=1e-8)


def test_varying_features():
    assert not varying_features(np.ones((5, 2)))
    assert varying_features(np.r_[np.ones(4), 2.0][:, None])
    assert not varying_features(np.full((4, 1), np.nan))
    assert varying_features(np.array([[np.nan], [1.0]]))
    assert not varying_features(np.ones((1, 3)))
    assert not varying_features(sparse.csr_matrix(np.zeros((6, 2))))
    assert varying_features(sparse.csr_matrix(np.r_[np.zeros(5), 1.0][:, None]))
    assert not varying_features(np.array([["a", "b"]] * 3, dtype=object))
    assert varying_features(np.array([["a"], ["b"]], dtype=object))
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"a": ["x"] * 4, "b": [1.0] * 4})
    assert not varying_features(frame)
    assert varying_features(frame.assign(b=[1.0, 2.0, 1.0, 1.0]))
    assert not varying_features(frame.astype("category"))


def _constant_design(n=200, seed=0):
    rng = np.random.default_rng(seed)
    y = 1.5 + 0.3 * rng.normal(size=(n, 1))
    privatizer = IntervalCaseII(anchor_loc=1.5, anchor_scale=1.0, random_state=seed)
    return np.ones((n, 1)), _quiet(privatizer.fit_transform, y)


def test_constant_features_skip_the_boosted_start():
    # An intercept-only model is legitimate; before, init="auto" and
    # init="boosting" raised LightGBM's "Check failed: num_features() > 0".
    lightgbm = pytest.importorskip("lightgbm")
    X, Z = _constant_design()
    ref = _fit(X, Z)
    for init in ("auto", "boosting", lightgbm.LGBMRegressor(verbose=-1)):
        reg = IterativeIntervalRegressor(LinearRegression(), init=init, random_state=0)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            reg.fit(X, Z)
        assert reg.init_ == "constant" and reg.solver_ == "newton" and reg.converged_
        assert reg.projection_ is None
        np.testing.assert_array_equal(reg.predict(X), ref.predict(X))
        assert reg.sigma_ == ref.sigma_
        assert reg.log_likelihood_ == ref.log_likelihood_
    # two constant columns and a LightGBM base: the constant start too
    X2 = np.column_stack([X, np.full(len(X), 3.0)])
    for init in ("auto", "boosting"):
        base = lightgbm.LGBMRegressor(n_estimators=10, verbose=-1, n_jobs=1)
        reg = IterativeIntervalRegressor(base, init=init, random_state=0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # (LightGBM's own)
            reg.fit(X2, Z)
        assert reg.init_ == "constant"
        np.testing.assert_allclose(reg.predict(X2), ref.predict(X), atol=1e-6)
    # a wrong init is still refused
    with pytest.raises(ValueError, match="init must be"):
        IterativeIntervalRegressor(init=LinearRegression()).fit(X, Z)


def test_features_no_tree_can_split_leave_the_start_unchanged():
    # A binary feature set on 5 of 200 rows varies, but LightGBM's
    # min_data_in_leaf (20) leaves it nothing to split: before, the same
    # LightGBMError from the boosted start (and from init="auto"'s check).
    lightgbm = pytest.importorskip("lightgbm")
    X, Z = _constant_design()
    X = np.r_[np.zeros(len(Z) - 5), np.ones(5)][:, None]
    f0 = np.full(len(Z), 1.5)
    fit = boosted_fit(
        lightgbm.LGBMRegressor(verbose=-1),
        X,
        f0,
        0.3,
        impute=lambda f, s: np.where(np.isfinite(Z[:, 0]), Z[:, 0], Z[:, 1]),
        update_sigma=None,
        information=0.5,
        fit_params={},
    )
    assert fit.estimator is None and fit.sigma == 0.3
    np.testing.assert_array_equal(fit.fitted, f0)
    for init in ("auto", "boosting"):
        reg = IterativeIntervalRegressor(LinearRegression(), init=init, random_state=0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            reg.fit(X, Z)
        assert reg.converged_
        assert np.all(np.isfinite(reg.predict(X)))
