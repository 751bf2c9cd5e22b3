"""Released integral-family answers do not depend on the BLAS kernel.

OpenBLAS picks its kernel from the CPU (or ``OPENBLAS_CORETYPE``); the same
code on another machine must release the same statistics.  The script
``fixed_seed_answers.py`` prints fixed-seed answers on synthetic and real
columns; it runs here under several kernels and thread counts and every
output must be identical, digit for digit.
"""

import os
import platform
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

SCRIPT = Path(__file__).with_name("fixed_seed_answers.py")
ROOT = Path(__file__).resolve().parents[2]

SETTINGS = {
    "default": {},
    "Haswell": {"OPENBLAS_CORETYPE": "Haswell"},
    "SkylakeX": {"OPENBLAS_CORETYPE": "SkylakeX"},
    "Prescott": {"OPENBLAS_CORETYPE": "Prescott"},
    "Zen": {"OPENBLAS_CORETYPE": "Zen"},
    "Haswell, one thread": {
        "OPENBLAS_CORETYPE": "Haswell",
        "OPENBLAS_NUM_THREADS": "1",
    },
}


# CPU flags each forced kernel needs (a kernel the CPU lacks would crash).
REQUIRED_FLAGS = {
    "Haswell": {"avx2", "fma"},
    "Zen": {"avx2", "fma"},
    "SkylakeX": {"avx512f", "avx512bw", "avx512vl"},
    "Prescott": {"sse3"},
}


def _cpu_flags() -> set[str]:
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return set()
    for line in text.splitlines():
        if line.startswith("flags"):
            flags = set(line.split(":", 1)[1].split())
            # Linux calls SSE3 "pni" (Prescott New Instructions).
            return flags | ({"sse3"} if "pni" in flags else set())
    return set()


def _settings() -> dict[str, dict[str, str]]:
    flags = _cpu_flags()
    out = {}
    for name, extra in SETTINGS.items():
        kernel = extra.get("OPENBLAS_CORETYPE")
        if kernel is None or REQUIRED_FLAGS[kernel] <= flags:
            out[name] = extra
    return out


def _uses_openblas() -> bool:
    try:
        from threadpoolctl import threadpool_info
    except ImportError:  # pragma: no cover - threadpoolctl is a dependency
        return False
    np.ones(2) @ np.ones(2)
    return any(i.get("internal_api") == "openblas" for i in threadpool_info())


@pytest.mark.skipif(
    platform.machine() not in ("x86_64", "AMD64") or not _uses_openblas(),
    reason="OpenBLAS x86-64 kernels are forced by name",
)
def test_fixed_seed_answers_are_identical_on_every_blas_kernel():
    settings = _settings()
    assert len(settings) >= 3, f"too few kernels runnable here: {list(settings)}"
    procs = {}
    for name, extra in settings.items():
        env = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith(("OPENBLAS_", "OMP_", "MKL_"))
        }
        env.update(extra)
        env["PYTHONPATH"] = os.pathsep.join(
            [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]
        )
        procs[name] = subprocess.Popen(
            [sys.executable, str(SCRIPT)],
            env=env,
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
    outputs = {}
    for name, proc in procs.items():
        out, err = proc.communicate(timeout=600)
        assert proc.returncode == 0, f"{name}: {err[-2000:]}"
        outputs[name] = out
    reference = outputs["default"]
    assert "life" in reference and "adult" in reference
    for name, out in outputs.items():
        assert out == reference, f"answers differ under {name}"
