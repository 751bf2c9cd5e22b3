"""``python -m skprivate``: the command line of skprivate."""

from __future__ import annotations

import argparse
import sys
from typing import Any


class _LazyParser(argparse.ArgumentParser):
    """An argument parser that adds a command's arguments when it is used.

    ``fill(parser)`` adds the arguments the first time the parser parses or
    formats its help; ``describe()`` returns the description, built only
    when the help is shown.  ``python -m skprivate --help`` therefore
    imports no command's module, and ``privatize`` does not inspect every
    estimator class for a help text it does not print.
    """

    def __init__(self, *args: Any, fill: Any = None, describe: Any = None, **kw: Any):
        super().__init__(*args, **kw)
        self._fill = fill
        self._describe = describe

    def _filled(self) -> None:
        if self._fill is not None:
            fill, self._fill = self._fill, None
            fill(self)

    def parse_known_args(self, args: Any = None, namespace: Any = None) -> Any:
        self._filled()
        return super().parse_known_args(args, namespace)

    def format_usage(self) -> str:
        self._filled()
        return super().format_usage()

    def format_help(self) -> str:
        self._filled()
        if self._describe is not None:
            describe, self._describe = self._describe, None
            self.description = describe()
        return super().format_help()


def _privatize_description() -> str:
    from ._cli.privatize import mechanisms_help

    return (
        "Apply a privacy mechanism to columns of a CSV file.  Next to\n"
        "OUT.csv it also writes OUT.csv.skprivate.json: the mechanism and its\n"
        "declared parameters (no data), which estimate reads.\n\n" + mechanisms_help()
    )


def _estimate_description() -> str:
    from ._cli.estimate import estimators_help

    return (
        "Estimate a population distribution or statistics from the\n"
        "output of a mechanism.  The settings file privatize wrote next to IN.csv\n"
        "(IN.csv.skprivate.json) supplies the estimator, the columns and the\n"
        "mechanism's parameters; --param overrides them.\n\n" + estimators_help()
    )


def build_parser() -> argparse.ArgumentParser:
    parser = _LazyParser(
        prog="python -m skprivate",
        description="Collect data privately and learn from privatized data.",
    )
    sub = parser.add_subparsers(dest="command", required=True)

    demo = sub.add_parser(
        "demo", help="run every privacy family end to end on the bundled datasets"
    )
    demo.add_argument("--out", metavar="DIR", help="write report.html and figures here")
    demo.add_argument("--seed", type=int, default=0, help="random seed (default 0)")

    sub.add_parser(
        "privatize",
        help="privatize columns of a CSV file",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        describe=_privatize_description,
        fill=_privatize_arguments,
        epilog="example: python -m skprivate privatize --mechanism laplace "
        "--columns age --param epsilon=1 --bounds 17,90 adult.csv -o out.csv",
    )
    sub.add_parser(
        "estimate",
        help="estimate population quantities from privatized columns of a CSV file",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        describe=_estimate_description,
        fill=_estimate_arguments,
        epilog="example: python -m skprivate estimate private.csv  (after "
        "privatize ... -o private.csv)",
    )

    from ._cli.survey import add_parser as add_survey_parser

    add_survey_parser(sub)
    return parser


def _privatize_arguments(priv: argparse.ArgumentParser) -> None:
    from ._cli.privatize import MECHANISMS

    priv.add_argument("input", metavar="IN.csv")
    priv.add_argument("-o", "--output", metavar="OUT.csv", required=True)
    priv.add_argument("--mechanism", required=True, choices=sorted(MECHANISMS))
    priv.add_argument(
        "--bounds",
        metavar="LOW,HIGH",
        help="declared range of the values (public, fixed before looking at "
        "them): the bounds of a bounded mechanism, or where the anchors of an "
        "interval mechanism are placed (centre: the midpoint, spread: a quarter "
        "of the width); required by the numeric mechanisms but for the interval "
        "ones given their anchors (bounds read from the data are refused: the "
        "release would reveal them)",
    )
    priv.add_argument(
        "--delimiter",
        metavar="CHAR",
        help="field separator of IN.csv, e.g. ';' or tab (default ','); the "
        "output is comma-separated",
    )
    priv.add_argument("--columns", required=True, help="comma-separated columns")
    priv.add_argument(
        "--param",
        action="append",
        metavar="KEY=VALUE",
        help="mechanism parameter (repeatable), e.g. epsilon=1 or 'bounds=(0,100)'",
    )
    priv.add_argument(
        "--keep",
        help="comma-separated columns copied unchanged (never a --columns column); "
        "they are released raw, outside the privacy guarantee (epsilon = inf for "
        "them): keep only what reveals nothing about a respondent, e.g. a row id",
    )
    priv.add_argument(
        "--missing",
        choices=("error", "drop", "keep"),
        default="error",
        help="what to do with missing values in the --columns columns: error "
        "(default) refuses and names the column, the count and the first row; "
        "drop removes those rows (the count is printed); keep leaves those cells "
        "empty in the output without privatizing them (no raw value is written, "
        "but the output shows which cells were missing)",
    )
    priv.add_argument(
        "--seed",
        type=int,
        help="random seed: mixed with a SHA-256 of the input file and the "
        "settings, so the same file reproduces and another file gets other noise",
    )


def _estimate_arguments(est: argparse.ArgumentParser) -> None:
    from ._cli.estimate import ESTIMATORS

    est.add_argument("input", metavar="IN.csv")
    est.add_argument(
        "--estimator",
        choices=sorted(ESTIMATORS),
        help="default: the estimator of the mechanism in the settings file",
    )
    est.add_argument(
        "--columns",
        help="comma-separated original column names (e.g. income for "
        "income_lower/income_upper); default: the privatized columns in the "
        "settings file",
    )
    est.add_argument(
        "--delimiter",
        metavar="CHAR",
        help="field separator of IN.csv, e.g. ';' or tab (default ',')",
    )
    est.add_argument(
        "--settings",
        metavar="FILE",
        help="settings file written by privatize (default: IN.csv.skprivate.json "
        "when it exists)",
    )
    est.add_argument("--param", action="append", metavar="KEY=VALUE")
    est.add_argument(
        "--missing",
        choices=("error", "drop"),
        default="error",
        help="missing values in the input columns: error (default) refuses and "
        "names the column, the count and the first row; drop estimates each "
        "column from its complete rows and reports the count",
    )
    est.add_argument(
        "--intervals",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="show a confidence interval (centre, lower, upper, level, method, "
        "covers) next to each estimate (the default); --no-intervals hides them",
    )
    est.add_argument(
        "--level",
        type=float,
        default=0.95,
        metavar="LEVEL",
        help="confidence level of the intervals, in (0, 1) (default 0.95)",
    )
    est.add_argument("-o", "--output", metavar="OUT.csv", help="also write the table")


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "demo":
        from ._cli.demo import run_demo

        run_demo(out=args.out, random_state=args.seed)
        return 0
    if args.command == "survey":
        from ._cli.survey import main_survey

        return main_survey(args)

    from ._cli.io import CLIError

    try:
        if args.command == "privatize":
            from ._cli.privatize import privatize

            output, summary = privatize(
                args.input,
                args.output,
                args.mechanism,
                args.columns,
                params=args.param,
                seed=args.seed,
                keep=args.keep,
                missing=args.missing,
                bounds=args.bounds,
                delimiter=args.delimiter,
            )
            details = ", ".join(f"{k}={v}" for k, v in summary.items())
            print(f"wrote {len(output)} rows to {args.output} ({details})")
        elif args.command == "estimate":
            from ._cli.estimate import estimate

            table = estimate(
                args.input,
                args.estimator,
                args.columns,
                args.param,
                args.output,
                missing=args.missing,
                delimiter=args.delimiter,
                settings=args.settings,
                intervals=args.level if args.intervals else None,
            )
            from ._cli.intervals import interval_legend

            shown = table.drop(columns="covers", errors="ignore")
            print(shown.to_string(index=False))
            for line in interval_legend(table):  # notes go to stderr, as above
                print(line, file=sys.stderr)
    except CLIError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
