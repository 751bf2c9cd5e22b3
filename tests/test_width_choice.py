"""The held-out choice of the smoothing width behind the grid EMS intervals."""

import warnings
from dataclasses import replace

import numpy as np
import pytest
from scipy import stats

from skprivate._grid_density._ems import select_ems_width
from skprivate._grid_density._width_choice import (
    TIE_Z,
    WidthChoice,
    width_choice,
)
from skprivate.exceptions import CoverageWarning
from skprivate.negative_survey import RVNSDensityEstimator, RVNSPerturber


def test_paired_gain_and_its_standard_error_by_hand():
    # one fold, two bins with 3 and 1 reports; width 0 predicts bin 0 with
    # log-probability -1 and bin 1 with -2, width 1 with -1.5 and -1.
    diagnostics = {
        "log_probs": np.array([[[-1.0, -2.0]], [[-1.5, -1.0]]]),
        "fold_fits": np.array([[0.5, 0.5], [0.4, 0.6]]),
        "counts_by_fold": np.array([[3.0, 1.0]]),
    }
    choice = width_choice(np.array([1.0, 2.0]), 1.0, diagnostics)
    # per report d = lp(chosen) - lp(other): 0.5 (3 reports), -1 (1 report)
    mean = (3 * 0.5 - 1.0) / 4
    var = (3 * (0.5 - mean) ** 2 + (-1.0 - mean) ** 2) / 4
    assert choice.chosen == 0
    assert choice.gain[1] == pytest.approx(mean, abs=1e-15)
    assert choice.gain_se[1] == pytest.approx(np.sqrt(var / 4), abs=1e-15)
    assert choice.gain[0] == 0.0
    # gain 0.125 < 1.645 * 0.3248: the two widths are tied
    assert choice.tied.tolist() == [True, True]
    assert not choice.at_widest


def test_a_width_far_worse_than_the_chosen_one_is_not_tied():
    choice = WidthChoice(
        widths=np.array([1.0, 2.0, 4.0]),
        chosen=1,
        gain=np.array([0.2, 0.0, np.nan]),
        gain_se=np.array([0.2 / TIE_Z * 1.001, 0.0, np.nan]),
        fits=np.ones((3, 2)),
    )
    assert choice.tied.tolist() == [True, True, False]
    later = WidthChoice(
        choice.widths, 1, np.array([0.2, 0.0, 0.0]), np.array([0.1, 0.0, 1.0]), None
    )
    assert later.tied.tolist() == [False, True, True]


def _rvns_fold_counts(seed=3, n=400, d=2.0, m=20):
    from skprivate.negative_survey._reconstruction import rvns_grid

    edges, report_edges = rvns_grid((0, 10), m), rvns_grid((-d, 10 + d), m)
    A = RVNSDensityEstimator._cell_matrix(d, edges, report_edges, "boundary_safe")
    rng = np.random.default_rng(seed)
    x = np.clip(rng.normal(4.0, 1.5, size=(n, 1)), 0, 10)
    Y = RVNSPerturber(d=d, bounds=(0, 10), random_state=seed).fit_transform(x)
    cell = np.clip(((Y[:, 0] + d) / (10 + 2 * d) * m).astype(int), 0, m - 1)
    folds = np.zeros((5, m))
    np.add.at(folds, (np.arange(cell.size) % 5, cell), 1.0)
    return A, folds


@pytest.mark.parametrize("batch", [False, True])
def test_diagnostics_leave_the_choice_unchanged_and_match_the_scores(batch):
    A, folds = _rvns_fold_counts()
    widths = np.array([0.7, 1.4, 2.8, 5.6])
    kw = {"max_iter": 3000, "tol": 1e-7, "batch": batch}
    width, scores = select_ems_width(A, folds, widths, **kw)
    diagnostics = {}
    again, again_scores = select_ems_width(
        A, folds, widths, diagnostics=diagnostics, **kw
    )
    assert again == width
    np.testing.assert_array_equal(again_scores, scores)
    # the per-bin log-probabilities add up to the held-out scores
    lp = diagnostics["log_probs"]
    np.testing.assert_allclose(
        np.einsum("fj,kfj->k", folds, lp) / folds.sum(), scores, rtol=1e-12
    )
    assert diagnostics["fold_fits"].shape == (4, A.shape[1])
    np.testing.assert_allclose(diagnostics["fold_fits"].sum(axis=1), 1.0)


def _fitted(seed=2, d=4.0, n=300):
    x = stats.beta(2, 5, scale=10.0).rvs(size=(n, 1), random_state=seed)
    r = RVNSPerturber(d=d, k=1, bounds=(0, 10), random_state=seed).fit_transform(x)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = RVNSDensityEstimator(d=d, bounds=(0, 10), n_points=30).fit(r)
    return est, r


def _coverage_warnings(est, r, kind="cdf", points=(2.0,), **kwargs):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ci = est.conf_int(kind, list(points), X=r, **kwargs)
    return ci, [w for w in caught if w.category is CoverageWarning]


def test_warns_when_the_choice_is_the_widest_candidate():
    est, r = _fitted()
    choice = est._width_choice
    k = choice.widths.size
    widest = k - 1
    # only the widest width tied (it is the chosen one): the interval is the
    # plain corrected one, with the warning
    est._width_choice = WidthChoice(
        choice.widths, widest, np.ones(k), np.full(k, 0.01), choice.fits
    )
    ci, caught = _coverage_warnings(est, r, level=(0.9, 0.95))
    assert len(caught) == 1  # once per call, whatever the levels
    message = str(caught[0].message)
    assert "chose the widest candidate smoothing width (8 cells" in message
    assert "method='bootstrap'" in message
    est._width_choice = None
    again, none = _coverage_warnings(est, r, level=(0.9, 0.95))
    assert none == []
    np.testing.assert_array_equal(ci["lower"], again["lower"])


def test_fitted_rvns_warns_exactly_when_the_widest_width_is_tied():
    # seed 0 ties every width (8 cells too); seed 3 ties the four narrowest
    for seed, warns in ((0, True), (3, False)):
        est, r = _fitted(seed=seed)
        caught = _coverage_warnings(est, r)[1]
        choice = est._width_choice
        assert bool(choice.tied[np.argmax(choice.widths)]) is warns
        assert len(caught) == int(warns)


def test_the_widest_choice_is_flagged_for_the_corrected_interval_only():
    # the smoothed interval claims the smoothed target, not the true value,
    # and warns of that instead
    est, r = _fitted()
    choice = est._width_choice
    k = choice.widths.size
    gain = np.ones(k)
    gain[-1] = 0.0
    se = np.full(k, 0.01)
    est._width_choice = WidthChoice(choice.widths, k - 1, gain, se, choice.fits)
    assert est._width_choice.tied.sum() == 1
    smoothed = _coverage_warnings(est, r, method="smoothed")[1]
    assert len(smoothed) == 1
    assert "covers the EMS-smoothed target" in str(smoothed[0].message)
    rbc = _coverage_warnings(est, r, method="rbc")[1]
    assert len(rbc) == 1
    assert "widest candidate" in str(rbc[0].message)


def test_united_widths_by_hand():
    # widths 1..5, chosen 3 (index 2): tied 1 (index 0), 3 and 4 (index 3)
    widths = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
    gain = np.array([0.0, 1.0, 0.0, 0.0, 1.0])
    choice = WidthChoice(widths, 2, gain, np.full(5, 0.1), np.ones((5, 2)) / 2)
    assert choice.tied.tolist() == [True, False, True, True, False]
    # the widest (5) separated: the tied widths at most as wide as 3
    assert choice.united.tolist() == [True, False, True, False, False]
    # the widest tied: every tied width
    open_end = replace(choice, gain=np.array([0.0, 1.0, 0.0, 0.0, 0.1]))
    assert open_end.tied.tolist() == [True, False, True, True, True]
    assert open_end.united.tolist() == open_end.tied.tolist()
    # the widest chosen: every tied width (all at most as wide)
    widest = replace(choice, chosen=4, gain=np.array([0.0, 1.0, 1.0, 0.0, 0.0]))
    assert widest.united.tolist() == [True, False, False, True, True]
    # widths given in any order: "widest" and "at most as wide" by value
    order = np.array([2, 0, 4, 1, 3])
    shuffled = replace(choice, widths=widths[order], gain=gain[order], chosen=0)
    assert shuffled.widths[shuffled.chosen] == 3.0
    assert shuffled.united.tolist() == [True, True, False, False, False]
    # the narrowest chosen, the widest separated: every tied width (the
    # choice is not bracketed on the rough side)
    narrowest = replace(choice, chosen=0, gain=np.array([0.0, 0.0, 1.0, 0.0, 1.0]))
    assert narrowest.tied.tolist() == [True, True, False, True, False]
    assert narrowest.united.tolist() == narrowest.tied.tolist()
    # the same by value when the narrowest width is not listed first
    shuffled_narrowest = replace(
        narrowest,
        widths=widths[order],
        gain=narrowest.gain[order],
        chosen=1,
    )
    assert shuffled_narrowest.widths[shuffled_narrowest.chosen] == 1.0
    assert shuffled_narrowest.united.tolist() == shuffled_narrowest.tied.tolist()
    assert shuffled_narrowest.united.sum() == 3
    # the second narrowest chosen (a narrower width scored and lost): the
    # tied widths at most as wide only
    second = replace(choice, chosen=1, gain=np.array([1.0, 0.0, 0.0, 0.0, 1.0]))
    assert second.tied.tolist() == [False, True, True, True, False]
    assert second.united.tolist() == [False, True, False, False, False]
