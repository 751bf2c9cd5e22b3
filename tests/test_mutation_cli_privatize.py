"""The guarantee code of ``python -m skprivate privatize`` (``_cli/privatize.py``)
pinned exactly: the run's seed (a hash of the input file, the seed and the
settings, as documented), which output column comes from which input, the
blanking of cells derived from missing inputs, the row numbers of relayed
messages, the placement of interval anchors and the refusals of
``privatize`` in the order they are made.
"""

from __future__ import annotations

import hashlib
import json

import numpy as np
import pandas as pd
import pytest

from skprivate._cli import CLIError
from skprivate._cli.privatize import (
    _blank_missing,
    _file_rows,
    _native,
    _source_column,
    apply_bounds,
    derive_seed,
    privatize,
)


def _seed_by_definition(seed, path, mechanism, columns, params, missing="error"):
    with open(path, "rb") as handle:
        content = hashlib.sha256(handle.read()).digest()
    parts = (seed, mechanism, list(columns), sorted(params.items(), key=str))
    if missing != "error":
        parts = (*parts, missing)
    digest = hashlib.sha256(
        b"skprivate privatize seed\0" + content + repr(parts).encode()
    )
    return int.from_bytes(digest.digest()[:16], "little")


def test_derive_seed_is_the_documented_hash(tmp_path):
    path = tmp_path / "a.csv"
    path.write_bytes(b"x,y\n1,2\n3,4\n")
    params = {"epsilon": 1.5, "bounds": (0, 9)}
    got = derive_seed(7, str(path), "laplace", ["x", "y"], params)
    assert got == _seed_by_definition(7, path, "laplace", ["x", "y"], params)
    assert 0 <= got < 2**128
    assert got >= 2**100  # 128 bits, not a few
    for missing in ("drop", "keep"):
        assert derive_seed(
            7, str(path), "laplace", ["x", "y"], params, missing
        ) == _seed_by_definition(7, path, "laplace", ["x", "y"], params, missing)
    # "error" adds nothing: the default
    assert derive_seed(7, str(path), "laplace", ["x", "y"], params, "error") == got


def test_derive_seed_changes_with_each_input(tmp_path):
    path = tmp_path / "a.csv"
    path.write_bytes(b"x\n1\n")
    other = tmp_path / "b.csv"
    other.write_bytes(b"x\n2\n")
    base = derive_seed(0, str(path), "laplace", ["x"], {"epsilon": 1})
    variants = [
        derive_seed(1, str(path), "laplace", ["x"], {"epsilon": 1}),
        derive_seed(0, str(other), "laplace", ["x"], {"epsilon": 1}),
        derive_seed(0, str(path), "rvns", ["x"], {"epsilon": 1}),
        derive_seed(0, str(path), "laplace", ["y"], {"epsilon": 1}),
        derive_seed(0, str(path), "laplace", ["x"], {"epsilon": 2}),
        derive_seed(0, str(path), "laplace", ["x"], {"epsilon": 1}, "drop"),
        derive_seed(0, str(path), "laplace", ["x"], {"epsilon": 1}, "keep"),
    ]
    assert len({base, *variants}) == 8
    # the order of the parameters does not matter, the order of columns does
    a = derive_seed(0, str(path), "laplace", ["x"], {"epsilon": 1, "bounds": (0, 1)})
    b = derive_seed(0, str(path), "laplace", ["x"], {"bounds": (0, 1), "epsilon": 1})
    assert a == b
    assert derive_seed(0, str(path), "laplace", ["x", "y"], {}) != derive_seed(
        0, str(path), "laplace", ["y", "x"], {}
    )


def test_derive_seed_hashes_a_file_larger_than_one_read_block(tmp_path):
    path = tmp_path / "big.csv"
    body = b"x\n" + b"1.25\n" * 300_000  # 1.5 MB: two blocks of 1 MiB
    path.write_bytes(body)
    assert derive_seed(3, str(path), "laplace", ["x"], {}) == _seed_by_definition(
        3, path, "laplace", ["x"], {}
    )
    # a change in the second block changes the seed
    changed = tmp_path / "big2.csv"
    changed.write_bytes(body[:-5] + b"1.26\n")
    assert derive_seed(3, str(changed), "laplace", ["x"], {}) != derive_seed(
        3, str(path), "laplace", ["x"], {}
    )


def test_native_is_one_float_or_a_list():
    assert _native(np.array([2.5, 2.5])) == 2.5
    assert type(_native(np.array([2, 2]))) is float
    assert _native(np.array([1.0, 2.0])) == [1.0, 2.0]
    assert _native(np.array([[3.0]])) == 3.0


@pytest.mark.parametrize(
    ("output", "names", "source"),
    [
        ("age", ["age"], "age"),
        ("age_lower", ["age"], "age"),
        ("age_upper", ["age"], "age"),
        ("age_seed", ["age"], "age"),
        ("age_hash", ["age"], "age"),
        ("age_hadamard", ["age"], "age"),
        ("age=A", ["age"], "age"),
        ("age_s0", ["age"], "age"),
        ("age_s12", ["age"], "age"),
        ("age_s", ["age"], None),
        ("age_sx", ["age"], None),
        ("age_group_lower", ["age", "age_group"], "age_group"),
        ("age_group_lower", ["age_group", "age"], "age_group"),
        ("age_lower", ["age", "age_group"], "age"),
        ("age.x_s1", ["age.x"], "age.x"),
        ("ageax_s1", ["age.x"], None),
        ("income", ["age"], None),
        ("xage", ["age"], None),
        ("age_middle", ["age"], None),
    ],
)
def test_source_column(output, names, source):
    assert _source_column(output, names) == source


def test_blank_missing_blanks_exactly_the_derived_cells():
    result = pd.DataFrame(
        {
            "a_lower": [1.0, 2.0, 3.0],
            "a_upper": [4.0, 5.0, 6.0],
            "b=x": [True, False, True],
            "b=y": [False, True, False],
            "c": np.array([1, 2, 3], dtype=np.int64),
        },
        index=[10, 11, 12],
    )
    missing = pd.DataFrame(
        {"a": [False, True, False], "b": [True, False, False], "c": [False] * 3},
        index=[10, 11, 12],
    )
    out = _blank_missing(result, missing, ["a", "b", "c"])
    assert out["a_lower"].isna().tolist() == [False, True, False]
    assert out["a_upper"].isna().tolist() == [False, True, False]
    assert out["b=x"].dtype == "boolean"
    assert out["b=x"].isna().tolist() == [True, False, False]
    assert out["b=y"].tolist()[1:] == [True, False]
    # a column with nothing missing keeps its dtype and values
    assert out["c"].dtype == np.int64
    assert out["c"].tolist() == [1, 2, 3]
    # the input frame is not changed
    assert result["a_lower"].notna().all()
    assert result["b=x"].dtype == bool


def test_blank_missing_of_integer_columns_uses_nullable_integers():
    result = pd.DataFrame({"c": np.array([5, 6, 7], dtype=np.int64)})
    missing = pd.DataFrame({"c": [False, False, True]})
    out = _blank_missing(result, missing, ["c"])
    assert out["c"].dtype == "Int64"
    assert out["c"].tolist()[:2] == [5, 6]
    assert out["c"].isna().tolist() == [False, False, True]


def test_blank_missing_refuses_an_output_of_unknown_origin():
    result = pd.DataFrame({"zzz": [1.0]})
    missing = pd.DataFrame({"a": [True]})
    with pytest.raises(CLIError) as info:
        _blank_missing(result, missing, ["a"])
    assert str(info.value) == (
        "cannot tell which column output 'zzz' comes from, so --missing keep "
        "cannot blank it; use --missing drop"
    )


def test_file_rows_names_the_file_row_of_the_first_position(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text("x\n1\n2\n3\n4\n")
    frame = pd.DataFrame({"x": [2.0, 4.0]}, index=[1, 3])  # rows 0 and 2 dropped
    got = _file_rows("value at row 1 is bad; row 0 too", frame, str(path))
    assert got == "value at row 4 (line 5 of d.csv) is bad; row 0 too"
    got = _file_rows("row 0 of x", frame, str(path))
    assert got == "row 2 (line 3 of d.csv) of x"
    # a position beyond the frame is left as it is; no row, no change
    assert _file_rows("row 2 is odd", frame, str(path)) == "row 2 is odd"
    assert _file_rows("narrow 1 arrow 0", frame, str(path)) == "narrow 1 arrow 0"


def test_apply_bounds_for_interval_mechanisms_places_the_anchors():
    got = apply_bounds("interval-case1", {}, "17,90", ["age"])
    assert got == {"anchor_loc": 53.5, "anchor_scale": 18.25}
    got = apply_bounds("interval-case1", {"x": 1}, "[(0, 10), (0, 30)]", ["a", "b"])
    assert got == {"x": 1, "anchor_loc": [5.0, 15.0], "anchor_scale": [2.5, 7.5]}
    with pytest.raises(CLIError) as info:
        apply_bounds("interval-case1", {"anchor_scale": 2}, "0,1", ["a"])
    assert str(info.value) == (
        "--bounds places the anchors, and --param anchor_scale sets them too; "
        "give one or the other"
    )
    with pytest.raises(CLIError, match="^--bounds"):
        apply_bounds("interval-case1", {}, "5,1", ["a"])
    with pytest.raises(CLIError) as info:
        apply_bounds("interval-case1", {}, None, ["a", "b"])
    assert str(info.value) == (
        "interval-case1 draws each anchor around anchor_loc with spread "
        "anchor_scale (defaults 0 and 1, for standardized values), so the "
        "anchors must be placed on the range of a, b: pass --bounds LOW,HIGH "
        "(a range declared without looking at the values; the anchors are "
        "centred at its midpoint with a spread of a quarter of its width) or "
        "--param anchor_loc=CENTRE --param anchor_scale=SPREAD"
    )
    # anchors given as parameters need no bounds
    assert apply_bounds("interval-case1", {"anchor_loc": 3}, None, ["a"]) == {
        "anchor_loc": 3
    }


def test_apply_bounds_for_bounded_and_categorical_mechanisms():
    assert apply_bounds("laplace", {"epsilon": 1}, None, ["a"]) == {"epsilon": 1}
    assert apply_bounds("laplace", {}, "0,5", ["a"]) == {"bounds": (0, 5)}
    with pytest.raises(CLIError) as info:
        apply_bounds("laplace", {"bounds": (0, 1)}, "0,5", ["a"])
    assert str(info.value) == (
        "bounds given twice (--bounds and --param bounds=); keep one"
    )
    with pytest.raises(CLIError) as info:
        apply_bounds("subset", {}, "0,5", ["a"])
    assert str(info.value) == (
        "--bounds does not apply to the subset mechanism (categories, not numbers)"
    )


@pytest.fixture
def holes(tmp_path):
    frame = pd.DataFrame(
        {
            "id": np.arange(8),
            "x": [1.0, np.nan, 3.0, 4.0, np.nan, 6.0, 7.0, 8.0],
            "y": [0.5, 1.5, np.nan, 3.5, 4.5, 5.5, 6.5, 7.5],
        }
    )
    path = tmp_path / "h.csv"
    frame.to_csv(path, index=False)
    return frame, path


def _lap(path, out, **kw):
    return privatize(
        str(path),
        str(out),
        "laplace",
        kw.pop("columns", "x,y"),
        params=["epsilon=1"],
        bounds="0,10",
        **kw,
    )


def test_missing_keep_substitutes_an_observed_value_and_blanks_it(holes, tmp_path):
    frame, path = holes
    out, summary = _lap(path, tmp_path / "o.csv", missing="keep", seed=0, keep="id")
    assert summary["missing"] == "keep (3 cells left missing, not privatized)"
    assert out["x"].isna().tolist() == frame["x"].isna().tolist()
    assert out["y"].isna().tolist() == frame["y"].isna().tolist()
    assert out.columns.tolist() == ["id", "x", "y"]
    assert out["id"].tolist() == list(range(8))
    assert not np.isin(out[["x", "y"]].to_numpy(), frame[["x", "y"]].to_numpy()).any()
    assert "kept" in summary


def test_missing_drop_removes_rows_and_keeps_the_file_index(holes, tmp_path, capsys):
    _, path = holes
    out, summary = _lap(path, tmp_path / "o.csv", missing="drop", keep="id")
    assert summary["missing"] == "drop (3 rows dropped)"
    assert out.index.tolist() == [0, 3, 5, 6, 7]
    assert out["id"].tolist() == [0, 3, 5, 6, 7]
    err = capsys.readouterr().err
    assert "dropped 3 of 8 rows with a missing value in x, y (--missing drop)" in err


def test_missing_error_names_the_choices(holes, tmp_path):
    _, path = holes
    with pytest.raises(CLIError) as info:
        _lap(path, tmp_path / "o.csv")
    assert "use --missing drop to remove those rows or --missing keep" in str(
        info.value
    )
    with pytest.raises(CLIError) as info:
        _lap(path, tmp_path / "o.csv", missing="skip")
    assert str(info.value) == "--missing must be one of error, drop, keep; got 'skip'"
    assert not (tmp_path / "o.csv").exists()


def test_every_row_missing_under_drop_is_refused(tmp_path):
    path = tmp_path / "e.csv"
    pd.DataFrame({"x": [np.nan, 1.0], "y": [2.0, np.nan]}).to_csv(path, index=False)
    with pytest.raises(CLIError) as info:
        _lap(path, tmp_path / "o.csv", missing="drop")
    assert str(info.value) == (
        "every row has a missing value in x, y; nothing left to privatize"
    )


def test_a_column_with_no_values_under_keep_is_refused(tmp_path):
    path = tmp_path / "e.csv"
    pd.DataFrame({"x": [1.0, 2.0], "y": [np.nan, np.nan]}).to_csv(path, index=False)
    with pytest.raises(CLIError) as info:
        _lap(path, tmp_path / "o.csv", missing="keep")
    assert str(info.value) == (
        "column 'y' has no values; nothing to privatize (leave it out of --columns)"
    )


def test_the_seeded_run_uses_the_derived_seed(holes, tmp_path):
    from skprivate import LaplaceLDP

    frame, path = holes
    out, _ = _lap(path, tmp_path / "o.csv", missing="drop", seed=5, columns="x")
    seed = _seed_by_definition(
        5, path, "laplace", ["x"], {"epsilon": 1, "bounds": (0, 10)}, "drop"
    )
    rows = frame["x"].notna()
    expected = (
        LaplaceLDP(epsilon=1, bounds=(0, 10), random_state=seed)
        .set_output(transform="pandas")
        .fit_transform(frame.loc[rows, ["x"]])
    )
    np.testing.assert_array_equal(out["x"].to_numpy(), expected["x"].to_numpy())


def test_settings_file_records_the_run(holes, tmp_path):
    _, path = holes
    target = tmp_path / "o.csv"
    _lap(path, target, missing="drop", seed=1, keep="id")
    settings = json.loads((tmp_path / "o.csv.skprivate.json").read_text())
    assert settings["mechanism"] == "laplace"
    assert settings["class"] == "LaplaceLDP"
    assert settings["columns"] == ["x", "y"]
    assert settings["kept"] == ["id"]
    assert settings["output_columns"] == ["id", "x", "y"]
    assert settings["seeded"] is True
    assert settings["missing"] == "drop"
    assert settings["bounds"] == "0,10"
    assert settings["parameters"] == ["epsilon=1", "bounds=(0, 10)"]
    _lap(path, tmp_path / "p.csv", missing="drop")
    settings = json.loads((tmp_path / "p.csv.skprivate.json").read_text())
    assert settings["seeded"] is False
    assert settings["kept"] == []


def test_frequency_needs_declared_categories(tmp_path):
    path = tmp_path / "c.csv"
    pd.DataFrame({"c": ["A", "B"]}).to_csv(path, index=False)
    with pytest.raises(CLIError) as info:
        privatize(str(path), str(tmp_path / "o.csv"), "frequency", "c")
    assert str(info.value).startswith(
        "the frequency mechanism needs its categories declared before the data are seen"
    )


def test_a_privatizer_error_names_the_file_row(tmp_path):
    path = tmp_path / "v.csv"
    pd.DataFrame({"x": [1.0, np.nan, 2.0, 50.0]}).to_csv(path, index=False)
    with pytest.raises(CLIError) as info:
        privatize(
            str(path),
            str(tmp_path / "o.csv"),
            "square-wave",
            "x",
            params=["epsilon=1"],
            bounds="0,10",
            missing="drop",
        )
    msg = str(info.value)
    # the value 50 is the privatizer's row 2, the file's row 4 (line 5)
    assert "row 4 (line 5 of v.csv)" in msg
    assert "50" not in msg
    assert "\n" not in msg
    assert not (tmp_path / "o.csv").exists()


def test_blank_missing_goes_on_past_a_column_with_nothing_missing():
    result = pd.DataFrame(
        {"a": [1.0, 2.0], "b_lower": [3.0, 4.0], "b_upper": [5.0, 6.0]}
    )
    missing = pd.DataFrame({"a": [False, False], "b": [False, True]})
    out = _blank_missing(result, missing, ["a", "b"])
    assert out["a"].tolist() == [1.0, 2.0]
    assert out["b_lower"].isna().tolist() == [False, True]
    assert out["b_upper"].isna().tolist() == [False, True]


def _frame_file(tmp_path, frame, name="d.csv"):
    path = tmp_path / name
    frame.to_csv(path, index=False)
    return path


def test_privatize_messages_name_the_file_and_say_why(tmp_path):
    path = _frame_file(tmp_path, pd.DataFrame({"x": [1.0, 2.0], "y": [3.0, 4.0]}))
    with pytest.raises(CLIError) as info:
        privatize(str(path), str(path), "laplace", "x")
    assert str(info.value) == (
        f"-o {path} is the input file; write the output to another path (the raw "
        "file would be replaced)"
    )
    with pytest.raises(CLIError) as info:
        _lap(path, tmp_path / "o.csv", columns="x,zz")
    assert str(info.value).startswith(f"column(s) zz not in {path}; it has x, y")
    with pytest.raises(CLIError) as info:
        _lap(path, tmp_path / "o.csv", columns="x", keep="qq")
    assert str(info.value).startswith(f"column(s) qq not in {path}; it has x, y")
    with pytest.raises(CLIError) as info:
        _lap(path, tmp_path / "o.csv", columns="x,y", keep="y,x")
    assert str(info.value) == (
        "--keep y, x is also in --columns; a privatized column cannot be kept raw "
        "in the output"
    )
    assert not (tmp_path / "o.csv").exists()


def test_frequency_refusal_in_full(tmp_path):
    path = _frame_file(tmp_path, pd.DataFrame({"c": ["A", "B"]}))
    with pytest.raises(CLIError) as info:
        privatize(str(path), str(tmp_path / "o.csv"), "frequency", "c")
    assert str(info.value) == (
        "the frequency mechanism needs its categories declared before the data "
        "are seen: --param \"categories=[['A', 'B'], ...]\" (one list per column; "
        "categories read from the data would publish every value present, and "
        "estimate could not name the reports' categories)"
    )


def test_infinite_and_missing_values_are_refused_in_full(tmp_path):
    path = _frame_file(tmp_path, pd.DataFrame({"x": [1.0, np.inf, 2.0]}))
    with pytest.raises(CLIError) as info:
        _lap(path, tmp_path / "o.csv", columns="x")
    assert str(info.value) == (
        "column 'x' has an infinite value at row 2 (line 3 of d.csv) (1 in all); "
        "the laplace mechanism needs finite numbers"
    )
    path = _frame_file(tmp_path, pd.DataFrame({"x": [1.0, np.nan, 2.0]}), "m.csv")
    with pytest.raises(CLIError) as info:
        _lap(path, tmp_path / "o.csv", columns="x")
    assert str(info.value) == (
        "column 'x' has 1 missing value(s), the first at row 2 (line 3 of m.csv); "
        "use --missing drop to remove those rows or --missing keep to leave them "
        "missing in the output"
    )


def test_missing_keep_with_a_single_observed_value(tmp_path):
    path = _frame_file(tmp_path, pd.DataFrame({"x": [np.nan, 4.0, np.nan]}))
    out, summary = _lap(path, tmp_path / "o.csv", columns="x", missing="keep", seed=2)
    assert out["x"].isna().tolist() == [True, False, True]
    assert summary["missing"] == "keep (2 cells left missing, not privatized)"


def test_a_privatizers_warning_names_the_file_row(tmp_path, capsys, monkeypatch):
    import warnings

    from skprivate import LaplaceLDP

    path = _frame_file(tmp_path, pd.DataFrame({"x": [1.0, np.nan, 2.0, 3.0]}))
    original = LaplaceLDP.fit_transform

    def noisy(self, X, y=None, **kw):
        warnings.warn("value at row 2 looks odd; see row 0", UserWarning, stacklevel=1)
        return original(self, X, y, **kw)

    monkeypatch.setattr(LaplaceLDP, "fit_transform", noisy)
    _lap(path, tmp_path / "o.csv", columns="x", missing="drop")
    err = capsys.readouterr().err
    # the privatizer's row 2 is the file's row 4 (line 5): row 2 was dropped
    assert "warning: value at row 4 (line 5 of d.csv) looks odd; see row 0" in err


def _interval_keeping(tmp_path, frame, name, keep):
    path = _frame_file(tmp_path, frame, name)
    with pytest.raises(CLIError) as info:
        privatize(
            str(path),
            str(tmp_path / "o.csv"),
            "interval-case1",
            "x",
            keep=keep,
            bounds="0,10",
        )
    return str(info.value)


def test_an_output_column_equal_to_a_kept_column_is_refused(tmp_path):
    frame = pd.DataFrame(
        {"x": [1.0, 2.0, 3.0], "x_lower": [0.0, 0.0, 0.0], "z": [1, 2, 3]}
    )
    assert _interval_keeping(tmp_path, frame, "d.csv", "z,x_lower") == (
        "the output would have duplicate column(s) x_lower; drop them from --keep"
    )
    assert not (tmp_path / "o.csv").exists()
    frame["x_upper"] = 1.0
    assert _interval_keeping(tmp_path, frame, "two.csv", "x_lower,x_upper").startswith(
        "the output would have duplicate column(s) x_lower, x_upper;"
    )


def test_a_settings_file_that_cannot_be_written_removes_the_output(tmp_path):
    path = _frame_file(tmp_path, pd.DataFrame({"x": [1.0, 2.0]}))
    out = tmp_path / "o.csv"
    (tmp_path / "o.csv.skprivate.json").mkdir()  # the settings path is a folder
    with pytest.raises(CLIError) as info:
        _lap(path, out, columns="x")
    assert str(info.value).startswith(f"cannot write the settings file of {out}: ")
    assert not out.exists()


def test_two_kept_columns_are_named_in_the_summary_and_on_stderr(tmp_path, capsys):
    path = _frame_file(
        tmp_path, pd.DataFrame({"id": [1, 2], "w": [5, 6], "x": [1.0, 2.0]})
    )
    out = tmp_path / "o.csv"
    _, summary = _lap(path, out, columns="x", keep="id,w")
    assert summary["kept"] == (
        "id, w copied unchanged (released raw: no privacy guarantee, epsilon = inf "
        "for these columns; the epsilon above covers the privatized columns only)"
    )
    err = capsys.readouterr().err
    assert (
        f"warning: --keep id, w: copied unchanged into {out}; nothing protects "
        "these columns (epsilon = inf for them). Keep only columns that reveal "
        "nothing about a respondent, such as an arbitrary row id.\n"
    ) in err


def _ages(tmp_path):
    path = tmp_path / "ages.csv"
    path.write_text("id,age\n1,23\n2,45\n3,67\n4,\n5,31\n")
    return str(path)


def _privatize_ages(tmp_path, mechanism, **options):
    """``privatize`` of the ages file's ``age`` column, dropping the missing row."""
    return privatize(
        _ages(tmp_path),
        str(tmp_path / "o.csv"),
        mechanism,
        "age",
        missing="drop",
        **options,
    )


def test_bounds_read_from_the_data_are_refused_before_any_release(tmp_path):
    # every numeric mechanism with a bounds parameter; nothing is written
    for mechanism in ("laplace", "flipped-huber", "square-wave", "rvns"):
        with pytest.raises(CLIError) as info:
            _privatize_ages(tmp_path, mechanism)
        assert str(info.value) == (
            f"the {mechanism} mechanism needs its bounds declared before the "
            "data are seen: --bounds LOW,HIGH (bounds read from the data are "
            "the column's raw minimum and maximum, and the release itself "
            "reveals them: its noise scale follows the range, and a grid "
            "sampler's output grid starts at the minimum; no epsilon covers "
            "them)"
        )
        assert not (tmp_path / "o.csv").exists()
    # declared bounds: the privatizer's own refusal, its numbers shown
    with pytest.raises(CLIError) as info:
        _privatize_ages(
            tmp_path,
            "flipped-huber",
            params=["epsilon=1e20"],
            bounds="0,100",
        )
    assert "against a range of 100)" in str(info.value)
    _, summary = _privatize_ages(tmp_path, "laplace", bounds="0,100")
    assert summary["bounds_from_data"] is False and summary["epsilon"] == 1.0


def test_a_column_kept_twice_is_refused_by_the_keep_option(tmp_path):
    with pytest.raises(CLIError) as info:
        _privatize_ages(
            tmp_path,
            "laplace",
            keep="id,id",
            bounds="0,100",
        )
    assert str(info.value).startswith("--keep names column(s) id more than once")


class _Refusing:
    """A privatizer whose fit refuses with a given message."""

    def __init__(self, message):
        self.message = message

    def set_output(self, **kwargs):
        return self

    def get_params(self, deep=True):
        return {}

    def fit_transform(self, X):
        raise ValueError(self.message)


@pytest.mark.parametrize(
    "message, shown",
    [
        ("refused at row 1\narray=[23.0, 45.0]", "refused at row 2 (line 3 of"),
        ("", ""),
    ],
)
def test_only_the_first_line_of_a_refusal_is_shown(
    tmp_path, monkeypatch, message, shown
):
    # the lines after the first may quote the values (scikit-learn's
    # messages do); an empty message stays empty
    import skprivate._cli.privatize as module

    monkeypatch.setattr(module, "_build", lambda *args: _Refusing(message))
    monkeypatch.setattr(module, "reads_bounds_from_data", lambda p: False)
    with pytest.raises(CLIError) as info:
        _privatize_ages(
            tmp_path,
            "laplace",
            bounds="0,100",
        )
    assert str(info.value).startswith(shown)
    assert "array=" not in str(info.value) and "\n" not in str(info.value)


def test_subset_refusal_in_full(tmp_path):
    # the output's column names would list every category present,
    # "rareQ" held by one respondent; the refusal names no value
    path = _frame_file(tmp_path, pd.DataFrame({"c": ["flu", "flu", "rareQ"]}))
    with pytest.raises(CLIError) as info:
        privatize(str(path), str(tmp_path / "o.csv"), "subset", "c")
    assert str(info.value) == (
        "the subset mechanism needs its categories declared before the data "
        "are seen: --param \"categories=[['A', 'B'], ...]\" (one list per column; "
        "categories read from the data would publish every value present, one "
        "held by a single respondent too, in the output's column names)"
    )
    assert not (tmp_path / "o.csv").exists()
    output, _ = privatize(
        str(path),
        str(tmp_path / "o.csv"),
        "subset",
        "c",
        params=["categories=[['flu', 'cold']]", "handle_unknown=ignore"],
    )
    assert list(output.columns)[:2] == ["c=flu", "c=cold"]
