"""Mutation testing of the page's JavaScript samplers with Stryker.

Stryker (https://stryker-mutator.io, ``@stryker-mutator/core``) plants one
small change at a time in ``skprivate/survey/static/samplers.js`` (an
operator, a condition, a string, a block) and runs a command with that
mutant switched on; a mutant the command does not fail on "survives".  The
command here is ``tests/survey/sampler_checks.js``, which judges the
samplers exactly, never by sampling: the law of each job (a release, or a
building block such as ``Bern(exp(-g))``) is enumerated word by word with
``static/exact_law.js`` and compared with the mechanism's claimed law,
computed in Python as exact rational enclosures (the checks of
``tests/survey/test_mutation_js.py``, exported once to a JSON file); draws
that the enumeration cannot follow (the word buffer, draws wider than 32
bits, ``rint``, the errors) run on scripted random words.

This benchmark:

1. installs Stryker with npm into ``<tmp>/skprivate-mutation-js/tool``
   (once; a pinned version) and copies samplers.js, exact_law.js and the
   checks into ``<tmp>/skprivate-mutation-js/project`` with a Stryker
   configuration (the working tree is never touched);
2. runs ``nice -n 5 stryker run`` on at most two workers with the *fast*
   checks: every enumeration cut at ``2**-10`` (a certified comparison at
   any cut: a failure is a real difference), or at a check's own
   ``fast_tail`` (the frequency questions' trees of many coins);
3. reruns every survivor, with Stryker's own replacement applied to the
   file, against the *full* checks (the cuts of the test suite);
4. compares the remaining survivors with the equivalent mutants listed here,
   each with its reason and the code it was judged on.

``--lines A-B`` mutates only lines A to B of samplers.js (Stryker's
``mutate`` pattern ``samplers.js:A-B``), e.g. the functions changed since the
last whole-file run; the record then keeps that run's summary (its commit
and counts) beside the new one, and says which lines were mutated.

The kill rate is ``killed / (mutants - equivalent)``; killed counts the
fast and full checks and Stryker's timeouts; "before" counts the mutants
killed by the jobs of ``tests/survey/test_page_exact_laws.py`` and the page-law
jobs of ``tests/survey/test_frequency_questions.py`` (run first).
Run with ``python -m benchmarks mutation_js`` (node and npm needed); a
development benchmark, not a CI step.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from fractions import Fraction
from pathlib import Path

import pandas as pd

from ._common import RESULTS_DIR, Section, write_results

TITLE = "Mutation testing of the page's samplers (Stryker)"
ROOT = Path(__file__).resolve().parent.parent
RECORD_FILE = RESULTS_DIR / "mutation_js.json"
SAMPLERS = "skprivate/survey/static/samplers.js"
EXACT_LAW = "skprivate/survey/static/exact_law.js"
CHECKS_JS = "tests/survey/sampler_checks.js"
STRYKER = "@stryker-mutator/core@9.6.1"
TARGET = 0.90
FAST_TAIL = 10
# the correct samplers need under 10,000 leaves per fast check
FAST_LEAVES = 100_000
FAST_RESIDUAL = Fraction(1, 2)

#: (original code, replacement) -> reason the mutant cannot change the law.
EQUIVALENT: dict[tuple[str, ...], str] = {
    ("v < low", "v <= low"): "clip: at v == low both branches return low",
    ("v > high", "v >= high"): "clip: at v == high both branches return high",
    ("m < lo", "m <= lo"): "Laplace release: at m == lo both branches give lo",
    ("m > hi", "m >= hi"): "Laplace release: at m == hi both branches give hi",
    ("m === 1", "false"): (
        "uniformNumber(1) then takes the 32-bit path, where shift = clz32(0) = 32 "
        "gives r = 0 without reading a word: the same value, no word drawn"
    ),
    ("shift === 32", "false"): (
        "m == 1 has returned already, so m >= 2 and shift = clz32(m - 1) <= 31: "
        "the test is always false"
    ),
    ("m <= SAFE", "m < SAFE"): (
        "m = 2**53 then takes the wide path: 53 bits, two words, top = 21, "
        "r = (w0 >>> 11) * 2**32 + w1, exactly uniformNumber(2**53)'s draw"
    ),
    ("num > den", "num >= den"): (
        "at num == den the mutant draws Bern(exp(-1)) and then Bern(exp(-0/den)) "
        "= true: the same law (other words, same probabilities)"
    ),
    ('typeof globalThis !== "undefined"', "true"): (
        "root is the global object either way: `this` at a script's top level is "
        "globalThis"
    ),
    ('typeof globalThis !== "undefined"', "false"): "as the mutant to true",
    ('typeof globalThis !== "undefined"', 'typeof globalThis === "undefined"'): (
        "as the mutant to true"
    ),
    ("m - 1n", "m + 1n"): (
        "uniformBig: the bit length of m + 1 exceeds that of m - 1 only when m is "
        "a power of two, where one more top bit is drawn and rejected more often: "
        "still uniform on [0, m), only more words"
    ),
    ("bits - 32 * (words - 1)", "bits + 32 * (words - 1)"): (
        "uniformBig shifts by 32 - top, and >>> takes its count mod 32: "
        "32 - bits - 32 (words - 1) and 32 - bits + 32 (words - 1) agree mod 32"
    ),
    ("BigInt(k) + noise", "BigInt(k) - noise"): (
        "both noises (rounded Laplace, discrete Laplace) are symmetric about 0: "
        "k - N has the law of k + N"
    ),
    ("who >= p", "false"): (
        "a dummy respondent's dummy column becomes a fair coin instead of its "
        "dummy category; both dummy categories have probability alpha and the "
        "report does not otherwise depend on which one: the same law"
    ),
    ("new Array(n)", "new Array()"): (
        "releaseMany fills indices 0 .. n - 1 in order: the same array either way"
    ),
    ('"undefined"', '""'): (
        "typeof globalThis is never '': root is globalThis as before (the same "
        "mutant of `typeof module` is killed by the page-load check)"
    ),
    # (original, replacement, text of the mutated line): one occurrence only
    ('spec.kind === "frequency"', "true", "&& spec.memoized"): (
        "instant: only frequency specs carry `memoized` (written by "
        "skprivate/survey/_spec_frequency.py; mechanism_spec of every other kind "
        "has no such key), so for any other spec `spec.memoized` is undefined and "
        "the test stays false: the kind check is redundant on the specs the page "
        "receives"
    ),
}
#: Seconds allowed to the full checks of a mutant Stryker timed out on.
TIMEOUT_RECHECK = 300


def _equivalent(original: str, replacement: str, line: str) -> str | None:
    """The listed reason a mutant is equivalent (a key with a third item also
    needs that text on the mutated line), else None."""
    for key, reason in EQUIVALENT.items():
        if key[:2] == (original, replacement) and (len(key) == 2 or key[2] in line):
            return reason
    return None


def _work() -> Path:
    return Path(tempfile.gettempdir()) / "skprivate-mutation-js"


def _stryker() -> Path:
    """The Stryker command line, installed with npm on first use."""
    tool = _work() / "tool"
    binary = tool / "node_modules" / ".bin" / "stryker"
    if not binary.exists():
        npm = shutil.which("npm")
        if npm is None:
            raise RuntimeError("npm is not installed (apt-get install npm)")
        tool.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            [npm, "install", "--prefix", str(tool), "--no-audit", "--no-fund", STRYKER],
            check=True,
        )
    return binary


def _checks() -> tuple[list[dict], int]:
    """All law checks (the existing group first) and the scripted checks' slot."""
    sys.path.insert(0, str(ROOT))
    try:
        from tests.survey.test_mutation_js import existing_checks, new_checks
    finally:
        sys.path.remove(str(ROOT))
    existing = existing_checks()
    return existing + new_checks(), len(existing)


def _fast(check: dict) -> dict:
    limit = max(Fraction(check["max_residual"]), FAST_RESIDUAL)
    return {
        **check,
        "tail_bits": min(check["tail_bits"], check.get("fast_tail", FAST_TAIL)),
        "max_leaves": FAST_LEAVES,
        "max_residual": f"{limit.numerator}/{limit.denominator}",
    }


def _mutate_pattern(lines: str | None) -> str:
    """Stryker's ``mutate`` entry: the whole file, or lines ``A-B`` of it."""
    if lines is None:
        return SAMPLERS
    first, _, last = lines.partition("-")
    if not (first.isdigit() and last.isdigit() and 1 <= int(first) <= int(last)):
        raise ValueError(f"lines must read A-B with 1 <= A <= B, got {lines!r}")
    return f"{SAMPLERS}:{int(first)}-{int(last)}"


def _prepare(
    project: Path, concurrency: int, fresh: bool = True, lines: str | None = None
) -> list[dict]:
    if fresh:
        shutil.rmtree(project, ignore_errors=True)
    for rel in (SAMPLERS, EXACT_LAW, CHECKS_JS):
        (project / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ROOT / rel, project / rel)
    checks, slot = _checks()
    fast = {"laws": [_fast(c) for c in checks], "scripted": slot}
    (project / "checks_fast.json").write_text(json.dumps(fast))
    (project / "checks_full.json").write_text(
        json.dumps({"laws": checks, "scripted": slot})
    )
    config = {
        "testRunner": "command",
        "commandRunner": {
            "command": f"node {CHECKS_JS} {SAMPLERS} checks_fast.json",
        },
        "mutate": [_mutate_pattern(lines)],
        "coverageAnalysis": "off",
        "concurrency": concurrency,
        "reporters": ["json", "progress"],
        "timeoutMS": 10000,
        "tempDirName": ".stryker-tmp",
    }
    (project / "stryker.config.json").write_text(json.dumps(config, indent=1))
    return checks


def _original(source: str, location: dict) -> tuple[int, int]:
    """Offsets of a report location (lines 1-based, columns 1-based)."""
    lines = source.splitlines(keepends=True)

    def offset(point):
        return sum(len(x) for x in lines[: point["line"] - 1]) + point["column"] - 1

    return offset(location["start"]), offset(location["end"])


def _full_check(project: Path, mutated: str, timeout: int = 600) -> str | None:
    """The first failing full check on a mutated samplers.js (None: all pass)."""
    folder = project / "recheck"
    folder.mkdir(exist_ok=True)
    path = folder / "samplers.js"
    path.write_text(mutated, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != "__STRYKER_ACTIVE_MUTANT__"}
    try:
        proc = subprocess.run(
            ["nice", "-n", "5", "node", CHECKS_JS, str(path), "checks_full.json"],
            cwd=project,
            capture_output=True,
            text=True,
            timeout=timeout,
            env=env,
        )
    except subprocess.TimeoutExpired:
        return f"FAIL timeout: the full checks ran over {timeout} s"
    if proc.returncode == 0:
        return None
    return _fail_line(proc.stdout + proc.stderr) or f"exit {proc.returncode}"


def _fail_line(text: str) -> str | None:
    for line in (text or "").splitlines():
        if line.startswith(("FAIL ", "ERROR ")):
            return line.strip()
    return None


def _killer_group(line: str | None, groups: dict[str, str]) -> str:
    if not line or not line.startswith("FAIL "):
        return "new"
    name = line[len("FAIL ") :].split(":", 1)[0]
    return groups.get(name, "new")  # scripted checks are all new


def _reusable(report: Path, lines: str | None = None) -> bool:
    """A finished Stryker run of the same samplers.js and lines is in ``report``."""
    if not report.exists():
        return False
    config = report.parent.parent.parent / "stryker.config.json"
    if json.loads(config.read_text())["mutate"] != [_mutate_pattern(lines)]:
        return False
    entry = json.loads(report.read_text())["files"].get(SAMPLERS, {})
    return entry.get("source") == (ROOT / SAMPLERS).read_text(encoding="utf-8")


def run_stryker(
    concurrency: int = 2,
    reuse: bool = False,
    lines: str | None = None,
    recheck_timeouts: bool = False,
) -> dict:
    """Run Stryker, recheck the survivors, classify every mutant.

    With ``reuse=True`` a finished Stryker run of the same samplers.js (and
    the same ``lines``) is kept, and only its survivors are checked again
    against the current checks.  ``lines="A-B"`` mutates those lines only.
    ``recheck_timeouts=True`` also reruns every mutant Stryker timed out on
    against the full checks, with ``TIMEOUT_RECHECK`` seconds: on a loaded
    machine a mutant caught only by a late check can run over Stryker's
    limit without hanging.
    """
    start = time.perf_counter()
    project = _work() / "project"
    report_path = project / "reports" / "mutation" / "mutation.json"
    if reuse and _reusable(report_path, lines):
        checks = _prepare(project, concurrency, fresh=False, lines=lines)
        previous = _load() or {}
        start -= previous.get("stryker_seconds", 0)
    else:
        stryker = _stryker()
        checks = _prepare(project, concurrency, lines=lines)
        with (project / "stryker.log").open("w") as log:
            subprocess.run(
                ["nice", "-n", "5", str(stryker), "run", "stryker.config.json"],
                cwd=project,
                stdout=log,
                stderr=subprocess.STDOUT,
                check=True,
            )
    groups = {c["name"]: c["group"] for c in checks}
    stryker_seconds = round(time.perf_counter() - start)
    report = json.loads(report_path.read_text())
    source = (ROOT / SAMPLERS).read_text(encoding="utf-8")
    entry = report["files"][SAMPLERS]
    if entry["source"] != source:
        raise RuntimeError("samplers.js changed during the run; run again")
    mutants = []
    for m in sorted(entry["mutants"], key=lambda m: int(m["id"])):
        a, b = _original(source, m["location"])
        row = {
            "id": m["id"],
            "line": m["location"]["start"]["line"],
            "mutator": m["mutatorName"],
            "original": source[a:b],
            "replacement": m.get("replacement", ""),
            "stryker": m["status"],
            "status": "",
            "reason": "",
        }
        line = _fail_line(m.get("statusReason", ""))
        if m["status"] == "Killed":
            group = _killer_group(line, groups)
            row["status"] = f"killed ({group} checks)"
            row["reason"] = line or ""
        elif m["status"] == "Timeout" and not recheck_timeouts:
            row["status"] = "timeout"
        elif m["status"] in ("Survived", "NoCoverage", "Timeout"):
            mutated = source[:a] + row["replacement"] + source[b:]
            if m["status"] == "Timeout":
                found = _full_check(project, mutated, TIMEOUT_RECHECK)
            else:
                found = _full_check(project, mutated)
            line_text = source.splitlines()[row["line"] - 1]
            listed = _equivalent(row["original"], row["replacement"], line_text)
            if found is not None and found.startswith("FAIL timeout"):
                row["status"] = "timeout"
                row["reason"] = found
            elif m["status"] == "Timeout" and found and not found.startswith("FAIL "):
                # no check failed: the run crashed (e.g. an endless loop that
                # fills the memory), a mutant that never finishes
                row["status"] = "timeout"
                row["reason"] = f"the full checks stopped without a verdict: {found}"
            elif found is not None:
                how = "after a timeout" if m["status"] == "Timeout" else "full cut"
                row["status"] = f"killed ({_killer_group(found, groups)} checks, {how})"
                row["reason"] = found
            elif listed is not None:
                row["status"] = "equivalent"
                row["reason"] = listed
            else:
                row["status"] = "survived"
        else:
            row["status"] = m["status"].lower()
            row["reason"] = (m.get("statusReason") or "")[:200]
        mutants.append(row)
    return {
        "file": SAMPLERS,
        "lines": lines,
        "tool": STRYKER,
        "commit": _commit(),
        "checks": len(checks),
        "concurrency": concurrency,
        "recheck_timeouts": recheck_timeouts,
        "stryker_seconds": stryker_seconds,
        "seconds": round(time.perf_counter() - start),
        "mutants": mutants,
    }


def _commit() -> str:
    try:
        head = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--", SAMPLERS, CHECKS_JS],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head + (" + uncommitted changes" if dirty else "")


def summary(record: dict) -> dict:
    """Counts and kill rates of one record (also shown in mutation.md)."""
    statuses = [m["status"] for m in record["mutants"]]
    total = len(statuses)
    lines = record.get("lines")
    before = sum(s.startswith("killed (existing") for s in statuses)
    new = sum(s.startswith("killed (new") for s in statuses)
    timeouts = statuses.count("timeout")
    equivalent = statuses.count("equivalent")
    survived = statuses.count("survived")
    killed = before + new + timeouts
    denominator = total - equivalent
    rate = killed / denominator if denominator else float("nan")
    return {
        "file": record["file"] + (f":{lines}" if lines else ""),
        "mutants": total,
        "killed (existing exact checks)": before,
        "killed (new exact checks)": new,
        "timeouts": timeouts,
        "equivalent": equivalent,
        "survived": survived,
        "other": total - killed - equivalent - survived,
        "kill rate before": f"{(before + timeouts) / denominator:.1%}",
        "kill rate": f"{rate:.1%}",
        "target 90 % met": "yes" if rate >= TARGET else "no",
    }


def summaries(record: dict) -> list[dict]:
    """The record's summary row, then that of the last whole-file run it keeps."""
    rows = [summary(record)]
    whole = record.get("whole_file")
    if whole is not None:
        rows.append({**whole["summary"], "file": f"{whole['file']} (whole file)"})
    return rows


def _whole_file(previous: dict | None) -> dict | None:
    """What a run restricted to some lines keeps of the last whole-file run."""
    if previous is None:
        return None
    if previous.get("lines"):
        return previous.get("whole_file")
    return {
        "file": previous["file"],
        "commit": previous["commit"],
        "summary": summary(previous),
    }


def sections(record: dict) -> list[Section]:
    text = (
        f"Stryker ({record['tool']}) mutates `{record['file']}`; the command "
        f"`node {CHECKS_JS}` judges each mutant by exact laws (every random word "
        "enumerated by `static/exact_law.js`, compared with the mechanism's law "
        "as exact rational enclosures) and by draws on scripted random words, "
        "never by sampling. Stryker runs the fast checks (enumerations cut at "
        f"2^-{FAST_TAIL}); survivors are rerun against the full checks of "
        "`tests/survey/test_mutation_js.py` and `test_page_exact_laws.py`. "
        "'Existing' checks are the jobs of `tests/survey/test_page_exact_laws.py` "
        "and the page-law jobs of `tests/survey/test_frequency_questions.py`; "
        "'new' ones are added by `tests/survey/test_mutation_js.py` and "
        "`tests/survey/sampler_checks.js`. Kill rate = (killed + timeouts) / "
        "(mutants - equivalent); a timeout is a mutant whose checks never finish."
        f" Source: commit {record['commit']}; {record['checks']} law checks; "
        f"{record['concurrency']} Stryker worker(s) under `nice -n 5`; Stryker "
        f"{record['stryker_seconds']} s, in all {record['seconds']} s."
    )
    if record.get("recheck_timeouts"):
        text += (
            " Every mutant Stryker timed out on was rerun against the full checks "
            f"(at most {TIMEOUT_RECHECK} s): 'killed (..., after a timeout)' "
            "names the check that failed; 'timeout' one that ran over again or "
            "stopped without a verdict (e.g. out of memory)."
        )
    if record.get("lines"):
        text += (
            f" Only lines {record['lines']} of samplers.js were mutated (`--lines`)."
        )
        whole = record.get("whole_file")
        text += (
            " The second row is the last whole-file run (commit "
            f"{whole['commit']}), whose lines outside that range are unchanged "
            "since; it is not rerun here."
            if whole
            else " No whole-file run is on record."
        )
    out = [Section("Summary", text, [pd.DataFrame(summaries(record))])]
    rows = [
        {
            "id": m["id"],
            "line": m["line"],
            "mutator": m["mutator"],
            "original": _short(m["original"]),
            "replacement": _short(m["replacement"]),
            "status": m["status"],
            "reason / killing check": m["reason"]
            or (
                "not killed: no check sees it yet" if m["status"] == "survived" else ""
            ),
        }
        for m in record["mutants"]
        if not m["status"].startswith("killed (existing")
    ]
    out.append(
        Section(
            "Every mutant not killed by the existing checks",
            "One row per mutant (lines of samplers.js at the commit above).",
            [pd.DataFrame(rows)] if rows else [],
        )
    )
    return out


def _short(code: str, limit: int = 70) -> str:
    flat = " ".join(code.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _load() -> dict | None:
    if RECORD_FILE.exists():
        return json.loads(RECORD_FILE.read_text(encoding="utf-8"))
    return None


def run(
    quick: bool = False,
    n_jobs: int = 2,
    concurrency: int | None = None,
    reuse: bool = False,
    lines: str | None = None,
    recheck_timeouts: bool = False,
) -> list[Section]:
    """Mutate samplers.js and return the sections (``quick`` is ignored)."""
    workers = concurrency or (2 if n_jobs is None or n_jobs < 1 else min(n_jobs, 2))
    previous = _load()
    record = run_stryker(
        workers, reuse=reuse, lines=lines, recheck_timeouts=recheck_timeouts
    )
    if lines:
        record["whole_file"] = _whole_file(previous)
    RECORD_FILE.write_text(
        json.dumps(record, indent=1, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    return sections(record)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.mutation_js", description=__doc__.splitlines()[0]
    )
    parser.add_argument(
        "--concurrency", type=int, default=2, choices=[1, 2], help="Stryker workers"
    )
    parser.add_argument(
        "--reuse",
        action="store_true",
        help="keep a finished Stryker run of an unchanged samplers.js; only check "
        "its survivors again against the current checks",
    )
    parser.add_argument(
        "--lines",
        metavar="A-B",
        help="mutate only lines A to B of samplers.js (e.g. the functions changed "
        "since the last whole-file run, whose summary the record keeps)",
    )
    parser.add_argument(
        "--recheck-timeouts",
        action="store_true",
        help=f"rerun the mutants Stryker timed out on against the full checks "
        f"(up to {TIMEOUT_RECHECK} s each), to tell a hang from a slow kill",
    )
    parser.add_argument(
        "--report-only",
        action="store_true",
        help="rewrite results/mutation_js.md from results/mutation_js.json",
    )
    args = parser.parse_args(argv)
    start = time.perf_counter()
    if args.report_only:
        record = _load()
        if record is None:
            parser.error("no stored run: run the benchmark first")
        out = sections(record)
        start -= record["seconds"]
    else:
        out = run(
            concurrency=args.concurrency,
            reuse=args.reuse,
            lines=args.lines,
            recheck_timeouts=args.recheck_timeouts,
        )
    path = write_results(
        "mutation_js", TITLE, out, quick=False, seconds=time.perf_counter() - start
    )
    print(f"mutation_js: wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
