"""
Privatizing and estimating a Parquet table with dask
====================================================

A census-scale table does not fit in memory.  With dask, skprivate
privatizes it column by column, lazily and partition by partition on the
workers, and fits the learners whose statistics merge from per-partition
counts, so neither the client nor any worker ever holds the table.

Here a local cluster of two workers (threads of this process, so that the
script also runs as is) stands in for the real one,
and the table is small (``N_ROWS``) so that the gallery builds quickly.
The code is the one a real cluster runs: point
:class:`dask.distributed.Client` at your scheduler's address and
``read_parquet`` at your table, and set ``N_ROWS`` to billions (the
``dask_scale`` benchmark runs 10⁹ rows on two cores).
"""

import tempfile
from pathlib import Path

import dask.array as da
import dask.dataframe as dd
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from dask.distributed import Client, LocalCluster

from skprivate import (
    DeconvolutionKernelDensity,
    LaplaceLDP,
    SubsetDistributionEstimator,
    SubsetUniform,
)

N_ROWS = 1_000_000  # the table's size: any number, memory does not grow with it
ROWS_PER_PARTITION = 125_000
RACES = ["Asian", "Black", "Native", "Other", "White"]
SHARES = [0.06, 0.13, 0.02, 0.09, 0.70]

cluster = LocalCluster(
    n_workers=2, threads_per_worker=1, processes=False, dashboard_address=":0"
)
client = Client(cluster)  # on a real cluster: Client("tcp://scheduler:8786")

# %%
# The raw table
# -------------
# A survey table of ages and races, written to Parquet by the workers (in a
# real deployment it is already there).  Nothing of it is in this process.
folder = Path(tempfile.mkdtemp()) / "survey.parquet"


def make_partition(i: int) -> pd.DataFrame:
    """Partition ``i`` of a synthetic survey, drawn where it is computed."""
    rng = np.random.default_rng([0, i])
    n = ROWS_PER_PARTITION
    race = rng.choice(RACES, size=n, p=SHARES)
    return pd.DataFrame(
        {
            "age": rng.gamma(9.0, 4.5, size=n).clip(17, 90),
            "race": pd.Categorical(race, categories=RACES),
        }
    )


table = dd.from_map(make_partition, range(N_ROWS // ROWS_PER_PARTITION))
table.to_parquet(folder, write_index=False)

survey = dd.read_parquet(folder)
print(survey.npartitions, "partitions of", survey.columns.tolist())

# %%
# Privatize column by column, lazily
# ----------------------------------
# Each privatizer returns a lazy dask DataFrame named by
# ``get_feature_names_out``.  Every partition draws from its own random
# stream, derived from the call's stream and the partition's position, so
# computing a release twice gives the same noise and a second ``transform``
# gives fresh noise.  The releases could be written with ``to_parquet``.
ldp = LaplaceLDP(epsilon=2.0, bounds=(17, 90), random_state=0)
released_age = ldp.fit_transform(survey[["age"]])
subset = SubsetUniform(categories=[RACES], random_state=1)
released_race = subset.fit_transform(survey[["race"]])
print(type(released_age).__name__, released_age.columns.tolist())
print(released_race.columns.tolist(), released_race.dtypes.unique().tolist())

# %%
# Estimate from the releases
# --------------------------
# The learners compute per-partition statistics on the workers (binned
# counts on a fixed grid, counts of distinct subsets) and merge them; the
# estimate is the one an in-memory fit of the same rows gives.
kde = DeconvolutionKernelDensity(
    bandwidth=2.0, noise_scale=ldp.scale_, support=(17, 90)
).fit(released_age)
races = SubsetDistributionEstimator(method="em", design=subset).fit(released_race)
print(f"{kde.n_samples_seen_:,} ages; estimated mean age {kde.mean():.1f}")
print(pd.Series(races.distribution_, index=races.categories_).round(3))

# %%
# Compare with the truth: the clean ages' histogram is computed here only
# to draw it (a reduction on the workers, also without collecting rows).
edges = np.linspace(17, 90, 74)
counts, _ = da.histogram(survey["age"].to_dask_array(), bins=edges)
clean = counts.compute() / N_ROWS / np.diff(edges)
noisy, _ = da.histogram(released_age["age"].to_dask_array(), bins=edges)
grid = np.linspace(17, 90, 400)

fig, (left, right) = plt.subplots(1, 2, figsize=(9, 3.5))
left.stairs(clean, edges, color="grey", label="clean ages")
left.stairs(
    noisy.compute() / N_ROWS / np.diff(edges),
    edges,
    color="C1",
    label="released (ε = 2)",
)
left.plot(grid, kde.pdf(grid), color="C0", label="deconvolution estimate")
left.set_xlabel("age")
left.legend(fontsize=8)
x = np.arange(len(RACES))
right.bar(x - 0.2, SHARES, width=0.4, color="grey", label="population")
right.bar(x + 0.2, races.distribution_, width=0.4, color="C0", label="EM estimate")
right.set_xticks(x, RACES)
right.legend(fontsize=8)
fig.tight_layout()
plt.show()

client.close()
cluster.close()
