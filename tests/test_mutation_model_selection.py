"""The choice of the most private setting within a tolerance, pinned exactly.

A search over privacy parameters keeps the most private setting whose score
is close enough to the best: a wrong sign of the privacy direction, a wrong
threshold or a wrong tie-break picks a less private release.  Each rule, the
edges of its threshold, the table and the refusals are pinned here.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pandas as pd
import pytest

from skprivate.model_selection import MostPrivateWithin, most_private_setting


def _results(scores, values=(0.5, 1.0, 2.0, 4.0), name="eps", **extra):
    out = {
        "params": [{name: v} for v in values],
        "mean_test_score": np.asarray(scores, dtype=float),
    }
    out.update(extra)
    return out


def test_the_threshold_of_each_rule_on_its_edge():
    # best 0.80 at eps=4; eps=2 scores 0.75
    results = _results(
        [0.10, 0.70, 0.75, 0.80],
        std_test_score=np.array([0.0, 0.0, 0.0, 0.10]),
        split0_test_score=np.zeros(4),
        split1_test_score=np.zeros(4),
        split2_test_score=np.zeros(4),
        split3_test_score=np.zeros(4),
    )

    def pick(tolerance, rule):
        return MostPrivateWithin("eps", tolerance=tolerance, rule=rule)(results)

    # absolute: 0.80 - t
    assert pick(0.05, "absolute") == 2
    assert pick(0.049, "absolute") == 3
    assert pick(0.10, "absolute") == 1
    # relative: 0.80 - t * 0.80
    assert pick(0.0625, "relative") == 2
    assert pick(0.06, "relative") == 3
    assert pick(0.125, "relative") == 1
    # one-se: 0.80 - t * 0.10 / sqrt(4) = 0.80 - 0.05 t
    assert pick(1.0, "one-se") == 2
    assert pick(0.99, "one-se") == 3
    assert pick(2.0, "one-se") == 1


def test_relative_reads_the_size_of_a_negative_best():
    # best -2.0 (a negated error): relative tolerance 0.25 allows -2.5
    results = _results([-9.0, -2.5, -2.6, -2.0])
    assert MostPrivateWithin("eps", tolerance=0.25, rule="relative")(results) == 1
    assert MostPrivateWithin("eps", tolerance=0.24, rule="relative")(results) == 3


def test_one_se_counts_the_splits_of_its_own_score():
    results = _results(
        [0.5, 0.6, 0.7, 0.8],
        mean_test_r2=np.array([0.5, 0.6, 0.7, 0.8]),
        std_test_r2=np.array([0.0, 0.0, 0.0, 0.3]),
        # nine splits of r2; the other score's splits do not count
        **{f"split{i}_test_r2": np.zeros(4) for i in range(9)},
        split0_test_score=np.zeros(4),
        split10_train_r2=np.zeros(4),
        xsplit1_test_r2=np.zeros(4),
    )
    # SE = 0.3 / 3 = 0.1: within 1 SE are 0.7 and 0.8
    pick = MostPrivateWithin(
        "eps", tolerance=1.0, rule="one-se", score_key="mean_test_r2"
    )
    assert pick(results) == 2
    pick.tolerance = 0.99
    assert pick(results) == 3


def test_the_score_within_a_rounding_of_the_threshold_is_eligible():
    # 0.1 + 0.2 - 0.1 is 0.20000000000000004 in floating point
    results = _results([0.1, 0.2, 0.3, 0.1 + 0.2])
    assert MostPrivateWithin("eps", tolerance=0.1)(results) == 1
    # but not beyond 1e-12
    results = _results([0.1, 0.2 - 2e-12, 0.25, 0.3])
    assert MostPrivateWithin("eps", tolerance=0.1)(results) == 2


def test_the_direction_of_privacy():
    results = _results([0.8, 0.8, 0.8, 0.8])
    assert MostPrivateWithin("eps")(results) == 0
    assert MostPrivateWithin("eps", more_private="higher")(results) == 3
    # a callable: larger is more private
    assert MostPrivateWithin(lambda p: p["eps"] ** 2)(results) == 3
    assert MostPrivateWithin(lambda p: -p["eps"], more_private="higher")(results) == 0


def test_equally_private_settings_keep_the_best_score():
    results = {
        "params": [{"eps": 1.0, "a": 0}, {"eps": 1.0, "a": 1}, {"eps": 2.0, "a": 0}],
        "mean_test_score": np.array([0.70, 0.75, 0.76]),
    }
    assert MostPrivateWithin("eps", tolerance=0.1)(results) == 1


def test_the_table():
    results = _results([0.10, np.nan, 0.75, 0.80], values=(0.5, 1, 2.0, 4.0))
    table = MostPrivateWithin("eps", tolerance=0.05).table(results)
    assert list(table.columns) == ["params", "score", "privacy", "eligible", "selected"]
    assert list(table.index) == [0, 1, 2, 3]
    assert table["privacy"].tolist() == [-0.5, -1.0, -2.0, -4.0]
    assert table["eligible"].tolist() == [False, False, True, True]
    assert table["selected"].tolist() == [False, False, True, False]
    assert table["params"].tolist() == results["params"]
    assert math.isnan(table["score"].iloc[1])
    # sorted most private first
    shuffled = _results([0.80, 0.75, 0.10], values=(4.0, 2.0, 0.5))
    table = MostPrivateWithin("eps", tolerance=0.05).table(shuffled)
    assert list(table.index) == [2, 1, 0]


def test_most_private_setting_returns_the_choice_and_the_best():
    results = _results([0.10, 0.70, 0.79, 0.80])
    out = most_private_setting(results, "eps", tolerance=0.02)
    assert out["params"] == {"eps": 2.0}
    assert out["score"] == 0.79 and type(out["score"]) is float
    assert out["best_params"] == {"eps": 4.0}
    assert out["best_score"] == 0.80 and type(out["best_score"]) is float
    assert list(out["table"].index) == [0, 1, 2, 3]
    assert out["table"]["selected"].tolist() == [False, False, True, False]

    class Search:
        cv_results_ = results

    assert most_private_setting(Search(), "eps", tolerance=0.02)["params"] == {
        "eps": 2.0
    }
    out = most_private_setting(
        _results([0.8, 0.7, 0.6, 0.5], values=(1, 2, 3, 4), name="scale"),
        "scale",
        more_private="higher",
        tolerance=0.2,
        rule="relative",
    )
    assert out["params"] == {"scale": 2}
    out = most_private_setting(
        {
            "params": [{"e": 1}, {"e": 2}],
            "mean_test_r2": np.array([0.7, 0.8]),
            "std_test_r2": np.array([0.0, 0.2]),
            "split0_test_r2": np.zeros(2),
            "split1_test_r2": np.zeros(2),
            "split2_test_r2": np.zeros(2),
            "split3_test_r2": np.zeros(2),
        },
        "e",
        tolerance=1.0,
        rule="one-se",
        score_key="mean_test_r2",
    )
    assert out["params"] == {"e": 1}


def _raises(kind, message, selector, results):
    with pytest.raises(kind, match=f"^{re.escape(message)}$"):
        selector.table(results)


def test_the_refusals_of_the_settings():
    results = _results([0.1, 0.2, 0.3, 0.4])
    _raises(
        ValueError,
        "more_private must be 'lower' or 'higher'; got 'up'.",
        MostPrivateWithin("eps", more_private="up"),
        results,
    )
    _raises(
        ValueError,
        "rule must be 'absolute', 'relative' or 'one-se'; got 'se'.",
        MostPrivateWithin("eps", rule="se"),
        results,
    )
    for bad in (-0.1, math.inf, math.nan, True, "0.1"):
        _raises(
            ValueError,
            f"tolerance must be a finite number >= 0; got {bad!r}.",
            MostPrivateWithin("eps", tolerance=bad),
            results,
        )
    MostPrivateWithin("eps", tolerance=0).table(results)
    _raises(
        TypeError,
        "score_key must be a column name of cv_results (str); got int.",
        MostPrivateWithin("eps", score_key=3),
        results,
    )


def test_the_refusals_of_the_results():
    selector = MostPrivateWithin("eps")
    _raises(
        TypeError,
        "search must be a fitted search (GridSearchCV, RandomizedSearchCV) or its "
        "cv_results_ dict; got list.",
        selector,
        [],
    )
    _raises(
        TypeError,
        "search must be a fitted search (GridSearchCV, RandomizedSearchCV) or its "
        "cv_results_ dict; got dict.",
        selector,
        {"mean_test_score": np.zeros(1)},
    )
    _raises(
        ValueError,
        "search has no grid point (its cv_results 'params' is empty); expected a "
        "search fitted over at least one setting.",
        selector,
        {"params": [], "mean_test_score": np.zeros(0)},
    )
    _raises(
        ValueError,
        "cv_results has no score_key 'mean_test_score'; with several scorers use "
        "score_key='mean_test_<scorer>'.",
        selector,
        {"params": [{"eps": 1}], "mean_test_r2": np.zeros(1)},
    )
    _raises(
        ValueError,
        "every grid point has a NaN score in score_key 'mean_test_score'; check "
        "the scorer.",
        selector,
        _results([np.nan] * 4),
    )


def test_the_refusals_of_one_se():
    base = _results([0.1, 0.2, 0.3, 0.4])
    _raises(
        ValueError,
        "rule='one-se' needs a score_key 'mean_<...>' (the mean of the scores "
        "over the splits, as 'mean_test_score'); got 'test_score'.",
        MostPrivateWithin("eps", rule="one-se", score_key="test_score"),
        {**base, "test_score": np.zeros(4)},
    )
    _raises(
        ValueError,
        "rule='one-se' needs a score_key 'mean_<...>' (the mean of the scores "
        "over the splits, as 'mean_test_score'); got 'mean_'.",
        MostPrivateWithin("eps", rule="one-se", score_key="mean_"),
        {**base, "mean_": np.zeros(4)},
    )
    _raises(
        ValueError,
        "rule='one-se' needs the column 'std_test_score' of cv_results (the "
        "standard deviation over the splits of score_key 'mean_test_score'); it "
        "has none.",
        MostPrivateWithin("eps", rule="one-se"),
        base,
    )
    _raises(
        ValueError,
        "rule='one-se' needs the split scores 'split<i>_test_score' of cv_results "
        "(to count the splits of score_key 'mean_test_score'); it has none.",
        MostPrivateWithin("eps", rule="one-se"),
        {**base, "std_test_score": np.zeros(4)},
    )


def test_the_refusals_of_the_privacy_parameter():
    results = _results([0.1, 0.2, 0.3, 0.4])
    for value in (math.nan, math.inf, True, "1", None):
        with pytest.raises(
            ValueError,
            match=f"^{re.escape(f'param returned {value!r} for ')}"
            r"\{'eps': 0\.5\}; a callable param must return a finite number "
            r"\(larger = more private\)\.$",
        ):
            MostPrivateWithin(lambda p, v=value: v).table(results)
    assert MostPrivateWithin(lambda p: np.float32(p["eps"]))(results) == 3
    _raises(
        TypeError,
        "param must be a parameter name (str) or a callable; got int.",
        MostPrivateWithin(3),
        results,
    )
    _raises(
        ValueError,
        "param 'delta' is not a searched parameter; the grid has ['eps'].",
        MostPrivateWithin("delta"),
        results,
    )
    _raises(
        TypeError,
        "param 'eps' is 'big' in the grid point {'eps': 'big'}; expected a number "
        "(the privacy parameter, higher = more private).",
        MostPrivateWithin("eps", more_private="higher"),
        _results([0.1], values=("big",)),
    )
    _raises(
        TypeError,
        "param 'eps' is None in the grid point {'eps': None}; expected a number "
        "(the privacy parameter, lower = more private).",
        MostPrivateWithin("eps"),
        _results([0.1], values=(None,)),
    )
    _raises(
        ValueError,
        "param 'eps' is NaN in the grid point {'eps': nan}; expected a number (the "
        "privacy parameter).",
        MostPrivateWithin("eps"),
        _results([0.1], values=(math.nan,)),
    )


def test_the_table_is_a_frame_of_python_params():
    table = MostPrivateWithin("eps").table(_results([0.1, 0.2, 0.3, 0.4]))
    assert isinstance(table, pd.DataFrame)
    assert table["eligible"].dtype == bool and table["selected"].dtype == bool


def test_the_default_tolerance_keeps_the_best():
    results = _results([0.1, 0.7, 0.79, 0.8])
    assert MostPrivateWithin("eps")(results) == 3
    assert most_private_setting(results, "eps")["params"] == {"eps": 4.0}


def test_a_score_on_the_rounding_edge_is_eligible():
    # threshold 0.5; a score of exactly 0.5 - 1e-12 (as computed) is in
    results = _results([0.5 - 1e-12, 0.2, 0.3, 1.0])
    assert MostPrivateWithin("eps", tolerance=0.5)(results) == 0


def test_scores_given_as_a_list_with_a_missing_one():
    results = {"params": [{"eps": 1}, {"eps": 2}], "mean_test_score": [None, 0.5]}
    assert MostPrivateWithin("eps", tolerance=1.0)(results) == 1


def test_the_returned_table_has_the_columns_of_the_table():
    out = most_private_setting(_results([0.1, 0.7, 0.79, 0.8]), "eps")
    assert list(out["table"].columns) == [
        "params",
        "score",
        "privacy",
        "eligible",
        "selected",
    ]
