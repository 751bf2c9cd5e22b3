"""Exact checks of the estimates the survey's status shows its operator.

Each test pins one documented behaviour of ``skprivate/survey/_status.py``
with a small exact case: the estimator each kind of question gets and the
parameters it reads from the question's mechanism (the noise scale, the
support, epsilon, the band and its placement, the design or oracle), the
threshold below which no estimate is made and the note saying so, the
statistics and intervals of a fit (the estimator's own), the values that
are bounds rather than estimates, and how numbers, intervals and their
legends are written.  ``benchmarks/_mutation_specs_survey.py``
(``survey_status``) lists the mutants these tests kill.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest

from skprivate import (
    DeconvolutionKernelDensity,
    IntervalCaseI,
    IntervalCaseII,
    IntervalNPMLE,
    LaplaceLDP,
    RVNSDensityEstimator,
    RVNSPerturber,
    SubsetDistributionEstimator,
    SubsetUniform,
)
from skprivate.frequency import (
    FrequencyEstimator,
    GeneralizedRandomizedResponse,
    LongitudinalFrequencyEstimator,
    LongitudinalOracle,
)
from skprivate.ldp import SquareWaveEMSEstimator, SquareWaveLDP
from skprivate.survey import Question
from skprivate.survey._status import (
    ESTIMATE_COLUMNS,
    MIN_ANSWERS,
    _ends,
    _estimate,
    _estimator,
    _rows,
    _shown,
    format_number,
    interval_legend,
    interval_text,
    statistic_name,
)

CATS = ["a", "b", "c"]


# -- how numbers are written --------------------------------------------------


@pytest.mark.parametrize(
    "value, text",
    [
        (None, ""),
        (math.nan, ""),
        (math.inf, ""),
        (-math.inf, ""),
        (0.0, "0"),
        (-0.0, "0"),
        (3.14159, "3.142"),
        (-0.000123456, "-0.0001235"),
        (9999.4, "9999"),
        (12345.6, "12346"),
        (-12345.6, "-12346"),
        (9_999_999.0, "9999999"),
        (12_345_678.0, "1.235e+07"),
        (np.float32(2.5), "2.5"),
        (7, "7"),
    ],
)
def test_numbers_have_four_significant_digits_and_no_exponent_below_1e7(value, text):
    assert format_number(value) == text


def test_statistic_names_and_interval_texts():
    assert statistic_name("q50") == "median (q50)"
    assert statistic_name("mean") == "mean"
    assert statistic_name("P(a)") == "P(a)"
    row = {"lower": 1.23456, "upper": 20000.4}
    assert interval_text(row) == "[1.235, 20000]"
    assert interval_text({"lower": -math.inf, "upper": 3.0}) == "[-inf, 3]"
    assert interval_text({"lower": 0.5, "upper": math.inf}) == "[0.5, inf]"
    assert interval_text({"lower": math.nan, "upper": 3.0}) == "none"
    assert interval_text({"lower": 2.0, "upper": None}) == "none"


def _row(**kw):
    row = {
        "statistic": "mean",
        "value": 2.0,
        "centre": 2.0,
        "method": "delta method",
        "covers": "E[X]",
        "note": "",
    }
    row.update(kw)
    return row


def test_the_legend_says_how_an_interval_was_made_and_what_it_covers():
    assert interval_legend(_row()) == "mean: delta method; covers E[X]"
    assert interval_legend(_row(covers="")) == "mean: delta method"
    assert interval_legend(_row(statistic="q50", centre=2.5)) == (
        "median (q50): delta method; covers E[X]; built around 2.5"
    )
    # a centre equal to the value as printed is not repeated
    assert interval_legend(_row(centre=2.00001)) == "mean: delta method; covers E[X]"
    assert interval_legend(_row(centre=math.nan, note="n/a")) == (
        "mean: delta method; covers E[X] (n/a)"
    )


def test_supports_and_parameters_as_the_spec_and_the_legend_write_them():
    assert _ends((None, None)) == (-math.inf, math.inf)
    assert _ends((0, None)) == (0.0, math.inf)
    assert _ends((None, 5)) == (-math.inf, 5.0)
    assert _ends((1, 2)) == (1.0, 2.0)
    assert all(type(v) is float for v in _ends((1, 2)))
    assert _shown((0.0, 80.5)) == "(0, 80.5)"
    assert _shown(0.25) == "0.25"
    assert _shown("paper") == "'paper'"
    assert _shown(3) == "3"
    assert _shown(LaplaceLDP()) == "LaplaceLDP"
    assert _shown(((1.0, 2.0), "x")) == "((1, 2), 'x')"


# -- the estimator of each kind -----------------------------------------------


def test_an_interval_question_gets_the_npmle_with_its_support():
    q = Question(
        "age", "Age?", IntervalCaseI(anchor_loc=40.0, support=(0.0, 120.0)).fit([[1.0]])
    )
    est, text = _estimator(q)
    assert isinstance(est, IntervalNPMLE)
    assert est.get_params()["bounds"] == (0.0, 120.0)
    assert text == "IntervalNPMLE(bounds=(0, 120))"
    half = Question(
        "w", "W?", IntervalCaseI(anchor_loc=40.0, support=(0.0, None)).fit([[1.0]])
    )
    est, text = _estimator(half)
    assert est.get_params()["bounds"] == (0.0, math.inf)
    assert text == "IntervalNPMLE(bounds=(0, inf))"
    free = Question("z", "Z?", IntervalCaseII(anchor_loc=40.0).fit([[1.0]]))
    est, text = _estimator(free)
    assert est.get_params() == IntervalNPMLE().get_params()
    assert text == "IntervalNPMLE()"


def test_a_laplace_question_gets_the_deconvolution_with_its_scale_and_support():
    ldp = LaplaceLDP(epsilon=2.0, bounds=(10, 90)).fit([[20.0]])
    est, text = _estimator(Question("h", "H?", ldp))
    assert isinstance(est, DeconvolutionKernelDensity)
    params = est.get_params()
    assert params["noise_scale"] == pytest.approx(40.0, rel=1e-12)
    assert params["support"] == (10.0, 90.0)
    assert text == "DeconvolutionKernelDensity(noise_scale=40, support=(10, 90))"


def test_a_square_wave_question_gets_the_ems_with_its_epsilon_and_bounds():
    sw = SquareWaveLDP(epsilon=1.5, bounds=(1, 16)).fit([[1.0]])
    est, text = _estimator(Question("e", "E?", sw))
    assert isinstance(est, SquareWaveEMSEstimator)
    params = est.get_params()
    assert params["epsilon"] == 1.5
    assert params["bounds"] == (1.0, 16.0)
    assert text == "SquareWaveEMSEstimator(epsilon=1.5, bounds=(1, 16))"


@pytest.mark.parametrize("placement", ["paper", "boundary_safe"])
def test_an_rvns_question_gets_the_reconstruction_with_its_band(placement):
    rvns = RVNSPerturber(d=20.0, k=2, bounds=(0, 120), placement=placement)
    est, text = _estimator(Question("c", "C?", rvns.fit([[1.0]])))
    assert isinstance(est, RVNSDensityEstimator)
    params = est.get_params()
    assert (params["d"], params["bounds"], params["placement"]) == (
        20.0,
        (0.0, 120.0),
        placement,
    )
    assert text == (
        f"RVNSDensityEstimator(d=20, bounds=(0, 120), placement={placement!r})"
    )


def test_a_subset_question_gets_its_design():
    design = SubsetUniform(categories=[CATS]).fit([[CATS[0]]])
    question = Question("r", "R?", design)
    est, text = _estimator(question)
    assert isinstance(est, SubsetDistributionEstimator)
    # the question's own (frozen) copy of the privatizer
    assert est.get_params()["design"] is question.privatizer
    assert text == "SubsetDistributionEstimator(design=SubsetUniform)"


def test_a_frequency_question_gets_its_oracle_and_a_memoized_one_the_two_stages():
    plain = GeneralizedRandomizedResponse(epsilon=1.0, categories=[CATS])
    plain = plain.fit([[CATS[0]]])
    question = Question("f", "F?", plain)
    est, text = _estimator(question)
    assert type(est) is FrequencyEstimator
    assert est.get_params()["oracle"] is question.privatizer
    assert text == "FrequencyEstimator(oracle=GeneralizedRandomizedResponse)"
    memo = LongitudinalOracle(
        epsilon_permanent=2.0, epsilon_instant=1.0, categories=[CATS]
    ).fit([[CATS[0]]])
    question = Question("m", "M?", memo)
    est, text = _estimator(question)
    assert type(est) is LongitudinalFrequencyEstimator
    assert est.get_params()["oracle"] is question.privatizer
    assert text == "LongitudinalFrequencyEstimator(oracle=LongitudinalOracle)"


def test_a_kind_without_an_estimator_gets_none():
    q = Question("h", "H?", LaplaceLDP(bounds=(0, 1)).fit([[0.0]]))
    q.kind = "generalized_gaussian"
    assert _estimator(q) is None
    described, frame, notes = _estimate(q, np.zeros((10, 1)), 0.95)
    assert described == ""
    assert frame.empty and list(frame.columns) == ESTIMATE_COLUMNS
    assert notes == [
        "no estimator with intervals for questions of kind 'generalized_gaussian'"
    ]


# -- the estimates ------------------------------------------------------------


def _laplace_question():
    return Question("h", "H?", LaplaceLDP(epsilon=2.0, bounds=(0, 10)).fit([[0.0]]))


@pytest.mark.parametrize(
    "n, what",
    [(0, "no answers yet"), (1, "only 1 answer"), (MIN_ANSWERS - 1, "only 4 answers")],
)
def test_too_few_answers_give_no_estimate_and_say_how_many(n, what):
    assert MIN_ANSWERS == 5
    q = _laplace_question()
    described, frame, notes = _estimate(q, np.full((n, 1), 5.0), 0.95)
    assert described == "DeconvolutionKernelDensity(noise_scale=5, support=(0, 10))"
    assert frame.empty and list(frame.columns) == ESTIMATE_COLUMNS
    assert notes == [f"too few answers for an estimate ({what}; at least 5)"]


def test_from_five_answers_the_estimates_are_the_estimators_own():
    q = _laplace_question()
    X = np.random.default_rng(0).laplace(5.0, 5.0, size=(MIN_ANSWERS, 1))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _, frame, _ = _estimate(q, X, 0.9)
        ref = DeconvolutionKernelDensity(noise_scale=5.0, support=(0.0, 10.0)).fit(X)
        ci_mean = ref.conf_int("mean", level=0.9, X=X, random_state=0)
        ci_q = ref.conf_int("quantile", [0.5], level=0.9, X=X, random_state=0)
    assert frame["statistic"].tolist() == ["mean", "q50"]
    assert frame["value"].tolist() == pytest.approx(
        [ref.mean(), float(np.ravel(ref.quantile(0.5))[0])], rel=1e-12
    )
    for got, ci in zip(frame.itertuples(), (ci_mean, ci_q)):
        assert (got.lower, got.upper) == pytest.approx(
            (ci["lower"].iloc[0], ci["upper"].iloc[0]), rel=1e-12
        )
        assert got.centre == pytest.approx(ci["estimate"].iloc[0], rel=1e-12)
        assert (got.method, got.covers) == (ci["method"].iloc[0], ci["target"].iloc[0])
        assert got.level == 0.9
        assert got.note == ""


def test_a_categorical_question_gets_one_share_per_category():
    oracle = GeneralizedRandomizedResponse(epsilon=2.0, categories=[CATS])
    q = Question("f", "F?", oracle.fit([[CATS[0]]]))
    X = oracle.transform(np.array(CATS * 20, dtype=object)[:, None])
    _, frame, _ = _estimate(q, X, 0.95)
    ref = FrequencyEstimator(oracle=q.privatizer).fit(X)
    assert frame["statistic"].tolist() == ["P(a)", "P(b)", "P(c)"]
    np.testing.assert_allclose(
        frame["value"], np.asarray(ref.distribution_)[:3], rtol=1e-12
    )
    ci = ref.conf_int("pmf", level=0.95, random_state=0)
    np.testing.assert_allclose(frame["lower"], ci["lower"], rtol=1e-12)
    np.testing.assert_allclose(frame["upper"], ci["upper"], rtol=1e-12)
    assert (frame["level"] == 0.95).all()


def test_a_fit_that_fails_is_a_note_not_an_error():
    q = _laplace_question()
    X = np.array([[1.0], [2.0], [np.nan], [3.0], [4.0]])
    described, frame, notes = _estimate(q, X, 0.95)
    assert described.startswith("DeconvolutionKernelDensity(")
    assert frame.empty
    assert len(notes) == 1 and notes[0].startswith("no estimate: ")
    assert "\n" not in notes[0]


def test_values_beyond_every_anchor_are_bounds_not_estimates():
    q = Question(
        "age", "Age?", IntervalCaseI(anchor_loc=40.0, support=(0.0, 120.0)).fit([[1.0]])
    )
    # every respondent above its anchor: all the mass beyond the anchors
    X = np.column_stack([np.linspace(30.0, 50.0, 8), np.full(8, np.inf)])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _, frame, notes = _estimate(q, X, 0.95)
    assert frame["statistic"].tolist() == ["mean", "q50"]
    assert frame["value"].isna().all()
    assert (frame["note"] == "not identified by the stored answers").all()
    assert notes  # the estimator's own warnings are kept as notes


def test_rows_pair_each_statistic_with_its_interval():
    found = [(1.0, 2.0, "m1", 1.5, "c1"), (3.0, np.inf, "m2", 3.5, "")]
    rows = _rows(["mean", "q50"], [1.4, 3.6], found)
    frame = pd.DataFrame(rows, columns=ESTIMATE_COLUMNS)
    assert frame.to_dict("list") == {
        "statistic": ["mean", "q50"],
        "value": [1.4, 3.6],
        "centre": [1.5, 3.5],
        "lower": [1.0, 3.0],
        "upper": [2.0, np.inf],
        "level": [pytest.approx(np.nan, nan_ok=True)] * 2,
        "method": ["m1", "m2"],
        "covers": ["c1", ""],
        "note": ["", ""],
    }
    with pytest.raises(ValueError):
        _rows(["mean"], [1.0, 2.0], found)


# -- the estimate of a scripted estimator: notes, bounds, levels -------------------


class _Scripted:
    """An estimator whose fit warns and whose intervals are given."""

    def __init__(self, intervals, tail=0.0, fail=None):
        self.intervals, self.tail_mass_, self.fail = intervals, tail, fail

    def fit(self, X):
        if self.fail is not None:
            raise self.fail
        warnings.warn("first line\nsecond line", stacklevel=2)
        warnings.warn("first line\nanother second line", stacklevel=2)  # the same note
        warnings.warn("", stacklevel=2)  # no text, no note
        warnings.warn("other", stacklevel=2)
        return self

    def mean(self):
        return 2.5

    def quantile(self, q):
        return np.array([3.5])

    def conf_int(self, kind, points, level, X, random_state):
        lower, upper = self.intervals[kind]
        return pd.DataFrame(
            {
                "lower": [lower],
                "upper": [upper],
                "method": [f"{kind} method"],
                "estimate": [2.0],
                "target": [f"{kind} target"],
            }
        )


def _scripted(monkeypatch, est):
    from skprivate.survey import _status

    monkeypatch.setattr(_status, "_estimator", lambda q: (est, "Scripted()"))
    return _estimate(_laplace_question(), np.zeros((MIN_ANSWERS, 1)), 0.8)


def test_the_notes_are_the_first_lines_of_the_warnings_once_each(monkeypatch):
    est = _Scripted({"mean": (1.0, 4.0), "quantile": (2.0, 5.0)})
    described, frame, notes = _scripted(monkeypatch, est)
    assert described == "Scripted()"
    assert notes == ["first line", "other"]
    assert frame["value"].tolist() == [2.5, 3.5]
    assert frame["value"].dtype == np.float64
    assert frame["level"].tolist() == [0.8, 0.8]
    assert frame["method"].tolist() == ["mean method", "quantile method"]
    assert frame["covers"].tolist() == ["mean target", "quantile target"]


def test_a_level_is_given_to_every_interval_with_a_finite_end(monkeypatch):
    est = _Scripted({"mean": (-np.inf, 3.0), "quantile": (1.0, np.inf)})
    _, frame, _ = _scripted(monkeypatch, est)
    assert frame["level"].tolist() == [0.8, 0.8]
    none = _Scripted({"mean": (np.nan, np.nan), "quantile": (-np.inf, np.inf)})
    _, frame, _ = _scripted(monkeypatch, none)
    assert frame["level"].isna().all()


@pytest.mark.parametrize("tail, unplaced", [(0.5, False), (0.500001, True)])
def test_values_are_bounds_when_most_mass_lies_beyond_the_anchors(
    monkeypatch, tail, unplaced
):
    est = _Scripted({"mean": (1.0, 4.0), "quantile": (2.0, 5.0)}, tail=tail)
    _, frame, _ = _scripted(monkeypatch, est)
    assert frame["value"].dtype == np.float64
    assert frame["value"].isna().all() == unplaced
    expected = "not identified by the stored answers" if unplaced else ""
    assert frame["note"].tolist() == [expected, expected]


def test_a_failed_fit_is_noted_by_its_first_line(monkeypatch):
    est = _Scripted({}, fail=ValueError("cannot fit\nthe details"))
    described, frame, notes = _scripted(monkeypatch, est)
    assert described == "Scripted()"
    assert frame.empty and list(frame.columns) == ESTIMATE_COLUMNS
    assert notes == ["no estimate: cannot fit"]


def test_two_answers_are_answers():
    q = _laplace_question()
    _, _, notes = _estimate(q, np.full((2, 1), 5.0), 0.95)
    assert notes == ["too few answers for an estimate (only 2 answers; at least 5)"]


def test_each_row_has_exactly_the_estimate_columns():
    rows = _rows(["mean"], [1.0], [(0.0, 2.0, "m", 1.0, "c")])
    assert list(rows[0]) == ESTIMATE_COLUMNS
    assert np.isnan(rows[0]["level"])


@pytest.mark.parametrize(
    "value, text",
    [(10000.0, "10000"), (9999.5, "1e+04"), (1e7, "1e+07"), (9_999_999.4, "9999999")],
)
def test_the_switches_between_formats_at_their_edges(value, text):
    assert format_number(value) == text
