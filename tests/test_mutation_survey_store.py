"""The survey ledger's refusals, checked case by case on an SQLite store.

``SurveyStore.store_batch`` stores one response per token and wave, charges
the ledger what each stored wave cost per question (a token's first charged
wave at the first figure of a question's charge, every later one at the
second), and refuses a wave that would take a token past the lifetime
budget, or a wave the token already answered (or one before a wave it
answered).  Each test states the outcomes, the ledger and the stored rows
exactly.  ``benchmarks/_mutation_specs_survey.py`` lists the mutants of
``skprivate/survey/_store.py`` these tests were checked against.
"""

import pytest

from skprivate.survey._store import SurveyStore, hash_token

#: question -> (epsilon of a token's first charged wave, of each later one)
CHARGES = {"colour": (1.0, 0.25), "hours": (0.5, 0.125), "note": None}
FIRST, LATER = 1.5, 0.375


def _message(wave, total, budget):
    return (
        f"budget: wave {wave} would take the privacy loss released by this "
        f"link to epsilon {total:.6g}, past the survey's lifetime budget "
        f"lifetime_epsilon={budget:g}; nothing was stored."
    )


@pytest.fixture
def store(tmp_path):
    store = SurveyStore(tmp_path / "survey.db")
    store.initialize({"questions": []}, "f" * 64)
    yield store
    store.close()


def _tokens(store, n):
    return store.add_tokens([{"row": i} for i in range(n)])


def test_first_wave_is_charged_the_first_figures(store):
    (token,) = _tokens(store, 1)
    out = store.store_batch(
        [(token, {"colour": 2})], wave=1, charges=CHARGES, budget=FIRST
    )
    assert out == ["stored"]
    h = hash_token(token)
    assert store.ledger_rows() == [
        (h, 1, "colour", 1.0),
        (h, 1, "hours", 0.5),
        (h, 1, "note", None),
    ]
    assert store.wave_rows() == [(h, 1, {"colour": 2}, {"row": 0})]
    assert store.lookup(token)["spent"] == FIRST
    assert store.lookup(token)["last_wave"] == 1


def test_later_waves_are_charged_the_second_figures(store):
    (token,) = _tokens(store, 1)
    h = hash_token(token)
    budget = FIRST + 2 * LATER
    for wave in (1, 2, 3):
        out = store.store_batch(
            [(token, {"w": wave})], wave=wave, charges=CHARGES, budget=budget
        )
        assert out == ["stored"]
    assert [r for r in store.ledger_rows() if r[2] == "colour"] == [
        (h, 1, "colour", 1.0),
        (h, 2, "colour", 0.25),
        (h, 3, "colour", 0.25),
    ]
    assert store.lookup(token)["spent"] == budget
    # a fourth wave would cost LATER more: refused, nothing stored
    (out,) = store.store_batch(
        [(token, {"w": 4})], wave=4, charges=CHARGES, budget=budget
    )
    assert out == _message(4, budget + LATER, budget)
    assert [w for _, w, _, _ in store.wave_rows()] == [1, 2, 3]
    assert len(store.ledger_rows()) == 9
    assert store.lookup(token)["last_wave"] == 3


def test_a_wave_past_the_budget_is_refused_with_its_total(store):
    a, b = _tokens(store, 2)
    # a is charged once; b never was
    assert store.store_batch([(a, {})], wave=1, charges=CHARGES) == ["stored"]
    budget = FIRST + LATER * 0.5
    out = store.store_batch(
        [(a, {"x": 1}), (b, {"x": 2})], wave=2, charges=CHARGES, budget=budget
    )
    # a's second wave costs FIRST + LATER in all; b's first costs FIRST
    assert out == [_message(2, FIRST + LATER, budget), "stored"]
    assert store.wave_rows(2) == [(hash_token(b), 2, {"x": 2}, {"row": 1})]
    assert store.lookup(a) == {
        "anchors": {"row": 0},
        "used": True,
        "last_wave": 1,
        "spent": FIRST,
        "charged": True,
    }


def test_the_budget_holds_to_a_relative_1e_9(store):
    a, b, c = _tokens(store, 3)
    options = {"wave": 1, "charges": {"q": (1.0, 1.0)}}
    # exactly the budget, and a total above it by less than 1e-9 of it,
    # are stored; a total above it by more is refused
    assert store.store_batch([(a, {})], budget=1.0, **options) == ["stored"]
    assert store.store_batch([(b, {})], budget=1.0 - 5e-10, **options) == ["stored"]
    (out,) = store.store_batch([(c, {})], budget=1.0 - 2e-9, **options)
    assert out == _message(1, 1.0, 1.0 - 2e-9)


def test_no_budget_or_no_charges_refuse_nothing(store):
    a, b = _tokens(store, 2)
    big = {"q": (1e6, 1e6)}
    assert store.store_batch([(a, {})], wave=1, charges=big) == ["stored"]
    assert store.ledger_rows() == [(hash_token(a), 1, "q", 1e6)]
    assert store.store_batch([(b, {})], wave=1, budget=0.1) == ["stored"]
    assert store.lookup(b)["charged"] is False
    assert store.lookup(b)["spent"] == 0.0


def test_a_question_without_an_epsilon_costs_nothing(store):
    (token,) = _tokens(store, 1)
    charges = {"q": (0.5, 0.5), "interval": None}
    out = store.store_batch([(token, {})], wave=1, charges=charges, budget=0.5)
    assert out == ["stored"]
    h = hash_token(token)
    assert store.ledger_rows() == [(h, 1, "interval", None), (h, 1, "q", 0.5)]
    assert store.lookup(token)["spent"] == 0.5


def test_a_token_charged_only_nulls_pays_later_figures(store):
    # a ledger row, even a NULL one, makes the next wave a later wave
    (token,) = _tokens(store, 1)
    h = hash_token(token)
    assert store.store_batch([(token, {})], wave=1, charges={"i": None}) == ["stored"]
    assert store.lookup(token)["charged"] is True
    assert store.lookup(token)["spent"] == 0.0
    out = store.store_batch([(token, {})], wave=2, charges=CHARGES, budget=LATER)
    assert out == ["stored"]
    assert store.ledger_rows() == [
        (h, 1, "i", None),
        (h, 2, "colour", 0.25),
        (h, 2, "hours", 0.125),
        (h, 2, "note", None),
    ]


def test_unknown_used_and_earlier_waves(store):
    a, b = _tokens(store, 2)
    unknown = "A" * 43
    out = store.store_batch([(unknown, {}), (a, {"n": 1}), (a, {"n": 2})], wave=2)
    # the same token twice in one batch: the second is refused
    assert out == ["unknown", "stored", "used"]
    assert store.wave_rows() == [(hash_token(a), 2, {"n": 1}, {"row": 0})]
    # wave 2 answered: wave 2 again and wave 1 are refused, wave 3 is not
    assert store.store_batch([(a, {})], wave=2) == ["used"]
    assert store.store_batch([(a, {})], wave=1) == ["used"]
    assert store.store_batch([(a, {}), (b, {})], wave=3) == ["stored", "stored"]
    assert store.counts() == {"issued": 2, "used": 2, "responses": 3}


def test_a_refused_answer_is_not_stored_or_charged(store):
    a, b = _tokens(store, 2)
    seen = []

    def check(answers, anchors):
        seen.append((answers, anchors))
        if answers.get("bad"):
            raise ValueError("colour must be one of the categories")

    out = store.store_batch(
        [(a, {"bad": 1}), (b, {"bad": 0})], check, wave=1, charges=CHARGES
    )
    assert out == ["invalid: colour must be one of the categories", "stored"]
    assert seen == [({"bad": 1}, {"row": 0}), ({"bad": 0}, {"row": 1})]
    assert {r[0] for r in store.ledger_rows()} == {hash_token(b)}
    assert store.lookup(a)["used"] is False
    # refused, the token may still answer the wave
    assert store.store_batch([(a, {})], check, wave=1) == ["stored"]


def test_received_is_the_start_of_the_hour(store, monkeypatch):
    from sqlalchemy import select

    import skprivate.survey._store as module

    (token,) = _tokens(store, 1)
    # 2023-11-14 22:20:34.5 UTC is kept as 22:00:00
    monkeypatch.setattr(module.time, "time", lambda: 1_700_000_434.5)
    assert store.store_batch([(token, {})]) == ["stored"]
    with store.reader.connect() as conn:
        received = conn.execute(select(store.responses.c.received)).scalars().all()
    assert received == [1_699_999_200]


def test_each_token_is_charged_its_own_ledger_total(store):
    a, b, c = _tokens(store, 3)
    assert store.store_batch([(a, {}), (b, {})], wave=1, charges=CHARGES) == [
        "stored",
        "stored",
    ]
    # both at FIRST: a later wave fits the budget for each of them
    budget = FIRST + LATER
    out = store.store_batch(
        [(b, {}), (c, {}), (a, {})], wave=2, charges=CHARGES, budget=budget
    )
    assert out == ["stored", "stored", "stored"]
    assert store.lookup(a)["spent"] == store.lookup(b)["spent"] == budget
    assert store.lookup(c)["spent"] == FIRST


def test_a_wave_already_answered_is_used_before_any_budget_or_check(store):
    (token,) = _tokens(store, 1)
    assert store.store_batch([(token, {})], wave=1, charges=CHARGES) == ["stored"]
    checked = []
    out = store.store_batch(
        [(token, {})],
        lambda answers, anchors: checked.append(answers),
        wave=1,
        charges=CHARGES,
        budget=FIRST,
    )
    assert out == ["used"]
    assert checked == []


def test_a_wave_that_costs_nothing_is_not_refused(store):
    (token,) = _tokens(store, 1)
    assert store.store_batch([(token, {})], wave=1, charges=CHARGES) == ["stored"]
    # the budget is now below what the token spent, but this wave adds nothing
    assert store.store_batch([(token, {})], wave=2, budget=1.0) == ["stored"]
    assert store.store_batch([(token, {})], wave=3, charges={}, budget=1.0) == [
        "stored"
    ]
    assert store.lookup(token)["spent"] == FIRST


def test_the_default_wave_is_the_first(store):
    (token,) = _tokens(store, 1)
    assert store.store_batch([(token, {"a": 1})]) == ["stored"]
    assert store.wave_rows(1) == [(hash_token(token), 1, {"a": 1}, {"row": 0})]
    assert store.lookup(token)["last_wave"] == 1


def test_a_token_claimed_elsewhere_meanwhile_is_used(store):
    # another transaction claims b between the read and the claim (the
    # database lock prevents this on SQLite; a server database may see it
    # without the row locks): only the rows the claim changed are kept
    from sqlalchemy import event

    a, b, c = _tokens(store, 3)
    hb = hash_token(b)

    def claim_b_first(conn, cursor, statement, parameters, context, many):
        if statement.startswith("UPDATE skprivate_tokens"):
            cursor.execute(
                "UPDATE skprivate_tokens SET used = 1 WHERE token_hash = ?", (hb,)
            )

    event.listen(store.writer, "before_cursor_execute", claim_b_first)
    try:
        out = store.store_batch(
            [(a, {"n": 1}), (b, {"n": 2}), ("A" * 43, {}), (c, {"n": 3})],
            wave=1,
            charges={"q": (1.0, 0.5)},
        )
    finally:
        event.remove(store.writer, "before_cursor_execute", claim_b_first)
    assert out == ["stored", "used", "unknown", "stored"]
    assert [(h, a_) for h, _, a_, _ in store.wave_rows()] == [
        (hash_token(a), {"n": 1}),
        (hash_token(c), {"n": 3}),
    ]
    assert {r[0] for r in store.ledger_rows()} == {hash_token(a), hash_token(c)}
    assert store.lookup(b)["charged"] is False
