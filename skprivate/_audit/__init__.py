"""Exact audits of privatizers from their own output laws.

The shared machinery names no family: law descriptions
(:class:`ShiftLaw`, :class:`BandLaw`, :class:`MatrixLaw`,
:class:`InfiniteLoss`, :class:`NoExactLaw`) and their exact worst cases.
Each privatizer builds its law in its own family through the
``_exact_law(column)`` hook; :func:`audit` and :func:`audited_columns`
read it.
"""

from ._audit import InfiniteLoss, audit, audited_columns, read_from_data
from ._finite import BandLaw, MatrixLaw
from ._numeric import log1mexp, log_upper_gamma, logdiffexp
from ._result import NoExactLaw, WorstCase
from ._shift import RoundedNoise, ShiftLaw

__all__ = [
    "BandLaw",
    "InfiniteLoss",
    "MatrixLaw",
    "NoExactLaw",
    "RoundedNoise",
    "ShiftLaw",
    "WorstCase",
    "audit",
    "audited_columns",
    "log1mexp",
    "log_upper_gamma",
    "logdiffexp",
    "read_from_data",
]
