"""
Planning a survey: how many respondents for ±2 years at ε = 1?
==============================================================

Before collecting ages privately, a statistician must choose the privacy
level ε and the number of respondents.  With :class:`~skprivate.LaplaceLDP`
each age, declared to lie in ``[0, 100]``, is released with Laplace noise of
scale ``b = 100 / ε``; the mean of the releases is unbiased for the mean age
and its 95% interval has half-width ``1.96 sqrt((σ² + 2 b²) / n)``, where
``σ`` is the spread of ages in the population (a guess: 20 years here).
:func:`~skprivate.plan_sample_size` inverts it: the ``n`` for a target
half-width.  Other mechanisms change the answer: the Square Wave mechanism
adds less noise at the same ε, and interval privacy (Case I: each
respondent only says whether they are older than a random age) needs far
fewer respondents still, at a different kind of privacy.

The last part checks the plan: 100 simulated surveys of the planned size,
each analysed with ``conf_int``: the intervals are as wide as planned and
cover the true mean about 95% of the time.
"""

import matplotlib.pyplot as plt
import numpy as np
from scipy import stats

from skprivate import (
    DeconvolutionKernelDensity,
    IntervalCaseI,
    LaplaceLDP,
    SquareWaveLDP,
    expected_half_width,
    plan_sample_size,
)

ages = stats.truncnorm(-2, 2.5, loc=40, scale=20)  # a guess of the population
n_laplace = plan_sample_size(LaplaceLDP(epsilon=1.0, bounds=(0, 100)), 2.0, sd=20.0)
n_square = plan_sample_size(
    SquareWaveLDP(epsilon=1.0, bounds=(0, 100)), 2.0, reference=ages
)
n_interval = plan_sample_size(
    IntervalCaseI(anchor_loc=40, anchor_scale=20), 2.0, reference=ages
)
print(f"Laplace, ε = 1:        {n_laplace:>7,} respondents")
print(f"Square Wave, ε = 1:    {n_square:>7,} respondents")
print(f"interval privacy (I):  {n_interval:>7,} respondents")

# %%
# Half-width against the number of respondents, for several ε
# -------------------------------------------------------------
n_grid = np.unique(np.logspace(2.5, 6, 60).astype(int))  # whole respondents
fig, ax = plt.subplots(figsize=(6, 4))
for eps in (0.5, 1.0, 2.0, 4.0):
    mech = LaplaceLDP(epsilon=eps, bounds=(0, 100))
    ax.plot(
        n_grid,
        [expected_half_width(mech, n, sd=20.0) for n in n_grid],
        label=f"Laplace, ε = {eps:g}",
    )
ax.axhline(2.0, color="k", lw=0.8, ls=":")
ax.axvline(n_laplace, color="C1", lw=0.8, ls=":")
ax.set(
    xscale="log",
    yscale="log",
    xlabel="respondents n",
    ylabel="95% half-width of the mean age (years)",
    title="±2 years at ε = 1 needs about 19,600 respondents",
)
ax.legend(fontsize=8)
fig.tight_layout()

# %%
# Check the plan by simulation
# ----------------------------
# Each simulated survey privatizes ``n_laplace`` ages and computes the
# interval of the mean with ``conf_int`` (the noisy-mean method of the
# deconvolution density).
rng = np.random.default_rng(0)
true_mean = ages.mean()
half, hits = [], 0
for seed in range(100):
    x = ages.rvs(size=(n_laplace, 1), random_state=rng)
    ldp = LaplaceLDP(epsilon=1.0, bounds=(0, 100), random_state=seed)
    z = ldp.fit_transform(x)
    # The mean's interval uses the releases alone (their mean and its
    # standard error), not the density: its bandwidth and moment correction
    # do not change it.  A bandwidth as wide as the bounds keeps the
    # density's grid coarse, so each fit takes milliseconds, and the moment
    # correction is skipped.
    kde = DeconvolutionKernelDensity(
        bandwidth=100.0,
        noise_scale=ldp.scale_,
        support=(0, 100),
        algorithm="binned",
        moment_correction=False,
    ).fit(z)
    ci = kde.conf_int("mean", X=z).iloc[0]
    half.append((ci["upper"] - ci["lower"]) / 2)
    hits += ci["lower"] <= true_mean <= ci["upper"]
print(
    f"mean half-width {np.mean(half):.2f} years (planned 2.00 with σ = 20; the "
    f"population's σ is {ages.std():.1f}); coverage {hits / 100:.2f}"
)

fig, ax = plt.subplots(figsize=(6, 3))
ax.hist(half, bins=20, color="C0", alpha=0.8)
ax.axvline(2.0, color="k", ls=":")
ax.set(xlabel="half-width of the 95% interval (years)", ylabel="surveys")
fig.tight_layout()
plt.show()
