"""Run the doctests of the public modules of skprivate.integral."""

import doctest
import warnings

import pytest

from skprivate.integral import _dp, _microaggregation, _statistics


@pytest.mark.parametrize("module", [_dp, _microaggregation, _statistics])
def test_docstring_examples(module):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        result = doctest.testmod(
            module, optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS
        )
    assert result.attempted > 0
    assert result.failed == 0
