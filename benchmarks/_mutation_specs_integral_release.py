"""Mutation spec of the integrally private release itself (Algorithm 1).

``skprivate/integral/_resampling.py`` draws the resamples, computes their
rounded statistics, counts each value's generators and releases the most
frequent value whose generators have an empty intersection: the code the
guarantee of :class:`~skprivate.IntegralPrivateStatistics` rests on.
Merged into ``MODULES`` by ``_mutation_modules.py``.
"""

from __future__ import annotations

from ._mutation_modules import ModuleSpec

SPECS: dict[str, ModuleSpec] = {
    "integral_release": ModuleSpec(
        path="skprivate/integral/_resampling.py",
        tests=[
            "tests/integral/test_resampling.py",
            "tests/integral/test_statistics.py",
            "tests/integral/test_machine_independence.py",
        ],
        new_tests=["tests/test_mutation_integral_release.py"],
    ),
}
