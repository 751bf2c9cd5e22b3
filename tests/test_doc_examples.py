"""The examples of the guide pages run and print what the pages say."""

import doctest
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[1] / "doc"


@pytest.mark.parametrize("page", ["frequency.rst"])
def test_guide_page_examples(page):
    result = doctest.testfile(
        str(DOC / page),
        module_relative=False,
        optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE,
        verbose=False,
    )
    assert result.attempted > 0
    assert result.failed == 0
