"""
Streaming Laplace-privatized records into a density estimate
============================================================

:class:`~skprivate.DeconvolutionKernelDensity` can learn the density of the
clean data from Laplace-privatized records that arrive in chunks: with a
bandwidth and a support fixed in advance, ``partial_fit`` bins each chunk on
one grid and adds the counts, so it holds only those counts and, after every
chunk, gives the estimate that one ``fit`` on all the records so far would
give.  Here twenty chunks of 20,000 values (a two-component mixture on
``[0, 10]``) are privatized with ε = 5 (noise scale 2) as they arrive.
"""

import matplotlib.pyplot as plt
import numpy as np
from scipy import stats

from skprivate import DeconvolutionKernelDensity, LaplaceLDP

rng = np.random.default_rng(0)


def draw(n):
    """Clean values: 0.6 N(3, 0.8) + 0.4 N(6.5, 1), kept inside [0, 10]."""
    first = rng.random(n) < 0.6
    x = np.where(first, rng.normal(3, 0.8, n), rng.normal(6.5, 1.0, n))
    return np.clip(x, 0, 10)[:, None]


privatizer = LaplaceLDP(epsilon=5.0, bounds=(0, 10), random_state=0)
estimator = DeconvolutionKernelDensity(bandwidth=0.6, privatizer=privatizer)

grid = np.linspace(0, 10, 201)
truth = 0.6 * stats.norm.pdf(grid, 3, 0.8) + 0.4 * stats.norm.pdf(grid, 6.5, 1.0)
snapshots = {}
for k in range(1, 21):
    estimator.partial_fit(draw(20_000))  # only binned counts are kept
    if k in (1, 5, 20):
        snapshots[estimator.n_samples_seen_] = estimator.pdf(grid)

print("noise scale b:", estimator.noise_scale_[0])
print("stored counts:", estimator.bin_counts_.shape, "for", estimator.n_samples_seen_)

noisy = privatizer.fit_transform(draw(20_000))[:, 0]
fig, ax = plt.subplots(figsize=(6.5, 3.8))
ax.hist(
    noisy,
    bins=80,
    range=(-6, 16),
    density=True,
    color="0.85",
    label="privatized records (one chunk)",
)
ax.plot(grid, truth, "k--", label="clean density")
for n, pdf in snapshots.items():
    ax.plot(grid, pdf, label=f"estimate after {n:,} records")
ax.set_xlim(-6, 16)
ax.set_xlabel("value")
ax.set_ylabel("density")
ax.legend(fontsize=8)
fig.tight_layout()
plt.show()
