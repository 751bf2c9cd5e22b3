"""A worker lost in the middle of a job changes neither the release nor the fit.

Each row partition is privatized with a seed that is a function of the
call's seed and of the partition (its position, and its rows for a seeded
privatizer), never of which worker computes it or how often.  When a worker
dies, the scheduler recomputes the partitions it held from their inputs:
the recomputed release is the same values, so no new noise reaches the
estimate (an average over recomputations would otherwise leak the data).

Two worker processes on a local cluster; the input partitions are slowed so
that the kill falls inside the job, once finished partitions are held by
the worker that dies.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time

import numpy as np
import pytest
from sklearn.base import clone

from skprivate import DeconvolutionKernelDensity, LaplaceLDP

da = pytest.importorskip("dask.array")
distributed = pytest.importorskip("distributed")

N_BLOCKS, ROWS = 12, 400
BOUNDS = (-4.0, 4.0)


@pytest.fixture(scope="module")
def client():
    with (
        distributed.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,
            worker_dashboard_address=None,
        ) as cluster,
        distributed.Client(cluster) as c,
    ):
        yield c


def _slow_rows(seconds):
    """Clean rows whose partitions each take ``seconds`` to produce."""
    x = np.random.default_rng(0).normal(size=(N_BLOCKS * ROWS, 1)).clip(*BOUNDS)

    def slow(block):  # defined here: shipped to the workers by value
        time.sleep(seconds)
        return block

    return da.from_array(x, chunks=(ROWS, 1)).map_blocks(slow, dtype=float)


def _finished_on(client, prefix):
    """Address of a worker holding a finished task whose key starts with
    ``prefix``, with the number of such tasks left to run (or None)."""

    def look(dask_scheduler, prefix=prefix):
        held, waiting = {}, 0
        for ts in dask_scheduler.tasks.values():
            name = ts.key[0] if isinstance(ts.key, tuple) else ts.key
            if not str(name).startswith(prefix):
                continue
            if ts.state == "memory":
                for ws in ts.who_has:
                    held[ws.address] = held.get(ws.address, 0) + 1
            elif ts.state in ("waiting", "processing", "queued", "no-worker"):
                waiting += 1
        return held, waiting

    held, waiting = client.run_on_scheduler(look)
    if held and waiting:
        return max(held, key=held.get), waiting
    return None, waiting


def _kill_in_the_middle(client, prefix, report):
    """Kill a worker that holds finished ``prefix`` tasks while others wait."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        victim, waiting = _finished_on(client, prefix)
        if victim is not None:
            report["waiting"] = waiting
            with contextlib.suppress(Exception):  # it dies before it answers
                client.run(os._exit, 1, workers=[victim])
            report["killed"] = victim
            return
        time.sleep(0.05)


def _run_with_a_kill(client, prefix, job):
    report = {}
    killer = threading.Thread(
        target=_kill_in_the_middle, args=(client, prefix, report), daemon=True
    )
    killer.start()
    result = job()
    killer.join(timeout=60)
    assert "killed" in report, "no worker was killed during the job"
    assert report["waiting"] > 0  # the job was not over when it died
    return result


def test_release_recomputed_after_a_lost_worker_is_the_same(client):
    X = _slow_rows(0.15)
    # an unseeded privatizer: a real release, fresh noise for each transform
    privatizer = LaplaceLDP(epsilon=2, bounds=BOUNDS).fit(X)
    Z = privatizer.transform(X)
    undisturbed = Z.compute()
    disturbed = _run_with_a_kill(client, "privatize-", Z.compute)
    np.testing.assert_array_equal(disturbed, undisturbed)
    # and the noise is real: another transform call releases other values
    assert not np.array_equal(privatizer.transform(X).compute(), undisturbed)


def test_privatize_and_fit_survives_a_lost_worker_unchanged(client):
    X = _slow_rows(0.15)
    kde = DeconvolutionKernelDensity(
        bandwidth=0.4, privatizer=LaplaceLDP(epsilon=4, bounds=BOUNDS, random_state=0)
    )
    undisturbed = clone(kde).fit(X)
    disturbed = _run_with_a_kill(client, "_leaf-", lambda: clone(kde).fit(X))
    assert disturbed.n_samples_seen_ == undisturbed.n_samples_seen_ == N_BLOCKS * ROWS
    np.testing.assert_array_equal(disturbed.bin_counts_, undisturbed.bin_counts_)
    grid = np.linspace(-3, 3, 25)
    np.testing.assert_array_equal(disturbed.pdf(grid), undisturbed.pdf(grid))
    # the release behind the fit: the same lazy values, recomputed once more
    Z = disturbed.privatizer_.transform(X)
    np.testing.assert_array_equal(
        _run_with_a_kill(client, "privatize-", Z.compute), Z.compute()
    )
