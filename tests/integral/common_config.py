"""Instances and expected failures of the common tests for skprivate.integral.

``Microaggregator(method="mdav")`` is checked in
``tests/integral/test_microaggregation.py`` with its own expected failures,
because an expected failure listed here would apply to every instance of
the class, and the univariate methods pass those checks.
"""

from skprivate.integral import IntegralPrivateStatistics, Microaggregator

TEST_INSTANCES = {
    "Microaggregator": lambda: [
        Microaggregator(min_cluster_size=3, method="optimal"),
        Microaggregator(min_cluster_size=2, method="consecutive"),
    ],
    "IntegralPrivateStatistics": lambda: [
        IntegralPrivateStatistics(n_resamples=50, random_state=0),
    ],
}

EXPECTED_FAILED_CHECKS: dict[str, dict[str, str]] = {}
