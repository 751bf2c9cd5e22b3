"""``python -m skprivate``: the command line of skprivate."""

from __future__ import annotations

import argparse
import sys


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m skprivate",
        description="Collect data privately and learn from privatized data.",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    demo = sub.add_parser(
        "demo",
        help="run every privacy family end to end on the bundled datasets",
    )
    demo.add_argument("--out", metavar="DIR", help="write report.html and figures here")
    demo.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "demo":
        from ._cli.demo import run_demo

        run_demo(out=args.out, random_state=args.seed)
    return 0


if __name__ == "__main__":
    sys.exit(main())
