"""Subset privacy for categorical data (Wang & Ding).

Each respondent reports a random subset of categories that contains the true
one; estimators recover the category distribution and test independence.
"""

__all__: list[str] = []
