"""Privatize + fit at scale on a 2-worker dask LocalCluster, next to numpy.

Each measurement runs in its own Python process, so that the peak resident
memory reported (``ru_maxrss``) belongs to that run alone:

* **dask**: a ``LocalCluster`` of 2 worker processes with 1 thread each;
  the client builds the data lazily (a dask array drawn on the workers, or
  a Parquet table on disk written by the benchmark), privatizes it with
  ``LaplaceLDP`` and fits ``DeconvolutionKernelDensity`` from it (binned
  counts merged across partitions).  Peak memory of the client and of
  each worker process.
* **numpy**: the same privatize + fit on an in-memory array, one process
  (sizes that fit in memory only).

Rows per second count privatization and fit (not data generation or the
Parquet writing, timed apart).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pandas as pd

from ._common import Section

TITLE = "Dask: privatize + fit at 1e7 to 1e9 rows on a 2-worker LocalCluster"
CHUNK = 5_000_000  # rows per partition (40 MB of float64)
EPSILON, BOUNDS, BANDWIDTH = 8.0, (-4.0, 4.0), 0.4

_RUN = r"""
import json, resource, sys, time, warnings
warnings.filterwarnings("ignore")
import numpy as np
from skprivate import DeconvolutionKernelDensity, LaplaceLDP

mode, n, chunk, path = sys.argv[1], int(float(sys.argv[2])), int(sys.argv[3]), \
    sys.argv[4]
eps, lo, hi, h = {eps}, {lo}, {hi}, {h}

def estimator():
    return DeconvolutionKernelDensity(
        bandwidth=h, privatizer=LaplaceLDP(epsilon=eps, bounds=(lo, hi), random_state=0)
    )

def peak_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

out = {{"mode": mode, "n": n}}
if mode == "numpy":
    rng = np.random.default_rng(0)
    x = rng.standard_normal((n, 1))
    np.clip(x, lo, hi, out=x)
    start = time.perf_counter()
    kde = estimator().fit(x)
    out["seconds"] = time.perf_counter() - start
    out["client_mb"] = peak_mb()
else:
    import dask.array as da, dask.dataframe as dd
    from distributed import Client, LocalCluster
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=None, memory_limit="6GiB") as cluster, \
            Client(cluster) as client:
        if mode == "write":
            x = da.random.default_rng(0).standard_normal(n, chunks=chunk).clip(lo, hi)
            start = time.perf_counter()
            frame = dd.from_dask_array(x, columns="x").to_frame()
            frame.to_parquet(path, write_index=False)
            out["seconds"] = time.perf_counter() - start
        else:
            # warm-up: workers import skprivate, sklearn, scipy once
            estimator().fit(da.zeros((10_000, 1), chunks=(5_000, 1)))
            if mode == "parquet":
                X = dd.read_parquet(path, columns=["x"])
            else:
                X = da.random.default_rng(0).standard_normal((n, 1), chunks=(chunk, 1))
                X = X.clip(lo, hi)
            start = time.perf_counter()
            kde = estimator().fit(X)
            out["seconds"] = time.perf_counter() - start
            out["n_fitted"] = int(kde.n_samples_seen_)
            out["pdf0"] = float(kde.pdf(0.0))
        workers = client.run(
            lambda: __import__("resource").getrusage(
                __import__("resource").RUSAGE_SELF).ru_maxrss / 1024)
        out["worker_mb"] = sorted(workers.values())
    out["client_mb"] = peak_mb()
if mode != "write":
    out.setdefault("pdf0", float(kde.pdf(0.0)))
print(json.dumps(out))
"""


def _script() -> str:
    return _RUN.format(eps=EPSILON, lo=BOUNDS[0], hi=BOUNDS[1], h=BANDWIDTH)


def _measure(mode: str, n: float, path: str = "-", timeout: float = 3600) -> dict:
    env = dict(os.environ)
    root = str(Path(__file__).resolve().parents[1])
    env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
    proc = subprocess.run(
        [sys.executable, "-c", _script(), mode, repr(float(n)), str(CHUNK), path],
        capture_output=True,
        text=True,
        env=env,
        timeout=timeout,
    )
    if proc.returncode != 0:
        return {"mode": mode, "n": int(n), "error": proc.stderr.strip()[-400:]}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _row(result: dict, source: str) -> dict:
    workers = result.get("worker_mb", [])
    seconds = result.get("seconds", float("nan"))
    return {
        "rows": f"{result['n']:.0e}",
        "engine": "numpy, 1 process"
        if result["mode"] == "numpy"
        else "dask, 2 workers",
        "source": source,
        "seconds": seconds,
        "rows/s": result["n"] / seconds if "seconds" in result else float("nan"),
        "client peak MB": result.get("client_mb", float("nan")),
        "worker peak MB": " / ".join(f"{w:.0f}" for w in workers) or "-",
        "pdf(0)": result.get("pdf0", float("nan")),
        "note": result.get("error", "")[-120:].replace("\n", " "),
    }


def run(quick: bool = False, n_jobs: int = -1) -> list[Section]:
    if quick:
        memory_sizes, numpy_sizes, parquet_size = (1e6, 4e6), (1e6, 4e6), 4e6
    else:
        memory_sizes, numpy_sizes, parquet_size = (1e7, 2e7, 1e8), (1e7, 2e7, 1e8), 1e9
    rows = []
    for n in numpy_sizes:
        rows.append(_row(_measure("numpy", n), "in-memory array"))
    for n in memory_sizes:
        rows.append(_row(_measure("array", n), "dask array drawn on the workers"))
    tmp = Path(tempfile.mkdtemp(prefix="skprivate-dask-scale-"))
    path = str(tmp / "table.parquet")
    notes = []
    try:
        written = _measure("write", parquet_size, path)
        if "error" in written:
            notes.append(f"Writing the Parquet table failed: {written['error']}")
        else:
            size = sum(f.stat().st_size for f in Path(path).rglob("*") if f.is_file())
            notes.append(
                f"Parquet table of {parquet_size:.0e} rows ({size / 1e9:.1f} GB on "
                f"disk, {CHUNK:.0e} rows per file) written by the cluster in "
                f"{written['seconds']:.0f} s (not counted below)."
            )
            result = _measure("parquet", parquet_size, path)
            rows.append(_row(result, "Parquet on disk"))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    notes.append(
        "Load average (1 min) when the runs ended: "
        f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores (a shared machine "
        "slows every figure alike)."
    )
    table = pd.DataFrame(rows)
    text = (
        f"`LaplaceLDP(epsilon={EPSILON:g}, bounds={BOUNDS})` privatizes one "
        f"standard normal column clipped to the bounds, and "
        f"`DeconvolutionKernelDensity(bandwidth={BANDWIDTH})` is fitted from the "
        "privatized values (binned counts on the fixed grid; with dask, per "
        f"partition of {CHUNK:.0e} rows, merged in a tree).  Peak memory is the "
        "resident set size of each process (`ru_maxrss`; the client's includes "
        "the Python, numpy, pandas and dask imports, about 200 MB).  `pdf(0)` "
        "is the estimate at 0 (N(0, 1): 0.399, smoothed by the bandwidth). "
        "The client's memory stays flat as rows grow: it holds the graph and "
        "the merged counts, never a row.\n\n" + "\n".join(notes)
    )
    return [Section("Rows per second and peak memory", text, [table])]
