"""Run the doctests of the negative-survey modules."""

import doctest
import importlib

import pytest

MODULES = [
    "skprivate.negative_survey._transition",
    "skprivate.negative_survey._perturber",
    "skprivate.negative_survey._reconstruction",
    "skprivate.negative_survey._kde",
    "skprivate.negative_survey._metrics",
    "skprivate.negative_survey._baselines",
]


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name):
    module = importlib.import_module(name)
    result = doctest.testmod(
        module, optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS
    )
    assert result.failed == 0
