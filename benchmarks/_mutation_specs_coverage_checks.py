"""Mutation specs of two checks that make intervals say what they cover.

``integral/_rounding_check.py`` computes the coverage of an integrally
private release's interval for every place of the truth between two values
of the rounding grid and warns where that range leaves the band around the
level; its exact cases (enumeration of the grid values, the jumps, the
warning's full text) are in ``tests/integral/test_rounding_check.py``.
``ldp/_fieller_check.py`` warns where a deconvolution regression's Fieller
interval holds every value (``tests/ldp/test_fieller_check.py``).  Merged
into ``MODULES`` by ``_mutation_modules.py``.
"""

from __future__ import annotations

from ._mutation_modules import ModuleSpec, _all_but

SPECS: dict[str, ModuleSpec] = {
    "integral_rounding_check": ModuleSpec(
        path="skprivate/integral/_rounding_check.py",
        # not the test of the warning's location, which mutmut's trampolines
        # move (it runs in the ordinary suite)
        tests=_all_but(
            "tests/integral/test_rounding_check.py",
            "test_warning_points_to_the_caller",
        ),
        new_tests=[],
    ),
    "ldp_fieller_check": ModuleSpec(
        path="skprivate/ldp/_fieller_check.py",
        # not the test of the warning's location (as above)
        tests=_all_but(
            "tests/ldp/test_fieller_check.py", "test_warning_points_to_the_caller"
        ),
        new_tests=[],
    ),
}
