"""``python -m skprivate privatize``: apply a mechanism to columns of a CSV file."""

from __future__ import annotations

import hashlib
import inspect
import sys
import warnings
from dataclasses import dataclass
from typing import Any

import pandas as pd

from .io import (
    CLIError,
    parse_params,
    read_csv,
    same_file,
    select_columns,
    write_csv_atomically,
)


@dataclass(frozen=True)
class MechanismEntry:
    """How the command line builds a mechanism."""

    class_name: str
    summary: str
    example: str


MECHANISMS: dict[str, MechanismEntry] = {
    "interval-case1": MechanismEntry(
        "IntervalCaseI",
        "interval privacy, one random anchor: each value becomes (-inf, U] or (U, inf)",
        "--param distribution=logistic --param scale=5",
    ),
    "interval-case2": MechanismEntry(
        "IntervalCaseII",
        "interval privacy, two random anchors: three cells",
        "--param scale=2",
    ),
    "interval": MechanismEntry(
        "IntervalMechanism",
        "interval privacy, m-1 random anchors, optional exact reports in a range",
        "--param n_anchors=3 --param scale=2",
    ),
    "laplace": MechanismEntry(
        "LaplaceLDP",
        "epsilon-local differential privacy by Laplace noise within declared bounds",
        "--param epsilon=1 --param bounds=(0,100)",
    ),
    "subset": MechanismEntry(
        "SubsetUniform",
        "subset privacy: each category becomes a random subset containing it",
        "",
    ),
    "rvns": MechanismEntry(
        "RVNSPerturber",
        "real-value negative survey: values drawn away from a band around the truth",
        "--param d=2 --param k=1 --param bounds=(0,10)",
    ),
    "generalized-gaussian": MechanismEntry(
        "GeneralizedGaussianLDP",
        "(epsilon, delta)-LDP with generalized Gaussian noise (a comparison baseline)",
        "--param epsilon=2 --param bounds=(0,10)",
    ),
    "flipped-huber": MechanismEntry(
        "FlippedHuberLDP",
        "(epsilon, delta)-LDP with Flipped Huber noise (a comparison baseline)",
        "--param epsilon=2 --param bounds=(0,10)",
    ),
    "square-wave": MechanismEntry(
        "SquareWaveLDP",
        "epsilon-LDP Square Wave reports (estimate with EMS)",
        "--param epsilon=2 --param bounds=(0,10)",
    ),
}


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
) -> int:
    """The ``random_state`` of one run: ``--seed`` mixed with the input.

    The noise must differ between two input files privatized with the same
    ``--seed`` (otherwise the difference of the two outputs would be the
    difference of the raw values).  The seed of the run is therefore a
    128-bit integer taken from a SHA-256 over the seed, a SHA-256 of the
    input file's bytes, the mechanism, the privatized column names and the
    parameters.  The same file, seed and settings reproduce the same output.

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
    settings = repr(
        (int(seed), mechanism, list(columns), sorted(params.items(), key=str))
    )
    digest = hashlib.sha256()
    digest.update(b"skprivate privatize seed\0")
    digest.update(content.digest())
    digest.update(settings.encode())
    return int.from_bytes(digest.digest()[:16], "little")


def privatize(
    path: str,
    out: str,
    mechanism: str,
    columns: str,
    params: list[str] | None = None,
    seed: int | None = None,
    keep: str | None = None,
) -> tuple[pd.DataFrame, dict[str, Any]]:
    """Privatize ``columns`` of the CSV at ``path`` and write ``out``.

    The output holds the columns listed in ``keep`` unchanged (for example a
    respondent id), followed by the privatized columns in the format of the
    mechanism (interval bounds ``<col>_lower``/``<col>_upper``, subset
    indicators ``<col>=<category>``, RVNS samples ``<col>_s<j>``, noisy
    values).  Columns not listed are not written.  Returns the written frame
    and the mechanism's privacy summary.

    A column cannot be both kept and privatized (its raw values would be
    written next to the noisy ones), and ``out`` cannot be the input file.
    With ``seed``, the noise is seeded by :func:`derive_seed`, so two
    different files never get the same noise.
    """
    if same_file(path, out):
        raise CLIError(
            f"-o {out} is the input file; write the output to another path "
            "(the raw file would be replaced)"
        )
    frame = read_csv(path)
    names = select_columns(frame, columns, path)
    kept = select_columns(frame, keep, path) if keep else []
    both = [c for c in kept if c in names]
    if both:
        raise CLIError(
            f"--keep {', '.join(both)} is also in --columns; a privatized column "
            "cannot be kept raw in the output"
        )
    parsed = parse_params(params)
    if seed is not None:
        seed = derive_seed(seed, path, mechanism, names, parsed)
    privatizer = _build(mechanism, parsed, seed)
    privatizer.set_output(transform="pandas")
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = privatizer.fit_transform(frame[names])
    except (ValueError, TypeError) as exc:
        raise CLIError(str(exc).splitlines()[0]) from exc
    for w in caught:
        print(f"warning: {w.message}".splitlines()[0], file=sys.stderr)
    result = pd.DataFrame(result)
    result.index = frame.index
    output = pd.concat([frame[kept], result], axis=1)
    clash = output.columns[output.columns.duplicated()].tolist()
    if clash:
        raise CLIError(
            f"the output would have duplicate column(s) {', '.join(map(str, clash))}; "
            "drop them from --keep"
        )
    write_csv_atomically(output, out)
    summary = privatizer.privacy_summary()
    return output, summary
