"""Run the doctests of the ldp family's public modules."""

import doctest
import importlib

import pytest

MODULES = [
    "skprivate.ldp._laplace",
    "skprivate.ldp._kernels",
    "skprivate.ldp._density",
    "skprivate.ldp._regression",
]


@pytest.mark.parametrize("name", MODULES)
def test_doctests_pass(name):
    module = importlib.import_module(name)
    result = doctest.testmod(
        module, optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS
    )
    assert result.attempted > 0
    assert result.failed == 0
