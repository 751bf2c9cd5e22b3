"""Subset privatizer behaviour that mutation testing found unchecked.

Each test pins a documented behaviour of ``SubsetUniform`` and
``SubsetMechanism`` with an exact small case: the refusals and their
messages (column and row named, no data value shown), the categories kept
as declared, the dummy respondents' law, the output names, the privacy
summary and the estimator tags.  ``benchmarks/_mutation_modules.py`` lists the
mutants of ``skprivate/subset/_mechanism.py`` each test kills.
"""

import re
import warnings

import numpy as np
import pandas as pd
import pytest

from skprivate.exceptions import PrivacyLeakWarning
from skprivate.subset import SubsetDesign, SubsetMechanism, SubsetUniform
from skprivate.subset._mechanism import _check_present, _PresentCategories

CATS = ["a", "b", "c", "d"]


def _fit_quietly(model, X):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        return model.fit(X)


def test_defaults():
    for cls in (SubsetUniform, SubsetMechanism):
        params = cls().get_params()
        assert params["categories"] == "auto"
        assert params["handle_unknown"] == "error"
        assert params["random_state"] is None
    assert SubsetUniform().min_coverage is None
    assert SubsetMechanism().design is None


def test_infinite_category_names_column_and_row():
    X = np.array([[1.0, 2.0], [3.0, np.inf]])
    with pytest.raises(
        ValueError,
        match=re.escape(
            "Column 'y' has an infinite value (inf) at row 1; categories must be "
            "finite."
        ),
    ):
        _check_present(X, ["x", "y"])
    # a block of a larger collection names the row in the whole data
    with pytest.raises(ValueError, match="Column 'x' has an infinite value .* row 11;"):
        _check_present(np.array([[-np.inf, 1.0]]), ["x", "y"], first_row=11)
    # complex columns are checked too
    with pytest.raises(ValueError, match="at row 0"):
        _check_present(np.array([[complex(np.inf, 0)]]), ["z"])


def test_missing_category_names_column_and_row():
    X = np.array([["a", "b"], ["c", None]], dtype=object)
    with pytest.raises(
        ValueError,
        match=re.escape(
            "Column 'y' has a missing value (NaN/None) at row 1; subset privacy "
            "needs an actual category for every respondent."
        ),
    ):
        _check_present(X, ["x", "y"])
    with pytest.raises(ValueError, match="Column 'y' has a missing value .* row 7;"):
        _check_present(X, ["x", "y"], first_row=6)


def test_present_categories_block_reshapes_and_offsets_rows():
    check = _PresentCategories(["only"])
    assert check.names == ["only"]
    # a one-dimensional block (a series) is one column
    with pytest.raises(ValueError, match="Column 'only' has a missing .* row 5;"):
        check.block(pd.Series(["a", None]), first_row=4)
    assert check.block(pd.Series(["a", "b"]), first_row=0) is None
    # a two-column block keeps its columns
    pair = _PresentCategories(["u", "v"])
    with pytest.raises(ValueError, match="Column 'v' has a missing .* row 3;"):
        pair.block(np.array([["a", "b"], ["c", None]], dtype=object), first_row=2)
    assert check.merge([None, None]) is None


def test_fit_of_a_dask_frame_with_auto_categories_names_the_missing_row():
    dd = pytest.importorskip("dask.dataframe")
    frame = pd.DataFrame({"race": ["a", "b", "c", "d", None, "a"]})
    lazy = dd.from_pandas(frame, npartitions=3)
    with pytest.raises(ValueError, match="Column 'race' has a missing .* row 4;"):
        _fit_quietly(SubsetUniform(), lazy)


def test_fit_summary_reads_distinct_values_only_with_auto():
    assert SubsetUniform()._fit_summary() == "distinct"
    assert SubsetUniform(categories=[CATS])._fit_summary() is None


def test_category_count_mismatch_message():
    with pytest.raises(
        ValueError,
        match=re.escape("categories must list one array per column (1); got 2."),
    ):
        SubsetUniform(categories=[CATS, CATS]).fit([["a"]])


def test_auto_categories_warn_naming_the_privatizer():
    for cls in (SubsetUniform, SubsetMechanism):
        with pytest.warns(PrivacyLeakWarning) as record:
            cls().fit([["a"], ["b"], ["c"], ["d"]])
        message = str(record[0].message)
        assert message == (
            f"{cls.__name__} was fitted with categories='auto', so the categories "
            "of each column were read from the data and are published in "
            "categories_ and the output column names, including a value held by "
            "a single respondent. Declare the categories known before seeing the "
            "data instead: categories=[[...], ...], one list per column."
        )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        SubsetUniform(categories=[CATS]).fit([["a"]])


def test_mixed_types_are_refused_naming_the_types():
    X = pd.DataFrame({"race": pd.Series([1, "a", 2.5, "b"], dtype=object)})
    with pytest.raises(
        TypeError,
        match=re.escape(
            "Column 'race' mixes values of types ['float', 'int', 'str'], which "
            "have no order to list the categories in; convert the column to one "
            "type (e.g. str) or declare categories=[[...]] in the order wanted."
        ),
    ):
        _fit_quietly(SubsetUniform(), X)


def test_auto_categories_are_the_sorted_distinct_values_per_column():
    X = np.array([[3, 9], [1, 8], [2, 9], [1, 7]])
    model = _fit_quietly(SubsetUniform(), X)
    np.testing.assert_array_equal(model.categories_[0], [1, 2, 3])
    np.testing.assert_array_equal(model.categories_[1], [7, 8, 9])


def test_declared_mixed_categories_keep_their_types():
    model = SubsetMechanism(categories=[[1, "a", 2, 3]]).fit(
        np.array([[1], ["a"]], dtype=object)
    )
    assert model.categories_[0].dtype == object
    assert [type(v) for v in model.categories_[0]] == [int, str, int, int]
    # strings only stay strings; numbers only stay numbers
    strings = SubsetMechanism(categories=[CATS]).fit([["a"]])
    assert strings.categories_[0].dtype.kind == "U"
    ints = SubsetMechanism(categories=[[1, 2, 3, 4]]).fit([[1]])
    assert ints.categories_[0].dtype.kind == "i"
    byte = SubsetMechanism(categories=[[b"a", b"b", b"c", b"d"]]).fit([[b"a"]])
    assert byte.categories_[0].dtype.kind == "S"


def test_float16_categories_and_data_are_read_as_float64():
    cats = np.array([0.5, 1.5, 2.5, 3.5], dtype=np.float16)
    X = np.array([[0.5], [3.5]], dtype=np.float16)
    model = SubsetMechanism(categories=[cats], random_state=0).fit(X)
    assert model.categories_[0].dtype == np.float64
    reports = model.transform(X)
    assert reports[0, 0] == 1 and reports[1, 3] == 1
    auto = _fit_quietly(SubsetMechanism(random_state=0), X)
    assert auto.categories_[0].dtype == np.float64


def test_declared_categories_are_refused_naming_the_list():
    with pytest.raises(
        ValueError,
        match=re.escape(
            "categories[1] contains a missing value; categories must be actual values."
        ),
    ):
        SubsetUniform(categories=[CATS, ["x", None, "y"]]).fit([["a", "x"]])
    with pytest.raises(
        ValueError, match=re.escape("categories[0] contains duplicates.")
    ):
        SubsetUniform(categories=[["a", "b", "a"]]).fit([["a"]])


def test_one_category_is_refused_naming_column_and_count():
    with pytest.raises(
        ValueError,
        match=re.escape(
            "Column 'x0' has 1 category (from n_samples=2); subset privacy needs "
            "at least 2 categories (p = 1 leaves nothing to hide)."
        ),
    ):
        SubsetUniform(categories=[["a"]]).fit([["a"], ["a"]])
    # two categories are enough
    two = SubsetUniform(categories=[["a", "b"]]).fit([["a"]])
    assert two.designs_[0].n_categories == 2


def test_unknown_category_at_fit_with_declared_categories():
    with pytest.raises(
        ValueError,
        match=re.escape(
            "Found an unknown category in column 'x0' at row 1: the declared "
            "categories are ['a', 'b', 'c', 'd']. Set handle_unknown='ignore' to "
            "report an all-zero row instead."
        ),
    ):
        SubsetUniform(categories=[CATS]).fit([["a"], ["e"]])
    # with handle_unknown="ignore" fit accepts it and transform reports zeros
    model = SubsetUniform(categories=[CATS], handle_unknown="ignore", random_state=0)
    reports = model.fit([["a"], ["e"]]).transform([["e"], ["b"]])
    np.testing.assert_array_equal(reports[0], [0, 0, 0, 0])
    assert reports[1, 1] == 1 and reports[1].sum() == 2


def test_unknown_category_in_a_second_column_names_it():
    model = SubsetUniform(categories=[CATS, ["x", "y", "z", "w"]]).fit([["a", "x"]])
    with pytest.raises(
        ValueError,
        match=re.escape(
            "in column 'x1' at row 2: the declared categories are ['x', 'y', 'z', 'w']."
        ),
    ):
        model.transform([["a", "x"], ["b", "y"], ["c", "v"]])
    frame = pd.DataFrame({"race": ["a", "b"], "sex": ["x", "q"]})
    named = SubsetUniform(categories=[CATS, ["x", "y", "z", "w"]]).fit(frame.head(1))
    with pytest.raises(ValueError, match="in column 'sex' at row 1: the declared"):
        named.transform(frame)


def test_unknown_category_with_auto_categories_counts_them():
    model = _fit_quietly(SubsetUniform(), [["a"], ["b"], ["c"], ["d"], ["e"]])
    with pytest.raises(
        ValueError,
        match=re.escape(
            "column 'x0' at row 0: the 5 categories were read from the data. Set"
        ),
    ):
        model.transform([["f"]])


def test_transform_codes_each_column_by_its_own_categories():
    model = SubsetMechanism(
        categories=[["a", "b"], ["p", "q", "r", "s"]], random_state=3
    ).fit([["a", "p"]])
    X = [["b", "s"], ["a", "q"]]
    reports = model.transform(X)
    # two dummy columns after the first block, none after the second
    assert reports.shape == (2, 4 + 4)
    assert reports.dtype == np.int8
    assert reports[0, 1] == 1 and reports[0, 4 + 3] == 1
    assert reports[1, 0] == 1 and reports[1, 4 + 1] == 1
    np.testing.assert_array_equal(reports[:, 2:4].sum(axis=1), [1, 1])


def test_transform_needs_fit():
    from sklearn.exceptions import NotFittedError

    for call in ("transform", "get_feature_names_out", "privacy_summary"):
        model = SubsetUniform(categories=[CATS])
        with pytest.raises(NotFittedError):
            getattr(model, call)(*([[["a"]]] if call == "transform" else []))


def _report_frequencies(model, x, n):
    """Observed frequency of each (subset, dummy) report of ``n`` copies of ``x``."""
    reports = model.transform(np.full((n, 1), x, dtype=object))
    keys, counts = np.unique(reports, axis=0, return_counts=True)
    return {tuple(k.tolist()): c / n for k, c in zip(keys, counts, strict=True)}


@pytest.mark.parametrize("alpha", [0.1, 0.3])
def test_dummy_respondents_follow_the_appendix_b_law(alpha):
    # p = 2 with dummies: the shown subset is {a} or {b} with probability 1/2.
    # A real respondent "a" reports {a} plus a fair dummy coin; with
    # probability alpha each it is replaced by dummy respondent 1 or 2, who
    # reports the shown subset itself with its own dummy.
    n = 40_000
    model = SubsetUniform(categories=[["a", "b"]], min_coverage=alpha, random_state=5)
    freq = _report_frequencies(model.fit([["a"]]), "a", n)
    law = {
        (1, 0, 1, 0): (1 - 2 * alpha) / 2 + alpha / 2,
        (0, 1, 1, 0): alpha / 2,
        (1, 0, 0, 1): (1 - 2 * alpha) / 2 + alpha / 2,
        (0, 1, 0, 1): alpha / 2,
    }
    assert set(freq) <= set(law)
    for key, prob in law.items():
        se = np.sqrt(prob * (1 - prob) / n)
        assert abs(freq.get(key, 0.0) - prob) < 5 * se, key


def test_no_dummies_without_min_coverage_for_four_categories():
    model = SubsetUniform(categories=[CATS], random_state=1).fit([["a"]])
    reports = model.transform(np.full((2000, 1), "c", dtype=object))
    assert reports.shape == (2000, 4)
    assert np.all(reports[:, 2] == 1) and np.all(reports.sum(axis=1) == 2)


def test_feature_names_out_with_and_without_dummies():
    model = SubsetUniform(categories=[["a", "b"], CATS]).fit([["a", "a"]])
    expected = [
        "x0=a",
        "x0=b",
        "x0=<dummy1>",
        "x0=<dummy2>",
        "x1=a",
        "x1=b",
        "x1=c",
        "x1=d",
    ]
    names = model.get_feature_names_out()
    assert names.dtype == object and names.tolist() == expected
    given = model.get_feature_names_out(["u", "v"]).tolist()
    assert given == [n.replace("x0", "u").replace("x1", "v") for n in expected]


def test_feature_names_out_refuses_other_input_features():
    model = SubsetUniform(categories=[["a", "b"], CATS]).fit([["a", "a"]])
    with pytest.raises(
        ValueError, match=re.escape("input_features should have length 2; got 1.")
    ):
        model.get_feature_names_out(["u"])
    frame = pd.DataFrame({"race": ["a"], "sex": ["a"]})
    named = SubsetUniform(categories=[["a", "b"], CATS]).fit(frame)
    assert named.get_feature_names_out(["race", "sex"])[0] == "race=a"
    with pytest.raises(
        ValueError, match="^input_features is not equal to feature_names_in_$"
    ):
        named.get_feature_names_out(["race", "age"])


def test_privacy_summary_entries():
    frame = pd.DataFrame({"race": ["a"], "sex": ["a"]})
    model = SubsetUniform(categories=[CATS, ["a", "b", "c"]]).fit(frame)
    summary = model.privacy_summary()
    assert summary == {
        "notion": "subset privacy",
        "columns": [
            {
                "feature": "race",
                "n_categories": 4,
                "design": "uniform",
                "min_coverage": None,
                # subsets of two of four: never a category alone
                "alone_probability": 0.0,
            },
            {
                "feature": "sex",
                "n_categories": 3,
                "design": "uniform",
                "min_coverage": 0.05,
                # (1 - 2 alpha) (1/6 + 1/6) + 2 alpha / 6 with alpha 0.05: 19/60
                "alone_probability": pytest.approx(19 / 60, abs=1e-15),
            },
        ],
        "categories_from_data": False,
        "unknown_disclosed": False,
        **model._release_policy(),
    }


def test_privacy_summary_of_one_column_takes_flat_weights():
    from skprivate.subset import subset_leakage

    model = SubsetUniform(categories=[CATS]).fit([["a"]])
    weights = [0.1, 0.2, 0.3, 0.4]
    expected = subset_leakage(model.designs_[0], np.asarray(weights))
    for given in (weights, [weights], np.asarray(weights)):
        leakage = model.privacy_summary(given)["columns"][0]["leakage"]
        assert leakage == expected


def test_estimator_tags():
    tags = SubsetUniform().__sklearn_tags__()
    assert tags.input_tags.categorical is True
    assert tags.input_tags.string is True
    assert tags.input_tags.allow_nan is False
    assert tags.transformer_tags.preserves_dtype == []


@pytest.mark.parametrize(
    ("p", "alpha", "expected"),
    [(2, None, 0.05), (3, None, 0.05), (4, None, None), (5, 0.2, 0.2), (3, 0.1, 0.1)],
)
def test_uniform_design_per_column(p, alpha, expected):
    cats = [f"c{i}" for i in range(p)]
    design = SubsetUniform(categories=[cats], min_coverage=alpha).fit([["c0"]])
    design = design.designs_[0]
    assert design.kind == "uniform" and design.n_categories == p
    assert design.min_coverage == expected
    assert expected is None or type(design.min_coverage) is float


@pytest.mark.parametrize(("p", "expected"), [(2, 0.05), (3, 0.05), (4, None)])
def test_mechanism_without_design_is_the_uniform_one(p, expected):
    cats = [f"c{i}" for i in range(p)]
    design = SubsetMechanism(categories=[cats]).fit([["c0"]]).designs_[0]
    assert design.kind == "uniform" and design.n_categories == p
    assert design.min_coverage == expected


def test_mechanism_design_list_is_checked_per_column():
    four = SubsetDesign.uniform(4)
    with pytest.raises(
        ValueError,
        match=re.escape(
            "design lists 1 designs for 2 columns; give one per column or a "
            "single design."
        ),
    ):
        SubsetMechanism([four], categories=[CATS, CATS]).fit([["a", "a"]])
    with pytest.raises(TypeError, match=re.escape("design[1] must be a SubsetDesign.")):
        SubsetMechanism([four, "uniform"], categories=[CATS, CATS]).fit([["a", "a"]])
    three = SubsetDesign.uniform(3, min_coverage=0.2)
    model = SubsetMechanism([four, three], categories=[CATS, ["a", "b", "c"]])
    model.fit([["a", "a"]])
    assert model.designs_ == [four, three]
    with pytest.raises(
        ValueError,
        match=re.escape(
            "Column 'x1' has 4 categories but its design has n_categories=3."
        ),
    ):
        SubsetMechanism([four, three], categories=[CATS, CATS]).fit([["a", "a"]])
    single = SubsetMechanism(three, categories=[["a", "b", "c"]]).fit([["a"]])
    assert single.designs_ == [three]


def test_fit_of_a_dask_array_names_the_column_by_position():
    da = pytest.importorskip("dask.array")
    X = np.array([["a"], ["b"], ["c"], [None]], dtype=object)
    lazy = da.from_array(X, chunks=(2, 1))
    with pytest.raises(ValueError, match="Column 'x0' has a missing .* row 3;"):
        _fit_quietly(SubsetUniform(), lazy)


def test_transform_checks_the_columns_seen_in_fit():
    frame = pd.DataFrame({"race": ["a", "b"], "sex": ["a", "c"]})
    model = SubsetUniform(categories=[CATS, CATS], random_state=0).fit(frame)
    renamed = frame.rename(columns={"sex": "gender"})
    with pytest.raises(ValueError, match="feature names"):
        model.transform(renamed)
    np.testing.assert_array_equal(model.feature_names_in_, ["race", "sex"])


@pytest.mark.parametrize("alpha", [0.1, 0.25])
def test_unknown_rows_become_dummy_respondents_at_rate_alpha_each(alpha):
    # handle_unknown="ignore": an unknown value reports an all-zero block,
    # unless the row is replaced by a dummy respondent (probability alpha
    # for each of the two), who reports a subset plus its own dummy.
    n = 20_000
    model = SubsetUniform(
        categories=[["a", "b"]],
        min_coverage=alpha,
        handle_unknown="ignore",
        random_state=8,
    ).fit([["a"]])
    reports = model.transform(np.full((n, 1), "zz", dtype=object))
    for observed, prob in [
        (np.mean(reports.sum(axis=1) == 0), 1 - 2 * alpha),
        (np.mean(reports[:, 2] == 1), alpha),
        (np.mean(reports[:, 3] == 1), alpha),
    ]:
        assert abs(observed - prob) < 5 * np.sqrt(prob * (1 - prob) / n)
    dummy = reports.sum(axis=1) > 0
    # a dummy respondent's report is one category and one dummy
    np.testing.assert_array_equal(reports[dummy, :2].sum(axis=1), 1)
    np.testing.assert_array_equal(reports[dummy, 2:].sum(axis=1), 1)


def test_privacy_summary_refuses_weights_for_other_columns():
    one = SubsetUniform(categories=[CATS]).fit([["a"]])
    with pytest.raises(
        ValueError,
        match=re.escape("weights must give one distribution per column (1); got 2."),
    ):
        one.privacy_summary([[0.25, 0.25, 0.25, 0.25], [1.0]])
    two = SubsetUniform(categories=[CATS, CATS]).fit([["a", "b"]])
    with pytest.raises(ValueError, match=re.escape("per column (2); got 3.")):
        two.privacy_summary([np.full(4, 0.25)] * 3)
    assert len(two.privacy_summary([np.full(4, 0.25)] * 2)["columns"]) == 2
