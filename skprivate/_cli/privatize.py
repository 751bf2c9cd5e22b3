"""``python -m skprivate privatize``: apply a mechanism to columns of a CSV file."""

from __future__ import annotations

import hashlib
import inspect
import re
import sys
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .io import (
    MISSING_CHOICES,
    CLIError,
    check_finite,
    check_numeric,
    missing_error,
    parse_params,
    read_csv,
    same_file,
    select_columns,
    where,
    write_csv_atomically,
)
from .settings import write_settings


@dataclass(frozen=True)
class MechanismEntry:
    """How the command line builds a mechanism and estimates from its output.

    ``example`` is the part of a ``privatize`` command after ``--columns``
    that sets the mechanism's parameters; ``estimators`` are the
    ``estimate --estimator`` choices that read its output, the default first.
    """

    class_name: str
    summary: str
    example: str
    estimators: tuple[str, ...] = ()


_INTERVAL_ESTIMATORS = ("interval-npmle", "interval-mle")

MECHANISMS: dict[str, MechanismEntry] = {
    "interval-case1": MechanismEntry(
        "IntervalCaseI",
        "interval privacy, one random anchor: each value becomes (-inf, U] or (U, inf)",
        "--bounds 0,100 --param scale=2",
        _INTERVAL_ESTIMATORS,
    ),
    "interval-case2": MechanismEntry(
        "IntervalCaseII",
        "interval privacy, two random anchors: three cells",
        "--bounds 0,100 --param scale=2",
        _INTERVAL_ESTIMATORS,
    ),
    "interval": MechanismEntry(
        "IntervalMechanism",
        "interval privacy, m-1 random anchors, optional exact reports in a range",
        "--bounds 0,100 --param n_anchors=3",
        _INTERVAL_ESTIMATORS,
    ),
    "laplace": MechanismEntry(
        "LaplaceLDP",
        "epsilon-local differential privacy by Laplace noise within declared bounds",
        "--param epsilon=1 --bounds 0,100",
        ("perturbed-kde", "deconvolution-kde"),
    ),
    "subset": MechanismEntry(
        "SubsetUniform",
        "subset privacy: each category becomes a random subset containing it",
        "--param \"categories=[['A', 'B', 'C']]\"",
        ("subset",),
    ),
    "rvns": MechanismEntry(
        "RVNSPerturber",
        "real-value negative survey: values drawn away from a band around the truth",
        "--param d=10 --param k=1 --bounds 0,100",
        ("rvns",),
    ),
    "generalized-gaussian": MechanismEntry(
        "GeneralizedGaussianLDP",
        "(epsilon, delta)-LDP with generalized Gaussian noise (a comparison baseline)",
        "--param epsilon=2 --bounds 0,100",
        ("perturbed-kde",),
    ),
    "flipped-huber": MechanismEntry(
        "FlippedHuberLDP",
        "(epsilon, delta)-LDP with Flipped Huber noise (a comparison baseline)",
        "--param epsilon=2 --bounds 0,100",
        ("perturbed-kde",),
    ),
    "square-wave": MechanismEntry(
        "SquareWaveLDP",
        "epsilon-LDP Square Wave reports",
        "--param epsilon=2 --bounds 0,100",
        ("square-wave",),
    ),
    "frequency": MechanismEntry(
        "FrequencyOracle",
        "pure epsilon-LDP frequency oracle for categories (oracle='auto': k-RR "
        "or OUE by their variance; also sue, olh, blh, hr)",
        "--param epsilon=2 --param \"categories=[['A', 'B', 'C']]\"",
        ("frequency",),
    ),
}

# Mechanisms of categories, not numbers.
CATEGORICAL_MECHANISMS = ("subset", "frequency")

# Mechanisms whose anchors are placed from --bounds.
INTERVAL_MECHANISMS = ("interval-case1", "interval-case2", "interval")
# Parameters the command line sets itself, not shown as --param options.
_HIDDEN_PARAMS = ("random_state",)


def parameters_text(cls: type, hidden: tuple[str, ...] = _HIDDEN_PARAMS) -> str:
    """``name=default, ...`` of the constructor of ``cls``.

    Examples
    --------
    >>> from skprivate import LaplaceLDP
    >>> parameters_text(LaplaceLDP)
    'epsilon=1.0, bounds=None, clip=True, secure=True'
    """
    items = []
    for name, p in inspect.signature(cls).parameters.items():
        if name in hidden or name == "self":
            continue
        if p.default is inspect.Parameter.empty:
            items.append(name)
        elif isinstance(p.default, str):
            items.append(f"{name}={p.default!r}")
        else:
            items.append(f"{name}={p.default}")
    return ", ".join(items)


def mechanisms_help() -> str:
    """The ``mechanisms:`` block of ``privatize --help``."""
    import skprivate

    lines = ["mechanisms (parameters with their defaults; set them with --param):"]
    for name, entry in MECHANISMS.items():
        cls = getattr(skprivate, entry.class_name)
        lines += [
            f"  {name}",
            *help_lines(entry.summary),
            *help_lines(f"{entry.class_name}: {parameters_text(cls)}"),
            *help_lines(f"e.g. --mechanism {name} --columns COL {entry.example}"),
            *help_lines(f"estimate with: {', '.join(entry.estimators)}"),
        ]
    return "\n".join(lines)


def help_lines(text: str) -> list[str]:
    """``text`` wrapped to 79 columns under an entry of a ``--help`` list."""
    import textwrap

    return textwrap.wrap(
        text,
        79,
        initial_indent=" " * 6,
        subsequent_indent=" " * 8,
        break_on_hyphens=False,
    )


def _native(values: np.ndarray) -> float | list[float]:
    """One float when every column has the same value, else a list of floats."""
    out = [float(v) for v in np.ravel(values)]
    return out[0] if len(set(out)) == 1 else out


def apply_bounds(
    mechanism: str, params: dict[str, Any], bounds: str | None, names: list[str]
) -> dict[str, Any]:
    """The mechanism's parameters with ``--bounds`` applied.

    For a mechanism with a ``bounds`` parameter, ``--bounds`` sets it.  For
    the interval mechanisms it places the anchors: ``anchor_loc`` at the
    midpoint and ``anchor_scale`` at a quarter of the width of each column's
    range (the default ``N(0, 1)``-like anchors fit only standardized data;
    with neither ``--bounds`` nor an anchor parameter, they are refused).

    Examples
    --------
    >>> apply_bounds("interval-case1", {}, "17,90", ["age"])
    {'anchor_loc': 53.5, 'anchor_scale': 18.25}
    >>> apply_bounds("laplace", {"epsilon": 1}, "(17, 90)", ["age"])
    {'epsilon': 1, 'bounds': (17, 90)}
    """
    from ..utils import check_bounds

    anchors = [k for k in ("anchor_loc", "anchor_scale") if k in params]
    if bounds is None:
        if mechanism in INTERVAL_MECHANISMS and not anchors:
            raise CLIError(
                f"{mechanism} draws each anchor around anchor_loc with spread "
                "anchor_scale (defaults 0 and 1, for standardized values), so "
                f"the anchors must be placed on the range of {', '.join(names)}: "
                "pass --bounds LOW,HIGH (a range declared without looking at "
                "the values; the anchors are centred at its midpoint with a "
                "spread of a quarter of its width) or --param anchor_loc=CENTRE "
                "--param anchor_scale=SPREAD"
            )
        return params
    value = parse_params([f"bounds={bounds}"])["bounds"]
    if mechanism in CATEGORICAL_MECHANISMS:
        raise CLIError(
            f"--bounds does not apply to the {mechanism} mechanism (categories, "
            "not numbers)"
        )
    if mechanism in INTERVAL_MECHANISMS:
        if anchors:
            raise CLIError(
                f"--bounds places the anchors, and --param {anchors[0]} sets them "
                "too; give one or the other"
            )
        try:
            low, high = check_bounds(value, len(names), name="--bounds")
        except (ValueError, TypeError) as exc:
            raise CLIError(str(exc).splitlines()[0]) from exc
        return {
            **params,
            "anchor_loc": _native((low + high) / 2.0),
            "anchor_scale": _native((high - low) / 4.0),
        }
    if "bounds" in params:
        raise CLIError("bounds given twice (--bounds and --param bounds=); keep one")
    return {**params, "bounds": value}


def _build(name: str, params: dict[str, Any], seed: int | None) -> Any:
    import skprivate

    entry = MECHANISMS.get(name)
    if entry is None:
        raise CLIError(
            f"unknown mechanism {name!r}; choose from {', '.join(MECHANISMS)}"
        )
    cls = getattr(skprivate, entry.class_name, None)
    if cls is None:
        raise CLIError(f"mechanism {name!r} ({entry.class_name}) is not available")
    if seed is not None:
        params = {**params, "random_state": seed}
    accepted = [p for p in inspect.signature(cls).parameters if p != "self"]
    unknown = set(params) - set(accepted)
    if unknown:
        raise CLIError(
            f"{entry.class_name} has no parameter(s) {', '.join(sorted(unknown))}; "
            f"it takes {', '.join(accepted)}"
        )
    try:
        return cls(**params)
    except TypeError as exc:
        raise CLIError(f"{entry.class_name}: {exc} (give it with --param)") from exc


def derive_seed(
    seed: int,
    path: str,
    mechanism: str,
    columns: list[str],
    params: dict[str, Any],
    missing: str = "error",
) -> int:
    """The ``random_state`` of one run: ``--seed`` mixed with the input.

    The noise must differ between two input files privatized with the same
    ``--seed`` (otherwise the difference of the two outputs would be the
    difference of the raw values).  The seed of the run is therefore a
    128-bit integer taken from a SHA-256 over the seed, a SHA-256 of the
    input file's bytes, the mechanism, the privatized column names and the
    parameters, and the ``--missing`` choice when it is not ``error`` (with
    ``drop`` the rows shift, so a ``drop`` and a ``keep`` release of one file
    must not share noise row by row).  The same file, seed and settings
    reproduce the same output.

    Parameters
    ----------
    seed : int
        The ``--seed`` given on the command line.
    path : str
        Input file.
    mechanism : str
        Mechanism name.
    columns : list of str
        Privatized columns, in order.
    params : dict
        Mechanism parameters (``--param``).
    missing : {"error", "drop", "keep"}, default="error"
        The ``--missing`` choice.

    Returns
    -------
    int
        Non-negative integer below ``2**128``.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "a.csv").write_text("x\\n1\\n")
    >>> _ = (d / "b.csv").write_text("x\\n2\\n")
    >>> a = derive_seed(0, str(d / "a.csv"), "laplace", ["x"], {})
    >>> a == derive_seed(0, str(d / "a.csv"), "laplace", ["x"], {})
    True
    >>> a == derive_seed(0, str(d / "b.csv"), "laplace", ["x"], {})
    False
    """
    content = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            content.update(block)
    parts: tuple[Any, ...] = (
        int(seed),
        mechanism,
        list(columns),
        sorted(params.items(), key=str),
    )
    if missing != "error":
        parts = (*parts, missing)
    settings = repr(parts)
    digest = hashlib.sha256()
    digest.update(b"skprivate privatize seed\0")
    digest.update(content.digest())
    digest.update(settings.encode())
    return int.from_bytes(digest.digest()[:16], "little")


_SUFFIXES = ("lower", "upper", "seed", "hash", "hadamard")


def _source_column(output: str, names: list[str]) -> str | None:
    """The privatized input column an output column was derived from.

    Output formats: ``<col>``, ``<col>_lower``/``<col>_upper``,
    ``<col>=<category>``, ``<col>_s<j>``, ``<col>_seed``/``<col>_hash`` and
    ``<col>_hadamard``; the longest matching input name wins
    (``age_group_lower`` comes from ``age_group``, not ``age``).
    """
    best = None
    for name in names:
        derived = (
            output in (name, *(f"{name}_{s}" for s in _SUFFIXES))
            or output.startswith(f"{name}=")
            or re.fullmatch(re.escape(name) + r"_s\d+", output) is not None
        )
        if derived and (best is None or len(name) > len(best)):
            best = name
    return best


def _file_rows(message: str, frame: pd.DataFrame, path: str) -> str:
    """A privatizer's message with its ``row N`` named as a row of the file.

    A privatizer counts the rows it was given from 0; after ``--missing
    drop`` these are not the file's rows.  The first ``row N`` becomes
    ``row R (line L of FILE)``, as in the command line's own messages.
    """

    def replace(match: re.Match) -> str:
        position = int(match.group(1))
        if position >= len(frame.index):
            return match.group(0)
        return where(path, int(frame.index[position]))

    return re.sub(r"\brow (\d+)\b", replace, message, count=1)


def reads_bounds_from_data(privatizer: Any) -> bool:
    """Whether ``privatizer`` takes its bounds from the values (none declared)."""
    params = privatizer.get_params(deep=False)
    return "bounds" in params and params["bounds"] is None


def parsed_categories_auto(params: list[str] | None) -> bool:
    """Whether ``--param`` leaves the categories to be read from the data."""
    return parse_params(params).get("categories", "auto") == "auto"


def _blank_missing(
    result: pd.DataFrame, missing: pd.DataFrame, names: list[str]
) -> pd.DataFrame:
    """Blank the output cells derived from missing input cells (``--missing keep``)."""
    result = result.copy()
    for output in result.columns:
        source = _source_column(str(output), names)
        if source is None:
            raise CLIError(
                f"cannot tell which column output {output!r} comes from, so "
                "--missing keep cannot blank it; use --missing drop"
            )
        rows = missing[source].to_numpy()
        if not rows.any():
            continue
        column = result[output]
        if pd.api.types.is_bool_dtype(column):
            column = column.astype("boolean")
        elif pd.api.types.is_integer_dtype(column):
            column = column.astype("Int64")
        column = column.copy()
        column[rows] = pd.NA if column.dtype.name in ("boolean", "Int64") else np.nan
        result[output] = column
    return result


def privatize(
    path: str,
    out: str,
    mechanism: str,
    columns: str,
    params: list[str] | None = None,
    seed: int | None = None,
    keep: str | None = None,
    missing: str = "error",
    bounds: str | None = None,
    delimiter: str | None = None,
) -> tuple[pd.DataFrame, dict[str, Any]]:
    """Privatize ``columns`` of the CSV at ``path`` and write ``out``.

    The output holds the columns listed in ``keep`` unchanged (for example a
    respondent id; they are released raw, which the summary's ``kept`` entry
    and a warning on stderr say, as the privatizer's epsilon does not cover
    them), followed by the privatized columns in the format of the
    mechanism (interval bounds ``<col>_lower``/``<col>_upper``, subset
    indicators ``<col>=<category>``, RVNS samples ``<col>_s<j>``, noisy
    values, frequency-oracle reports: a category index ``<col>``, unary
    bits ``<col>=<category>``, ``<col>_seed``/``<col>_hash`` or
    ``<col>_hadamard``).  Columns not listed are not written.  Returns the written frame
    and the mechanism's privacy summary.  A numeric mechanism needs its
    bounds declared (``bounds`` or, for the interval mechanisms, the
    anchors): bounds read from the data are refused, as the release itself
    would reveal them.

    A column cannot be both kept and privatized (its raw values would be
    written next to the noisy ones), and ``out`` cannot be the input file.
    With ``seed``, the noise is seeded by :func:`derive_seed`, so two
    different files never get the same noise.

    Every mechanism except ``subset`` and ``frequency`` needs numbers: a non-numeric or
    infinite cell is refused with its column, row and line.  Missing cells
    in the privatized columns follow ``missing``:

    - ``"error"`` (default): refuse, naming the column, the count and the
      first row;
    - ``"drop"``: remove the rows with a missing value in a privatized
      column (kept columns included); the count goes to stderr and to the
      summary;
    - ``"keep"``: the output cells derived from a missing cell are left
      empty and nothing else about that cell is released.  The mechanism is
      run with an observed value of the same column in its place and that
      output is discarded, so no raw value is released; the release does
      reveal which cells were missing.

    ``bounds`` (``--bounds``, e.g. ``"17,90"``) declares the range of the
    values: the ``bounds`` of a bounded mechanism, or the placement of the
    anchors of an interval mechanism (see :func:`apply_bounds`).  The input
    is read with ``delimiter`` (default ``","``); the output is always
    comma-separated.

    Next to ``out``, the settings file ``<out>.skprivate.json`` (see
    :mod:`skprivate._cli.settings`) records the mechanism and its declared
    parameters, so that ``estimate`` needs no ``--param``.
    """
    if missing not in MISSING_CHOICES:
        raise CLIError(
            f"--missing must be one of {', '.join(MISSING_CHOICES)}; got {missing!r}"
        )
    if same_file(path, out):
        raise CLIError(
            f"-o {out} is the input file; write the output to another path "
            "(the raw file would be replaced)"
        )
    frame = read_csv(path, delimiter)
    names = select_columns(frame, columns, path)
    kept = select_columns(frame, keep, path, "--keep") if keep else []
    both = [c for c in kept if c in names]
    if both:
        raise CLIError(
            f"--keep {', '.join(both)} is also in --columns; a privatized column "
            "cannot be kept raw in the output"
        )
    if mechanism in CATEGORICAL_MECHANISMS and parsed_categories_auto(params):
        consequence = (
            "and estimate could not name the reports' categories"
            if mechanism == "frequency"
            else "one held by a single respondent too, in the output's column names"
        )
        raise CLIError(
            f"the {mechanism} mechanism needs its categories declared before the "
            "data are seen: --param \"categories=[['A', 'B'], ...]\" (one list "
            "per column; categories read from the data would publish every "
            f"value present, {consequence})"
        )
    if mechanism in MECHANISMS and mechanism not in CATEGORICAL_MECHANISMS:
        needed_by = f"the {mechanism} mechanism"
        data = check_numeric(frame, names, path, needed_by)
        check_finite(data, path, needed_by)
    else:
        data = frame[names].copy()
    parsed = apply_bounds(mechanism, parse_params(params), bounds, names)
    if seed is not None:
        seed = derive_seed(seed, path, mechanism, names, parsed, missing)
    privatizer = _build(mechanism, parsed, seed)
    if reads_bounds_from_data(privatizer):
        raise CLIError(
            f"the {mechanism} mechanism needs its bounds declared before the "
            "data are seen: --bounds LOW,HIGH (bounds read from the data are "
            "the column's raw minimum and maximum, and the release itself "
            "reveals them: its noise scale follows the range, and a grid "
            "sampler's output grid starts at the minimum; no epsilon covers "
            "them)"
        )
    privatizer.set_output(transform="pandas")

    is_missing = data.isna()
    notes: dict[str, Any] = {}
    if missing == "error":
        error = missing_error(
            data,
            path,
            "use --missing drop to remove those rows or --missing keep to leave "
            "them missing in the output",
        )
        if error is not None:
            raise error
    elif missing == "drop":
        rows = is_missing.any(axis=1).to_numpy()
        dropped = int(rows.sum())
        if dropped == len(frame):
            raise CLIError(
                f"every row has a missing value in {', '.join(names)}; "
                "nothing left to privatize"
            )
        frame, data, is_missing = frame[~rows], data[~rows], is_missing[~rows]
        print(
            f"dropped {dropped} of {len(rows)} rows with a missing value in "
            f"{', '.join(names)} (--missing drop)",
            file=sys.stderr,
        )
        notes["missing"] = f"drop ({dropped} rows dropped)"
    else:
        empty = [c for c in names if is_missing[c].all()]
        if empty:
            raise CLIError(
                f"column {empty[0]!r} has no values; nothing to privatize "
                "(leave it out of --columns)"
            )
        for name in names:
            rows = is_missing[name].to_numpy()
            if rows.any():
                placeholder = data[name][~rows].iloc[0]
                data[name] = data[name].where(~rows, placeholder)
        cells = int(is_missing.to_numpy().sum())
        notes["missing"] = f"keep ({cells} cells left missing, not privatized)"

    def shown(message: str) -> str:
        # the first line, its row named in the file
        message = message.splitlines()[0] if message else message
        return _file_rows(message, frame, path)

    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            # a fresh index: after --missing drop the frame's row labels have
            # gaps, which the privatizer would warn about; the output gets
            # the frame's labels back below and the file never holds them
            result = privatizer.fit_transform(data.reset_index(drop=True))
    except (ValueError, TypeError) as exc:
        raise CLIError(shown(str(exc))) from exc
    for w in caught:
        print(f"warning: {shown(str(w.message))}", file=sys.stderr)
    result = pd.DataFrame(result)
    result.index = frame.index
    if missing == "keep" and is_missing.to_numpy().any():
        result = _blank_missing(result, is_missing, names)
    output = pd.concat([frame[kept], result], axis=1)
    clash = output.columns[output.columns.duplicated()].tolist()
    if clash:
        raise CLIError(
            f"the output would have duplicate column(s) {', '.join(map(str, clash))}; "
            "drop them from --keep"
        )
    write_csv_atomically(output, out)
    try:
        write_settings(
            out,
            {
                "mechanism": mechanism,
                "class": MECHANISMS[mechanism].class_name,
                "parameters": [f"{k}={v!r}" for k, v in parsed.items()],
                "bounds": bounds,
                "columns": names,
                "kept": kept,
                "output_columns": [str(c) for c in output.columns],
                "seeded": seed is not None,
                "missing": missing,
                "estimator": MECHANISMS[mechanism].estimators[0],
            },
        )
    except OSError as exc:
        Path(out).unlink(missing_ok=True)
        raise CLIError(f"cannot write the settings file of {out}: {exc}") from exc
    if kept:
        # the privatizer's epsilon covers its own columns only: say, in the
        # summary and on stderr, that the kept ones leave unprotected
        notes["kept"] = (
            f"{', '.join(kept)} copied unchanged (released raw: no privacy "
            "guarantee, epsilon = inf for these columns; the epsilon above "
            "covers the privatized columns only)"
        )
        print(
            f"warning: --keep {', '.join(kept)}: copied unchanged into {out}; "
            "nothing protects these columns (epsilon = inf for them). Keep only "
            "columns that reveal nothing about a respondent, such as an "
            "arbitrary row id.",
            file=sys.stderr,
        )
    summary = {**privatizer.privacy_summary(), **notes}
    return output, summary
