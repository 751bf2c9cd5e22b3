"""``python -m skprivate estimate``: population estimates from privatized CSV data."""

from __future__ import annotations

import inspect
import sys
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from sklearn.utils.validation import check_is_fitted

from .intervals import add_intervals
from .io import (
    CLIError,
    check_finite,
    check_numeric,
    delimiter_hint,
    header_text,
    missing_error,
    parse_names,
    parse_params,
    read_csv,
    select_columns,
    write_csv_atomically,
)
from .privatize import (
    CATEGORICAL_MECHANISMS,
    MECHANISMS,
    help_lines,
    parameters_text,
)
from .settings import file_sha256, read_settings

QUANTILES = (0.1, 0.25, 0.5, 0.75, 0.9)


@dataclass(frozen=True)
class EstimatorEntry:
    """How the command line finds the input columns and builds an estimator.

    ``required`` are the parameters the estimator needs when no settings
    file describes the release; ``example`` is the part of an ``estimate``
    command after ``--columns`` for that case.
    """

    class_name: str
    summary: str
    columns: Callable[[pd.DataFrame, str], list[str]]
    required: tuple[str, ...] = ()
    example: str = ""


def _interval_columns(frame: pd.DataFrame, name: str) -> list[str]:
    return [f"{name}_lower", f"{name}_upper"]


def _prefixed(suffix_pattern: str) -> Callable[[pd.DataFrame, str], list[str]]:
    def find(frame: pd.DataFrame, name: str) -> list[str]:
        prefix = f"{name}{suffix_pattern}"
        return [c for c in frame.columns if str(c).startswith(prefix)]

    return find


def _same(frame: pd.DataFrame, name: str) -> list[str]:
    return [name]


def _frequency_columns(frame: pd.DataFrame, name: str) -> list[str]:
    # a category index <col>, unary bits <col>=<category>, a hash seed and
    # value <col>_seed/<col>_hash, or a Hadamard index <col>_hadamard
    named = (name, f"{name}_seed", f"{name}_hash", f"{name}_hadamard")
    return [c for c in frame.columns if c in named or str(c).startswith(f"{name}=")]


ESTIMATORS: dict[str, EstimatorEntry] = {
    "interval-npmle": EstimatorEntry(
        "IntervalNPMLE",
        "nonparametric MLE of a distribution from <col>_lower/<col>_upper intervals",
        _interval_columns,
    ),
    "interval-mle": EstimatorEntry(
        "IntervalMLE",
        "normal or logistic MLE from <col>_lower/<col>_upper intervals",
        _interval_columns,
        example="--param family=logistic",
    ),
    "deconvolution-kde": EstimatorEntry(
        "DeconvolutionKernelDensity",
        "density of Laplace-noised values on the bounds of the mechanism",
        _same,
        ("noise_scale", "support"),
        "--param noise_scale=73 --param 'support=(17,90)'",
    ),
    "perturbed-kde": EstimatorEntry(
        "PerturbedKDEEstimator",
        "density behind Laplace, generalized Gaussian or Flipped Huber noise "
        "(maximum likelihood through the noise law in the settings file)",
        _same,
        ("bounds",),
        "--param 'bounds=(0,100)' (without a settings file: a KDE of the noisy "
        "values, method='paper')",
    ),
    "square-wave": EstimatorEntry(
        "SquareWaveEMSEstimator",
        "density from Square Wave reports by EM with smoothing (EMS)",
        _same,
        ("epsilon", "bounds"),
        "--param epsilon=2 --param 'bounds=(0,100)'",
    ),
    "rvns": EstimatorEntry(
        "RVNSDensityEstimator",
        "density from RVNS samples <col>_s0, <col>_s1, ...",
        _prefixed("_s"),
        ("d", "bounds"),
        "--param d=10 --param 'bounds=(0,100)'",
    ),
    "subset": EstimatorEntry(
        "SubsetDistributionEstimator",
        "category distribution from indicators <col>=<category> (uniform design "
        "by default)",
        _prefixed("="),
    ),
    "frequency": EstimatorEntry(
        "FrequencyEstimator",
        "category distribution from frequency-oracle reports (the oracle comes "
        "from the settings file; --param method=norm-sub, base-cut or ibu for "
        "the consistent estimates)",
        _frequency_columns,
        example="--param method=norm-sub",
    ),
    "integral": EstimatorEntry(
        "IntegralPrivateStatistics",
        "integrally private descriptive statistics of raw numeric columns",
        _same,
        example="--param n_resamples=500",
    ),
}

# Estimators that read raw columns: any file, whatever its settings say.
_RAW_ESTIMATORS = ("integral",)


def estimators_help() -> str:
    """The ``estimators:`` block of ``estimate --help``."""
    import skprivate

    reads = {}
    for mechanism, entry in MECHANISMS.items():
        for name in entry.estimators:
            reads.setdefault(name, []).append(mechanism)
    lines = [
        "estimators (parameters with their defaults; set them with --param, which",
        "is needed only without a settings file):",
    ]
    for name, entry in ESTIMATORS.items():
        cls = getattr(skprivate, entry.class_name)
        lines += [
            f"  {name}",
            *help_lines(entry.summary),
            *help_lines(f"{entry.class_name}: {parameters_text(cls, ('privatizer',))}"),
        ]
        if name in reads:
            lines += help_lines(
                f"reads the output of privatize --mechanism {', '.join(reads[name])}"
            )
        if entry.example:
            lines += help_lines(
                f"e.g. --estimator {name} --columns COL {entry.example}"
            )
    return "\n".join(lines)


# -- the release's settings -> the estimator's parameters --------------------
_RELEASED: dict[type, type] = {}


def _released(cls: type) -> type:
    """Subclass of the privatizer class ``cls`` whose ``transform`` is the identity.

    A learner given ``privatizer=`` privatizes what it is fitted on and
    reads the public description of the mechanism (bounds, noise law) from
    the fitted clone.  Given an instance of this subclass, it reads the same
    description and fits on reports that were already released.
    """
    if cls not in _RELEASED:

        def transform(self: Any, X: Any) -> np.ndarray:
            check_is_fitted(self)
            return np.asarray(X, dtype=float)

        _RELEASED[cls] = type(
            f"Released{cls.__name__}",
            (cls,),
            {
                "transform": transform,
                "__module__": __name__,
                "__doc__": f"{cls.__name__} describing values it already released.",
            },
        )
    return _RELEASED[cls]


def _settings_parameters(settings: dict[str, Any]) -> dict[str, Any]:
    """The mechanism's parameters in ``settings``, each one it takes.

    ``read_settings`` has checked that they are ``key=value`` strings.
    """
    import skprivate

    mechanism = settings["mechanism"]
    entry = MECHANISMS[mechanism]
    params = parse_params(settings["parameters"])
    cls = getattr(skprivate, entry.class_name)
    accepted = [p for p in inspect.signature(cls).parameters if p != "self"]
    unknown = [k for k in params if k not in accepted]
    if unknown:
        raise CLIError(
            f"the settings file {settings['path']} sets {', '.join(unknown)} in "
            f"'parameters', which the {mechanism} mechanism ({entry.class_name}) "
            f"does not take; it takes {', '.join(accepted)}"
        )
    return params


def _check_categories(settings: dict[str, Any], params: dict[str, Any]) -> None:
    """Refuse categories in ``settings`` that are not one list per column.

    The frequency mechanism needs them (privatize refuses to read them from
    the data); for the subset mechanism ``"auto"`` (read from the report
    columns) is allowed.
    """
    mechanism = settings["mechanism"]
    names = [str(c) for c in settings["columns"]]
    categories = params.get("categories", "auto")
    expected = (
        f"one non-empty list of categories per column ({len(names)}: "
        f"{', '.join(names)}), such as categories=[['A', 'B', 'C']]"
    )
    if isinstance(categories, str) and categories == "auto":
        if mechanism == "frequency":
            raise CLIError(
                f"the settings file {settings['path']} declares no categories in "
                f"'parameters'; the frequency mechanism needs {expected}"
            )
        return
    if (
        not isinstance(categories, list | tuple)
        or len(categories) != len(names)
        or not all(isinstance(c, list | tuple) and len(c) > 0 for c in categories)
    ):
        shown = repr(categories)
        shown = shown if len(shown) <= 60 else shown[:57] + "..."
        raise CLIError(
            f"the settings file {settings['path']} has invalid categories in "
            f"'parameters': expected {expected}; got {shown}"
        )


def _described_mechanism(settings: dict[str, Any]) -> Any:
    """The mechanism of the settings, fitted on a stand-in for its columns.

    Every parameter of the settings file is checked this way, with an error
    naming the file.  A numeric mechanism is fitted on zeros (only the
    column count, and the names for bounds by column, are read); its bounds
    must have been declared: bounds read from the data are not in the
    settings file (they are a function of the raw values).  A categorical
    one is fitted on its declared categories (a stand-in pair for subset's
    ``"auto"``).
    """
    import skprivate

    mechanism = settings["mechanism"]
    entry = MECHANISMS[mechanism]
    cls = getattr(skprivate, entry.class_name)
    params = _settings_parameters(settings)
    names = [str(c) for c in settings["columns"]]
    if mechanism in CATEGORICAL_MECHANISMS:
        _check_categories(settings, params)
        categories = params.get("categories", "auto")
        if isinstance(categories, str):
            stand_in = pd.DataFrame({c: ["a", "b"] for c in names}, dtype=object)
        else:
            stand_in = pd.DataFrame(
                {
                    c: pd.Series([cats[0]], dtype=object)
                    for c, cats in zip(names, categories)
                }
            )
    else:
        if (
            "bounds" in inspect.signature(cls).parameters
            and params.get("bounds") is None
        ):
            raise CLIError(
                f"the {mechanism} release took its bounds from the raw data (no "
                "--bounds), and its settings file does not record them; give the "
                "mechanism's public description with --param (see estimate --help)"
            )
        stand_in = pd.DataFrame(np.zeros((1, len(names))), columns=names)
    try:
        mech = cls(**params)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            mech.fit(stand_in)
    except (ValueError, TypeError, ArithmeticError) as exc:
        raise CLIError(
            f"the 'parameters' of the settings file {settings['path']} do not "
            f"define the {mechanism} mechanism: {str(exc).splitlines()[0]}"
        ) from exc
    return mech


def settings_params(
    settings: dict[str, Any], estimator_name: str, column: str
) -> dict[str, Any]:
    """Parameters of ``estimator_name`` for ``column`` of the release ``settings``.

    The public description of the mechanism, as the estimator takes it:
    the Laplace scale and the bounds for the deconvolution KDE, the budget
    per column and the bounds for Square Wave EMS, the band half-width
    ``d`` and the bounds for RVNS, the noise law (through a privatizer that
    describes the release without privatizing again) for the perturbed
    KDE, the design for subset reports, the column's oracle for frequency
    reports; nothing for interval reports, which carry their own
    description.  The parameters are checked first (see
    :func:`_described_mechanism`), so that a hand-written settings file
    with a missing or mistyped parameter is refused by name.
    """
    mechanism = settings["mechanism"]
    entry = MECHANISMS[mechanism]
    if estimator_name not in entry.estimators:
        return {}
    names = [str(c) for c in settings["columns"]]
    if column not in names:
        raise CLIError(
            f"column {column!r} was not privatized in this release; its settings "
            f"({settings['path']}) list {', '.join(names)}"
        )
    j = names.index(column)
    q = len(names)
    mech = _described_mechanism(settings)
    params = parse_params(settings["parameters"])
    if estimator_name in ("interval-npmle", "interval-mle"):
        return {}
    budget = mech.get_params()
    if estimator_name == "subset":
        import skprivate

        design = {k: v for k, v in params.items() if k != "categories"}
        categories = params.get("categories", "auto")
        if not isinstance(categories, str):
            design["categories"] = [categories[j]]
        return {"design": getattr(skprivate, entry.class_name)(**design)}
    if estimator_name == "frequency":
        import skprivate

        # the column's oracle: its declared categories and its share of the
        # budget per record (FrequencyOracle splits epsilon over the columns)
        single = {k: v for k, v in params.items() if k != "categories"}
        single["categories"] = [params["categories"][j]]
        single["epsilon"] = float(budget["epsilon"]) / q
        return {"oracle": getattr(skprivate, entry.class_name)(**single)}
    low, high = (float(v[j]) for v in mech.bounds_)
    if estimator_name == "deconvolution-kde":
        return {"noise_scale": float(mech.scale_[j]), "support": (low, high)}
    if estimator_name == "rvns":
        return {
            "d": float(mech.d_[j]),
            "bounds": (low, high),
            "placement": mech.placement,
        }
    if estimator_name == "square-wave":
        return {"epsilon": float(budget["epsilon"]) / q, "bounds": (low, high)}
    # perturbed-kde: the one-column mechanism with column j's share of the
    # budget has column j's noise law.
    single = {**params, "bounds": (low, high), "epsilon": float(budget["epsilon"]) / q}
    if "delta" in budget:
        single["delta"] = float(budget["delta"]) / q
    return {"privatizer": _released(type(mech))(**single)}


def _numeric_summary(estimator: Any) -> pd.DataFrame:
    rows = [("mean", estimator.mean()), ("std", estimator.std())]
    rows += [(f"q{int(q * 100):02d}", float(estimator.quantile(q))) for q in QUANTILES]
    return pd.DataFrame(rows, columns=["statistic", "value"])


def _shown(params: dict[str, Any]) -> str:
    def value(v: Any) -> str:
        if hasattr(v, "get_params"):
            return type(v).__name__
        if isinstance(v, tuple):
            return "(" + ", ".join(f"{x:g}" for x in v) + ")"
        return f"{v:g}" if isinstance(v, float) else repr(v)

    return ", ".join(f"{k}={value(v)}" for k, v in params.items())


def estimate(
    path: str,
    estimator_name: str | None = None,
    columns: str | None = None,
    params: list[str] | None = None,
    out: str | None = None,
    missing: str = "error",
    delimiter: str | None = None,
    settings: str | None = None,
    intervals: float | None = None,
) -> pd.DataFrame:
    """Estimate population quantities from the privatized columns of a CSV file.

    Returns a tidy frame (``column``, ``statistic``, ``value``), also written
    to ``out`` when given.  The input columns must be numeric (a
    non-numeric cell is refused with its column, row and line).  Missing
    cells (for example left by ``privatize --missing keep``) are refused
    with ``missing="error"``, the default; ``missing="drop"`` estimates each
    column from its complete rows, reports the count on stderr and adds a
    ``rows dropped (missing)`` row to the table.

    When ``privatize`` wrote ``path``, its settings file
    (``<path>.skprivate.json``, or ``settings``) describes the mechanism:
    the estimator defaults to the mechanism's, ``columns`` to the privatized
    columns, and the estimator's parameters come from the settings (the
    parameters given in ``params`` take precedence).  The settings used are
    reported on stderr.

    With ``intervals`` (a confidence level such as 0.95) every estimate with
    an interval method gets ``lower``, ``upper``, ``level`` and ``method``
    columns (``conf_int`` of the estimator on the released data).
    """
    if missing not in ("error", "drop"):
        raise CLIError(f"--missing must be error or drop; got {missing!r}")
    if intervals is not None and not 0 < intervals < 1:
        raise CLIError(f"--level takes a level in (0, 1); got {intervals!r}")
    import skprivate

    if estimator_name is not None and estimator_name not in ESTIMATORS:
        raise CLIError(
            f"unknown estimator {estimator_name!r}; choose from {', '.join(ESTIMATORS)}"
        )
    frame = read_csv(path, delimiter)
    release = read_settings(path, settings)
    if release is not None:
        mechanism = release["mechanism"]
        if mechanism not in MECHANISMS:
            raise CLIError(
                f"{release['path']} names the mechanism {mechanism!r}, which this "
                "version of skprivate does not have"
            )
        fitting = MECHANISMS[mechanism].estimators
        if estimator_name is None:
            estimator_name = fitting[0]
        elif estimator_name not in fitting and estimator_name not in _RAW_ESTIMATORS:
            raise CLIError(
                f"{path} was written by privatize --mechanism {mechanism} (see "
                f"{release['path']}); estimate it with --estimator "
                f"{' or '.join(fitting)}"
            )
        if not columns:
            columns = ",".join(map(str, release["columns"]))
        if release.get("output_sha256") not in (None, file_sha256(path)):
            print(
                f"warning: {path} has changed since privatize wrote it; the "
                f"settings in {release['path']} may not describe it",
                file=sys.stderr,
            )
    elif estimator_name is None:
        raise CLIError(
            f"--estimator is required: {path} has no settings file "
            f"{path}.skprivate.json (privatize writes one next to its output)"
        )
    entry = ESTIMATORS[estimator_name]
    names = parse_names(columns, "--columns")
    cls = getattr(skprivate, entry.class_name)
    parsed = parse_params(params)
    accepted = [p for p in inspect.signature(cls).parameters if p != "self"]
    unknown = set(parsed) - set(accepted)
    if unknown:
        raise CLIError(
            f"{entry.class_name} has no parameter(s) {', '.join(sorted(unknown))}; "
            f"it takes {', '.join(accepted)}"
        )
    parts = []
    notes = []
    dropped: dict[str, int] = {}
    for name in names:
        derived = {}
        if release is not None:
            derived = settings_params(release, estimator_name, name)
        combined = {**derived, **parsed}
        if estimator_name == "frequency" and "oracle" not in combined:
            raise CLIError(
                "the frequency estimator reads the oracle (its kind, budget and "
                f"categories) from the settings file that privatize writes next "
                f"to its output; {path} has none (give it with --settings)"
            )
        if estimator_name == "subset" and "design" not in combined:
            # the uniform design named by the report columns (<col>=<category>),
            # which tells the dummy categories from the real ones
            combined["design"] = skprivate.SubsetUniform()
        # a privatizer describing the release carries its bounds
        absent = [
            p
            for p in entry.required
            if p not in combined and not (p == "bounds" and "privatizer" in combined)
        ]
        if absent:
            raise CLIError(
                f"estimator {estimator_name!r} needs --param "
                f"{' --param '.join(absent)} (the public description of the "
                "mechanism; privatize writes it to a settings file next to its "
                "output, which estimate reads)"
            )
        if derived:
            notes.append(f"{name}: {_shown({k: combined[k] for k in derived})}")
        cols = entry.columns(frame, name)
        if not cols or any(c not in frame.columns for c in cols):
            raise CLIError(
                f"estimator {estimator_name!r} expects column(s) "
                f"{', '.join(cols) if cols else name + '...'} in {path}; it has "
                f"{header_text(frame)}{delimiter_hint(frame)}"
            )
        if estimator_name == "integral":
            select_columns(frame, name, path)
        needed_by = f"the {estimator_name} estimator"
        data = check_numeric(frame, cols, path, needed_by)
        if estimator_name == "integral":
            check_finite(data, path, needed_by)
        if missing == "error":
            error = missing_error(
                data, path, "use --missing drop to estimate from the other rows"
            )
            if error is not None:
                raise error
        else:
            rows = data.isna().any(axis=1).to_numpy()
            if rows.all():
                raise CLIError(f"every row has a missing value in {', '.join(cols)}")
            data = data[~rows]
            dropped[name] = int(rows.sum())
            print(
                f"dropped {int(rows.sum())} of {len(rows)} rows with a missing value "
                f"in {', '.join(cols)} (--missing drop)",
                file=sys.stderr,
            )
        values = data if estimator_name == "subset" else data.to_numpy()
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                est = cls(**combined).fit(values)
        except (ValueError, TypeError) as exc:
            raise CLIError(str(exc).splitlines()[0]) from exc
        if estimator_name in ("subset", "frequency"):
            cats = [str(c) for c in est.categories_]
            dist = np.asarray(est.distribution_)[: len(cats)]
            table = pd.DataFrame(
                {"statistic": [f"P({c})" for c in cats], "value": dist}
            )
        elif estimator_name == "integral":
            table = est.results_.loc[:, ["statistic", "value"]]
        else:
            table = _numeric_summary(est)
        if intervals is not None:
            table = add_intervals(table, est, estimator_name, values, intervals)
        if name in dropped:
            extra = pd.DataFrame(
                {"statistic": ["rows dropped (missing)"], "value": [dropped[name]]}
            )
            table = pd.concat([table, extra], ignore_index=True)
        table.insert(0, "column", name)
        parts.append(table)
    result = pd.concat(parts, ignore_index=True)
    if out:
        write_csv_atomically(result, out)
    if release is not None:
        print(
            f"settings from {release['path']} (privatize --mechanism "
            f"{release['mechanism']}): {estimator_name}"
            + (f" with {'; '.join(notes)}" if notes else ""),
            file=sys.stderr,
        )
    return result
