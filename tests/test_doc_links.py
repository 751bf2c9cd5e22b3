"""Each estimator's Jupyter HTML repr links to its API page."""

import inspect
from pathlib import Path

import pytest
from sklearn.base import BaseEstimator

import skprivate
from skprivate._doc_link import api_page_url

API = Path(__file__).resolve().parents[1] / "doc" / "api"
ESTIMATORS = sorted(
    name
    for name in skprivate.__all__
    if inspect.isclass(getattr(skprivate, name))
    and issubclass(getattr(skprivate, name), BaseEstimator)
)


@pytest.mark.parametrize("name", ESTIMATORS)
def test_html_repr_links_to_the_api_page(name):
    estimator = getattr(skprivate, name)()
    url = api_page_url(name)
    assert url.endswith(f"/generated/skprivate.{name}.html")
    assert f'href="{url}"' in estimator._repr_html_()


def test_every_linked_page_is_generated_by_the_api_reference():
    listed = " ".join(path.read_text() for path in API.glob("*.rst")).split()
    missing = [name for name in ESTIMATORS if name not in listed]
    assert not missing, f"estimators without an API page: {missing}"
