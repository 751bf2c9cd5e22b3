"""The summary states how often a subset report is the category alone."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from skprivate import SubsetUniform
from skprivate.survey._spec import mechanism_spec, subset_disclosure


def _fitted(categories, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return SubsetUniform(categories=[categories], **kwargs).fit([[categories[0]]])


@pytest.mark.parametrize(
    "categories, kwargs",
    [
        (["a", "b"], {}),
        (["a", "b", "c"], {}),
        (list("abcdef"), {}),
        (["a", "b", "c"], {"min_coverage": 0.1}),
        (list("abcd"), {"min_coverage": 0.2}),
    ],
)
def test_alone_probability_agrees_with_the_survey_pages_closed_form(categories, kwargs):
    """Two implementations: the exact law's table, and the page's formula."""
    sub = _fitted(categories, **kwargs)
    stated = sub.privacy_summary()["columns"][0]["alone_probability"]
    _, alone = subset_disclosure(mechanism_spec(sub))
    assert stated == pytest.approx(float(alone), abs=1e-12)


def test_alone_probability_of_small_designs_exactly():
    """Two categories: {x} or its complement {y}, so the report names x
    whenever it is the singleton: 19/20 of the uniform draws of sizes 1-1."""
    assert _fitted(["a", "b"]).privacy_summary()["columns"][0][
        "alone_probability"
    ] == pytest.approx(0.95, abs=1e-12)
    observed = _fitted(["a", "b", "c"], random_state=0).transform(
        np.array([["a"]] * 20_000)
    )
    # the report {a} alone (columns a, b, c, then the two dummy indicators)
    alone = np.mean((observed[:, :3] == [1, 0, 0]).all(axis=1))
    stated = _fitted(["a", "b", "c"]).privacy_summary()["columns"][0]
    se = np.sqrt(0.32 * 0.68 / 20_000)
    assert abs(alone - stated["alone_probability"]) < 4 * se
