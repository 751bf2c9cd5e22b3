"""Mutation testing of the guarantee modules with mutmut.

mutmut (https://mutmut.readthedocs.io, mutmut 3) plants one small change at
a time in a module (an operator, a constant, an argument, a returned value)
and runs the tests that reach the changed function; a change no test
notices "survives".  For each guarantee module listed in
``_mutation_modules.py``, in priority order, this benchmark:

1. copies ``skprivate/``, ``tests/`` and ``setup.cfg`` into
   ``<tmp>/skprivate-mutation/<module>/`` (mutmut writes its mutants under
   ``mutants/`` there; the working tree is never touched) and adds a
   ``[mutmut]`` section that mutates only that module and selects only the
   module's listed tests;
2. runs ``nice -n 5 mutmut run --max-children 1`` (one worker: the machine
   is shared), given the spec's ``functions`` patterns when it has any: the
   run then covers only those functions' mutants, and the results name the
   functions it covered;
3. for every survivor (and every timeout, every mutant of a function that
   none of the selected tests reaches, and every mutant whose tests'
   process ended on a signal, which mutmut records as no status), runs the
   module's
   ``tests/test_mutation_<area>.py`` file with that mutant switched on
   (``MUTANT_UNDER_TEST``), and records the first test that fails, which
   is the test that now kills it;
4. compares the remaining survivors with the equivalent mutants listed there
   (each with its reason, and the changed line it was judged on: a listed
   mutant whose changed line no longer matches is counted as a survivor),
   and with the few excluded ones (real changes that no test can observe
   under mutmut, each with its reason).

The kill rate is ``killed / (mutants - equivalent - excluded)``, where
killed counts the existing tests, the new tests and mutmut's timeouts; the
target is 90 % per module.  Per-module records are kept in
``results/mutation_runs.json`` so that one module can be rerun alone and
the results file still shows every module.

Run every module with ``python -m benchmarks mutation`` (``--quick``: the
first module only), or some with
``python -m benchmarks.mutation --module laplace --module seeding``.
mutmut must be installed (``pip install mutmut``); it is a development
benchmark, not part of the test suite or CI.
"""

from __future__ import annotations

import argparse
import fcntl
import fnmatch
import hashlib
import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

from ._common import RESULTS_DIR, Section, write_results
from ._mutation_modules import MODULES, NOT_YET, ModuleSpec

TITLE = "Mutation testing of the guarantee modules (mutmut)"
ROOT = Path(__file__).resolve().parent.parent
RUNS_FILE = RESULTS_DIR / "mutation_runs.json"
TARGET = 0.90

# mutmut's exit codes (mutmut.stats.status_by_exit_code)
STATUS = {
    1: "killed",
    3: "killed",
    0: "survived",
    5: "no tests",
    33: "no tests",
    34: "skipped",
    36: "timeout",
    24: "timeout",
    -24: "timeout",
    152: "timeout",
    255: "timeout",
    37: "caught by type check",
    None: "not checked",
}


def _scratch_config(spec: ModuleSpec) -> str:
    selection = "\n".join(f"    {t}" for t in spec.tests)
    return (
        "\n[mutmut]\n"
        "source_paths = skprivate\n"
        f"only_mutate = {spec.path}\n"
        "pytest_add_cli_args = -p no:randomly -p no:cacheprovider -n 0\n"
        # a mutant that loops forever stops after 4x its tests' CPU time
        # (mutmut's default of 15x costs minutes per such mutant)
        "timeout_multiplier = 4.0\n"
        f"pytest_add_cli_args_test_selection =\n{selection}\n"
    )


def _prepare(work: Path, spec: ModuleSpec) -> None:
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    shutil.copytree(ROOT / "skprivate", work / "skprivate", ignore=ignore)
    shutil.copytree(ROOT / "tests", work / "tests", ignore=ignore)
    config = (ROOT / "setup.cfg").read_text(encoding="utf-8")
    (work / "setup.cfg").write_text(config + _scratch_config(spec), encoding="utf-8")


def _function_texts(source: str) -> dict[str, str] | None:
    """mutmut's name of each function (``x_f``, ``xǁClassǁmethod``) -> its text.

    Also the key ``""``: the module without its functions' bodies and
    docstrings (its constants, imports, class attributes), so that a
    change outside every function is seen.  ``None`` if it does not parse.
    """
    import ast

    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    texts: dict[str, str] = {}

    def text(node: ast.AST) -> str:
        first = min([node.lineno] + [d.lineno for d in node.decorator_list])
        lines = source.splitlines()[first - 1 : node.end_lineno]
        return "\n".join(lines)

    functions = (ast.FunctionDef, ast.AsyncFunctionDef)
    for node in tree.body:
        if isinstance(node, functions):
            texts[f"x_{node.name}"] = text(node)
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, functions):
                    texts[f"xǁ{node.name}ǁ{item.name}"] = text(item)
    # the rest: the module and its classes without their functions (whose
    # whole text, signature included, is compared above) and docstrings
    for node in ast.walk(tree):
        if isinstance(node, (ast.ClassDef, ast.Module)):
            body = [n for n in node.body if not isinstance(n, functions)]
            if (
                body
                and isinstance(body[0], ast.Expr)
                and isinstance(body[0].value, ast.Constant)
                and isinstance(body[0].value.value, str)
            ):
                body = body[1:]
            node.body = body or [ast.Pass()]
    texts[""] = ast.dump(tree)
    return texts


def _changed_functions(old: str, new: str) -> list[str] | None:
    """The functions whose text differs between two versions of a module.

    ``None`` when the module changed outside its functions (or does not
    parse): then every mutant must run again.
    """
    before, after = _function_texts(old), _function_texts(new)
    if before is None or after is None or before[""] != after[""]:
        return None
    return sorted(n for n in after if n and before.get(n) != after[n])


def _module_name(path: str) -> str:
    name = path.removesuffix(".py").replace("/", ".")
    return name.removesuffix(".__init__")


def _incremental_patterns(spec: ModuleSpec, changed: list[str]) -> list[str]:
    """mutmut patterns for the changed functions within the spec's scope."""
    module = _module_name(spec.path)
    patterns = []
    for function in changed:
        probe = f"{module}.{function}__mutmut_1"
        if not spec.functions or any(
            fnmatch.fnmatchcase(probe, p) for p in spec.functions
        ):
            patterns.append(f"{module}.{function}__mutmut_*")
    return patterns


def _prepare_incremental(work: Path, spec: ModuleSpec) -> list[str] | None:
    """Bring a kept run up to the current source, keeping unchanged results.

    mutmut keeps each function's results while the function's text is
    unchanged (it hashes every function); the mutants of changed functions
    get no result and run again.  Returns the changed functions, or ``None``
    if no kept run can be brought up to date (then the module runs in full).
    """
    meta = work / "mutants" / (spec.path + ".meta")
    copy = work / spec.path
    if not (meta.exists() and copy.exists()):
        return None
    changed = _changed_functions(
        copy.read_text(encoding="utf-8"),
        (ROOT / spec.path).read_text(encoding="utf-8"),
    )
    if changed is None:
        return None
    kept = meta.read_bytes()
    for name in ("skprivate", "tests", "mutants"):
        shutil.rmtree(work / name, ignore_errors=True)
    _prepare(work, spec)
    meta.parent.mkdir(parents=True, exist_ok=True)
    meta.write_bytes(kept)
    return changed


def _mutmut() -> str:
    local = Path(sys.executable).with_name("mutmut")
    return str(local) if local.exists() else "mutmut"


# Runs in the work directory: the changed lines of many mutants in one
# process (one `mutmut show` per mutant costs seconds on a loaded machine).
_DIFF_SCRIPT = """
import json, sys
from mutmut.mutation.diff_apply import get_diff_for_mutant

path, names = sys.argv[1], json.loads(sys.argv[2])
out = {}
for name in names:
    try:
        diff = get_diff_for_mutant(name, path=path)
    except Exception:
        continue
    out[name] = " / ".join(
        line[1:].strip()
        for line in diff.splitlines()
        if line.startswith("+") and not line.startswith("+++")
    )
print("DIFFS " + json.dumps(out, ensure_ascii=False))
"""


def _prefetch_changed_lines(work: Path, path: str, names: list[str]) -> None:
    """Fill the cache of :func:`_changed_lines` for ``names`` in one process."""
    cache = work / "mutants" / "changed_lines.json"
    known = json.loads(cache.read_text()) if cache.exists() else {}
    missing = [n for n in names if n not in known]
    if not missing:
        return
    result = subprocess.run(
        [sys.executable, "-c", _DIFF_SCRIPT, path, json.dumps(missing)],
        cwd=work,
        capture_output=True,
        text=True,
    )
    for line in result.stdout.splitlines():
        if line.startswith("DIFFS "):
            known.update(json.loads(line[len("DIFFS ") :]))
            cache.write_text(json.dumps(known, ensure_ascii=False))
    # any name it could not read is left to `mutmut show`


def _changed_lines(work: Path, name: str) -> str:
    # kept beside the mutants: a --reuse run has the same mutants, and one
    # `mutmut show` costs seconds
    cache = work / "mutants" / "changed_lines.json"
    known = json.loads(cache.read_text()) if cache.exists() else {}
    if name in known:
        return known[name]
    shown = subprocess.run(
        [_mutmut(), "show", name], cwd=work, capture_output=True, text=True
    ).stdout
    plus = [
        line[1:].strip()
        for line in shown.splitlines()
        if line.startswith("+") and not line.startswith("+++")
    ]
    known[name] = " / ".join(plus)
    cache.write_text(json.dumps(known, ensure_ascii=False))
    return known[name]


# Runs in the mutants directory: one process, skprivate imported once, each
# survivor switched on in turn through MUTANT_UNDER_TEST (mutmut's trampolines
# read it at every call).  A first pass with the trampolines in mutmut's
# "stats" mode (the original functions run: it is also the check that the new
# tests pass without a mutant) records which functions each test reaches;
# each mutant then runs only the tests that reach its function.  Calls made
# while a shared (module or session) fixture is set up are credited to every
# test that uses the fixture, since only the first of them sets it up.
_KILLER_SCRIPT = """
import gc, json, os, signal, sys
from collections import defaultdict
import pytest
from mutmut.state import state
from mutmut.utils.format_utils import mangled_name_from_mutant_name

def _stop(signum, frame):
    raise TimeoutError("the mutant runs the new tests for over 60 s")

signal.signal(signal.SIGALRM, _stop)

class First:
    def __init__(self):
        self.failed = None
    def pytest_runtest_logreport(self, report):
        if report.failed and self.failed is None:
            self.failed = report.nodeid

class Reach(First):
    def __init__(self):
        super().__init__()
        self.own = {}
        self.shared = {}
        self.by_fixture = defaultdict(set)
        self.order = []
    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_setup(self, item):
        state()._stats.clear()
        yield
        info = getattr(item, "_fixtureinfo", None)
        defs = info.name2fixturedefs if info is not None else {}
        shared = [n for n, d in defs.items() if d and d[-1].scope != "function"]
        for name in shared:
            self.by_fixture[name] |= state()._stats
        self.shared[item.nodeid] = shared
    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item, nextitem):
        state()._stats.clear()
        yield
        self.own[item.nodeid] = set(state()._stats)
        self.order.append(item.nodeid)
    def reach(self, test):
        found = set(self.own.get(test, ()))
        for name in self.shared.get(test, ()):
            found |= self.by_fixture[name]
        return found

names, tests = json.loads(sys.argv[1]), json.loads(sys.argv[2])
base = ["-q", "-p", "no:randomly", "-p", "no:cacheprovider", "-n", "0",
        "--tb=no", "--no-header"]
found = {}
os.environ["MUTANT_UNDER_TEST"] = "stats"
reach = Reach()
signal.alarm(1800)
code = pytest.main([*base, *tests], plugins=[reach])
signal.alarm(0)
found["no mutant"] = reach.failed if code != 0 else None
if code != 0 and reach.failed is None:
    found["no mutant"] = "pytest exit " + str(int(code))
reached = {t: reach.reach(t) for t in reach.order}
if found["no mutant"] is None and not any(reached.values()):
    reached = None  # no hit recorded at all: run every new test per mutant
for name in names if found["no mutant"] is None else []:
    print("\\nSTART " + json.dumps(name), flush=True)
    function = mangled_name_from_mutant_name(name)
    if reached is None:
        chosen = list(tests)
    else:
        chosen = [t for t in reach.order if function in reached[t]]
    if not chosen:
        found[name] = None
        print("\\nDONE " + json.dumps([name, None]), flush=True)
        continue
    os.environ["MUTANT_UNDER_TEST"] = name
    first = First()
    # a mutant that makes a new test loop forever is caught (the new tests
    # of a module run in seconds): the alarm fires again every 10 s, in case
    # code under test swallows the error
    signal.setitimer(signal.ITIMER_REAL, 60, 10)
    try:
        code = pytest.main(["-x", *base, *chosen], plugins=[first])
    except TimeoutError:  # raised outside a test, where pytest does not catch it
        code = 1
        first.failed = first.failed or "a new test ran for over 60 s"
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    # pytest keeps the last failure (sys.last_*) with its frames: a mutant
    # that filled memory would otherwise leave it full for the next ones
    sys.last_type = sys.last_value = sys.last_traceback = None
    if hasattr(sys, "last_exc"):
        sys.last_exc = None
    gc.collect()
    found[name] = first.failed if code != 0 else None
    if code != 0 and first.failed is None:
        found[name] = "pytest exit " + str(int(code))
    print("\\nDONE " + json.dumps([name, found[name]]), flush=True)
print("KILLERS " + json.dumps(found))
"""


# Address space allowed to a process that runs mutants (about 0.6 GB is
# what a test run maps): a mutant that grows a list without end (a loop
# whose exit the mutation removed) then fails its test with MemoryError,
# instead of the machine's memory running out and the kernel killing
# whichever process it picks.
MUTANT_MEMORY_BYTES = 8 * 2**30


def _limit_memory() -> None:
    """Cap the address space of a child process (run before it starts)."""
    import resource

    hard = resource.getrlimit(resource.RLIMIT_AS)[1]
    cap = MUTANT_MEMORY_BYTES
    if hard != resource.RLIM_INFINITY:
        cap = min(cap, hard)
    resource.setrlimit(resource.RLIMIT_AS, (cap, hard))


def _mutant_env() -> dict[str, str]:
    """The environment of the processes that run mutants.

    mutmut forks a process per mutant from one that has run the tests; a
    thread pool started there (dask's default threaded scheduler) does not
    survive the fork, and the child waits on it until mutmut's timeout,
    which counts as a kill.  Dask collections are therefore computed on the
    synchronous scheduler, which gives the same results in one thread.
    """
    import os

    return {**os.environ, "DASK_SCHEDULER": "synchronous"}


def _killers(work: Path, names: list[str], tests: list[str]) -> dict:
    """The first new test that fails with each mutant on (None: none fails)."""
    # a test is a file or a node id in a file (``path::name``)
    present = [t for t in tests if (work / "mutants" / t.split("::")[0]).exists()]
    if not present or not names:
        return dict.fromkeys(names)
    log = work / "mutants" / "killers.log"
    with log.open("w") as out:
        child = subprocess.Popen(
            [
                "nice",
                "-n",
                "5",
                sys.executable,
                "-c",
                _KILLER_SCRIPT,
                json.dumps(names),
                json.dumps(present),
            ],
            cwd=work / "mutants",
            stdout=out,
            stderr=subprocess.DEVNULL,
            text=True,
            preexec_fn=_limit_memory,
            env=_mutant_env(),
        )
        _watch(child, log)
    stdout = log.read_text(errors="replace")
    done: dict = {}
    started = None
    for line in stdout.splitlines():
        if line.startswith("START "):
            started = json.loads(line[len("START ") :])
        elif line.startswith("DONE "):
            name, killer = json.loads(line[len("DONE ") :])
            done[name] = killer
            started = None
        elif line.startswith("KILLERS "):
            found = json.loads(line[len("KILLERS ") :])
            baseline = found.pop("no mutant")
            if baseline is not None:
                raise RuntimeError(f"{baseline} fails without any mutant")
            return found
    if started is not None:
        # the watchdog stopped a mutant that no signal could interrupt (C
        # code holding the interpreter, as pytest formatting the repr of a
        # list that filled memory), or the process died on it: killed; the
        # others go on in a new process
        done[started] = f"its recheck stalled for {_STALL_SECONDS} s or died"
        rest = [n for n in names if n not in done]
        done.update(_killers(work, rest, tests))
        return done
    raise RuntimeError("the new tests could not be run:\n" + stdout[-2000:])


# Seconds without progress after which the watchdog stops the recheck of a
# mutant (its alarm, at 60 s, cannot interrupt C code), and the allowance of
# the run of the new tests without mutants that comes first.
_STALL_SECONDS = 150
_BASELINE_SECONDS = 1800


def _watch(child: subprocess.Popen, log: Path) -> None:
    """Wait for ``child``; kill it when its log stops growing for too long."""
    size, last = -1, time.monotonic()
    while child.poll() is None:
        time.sleep(2)
        now = time.monotonic()
        current = log.stat().st_size
        if current != size:
            size, last = current, now
            continue
        started = b"START " in log.read_bytes()
        allowed = _STALL_SECONDS if started else _BASELINE_SECONDS
        if now - last > allowed:
            child.kill()
            child.wait()
            return


def _work_dir(key: str) -> Path:
    return Path(tempfile.gettempdir()) / "skprivate-mutation" / key


def _reusable(work: Path, spec: ModuleSpec) -> bool:
    """A finished mutmut run of the same source is in ``work``."""
    meta = work / "mutants" / (spec.path + ".meta")
    copy = work / spec.path
    return (
        meta.exists()
        and copy.exists()
        and copy.read_bytes() == (ROOT / spec.path).read_bytes()
    )


def _refresh_kept_run(work: Path, spec: ModuleSpec) -> None:
    """The current tests, and the current package around the mutated module.

    The kept run's copies of the other modules date from its full run; a
    test added since may import a module that did not exist then, so they
    are brought up to date too (the mutated module stays as it was run: it
    is the same source, or the run would not be reused).
    """
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for target in (work / "tests", work / "mutants" / "tests"):
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(ROOT / "tests", target, ignore=ignore)
    current = {
        path.relative_to(ROOT).as_posix()
        for path in (ROOT / "skprivate").rglob("*")
        if path.is_file() and "__pycache__" not in path.parts
    }
    for base in (work, work / "mutants"):
        # mutmut's results (.meta) and the mutated module stay as they are
        for path in list((base / "skprivate").rglob("*.py")):
            name = path.relative_to(base).as_posix()
            if name != spec.path and name not in current:
                path.unlink()
        for name in current - {spec.path}:
            target = base / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(ROOT / name, target)


def run_module(key: str, reuse: bool = False, incremental: bool = False) -> dict:
    """Mutate one module, classify every mutant, return the record.

    The work directory (``<tmp>/skprivate-mutation/<key>``) is kept; with
    ``reuse=True`` a finished mutmut run of the same module source is not
    repeated, only the survivors are checked again against the current
    ``tests/test_mutation_*.py`` files.  With ``incremental=True`` a kept
    run of an earlier version of the module is brought up to date: only the
    mutants of the functions whose text changed run again (a change outside
    every function, or no kept run, means a full run); the other functions
    keep their results, and the record names the functions rerun.
    """
    spec = MODULES[key]
    start = time.perf_counter()
    work = _work_dir(key)
    previous = _load_runs().get(key, {})
    rerun: list[str] | None = None
    if (reuse or incremental) and _reusable(work, spec):
        _refresh_kept_run(work, spec)
        start -= previous.get("mutmut_seconds", 0)
        rerun = list(previous.get("incremental", {}).get("functions", []) or [])
        incremental = "incremental" in previous
    else:
        changed = _prepare_incremental(work, spec) if incremental else None
        incremental = changed is not None
        patterns = list(spec.functions)
        if changed is not None:
            # the functions rerun since the full run, over all incremental runs
            earlier = previous.get("incremental", {}).get("functions", [])
            rerun = sorted(set(earlier) | set(changed))
            patterns = _incremental_patterns(spec, changed)
            if changed and not patterns:
                # Every changed function lies outside the spec's scope, but
                # the kept mutants were rebuilt from the new source and mutmut
                # must run for them to exist: it runs the changed functions'
                # own mutants, which the record does not count.
                module = _module_name(spec.path)
                patterns = [f"{module}.{name}__mutmut_*" for name in changed]
            start -= previous.get("mutmut_seconds", 0)
        else:
            shutil.rmtree(work, ignore_errors=True)
            work.mkdir(parents=True)
            _prepare(work, spec)
        # an incremental run with no changed function has nothing to run
        # (mutmut without patterns would run the whole module)
        if changed is None or patterns or not spec.functions:
            log = work / "mutmut.log"
            with log.open("a" if changed is not None else "w") as out:
                subprocess.run(
                    [
                        *("nice", "-n", "5", _mutmut(), "run", "--max-children", "1"),
                        *patterns,
                    ],
                    cwd=work,
                    stdout=out,
                    stderr=subprocess.STDOUT,
                    preexec_fn=_limit_memory,
                    env=_mutant_env(),
                    check=False,
                )
    mutmut_seconds = round(time.perf_counter() - start)
    meta = work / "mutants" / (spec.path + ".meta")
    codes = json.loads(meta.read_text())["exit_code_by_key"]
    if spec.functions:
        codes = {
            n: c
            for n, c in codes.items()
            if any(fnmatch.fnmatchcase(n, pattern) for pattern in spec.functions)
        }
    # timeouts are rechecked too: a new test that fails says what they break;
    # so are mutants of functions that none of the selected tests reaches,
    # and those whose tests' process ended with a code mutmut does not name
    # (a signal: a mutant that stops installing a SIGTERM handler lets a
    # test's own SIGTERM end the process)
    rechecked = [
        n
        for n, c in codes.items()
        if STATUS.get(c, "suspicious")
        in ("survived", "timeout", "no tests", "suspicious")
    ]
    killers = _killers(work, rechecked, spec.new_tests)
    _prefetch_changed_lines(work, spec.path, rechecked)
    mutants = []
    for name, code in sorted(codes.items(), key=_natural):
        status = STATUS.get(code, "suspicious")
        entry = {"name": name, "status": status, "reason": ""}
        if status == "timeout":
            entry["change"] = _changed_lines(work, name)
            found = killers.get(name)
            entry["reason"] = (
                f"also fails {found}" if found else "no new test fails on it"
            )
        if status in ("survived", "no tests", "suspicious"):
            entry["change"] = _changed_lines(work, name)
            killer = killers.get(name)
            listed = spec.equivalent.get(name)
            tool_limit = spec.excluded.get(name)
            if killer is not None:
                entry["status"] = "killed by a new test"
                entry["reason"] = killer
            elif listed is not None and listed[0] in entry["change"]:
                entry["status"] = "equivalent"
                entry["reason"] = listed[1]
            elif tool_limit is not None and tool_limit[0] in entry["change"]:
                entry["status"] = "excluded (tool limit)"
                entry["reason"] = tool_limit[1]
        mutants.append(entry)
    # the copy mutmut mutated, not the module now (it may have changed
    # during the run; the record then says it is not current)
    source = (work / spec.path).read_bytes()
    return {
        "module": spec.path,
        "commit": _commit(spec.path),
        "source_sha256": hashlib.sha256(source).hexdigest()[:12],
        "tests": spec.tests,
        "new_tests": spec.new_tests,
        "functions": spec.functions,
        "seconds": round(time.perf_counter() - start),
        "mutmut_seconds": mutmut_seconds,
        **(
            {
                "incremental": {
                    "from_commit": previous.get("incremental", {}).get(
                        "from_commit", previous.get("commit", "unknown")
                    ),
                    "functions": rerun or [],
                }
            }
            if incremental
            else {}
        ),
        "mutants": mutants,
    }


def _commit(path: str) -> str:
    """The checked-out commit, marked when the module differs from it."""
    try:
        head = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--", path],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head + (" + uncommitted changes" if dirty else "")


def _function_of(mutant: str) -> str:
    """``module.xǁClassǁmethod__mutmut_3`` -> ``Class.method`` (``x_f`` -> ``f``)."""
    name = mutant.rsplit(".", 1)[-1].rsplit("__mutmut_", 1)[0]
    if name.startswith("xǁ"):
        return ".".join(name[len("xǁ") :].split("ǁ"))
    return name[len("x_") :] if name.startswith("x_") else name


def _covered(record: dict) -> list[str]:
    """The functions whose mutants a run covered, sorted by name."""
    return sorted({_function_of(m["name"]) for m in record["mutants"]})


def _functions(key: str, record: dict) -> list[str]:
    """The patterns a run was restricted to (empty: the whole module).

    A record written before runs kept their patterns takes those of the spec.
    """
    if "functions" in record:
        return record["functions"]
    return MODULES[key].functions if key in MODULES else []


def _scope(key: str, record: dict) -> str:
    """'all' for a run of the whole module, else how many functions it covered."""
    if not _functions(key, record):
        return "all"
    return f"{len(_covered(record))} (restricted)"


def _natural(item: tuple) -> list:
    return [int(p) if p.isdigit() else p for p in re.split(r"(\d+)", item[0])]


def _load_runs() -> dict:
    if RUNS_FILE.exists():
        return json.loads(RUNS_FILE.read_text(encoding="utf-8"))
    return {}


def _is_current(record: dict) -> bool:
    """The record was made on the module's present source."""
    path = ROOT / record["module"]
    if not path.exists():
        return False
    digest = hashlib.sha256(path.read_bytes()).hexdigest()[:12]
    return digest == record.get("source_sha256")


def _currency(record: dict, current: bool) -> str:
    if not current:
        return "no: the module changed after this run"
    rerun = record.get("incremental")
    if rerun is None:
        return "yes"
    return (
        f"yes (incremental on the run of {rerun['from_commit']}: "
        f"{len(rerun['functions'])} changed functions rerun)"
    )


def _counts(key: str, record: dict) -> dict:
    statuses = [m["status"] for m in record["mutants"]]
    total = len(statuses)
    by_existing = statuses.count("killed")
    by_new = statuses.count("killed by a new test")
    equivalent = statuses.count("equivalent")
    excluded = statuses.count("excluded (tool limit)")
    timeouts = statuses.count("timeout")
    survived = statuses.count("survived")
    # a timeout is a detected change (the mutant never finishes the tests)
    killed = by_existing + by_new + timeouts
    other = total - killed - equivalent - excluded - survived
    denominator = total - equivalent - excluded
    rate = killed / denominator if denominator else float("nan")
    rate_before = (by_existing + timeouts) / denominator if denominator else 0.0
    current = _is_current(record)
    return {
        "module": record["module"],
        "functions mutated": _scope(key, record),
        "mutants": total,
        "killed (existing tests)": by_existing,
        "killed (new tests)": by_new,
        "timeouts": timeouts,
        "equivalent": equivalent,
        "excluded (tool limit)": excluded,
        "survived": survived,
        "not run / other": other,
        "kill rate before": f"{rate_before:.1%}",
        "kill rate": f"{rate:.1%}",
        "target 90 % met": "yes" if rate >= TARGET and current else "no",
        "record of the current source": _currency(record, current),
        "time of the last invocation (s)": record["seconds"],
    }


def _sections(runs: dict) -> list[Section]:
    order = [k for k in MODULES if k in runs]
    # a module split into several restricted runs is named once
    not_run = list(
        dict.fromkeys([MODULES[k].path for k in MODULES if k not in runs] + NOT_YET)
    )
    summary = pd.DataFrame([_counts(k, runs[k]) for k in order])
    text = (
        "mutmut 3 mutates one module at a time and runs only the tests listed "
        "for it (per mutant, only those of them that reach the changed "
        "function), on one worker under `nice -n 5`. 'Kill rate' is "
        "(killed by the existing tests + killed by the new "
        "`tests/test_mutation_*.py` files + timeouts) / (mutants - "
        "equivalent - excluded); 'kill rate before' counts the existing tests "
        "only. 'Excluded (tool limit)' mutants are real changes that no test "
        "can observe while mutmut's trampolines sit between caller and callee "
        "(the location of a warning); the ordinary suite checks them. "
        "'Functions mutated' is 'all', or, for a run restricted to a module's "
        "guarantee functions, how many functions it covered (named under the "
        "module's heading). "
        "'Record of the current source' says whether the run was made on the "
        "module as it is now (a record of an older version does not count "
        "towards the target); an incremental run (`--incremental`) kept the "
        "results of the functions whose text did not change since an earlier "
        "run and reran the mutants of the changed ones. "
        "The time column covers the last invocation only (with `--reuse`, the "
        "recheck of the survivors); a full mutmut run of one module took 10–40 "
        "minutes on the shared machine. Modules of the priority list not run "
        "yet: " + (", ".join(f"`{p}`" for p in not_run) or "none") + "."
    )
    sections = [Section("Summary per module", text, [summary])]
    for key in order:
        record = runs[key]
        lines = [
            f"Source: commit {record.get('commit', 'unknown')}, module sha256 "
            f"{record.get('source_sha256', '?')}.",
            "Tests selected: " + ", ".join(f"`{t}`" for t in record["tests"]) + ".",
            "New tests: " + ", ".join(f"`{t}`" for t in record["new_tests"]) + ".",
        ]
        patterns = _functions(key, record)
        if patterns:
            lines.append(
                f"Restricted run `{key}` (patterns "
                + ", ".join(f"`{p}`" for p in patterns)
                + "): only the mutants of "
                + ", ".join(f"`{f}`" for f in _covered(record))
                + " were run; the module's other functions were not mutated."
            )
        rows = [
            {
                "mutant": m["name"].split(".")[-1],
                "change (mutated line)": m.get("change", ""),
                "status": m["status"],
                "reason / killing test": m["reason"]
                or {
                    "survived": "not killed: no test checks this yet",
                    "no tests": "not killed: no test reaches this function",
                }.get(m["status"], ""),
            }
            for m in record["mutants"]
            if m["status"] != "killed"
        ]
        tables = [pd.DataFrame(rows)] if rows else []
        title = f"`{record['module']}`" + (f" (`{key}`)" if patterns else "")
        sections.append(Section(title, "\n".join(lines), tables))
    return sections + _js_sections()


def _js_sections() -> list[Section]:
    """The JavaScript samplers' run (benchmarks/mutation_js.py), summarised."""
    from . import mutation_js

    record = mutation_js._load()
    if record is None:
        return []
    text = (
        "`skprivate/survey/static/samplers.js` is mutated by Stryker and judged "
        "by exact laws (`python -m benchmarks mutation_js`); every mutant not "
        "killed by the existing checks, with its reason, is listed in "
        "[mutation_js.md](mutation_js.md). A run restricted to some lines "
        "(`--lines`) shows its row first, then the last whole-file run's."
    )
    table = pd.DataFrame(mutation_js.summaries(record))
    return [Section("JavaScript: `samplers.js` (Stryker)", text, [table])]


def run(
    quick: bool = False,
    n_jobs: int = 1,
    modules: list[str] | None = None,
    reuse: bool = False,
    incremental: bool = False,
) -> list[Section]:
    """Mutate the chosen modules (all by default) and return the sections.

    ``n_jobs`` is ignored: mutmut always runs on one worker here.
    """
    chosen = modules or (list(MODULES)[:1] if quick else list(MODULES))
    runs = _load_runs()
    for key in chosen:
        print(f"mutation: {key} ({MODULES[key].path})", flush=True)
        record = run_module(key, reuse=reuse, incremental=incremental)
        # runs of other modules may finish meanwhile: read, add and write
        # under one lock so that none loses another's record
        with open(RUNS_FILE.with_suffix(".lock"), "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            runs = _load_runs()
            runs[key] = record
            RUNS_FILE.write_text(
                json.dumps(runs, indent=1, ensure_ascii=False) + "\n",
                encoding="utf-8",
            )
    return _sections(runs)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.mutation", description=__doc__.splitlines()[0]
    )
    parser.add_argument(
        "--module",
        action="append",
        choices=list(MODULES),
        help="module to mutate (repeatable; default all, in priority order)",
    )
    parser.add_argument(
        "--reuse",
        action="store_true",
        help="keep a finished mutmut run of an unchanged module; only check its "
        "survivors again against the tests/test_mutation_*.py files",
    )
    parser.add_argument(
        "--report-only",
        action="store_true",
        help="rewrite results/mutation.md from the stored runs, mutating nothing",
    )
    parser.add_argument(
        "--incremental",
        action="store_true",
        help="bring a kept run of an earlier version of the module up to date: "
        "rerun only the mutants of functions whose text changed (a change "
        "outside every function means a full run); implies --reuse for an "
        "unchanged module",
    )
    args = parser.parse_args(argv)
    start = time.perf_counter()
    if args.report_only:
        runs = _load_runs()
        sections = _sections(runs)
        start -= sum(r["seconds"] for r in runs.values())  # the stored runs' time
    else:
        sections = run(
            modules=args.module, reuse=args.reuse, incremental=args.incremental
        )
    path = write_results(
        "mutation",
        TITLE,
        sections,
        quick=False,
        seconds=time.perf_counter() - start,
    )
    print(f"mutation: wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
