"""Mutation specs of the exact output laws and of the audit that certifies them.

Each privatizer's ``exact_law`` describes the law its ``secure=True``
sampler implements on the grid; the audit (``skprivate/_audit``) computes
the privacy loss of the deployed object from it.  A wrong law, or a wrong
worst case of a law, would certify a figure the sampler does not keep, so
these modules are guarantee code like the samplers.
"""

from __future__ import annotations

from ._mutation_modules import ModuleSpec

_AUDIT_TESTS = [
    "tests/test_audit.py",
    "tests/test_privacy_report_audit.py",
]
_ENGINE_TESTS = [
    *_AUDIT_TESTS,
    "tests/negative_survey/test_audit_windows.py",
    "tests/test_mutation_exact_laws.py",
]

SPECS: dict[str, ModuleSpec] = {
    # the Laplace, generalized Gaussian, flipped Huber and Square Wave laws
    "ldp_exact_laws": ModuleSpec(
        path="skprivate/ldp/_exact_laws.py",
        tests=[
            *_AUDIT_TESTS,
            "tests/test_mutation_ldp.py",
            "tests/test_mutation_square_wave.py",
        ],
        new_tests=["tests/test_mutation_exact_laws.py"],
    ),
    # the worst case of a rounded shift law (Laplace, generalized Gaussian,
    # flipped Huber on a grid): epsilon over the input pairs and outputs,
    # delta by the hockey-stick divergence
    "audit_shift": ModuleSpec(
        path="skprivate/_audit/_shift.py",
        tests=_ENGINE_TESTS,
        new_tests=["tests/test_mutation_audit.py"],
    ),
    # the band and matrix laws (Square Wave, subset privacy)
    "audit_finite": ModuleSpec(
        path="skprivate/_audit/_finite.py",
        tests=_ENGINE_TESTS,
        new_tests=["tests/test_mutation_audit.py"],
    ),
}
