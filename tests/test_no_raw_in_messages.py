"""No message of a privatizer echoes a raw value of a privatized column.

Errors and warnings end up in logs, notebooks and bug reports, where no
privacy guarantee holds.  A privatizer that refuses a value names its row,
its column and the rule broken, never the value.  Every privatizer is
discovered with :func:`skprivate.utils.all_estimators` (configurations from
``test_privacy_contract.CONFIGS``) and fed sentinel values: a number outside
the declared bounds, a string in a numeric column, an unknown category.
The exception (``str`` and ``repr``) and every warning raised on the way
must hold the sentinel in none of its common formats.  The command line is
checked the same way.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone

from skprivate import SubsetMechanism, SubsetUniform
from skprivate.__main__ import main
from skprivate.base import PrivatizerMixin
from skprivate.utils import all_estimators

from .test_privacy_contract import CATEGORIES, CONFIGS, _data

PRIVATIZERS = sorted(
    (name, cls) for name, cls in all_estimators() if issubclass(cls, PrivatizerMixin)
)
NUMERIC = [n for n, _ in PRIVATIZERS if CONFIGS[n][1] == "numeric"]
CATEGORICAL = [n for n, _ in PRIVATIZERS if CONFIGS[n][1] == "categorical"]
BOUNDED = [n for n in NUMERIC if "bounds" in CONFIGS[n][0](None).get_params()]

SENTINEL = 123457.25  # outside the configurations' bounds (0, 20000)
BEYOND = 250013.75  # outside bounds read from data whose maximum is SENTINEL
STRING = "raw-secret-4e1f"
DATA_ONLY = "only-in-the-data-9b7d"
COLUMNS = ["income", "age"]


def _forms(value) -> set[str]:
    """The ways a message could print ``value``."""
    if isinstance(value, str):
        return {value}
    return {
        repr(value),
        str(value),
        f"{value:g}",
        f"{value:e}",
        f"{value:.2f}",
        f"{value:.4g}",
        str(int(value)),
        repr(np.float64(value)),
    }


def _messages(call) -> tuple[BaseException | None, list[str]]:
    """The exception ``call`` raises (if any) and every message on the way."""
    raised = None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            call()
        except Exception as exc:
            raised = exc
    texts = [str(w.message) for w in caught]
    if raised is not None:
        texts += [str(raised), repr(raised)]
    return raised, texts


def _assert_silent_about(texts: list[str], *values) -> None:
    for text in texts:
        for value in values:
            for form in _forms(value):
                assert form not in text, f"{form!r} echoed in: {text}"


def _numeric_frame(seed: int = 0) -> pd.DataFrame:
    return pd.DataFrame(_data("numeric", seed), columns=COLUMNS)


def _fitted(name: str, X, **params):
    privatizer = CONFIGS[name][0](0)
    privatizer.set_params(**params)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return privatizer.fit(X)


def test_every_privatizer_is_checked():
    assert {n for n, _ in PRIVATIZERS} == set(NUMERIC) | set(CATEGORICAL)
    assert {"SquareWaveLDP", "RVNSPerturber", "LaplaceLDP"} <= set(BOUNDED)


@pytest.mark.parametrize("name", NUMERIC)
def test_value_outside_the_bounds_is_named_not_shown(name):
    X = _numeric_frame()
    privatizer = _fitted(name, X)
    bad = X.copy()
    bad.iloc[1, 0] = SENTINEL
    _, texts = _messages(lambda: privatizer.transform(bad))
    _assert_silent_about(texts, SENTINEL)
    if name in BOUNDED:
        # refused (or clipped with a warning), naming the row and column
        assert texts, f"{name} said nothing about a value outside its bounds"
        assert any("row 1" in t and "'income'" in t for t in texts)
        assert any("declared bounds [0, 20000]" in t for t in texts)
    # the sentinel in the data seen by fit is not echoed either
    _, texts = _messages(lambda: clone(privatizer).fit(bad).privacy_summary())
    _assert_silent_about(texts, SENTINEL)


@pytest.mark.parametrize("name", BOUNDED)
def test_bounds_read_from_the_data_are_not_shown(name):
    X = _numeric_frame()
    X.iloc[5, 0] = SENTINEL  # the maximum of column 'income'
    with pytest.warns(Warning) as record:
        privatizer = CONFIGS[name][0](0).set_params(bounds=None).fit(X)
    _assert_silent_about([str(w.message) for w in record], SENTINEL)
    bad = X.copy()  # within the bounds but for one value (SENTINEL stays)
    bad.iloc[2, 0] = BEYOND
    _, texts = _messages(lambda: privatizer.transform(bad))
    assert texts
    _assert_silent_about(texts, SENTINEL, BEYOND)
    assert any("row 2" in t and "read from the data" in t for t in texts)


@pytest.mark.parametrize("container", ["frame", "object array", "nested list"])
@pytest.mark.parametrize("name", NUMERIC)
def test_non_numeric_cell_is_named_not_shown(name, container):
    X = _numeric_frame()
    privatizer = _fitted(name, X)
    bad = X.astype(object)
    bad.iloc[1, 0] = STRING
    if container == "object array":
        bad = bad.to_numpy()
    elif container == "nested list":
        bad = bad.to_numpy().tolist()
    column = "'income'" if container == "frame" else "column 0"
    for call in (lambda: privatizer.transform(bad), lambda: clone(privatizer).fit(bad)):
        raised, texts = _messages(call)
        assert isinstance(raised, TypeError | ValueError)
        _assert_silent_about(texts, STRING)
        assert "row 1" in str(raised) and column in str(raised)


# Inputs that scikit-learn's own checks refuse by quoting them whole.
_SHAPES = {
    "one-dimensional": lambda: np.array([SENTINEL, 3.0, 5.0]),
    "scalar": lambda: np.array(SENTINEL),
    "complex": lambda: np.array([[SENTINEL + 1j, 2.0], [3.0, 4.0]]),
}


@pytest.mark.parametrize("shape", sorted(_SHAPES))
@pytest.mark.parametrize("name", NUMERIC)
def test_badly_shaped_input_is_refused_without_its_values(name, shape):
    bad = _SHAPES[shape]()
    raised, texts = _messages(lambda: _fitted(name, bad))
    assert isinstance(raised, ValueError)
    _assert_silent_about(texts, SENTINEL)
    if shape == "complex":  # refused before scikit-learn's check, by row
        assert str(raised) == (
            "X column 0 must be numeric; row 0 holds a complex that is not a "
            "real number (Complex data not supported)."
        )
    else:  # scikit-learn's refusal, its quoted values withheld
        assert "values withheld: raw data" in str(raised)
    # no error chained to it quotes the values either
    chained = [raised.__context__, raised.__cause__]
    _assert_silent_about([str(e) for e in chained if e is not None], SENTINEL)
    fitted = _fitted(name, _numeric_frame())
    raised, texts = _messages(lambda: fitted.transform(bad))
    assert isinstance(raised, ValueError)
    _assert_silent_about(texts, SENTINEL)


@pytest.mark.parametrize("shape", sorted(_SHAPES))
def test_learners_on_raw_records_refuse_bad_shapes_without_the_values(shape):
    from skprivate import LaplaceLDP
    from skprivate.integral import IntegralPrivateStatistics, Microaggregator
    from skprivate.ldp import DeconvolutionKernelDensity, DeconvolutionKernelRegressor

    bad = _SHAPES[shape]()
    calls = [
        lambda: IntegralPrivateStatistics().fit(bad),
        lambda: Microaggregator().fit(bad),
        lambda: Microaggregator().fit_transform(bad),
        lambda: Microaggregator().fit(np.ones((4, 2))).transform(bad),
        lambda: DeconvolutionKernelDensity(
            privatizer=LaplaceLDP(bounds=(0, 1e6), epsilon=1.0)
        ).fit(bad),
        lambda: DeconvolutionKernelRegressor(
            privatizer=LaplaceLDP(bounds=(0, 1e6), epsilon=1.0)
        ).fit(bad, np.ones(np.size(bad))),
    ]
    for call in calls:
        raised, texts = _messages(call)
        assert isinstance(raised, ValueError)
        _assert_silent_about(texts, SENTINEL)


@pytest.mark.parametrize("name", CATEGORICAL)
def test_unknown_category_is_named_not_shown(name):
    X = _data("categorical")
    X = X[[str(v) != "raw-only-sentinel-93af" for v in X[:, 0]]]
    privatizer = _fitted(name, X, handle_unknown="error")
    bad = X.copy()
    bad[1, 0] = STRING
    for call in (lambda: privatizer.transform(bad), lambda: clone(privatizer).fit(bad)):
        raised, texts = _messages(call)
        assert isinstance(raised, ValueError)
        _assert_silent_about(texts, STRING)
        message = str(raised)
        assert "column 'x0' at row 1" in message
        # declared categories are public: listed to help the user
        assert all(c in message for c in CATEGORIES)


@pytest.mark.parametrize("cls", [SubsetUniform, SubsetMechanism])
def test_categories_read_from_the_data_are_not_listed(cls):
    X = np.array([["a"], ["b"], ["c"], [DATA_ONLY]], dtype=object)
    with pytest.warns(Warning):
        privatizer = cls(random_state=0).fit(X)
    raised, texts = _messages(lambda: privatizer.transform([["a"], [STRING]]))
    assert isinstance(raised, ValueError)
    _assert_silent_about(texts, STRING, DATA_ONLY)
    assert "row 1" in str(raised) and "read from the data" in str(raised)


@pytest.mark.parametrize("cls", [SubsetUniform, SubsetMechanism])
def test_unknown_numeric_category_is_not_shown(cls):
    privatizer = cls(categories=[[1.0, 2.0, 3.0]], random_state=0).fit([[1.0]])
    raised, texts = _messages(lambda: privatizer.transform([[2.0], [SENTINEL]]))
    assert isinstance(raised, ValueError)
    _assert_silent_about(texts, SENTINEL)


def _cli(args, capsys) -> tuple[int, str]:
    code = main(args)
    captured = capsys.readouterr()
    return code, captured.out + captured.err


def test_cli_names_cells_without_showing_them(tmp_path, capsys):
    frame = pd.DataFrame({"id": [1, 2, 3, 4], "income": ["5.5", "7", STRING, "2"]})
    text = tmp_path / "text.csv"
    frame.to_csv(text, index=False)
    out = tmp_path / "out.csv"
    base = ["privatize", "--columns", "income", "-o", str(out)]
    laplace = ["--mechanism", "laplace", "--param", "epsilon=2"]
    bounded = [*laplace, "--param", "bounds=(0, 10)"]
    code, said = _cli([*base, *bounded, str(text)], capsys)
    assert code == 2 and "row 3 (line 4 of text.csv)" in said
    _assert_silent_about([said], STRING)

    frame["income"] = [5.5, 7.0, SENTINEL, 2.0]
    numbers = tmp_path / "numbers.csv"
    frame.to_csv(numbers, index=False)
    square_wave = ["--mechanism", "square-wave", "--param", "epsilon=2"]
    square_wave += ["--param", "bounds=(0, 10)"]
    code, said = _cli([*base, *square_wave, str(numbers)], capsys)
    # the privatizer's row 2 is the file's row 3, on line 4
    assert code == 2 and "row 3 (line 4 of numbers.csv)" in said
    _assert_silent_about([said], SENTINEL)
    # Laplace clips with a warning, naming the cell the same way
    code, said = _cli([*base, *bounded, str(numbers)], capsys)
    assert code == 0 and "row 3 (line 4 of numbers.csv)" in said
    _assert_silent_about([said], SENTINEL)

    races = pd.DataFrame({"race": ["A", "B", STRING, "C"]})
    path = tmp_path / "races.csv"
    races.to_csv(path, index=False)
    subset = ["--mechanism", "subset", "--param", "categories=[['A', 'B', 'C']]"]
    code, said = _cli(
        ["privatize", "--columns", "race", "-o", str(out), *subset, str(path)], capsys
    )
    assert code == 2 and "row 3 (line 4 of races.csv)" in said
    _assert_silent_about([said], STRING)
