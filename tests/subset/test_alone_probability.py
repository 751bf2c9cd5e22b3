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


def test_alone_probability_is_the_largest_over_the_categories():
    """A design that is not symmetric in the categories: the first category
    is never reported alone, the second most often (0.48, against 0.08 for
    the third), and the summary states the largest, checked by simulation."""
    from skprivate.subset import SubsetDesign, SubsetMechanism

    shown = np.array(
        [
            [0, 1, 0, 0],
            [1, 0, 1, 1],
            [1, 1, 0, 0],
            [0, 0, 1, 1],
            [1, 0, 1, 0],
            [0, 1, 0, 1],
            [0, 0, 1, 0],
            [1, 1, 0, 1],
        ]
    )
    design = SubsetDesign.independent(
        shown, [0.3, 0.3, 0.1, 0.1, 0.05, 0.05, 0.05, 0.05], min_coverage=0.2
    )
    cats = ["a", "b", "c", "d"]
    mech = SubsetMechanism(design=design, categories=[cats], random_state=0)
    mech.fit([["a"]])
    stated = mech.privacy_summary()["columns"][0]["alone_probability"]
    assert stated == pytest.approx(0.48, abs=1e-12)
    n = 40_000
    for j, (cat, p) in enumerate(zip(cats, [0.0, 0.48, 0.08, 0.0])):
        observed = mech.transform(np.array([[cat]] * n))[:, :4]
        alone = np.mean((observed == np.eye(4)[j]).all(axis=1))
        assert abs(alone - p) <= 4 * np.sqrt(p * (1 - p) / n)
