"""PerturbedKDEEstimator and SquareWaveEMSEstimator: partial_fit and dask.

Both estimate from counts of the pooled reports on a grid fixed by the
settings (per fold of respondents, folds by row number in the whole data)
and the reports' power sums, so chunks and dask partitions merged give the
estimate of one fit on all the rows.
"""

import itertools

import numpy as np
import pandas as pd
import pytest

from skprivate.datasets import make_truncated_chi2
from skprivate.ldp import (
    LaplaceLDP,
    PerturbedKDEEstimator,
    SquareWaveEMSEstimator,
    SquareWaveLDP,
)

pytestmark = pytest.mark.filterwarnings(
    "ignore::skprivate.exceptions.PrivacyLeakWarning"
)

DOMAIN = (0, 10)
ATTRS = ("density_", "smoothing_scores_")


class _Released(LaplaceLDP):
    """The noise law of ``LaplaceLDP`` for values it has already released.

    ``PerturbedKDEEstimator``'s ``"ml"`` method reads the noise law from its
    privatizer; this one releases nothing more, so one set of releases can
    be given to ``fit``, to ``partial_fit`` in chunks and to dask.
    """

    def _transform(self, X):
        return np.array(X, dtype=np.float64)


@pytest.fixture(scope="module")
def values():
    rng = np.random.default_rng(0)
    x = make_truncated_chi2(4000, 2, random_state=0)[:, None]
    return np.hstack([x, rng.uniform(1, 9, (4000, 1))])


@pytest.fixture(scope="module")
def laplace_reports(values):
    return LaplaceLDP(epsilon=2.0, bounds=DOMAIN, random_state=1).fit_transform(values)


@pytest.fixture(scope="module")
def square_wave_reports(values):
    # 2 columns share epsilon = 2: each is released with epsilon 1
    return SquareWaveLDP(epsilon=2.0, bounds=DOMAIN, random_state=2).fit_transform(
        values
    )


def _perturbed(method):
    if method == "ml":
        return PerturbedKDEEstimator(
            privatizer=_Released(epsilon=2.0, bounds=DOMAIN), n_points=25
        )
    return PerturbedKDEEstimator(
        bounds=DOMAIN, method="paper", bandwidth=0.4, n_points=25
    )


def _square_wave(smoothing):
    return SquareWaveEMSEstimator(
        epsilon=1.0, bounds=DOMAIN, smoothing=smoothing, n_points=30
    )


CASES = [
    ("kde-ml", lambda: _perturbed("ml"), "laplace"),
    ("kde-paper", lambda: _perturbed("paper"), "laplace"),
    # a bandwidth the KDE grid cannot resolve: exact kernel sums per point
    (
        "kde-direct",
        lambda: _perturbed("paper").set_params(bandwidth=5e-4),
        "laplace",
    ),
    ("sw-auto", lambda: _square_wave("auto"), "square_wave"),
    ("sw-ems", lambda: _square_wave(True), "square_wave"),
    ("sw-em", lambda: _square_wave(False).set_params(max_iter=200), "square_wave"),
]


def _reports(kind, laplace_reports, square_wave_reports):
    return laplace_reports if kind == "laplace" else square_wave_reports


def _assert_same(a, b):
    for attr in ATTRS:
        u, v = getattr(a, attr), getattr(b, attr)
        if v is None:
            assert u is None, attr
            continue
        np.testing.assert_allclose(u, v, rtol=1e-12, atol=1e-12, err_msg=attr)
    for attr in ("smoothing_width_", "bandwidth_", "method_", "n_samples_seen_"):
        assert getattr(a, attr, None) == getattr(b, attr, None), attr
    np.testing.assert_array_equal(a.edges_, b.edges_)
    assert a.mean() == pytest.approx(b.mean(), rel=1e-12)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("name, make, kind", CASES, ids=[c[0] for c in CASES])
def test_chunks_give_the_estimate_of_one_fit(
    name, make, kind, laplace_reports, square_wave_reports
):
    reports = _reports(kind, laplace_reports, square_wave_reports)
    whole = make().fit(reports)
    part = make()
    # chunk lengths that are not multiples of the 5 folds: a chunk's rows
    # must go to the folds of their rows in the whole data
    for chunk in np.split(reports, [1003, 1004, 2718]):
        assert part.partial_fit(chunk) is part
    _assert_same(part, whole)
    assert part.n_samples_seen_ == len(reports)
    # the running statistic: the same counts, and the reports' power sums
    merged, one = part._statistic_value, whole._statistic_value
    if merged[0].dtype.kind == "f":  # linear binning: float weights
        np.testing.assert_allclose(merged[0], one[0], rtol=1e-12)
    else:
        np.testing.assert_array_equal(merged[0], one[0])
    assert merged[1:3] == one[1:3] == (len(reports), reports.size)
    if one[3] is not None:
        np.testing.assert_allclose(merged[3], one[3], rtol=1e-12)
    if name in ("kde-ml", "sw-auto"):
        # folds restarted at each chunk would count other held-out sets
        restarted = make().fit(np.vstack([reports[:1003], reports[1004:]]))
        assert not np.allclose(restarted.smoothing_scores_, whole.smoothing_scores_)


def test_partial_fit_after_fit_continues(laplace_reports, square_wave_reports):
    a, b = laplace_reports[:1501], laplace_reports[1501:]
    est = _perturbed("ml").fit(a).partial_fit(b)
    _assert_same(est, _perturbed("ml").fit(laplace_reports))
    a, b = square_wave_reports[:1501], square_wave_reports[1501:]
    est = _square_wave(True).partial_fit(b).fit(a)  # fit starts again
    _assert_same(est, _square_wave(True).fit(a))


def test_privatizer_streams_fresh_noise(values):
    est = SquareWaveEMSEstimator(
        privatizer=SquareWaveLDP(epsilon=2.0, bounds=DOMAIN, random_state=3)
    )
    est.partial_fit(values[:500, :1])
    first = est.density_.copy()
    est.partial_fit(values[:500, :1])  # the same rows, new reports
    assert est.n_samples_seen_ == 1000
    again = clone_fit = SquareWaveEMSEstimator(
        privatizer=SquareWaveLDP(epsilon=2.0, bounds=DOMAIN, random_state=3)
    ).fit(np.vstack([values[:500, :1]] * 2))
    assert not np.allclose(est.density_, first)
    assert not np.allclose(est.density_, again.density_)  # other noise
    assert clone_fit.n_samples_seen_ == 1000


@pytest.mark.parametrize(
    "est, match",
    [
        (PerturbedKDEEstimator(bounds=DOMAIN), "float bandwidth"),
        (PerturbedKDEEstimator(bounds=DOMAIN, method="paper"), "float bandwidth"),
        (
            PerturbedKDEEstimator(privatizer=LaplaceLDP(epsilon=2.0)),
            "needs bounds",
        ),
        (SquareWaveEMSEstimator(epsilon=1.0), "needs bounds"),
        (
            SquareWaveEMSEstimator(privatizer=SquareWaveLDP(epsilon=1.0)),
            "needs bounds",
        ),
    ],
)
def test_streaming_refuses_settings_read_from_the_data(est, match, laplace_reports):
    with pytest.raises(ValueError, match=match):
        est.partial_fit(laplace_reports[:100])
    assert not hasattr(est, "n_features_in_")  # refused before reading


def test_partial_fit_errors_name_the_row_and_keep_the_state(square_wave_reports):
    est = _square_wave("auto").partial_fit(square_wave_reports[:1000])
    counts = est._statistic_value[0].copy()
    bad = square_wave_reports[1000:1100].copy()
    bad[34, 1] = -30.0  # beyond the output range [-w (b - a), b + w (b - a)]
    with pytest.raises(ValueError, match="output range .* row 1034, column 1"):
        est.partial_fit(bad)
    bad[34, 1] = np.nan
    with pytest.raises(ValueError, match="NaN at row 1034, column 1"):
        est.partial_fit(bad)
    np.testing.assert_array_equal(est._statistic_value[0], counts)
    assert est.n_samples_seen_ == 1000
    est.set_params(n_points=20)
    with pytest.raises(ValueError, match="n_points changed since the first"):
        est.partial_fit(square_wave_reports[1000:1100])
    # a fit that read its bandwidth from the data cannot be continued
    kde = PerturbedKDEEstimator(bounds=DOMAIN).fit(square_wave_reports)
    with pytest.raises(ValueError, match="partial_fit cannot add"):
        kde.set_params(bandwidth=0.3).partial_fit(square_wave_reports[:10])


# -- dask ------------------------------------------------------------------------
@pytest.fixture
def dask_sync():
    dask = pytest.importorskip("dask")
    pytest.importorskip("dask.dataframe")
    with dask.config.set(scheduler="synchronous"):
        yield


def _frame_with_partitions(X, lengths):
    """A dask DataFrame of ``X`` with partitions of the given lengths."""
    import dask
    import dask.dataframe as dd

    frame = pd.DataFrame(X, columns=[f"v{j}" for j in range(X.shape[1])])
    cuts = np.cumsum([0, *lengths])
    parts = [frame.iloc[a:b] for a, b in itertools.pairwise(cuts)]
    return dd.from_delayed([dask.delayed(p) for p in parts], meta=frame.iloc[:0])


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("name, make, kind", CASES, ids=[c[0] for c in CASES])
def test_dask_fit_equals_in_memory(
    dask_sync, name, make, kind, laplace_reports, square_wave_reports
):
    import dask.array as da

    reports = _reports(kind, laplace_reports, square_wave_reports)
    eager = make().fit(reports)
    array = da.from_array(reports, chunks=((1001, 0, 1999, 1000), (2,)))
    _assert_same(make().fit(array), eager)
    frame = _frame_with_partitions(reports, (0, 1234, 2766))
    lazy = make().fit(frame)
    _assert_same(lazy, eager)
    assert list(lazy.feature_names_in_) == ["v0", "v1"]


def test_dask_fit_with_a_privatizer(dask_sync, values):
    import dask.array as da

    X = da.from_array(values[:, :1], chunks=1000)
    est = PerturbedKDEEstimator(
        privatizer=LaplaceLDP(epsilon=2.0, bounds=DOMAIN, random_state=0), n_points=25
    ).fit(X)
    assert est.method_ == "ml" and est.n_samples_seen_ == 4000
    # the released mean has standard error sqrt(var(x) + 2 b**2 / n), b = 5
    se = np.sqrt(values[:, 0].var() + 50.0) / np.sqrt(4000)
    assert est.mean() == pytest.approx(values[:, 0].mean(), abs=4 * se)
    # the same seed, the same dask graph: the same releases
    again = PerturbedKDEEstimator(
        privatizer=LaplaceLDP(epsilon=2.0, bounds=DOMAIN, random_state=0), n_points=25
    ).fit(X)
    np.testing.assert_array_equal(est.density_, again.density_)


def _bad(reports, value, column=1):
    bad = np.array(reports, dtype=float)
    bad[1234, column] = value
    return bad


BAD = [
    ("kde-nan", lambda: _perturbed("paper"), "laplace", np.nan),
    ("kde-ml-inf", lambda: _perturbed("ml"), "laplace", np.inf),
    ("kde-huge", lambda: _perturbed("ml"), "laplace", 1e200),
    ("sw-outside", lambda: _square_wave("auto"), "square_wave", -3.0),
    ("sw-nan", lambda: _square_wave(True), "square_wave", np.nan),
]


@pytest.mark.parametrize("name, make, kind, value", BAD, ids=[c[0] for c in BAD])
def test_bad_value_names_the_same_row_in_memory_on_dask_and_in_chunks(
    dask_sync, name, make, kind, value, laplace_reports, square_wave_reports
):
    import dask.array as da

    bad = _bad(_reports(kind, laplace_reports, square_wave_reports), value)
    with pytest.raises(
        ValueError, match=r"column 1\b.* row 1234\b|row 1234, column 1\b"
    ) as in_memory:
        make().fit(bad)
    with pytest.raises(ValueError) as on_dask:
        make().fit(da.from_array(bad, chunks=(500, 2)))
    assert str(on_dask.value) == str(in_memory.value)
    with pytest.raises(ValueError) as in_frame:
        make().fit(_frame_with_partitions(bad, (0, 1000, 3000)))
    assert str(in_frame.value) == str(in_memory.value)
    streamed = make().partial_fit(bad[:1000])
    with pytest.raises(ValueError) as chunk:
        streamed.partial_fit(bad[1000:])
    assert str(chunk.value) == str(in_memory.value)


def test_nan_before_the_privatizer_names_the_same_row(dask_sync, values):
    import dask.array as da

    raw = _bad(values, np.nan, column=0)[:, :1]
    make = lambda: SquareWaveEMSEstimator(  # noqa: E731
        privatizer=SquareWaveLDP(epsilon=1.0, bounds=DOMAIN, random_state=0)
    )
    with pytest.raises(ValueError, match=r"\brow 1234\b") as in_memory:
        make().fit(raw)
    with pytest.raises(ValueError) as on_dask:
        make().fit(da.from_array(raw, chunks=500))
    assert str(on_dask.value) == str(in_memory.value)


def test_a_string_is_named_by_its_row_on_dask_as_in_memory(dask_sync):
    import dask.dataframe as dd

    frame = pd.DataFrame({"a": np.linspace(1, 9, 3000), "b": np.full(3000, 5.0)})
    frame = frame.astype({"a": object})
    frame.loc[1234, "a"] = "n/a"
    make = lambda: _square_wave(True)  # noqa: E731
    with pytest.raises(TypeError, match=r"column 'a' .* row 1234 holds a str"):
        make().fit(frame)
    with pytest.raises(TypeError, match=r"column 'a' .* row 1234 holds a str"):
        make().fit(dd.from_pandas(frame, npartitions=4))


def test_dask_refuses_the_ksdensity_bandwidth(dask_sync):
    import dask.array as da

    X = da.from_array(np.full((100, 1), 5.0), chunks=50)
    with pytest.raises(ValueError, match="float bandwidth"):
        PerturbedKDEEstimator(bounds=DOMAIN).fit(X)
    with pytest.raises(ValueError, match="0 rows"):
        _square_wave(True).fit(X[:0])
