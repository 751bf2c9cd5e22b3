"""The release an estimator reads, pinned (``_privacy_report/_released.py``).

An estimator fitted on reports released elsewhere reports the guarantee of
the privatizer named by its ``oracle=`` / ``design=``; that privatizer must be
the mechanism the estimator was fitted with, or the report would state the
guarantee of other reports.  Here: the comparison of two channels in every
branch, the reading of the raw column's name from the report columns, the
static (search candidate) path, and the texts of the refusals and hints.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
from sklearn.linear_model import LinearRegression

from skprivate import (
    DeconvolutionKernelDensity,
    FrequencyEstimator,
    GeneralizedRandomizedResponse,
    LaplaceLDP,
    SubsetDistributionEstimator,
    SubsetMechanism,
    privacy_report,
)
from skprivate._privacy_report._released import (
    _feature_name,
    _rebuilt,
    no_privatizer_hint,
    released_mechanism,
    report_source,
    same_channel,
)
from skprivate.subset import SubsetDesign

CATS = ["A", "B", "C", "D"]
SUBSETS = [
    [1, 1, 0, 0],
    [0, 0, 1, 1],
    [1, 0, 1, 0],
    [0, 1, 0, 1],
    [1, 0, 0, 1],
    [0, 1, 1, 0],
]


def _frame(n=80, seed=0):
    return pd.DataFrame({"a": np.random.default_rng(seed).choice(CATS, n)})


def _grr(epsilon=1.0):
    return GeneralizedRandomizedResponse(epsilon=epsilon, categories=[CATS])


# -- same_channel ---------------------------------------------------------------
class _State:
    def __init__(self, **kw):
        self.__dict__.update(kw)


class _Slotted:
    __slots__ = ("v",)

    def __init__(self, v):
        self.v = v

    def __eq__(self, other):
        if isinstance(other, _Slotted):
            return self.v == other.v
        return NotImplemented

    __hash__ = None


class _Raises:
    __slots__ = ()

    def __eq__(self, other):
        raise TypeError("no comparison")

    __hash__ = None


class _Truthless:
    __slots__ = ()

    def __eq__(self, other):
        return np.array([True, False])

    __hash__ = None


def test_same_channel_of_arrays_compares_values_and_shapes():
    a = np.array([0.25, np.nan, 1.0])
    assert same_channel(a, a.copy())
    assert not same_channel(a, np.array([0.25, np.nan, 2.0]))
    assert not same_channel(np.array([1, 2]), np.array([1, 2, 3]))
    assert not same_channel(np.array([[1, 2]]), np.array([1, 2]))
    assert same_channel(np.array([1 + 1j, np.nan]), np.array([1 + 1j, np.nan]))
    # an array of objects has no NaN to match: compared as it is
    words = np.array(["a", "b"], dtype=object)
    assert same_channel(words, words.copy())
    assert not same_channel(words, np.array(["a", "c"], dtype=object))
    assert same_channel(np.array([3, 4]), np.array([3, 4]))


def test_same_channel_of_containers_compares_every_entry():
    assert same_channel([1, (2, 3)], [1, (2, 3)])
    assert not same_channel([1, 2], [1, 3])
    # a prefix is not the same: map would stop at the shorter
    assert not same_channel([1], [1, 2])
    assert not same_channel((1, 2), [1, 2])  # other types
    assert same_channel({"a": 1, "b": [2]}, {"b": [2], "a": 1})
    assert not same_channel({"a": 1}, {"a": 1, "b": 2})
    assert not same_channel({"a": 1}, {"a": 2})


def test_same_channel_of_objects_compares_their_whole_state():
    assert same_channel(_State(x=1, _y=np.arange(3)), _State(x=1, _y=np.arange(3)))
    # the private state counts (a subset design keeps its subsets there)
    assert not same_channel(_State(x=1, _y=np.arange(3)), _State(x=1, _y=np.ones(3)))
    assert not same_channel(_State(x=1, _y=0), _State(x=2, _y=0))
    assert not same_channel(_State(x=1), _State(x=1, z=0))
    # objects without a __dict__: by ==, and False when == fails
    assert same_channel(_Slotted(2), _Slotted(2))
    assert not same_channel(_Slotted(2), _Slotted(3))
    assert not same_channel(_Raises(), _Raises())
    assert not same_channel(_Truthless(), _Truthless())
    same = _Raises()
    assert same_channel(same, same)  # one object: no comparison needed


def test_same_channel_of_the_fitted_channels():
    df = _frame()
    one = _grr().fit(df).oracles_[0]
    assert same_channel(one, _grr().fit(_frame(seed=1)).oracles_[0])
    assert not same_channel(one, _grr(0.5).fit(df).oracles_[0])
    designs = [
        SubsetDesign.independent(SUBSETS, w)
        for w in ([0.3, 0.3, 0.1, 0.1, 0.1, 0.1], [0.1, 0.1, 0.1, 0.1, 0.3, 0.3])
    ]
    assert same_channel(
        designs[0], SubsetDesign.independent(SUBSETS, [0.3, 0.3] + [0.1] * 4)
    )
    assert not same_channel(*designs)


def test_a_subset_design_swapped_for_another_of_its_kind_is_refused():
    # two independent designs over the same subsets, of other probabilities:
    # their kind, size and min_coverage agree, their subsets' law does not
    df = _frame(200)
    mechanisms = [
        SubsetMechanism(
            design=SubsetDesign.independent(SUBSETS, w), categories=[CATS]
        ).fit(df)
        for w in ([0.3, 0.3, 0.1, 0.1, 0.1, 0.1], [0.1, 0.1, 0.1, 0.1, 0.3, 0.3])
    ]
    est = SubsetDistributionEstimator(design=mechanisms[0]).fit(
        mechanisms[0].transform(df)
    )
    privacy_report(est)
    est.set_params(design=mechanisms[1])
    with pytest.raises(ValueError, match="is not the mechanism"):
        privacy_report(est)


# -- the raw column's name --------------------------------------------------------
class _Named:
    def __init__(self, names=None, error=None):
        self.names, self.error = names, error

    def get_feature_names_out(self):
        if self.error is not None:
            raise self.error
        return np.array(self.names, dtype=object)


@pytest.mark.parametrize(
    ("out", "given", "name"),
    [
        (["x0=A", "x0=B"], ["age=A", "age=B"], "age"),
        (["x0"], ["income"], "income"),
        (["x0"], ["x0"], "x0"),
        (["x0=A", "x0=B"], None, None),
        # not one name per output
        (["x0=A", "x0=B"], ["age=A"], None),
        (["x0"], ["a", "b"], None),
        # an output that is not the privatizer's
        (["y=A"], ["age=A"], None),
        # a report column without the suffix, or the suffix alone
        (["x0=A", "x0=B"], ["age=A", "age=C"], None),
        (["x0=A"], ["=A"], None),
        # two raw names
        (["x0=A", "x0=B"], ["age=A", "sex=B"], None),
    ],
)
def test_feature_name_reads_the_raw_column_before_the_suffixes(out, given, name):
    assert _feature_name(_Named(out), given) == name


@pytest.mark.parametrize("error", [AttributeError("none"), ValueError("unfitted")])
def test_feature_name_of_a_mechanism_without_output_names(error):
    assert _feature_name(_Named(error=error), ["a"]) is None
    assert _feature_name(object(), ["a"]) is None


def test_rebuilt_fits_a_clone_on_the_categories_named_by_the_reports():
    source = _grr()
    out = _rebuilt(source, CATS, ["colour"])
    assert out is not source and not hasattr(source, "oracles_")
    assert list(out.get_feature_names_out()) == ["colour"]
    assert list(out.categories_[0]) == CATS
    assert list(_rebuilt(source, CATS, None).get_feature_names_out()) == ["x0"]


# -- report_source and released_mechanism ---------------------------------------------
def test_report_source_is_the_privatizer_of_a_reader_without_its_own():
    grr = _grr().fit(_frame())
    assert report_source(FrequencyEstimator(oracle=grr)) == ("oracle", grr)
    # privatizer= takes precedence: the estimator privatizes its own input
    assert report_source(FrequencyEstimator(oracle=grr, privatizer=_grr())) is None
    assert report_source(FrequencyEstimator()) is None
    assert report_source(LinearRegression()) is None
    assert (
        report_source(SubsetDistributionEstimator(design=SubsetDesign.uniform(4)))
        is None
    )


def _fitted_reader():
    df = _frame()
    grr = _grr().fit(df)
    return FrequencyEstimator(oracle=grr).fit(grr.transform(df)), grr


def test_released_mechanism_of_a_fitted_reader():
    est, grr = _fitted_reader()
    assert released_mechanism(est, "oracle", grr) == (grr, False)
    mechanism, rebuilt = released_mechanism(est, "oracle", _grr())
    assert rebuilt is True and same_channel(mechanism.oracles_, grr.oracles_)


def test_released_mechanism_of_a_search_candidate():
    grr = _grr().fit(_frame())
    est = FrequencyEstimator(oracle=grr)
    assert released_mechanism(est, "oracle", grr, static=True) == (grr, False)
    mechanism, rebuilt = released_mechanism(
        est, "oracle", _grr(), static=True, report_names=["colour"]
    )
    assert rebuilt is True
    assert list(mechanism.get_feature_names_out()) == ["colour"]
    # categories the candidate does not declare for one column: read later
    for categories in (None, "auto", [CATS, CATS]):
        source = GeneralizedRandomizedResponse(categories=categories)
        assert released_mechanism(est, "oracle", source, static=True) is None


def test_released_mechanism_refuses_an_unfitted_reader():
    est, grr = _fitted_reader()
    del est.oracle_
    message = (
        "FrequencyEstimator is not fitted: privacy_report reads the reports a "
        "fitted FrequencyEstimator was fitted on; call fit first."
    )
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        released_mechanism(est, "oracle", grr)
    est, grr = _fitted_reader()
    del est.categories_
    with pytest.raises(ValueError, match="^FrequencyEstimator is not fitted"):
        released_mechanism(est, "oracle", grr)


def test_released_mechanism_refuses_another_mechanism_in_full():
    est, grr = _fitted_reader()
    message = (
        "FrequencyEstimator's oracle= (GeneralizedRandomizedResponse) is not the "
        "mechanism FrequencyEstimator was fitted with: it was changed with "
        "set_params or refitted since fit. Fit FrequencyEstimator again, so "
        "that privacy_report states the guarantee of the reports it was fitted on."
    )
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        released_mechanism(est, "oracle", _grr(0.5).fit(_frame()))
    # a mechanism without its channels is no mechanism the fit used
    del grr.oracles_
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        released_mechanism(est, "oracle", grr)


# -- hints ----------------------------------------------------------------------
def test_the_hint_of_a_reader_without_its_release():
    assert no_privatizer_hint(FrequencyEstimator()) == (
        " FrequencyEstimator reads reports released elsewhere: give oracle= the "
        "privatizer that released them (fitted, or with its categories "
        "declared) and privacy_report states its guarantee."
    )


def test_the_hint_of_a_learner_fitted_on_released_data():
    hint = (
        " {0} was fitted without privatizer=, on data it takes as already "
        "privatized: report on the fitted privatizer that released them "
        "(privacy_report(privatizer)), or fit {0} with privatizer= to simulate "
        "the release."
    )
    assert no_privatizer_hint(DeconvolutionKernelDensity()) == hint.format(
        "DeconvolutionKernelDensity"
    )
    # a reader with its release named gets the learner's hint only
    est, _ = _fitted_reader()
    assert no_privatizer_hint(est) == hint.format("FrequencyEstimator")


def test_no_hint_where_a_privatizer_is_given_or_none_applies():
    learner = DeconvolutionKernelDensity(privatizer=LaplaceLDP(bounds=(0, 1)))
    assert no_privatizer_hint(learner) == ""
    assert no_privatizer_hint(LinearRegression()) == ""
    reader = FrequencyEstimator(privatizer=_grr())
    assert no_privatizer_hint(reader) == ""
    assert no_privatizer_hint(object()) == ""
