"""Exact checks of the frequency oracles' audited laws (``frequency/_laws.py``)."""

from __future__ import annotations

import numpy as np
import pytest

import skprivate
from skprivate._audit import MatrixLaw
from skprivate.frequency import FrequencyOracle
from skprivate.frequency._laws import PairReducedLaw, frequency_exact_law, oracle_law


def _fitted(kind, k, epsilon=1.0):
    cats = [f"c{i}" for i in range(k)]
    X = np.array(cats, dtype=object)[:, None]
    return FrequencyOracle(
        oracle=kind, epsilon=epsilon, categories=[cats], random_state=0
    ).fit(X)


def test_small_tables_are_enumerated_in_full_with_their_labels():
    model = _fitted("krr", 4)
    law = frequency_exact_law(model, 0)
    assert isinstance(law, MatrixLaw)
    worst = law.worst_epsilon()
    assert worst.value == pytest.approx(1.0, abs=1e-9)
    assert set(worst.inputs) <= {"c0", "c1", "c2", "c3"}


def test_the_pair_reduction_names_its_method_and_keeps_the_worst_case():
    model = _fitted("krr", 4)
    oracle, cats = model.oracles_[0], [str(c) for c in model.categories_[0]]
    full = oracle_law(oracle, cats, full=True)
    pair = oracle_law(oracle, cats, full=False)
    assert isinstance(pair, PairReducedLaw) and pair.kind == oracle.kind
    assert pair.law.worst_epsilon().value == pytest.approx(
        full.worst_epsilon().value, rel=1e-12
    )
    worst = pair.worst_epsilon()
    assert worst.value == pytest.approx(full.worst_epsilon().value, rel=1e-12)
    assert worst.method == (
        f"{oracle.kind}: every pair of categories alike; outputs grouped in "
        "classes of equal probability ratio, each enumerated"
    )
    assert set(worst.inputs) <= {"c0", "c1"}
    for eps in (0.0, 0.5, 1.0):
        got, want = pair.worst_delta(eps), full.worst_delta(eps)
        assert got.value == pytest.approx(want.value, rel=1e-12, abs=1e-15)
        assert got.method.startswith(f"{oracle.kind}: every pair of categories")


def test_a_table_too_large_for_the_full_law_is_refused_by_name():
    model = _fitted("oue", 40)
    oracle, cats = model.oracles_[0], [str(c) for c in model.categories_[0]]
    assert oracle.full_table(cats) is None
    with pytest.raises(
        ValueError,
        match=rf"^the {oracle.kind} table for 40 categories is too large to "
        r"enumerate in full\.$",
    ):
        oracle_law(oracle, cats, full=True)
    law = oracle_law(oracle, cats)
    assert isinstance(law, PairReducedLaw)
    report = skprivate.audit(model)
    assert report.loc[0, "method"].startswith(f"{oracle.kind}: every pair")
    assert bool(report.loc[0, "respected"])


def test_each_column_reads_its_own_oracle_and_categories():
    X = np.array([["a", "x"], ["b", "y"], ["c", "z"]], dtype=object)
    model = FrequencyOracle(
        oracle="krr",
        epsilon=2.0,
        categories=[["a", "b", "c"], ["x", "y", "z", "w"]],
        random_state=0,
    ).fit(X)
    first, second = frequency_exact_law(model, 0), frequency_exact_law(model, 1)
    assert set(first.worst_epsilon().inputs) <= {"a", "b", "c"}
    assert set(second.worst_epsilon().inputs) <= {"x", "y", "z", "w"}
    assert first.worst_epsilon().value == pytest.approx(1.0, abs=1e-9)


def test_outputs_are_labelled_in_the_full_and_the_reduced_law():
    cats = ["c0", "c1", "c2"]
    X = np.array(cats, dtype=object)[:, None]
    krr = FrequencyOracle(oracle="krr", epsilon=1.0, categories=[cats], random_state=0)
    oracle = krr.fit(X).oracles_[0]
    full = oracle_law(oracle, cats, full=True).worst_epsilon()
    assert full.inputs == ("c0", "c1") and full.output == "c0"
    pair = oracle_law(oracle, cats, full=False)
    worst = pair.worst_epsilon()
    assert worst.inputs == ("c0", "c1") and worst.output == "the first category"
    assert worst.output == pair.law.worst_epsilon().output
    assert pair.worst_delta(0.5).output == pair.law.worst_delta(0.5).output
    oue = FrequencyOracle(oracle="oue", epsilon=1.0, categories=[cats], random_state=0)
    oracle = oue.fit(X).oracles_[0]
    full = oracle_law(oracle, cats, full=True).worst_epsilon()
    assert full.inputs == ("c0", "c1") and full.output == "{c0}"
    worst = oracle_law(oracle, cats, full=False).worst_epsilon()
    assert set(worst.inputs) == {"c0", "c1"}
    assert worst.output == "first category's bit 0, second's 1 (other bits alike)"
