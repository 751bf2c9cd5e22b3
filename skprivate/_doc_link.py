"""Links from an estimator's HTML representation to its documentation page.

scikit-learn's HTML representation (what Jupyter shows for a fitted
estimator) carries a "?" link to the estimator's API page when the class
declares ``_doc_link_module``, ``_doc_link_template`` and, optionally,
``_doc_link_url_param_generator``.  :class:`DocLinkMixin` sets them once for
every skprivate estimator (through :class:`skprivate.base.ParamsValidationMixin`).

Every public estimator is importable from ``skprivate`` and documented at
``generated/skprivate.<ClassName>.html`` (see ``doc/api/*.rst``).  Set the
``SKPRIVATE_DOCS_URL`` environment variable to point the links at another
build of the documentation, e.g. a local one (``file:///.../_build/html/``).
"""

from __future__ import annotations

import os

__all__ = ["DOCS_URL", "DocLinkMixin", "api_page_url"]

#: Root of the published documentation.
DOCS_URL = os.environ.get(
    "SKPRIVATE_DOCS_URL", "https://skprivate.readthedocs.io/en/latest/"
)


def api_page_url(name: str, root: str | None = None) -> str:
    """URL of the API page of the public class or function ``skprivate.<name>``."""
    root = DOCS_URL if root is None else root
    return f"{root.rstrip('/')}/generated/skprivate.{name}.html"


class DocLinkMixin:
    """Give a skprivate estimator a documentation link in its HTML repr."""

    _doc_link_module = "skprivate"

    _doc_link_template = api_page_url("{estimator_name}")

    def _doc_link_url_param_generator(self) -> dict[str, str]:
        return {"estimator_name": type(self).__name__}
