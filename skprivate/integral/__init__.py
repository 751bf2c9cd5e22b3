"""Integrally private descriptive statistics.

Releases statistics whose value is produced by many different resampled
subsets of the data that share no common record, with optional input
microaggregation.
"""

__all__: list[str] = []
