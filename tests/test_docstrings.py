"""Run the examples in the docstrings of the shared modules."""

import doctest
import importlib

import pytest

MODULES = [
    "skprivate.utils.validation",
    "skprivate.utils.discovery",
    "skprivate.distributions",
    "skprivate.datasets._base",
    "skprivate.datasets._generators",
    "skprivate.model_selection",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(
        module, optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS
    )
    assert result.attempted > 0, f"{name} has no docstring examples"
    assert result.failed == 0
