"""Exact pins of stated guarantees: composed deltas, RVNS margins and moments,
the Laplace grid step, the Square Wave budget per column, and the rule that
keeps the interval MLE under ``init="auto"``.

Each test fails on a one-token change of the rule it pins (a dropped term,
a comparison turned, a constant moved), so the numbers here are computed
from the stated formulas, not read back from the code.
"""

import warnings

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.ensemble import BaggingRegressor, StackingRegressor
from sklearn.linear_model import LinearRegression, Ridge
from sklearn.pipeline import make_pipeline

from skprivate import IterativeIntervalRegressor, LaplaceLDP, privacy_report
from skprivate.exceptions import NotIdentifiableWarning
from skprivate.interval import _auto_init
from skprivate.ldp import (
    FlippedHuberLDP,
    GeneralizedGaussianLDP,
    SquareWaveEMSEstimator,
    SquareWaveLDP,
)
from skprivate.negative_survey import RVNSDensityEstimator, RVNSPerturber


# -- 1. (epsilon, delta) privatizers released several times per record -------
def _xy(n=40, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(0, 10, (n, 2))
    return X, X.sum(axis=1)


def _privatized_rows(report):
    return report[~report["column"].isin(["y", "total"])]


@pytest.mark.parametrize(
    "privatizer",
    [
        FlippedHuberLDP(epsilon=1.0, delta=1e-3, bounds=(0, 10), random_state=0),
        GeneralizedGaussianLDP(epsilon=2.0, delta=1e-4, bounds=(0, 10), random_state=0),
    ],
    ids=["flipped_huber", "generalized_gaussian"],
)
def test_bagging_releases_multiply_delta_with_epsilon(privatizer):
    # Each member privatizes the most exposed record as many times as its
    # bootstrap sample holds it (c_m): its rows spend (c_m eps_j, c_m delta_j)
    # by sequential composition, and the record's total is the sum.
    X, y = _xy()
    once = clone(privatizer).fit(X).privacy_summary()
    eps_j = float(once["epsilon_per_feature"])
    delta_j = np.asarray(once["delta_per_feature"], dtype=float)
    pipe = make_pipeline(clone(privatizer), Ridge())
    bag = BaggingRegressor(pipe, n_estimators=4, random_state=0).fit(X, y)
    rows = _privatized_rows(privacy_report(bag))
    assert len(rows) == 4 * 2  # 4 members x 2 columns
    times = rows["epsilon"].to_numpy() / eps_j
    np.testing.assert_allclose(times, np.round(times), rtol=1e-12)
    assert times.max() > 1  # some member holds the record several times
    np.testing.assert_allclose(rows["delta"], times * np.tile(delta_j, 4), rtol=1e-12)
    # the record drawn most often over the members, as many times per member
    counts = np.array(
        [np.bincount(s, minlength=len(X)) for s in bag.estimators_samples_]
    )
    worst = int(np.argmax(counts.sum(axis=0)))
    np.testing.assert_array_equal(times, np.repeat(counts[:, worst], 2))


def test_stacking_scales_delta_by_the_releases_of_cross_val_predict():
    # cv=3: cross_val_predict fits a clone on the 3 - 1 = 2 training folds
    # holding a record and privatizes it once more when predicting its own
    # fold (the privatizer is on the transform path), and the member is
    # fitted once on all records: 4 releases, so epsilon and delta both grow
    # four-fold.
    X, y = _xy()
    priv = GeneralizedGaussianLDP(
        epsilon=2.0, delta=1e-4, bounds=(0, 10), random_state=0
    )
    once = clone(priv).fit(X).privacy_summary()
    stack = StackingRegressor(
        [("a", make_pipeline(priv, Ridge()))], final_estimator=LinearRegression(), cv=3
    ).fit(X, y)
    rows = _privatized_rows(privacy_report(stack))
    k = rows["epsilon"].to_numpy() / np.asarray(once["epsilon_per_feature"])
    np.testing.assert_allclose(k, 4.0)
    expected = 4.0 * np.asarray(once["delta_per_feature"], dtype=float)
    np.testing.assert_allclose(rows["delta"], expected, rtol=1e-12)


# -- 2. RVNS: boundary margin, Sheppard's correction, bootstrap placement ---------
@pytest.mark.parametrize("d, delta", [(2.0, 0.05), (3.0, 0.3), (2.0, 2.0)])
def test_paper_boundary_margin_is_delta_squared_over_two_d_minus_delta(d, delta):
    rvns = RVNSPerturber(d=d, bounds=(0, 10), placement="paper", secure=False)
    rvns.fit([[1.0]])
    assert rvns.boundary_margin(delta) == pytest.approx(
        delta**2 / (2 * d - delta), rel=1e-14
    )


@pytest.mark.parametrize(
    "d, delta, h",
    [
        # room = min(d, b - a - d) = 2: h = 2**(floor(log2 2) - 24) = 2**-23
        (2.0, 0.05, 2.0**-23),
        # room = 3 (not a power of two): h = 2**(1 - 24)
        (3.0, 0.3, 2.0**-23),
        # room = b - a - d = 10 - 7.5 = 2.5 is the smaller: h = 2**-23
        (7.5, 0.7, 2.0**-23),
        # room = 0.75: h = 2**(-1 - 24)
        (0.75, 0.1, 2.0**-25),
    ],
)
def test_grid_boundary_margin_adds_one_grid_step(d, delta, h):
    # The float-safe sampler's margin: h (m**2 / (2 D - m) + 1), with the
    # band D = rint(d / h) and the window m = floor(delta / h) in steps h.
    rvns = RVNSPerturber(d=d, bounds=(0, 10), placement="paper").fit([[1.0]])
    assert rvns.grid_step_[0] == h
    D, m = np.rint(d / h), np.floor(delta / h)
    expected = h * (m**2 / (2 * D - m) + 1.0)
    assert rvns.boundary_margin(delta) == pytest.approx(expected, rel=1e-13)
    # one whole step above the continuous margin, up to the rounding of d, delta
    continuous = delta**2 / (2 * d - delta)
    assert rvns.boundary_margin(delta) - continuous == pytest.approx(h, abs=h / 4)


def test_rvns_moment_tilt_targets_the_report_mean_square_with_sheppard():
    # With the boundary-safe placement E[Y | x] = (B2 - d x) / S and
    # E[Y**2 | x] = (B3 - d x**2 - d**3 / 6) / S (S = b - a + d).  The tilt
    # moves the estimate onto the Mahalanobis ellipse of radius 2 around the
    # reports' mean and mean square, the latter read at the cell midpoints
    # plus w**2 / 12 (Sheppard).  Report cells 3.5 wide: w**2 / 12 = 1.02,
    # about 13 standard errors of the mean square of 40,000 reports, so a
    # target without the correction would leave the estimate far off.
    a, b, d, n = 0.0, 10.0, 2.0, 40_000
    x = np.random.default_rng(3).beta(2, 3, size=(n, 1)) * 10
    Y = RVNSPerturber(d=d, k=1, bounds=(a, b), random_state=4).fit_transform(x)
    est = RVNSDensityEstimator(d=d, bounds=(a, b), n_points=4).fit(Y)
    edges = est.report_edges_
    width = edges[1] - edges[0]
    assert width == pytest.approx(3.5)
    counts, _ = np.histogram(Y.ravel(), bins=edges)
    p = counts / counts.sum()
    mids = 0.5 * (edges[:-1] + edges[1:])
    mean, third, fourth = (p @ mids**k for k in (1, 3, 4))
    square = p @ mids**2 + width**2 / 12
    cov = (
        np.array(
            [
                [square - mean**2, third - mean * square],
                [third - mean * square, fourth - square**2],
            ]
        )
        / n
    )
    # the report moments of the fitted density, uniform within each cell
    w = est.density_ * np.diff(est.edges_)
    lo, hi = est.edges_[:-1], est.edges_[1:]
    ex = w @ ((lo + hi) / 2)
    ex2 = w @ ((lo**2 + lo * hi + hi**2) / 3)
    S = b - a + d
    B2 = ((b + d) ** 2 - (a - d) ** 2) / 2
    B3 = ((b + d) ** 3 - (a - d) ** 3) / 3
    gap = np.array([(B2 - d * ex) / S - mean, (B3 - d * ex2 - d**3 / 6) / S - square])
    distance = float(np.sqrt(gap @ np.linalg.solve(cov, gap)))
    assert distance == pytest.approx(2.0, abs=1e-6)


def test_rvns_bootstrap_with_a_paper_privatizer_refits_the_paper_placement():
    # Values near the lower bound: the paper's placement and the
    # boundary-safe one invert these reports very differently (means 0.54
    # and 1.11 here), so replicates refitted with the wrong placement would
    # give another interval.
    x = np.random.default_rng(0).uniform(0.0, 1.0, (400, 1))
    priv = RVNSPerturber(d=4.0, k=1, bounds=(0, 10), placement="paper", random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NotIdentifiableWarning)
        est = RVNSDensityEstimator(n_points=20, privatizer=priv).fit(x)
        Y = est.released_  # the reports fit made; conf_int reads them itself
        kwargs = {"d": 4.0, "bounds": (0, 10), "n_points": 20}
        paper = RVNSDensityEstimator(placement="paper", **kwargs).fit(Y)
        safe = RVNSDensityEstimator(placement="boundary_safe", **kwargs).fit(Y)
        assert abs(paper.mean() - safe.mean()) > 0.3
        ci_args = {"method": "bootstrap", "n_resamples": 8, "random_state": 0}
        got = est.conf_int("mean", **ci_args)
        want = paper.conf_int("mean", X=Y, **ci_args)
    assert got["estimate"][0] == pytest.approx(paper.mean(), rel=1e-12)
    cols = ["lower", "upper", "se"]
    np.testing.assert_allclose(got[cols], want[cols], rtol=1e-12)


# -- 3. Secure LaplaceLDP: grid step of small budgets -----------------------------
@pytest.mark.parametrize(
    "bounds, epsilon, n_columns, step",
    [
        # eps per column 0.5 < 1: the range (10) is below the noise scale (20):
        # 2**(floor(log2 10) - 20) = 2**-17
        ((0.0, 10.0), 0.5, 1, 2.0**-17),
        # eps per column 0.75 (range 3 < noise scale 4): 2**(1 - 20); taking
        # the noise scale instead would give 2**(2 - 20)
        ((0.0, 3.0), 1.5, 2, 2.0**-19),
        # range 0.3, eps per column 0.2: 2**(floor(log2 0.3) - 20) = 2**-22
        ((0.0, 0.3), 0.2, 1, 2.0**-22),
        # eps per column exactly 1: both 6, 2**(2 - 20)
        ((0.0, 6.0), 2.0, 2, 2.0**-18),
        # eps per column 3: the noise scale 5 / 3 is smaller: 2**(0 - 20);
        # rounding up would give 2**-19
        ((0.0, 5.0), 6.0, 2, 2.0**-20),
        # noise scale 12 / 4 = 3 (not a power of two): 2**(1 - 20)
        ((-2.0, 10.0), 12.0, 3, 2.0**-19),
    ],
)
def test_secure_laplace_grid_step(bounds, epsilon, n_columns, step):
    X = np.full((2, n_columns), bounds[0])
    ldp = LaplaceLDP(epsilon=epsilon, bounds=bounds).fit(X)
    np.testing.assert_array_equal(ldp.grid_step_, np.full(n_columns, step))


def test_secure_laplace_grid_step_per_column_range():
    # eps per column 0.5: each column's own range decides (3 -> 2**-19,
    # 10 -> 2**-17)
    X = np.zeros((2, 2))
    ldp = LaplaceLDP(epsilon=1.0, bounds=([0.0, 0.0], [3.0, 10.0])).fit(X)
    np.testing.assert_array_equal(ldp.grid_step_, [2.0**-19, 2.0**-17])


# -- 4. Square Wave EMS with a two-column privatizer ------------------------------
def _square_wave_half_width(eps):
    e = np.exp(eps)
    return (eps * e - e + 1) / (2 * e * (e - 1 - eps))


def test_square_wave_ems_uses_the_budget_per_column_of_a_two_column_privatizer():
    X = np.random.default_rng(0).uniform(0, 10, (300, 2))
    priv = SquareWaveLDP(epsilon=2.0, bounds=(0, 10), random_state=0)
    est = SquareWaveEMSEstimator(privatizer=priv, n_points=10).fit(X)
    assert est.epsilon_ == 1.0  # epsilon / 2 per column
    w = est.privatizer_.privacy_summary()["half_width"]
    assert w == pytest.approx(_square_wave_half_width(1.0), rel=1e-12)
    # reports beyond the epsilon=2 output range [-w(2), 1 + w(2)] (unit
    # domain) but inside the epsilon=1 one are accepted
    w2 = _square_wave_half_width(2.0)
    beyond = np.full((5, 1), 10 * (1 + (w + w2) / 2))
    fitted = SquareWaveEMSEstimator(epsilon=1.0, bounds=(0, 10), n_points=10)
    fitted.fit(np.vstack([est.privatizer_.transform(X)[:, :1], beyond]))
    with pytest.raises(ValueError, match="outside the output range"):
        SquareWaveEMSEstimator(epsilon=2.0, bounds=(0, 10), n_points=10).fit(beyond)


# -- 5. init="auto" keeps the interval MLE unless the gain is significant --------
def _auto_data(n=240, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    y = X @ [1.0, -1.0] + rng.normal(size=n)
    lower = np.floor(y)
    return X, np.column_stack([lower, lower + 1.0])


def _fit_with_scores(monkeypatch, z, gain):
    scores = {
        "MLE": -1.0,
        "boosting": -1.0 + gain,
        "z boosting": z,
        "boosting from MLE": -1.5,
        "z boosting from MLE": -3.0,
    }
    monkeypatch.setattr(
        _auto_init.AutoInitMixin,
        "_select_projection",
        lambda self, *args, **kwargs: dict(scores),
    )
    # the check runs whatever the score test of the linear model says (its
    # own gate is pinned in tests/interval/test_specification_screen.py)
    monkeypatch.setattr(_auto_init, "_SCREEN_LEVEL", 1.0)
    X, Z = _auto_data()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return IterativeIntervalRegressor(LinearRegression(), init="auto").fit(X, Z)


@pytest.mark.parametrize("z", [0.5, 1.99, 2.0])
def test_auto_init_keeps_the_mle_when_the_gain_is_not_significant(monkeypatch, z):
    pytest.importorskip("lightgbm")
    est = _fit_with_scores(monkeypatch, z, gain=0.05)
    assert est.projection_ is None and est.solver_ == "newton"
    mle = IterativeIntervalRegressor(LinearRegression(), init="constant")
    np.testing.assert_allclose(
        est.estimator_.coef_, mle.fit(*_auto_data()).estimator_.coef_, rtol=1e-10
    )


def test_auto_init_projects_when_the_gain_is_significant(monkeypatch):
    pytest.importorskip("lightgbm")
    est = _fit_with_scores(monkeypatch, 2.01, gain=0.05)
    assert est.projection_ == "constant" and est.solver_ == "projection"


def test_auto_init_keeps_the_mle_when_a_significant_z_has_no_gain(monkeypatch):
    pytest.importorskip("lightgbm")
    est = _fit_with_scores(monkeypatch, 5.0, gain=-0.05)
    assert est.projection_ is None and est.solver_ == "newton"
