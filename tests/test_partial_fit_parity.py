"""partial_fit against fit of all the chunks: settings and row numbers.

A learner that streams keeps a statistic computed with the settings of its
first chunk; a setting that shapes it cannot change before a later chunk.
A later chunk's bad value is named by its row in the data that ``fit`` of
all the chunks would name, whether the learner's checks, its privatizer or
its statistic refuse it.
"""

import warnings

import numpy as np
import pytest
from sklearn.base import clone

from skprivate import (
    DeconvolutionKernelDensity,
    LaplaceLDP,
    RVNSPerturber,
    SubsetDistributionEstimator,
    SubsetUniform,
)
from skprivate.frequency import (
    FrequencyEstimator,
    LongitudinalFrequencyEstimator,
    LongitudinalOracle,
    OptimizedUnaryEncoding,
)
from skprivate.ldp import (
    PerturbedKDEEstimator,
    SquareWaveEMSEstimator,
    SquareWaveLDP,
)
from skprivate.negative_survey import RVNSDensityEstimator

CATEGORIES = [["A", "B", "C"]]


def _categories(n=4000, seed=0):
    rng = np.random.default_rng(seed)
    return rng.choice(["A", "B", "C"], (n, 1), p=[0.2, 0.3, 0.5]).astype(object)


def _oue(epsilon):
    return OptimizedUnaryEncoding(
        epsilon=epsilon, categories=CATEGORIES, random_state=0
    )


# -- settings that shape the statistic cannot change between chunks ---------
def test_frequency_estimator_refuses_another_oracle_between_chunks():
    cats = _categories()
    o1 = _oue(1.0).fit(cats)
    o4 = _oue(4.0).fit(cats)
    est = FrequencyEstimator(oracle=o1).partial_fit(o1.transform(cats[:2000]))
    before = est.distribution_.copy()
    est.set_params(oracle=o4)
    with pytest.raises(ValueError, match="oracle__epsilon changed since the first"):
        est.partial_fit(o4.transform(cats[2000:]))
    # nothing was merged: the estimate is still that of the first chunk
    np.testing.assert_array_equal(est.distribution_, before)
    assert est.n_samples_seen_ == 2000
    # fit starts again with the new oracle
    est.fit(o4.transform(cats))
    assert est.n_samples_seen_ == 4000


@pytest.mark.parametrize(
    "est, change, name",
    [
        (
            FrequencyEstimator(privatizer=_oue(1.0)),
            {"privatizer__epsilon": 4.0},
            "privatizer__epsilon",
        ),
        (
            FrequencyEstimator(privatizer=_oue(1.0)),
            {"privatizer": _oue(4.0)},
            "privatizer__epsilon",
        ),
        (
            SubsetDistributionEstimator(
                privatizer=SubsetUniform(categories=CATEGORIES, random_state=0)
            ),
            {"privatizer__min_coverage": 0.2},
            "privatizer__min_coverage",
        ),
    ],
    ids=["frequency-epsilon", "frequency-swap", "subset-coverage"],
)
def test_privatizer_settings_cannot_change_between_chunks(est, change, name):
    cats = _categories()
    est = clone(est).partial_fit(cats[:2000])
    est.set_params(**change)
    with pytest.raises(ValueError, match=f"^{name} changed since the first call"):
        est.partial_fit(cats[2000:])
    assert est.n_samples_seen_ == 2000


def test_longitudinal_estimator_refuses_another_oracle_between_chunks():
    cats = _categories()
    settings = {"categories": CATEGORIES, "waves": 2, "random_state": 0}
    lo1 = LongitudinalOracle(epsilon_permanent=2, **settings).fit(cats)
    lo2 = LongitudinalOracle(epsilon_permanent=6, **settings).fit(cats)
    est = LongitudinalFrequencyEstimator(oracle=lo1)
    est.partial_fit(lo1.transform(cats[:2000]))
    est.set_params(oracle=lo2)
    with pytest.raises(ValueError, match="oracle__epsilon_permanent changed"):
        est.partial_fit(lo2.transform(cats[2000:]))


def test_subset_design_cannot_change_between_chunks():
    cats = _categories()
    wide = SubsetUniform(categories=CATEGORIES, random_state=0).fit(cats)
    other = SubsetUniform(categories=CATEGORIES, min_coverage=0.2).fit(cats)
    reports = np.asarray(wide.transform(cats))
    est = SubsetDistributionEstimator(design=wide).partial_fit(reports[:2000])
    est.set_params(design=other)
    with pytest.raises(ValueError, match="design__min_coverage.* changed since"):
        est.partial_fit(reports[2000:])


def test_a_fit_that_can_stream_is_continued_with_its_own_settings():
    cats = _categories()
    o1 = _oue(1.0).fit(cats)
    est = FrequencyEstimator(oracle=o1).fit(o1.transform(cats[:2000]))
    est.set_params(oracle=_oue(4.0).fit(cats))
    with pytest.raises(ValueError, match="oracle__epsilon changed"):
        est.partial_fit(o1.transform(cats[2000:]))


def test_the_estimate_settings_may_change_between_chunks():
    # the method reads the merged counts, not the chunks: the running
    # estimate is that of fit with the new method on all the chunks
    cats = _categories()
    o1 = _oue(1.0).fit(cats)
    reports = o1.transform(cats)
    est = FrequencyEstimator(oracle=o1).partial_fit(reports[:2000])
    est.set_params(method="norm-sub").partial_fit(reports[2000:])
    whole = FrequencyEstimator(oracle=o1, method="norm-sub").fit(reports)
    np.testing.assert_allclose(est.distribution_, whole.distribution_, atol=1e-12)
    sub = SubsetUniform(categories=CATEGORIES, random_state=0).fit(cats)
    A = np.asarray(sub.transform(cats))
    est = SubsetDistributionEstimator(design=sub).partial_fit(A[:2000])
    est.set_params(method="mle").partial_fit(A[2000:])
    whole = SubsetDistributionEstimator(design=sub, method="mle").fit(A)
    np.testing.assert_allclose(est.distribution_, whole.distribution_, atol=1e-9)


def test_density_learners_name_the_nested_setting_that_changed():
    x = np.random.default_rng(1).uniform(0, 10, (2000, 1))
    est = DeconvolutionKernelDensity(
        bandwidth=0.5, privatizer=LaplaceLDP(epsilon=1, bounds=(0, 10), random_state=0)
    ).partial_fit(x[:1000])
    est.set_params(privatizer__epsilon=4.0)
    with pytest.raises(ValueError, match="^privatizer__epsilon changed since"):
        est.partial_fit(x[1000:])


# -- a later chunk names the row of the whole data --------------------------
def _numbers(kind):
    x = np.random.default_rng(2).uniform(0, 10, (3000, 1))
    if kind == "str":
        x = x.astype(object)
        x[1234, 0] = "secret"
    else:
        x[1234, 0] = {"outside": 10.5, "nan": np.nan}[kind]
    return x


def _laplace(**kw):
    return LaplaceLDP(epsilon=1, bounds=(0, 10), random_state=0, **kw)


_NUMERIC = {
    "kde-laplace": DeconvolutionKernelDensity(
        bandwidth=0.5, privatizer=_laplace(clip=False)
    ),
    "square-wave-ems": SquareWaveEMSEstimator(
        privatizer=SquareWaveLDP(epsilon=1, bounds=(0, 10), random_state=0)
    ),
    "perturbed-kde": PerturbedKDEEstimator(
        privatizer=_laplace(clip=False), bandwidth=0.5, method="paper"
    ),
    "rvns": RVNSDensityEstimator(
        privatizer=RVNSPerturber(d=2.0, k=2, bounds=(0, 10), random_state=0)
    ),
    "kde-released": DeconvolutionKernelDensity(
        bandwidth=0.5, noise_scale=1.0, support=(-5, 15)
    ),
}


def _refusals(est, data):
    """The error of fit on all the rows, and of the chunk holding the bad row."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises((ValueError, TypeError)) as whole:
            clone(est).fit(data)
        streamed = clone(est).partial_fit(data[:700])
        with pytest.raises((ValueError, TypeError)) as chunk:
            streamed.partial_fit(data[700:2000])
    return whole.value, chunk.value


@pytest.mark.parametrize(
    "name, kind",
    [
        (name, kind)
        for name in _NUMERIC
        for kind in ("outside", "nan", "str")
        if not (name == "kde-released" and kind == "outside")  # no bounds
    ],
)
def test_a_later_chunk_names_the_row_fit_names(name, kind):
    whole, chunk = _refusals(_NUMERIC[name], _numbers(kind))
    assert "1234" in str(whole)
    assert type(chunk) is type(whole)
    assert str(chunk) == str(whole)
    assert "secret" not in str(chunk)


@pytest.mark.parametrize(
    "est",
    [
        SubsetDistributionEstimator(
            privatizer=SubsetUniform(categories=CATEGORIES, random_state=0)
        ),
        FrequencyEstimator(privatizer=_oue(1.0)),
    ],
    ids=["subset", "frequency"],
)
def test_an_unknown_category_in_a_later_chunk_is_named_by_its_row(est):
    cats = _categories(3000)
    cats[1234, 0] = "Z"
    whole, chunk = _refusals(est, cats)
    assert "row 1234" in str(whole)
    assert str(chunk) == str(whole)


def test_a_clipped_value_in_a_later_chunk_is_named_by_its_row():
    x = np.random.default_rng(3).uniform(0, 10, (2000, 1))
    x[1234, 0] = 11.0
    est = DeconvolutionKernelDensity(bandwidth=0.5, privatizer=_laplace(clip=True))
    with warnings.catch_warnings(record=True) as in_memory:
        warnings.simplefilter("always")
        clone(est).fit(x)
    with warnings.catch_warnings(record=True) as streamed:
        warnings.simplefilter("always")
        clone(est).partial_fit(x[:700]).partial_fit(x[700:])

    def clipped(records):
        return [str(w.message) for w in records if "clipped" in str(w.message)]

    assert clipped(streamed) == clipped(in_memory)
    assert "row 1234" in clipped(in_memory)[0]
