"""Interval privacy: random intervals instead of values (Ding & Ding).

Mechanisms report the random cell ``(lower, upper]`` that contains a value;
learners estimate distributions and regression functions from such cells.
"""

__all__: list[str] = []
