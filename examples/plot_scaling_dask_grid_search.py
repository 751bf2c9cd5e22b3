"""
Searching privacy parameters on a dask cluster
==============================================

Every cross-validation fold and grid point of a search over privacy
parameters is independent work.  scikit-learn hands it to joblib, and
joblib's ``dask`` backend sends it to a dask cluster, so the same code runs
on a laptop or on many machines.  Here a local cluster of two worker
processes on the loopback interface stands in for the real one: point
:class:`dask.distributed.Client` at your scheduler's address instead.

The learner is a :class:`~skprivate.DeconvolutionKernelRegressor` whose
``privatizer`` adds ε-LDP Laplace noise to the training inputs, so the
search asks how much accuracy each privacy level costs.
"""

import joblib
import matplotlib.pyplot as plt
import numpy as np
from dask.distributed import Client, LocalCluster
from sklearn.model_selection import GridSearchCV

from skprivate import DeconvolutionKernelRegressor, LaplaceLDP
from skprivate.model_selection import most_private_setting

rng = np.random.default_rng(0)
X = rng.uniform(0, 1, size=(600, 1))
y = np.sin(4 * X[:, 0]) + rng.normal(scale=0.2, size=600)

learner = DeconvolutionKernelRegressor(
    bandwidth=0.15, privatizer=LaplaceLDP(bounds=(0, 1), random_state=0)
)
grid = {"privatizer__epsilon": [0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0]}

with (
    LocalCluster(
        n_workers=2, threads_per_worker=1, host="127.0.0.1", dashboard_address=None
    ) as cluster,
    Client(cluster),
    joblib.parallel_backend("dask"),
):
    search = GridSearchCV(learner, grid, cv=5, n_jobs=-1).fit(X, y)

# %%
# The most private setting whose R² is within 0.05 of the best:
choice = most_private_setting(
    search, "privatizer__epsilon", more_private="lower", tolerance=0.05
)
print("best:", choice["best_params"], round(choice["best_score"], 3))
print("most private within 0.05:", choice["params"], round(choice["score"], 3))

eps = np.array(grid["privatizer__epsilon"])
mean = search.cv_results_["mean_test_score"]
se = search.cv_results_["std_test_score"] / np.sqrt(5)
fig, ax = plt.subplots(figsize=(6, 3.5))
ax.errorbar(eps, mean, yerr=se, marker="o", capsize=3)
ax.axhline(choice["best_score"] - 0.05, color="grey", ls="--", label="best − 0.05")
ax.axvline(
    choice["params"]["privatizer__epsilon"], color="C3", ls=":", label="chosen ε"
)
ax.set_xscale("log")
ax.set_xlabel("ε (smaller is more private)")
ax.set_ylabel("5-fold CV R² on clean data")
ax.legend()
fig.tight_layout()
plt.show()
