"""Run the doctests of the interval family's public modules."""

import doctest
import importlib

import pytest

MODULES = [
    "skprivate.interval._mechanisms",
    "skprivate.interval._coverage",
    "skprivate.interval._npmle",
    "skprivate.interval._parametric",
    "skprivate.interval._metrics",
    "skprivate.interval._regression",
]


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name):
    module = importlib.import_module(name)
    result = doctest.testmod(
        module,
        optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS,
        verbose=False,
    )
    assert result.failed == 0
