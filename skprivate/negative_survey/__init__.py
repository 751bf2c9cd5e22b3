"""Real-value negative survey, RVNS (Jiang et al.).

Each respondent reports values drawn away from a band around the true value;
the collector reconstructs the whole population density.
"""

__all__: list[str] = []
