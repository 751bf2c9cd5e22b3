"""PerturbedKDEEstimator: the density behind noise-added releases."""

import numpy as np
import pytest
from scipy import stats

from skprivate._grid_density._ems import ML_WIDTHS
from skprivate.ldp import FlippedHuberLDP, GeneralizedGaussianLDP, PerturbedKDEEstimator


def test_perturbed_kde_estimator_with_each_noise():
    x = np.random.default_rng(0).uniform(2, 8, size=(20_000, 1))
    for priv in (
        GeneralizedGaussianLDP(epsilon=20, delta=1e-3, bounds=(0, 10), random_state=1),
        FlippedHuberLDP(epsilon=20, delta=1e-3, bounds=(0, 10), random_state=2),
    ):
        est = PerturbedKDEEstimator(privatizer=priv).fit(x)
        assert np.dot(est.density_, np.diff(est.edges_)) == pytest.approx(1.0)
        assert est.mean() == pytest.approx(5.0, abs=0.2)


def test_laplace_pair():
    from skprivate.ldp import LaplaceLDP

    x = np.random.default_rng(0).uniform(2, 8, size=(20_000, 1))
    est = PerturbedKDEEstimator(
        privatizer=LaplaceLDP(epsilon=20.0, bounds=(0, 10), random_state=1)
    ).fit(x)
    assert est.bounds_ == (0.0, 10.0)
    assert est.mean() == pytest.approx(5.0, abs=0.2)


def _w1_over_range(est, x):
    """W1 between the estimate and the clean sample, over the domain width."""
    mass = est.density_ * np.diff(est.edges_)
    cum = np.concatenate([[0.0], np.cumsum(mass)])
    u = (np.arange(2000) + 0.5) / 2000
    sample = np.interp(u, cum / cum[-1], est.edges_)
    return stats.wasserstein_distance(sample, x) / (est.edges_[-1] - est.edges_[0])


def test_perturbed_default_deconvolves_with_the_noise_law():
    """Default method: EMS through the exact Laplace law; the paper's KDE of the
    noisy releases stays as method='paper' and is far worse."""
    from skprivate.datasets import make_truncated_chi2
    from skprivate.ldp import LaplaceLDP

    x = make_truncated_chi2(20_000, 2, random_state=0)
    priv = LaplaceLDP(epsilon=2.0, bounds=(0, 10), random_state=0)
    est = PerturbedKDEEstimator(privatizer=priv).fit(x[:, None])
    assert est.method_ == "ml" and est.bandwidth_ is None
    assert est.smoothing_width_ in ML_WIDTHS
    assert np.dot(est.density_, np.diff(est.edges_)) == pytest.approx(1.0)
    # The mean of the reconstruction is unbiased for the clean mean; its
    # standard error is that of the noisy mean, sqrt(var(x) + 2 b**2) / sqrt(n).
    b = float(est.privatizer_.scale_[0])
    se = np.sqrt(x.var() + 2 * b**2) / np.sqrt(x.size)
    assert est.mean() == pytest.approx(x.mean(), abs=4 * se)
    # benchmarks/defaults.py: W1 / range 0.017 to 0.027 over 5 seeds here,
    # against about 0.21 for the paper's KDE.
    assert _w1_over_range(est, x) < 0.04
    paper = PerturbedKDEEstimator(privatizer=priv, method="paper").fit(x[:, None])
    assert paper.method_ == "paper" and paper.smoothing_width_ is None
    assert _w1_over_range(paper, x) > 0.15


def test_perturbed_auto_without_noise_law_is_the_paper_kde():
    x = np.random.default_rng(0).uniform(2, 8, size=(2000, 1))
    est = PerturbedKDEEstimator(bounds=(0, 10)).fit(x)
    assert est.method_ == "paper" and est.bandwidth_ > 0
    with pytest.raises(ValueError, match="needs the noise law"):
        PerturbedKDEEstimator(bounds=(0, 10), method="ml").fit(x)


@pytest.mark.parametrize("make", [GeneralizedGaussianLDP, FlippedHuberLDP])
def test_perturbed_ml_with_other_noise_laws(make):
    x = np.random.default_rng(0).beta(2, 5, size=(20_000, 1)) * 10
    priv = make(epsilon=3.0, delta=1e-3, bounds=(0, 10), random_state=0)
    est = PerturbedKDEEstimator(privatizer=priv).fit(x)
    law = est.privatizer_.noise_[0]
    noise_var = law.sample((200_000,), np.random.default_rng(0)).var()
    se = np.sqrt(x.var() + noise_var) / np.sqrt(x.size)
    assert est.method_ == "ml"
    assert est.mean() == pytest.approx(x.mean(), abs=4 * se)


def test_smoothing_width_grid_is_fine_enough_for_flipped_huber_reports():
    """Flipped Huber releases of chi2(2) (the design of benchmarks/defaults.py,
    seed 3): with widths in steps of 2 the held-out likelihood chose width 1,
    4.7 times worse (W1) than the best fixed width 0.5; the steps of about
    sqrt(2) keep the choice within 3 times of the best width."""
    from skprivate._grid_density._ems import (
        ML_MAX_ITER,
        ML_TOL,
        ems_cell_probabilities,
    )
    from skprivate.base import _settings_fingerprint
    from skprivate.datasets import make_truncated_chi2
    from skprivate.ldp._transitions import additive_transition

    x = make_truncated_chi2(20_000, 2, random_state=0)
    priv = FlippedHuberLDP(epsilon=2.0, delta=1e-3, bounds=(0, 10), random_state=3)
    # the release of that benchmark run: its noise came from the seed
    # sequence of seed 3 and the settings (the stream rule of that time)
    root = np.random.SeedSequence([3, _settings_fingerprint(priv)])
    released = priv.fit(x[:, None])._transform_with_seed(x[:, None], root)

    class Released(FlippedHuberLDP):
        """The same noise law; hands the releases above through unchanged."""

        def transform(self, X):
            return np.asarray(X, dtype=float)

    est = PerturbedKDEEstimator(
        privatizer=Released(epsilon=2.0, delta=1e-3, bounds=(0, 10))
    ).fit(released)
    M, out_edges = additive_transition(est.edges_, est.privatizer_.noise_[0])
    k = out_edges.size - 1
    bins = np.clip(np.searchsorted(out_edges, released[:, 0], "right") - 1, 0, k - 1)
    counts = np.bincount(bins, minlength=k).astype(float)

    def w1(mass):
        cum = np.concatenate([[0.0], np.cumsum(mass)])
        u = (np.arange(2000) + 0.5) / 2000
        return stats.wasserstein_distance(np.interp(u, cum / cum[-1], est.edges_), x)

    fixed = [
        w1(ems_cell_probabilities(M, counts, s, max_iter=ML_MAX_ITER, tol=ML_TOL)[0])
        for s in ML_WIDTHS
    ]
    default = w1(est.density_ * np.diff(est.edges_))
    # 0.7 here; 0.5, 0.7 and 1.0 score within 3e-6 nats per report of each
    # other, below the held-out scores' precision at the selection tolerance
    # (notes of ML_SELECTION_TOL), so another CPU's rounding may pick a
    # neighbour; the claim is the accuracy below
    assert est.smoothing_width_ in (0.5, 0.7, 1.0)
    assert default <= 3 * min(fixed)


def test_held_out_width_choice_refuses_a_single_respondent():
    # One respondent: every fold but one is empty and that one has no other
    # fold to be predicted from, so the held-out likelihood does not exist.
    from skprivate import LaplaceLDP, SquareWaveEMSEstimator, SquareWaveLDP

    x = np.full((1, 1), 0.3)
    cases = [
        (
            PerturbedKDEEstimator(
                privatizer=LaplaceLDP(epsilon=2.0, bounds=(0, 1), random_state=0)
            ),
            "PerturbedKDEEstimator",
        ),
        (
            SquareWaveEMSEstimator(
                smoothing="auto",
                privatizer=SquareWaveLDP(epsilon=1.0, bounds=(0, 1), random_state=0),
            ),
            "SquareWaveEMSEstimator",
        ),
    ]
    for est, name in cases:
        with pytest.raises(ValueError) as info:
            est.fit(x)
        assert str(info.value) == (
            f"X has 1 sample(s); {name} chooses its smoothing by the held-out "
            "likelihood of folds of respondents and needs at least 2 rows."
        )
        # two respondents: each fold is predicted from the other
        assert np.isfinite(est.fit(np.full((2, 1), 0.3)).mean())
