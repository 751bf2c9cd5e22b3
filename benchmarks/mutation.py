"""Mutation testing of the guarantee modules with mutmut.

mutmut (https://mutmut.readthedocs.io, mutmut 3) plants one small change at
a time in a module (an operator, a constant, an argument, a returned value)
and runs the tests that reach the changed function; a change no test
notices "survives".  For each guarantee module below, in priority order,
this benchmark:

1. copies ``skprivate/``, ``tests/`` and ``setup.cfg`` into
   ``<tmp>/skprivate-mutation/<module>/`` (mutmut writes its mutants under
   ``mutants/`` there; the working tree is never touched) and adds a
   ``[mutmut]`` section that mutates only that module and selects only the
   module's listed tests;
2. runs ``nice -n 5 mutmut run --max-children 1`` (one worker: the machine
   is shared);
3. for every survivor, runs the module's ``tests/test_mutation_<area>.py``
   file with that mutant switched on (``MUTANT_UNDER_TEST``), and records
   the first test that fails, which is the test that now kills it;
4. compares the remaining survivors with the equivalent mutants listed here
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
import hashlib
import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from ._common import RESULTS_DIR, Section, write_results

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


@dataclass
class ModuleSpec:
    """One guarantee module: what is mutated and which tests check it."""

    path: str
    tests: list[str]
    new_tests: list[str]
    #: mutant name -> (text of the changed line, reason it is equivalent)
    equivalent: dict[str, tuple[str, str]] = field(default_factory=dict)
    #: not equivalent, but no test can see it under mutmut (same form)
    excluded: dict[str, tuple[str, str]] = field(default_factory=dict)


_LAPLACE = "skprivate.ldp._laplace.xǁLaplaceLDPǁ"
_NL = "skprivate.ldp._noise_laws."
_HUBER = _NL + "xǁFlippedHuberNoiseǁ"
_GG = _NL + "xǁGeneralizedGaussianNoiseǁ"
_SEED = "skprivate.utils._seeding."

MODULES: dict[str, ModuleSpec] = {
    "laplace": ModuleSpec(
        path="skprivate/ldp/_laplace.py",
        tests=[
            "tests/ldp/test_laplace.py",
            "tests/ldp/test_sampler_support.py",
            "tests/test_grid_sampler_laws.py",
        ],
        new_tests=["tests/test_mutation_ldp.py"],
        equivalent={
            f"{_LAPLACE}fit__mutmut_2": (
                "return super().fit(X, None)",
                "y is ignored by LaplaceLDP.fit (documented: 'y : None, Ignored')",
            ),
            f"{_LAPLACE}fit__mutmut_4": (
                "return super().fit(X, )",
                "y defaults to None and is ignored",
            ),
            f"{_LAPLACE}_fit__mutmut_4": (
                "dtype=None)",
                "fit reads X only for its shape and, with bounds=None, through "
                "bounds_from_data, which returns float64 bounds for any input "
                "dtype",
            ),
            f"{_LAPLACE}_fit__mutmut_7": (
                "finite=True), )",
                "as _fit__mutmut_4 (float64 is validate_data's only cast here)",
            ),
            f"{_LAPLACE}_transform__mutmut_2": (
                "check_is_fitted(self, None)",
                "without attribute names check_is_fitted asks "
                "PrivatizerMixin.__sklearn_is_fitted__, false before fit: the "
                "same NotFittedError",
            ),
            f"{_LAPLACE}_transform__mutmut_4": (
                "check_is_fitted(self, )",
                "as _transform__mutmut_2",
            ),
            f"{_LAPLACE}privacy_summary__mutmut_2": (
                "check_is_fitted(self, None)",
                "as _transform__mutmut_2",
            ),
            f"{_LAPLACE}privacy_summary__mutmut_4": (
                "check_is_fitted(self, )",
                "as _transform__mutmut_2",
            ),
            f"{_LAPLACE}_transform__mutmut_17": (
                "reset=None",
                "validate_data tests reset for truth: None acts as False",
            ),
            f"{_LAPLACE}_transform__mutmut_40": (
                "X -= rng.laplace(0.0, 1.0, size=X.shape) * self.scale_",
                "the Laplace law is symmetric: x - b L has the law of x + b L "
                "(only the seeded stream's values change, and no seeded value is "
                "documented)",
            ),
            f"{_LAPLACE}_transform__mutmut_46": (
                "rng.laplace(0.0, size=X.shape)",
                "numpy's default Laplace scale is 1.0",
            ),
            f"{_LAPLACE}_enforce_bounds__mutmut_45": (
                "None,",
                "warnings.warn with category None issues a UserWarning",
            ),
            f"{_LAPLACE}_enforce_bounds__mutmut_48": (
                "",
                "warnings.warn without a category issues a UserWarning",
            ),
            f"{_LAPLACE}_secure_noise__mutmut_4": (
                "k = np.clip(np.rint(X / step), None, self._k_high)",
                "X is already clipped into the bounds, so rint(X / step) >= "
                "rint(low / step) >= floor(low / step) = k_low: the lower clip "
                "never acts",
            ),
            f"{_LAPLACE}_secure_noise__mutmut_5": (
                "k = np.clip(np.rint(X / step), self._k_low, None)",
                "likewise rint(X / step) <= rint(high / step) <= "
                "ceil(high / step) = k_high: the upper clip never acts",
            ),
        },
        excluded={
            f"{_LAPLACE}_enforce_bounds__mutmut_49": (
                ")",
                "the clipping warning loses its stacklevel; under mutmut a "
                "trampoline frame is the caller, so the location check of "
                "test_clip_message_names_row_column_and_declared_bounds (and "
                "tests/test_warning_location.py) only runs outside mutmut",
            ),
        },
    ),
    "noise_laws": ModuleSpec(
        path="skprivate/ldp/_noise_laws.py",
        tests=[
            "tests/ldp/test_additive.py",
            "tests/ldp/test_sampler_support.py",
            "tests/test_grid_sampler_laws.py",
        ],
        new_tests=["tests/test_mutation_ldp.py"],
        equivalent={
            f"{_NL}x__bernoulli_exp__mutmut_7": (
                "dtype=None), 0.0)",
                "every caller passes float64 excesses; np.maximum with 0.0 "
                "turns integers into floats anyway",
            ),
            f"{_NL}x__bernoulli_exp__mutmut_9": (
                "np.asarray(x, ), 0.0)",
                "as x__bernoulli_exp__mutmut_7",
            ),
            f"{_NL}x__bernoulli_exp__mutmut_18": (
                "rest >= 0",
                "an x = 0 coin then takes one extra draw, U < exp(0) = 1, "
                "which always accepts: the same law",
            ),
            f"{_NL}x__bernoulli_exp__mutmut_27": (
                "<= np.exp(-chunk)",
                "U = exp(-c) exactly has probability 2**-53 at most",
            ),
            f"{_HUBER}_rho__mutmut_9": (
                "au < self.beta",
                "both pieces of rho equal beta at |u| = beta (rho is continuous)",
            ),
            f"{_HUBER}_fine_limit__mutmut_36": (
                "max(z2, 1.0)",
                "z2 > 2 log_fine >= 2 log(2**5) for every resolution "
                "set_resolution accepts (<= 2**44 cells), so the max never binds",
            ),
            f"{_HUBER}_logcdf_negative__mutmut_17": (
                "divide=None",
                "np.maximum keeps the log's argument >= 1e-300: no division by "
                "zero is ever signalled",
            ),
            f"{_HUBER}_logcdf_negative__mutmut_19": (
                "np.errstate(invalid=",
                "as _logcdf_negative__mutmut_17",
            ),
            f"{_HUBER}_logcdf_negative__mutmut_18": (
                "invalid=None",
                "u = -|t| / scale <= 0 and the guarded expression never forms "
                "inf - inf or 0 * inf: no invalid operation is signalled",
            ),
            f"{_HUBER}_logcdf_negative__mutmut_20": (
                'divide="ignore", )',
                "as _logcdf_negative__mutmut_18",
            ),
            f"{_HUBER}_logcdf_negative__mutmut_47": (
                "u < -beta",
                "at u = -beta the Gaussian-tail and centre formulas give the "
                "same CDF (continuity), equal to rounding",
            ),
            f"{_HUBER}logcdf__mutmut_19": (
                "1.0 + 1e-300",
                "exp(neg) is a lower-half CDF value, at most 1/2: the minimum "
                "never binds",
            ),
            f"{_HUBER}logcdf__mutmut_20": (
                "2.0 - 1e-300",
                "as logcdf__mutmut_19",
            ),
            f"{_HUBER}logcdf__mutmut_28": (
                "u < 0, neg, upper",
                "at u = 0 both branches are log(1/2) (symmetry), equal to rounding",
            ),
            f"{_HUBER}sample__mutmut_9": (
                "<= p_centre",
                "U = p_centre exactly has probability 2**-53 at most",
            ),
            f"{_HUBER}sample__mutmut_49": (
                "<= 0.5, -1.0, 1.0)",
                "U = 0.5 exactly has probability 2**-53",
            ),
            f"{_GG}sample__mutmut_19": (
                "<= 0.5, -1.0, 1.0)",
                "U = 0.5 exactly has probability 2**-53",
            ),
            f"{_NL}x_additive_privacy_profile__mutmut_13": (
                "while loss(left) < epsilon:",
                "when loss(left) equals epsilon exactly, left is already the "
                "root: brentq returns it, and the original loop's wider bracket "
                "finds the same t* to xtol (Laplace noise: delta = 0 either way)",
            ),
            f"{_NL}xǁ_LogConcaveTailǁ_redraw_tail__mutmut_2": (
                "far = mag >= self.tail_start",
                "a magnitude exactly at tail_start has probability 2**-53 at "
                "most, and redrawing it from the tail law keeps the law",
            ),
            f"{_NL}xǁ_LogConcaveTailǁ_tail__mutmut_25": (
                "self._rho(u) + base - slope",
                "scales every acceptance probability by the constant "
                "exp(-2 rho(T)): rejection sampling then accepts the same "
                "conditional law, only after more draws",
            ),
            f"{_NL}x_additive_privacy_profile__mutmut_16": (
                "left *= 3.0",
                "a wider bracket for the same unique root: the same t* to xtol",
            ),
            f"{_NL}x_additive_privacy_profile__mutmut_17": (
                "if left <= -1e6 * (D + noise.scale):",
                "moves the give-up point by at most one doubling beyond "
                "1e6 (D + scale), where both CDF terms are 0 in double "
                "precision: delta is 0.0 either way",
            ),
            f"{_NL}x_additive_privacy_profile__mutmut_20": (
                "-1000001.0 * (D + noise.scale)",
                "as x_additive_privacy_profile__mutmut_17",
            ),
            f"{_NL}x_additive_privacy_profile__mutmut_31": (
                "D / 2, )",
                "brentq's default xtol (2e-12) instead of 1e-12 D: t* maximises "
                "F(t) - e**eps F(t - D), so an error in t* changes delta only "
                "to second order, far below double precision",
            ),
            f"{_NL}x_additive_privacy_profile__mutmut_35": (
                "left, D * 2, xtol",
                "the loss is below epsilon on all of [D / 2, 2 D] (it is 0 at "
                "D / 2 and decreasing): the same bracketed root",
            ),
            f"{_NL}x_standard_exponential__mutmut_6": (
                "draws.reshape(-2)",
                "numpy reads a negative size as 'infer', as -1",
            ),
            f"{_NL}x_standard_exponential__mutmut_9": (
                "flat >= cap",
                "a draw exactly at cap has probability 2**-53 at most; "
                "replacing it by cap plus a fresh draw keeps the law",
            ),
            f"{_NL}x_standard_exponential__mutmut_19": (
                "again = fresh >= cap",
                "as x_standard_exponential__mutmut_9",
            ),
            f"{_GG}sample__mutmut_6": (
                "rng.gamma(1.0 / self.power, size=size)",
                "numpy's default gamma scale is 1.0",
            ),
        },
    ),
    "seeding": ModuleSpec(
        path="skprivate/utils/_seeding.py",
        # the tests of the seeded stream that reach the fingerprints
        tests=[
            "tests/test_privacy_contract.py::"
            "test_settings_fingerprint_is_stable_across_processes",
            "tests/test_privacy_contract.py::"
            "test_same_seed_at_two_settings_draws_independent_noise",
            "tests/test_privacy_contract.py::test_reproducible_sequence_with_an_int_seed",
            "tests/test_privacy_deployment.py::"
            "test_same_seed_on_other_data_draws_other_noise",
        ],
        new_tests=["tests/test_mutation_seeding.py"],
        equivalent={
            f"{_SEED}x_data_fingerprint__mutmut_14": (
                'cast("b")',
                "signed or unsigned bytes, the buffer hashlib reads is the same",
            ),
            f"{_SEED}x_canonical__mutmut_52": (
                "get_params(deep=None)",
                "get_params tests deep for truth: None acts as False",
            ),
            f"{_SEED}x_canonical__mutmut_54": (
                'callable(value) or hasattr(value, "__qualname__")',
                "every object with a __qualname__ (functions, classes, methods, "
                "builtins, generic aliases) is callable, and every callable that "
                "reaches this line without one falls through to 'o:' either way",
            ),
            f"{_SEED}x_data_fingerprint__mutmut_37": (
                "protocol=None",
                "pickle's default protocol is 4 on Python 3.8-3.13 (this run: "
                "3.11); on 3.14, whose default is 5, "
                "test_fingerprint_of_other_data_pickles_or_falls_back_to_canonical "
                "fails on it",
            ),
            f"{_SEED}x_data_fingerprint__mutmut_39": (
                "pickle.dumps(data, ))",
                "as x_data_fingerprint__mutmut_37",
            ),
        },
    ),
}


#: The rest of the priority list, not yet configured above (in order).
NOT_YET = [
    "skprivate/ldp/_additive.py (sampler parts)",
    "skprivate/ldp/_square_wave.py (sampler parts)",
    "skprivate/negative_survey/_perturber.py",
    "skprivate/subset/_mechanism.py",
    "skprivate/base.py (noise stream)",
    "skprivate/_privacy_report/",
    "the conf_int code of every family",
    "skprivate/utils/validation.py",
    "skprivate/survey/_spec.py, skprivate/survey/_server.py",
    "skprivate/survey/static/samplers.js (needs a JS tool such as Stryker)",
]


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


def _mutmut() -> str:
    local = Path(sys.executable).with_name("mutmut")
    return str(local) if local.exists() else "mutmut"


def _changed_lines(work: Path, name: str) -> str:
    shown = subprocess.run(
        [_mutmut(), "show", name], cwd=work, capture_output=True, text=True
    ).stdout
    plus = [
        line[1:].strip()
        for line in shown.splitlines()
        if line.startswith("+") and not line.startswith("+++")
    ]
    return " / ".join(plus)


# Runs in the mutants directory: one process, skprivate imported once, each
# survivor switched on in turn through MUTANT_UNDER_TEST (mutmut's trampolines
# read it at every call).
_KILLER_SCRIPT = """
import json, os, signal, sys
import pytest

def _stop(signum, frame):
    raise TimeoutError("the mutant runs the new tests for over 300 s")

signal.signal(signal.SIGALRM, _stop)

class First:
    def __init__(self):
        self.failed = None
    def pytest_runtest_logreport(self, report):
        if report.failed and self.failed is None:
            self.failed = report.nodeid

names, tests = json.loads(sys.argv[1]), json.loads(sys.argv[2])
args = ["-x", "-q", "-p", "no:randomly", "-p", "no:cacheprovider", "-n", "0",
        "--tb=no", "--no-header", *tests]
found = {}
for name in ["no mutant", *names]:
    os.environ["MUTANT_UNDER_TEST"] = name
    first = First()
    signal.alarm(300)  # a mutant that makes a new test loop forever is caught
    code = pytest.main(args, plugins=[first])
    signal.alarm(0)
    found[name] = first.failed if code != 0 else None
    if code != 0 and first.failed is None:
        found[name] = "pytest exit " + str(int(code))
print("KILLERS " + json.dumps(found))
"""


def _killers(work: Path, names: list[str], tests: list[str]) -> dict:
    """The first new test that fails with each mutant on (None: none fails)."""
    present = [t for t in tests if (work / "mutants" / t).exists()]
    if not present or not names:
        return dict.fromkeys(names)
    result = subprocess.run(
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
        capture_output=True,
        text=True,
    )
    for line in result.stdout.splitlines():
        if line.startswith("KILLERS "):
            found = json.loads(line[len("KILLERS ") :])
            baseline = found.pop("no mutant")
            if baseline is not None:
                raise RuntimeError(f"{baseline} fails without any mutant")
            return found
    raise RuntimeError("the new tests could not be run:\n" + result.stdout[-2000:])


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


def _refresh_tests(work: Path) -> None:
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for target in (work / "tests", work / "mutants" / "tests"):
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(ROOT / "tests", target, ignore=ignore)


def run_module(key: str, reuse: bool = False) -> dict:
    """Mutate one module, classify every mutant, return the record.

    The work directory (``<tmp>/skprivate-mutation/<key>``) is kept; with
    ``reuse=True`` a finished mutmut run of the same module source is not
    repeated, only the survivors are checked again against the current
    ``tests/test_mutation_*.py`` files.
    """
    spec = MODULES[key]
    start = time.perf_counter()
    work = _work_dir(key)
    if reuse and _reusable(work, spec):
        _refresh_tests(work)
        previous = _load_runs().get(key, {})
        start -= previous.get("mutmut_seconds", 0)
    else:
        shutil.rmtree(work, ignore_errors=True)
        work.mkdir(parents=True)
        _prepare(work, spec)
        log = work / "mutmut.log"
        with log.open("w") as out:
            subprocess.run(
                ["nice", "-n", "5", _mutmut(), "run", "--max-children", "1"],
                cwd=work,
                stdout=out,
                stderr=subprocess.STDOUT,
                check=False,
            )
    mutmut_seconds = round(time.perf_counter() - start)
    meta = work / "mutants" / (spec.path + ".meta")
    codes = json.loads(meta.read_text())["exit_code_by_key"]
    # timeouts are rechecked too: a new test that fails says what they break
    rechecked = [
        n for n, c in codes.items() if STATUS.get(c) in ("survived", "timeout")
    ]
    killers = _killers(work, rechecked, spec.new_tests)
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
        if status == "survived":
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
    source = (ROOT / spec.path).read_bytes()
    return {
        "module": spec.path,
        "commit": _commit(spec.path),
        "source_sha256": hashlib.sha256(source).hexdigest()[:12],
        "tests": spec.tests,
        "new_tests": spec.new_tests,
        "seconds": round(time.perf_counter() - start),
        "mutmut_seconds": mutmut_seconds,
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


def _natural(item: tuple) -> list:
    return [int(p) if p.isdigit() else p for p in re.split(r"(\d+)", item[0])]


def _load_runs() -> dict:
    if RUNS_FILE.exists():
        return json.loads(RUNS_FILE.read_text(encoding="utf-8"))
    return {}


def _counts(record: dict) -> dict:
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
    return {
        "module": record["module"],
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
        "target 90 % met": "yes" if rate >= TARGET else "no",
        "time of the last invocation (s)": record["seconds"],
    }


def _sections(runs: dict) -> list[Section]:
    order = [k for k in MODULES if k in runs]
    not_run = [MODULES[k].path for k in MODULES if k not in runs] + NOT_YET
    summary = pd.DataFrame([_counts(runs[k]) for k in order])
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
        rows = [
            {
                "mutant": m["name"].split(".")[-1],
                "change (mutated line)": m.get("change", ""),
                "status": m["status"],
                "reason / killing test": m["reason"]
                or (
                    "not killed: no test checks this yet"
                    if m["status"] == "survived"
                    else ""
                ),
            }
            for m in record["mutants"]
            if m["status"] != "killed"
        ]
        tables = [pd.DataFrame(rows)] if rows else []
        sections.append(Section(f"`{record['module']}`", "\n".join(lines), tables))
    return sections


def run(
    quick: bool = False,
    n_jobs: int = 1,
    modules: list[str] | None = None,
    reuse: bool = False,
) -> list[Section]:
    """Mutate the chosen modules (all by default) and return the sections.

    ``n_jobs`` is ignored: mutmut always runs on one worker here.
    """
    chosen = modules or (list(MODULES)[:1] if quick else list(MODULES))
    runs = _load_runs()
    for key in chosen:
        print(f"mutation: {key} ({MODULES[key].path})", flush=True)
        record = run_module(key, reuse=reuse)
        runs = _load_runs()  # another module may have been rerun meanwhile
        runs[key] = record
        RUNS_FILE.write_text(
            json.dumps(runs, indent=1, ensure_ascii=False) + "\n", encoding="utf-8"
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
    args = parser.parse_args(argv)
    start = time.perf_counter()
    if args.report_only:
        runs = _load_runs()
        sections = _sections(runs)
        start -= sum(r["seconds"] for r in runs.values())  # the stored runs' time
    else:
        sections = run(modules=args.module, reuse=args.reuse)
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
