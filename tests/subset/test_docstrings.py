import doctest

import pytest

from skprivate.subset import (
    _design,
    _estimator,
    _independence,
    _leakage,
    _mechanism,
)


@pytest.mark.parametrize(
    "module", [_design, _estimator, _independence, _leakage, _mechanism]
)
def test_docstring_examples(module):
    result = doctest.testmod(
        module, optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS
    )
    assert result.failed == 0
    assert result.attempted > 0 or module is None
