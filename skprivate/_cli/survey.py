"""``python -m skprivate survey``: run a private survey from the command line.

Subcommands::

    serve   SURVEY.pkl --database DB [--workers N] [--operator-token-file PATH]
            [--wave W]                  run the collection server (wave W)
    issue   SURVEY.pkl --database DB -n N   issue N respondent links
    status  SURVEY.pkl --database DB [--level 0.95] [--json]
                                        answers over time, running estimates
    report  SURVEY.pkl                  the privacy report of the questionnaire
    demo    [--database DB]             a five-question demo survey, served

``SURVEY.pkl`` is written by :meth:`skprivate.survey.Questionnaire.save`.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from . import CLIError

DEFAULT_DATABASE = "survey.db"
_PAGE_REMOVED = (
    "'survey page' was removed: its answers had no sound way back to the "
    "collector (every copy of the file showed the same anchors, and its codes "
    "could not be checked, nor counted once per respondent, by read_responses). "
    "Issue one link per respondent with 'survey issue' and collect with "
    "'survey serve'."
)


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Add ``survey`` and its subcommands to the top-level parser."""
    survey = sub.add_parser(
        "survey",
        help="run a private survey: respondents' pages privatize on their device",
        description="Collect privately: each respondent's page privatizes the "
        "answers on the device and sends only the privatized answers to the "
        "collection server (needs the 'survey' extra: pip install "
        "'skprivate[survey]').",
    )
    cmds = survey.add_subparsers(dest="survey_command", required=True)

    def questionnaire_arg(p):
        p.add_argument(
            "questionnaire",
            metavar="SURVEY.pkl",
            help="questionnaire file written by Questionnaire.save",
        )

    def database_arg(p):
        p.add_argument(
            "--database",
            default=DEFAULT_DATABASE,
            help="SQLite file or SQLAlchemy URL (default survey.db)",
        )

    serve = cmds.add_parser("serve", help="run the collection server")
    questionnaire_arg(serve)
    database_arg(serve)
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8000)
    serve.add_argument(
        "--open",
        action="store_true",
        help="give a fresh respondent link to every visitor of / (open survey)",
    )
    serve.add_argument(
        "--max-body",
        type=int,
        default=64 * 1024,
        metavar="BYTES",
        help="largest accepted request body (default 65536)",
    )
    serve.add_argument(
        "--workers",
        type=int,
        default=1,
        metavar="N",
        help="server processes on one database (default 1); more than one "
        "needs PostgreSQL (--database postgresql+psycopg://user@host/dbname)",
    )
    serve.add_argument(
        "--wave",
        type=int,
        default=1,
        metavar="W",
        help="the wave collected (default 1); a survey asked again declares "
        "lifetime_epsilon, and each link answers each wave once, within that "
        "budget",
    )
    serve.add_argument(
        "--operator-token-file",
        metavar="PATH",
        help="serve the operator's view at /status (what 'survey status' "
        "prints) to the holder of the token in PATH, given as the password of "
        "HTTP Basic authentication or as 'Authorization: Bearer TOKEN'; a "
        "missing file is created with a new random token (readable by you "
        "only). The token never appears on the command line or in the output",
    )

    issue = cmds.add_parser("issue", help="issue respondent links")
    questionnaire_arg(issue)
    database_arg(issue)
    issue.add_argument("-n", type=int, required=True, help="number of respondents")
    issue.add_argument(
        "--base-url",
        default="http://127.0.0.1:8000",
        help="address of the server, printed before each token",
    )

    status = cmds.add_parser(
        "status",
        help="answers over time and the running estimate of every question",
        description="Print, from the stored private answers only, the responses "
        "received per hour or per day and the running estimate of every "
        "question with its confidence interval: the category shares of a "
        "subset question, the mean and the median of the others, each from the "
        "estimator of the question's mechanism and its own conf_int (the "
        "methods of 'estimate --level'). A question with fewer than 5 answers "
        "gets no estimate.",
    )
    questionnaire_arg(status)
    database_arg(status)
    status.add_argument(
        "--level",
        type=float,
        default=0.95,
        help="confidence level of the intervals (default 0.95)",
    )
    status.add_argument(
        "--json", action="store_true", help="print JSON instead of tables"
    )

    # removed; kept only to say so (see _PAGE_REMOVED)
    page = cmds.add_parser("page", help="removed: use issue and serve")
    page.add_argument("rest", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)

    report = cmds.add_parser("report", help="print the privacy report")
    questionnaire_arg(report)

    demo = cmds.add_parser(
        "demo", help="serve a five-question demo survey (one per mechanism family)"
    )
    database_arg(demo)
    demo.add_argument("--host", default="127.0.0.1")
    demo.add_argument("--port", type=int, default=8000)
    demo.add_argument(
        "--save", metavar="SURVEY.pkl", help="also write the demo questionnaire"
    )


def demo_questionnaire():
    """A questionnaire with one question of each kind (fitted privatizers)."""
    from ..interval import IntervalCaseII
    from ..ldp import LaplaceLDP, SquareWaveLDP
    from ..negative_survey import RVNSPerturber
    from ..subset import SubsetUniform
    from ..survey import Question, Questionnaire

    races = ["Amer-Indian-Eskimo", "Asian-Pac-Islander", "Black", "Other", "White"]
    return Questionnaire(
        [
            Question(
                "age",
                "How old are you?",
                IntervalCaseII(
                    anchor_loc=40.0, anchor_scale=12.0, support=(0, 120)
                ).fit([[0.0]]),
                unit="years",
            ),
            Question(
                "race",
                "Which of these best describes you?",
                SubsetUniform(categories=[races]).fit([[races[0]]]),
            ),
            Question(
                "hours",
                "How many hours did you work last week?",
                LaplaceLDP(epsilon=2.0, bounds=(0, 100)).fit([[0.0]]),
                unit="hours",
            ),
            Question(
                "education",
                "How many years of education have you completed?",
                SquareWaveLDP(epsilon=2.0, bounds=(1, 16)).fit([[1.0]]),
                unit="years",
            ),
            Question(
                "commute",
                "How many minutes does your trip to work take?",
                RVNSPerturber(d=20.0, k=2, bounds=(0, 120)).fit([[0.0]]),
                unit="minutes",
            ),
        ],
        title="A private survey (demo)",
        intro="Five questions, each made private on your device by one of "
        "skprivate's mechanisms.",
    )


def _load(path: str):
    from ..survey import Questionnaire

    if not Path(path).is_file():
        raise CLIError(f"questionnaire file {path!r} not found.")
    try:
        return Questionnaire.load(path)
    except Exception as exc:
        raise CLIError(f"cannot read questionnaire {path!r}: {exc}") from None


def _check_server_packages(database: str) -> None:
    missing = []
    for name in ("starlette", "uvicorn", "sqlalchemy"):
        try:
            __import__(name)
        except ImportError:
            missing.append(name)
    if missing:
        raise CLIError(
            f"the survey server needs {', '.join(missing)}: "
            "pip install 'skprivate[survey]'."
        )
    from ..survey._store import missing_driver

    reason = missing_driver(database)
    if reason is not None:
        raise CLIError(reason)


def _check_workers(workers: int, database: str) -> None:
    from ..survey._store import display_url, is_sqlite

    if workers < 1:
        raise CLIError(f"--workers must be at least 1; got {workers}.")
    if workers > 1 and is_sqlite(database):
        raise CLIError(
            f"--workers {workers} needs a PostgreSQL database "
            "(--database postgresql+psycopg://user@host/dbname, with pip install "
            f"'skprivate[postgresql]'); the database {display_url(database)} is "
            "an SQLite file, which takes one writer at a time: serve it with "
            "--workers 1."
        )


def status_text(status) -> str:
    """The terminal tables of ``survey status``."""
    from ..survey._status import (
        format_number,
        interval_legend,
        interval_text,
        statistic_name,
    )

    lines = [
        f"{status.title}: {status.responses} responses stored, {status.issued} "
        "links issued (from the stored private answers only)",
        "",
    ]
    if status.counts.empty:
        lines.append("no response yet")
    else:
        lines.append(f"responses per {status.freq} (UTC)")
        lines += status.counts.to_string(index=False).splitlines()
    level = f"{100 * status.level:g}% interval"
    if status.wave is not None:
        lines += ["", f"estimates from the responses of wave {status.wave}"]
    for q in status.questions:
        answers = f"{q.n_answers} answer{'s' * (q.n_answers != 1)}"
        estimator = f": {q.estimator}" if q.estimator else ""
        lines += ["", f"{q.name} ({answers}){estimator}"]
        if not q.estimates.empty:
            names = [statistic_name(s) for s in q.estimates["statistic"]]
            width = max(len("statistic"), *map(len, names))
            values = [format_number(v) or "-" for v in q.estimates["value"]]
            vwidth = max(len("estimate"), *map(len, values))
            lines.append(f"  {'statistic':<{width}}  {'estimate':>{vwidth}}  {level}")
            for name, value, (_, row) in zip(
                names, values, q.estimates.iterrows(), strict=True
            ):
                lines.append(
                    f"  {name:<{width}}  {value:>{vwidth}}  {interval_text(row)}"
                )
            lines += [f"  {interval_legend(row)}" for _, row in q.estimates.iterrows()]
        lines += [f"  note: {note}" for note in q.notes]
    return "\n".join(lines)


def _status(args: argparse.Namespace) -> int:
    import json
    import warnings

    from ..survey import survey_status

    if not 0 < args.level < 1:
        raise CLIError(f"--level takes a level in (0, 1); got {args.level!r}")
    survey = _load(args.questionnaire)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        status = survey_status(survey, args.database, level=args.level)
    if args.json:
        print(json.dumps(status.to_dict(), indent=2, allow_nan=False))
    else:
        print(status_text(status))
    for w in caught:
        print(f"warning: {w.message}", file=sys.stderr)
    return 0


def run_survey(args: argparse.Namespace) -> int:
    """Run one ``survey`` subcommand; return the exit status."""
    from ..survey import issue_tokens, serve

    cmd = args.survey_command
    if cmd == "report":
        import pandas as pd

        report = _load(args.questionnaire).privacy_report()
        with pd.option_context("display.width", 200, "display.max_colwidth", 60):
            print(report.drop(columns=["note"]).to_string(index=False))
        print()
        print(report["note"].iloc[-1])
        return 0
    if cmd == "page":
        raise CLIError(_PAGE_REMOVED)
    _check_server_packages(args.database)
    if cmd == "issue":
        if args.n < 1:
            raise CLIError("-n must be at least 1.")
        tokens = issue_tokens(_load(args.questionnaire), args.database, args.n)
        base = args.base_url.rstrip("/")
        for token in tokens:
            print(f"{base}/s/{token}")
        return 0
    if cmd == "status":
        return _status(args)
    if cmd == "serve":
        from ..survey._store import display_url

        _check_workers(args.workers, args.database)
        survey = _load(args.questionnaire)
        plural = "s" if args.workers > 1 else ""
        if args.wave < 1:
            raise CLIError(f"--wave takes a wave number >= 1; got {args.wave}.")
        wave = f", wave {args.wave}" if survey.lifetime_epsilon is not None else ""
        print(
            f"serving {survey.title!r} from the database "
            f"{display_url(args.database)} with {args.workers} worker{plural}"
            f"{wave} (Ctrl-C stops)",
            flush=True,
        )
        serve(
            survey,
            args.database,
            host=args.host,
            port=args.port,
            open_enrollment=args.open,
            max_body_bytes=args.max_body,
            workers=args.workers,
            operator_token_file=args.operator_token_file,
            wave=args.wave,
        )
        return 0
    survey = demo_questionnaire()  # demo
    if args.save:
        survey.save(args.save)
    print(
        f"demo survey: open http://{args.host}:{args.port}/ in a browser (each "
        f"visit gets its own respondent link); answers go to {args.database}; "
        "Ctrl-C stops",
        flush=True,
    )
    serve(survey, args.database, host=args.host, port=args.port, open_enrollment=True)
    return 0


def main_survey(args: argparse.Namespace) -> int:
    """Entry used by ``python -m skprivate survey``; errors go to stderr."""
    try:
        return run_survey(args)
    except (CLIError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except (OSError, RuntimeError) as exc:  # a port in use; a worker that died
        print(f"error: {exc}", file=sys.stderr)
        return 1
