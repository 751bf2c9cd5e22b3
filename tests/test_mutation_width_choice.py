"""The held-out width choice behind the grid EMS ``"rbc"`` intervals, exactly.

Small hand-built cases of :mod:`skprivate._grid_density._width_choice`: the
diagnostics a choice keeps, the path of narrower widths scored while the
narrowest scored one is tied (order, warm starts, both stopping ends), the
cells of the tied widths the band joins (the ``"rbc"`` correction at each
width; the wider ones only when the widest is tied), the band
of widths in double precision, and the full text of the warning when the
widest candidate is tied.
"""

import copy
import warnings
from dataclasses import replace
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from skprivate._grid_density import _width_choice as wc
from skprivate._grid_density._ems import (
    ML_MAX_ITER,
    ML_TOL,
    ems_cell_probabilities,
)
from skprivate._grid_density._intervals import (
    GridEMSIntervalsMixin,
    _LinearizedFit,
    ems_covariance,
    smoothing_matrix,
)
from skprivate._grid_density._width_choice import (
    WidthChoice,
    WidthChoiceCheckMixin,
    extend_width_path,
    width_band,
    width_choice,
)
from skprivate.exceptions import CoverageWarning
from skprivate.negative_survey import RVNSDensityEstimator, RVNSPerturber

# ------------------------------------------------------------ the diagnostics


def _diagnostics(**extra):
    return {
        "log_probs": np.array([[[-1.0, -2.0]], [[-1.5, -1.0]]]),
        "fold_fits": np.array([[0.5, 0.5], [0.4, 0.6]]),
        "counts_by_fold": np.array([[3.0, 1.0]]),
        **extra,
    }


def test_choice_keeps_the_tolerance_and_iteration_cap_of_the_held_out_fits():
    choice = width_choice(
        np.array([1.0, 2.0]), 2.0, _diagnostics(tol=1e-4, max_iter=17)
    )
    assert choice.chosen == 1
    assert choice.tol == 1e-4
    assert choice.max_iter == 17
    assert isinstance(choice.max_iter, int)
    # not given: the defaults of the choice
    default = width_choice(np.array([1.0, 2.0]), 2.0, _diagnostics())
    assert (default.tol, default.max_iter) == (ML_TOL, ML_MAX_ITER)


def test_choice_reads_single_precision_scores_in_double_precision():
    single = _diagnostics()
    single["log_probs"] = np.array([[[-0.1, -0.7]], [[-0.3, -0.2]]], dtype=np.float32)
    single["fold_fits"] = np.array([[0.1, 0.9], [0.3, 0.7]], dtype=np.float32)
    single["counts_by_fold"] = np.array([[3.0, 1.0]], dtype=np.float32)
    double = {k: np.asarray(v, dtype=float) for k, v in single.items()}
    a = width_choice(np.array([1.0, 2.0]), 1.0, single)
    b = width_choice(np.array([1.0, 2.0]), 1.0, double)
    # d = lp(0) - lp(1) in double precision: 0.2 (3 reports), -0.5 (1 report)
    lp = double["log_probs"][:, 0, :]
    d = lp[0] - lp[1]
    assert a.gain[1] == (3 * d[0] + d[1]) / 4 == b.gain[1]
    assert a.gain_se[1] == np.sqrt(np.sum([3, 1] * (d - a.gain[1]) ** 2) / 4 / 4)
    assert a.gain_se[1] == b.gain_se[1]
    assert a.fits.dtype == np.float64
    np.testing.assert_array_equal(a.fits, double["fold_fits"])


# ------------------------------------------------------------ the width path
# Six cells seen through a channel that keeps a value in its cell with
# probability 0.5 and moves it to a neighbour otherwise; two folds.
A6 = 0.5 * np.eye(6) + 0.25 * (np.eye(6, k=1) + np.eye(6, k=-1))
A6[0, 0] += 0.25
A6[-1, -1] += 0.25
FOLDS = np.array(
    [[30.0, 50.0, 70.0, 40.0, 20.0, 10.0], [25.0, 55.0, 60.0, 45.0, 25.0, 5.0]]
)


def _path_choice(widths, chosen, scored_lp, fits, max_iter=2, tol=1e-12):
    """A choice of ``widths`` with the given rows of log-probabilities
    scored (a dict width index -> per-fold rows) and the others left out."""
    log_probs = np.full((len(widths), *FOLDS.shape), np.nan)
    for k, rows in scored_lp.items():
        log_probs[k] = rows
    diagnostics = {
        "log_probs": log_probs,
        "fold_fits": fits,
        "counts_by_fold": FOLDS,
        "tol": tol,
        "max_iter": max_iter,
    }
    return width_choice(np.asarray(widths), widths[chosen], diagnostics)


def _fits(n_widths):
    rng = np.random.default_rng(5)
    fits = rng.uniform(0.5, 1.5, size=(n_widths, 6))
    return fits / fits.sum(axis=1, keepdims=True)


def _fold_scores(width, start, max_iter, tol):
    """Each fold predicted by the EMS fit of the other fold at ``width``."""
    total = FOLDS.sum(axis=0)
    fits, rows = [], []
    for held in FOLDS:
        w, _ = ems_cell_probabilities(
            A6, total - held, width, max_iter=max_iter, tol=tol, start=start, warn=False
        )
        fits.append(w)
        rows.append(np.log(np.maximum(A6 @ w, 1e-12)))
    return np.mean(fits, axis=0), np.array(rows)


def test_path_scores_the_left_out_widths_from_the_widest_down_warm_started():
    widths = [0.5, 1.0, 2.0, 4.0]
    fits = _fits(4)
    # the chosen width 4 predicts every report badly: each width is tied
    chosen_lp = np.full(FOLDS.shape, -20.0)
    lp2 = np.log(A6 @ fits[2])[None].repeat(2, axis=0)
    choice = _path_choice(widths, 3, {3: chosen_lp, 2: lp2}, fits)
    assert choice.tied.tolist() == [False, False, True, True]
    with warnings.catch_warnings():
        # two iterations do not converge: the path's fits must not warn
        warnings.simplefilter("error")
        done = extend_width_path(choice, A6)
    # width 1 from the fit at width 2, then width 0.5 from the new fit at 1
    fit1, lp1 = _fold_scores(1.0, fits[2], 2, 1e-12)
    fit0, lp0 = _fold_scores(0.5, fit1, 2, 1e-12)
    np.testing.assert_allclose(done.fits[1], fit1, rtol=0, atol=1e-15)
    np.testing.assert_allclose(done.fits[0], fit0, rtol=0, atol=1e-15)
    np.testing.assert_array_equal(done.fits[2:], fits[2:])
    expected_lp = np.array([lp0, lp1, lp2, chosen_lp])
    np.testing.assert_allclose(done.log_probs, expected_lp, rtol=0, atol=1e-15)
    # the gains of the paired test on the completed path
    again = width_choice(
        np.asarray(widths),
        4.0,
        {"log_probs": expected_lp, "fold_fits": done.fits, "counts_by_fold": FOLDS},
    )
    np.testing.assert_allclose(done.gain, again.gain, rtol=0, atol=1e-14)
    np.testing.assert_allclose(done.gain_se, again.gain_se, rtol=0, atol=1e-14)
    assert done.tied.all()  # the path ran to the narrowest candidate
    assert (done.chosen, done.max_iter, done.tol) == (3, 2, 1e-12)
    # nothing is left to score: extending again changes nothing
    assert extend_width_path(done, A6) is done


def test_path_keeps_double_precision_from_single_precision_scores():
    widths = [0.5, 1.0, 2.0, 4.0]
    fits = _fits(4)
    lp = np.log(A6 @ fits[2])[None].repeat(2, axis=0)
    double = _path_choice(widths, 3, {3: np.full(FOLDS.shape, -20.0), 2: lp}, fits)
    single = replace(
        double,
        log_probs=double.log_probs.astype(np.float32),
        fits=double.fits.astype(np.float32),
        counts=double.counts.astype(np.float32),
    )
    reference = replace(
        double,
        log_probs=single.log_probs.astype(float),
        fits=single.fits.astype(float),
        counts=double.counts,
    )
    a, b = extend_width_path(single, A6), extend_width_path(reference, A6)
    assert a.log_probs.dtype == a.fits.dtype == np.float64
    np.testing.assert_array_equal(a.log_probs, b.log_probs)
    np.testing.assert_array_equal(a.fits, b.fits)
    np.testing.assert_array_equal(a.gain, b.gain)
    np.testing.assert_array_equal(a.gain_se, b.gain_se)


def test_path_stops_at_the_first_width_the_test_separates():
    widths = [0.5, 1.0, 2.0, 4.0]
    fits = _fits(4)
    # the chosen width predicts every report with probability one and width
    # 2 as well (gain 0, tied); width 1, scored, is clearly worse
    perfect = np.zeros(FOLDS.shape)
    choice = _path_choice(widths, 3, {3: perfect, 2: perfect}, fits, max_iter=500)
    assert choice.tied.tolist() == [False, False, True, True]
    done = extend_width_path(choice, A6)
    assert np.isfinite(done.gain).tolist() == [False, True, True, True]
    assert done.tied.tolist() == [False, False, True, True]
    assert np.isnan(done.log_probs[0]).all()
    np.testing.assert_array_equal(done.fits[0], fits[0])


def test_path_reads_the_narrowest_scored_width_whatever_the_order_of_widths():
    # widths from the widest down: the narrowest scored is width 2 (index 1),
    # separated from the chosen width 4, so nothing narrower is scored
    widths = [4.0, 2.0, 1.0, 0.5]
    fits = _fits(4)
    chosen_lp = np.zeros(FOLDS.shape)
    worse = np.full(FOLDS.shape, -1.0)
    choice = _path_choice(widths, 0, {0: chosen_lp, 1: worse}, fits)
    assert choice.tied.tolist() == [True, False, False, False]
    assert extend_width_path(choice, A6) is choice
    # width 2 tied: widths 1 then 0.5 are scored, each from the previous fit
    tied = _path_choice(widths, 0, {0: np.full(FOLDS.shape, -20.0), 1: worse}, fits)
    done = extend_width_path(tied, A6)
    fit1, _ = _fold_scores(1.0, fits[1], 2, 1e-12)
    fit05, _ = _fold_scores(0.5, fit1, 2, 1e-12)
    np.testing.assert_allclose(done.fits[2], fit1, rtol=0, atol=1e-15)
    np.testing.assert_allclose(done.fits[3], fit05, rtol=0, atol=1e-15)


# ------------------------------------------------------------------ the band
def test_band_is_computed_in_double_precision_from_single_precision_inputs():
    W = np.array([[0.1, 0.3, 0.7], [0.9, 0.2, 0.1]], dtype=np.float32)
    se = np.array([0.013, 0.007], dtype=np.float32)
    delta = np.array([0.11, -0.37, 0.26], dtype=np.float32)
    cov = np.diag(np.array([0.0011, 0.0023, 0.0007], dtype=np.float32))
    low, high = width_band(W, se, [(delta, cov)], 0.95)
    W64, se64 = W.astype(float), se.astype(float)
    z = stats.norm.ppf(0.975)
    shift = W64 @ delta.astype(float)
    se_k = np.sqrt(np.einsum("pi,ij,pj->p", W64, cov.astype(float), W64))
    assert low.dtype == high.dtype == np.float64
    np.testing.assert_allclose(
        low, np.minimum(-z * se64, shift - z * se_k), rtol=1e-15, atol=0
    )
    np.testing.assert_allclose(
        high, np.maximum(z * se64, shift + z * se_k), rtol=1e-15, atol=0
    )


# ------------------------------------------------------- the tied widths' cells
def _rvns(seed=2, d=4.0, n=300):
    x = stats.beta(2, 5, scale=10.0).rvs(size=(n, 1), random_state=seed)
    r = RVNSPerturber(d=d, k=1, bounds=(0, 10), random_state=seed).fit_transform(x)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = RVNSDensityEstimator(d=d, bounds=(0, 10), n_points=30).fit(r)
    return est, r


@pytest.fixture(scope="module")
def rvns():
    return _rvns()


def _request(est, X):
    request = SimpleNamespace(cache={}, level=0.95, data=lambda name: X)
    request.cache["ems"] = GridEMSIntervalsMixin._ci_linearized(est, request)
    return request


def _tied_at(choice, tied):
    k = choice.widths.size
    gain = np.where(np.isin(np.arange(k), tied), 0.0, 1.0)
    return replace(choice, gain=gain, gain_se=np.full(k, 0.01), log_probs=None)


def _corrected_at(est, X, width, fit):
    """The ``"rbc"`` cells of ``fit`` (normalized) refitted at ``width``, and
    their delta-method covariance at that width (no moment tilt)."""
    at = copy.copy(est)
    at.smoothing_width_ = width
    theta = fit / fit.sum()
    A, unit_bins, _ = at._ci_ems_system(X)
    S = smoothing_matrix(theta.size, width)
    cov = ems_covariance(A, theta, S, unit_bins)
    linear = _LinearizedFit(est.edges_, theta, cov, np.asarray(A, float), S, None)
    _, theta_bc, cov_bc = at._ci_corrected(linear)
    return theta_bc, cov_bc


def test_tied_cells_are_the_rbc_correction_at_each_tied_width(rvns):
    est, r = rvns
    base = est._width_choice
    # a choice in the middle of the widths, tied with the two next narrower
    # ones (the widest not tied: the narrower tied widths are joined); all
    # three scored by the fit's path
    c = 5
    others = [c - 2, c - 1]
    assert (base.fits[[c, *others]].sum(axis=1) > 0).all()
    # the fits given unnormalized (three times their mass): the cells are the
    # same, as each fit is read as a law
    choice = replace(_tied_at(base, [c, *others]), chosen=c, fits=3.0 * base.fits)
    est._width_choice = choice
    try:
        cells = est._ci_tied_cells(_request(est, r))
    finally:
        est._width_choice = base
    assert len(cells) == 2  # one per other tied width, in the order of widths
    chosen_bc, _ = _corrected_at(est, r, base.widths[c], base.fits[c])
    for k, (delta, cov) in zip(sorted(others), cells, strict=True):
        theta_bc, cov_bc = _corrected_at(est, r, base.widths[k], base.fits[k])
        np.testing.assert_allclose(delta, theta_bc - chosen_bc, rtol=0, atol=1e-13)
        np.testing.assert_allclose(cov, cov_bc, rtol=0, atol=1e-14)
        np.testing.assert_array_equal(cov, cov.T)
        assert np.isfinite(delta).all() and np.isfinite(cov).all()
        assert abs(delta.sum()) < 1e-12  # two laws' difference


def test_tied_cells_join_wider_widths_only_when_the_widest_is_tied(rvns):
    # chosen width 5 (index), tied with 3 (narrower) and 7 (wider): with the
    # widest (8) separated, only width 3 is joined; with the widest tied
    # too, every tied width is, in the order of widths (all scored by the
    # fit's path)
    est, r = rvns
    base = est._width_choice
    c, widest = 5, int(np.argmax(base.widths))
    assert (base.fits[[3, c, 7, widest]].sum(axis=1) > 0).all()
    cells = {}
    for name, tied in (("bounded", [3, c, 7]), ("open", [3, c, 7, widest])):
        choice = replace(_tied_at(base, tied), chosen=c)
        assert choice.tied.tolist() == [k in tied for k in range(base.widths.size)]
        est._width_choice = choice
        try:
            cells[name] = est._ci_tied_cells(_request(est, r))
        finally:
            est._width_choice = base
    chosen_bc, _ = _corrected_at(est, r, base.widths[c], base.fits[c])
    assert len(cells["bounded"]) == 1 and len(cells["open"]) == 3
    for got, k in [*zip(cells["bounded"], [3]), *zip(cells["open"], [3, 7, widest])]:
        theta_bc, cov_bc = _corrected_at(est, r, base.widths[k], base.fits[k])
        assert np.isfinite(got[0]).all() and np.isfinite(got[1]).all()
        np.testing.assert_allclose(got[0], theta_bc - chosen_bc, rtol=0, atol=1e-13)
        np.testing.assert_allclose(got[1], cov_bc, rtol=0, atol=1e-14)
    # tied only with wider widths, the widest separated: the chosen alone
    est._width_choice = replace(_tied_at(base, [c, 6, 7]), chosen=c)
    try:
        assert est._ci_tied_cells(_request(est, r)) is None
    finally:
        est._width_choice = base


def test_tied_cells_read_single_precision_reports_as_doubles(rvns):
    # -1.6 and 0.2 in single precision lie within a rounding of edges of the
    # 30 report bins over [-4, 14] (just below and just above): as doubles
    # they fall in bins 3 and 7, binned in single precision in bins 4 and 6
    est, r = rvns
    base = est._width_choice
    c = base.chosen
    est._width_choice = replace(_tied_at(base, [c + 1, c]), chosen=c + 1)
    single = r.astype(np.float32)
    single[:2, 0] = [-1.6, 0.2]
    try:
        a = est._ci_tied_cells(_request(est, single))
        b = est._ci_tied_cells(_request(est, single.astype(float)))
    finally:
        est._width_choice = base
    np.testing.assert_array_equal(a[0][0], b[0][0])
    np.testing.assert_array_equal(a[0][1], b[0][1])


def test_tied_cell_refits_do_not_warn(rvns, monkeypatch):
    # the refits at the tied widths stop at their cap silently, as the
    # interval's own refit does
    est, r = rvns
    base = est._width_choice
    c = base.chosen
    est._width_choice = replace(_tied_at(base, [c + 1, c]), chosen=c + 1)
    monkeypatch.setattr(wc, "ML_MAX_ITER", 1)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            cells = est._ci_tied_cells(_request(est, r))
    finally:
        est._width_choice = base
    assert len(cells) == 1


class _Bare(WidthChoiceCheckMixin):
    """An estimator whose fit never chose a width (no ``_width_choice``)."""


def test_no_width_choice_means_no_band_and_no_warning():
    bare = _Bare()
    request = SimpleNamespace(cache={"ems": object()}, level=0.95)
    request.memo = lambda key, compute: compute()
    assert bare._ci_tied_cells(request) is None
    assert bare._ci_width_band(request, np.eye(2), np.ones(2)) is None
    frame = pd.DataFrame({"method": ["linearized EMS, bias-corrected (delta method)"]})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        bare._ci_check_width_choice(request, frame, "cdf")


# --------------------------------------------------------------- the warning
RBC = "linearized EMS, bias-corrected (delta method)"
TAIL = (
    " cells, one-sided 5% paired test), so the data do not rule out still more "
    "smoothing; a law fitted that smooth hides the smoothing bias the "
    "correction reads off it. method='bootstrap' re-chooses the width on every "
    "resample (one refit each)."
)


def _check(choice, method=RBC, kind="cdf", rows=1, cache=None):
    est = _Bare()
    est._width_choice = choice
    request = SimpleNamespace(cache={} if cache is None else cache)
    frame = pd.DataFrame({"method": [method] * rows})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        est._ci_check_width_choice(request, frame, kind)
    return caught, request


def _hand_choice(chosen, gain):
    widths = np.array([0.5, 1.4, 8.0, 2.0])  # the widest not last
    return WidthChoice(widths, chosen, np.asarray(gain), np.full(4, 0.01), None)


def test_warning_text_when_the_widest_width_is_tied_with_the_chosen_one():
    caught, request = _check(_hand_choice(1, [1.0, 0.0, 0.0, 1.0]), kind="quantile")
    assert len(caught) == 1
    assert caught[0].category is CoverageWarning
    assert str(caught[0].message) == (
        "_Bare: the quantile interval may cover less often than its level: the "
        "held-out likelihood cannot tell the chosen smoothing width (1.4 cells) "
        "from the widest candidate (8" + TAIL
    )
    assert request.cache["width-choice-warned"] is True
    # once per call: the same request does not warn again
    again, _ = _check(_hand_choice(1, [1.0, 0.0, 0.0, 1.0]), cache=request.cache)
    assert again == []


def test_warning_text_when_the_choice_is_the_widest_width():
    caught, _ = _check(_hand_choice(2, [1.0, 1.0, 0.0, 1.0]))
    assert len(caught) == 1
    assert caught[0].category is CoverageWarning
    assert str(caught[0].message) == (
        "_Bare: the cdf interval may cover less often than its level: the "
        "held-out likelihood chose the widest candidate smoothing width (8" + TAIL
    )


@pytest.mark.parametrize(
    "chosen, gain, method, rows",
    [
        (1, [1.0, 0.0, 0.1, 1.0], RBC, 1),  # the widest separated (0.1 > z 0.01)
        (1, [1.0, 0.0, 0.0, 1.0], "linearized EMS (delta method)", 1),  # smoothed
        (1, [1.0, 0.0, 0.0, 1.0], RBC, 0),  # no rows
    ],
)
def test_no_warning_unless_a_corrected_interval_has_the_widest_width_tied(
    chosen, gain, method, rows
):
    caught, request = _check(_hand_choice(chosen, gain), method=method, rows=rows)
    assert caught == []
    assert "width-choice-warned" not in request.cache


def test_fitted_estimator_warns_for_its_cdf_and_quantile_intervals_only(rvns):
    est, r = rvns
    base = est._width_choice
    widest = int(np.argmax(base.widths))
    est._width_choice = _tied_at(base, [base.chosen, widest])
    width = f"{base.widths[base.chosen]:g}"
    try:
        for kind, points in (("cdf", [2.0]), ("quantile", [0.5]), ("mean", None)):
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                est.conf_int(kind, points, X=r, level=(0.9, 0.95))
            messages = [str(w.message) for w in caught]
            if kind == "mean":
                assert messages == []
                continue
            assert [w.category for w in caught] == [CoverageWarning]
            assert messages == [
                f"RVNSDensityEstimator: the {kind} interval may cover less often "
                "than its level: the held-out likelihood cannot tell the chosen "
                f"smoothing width ({width} cells) from the widest candidate (8" + TAIL
            ]
    finally:
        est._width_choice = base
