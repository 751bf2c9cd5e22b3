"""
Estimating the Adult race distribution from subset reports
==========================================================

Every respondent of the Adult census extract reports a random subset of the
five race categories that contains their own, drawn with the uniform design
(:class:`~skprivate.SubsetUniform`).  From these reports alone we estimate
the race distribution with the four estimators of
:class:`~skprivate.SubsetDistributionEstimator` and compare the scaled L2
loss ``n ||ŵ - w||²`` with the non-private sample proportions as the
sample size grows, next to the theoretical limits (Figs. 1–2 of the paper).
"""

import matplotlib.pyplot as plt
import numpy as np

from skprivate import SubsetDistributionEstimator, SubsetUniform
from skprivate.datasets import load_adult
from skprivate.subset import subset_leakage

adult = load_adult()
race = adult[["race"]]
# The census's race categories are public, declared before any answer is seen.
categories = ["Amer-Indian-Eskimo", "Asian-Pac-Islander", "Black", "Other", "White"]
mechanism = SubsetUniform(categories=[categories], random_state=1).fit(race)
w = race["race"].value_counts(normalize=True).reindex(categories).to_numpy()

# %%
# The mechanism reports subsets as 0/1 indicator columns named like a one-hot
# encoding; each row contains the respondent's true race.
reports = mechanism.set_output(transform="pandas").transform(race.head())
print(reports)

# %%
# Privacy of the uniform design for this population (Section II-B).
leak = subset_leakage(mechanism.designs_[0], w)
print({k: round(v, 3) for k, v in leak.items() if "fully" not in k})

# %%
# Scaled L2 loss against the sample size, averaged over subsamples.
rng = np.random.default_rng(0)
sizes = [250, 500, 1000, 2000, 4000]
methods = ["mom", "em", "mle", "one-step"]
reps = 40
loss = {m: [] for m in [*methods, "non-private"]}
for n in sizes:
    acc = {m: [] for m in loss}
    for _ in range(reps):
        rows = rng.choice(len(race), size=n, replace=False)
        sample = race.iloc[rows]
        A = mechanism.transform(sample)
        for m in methods:
            est = SubsetDistributionEstimator(m, design=mechanism).fit(A)
            acc[m].append(n * np.sum((est.distribution_ - w) ** 2))
        props = sample["race"].value_counts(normalize=True).reindex(categories)
        acc["non-private"].append(n * np.sum((props.fillna(0).to_numpy() - w) ** 2))
    for m in loss:
        loss[m].append(np.mean(acc[m]))

fig, ax = plt.subplots(figsize=(6.5, 4))
# EM and MLE reach the same maximum, so their curves coincide.  Grey lines:
# the limits 0.864 (MLE, dashed) and 1 - Σw² = 0.260 (non-private, dotted).
for m, values in loss.items():
    ax.plot(sizes, values, marker="o", ls="--" if m == "em" else "-", label=m)
ax.axhline(0.864, ls="--", c="gray", lw=1)
ax.axhline(1 - np.sum(w**2), ls=":", c="gray", lw=1)
ax.set_xscale("log")
ax.set_xlabel("sample size n")
ax.set_ylabel("n ||ŵ - w||²")
ax.set_title("Adult race: subset reports vs non-private sample")
ax.legend(fontsize=8)
fig.tight_layout()
plt.show()
