"""Grid EMS intervals of the true value: the width choice and the smoothed warning.

The ``"rbc"`` interval of a fit whose width was chosen by held-out
likelihood is the union of its intervals over the widths the data cannot
tell apart; the ``"smoothed"`` interval warns that it covers the
EMS-smoothed target, not the true value.
"""

import warnings
from dataclasses import replace

import numpy as np
import pytest
from scipy import stats

from skprivate._grid_density._ems import select_ems_width
from skprivate._grid_density._intervals import GridEMSIntervalsMixin, cell_cdf_weights
from skprivate._grid_density._width_choice import (
    WidthChoice,
    extend_width_path,
    width_band,
    width_choice,
)
from skprivate.exceptions import CoverageWarning
from skprivate.ldp import SquareWaveEMSEstimator, SquareWaveLDP
from skprivate.negative_survey import RVNSDensityEstimator, RVNSPerturber

Z95 = stats.norm.ppf(0.975)


def _coverage_warnings(call):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        frame = call()
    return frame, [w for w in caught if w.category is CoverageWarning]


# ------------------------------------------------------------------ the band
def test_width_band_is_the_union_of_the_tied_widths_intervals():
    W = np.array([[1.0, 0.0, 0.0], [1.0, 1.0, 0.0]])  # two CDF points
    se = np.array([0.1, 0.2])
    d1 = np.array([0.3, -0.1, -0.2])
    d2 = np.array([-0.1, 0.0, 0.1])
    c1 = np.diag([0.0004, 0.0, 0.0])  # se 0.02 at both points
    c2 = np.diag([0.0025, 0.0, 0.0])  # se 0.05 at both points
    low, high = width_band(W, se, [(d1, c1), (d2, c2)], 0.95)
    # point 0: the chosen 0 -/+ 0.1 z, then 0.3 -/+ 0.02 z, -0.1 -/+ 0.05 z;
    # point 1: the chosen 0 -/+ 0.2 z, then 0.2 -/+ 0.02 z, -0.1 -/+ 0.05 z
    np.testing.assert_allclose(low, [-0.1 - 0.05 * Z95, -0.2 * Z95], atol=1e-15)
    np.testing.assert_allclose(high, [0.3 + 0.02 * Z95, 0.2 * Z95], atol=1e-15)


def test_width_band_of_the_chosen_width_alone_is_the_normal_interval():
    low, high = width_band(np.eye(2), np.array([0.1, 0.3]), [], 0.9)
    z = stats.norm.ppf(0.95)
    np.testing.assert_allclose(low, [-0.1 * z, -0.3 * z], atol=1e-15)
    np.testing.assert_allclose(high, [0.1 * z, 0.3 * z], atol=1e-15)


# --------------------------------------------------------- the scored widths
def _rvns_folds(seed=0, n=300, d=2.0, m=16):
    # values spread evenly over [0, 10]: the widest widths predict best, so
    # a patience of one leaves the narrow widths unscored
    from skprivate.negative_survey._reconstruction import rvns_grid

    edges, report_edges = rvns_grid((0, 10), m), rvns_grid((-d, 10 + d), m)
    A = RVNSDensityEstimator._cell_matrix(d, edges, report_edges, "boundary_safe")
    rng = np.random.default_rng(seed)
    x = rng.uniform(0, 10, size=(n, 1))
    Y = RVNSPerturber(d=d, bounds=(0, 10), random_state=seed).fit_transform(x)
    cell = np.clip(((Y[:, 0] + d) / (10 + 2 * d) * m).astype(int), 0, m - 1)
    folds = np.zeros((5, m))
    np.add.at(folds, (np.arange(cell.size) % 5, cell), 1.0)
    return A, folds


def _choice(A, folds, widths, patience):
    diagnostics = {}
    width, _ = select_ems_width(
        A,
        folds,
        widths,
        max_iter=3000,
        tol=1e-9,
        patience=patience,
        diagnostics=diagnostics,
    )
    return width_choice(widths, width, diagnostics), diagnostics


def test_diagnostics_carry_the_tolerance_of_the_held_out_fits():
    A, folds = _rvns_folds()
    choice, diagnostics = _choice(A, folds, np.array([1.0, 2.0]), None)
    assert diagnostics["tol"] == 1e-9
    assert diagnostics["max_iter"] == 3000
    assert choice.tol == 1e-9 and choice.max_iter == 3000
    np.testing.assert_array_equal(choice.counts, folds)


def test_extension_scores_the_widths_patience_left_out_as_the_full_path_does():
    A, folds = _rvns_folds()
    widths = np.array([0.25, 0.5, 1.0, 2.0, 4.0, 8.0])
    full, _ = _choice(A, folds, widths, None)
    cut, _ = _choice(A, folds, widths, 1)
    assert cut.chosen == full.chosen
    left_out = ~np.isfinite(cut.gain)
    assert left_out.tolist() == [True, True, True, True, False, False]
    # with every scored width tied (a huge standard error), the path runs on
    # to the narrowest width, scoring each as the full path scores it
    loose = replace(cut, gain_se=np.where(np.isfinite(cut.gain), 1e6, np.nan))
    done = extend_width_path(loose, A)
    assert np.isfinite(done.gain).all()
    np.testing.assert_allclose(done.gain, full.gain, atol=1e-6)
    np.testing.assert_allclose(done.fits[left_out], full.fits[left_out], atol=1e-5)


def test_extension_stops_at_a_width_the_test_separates():
    A, folds = _rvns_folds()
    widths = np.array([0.25, 0.5, 1.0, 2.0, 4.0, 8.0])
    cut, _ = _choice(A, folds, widths, 1)
    scored = np.flatnonzero(np.isfinite(cut.gain))
    narrowest = scored[np.argmin(widths[scored])]
    # the narrowest scored width clearly worse: nothing more is scored
    strict = replace(cut, gain=np.where(np.isfinite(cut.gain), 1.0, np.nan))
    strict.gain[cut.chosen] = 0.0
    strict = replace(strict, gain_se=np.where(np.isfinite(cut.gain), 0.01, np.nan))
    assert not strict.tied[narrowest]
    assert extend_width_path(strict, A) is strict
    # no held-out log-probabilities (a hand-made choice): unchanged
    bare = WidthChoice(cut.widths, cut.chosen, cut.gain, cut.gain_se, cut.fits)
    assert extend_width_path(bare, A) is bare


# ------------------------------------------------------- fitted estimators
def _rvns(seed=2, d=4.0, n=300):
    x = stats.beta(2, 5, scale=10.0).rvs(size=(n, 1), random_state=seed)
    r = RVNSPerturber(d=d, k=1, bounds=(0, 10), random_state=seed).fit_transform(x)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = RVNSDensityEstimator(d=d, bounds=(0, 10), n_points=30).fit(r)
    return est, r


def _not_widest(choice):
    """``choice`` with the widest width separated from the chosen one (and
    no held-out log-probabilities, so that no width is scored again)."""
    widest = int(np.argmax(choice.widths))
    gain, se = choice.gain.copy(), choice.gain_se.copy()
    gain[widest], se[widest] = 1.0, 0.01
    # a chosen width with a narrower one next to it (the band reads the
    # chosen width from the choice)
    chosen = max(choice.chosen, 4)
    return replace(choice, chosen=chosen, gain=gain, gain_se=se, log_probs=None)


def _neighbour(choice):
    """The narrowest width the fit scored, narrower than the chosen one
    (joined when tied, as the widest is not tied: see ``_not_widest``)."""
    scored = np.flatnonzero(choice.fits.sum(axis=1) > 0)
    narrowest = int(scored[np.argmin(choice.widths[scored])])
    assert choice.widths[narrowest] < choice.widths[choice.chosen]
    return narrowest


def test_rbc_cdf_interval_is_the_band_over_the_tied_widths():
    est, r = _rvns()
    choice = _not_widest(est._width_choice)
    # only the chosen width tied: the plain corrected interval
    alone = replace(
        choice,
        gain=np.where(np.arange(choice.widths.size) == choice.chosen, 0.0, 1.0),
        gain_se=np.full(choice.widths.size, 0.01),
    )
    est._width_choice = alone
    plain, caught = _coverage_warnings(lambda: est.conf_int("cdf", [2.0], X=r))
    assert caught == []
    assert "held at the fit's choice" in plain["target"].iloc[0]
    e, se = plain["estimate"].iloc[0], plain["se"].iloc[0]
    assert plain["lower"].iloc[0] == pytest.approx(max(e - Z95 * se, 0.0), abs=1e-12)
    # two widths tied: the band of width_band, from the tied widths' cells
    tied = alone.gain.copy()
    tied[_neighbour(choice)] = 0.0
    est._width_choice = replace(alone, gain=tied)
    ci, caught = _coverage_warnings(lambda: est.conf_int("cdf", [2.0], X=r))
    assert caught == []
    assert ci["estimate"].iloc[0] == pytest.approx(e, abs=1e-15)
    assert ci["se"].iloc[0] == pytest.approx(se, abs=1e-15)
    assert "the union over the smoothing widths" in ci["target"].iloc[0]
    request_cells = est._ci_tied_cells(_Request(est, r))
    assert len(request_cells) == 1
    W = cell_cdf_weights(est.edges_, np.array([2.0]))
    low, high = width_band(W, np.array([se]), request_cells, 0.95)
    assert ci["lower"].iloc[0] == pytest.approx(max(e + low[0], 0.0), abs=1e-12)
    assert ci["upper"].iloc[0] == pytest.approx(min(e + high[0], 1.0), abs=1e-12)
    assert ci["upper"].iloc[0] - ci["lower"].iloc[0] != pytest.approx(
        plain["upper"].iloc[0] - plain["lower"].iloc[0], abs=1e-6
    )


class _Request:
    """The parts of an interval request ``_ci_tied_cells`` reads."""

    def __init__(self, est, X):
        self.cache = {}
        self._X = X
        self.level = 0.95
        self.cache["ems"] = GridEMSIntervalsMixin._ci_linearized(est, self)

    def data(self, name):
        return self._X


def test_rbc_quantile_and_mean_intervals_widen_with_the_tied_widths():
    est, r = _rvns()
    choice = _not_widest(est._width_choice)
    k = choice.widths.size
    only = np.where(np.arange(k) == choice.chosen, 0.0, 1.0)
    est._width_choice = replace(choice, gain=only, gain_se=np.full(k, 0.01))
    q_plain = est.conf_int("quantile", [0.5], X=r)
    m_plain = est.conf_int("mean", X=r, method="rbc")
    tied = only.copy()
    tied[_neighbour(choice)] = 0.0
    est._width_choice = replace(choice, gain=tied, gain_se=np.full(k, 0.01))
    q = est.conf_int("quantile", [0.5], X=r)
    m = est.conf_int("mean", X=r, method="rbc")
    assert q["estimate"].iloc[0] == q_plain["estimate"].iloc[0]
    assert (q["lower"].iloc[0], q["upper"].iloc[0]) != (
        q_plain["lower"].iloc[0],
        q_plain["upper"].iloc[0],
    )
    assert "the union over the smoothing widths" in q["target"].iloc[0]
    assert m["upper"].iloc[0] - m["lower"].iloc[0] != pytest.approx(
        m_plain["upper"].iloc[0] - m_plain["lower"].iloc[0], abs=1e-9
    )


def test_widest_width_tied_warns_for_rbc_and_names_the_reason():
    est, r = _rvns()
    choice = replace(est._width_choice, log_probs=None)
    k = choice.widths.size
    widest = int(np.argmax(choice.widths))
    gain = np.where(np.arange(k) == choice.chosen, 0.0, 1.0)
    gain[widest] = 0.0  # the widest candidate tied with the chosen one
    est._width_choice = replace(choice, gain=gain, gain_se=np.full(k, 0.01))
    for kind, points in (("cdf", [2.0]), ("quantile", [0.5])):
        _, caught = _coverage_warnings(
            lambda kind=kind, points=points: est.conf_int(
                kind, points, X=r, level=(0.9, 0.95)
            )
        )
        assert len(caught) == 1  # once per call, whatever the levels
        message = str(caught[0].message)
        assert message.startswith(f"RVNSDensityEstimator: the {kind} interval")
        assert "from the widest candidate (8 cells" in message
        assert "method='bootstrap'" in message
    # the widest width separated: no warning
    gain[widest] = 1.0
    est._width_choice = replace(choice, gain=gain, gain_se=np.full(k, 0.01))
    assert _coverage_warnings(lambda: est.conf_int("cdf", [2.0], X=r))[1] == []
    # chosen at the widest: warns, saying so
    est._width_choice = replace(
        choice, chosen=widest, gain=np.where(np.arange(k) == widest, 0.0, 1.0)
    )
    _, caught = _coverage_warnings(lambda: est.conf_int("cdf", [2.0], X=r))
    assert "chose the widest candidate smoothing width (8 cells" in str(
        caught[0].message
    )


# ------------------------------------------------------ the smoothed warning
def _square_wave():
    x = np.clip(np.random.default_rng(0).normal(size=(400, 1)), -4, 4)
    reports = SquareWaveLDP(epsilon=4.0, bounds=(-4, 4), random_state=0)
    reports = reports.fit_transform(x)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = SquareWaveEMSEstimator(epsilon=4.0, bounds=(-4, 4)).fit(reports)
    return est, reports


@pytest.mark.parametrize("method", ["smoothed", "linearized"])
@pytest.mark.parametrize(
    "kind, points", [("cdf", [0.5]), ("quantile", [0.5]), ("mean", None)]
)
def test_smoothed_square_wave_interval_warns_once_naming_its_target(
    method, kind, points
):
    est, reports = _square_wave()
    _, caught = _coverage_warnings(
        lambda: est.conf_int(kind, points, X=reports, level=(0.9, 0.95), method=method)
    )
    assert len(caught) == 1
    message = str(caught[0].message)
    assert message.startswith(
        "SquareWaveEMSEstimator: method='smoothed' covers the EMS-smoothed target"
    )
    assert "not the true value" in message
    assert "Use the default method='rbc'" in message
    # the warning points at the caller's line
    assert caught[0].filename == __file__


@pytest.mark.parametrize("kind, points", [("cdf", [0.5]), ("quantile", [0.5])])
def test_rbc_square_wave_interval_does_not_warn(kind, points):
    est, reports = _square_wave()
    _, caught = _coverage_warnings(
        lambda: est.conf_int(kind, points, X=reports, level=(0.9, 0.95))
    )
    assert caught == []


def test_smoothed_rvns_interval_warns_and_rbc_does_not_where_the_width_is_settled():
    est, r = _rvns()
    est._width_choice = _not_widest(est._width_choice)
    _, caught = _coverage_warnings(
        lambda: est.conf_int("cdf", [2.0], X=r, method="smoothed")
    )
    assert len(caught) == 1
    assert str(caught[0].message).startswith(
        "RVNSDensityEstimator: method='smoothed' covers the EMS-smoothed target"
    )
    assert _coverage_warnings(lambda: est.conf_int("cdf", [2.0], X=r))[1] == []
