"""
Estimating from more reports than fit in memory
===============================================

Subset-private reports are summarized without loss by the counts of the
distinct subsets reported, so :class:`~skprivate.SubsetDistributionEstimator`
can learn from a stream of chunks with ``partial_fit`` while holding only
those counts.  Here ten chunks of 200,000 survey answers each arrive one at
a time (in practice: ``pandas.read_csv(..., chunksize=...)``); the estimate
after each chunk approaches the true category distribution.
"""

import matplotlib.pyplot as plt
import numpy as np

from skprivate import SubsetDistributionEstimator, SubsetUniform

categories = np.array(["A", "B", "C", "D", "E", "F"])
truth = np.array([0.35, 0.25, 0.15, 0.12, 0.08, 0.05])
mechanism = SubsetUniform(categories=[categories], random_state=0).fit(
    categories[:, None]
)
estimator = SubsetDistributionEstimator(method="mle", design=mechanism)

rng = np.random.default_rng(0)
errors = []
for _ in range(10):
    answers = rng.choice(categories, p=truth, size=200_000)[:, None]
    reports = mechanism.transform(answers)  # what respondents send back
    estimator.partial_fit(reports)
    errors.append(np.abs(estimator.distribution_ - truth).sum())

print("estimate:", np.round(estimator.distribution_, 4))
print("truth:   ", truth)

fig, ax = plt.subplots(figsize=(6, 3.5))
ax.plot(np.arange(1, 11) * 200_000, errors, marker="o")
ax.set_xlabel("reports processed")
ax.set_ylabel("L1 error of the estimate")
ax.set_xscale("log")
ax.set_yscale("log")
fig.tight_layout()
plt.show()
