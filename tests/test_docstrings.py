"""Run the examples in the docstrings of every skprivate module.

Modules are discovered, so a new module's examples are run with no edit.
Every public function and class of a family (its ``__all__``) must show an
example.
"""

import doctest
import importlib
import inspect
import pkgutil
import warnings

import pytest

import skprivate

MODULES = sorted(
    info.name
    for info in pkgutil.walk_packages(skprivate.__path__, prefix="skprivate.")
    if not info.name.endswith("__main__")
)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_pass(name):
    module = importlib.import_module(name)
    with warnings.catch_warnings():
        # Examples may show a warning-producing call (bounds read from data, ...).
        warnings.simplefilter("ignore")
        result = doctest.testmod(
            module, optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS
        )
    assert result.failed == 0


PUBLIC = [
    (family, name, getattr(module, name))
    for family, module in skprivate.FAMILIES.items()
    for name in module.__all__
    # Scorer objects are instances documented where they are defined.
    if inspect.isfunction(getattr(module, name))
    or inspect.isclass(getattr(module, name))
]


@pytest.mark.parametrize(
    "family, name, obj", PUBLIC, ids=[f"{f}.{n}" for f, n, _ in PUBLIC]
)
def test_public_names_have_numpydoc_and_an_example(family, name, obj):
    doc = inspect.getdoc(obj) or ""
    assert "Examples" in doc, f"skprivate.{name} ({family}) needs an Examples section"
    if inspect.isfunction(obj) and inspect.signature(obj).parameters:
        assert "Parameters" in doc, f"skprivate.{name} needs a Parameters section"
