"""A seeded release mixes into its seed what ``fit`` read from the data.

With ``bounds=None`` the bounds (hence the noise scale) come from the data,
and with ``categories="auto"`` the report alphabet does.  Two privatizers
with the same settings and seed, fitted on different data, drew the same
standard noise: the same value released at two scales gives the value away
(``x = 2 y1 - y2`` for Laplace with bounds (0, 10) and (0, 20)), and the
categorical reports of two alphabets agreed far more often than
independent draws do.
"""

import warnings

import numpy as np
import pytest

from skprivate import (
    FlippedHuberLDP,
    GeneralizedGaussianLDP,
    LaplaceLDP,
    RVNSPerturber,
    SquareWaveLDP,
    SubsetMechanism,
    SubsetUniform,
)
from skprivate.frequency import (
    BinaryLocalHashing,
    GeneralizedRandomizedResponse,
    HadamardResponse,
    LongitudinalOracle,
    OptimizedLocalHashing,
    OptimizedUnaryEncoding,
    SymmetricUnaryEncoding,
)

N = 4000
# |Pearson r| of two independent samples of N pairs exceeds this with
# probability about 6e-7 (5 standard errors)
BOUND = 5 / np.sqrt(N)

NUMERIC = [
    lambda seed: LaplaceLDP(epsilon=1.0, random_state=seed),
    lambda seed: GeneralizedGaussianLDP(epsilon=1.0, random_state=seed),
    lambda seed: FlippedHuberLDP(epsilon=1.0, random_state=seed),
    lambda seed: SquareWaveLDP(epsilon=1.0, random_state=seed),
    lambda seed: RVNSPerturber(random_state=seed),
]
CATEGORICAL = [
    lambda seed: GeneralizedRandomizedResponse(epsilon=1.0, random_state=seed),
    lambda seed: OptimizedUnaryEncoding(epsilon=1.0, random_state=seed),
    lambda seed: SymmetricUnaryEncoding(epsilon=1.0, random_state=seed),
    lambda seed: OptimizedLocalHashing(epsilon=1.0, random_state=seed),
    lambda seed: BinaryLocalHashing(epsilon=1.0, random_state=seed),
    lambda seed: HadamardResponse(epsilon=1.0, random_state=seed),
    lambda seed: LongitudinalOracle(
        epsilon_permanent=1.0, epsilon_instant=1.0, random_state=seed
    ),
    lambda seed: SubsetUniform(random_state=seed),
    lambda seed: SubsetMechanism(random_state=seed),
]


def _first_column(released):
    out = np.asarray(released, dtype=float)
    return out.reshape(len(out), -1)[:, 0]


def _correlation(a, b):
    if a.std() == 0 or b.std() == 0:
        return float("nan")
    return float(np.corrcoef(a, b)[0, 1])


def _fit(make, seed, data):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # bounds or categories read from data
        return make(seed).fit(data)


@pytest.mark.parametrize("make", NUMERIC)
def test_bounds_read_from_the_data_enter_the_seed(make):
    X = np.full((N, 1), 5.0)
    narrow = _fit(make, 0, [[0.0], [10.0]])
    wide = _fit(make, 0, [[0.0], [20.0]])
    assert not np.array_equal(narrow.bounds_, wide.bounds_)
    r = _correlation(
        _first_column(narrow.transform(X)), _first_column(wide.transform(X))
    )
    assert abs(r) < BOUND, r


def test_the_two_scale_attack_recovers_nothing():
    x = np.array([[3.21], [7.5], [1.0]])
    narrow = _fit(lambda s: LaplaceLDP(epsilon=1.0, random_state=s), 0, [[0.0], [10.0]])
    wide = _fit(lambda s: LaplaceLDP(epsilon=1.0, random_state=s), 0, [[0.0], [20.0]])
    combined = 2 * narrow.transform(x) - wide.transform(x)
    # with a shared stream this was x up to the output grid (1e-5 here)
    assert np.all(np.abs(combined - x) > 1e-3)


@pytest.mark.parametrize("make", CATEGORICAL)
def test_categories_read_from_the_data_enter_the_seed(make):
    X = np.array([["a"]] * N)
    three = _fit(make, 0, np.array([["a"], ["b"], ["c"]]))
    four = _fit(make, 0, np.array([["a"], ["b"], ["c"], ["d"]]))
    r = _correlation(
        _first_column(three.transform(X)), _first_column(four.transform(X))
    )
    assert np.isnan(r) or abs(r) < BOUND, r


def test_declared_bounds_keep_the_stream_of_the_settings():
    """Nothing is read from the data: the fitted data leave the stream alone
    (a seed reproduces a simulation whatever rows the privatizer saw)."""
    X = np.array([[1.0], [4.0], [9.0]])
    a = LaplaceLDP(epsilon=1.0, bounds=(0, 10), random_state=3).fit([[0.0]])
    b = LaplaceLDP(epsilon=1.0, bounds=(0, 10), random_state=3).fit([[7.0], [2.0]])
    np.testing.assert_array_equal(a.transform(X), b.transform(X))
    assert not a._law_read_from_data()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert LaplaceLDP(epsilon=1.0).fit([[0.0], [1.0]])._law_read_from_data()
    assert SubsetUniform()._law_read_from_data()
    assert not SubsetUniform(categories=[["a", "b"]])._law_read_from_data()


def test_int_seeds_name_distinct_streams():
    X = np.array([[1.0], [4.0], [9.0]])

    def release(seed):
        return (
            LaplaceLDP(epsilon=1.0, bounds=(0, 10), random_state=seed)
            .fit(X)
            .transform(X)
        )

    assert not np.array_equal(release(0), release(2**64))
    assert not np.array_equal(release(1), release(2**64 + 1))
    assert not np.array_equal(release(2**64), release(2**128))
    for seed in (-1, -(2**64)):
        with pytest.raises(
            ValueError,
            match=r"random_state must be a non-negative int \(a seed\); got -",
        ):
            LaplaceLDP(epsilon=1.0, bounds=(0, 10), random_state=seed).fit(X)


def test_a_seed_with_bounds_from_the_data_still_reproduces_its_release():
    import pandas as pd

    X = np.array([[1.0], [4.0], [9.0]])

    def release(data):
        privatizer = _fit(lambda s: LaplaceLDP(epsilon=1.0, random_state=s), 5, data)
        return np.asarray(privatizer.transform(X))

    # the input's column names and count are not part of the fitted state
    # mixed in: a frame and an array of the same values release alike
    np.testing.assert_array_equal(release(X), release(X))
    np.testing.assert_array_equal(release(X), release(pd.DataFrame({"v": X[:, 0]})))


def test_with_bounds_from_the_data_the_seed_still_mixes_seed_data_and_call():
    """The fitted state is added to the seed's other parts, not put in
    their place: two calls, two seeds and two batches still differ."""
    fitted_on = [[0.0], [10.0]]
    X = np.full((50, 1), 5.0)

    def privatizer(seed):
        return _fit(lambda s: LaplaceLDP(epsilon=1.0, random_state=s), seed, fitted_on)

    first = privatizer(0)
    a, b = first.transform(X), first.transform(X)
    assert not np.array_equal(a, b)  # the call index
    assert not np.array_equal(a, privatizer(1).transform(X))  # the seed
    other = privatizer(0).transform(np.full((50, 1), 6.0))
    assert not np.array_equal(a - 5.0, other - 6.0)  # the data
    np.testing.assert_array_equal(a, privatizer(0).transform(X))  # reproducible


def test_the_output_container_does_not_change_the_noise():
    """Only the public fitted state enters: set_output's private
    configuration leaves the released values as they are."""
    X = np.array([[1.0], [4.0], [9.0]])
    plain = _fit(lambda s: LaplaceLDP(epsilon=1.0, random_state=s), 2, X)
    framed = _fit(
        lambda s: LaplaceLDP(epsilon=1.0, random_state=s).set_output(
            transform="pandas"
        ),
        2,
        X,
    )
    np.testing.assert_array_equal(plain.transform(X), framed.transform(X).to_numpy())
    # a private attribute, even one named like a fitted one, is no part of it
    marked = _fit(lambda s: LaplaceLDP(epsilon=1.0, random_state=s), 2, X)
    marked._scratch_ = np.arange(3)
    again = _fit(lambda s: LaplaceLDP(epsilon=1.0, random_state=s), 2, X)
    np.testing.assert_array_equal(marked.transform(X), again.transform(X))
