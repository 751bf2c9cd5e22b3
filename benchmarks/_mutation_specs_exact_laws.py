"""Mutation specs of the exact output laws that ``skprivate.audit`` certifies.

Each privatizer's ``exact_law`` describes the law its ``secure=True``
sampler implements on the grid; the audit computes the privacy loss of the
deployed object from it.  A wrong law would certify a figure the sampler
does not keep, so these modules are guarantee code like the samplers.
"""

from __future__ import annotations

from ._mutation_modules import ModuleSpec

_AUDIT_TESTS = [
    "tests/test_audit.py",
    "tests/test_privacy_report_audit.py",
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
}
