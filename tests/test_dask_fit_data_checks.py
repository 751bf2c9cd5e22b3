"""Checks of the fitted data, and warnings of a release, on dask collections.

The interval mechanisms check their design against all the fitted rows
(coverage against the data, share released exactly); on a dask collection
the check reads every row through counts merged over the partitions, so it
keeps the in-memory attributes and warnings.  Warnings raised while a
partition is released name a row by its place in the whole collection.
No cluster: dask's synchronous and threaded schedulers.
"""

import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone

from skprivate import IntervalCaseI, IntervalCaseII, IntervalMechanism, LaplaceLDP
from skprivate.exceptions import PrivacyLeakWarning
from skprivate.interval import IntervalEnsemble

dask = pytest.importorskip("dask")
da = pytest.importorskip("dask.array")
dd = pytest.importorskip("dask.dataframe")

MECHANISMS = [
    IntervalCaseII(random_state=0),
    IntervalCaseI(random_state=0),
    IntervalMechanism(random_state=0, acceptable_range=(-5, 5)),
    IntervalEnsemble([IntervalCaseI(), IntervalCaseII()], random_state=0),
]
IDS = [type(m).__name__ for m in MECHANISMS]


@pytest.fixture(autouse=True)
def _synchronous():
    with dask.config.set(scheduler="synchronous"):
        yield


def _fit(mechanism, X):
    with warnings.catch_warnings(record=True) as records:
        warnings.simplefilter("always")
        fitted = clone(mechanism).fit(X)
    found = [
        (w.category, str(w.message))
        for w in records
        if issubclass(w.category, PrivacyLeakWarning)
    ]
    return fitted, found


def _collections(x):
    frame = pd.DataFrame(x, columns=[f"x{j}" for j in range(x.shape[1])])
    return {
        "array": da.from_array(x, chunks=(500, x.shape[1])),
        "array-empty-chunk": da.from_array(x, chunks=((700, 0, 2300), x.shape[1])),
        "frame": dd.from_pandas(frame, npartitions=4, sort=False),
    }


@pytest.mark.parametrize("mechanism", MECHANISMS, ids=IDS)
def test_the_design_check_reads_every_row_of_a_collection(mechanism, fit_figures):
    x = np.random.default_rng(0).normal(0, 10, (3000, 2))
    eager, eager_warnings = _fit(mechanism, x)
    want = list(fit_figures)
    assert len(want) == 2
    for label, X in _collections(x).items():
        fit_figures.clear()
        lazy, lazy_warnings = _fit(mechanism, X)
        assert fit_figures == want, label  # the same counts, to the last bit
        assert lazy_warnings == eager_warnings, label
    assert lazy.privacy_summary() == eager.privacy_summary()


def test_a_wide_column_warns_on_dask_as_in_memory():
    x = np.random.default_rng(0).normal(0, 10, (3000, 1))
    _, eager = _fit(IntervalCaseII(random_state=0), x)
    _, lazy = _fit(IntervalCaseII(random_state=0), da.from_array(x, chunks=500))
    assert len(eager) == 1 and "coverage against the fitted data" in eager[0][1]
    assert lazy == eager


def test_a_large_exact_share_warns_on_dask_as_in_memory(fit_figures):
    x = np.random.default_rng(1).uniform(-1, 1, (3000, 1))
    mechanism = IntervalMechanism(random_state=0, acceptable_range=(-2, 2))
    _, eager = _fit(mechanism, x)
    _, lazy = _fit(mechanism, da.from_array(x, chunks=(400, 1)))
    assert any("reports values exactly" in m for _, m in eager)
    assert lazy == eager
    assert [share for _, share in fit_figures] == [1.0, 1.0]


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_a_bad_value_is_refused_at_fit_as_in_memory(bad):
    x = np.random.default_rng(2).normal(size=(3000, 2))
    x[1234, 1] = bad
    frame = pd.DataFrame(x, columns=["a", "b"])
    for data, lazy in [
        (x, da.from_array(x, chunks=(500, 2))),
        (frame, dd.from_pandas(frame, npartitions=5, sort=False)),
    ]:
        with pytest.raises(ValueError) as eager:
            IntervalCaseII(random_state=0).fit(data)
        with pytest.raises(ValueError) as on_dask:
            IntervalCaseII(random_state=0).fit(lazy)
        assert "row 1234" in str(eager.value)
        assert str(on_dask.value) == str(eager.value)


# -- warnings of a release name the row in the whole collection --------------
def _clipped(X, scheduler="synchronous"):
    m = LaplaceLDP(epsilon=1, bounds=(0, 10), clip=True, random_state=0)
    m.fit(np.array([[0.0], [10.0]]))
    with (
        dask.config.set(scheduler=scheduler),
        warnings.catch_warnings(record=True) as records,
    ):
        warnings.simplefilter("always")
        released = m.transform(X)
        if hasattr(released, "compute"):
            released.compute()
    return [str(w.message) for w in records if "clipped" in str(w.message)]


@pytest.mark.parametrize("scheduler", ["synchronous", "threads"])
def test_a_clipped_value_is_named_by_its_row_in_the_collection(scheduler):
    x = np.random.default_rng(3).uniform(0, 10, (3000, 1))
    first, last = x.copy(), x.copy()
    first[1234, 0] = 11.0
    last[2999, 0] = -1.0
    expected = sorted([*_clipped(first), *_clipped(last)])
    assert "row 1234" in expected[0] and "row 2999" in expected[1]
    both = first.copy()
    both[2999, 0] = -1.0
    # in memory one warning names the first row; on dask every partition
    # holding a clipped value warns, naming its row in the whole collection
    lazy = {
        "array": da.from_array(both, chunks=500),
        "frame": dd.from_pandas(pd.DataFrame(both), npartitions=6, sort=False),
    }
    for label, X in lazy.items():
        assert sorted(_clipped(X, scheduler)) == expected, label
