"""Run benchmarks: ``python -m benchmarks <name>... | all [--quick] [--n-jobs N]``."""

from __future__ import annotations

import argparse
import importlib
import inspect
import pkgutil
import sys
import time
from pathlib import Path

from ._common import write_results


def available() -> list[str]:
    here = Path(__file__).resolve().parent
    return sorted(
        m.name for m in pkgutil.iter_modules([str(here)]) if not m.name.startswith("_")
    )


def main(argv: list[str] | None = None) -> int:
    names = available()
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__)
    parser.add_argument("name", nargs="*", help=f"one or more of {names}, or 'all'")
    parser.add_argument("--list", action="store_true", help="list the benchmarks")
    parser.add_argument(
        "--quick", action="store_true", help="few replications (smoke run)"
    )
    parser.add_argument(
        "--n-jobs", type=int, default=-1, help="joblib workers (default all)"
    )
    parser.add_argument(
        "--max-n",
        type=float,
        default=None,
        help="largest number of rows (benchmarks that grow n, e.g. scaling)",
    )
    args = parser.parse_args(argv)
    if args.list or not args.name:
        for name in names:
            module = importlib.import_module(f"benchmarks.{name}")
            print(f"{name:<28} {module.TITLE}")
        return 0
    chosen = names if "all" in args.name else args.name
    unknown = [name for name in chosen if name not in names]
    if unknown:
        parser.error(f"unknown benchmark {unknown[0]!r}; choose from {names} or 'all'")
    for name in chosen:
        module = importlib.import_module(f"benchmarks.{name}")
        start = time.perf_counter()
        kwargs = {"quick": args.quick, "n_jobs": args.n_jobs}
        if args.max_n is not None:
            if "max_n" not in inspect.signature(module.run).parameters:
                parser.error(f"benchmark {name!r} has no --max-n option")
            kwargs["max_n"] = int(args.max_n)
        sections = module.run(**kwargs)
        path = write_results(
            name,
            module.TITLE,
            sections,
            quick=args.quick,
            seconds=time.perf_counter() - start,
        )
        print(f"{name}: wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
