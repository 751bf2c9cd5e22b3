"""The noise stream and release policy of ``skprivate/base.py``, exactly.

A seeded privatizer's generator of a call is documented as
``default_rng(SeedSequence([*seed words, *words(settings fingerprint),
*words(data fingerprint), call index]))``; the tests rebuild it from that
rule with a minimal privatizer whose release is the generator's first
uniforms, so every part of the rule (the seed words, the settings text, the
data, the index and when it restarts) is checked by value.  The refusals
are checked by their exact messages.  ``benchmarks/_mutation_specs_base.py``
lists the mutants of ``skprivate/base.py`` these tests kill.
"""

import copy
import hashlib
import pickle
import threading
from typing import ClassVar

import numpy as np
import pandas as pd
import pytest
from sklearn.base import BaseEstimator, clone
from sklearn.exceptions import NotFittedError

from skprivate import LaplaceLDP
from skprivate.base import (
    PrivatizedInputMixin,
    PrivatizerMixin,
    _check_random_state_value,
    _ReleaseCounter,
    _seed_words,
    _settings_fingerprint,
)
from skprivate.utils._seeding import canonical, data_fingerprint, words

X = np.array([[0.25, 0.5], [0.75, 1.0], [0.0, 0.125]])


class _Toy(PrivatizerMixin, BaseEstimator):
    """Releases the first uniforms of its call's generator (shape of ``X``)."""

    _parameter_constraints: ClassVar[dict] = {
        "scale": "no_validation",
        "extra": "no_validation",
        "random_state": "no_validation",
    }
    _PARAMETERS_ADDED_LATER: ClassVar[dict] = {"extra": None}

    def __init__(self, scale=1.0, extra=None, random_state=None):
        self.scale = scale
        self.extra = extra
        self.random_state = random_state

    def _fit(self, X, y=None):
        self._check_params()
        self.n_features_in_ = np.asarray(X).shape[1]
        return self

    def _transform(self, X, offset=0.0):
        X = np.asarray(X, dtype=float)
        return self._next_generator(X).random(X.shape) + offset

    def get_feature_names_out(self, input_features=None):
        return np.array([f"x{j}" for j in range(self.n_features_in_)], dtype=object)


def _settings_text(params):
    return f"{__name__}._Toy{canonical(params)}"


def _fingerprint(params):
    text = _settings_text(params).encode()
    digest = hashlib.sha256(b"skprivate privatizer settings\0" + text).digest()
    return int.from_bytes(digest[:16], "little")


def _expected(seed_words, data, index, params=None):
    """The release of call ``index`` by the documented rule."""
    params = {"scale": 1.0} if params is None else params
    entropy = [
        *seed_words,
        *words(_fingerprint(params)),
        *words(data_fingerprint(np.asarray(data, dtype=float))),
        index,
    ]
    rng = np.random.default_rng(np.random.SeedSequence(entropy))
    return rng.random(np.shape(data))


# --- random_state and its seed words ----------------------------------------


@pytest.mark.parametrize(
    "state",
    [None, 0, 7, np.int64(3), np.random.default_rng(0), np.random.RandomState(0)],
)
def test_accepted_random_states(state):
    assert _check_random_state_value(state) is None


@pytest.mark.parametrize(
    ("state", "kind"), [(True, "bool"), (1.5, "float"), ("0", "str"), ([0], "list")]
)
def test_other_random_states_are_refused_by_kind(state, kind):
    with pytest.raises(ValueError) as info:
        _check_random_state_value(state)
    assert str(info.value) == (
        "random_state must be None, an int, a numpy RandomState or Generator; "
        f"got {kind}."
    )


def test_seed_words_of_an_int_are_its_64_bit_words():
    assert _seed_words(5) == [5]
    assert _seed_words(2**64 - 1) == [2**64 - 1]
    assert _seed_words(2**64 + 3) == [3, 1]
    assert _seed_words(2**64) == [0, 1]
    assert _seed_words(5 * 2**128 + 2**64 + 7) == [7, 1, 5]


def test_seed_words_of_a_generator_are_four_draws_that_advance_it():
    rng, twin = np.random.default_rng(4), np.random.default_rng(4)
    got = _seed_words(rng)
    assert got == [int(v) for v in twin.integers(0, 2**63 - 1, size=4)]
    assert all(type(v) is int for v in got)
    assert rng.random() == twin.random()  # advanced by exactly that draw
    legacy, legacy_twin = np.random.RandomState(4), np.random.RandomState(4)
    got = _seed_words(legacy)
    assert got == [int(v) for v in legacy_twin.randint(0, 2**31 - 1, size=4)]
    assert legacy.random_sample() == legacy_twin.random_sample()


# --- the call counter ---------------------------------------------------------


def test_release_counter_counts_and_copies_carry_only_the_count():
    counter = _ReleaseCounter()
    assert [counter.take() for _ in range(3)] == [0, 1, 2]
    assert counter.count == 3
    assert counter.__getstate__() == 3
    for copied in (pickle.loads(pickle.dumps(counter)), copy.deepcopy(counter)):
        assert type(copied) is _ReleaseCounter
        assert copied.count == 3
        assert copied.take() == 3
    restored = _ReleaseCounter.__new__(_ReleaseCounter)
    restored.__setstate__(np.int64(7))
    assert type(restored.count) is int and restored.count == 7


def test_release_counter_gives_each_thread_its_own_index():
    counter, taken = _ReleaseCounter(), []
    start = threading.Barrier(8)

    def work():
        start.wait()
        mine = [counter.take() for _ in range(2000)]
        taken.extend(mine)

    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(taken) == list(range(16000))


# --- the settings fingerprint ---------------------------------------------------


def test_settings_fingerprint_is_sha256_of_class_and_settings():
    toy = _Toy(scale=2.5, random_state=3)
    assert _settings_fingerprint(toy) == _fingerprint({"scale": 2.5})
    # random_state never enters; a parameter added later enters only when set
    assert _settings_fingerprint(_Toy(scale=2.5, random_state=9)) == _fingerprint(
        {"scale": 2.5}
    )
    assert _settings_fingerprint(_Toy(scale=2.5, extra=4)) == _fingerprint(
        {"extra": 4, "scale": 2.5}
    )


def test_settings_fingerprint_of_an_object_without_parameters_is_its_class():
    class Plain:
        pass

    text = f"{__name__}.{Plain.__qualname__}{{}}".encode()
    digest = hashlib.sha256(b"skprivate privatizer settings\0" + text).digest()
    assert _settings_fingerprint(Plain()) == int.from_bytes(digest[:16], "little")


# --- the generator of a call ------------------------------------------------------


def test_seeded_calls_follow_the_documented_rule():
    toy = _Toy(random_state=11).fit(X)
    first, second = toy.transform(X), toy.transform(X)
    np.testing.assert_array_equal(first, _expected([11], X, 0))
    np.testing.assert_array_equal(second, _expected([11], X, 1))
    # other data, the next index
    np.testing.assert_array_equal(toy.transform(X[:2]), _expected([11], X[:2], 2))


def test_a_generator_seed_gives_four_words_per_call():
    rng = np.random.default_rng(8)
    toy = _Toy(random_state=rng).fit(X)
    twin = np.random.default_rng(8)
    for index in range(2):
        seed = [int(v) for v in twin.integers(0, 2**63 - 1, size=4)]
        np.testing.assert_array_equal(toy.transform(X), _expected(seed, X, index))


def test_unseeded_calls_and_copies_draw_fresh_noise():
    toy = _Toy().fit(X)
    assert not toy._is_seeded()
    releases = [toy.transform(X) for _ in range(2)]
    releases += [pickle.loads(pickle.dumps(toy)).transform(X) for _ in range(2)]
    releases.append(copy.deepcopy(toy).transform(X))
    flat = {r.tobytes() for r in releases}
    assert len(flat) == len(releases)
    # nothing of the seeded rule: index 0 with a seed of 0 is not what is drawn
    assert not np.array_equal(releases[0], _expected([0], X, 0))


def test_a_seed_of_zero_is_seeded():
    toy = _Toy(random_state=0).fit(X)
    assert toy._is_seeded() is True
    np.testing.assert_array_equal(toy.transform(X), _expected([0], X, 0))


def test_a_seeded_release_before_any_fit_starts_its_own_count():
    toy = _Toy(random_state=2)
    assert "_release_counter" not in vars(toy)
    np.testing.assert_array_equal(toy._transform(X), _expected([2], X, 0))
    np.testing.assert_array_equal(toy._transform(X), _expected([2], X, 1))


def test_refit_keeps_counting_and_a_new_seed_restarts():
    toy = _Toy(random_state=5).fit(X)
    toy.transform(X)
    toy.fit(X)  # a refit never replays a release
    np.testing.assert_array_equal(toy.transform(X), _expected([5], X, 1))
    toy.set_params(scale=1.0)  # the same setting: no restart
    np.testing.assert_array_equal(toy.transform(X), _expected([5], X, 2))
    toy.set_params(random_state=5)  # setting the seed restarts the count
    np.testing.assert_array_equal(toy.transform(X), _expected([5], X, 0))
    # a copy carries the count of a seeded privatizer (simulation only)
    twin = pickle.loads(pickle.dumps(toy))
    np.testing.assert_array_equal(twin.transform(X), _expected([5], X, 1))


def test_fit_transform_is_fit_then_the_first_release():
    toy = _Toy(random_state=6)
    np.testing.assert_array_equal(toy.fit_transform(X), _expected([6], X, 0))
    assert toy.n_features_in_ == 2


def test_transform_passes_release_arguments_and_applies_set_output():
    toy = _Toy(random_state=6).fit(X)
    got = toy.transform(X, offset=10.0)
    np.testing.assert_array_equal(got, _expected([6], X, 0) + 10.0)
    frame = pd.DataFrame(X, index=[7, 8, 9])
    out = clone(toy).set_output(transform="pandas").fit(frame).transform(frame)
    assert isinstance(out, pd.DataFrame)
    assert list(out.columns) == ["x0", "x1"] and list(out.index) == [7, 8, 9]
    np.testing.assert_array_equal(out.to_numpy(), _expected([6], X, 0))


# --- settings frozen by fit -----------------------------------------------------


def test_settings_changed_after_fit_are_refused_by_name():
    toy = _Toy(random_state=1).fit(X)
    toy.set_params(scale=2.0, extra=3)
    message = (
        "_Toy settings changed since fit (extra, scale): its fitted state "
        "belongs to the old settings, so it neither releases nor reports until "
        "it is fitted again. Call fit before transform or privacy_summary."
    )
    for call in (
        lambda: toy.transform(X),
        toy._release_policy,
        lambda: toy._next_generator(X),
        toy._check_fitted_settings,
    ):
        with pytest.raises(ValueError) as info:
            call()
        assert str(info.value) == message
    toy.set_params(scale=1.0, extra=None)  # back to the fitted settings
    toy._check_fitted_settings()
    toy.set_params(scale=2.0).fit(X)
    assert toy._fitted_settings == {"scale": canonical(2.0), "extra": "None"}
    toy.transform(X)


def test_an_unfitted_privatizer_has_no_fitted_settings_to_check():
    toy = _Toy()
    toy._check_fitted_settings()
    with pytest.raises(NotFittedError):
        from sklearn.utils.validation import check_is_fitted

        check_is_fitted(toy)


def test_mechanism_settings_are_every_parameter_but_the_seed():
    toy = _Toy(scale=0.5, extra=[1, 2], random_state=4)
    assert toy._mechanism_settings() == {
        "scale": canonical(0.5),
        "extra": canonical([1, 2]),
    }


def test_fit_refuses_a_bad_random_state_by_name():
    with pytest.raises(ValueError, match="^random_state must be None, an int"):
        _Toy(random_state=1.5).fit(X)


@pytest.mark.parametrize(
    ("state", "reproducible", "note"),
    [
        (
            3,
            True,
            "reproducible: for simulation, not for release (the noise is a "
            "function of random_state, the settings and the data)",
        ),
        (None, False, "fresh operating-system entropy on every call"),
    ],
)
def test_release_policy_is_exact(state, reproducible, note):
    policy = _Toy(random_state=state).fit(X)._release_policy()
    assert policy == {"reproducible": reproducible, "random_state_note": note}
    assert type(policy["reproducible"]) is bool


# --- one block with a given seed ------------------------------------------------


def test_a_block_uses_its_seed_once_and_stores_nothing():
    toy = _Toy(random_state=3).fit(X)
    before = dict(vars(toy))
    seed = np.random.SeedSequence(42)
    got = toy._transform_with_seed(X, seed)
    np.testing.assert_array_equal(got, np.random.default_rng(seed).random(X.shape))
    assert vars(toy).keys() == before.keys()
    # one generator per call: a second draw inside the block continues the
    # object's own stream, and so does every call after the block
    pair = toy._transform_with_seed(
        X, seed, release=lambda p, x: (p._transform(x), p._transform(x))
    )
    np.testing.assert_array_equal(pair[0], got)
    np.testing.assert_array_equal(pair[1], _expected([3], X, 0))
    np.testing.assert_array_equal(toy.transform(X), _expected([3], X, 1))


def test_a_block_names_a_refused_row_by_its_row_in_the_whole_data():
    toy = _Toy().fit(X)

    def refuse(p, x):
        raise ValueError("X contains NaN at row 1, column 0.")

    seed = np.random.SeedSequence(1)
    with pytest.raises(ValueError) as info:
        toy._transform_with_seed(X, seed, release=refuse, first_row=100)
    assert str(info.value) == "X contains NaN at row 101, column 0."
    assert info.value.__cause__ is None and info.value.__suppress_context__
    with pytest.raises(ValueError) as info:
        toy._transform_with_seed(X, seed, release=refuse)
    assert str(info.value) == "X contains NaN at row 1, column 0."

    def type_error(p, x):
        raise TypeError("column 0 of row 2 is not a number")

    with pytest.raises(TypeError, match="^column 0 of row 7 is not a number$"):
        toy._transform_with_seed(X, seed, release=type_error, first_row=5)
    # the block's generator is gone after an error too
    seeded = _Toy(random_state=3).fit(X)
    with pytest.raises(ValueError):
        seeded._transform_with_seed(X, seed, release=refuse)
    np.testing.assert_array_equal(seeded.transform(X), _expected([3], X, 0))


# --- learners that privatize their input ----------------------------------------


class _Learner(PrivatizedInputMixin, BaseEstimator):
    def __init__(self, privatizer=None):
        self.privatizer = privatizer


def test_a_learner_privatizes_with_a_fitted_clone_and_keeps_the_release():
    template = _Toy(random_state=4)
    learner = _Learner(privatizer=template)
    got = learner._privatize(X)
    np.testing.assert_array_equal(got, _expected([4], X, 0))
    np.testing.assert_array_equal(learner.released_, got)
    assert learner.privatizer_ is not template
    assert learner.privatizer_.n_features_in_ == 2
    assert not hasattr(template, "n_features_in_")
    # later chunks continue the fitted clone's stream and are appended
    chunk = learner._release_chunk(X[:2])
    np.testing.assert_array_equal(chunk, _expected([4], X[:2], 1))
    np.testing.assert_array_equal(learner.released_, np.vstack([got, chunk]))


def test_a_learner_without_privatizer_takes_released_data_as_is():
    learner = _Learner()
    assert learner._privatize(X) is X
    assert learner.privatizer_ is None and learner.released_ is None


def test_released_chunks_are_appended_to_a_frame_or_started():
    learner = _Learner(privatizer=_Toy(random_state=4).set_output(transform="pandas"))
    first = learner._privatize(pd.DataFrame(X))
    learner._release_chunk(pd.DataFrame(X[:1], index=[5]))
    assert isinstance(learner.released_, pd.DataFrame)
    assert list(learner.released_.index) == [0, 1, 2, 5]
    np.testing.assert_array_equal(learner.released_.to_numpy()[:3], first.to_numpy())
    fresh = _Learner(privatizer=_Toy(random_state=4))
    fresh.privatizer_ = _Toy(random_state=4).fit(X)
    got = fresh._release_chunk(X)
    assert fresh.released_ is got


def test_a_laplace_learner_release_is_the_privatizer_release():
    # the same rule through a real privatizer: the learner's clone releases
    # what a fresh fitted clone releases on its first call
    template = LaplaceLDP(epsilon=1.0, bounds=(0, 1), random_state=9)
    learner = _Learner(privatizer=template)
    got = learner._privatize(X)
    np.testing.assert_array_equal(got, clone(template).fit(X).transform(X))


def test_a_random_state_replaced_after_fit_is_refused_at_release():
    toy = _Toy(random_state=1).fit(X)
    toy.random_state = "1"
    with pytest.raises(ValueError, match="^random_state must be None, an int"):
        toy.transform(X)


class _SeesY(_Toy):
    def _fit(self, X, y=None):
        self.saw_y_ = y is not None
        return super()._fit(X)


def test_fit_transform_passes_y_and_refuses_unknown_fit_arguments():
    toy = _SeesY(random_state=6)
    assert toy.fit_transform(X, [1, 2, 3]).shape == X.shape
    assert toy.saw_y_ is True
    with pytest.raises(TypeError, match="unexpected keyword argument 'weights'"):
        _Toy().fit_transform(X, weights=[1, 2, 3])


class _NoSeed(PrivatizerMixin, BaseEstimator):
    """A privatizer without a random_state parameter."""


def test_a_privatizer_without_random_state_is_not_seeded():
    assert _NoSeed()._is_seeded() is False


def test_a_learner_keeps_no_release_of_a_lazy_collection():
    da = pytest.importorskip("dask.array")
    learner = _Learner(privatizer=LaplaceLDP(bounds=(0, 1), random_state=0))
    lazy = learner._privatize(da.from_array(X, chunks=(2, 2)))
    assert learner.released_ is None
    assert hasattr(lazy, "compute")


def test_a_lazy_release_refuses_other_arguments_by_name():
    da = pytest.importorskip("dask.array")
    toy = _Toy(random_state=1).fit(X)
    with pytest.raises(ValueError) as info:
        toy.transform(da.from_array(X, chunks=(2, 2)), offset=1.0)
    assert str(info.value) == (
        "_Toy.transform of a dask collection takes no other argument; got ['offset']."
    )


def test_nested_estimators_enter_the_fingerprint_as_themselves():
    inner = LaplaceLDP(epsilon=2.0, bounds=(0, 1))
    toy = _Toy(scale=inner, random_state=1)
    assert _settings_fingerprint(toy) == _fingerprint({"scale": inner})


def test_a_privatizer_without_random_state_draws_fresh_entropy():
    first, second = _NoSeed()._next_generator(), _NoSeed()._next_generator()
    assert isinstance(first, np.random.Generator)
    assert first.random() != second.random()


def test_releases_before_fit_are_counted_by_the_fitted_stream():
    toy = _Toy(random_state=2)
    toy._transform(X)
    toy._transform(X)
    assert set(vars(toy)) == {"scale", "extra", "random_state", "_release_counter"}
    toy.fit(X)  # keeps the count: index 2 next
    np.testing.assert_array_equal(toy.transform(X), _expected([2], X, 2))


def test_settings_of_a_privatizer_without_random_state_are_checked():
    plain = _NoSeed()
    plain._check_params()
    assert plain._mechanism_settings() == {}
    assert plain._fitted_settings == {}


def test_nested_estimators_are_one_setting_each():
    inner = LaplaceLDP(epsilon=2.0, bounds=(0, 1))
    assert _Toy(scale=inner)._mechanism_settings() == {
        "scale": canonical(inner),
        "extra": "None",
    }


# --- the largest legacy seed word ---------------------------------------------


def _untempered(value):
    """The MT19937 key word whose tempered 32-bit output is ``value``."""

    def undo_right(y, shift):
        x = y
        for _ in range(32 // shift + 1):
            x = y ^ (x >> shift)
        return x

    def undo_left(y, shift, mask):
        x = y
        for _ in range(32 // shift + 1):
            x = y ^ ((x << shift) & mask)
        return x & 0xFFFFFFFF

    y = undo_right(value, 18)
    y = undo_left(y, 15, 0xEFC60000)
    y = undo_left(y, 7, 0x9D2C5680)
    return undo_right(y, 11)


def _legacy_state_whose_next_output_is(value):
    key = np.random.RandomState(0).get_state()[1].copy()
    key[623] = _untempered(value)
    state = np.random.RandomState()
    state.set_state(("MT19937", key, 623, 0, 0.0))  # the last key word is next
    return state


def test_a_random_state_seed_word_reaches_the_top_of_its_range():
    # legacy seed words are uniform over [0, 2**31 - 1): a RandomState whose
    # next output is 2**31 - 2 gives that largest word first
    words = _legacy_state_whose_next_output_is(2**31 - 2).randint(0, 2**31 - 1, size=4)
    seed = [int(v) for v in words]
    assert seed[0] == 2**31 - 2
    assert _seed_words(_legacy_state_whose_next_output_is(2**31 - 2)) == seed
    toy = _Toy(random_state=_legacy_state_whose_next_output_is(2**31 - 2)).fit(X)
    np.testing.assert_array_equal(toy.transform(X), _expected(seed, X, 0))


def test_pandas_output_warns_when_it_keeps_row_labels():
    import warnings

    import pandas as pd

    from skprivate import LaplaceLDP
    from skprivate.exceptions import PrivacyLeakWarning

    X = pd.DataFrame({"age": [20.0, 30.0, 40.0]})
    lap = LaplaceLDP(epsilon=1, bounds=(0, 100)).set_output(transform="pandas")
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyLeakWarning)
        plain = lap.fit_transform(X)  # a plain range labels nothing
    assert isinstance(plain.index, pd.RangeIndex)
    # a range that does not start at 0 with step 1 is the positions of the
    # rows a filter kept (pandas 3 returns one for evenly spaced rows)
    ranges = [pd.RangeIndex(10, 13), pd.RangeIndex(1, 7, 2), pd.RangeIndex(0, 6, 2)]
    for labels in (["ann", "bob", "cy"], [3, 7, 9], *ranges):
        with pytest.warns(PrivacyLeakWarning) as record:
            out = lap.fit_transform(X.set_axis(labels))
        assert out.index.tolist() == list(labels)  # kept, as scikit-learn does
        kind = type(out.index).__name__
        ranged = isinstance(labels, pd.RangeIndex)
        assert kind == ("RangeIndex" if ranged else "Index")
        assert str(record[0].message) == (
            "LaplaceLDP: the pandas output keeps the index of X (3 row labels, "
            f"{kind}), which is released as it is, not privatized. If the labels "
            "say anything about the respondents (identifiers, a value set as "
            "the index, the rows a filter kept), reset it first: "
            "X.reset_index(drop=True)."
        )


def test_the_laws_read_from_the_data_are_named_before_fit():
    from skprivate import GeneralizedRandomizedResponse, SubsetUniform

    class _Both(PrivatizerMixin, BaseEstimator):
        def __init__(self, bounds=None, categories="auto"):
            self.bounds, self.categories = bounds, categories

    assert _Both()._laws_read_from_data() == ("bounds", "categories")
    assert _Both(bounds=(0, 1))._laws_read_from_data() == ("categories",)
    assert _Both(categories=[["a"]])._laws_read_from_data() == ("bounds",)
    assert LaplaceLDP(epsilon=1.0)._laws_read_from_data() == ("bounds",)
    assert LaplaceLDP(epsilon=1.0, bounds=(0, 1))._laws_read_from_data() == ()
    assert SubsetUniform()._laws_read_from_data() == ("categories",)
    assert SubsetUniform(categories=[["a", "b"]])._laws_read_from_data() == ()
    grr = GeneralizedRandomizedResponse(epsilon=1.0)
    assert grr._laws_read_from_data() == ("categories",)
    assert grr._law_read_from_data() is True
    assert LaplaceLDP(epsilon=1.0, bounds=(0, 1))._law_read_from_data() is False


# -- the settings a privatizer was fitted under before ---------------------------
def test_the_earlier_settings_are_recorded_once_per_distinct_setting():
    toy = _Toy(scale=1.0).fit(X)
    assert toy._released_before() == {}
    assert "_earlier_settings" not in vars(toy)
    assert toy._fitted_shown == {"extra": "None", "scale": "1.0"}
    toy.fit(X)  # the same settings: kept, but nothing differs
    assert [shown for _, shown in toy._earlier_settings] == [
        {"extra": "None", "scale": "1.0"}
    ]
    assert toy._released_before() == {}
    toy.set_params(scale=2.0).fit(X)
    assert toy._released_before() == {"scale": ("1.0", "2.0")}
    toy.set_params(scale=3.0, random_state=4).fit(X)  # random_state is no setting
    assert toy._released_before() == {"scale": ("1.0", "3.0")}
    assert [shown for _, shown in toy._earlier_settings] == [
        {"extra": "None", "scale": "1.0"},
        {"extra": "None", "scale": "2.0"},
    ]
    toy.set_params(scale=1.0).fit(X)
    toy.set_params(scale=2.0).fit(X)  # 1.0 and 2.0 were seen: no new entry
    assert len(toy._earlier_settings) == 3
    assert toy._released_before() == {"scale": ("1.0", "2.0")}
    toy.set_params(extra="x" * 100).fit(X)
    changed = toy._released_before()
    assert list(changed) == ["extra", "scale"]  # by name
    assert changed["extra"] == ("None", repr("x" * 100)[:18] + "..." + "x" * 18 + "'")


def test_a_setting_missing_from_one_side_shows_as_unset():
    toy = _Toy().fit(X)
    toy._earlier_settings = [({"old": "s:a"}, {"old": "'a'"})]
    assert toy._released_before() == {
        "extra": ("(unset)", "None"),
        "old": ("'a'", "(unset)"),
        "scale": ("(unset)", "1.0"),
    }
    # recorded without the shown text: the canonical text stands in
    toy._earlier_settings = [({"scale": "n:2", "extra": "None"}, {})]
    assert toy._released_before() == {"scale": ("n:2", "1.0")}


def test_a_failed_fit_puts_no_settings_on_record():
    # the fit that fails under scale=3 released nothing; the one before did

    class _FailsAtThree(_Toy):
        def _fit(self, X, y=None):
            super()._fit(X, y)
            if self.scale == 3.0:
                raise ValueError("scale 3 refused")
            return self

    toy = _FailsAtThree().fit(X)
    toy.set_params(scale=3.0)
    with pytest.raises(ValueError, match="scale 3 refused"):
        toy.fit(X)
    assert "_fitted_settings" not in vars(toy)
    assert "_fitted_shown" not in vars(toy)
    toy.set_params(scale=1.0).fit(X)
    assert toy._released_before() == {}
    assert [shown["scale"] for _, shown in toy._earlier_settings] == ["1.0"]
    toy.set_params(scale=2.0).fit(X)
    assert toy._released_before() == {"scale": ("1.0", "2.0")}
    fresh = _Toy()
    fresh._remember_fitted_settings()  # nothing fitted: nothing on record
    assert "_earlier_settings" not in vars(fresh)


def test_a_fit_recorded_before_the_shown_text_existed_is_remembered():
    # a privatizer pickled by an earlier version has its fitted settings but
    # not their shown text: the record keeps the canonical text
    toy = _Toy(scale=2.0).fit(X)
    del toy._fitted_shown
    toy.set_params(scale=1.0).fit(X)
    assert toy._earlier_settings == [({"extra": "None", "scale": "n:2"}, {})]
    assert toy._released_before() == {"scale": ("n:2", "1.0")}
