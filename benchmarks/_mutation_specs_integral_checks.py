"""Mutation spec of the check that the intervals of rounded releases warn.

``integral/_rounding_check.py`` computes the coverage of an integrally
private release's interval for every place of the truth between two values
of the rounding grid and warns where that range leaves the band around the
level.  Its exact cases (enumeration of the grid values, the jumps, the
warning's full text) are in ``tests/integral/test_rounding_check.py``.
Merged into ``MODULES`` by ``_mutation_modules.py``.
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
}
