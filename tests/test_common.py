"""Checks every public estimator of skprivate must pass.

Estimators are discovered with :func:`skprivate.utils.all_estimators`, so a
class added to a family's ``__all__`` is covered here with no edit.  The
instance tested is the default-constructed one unless ``TEST_INSTANCES``
gives others (for estimators whose defaults cannot take the generic data of
scikit-learn's checks).  Each expected failure of scikit-learn's checks is
listed in ``EXPECTED_FAILED_CHECKS`` with the reason.

Each family keeps its entries of both tables next to its own tests, in
``tests/<family>/common_config.py`` (optional), merged here.
"""

from __future__ import annotations

import importlib.util
import inspect
from pathlib import Path

import numpy as np
import pytest
import sklearn
from scipy import sparse
from sklearn.base import clone
from sklearn.utils import get_tags
from sklearn.utils.estimator_checks import parametrize_with_checks

import skprivate
from skprivate.base import ParamsValidationMixin, PrivatizerMixin
from skprivate.exceptions import InvalidParameterError
from skprivate.utils import all_estimators

SKLEARN_VERSION = tuple(int(p) for p in sklearn.__version__.split(".")[:2])

# name -> callable returning a list of instances to check instead of the default.
TEST_INSTANCES: dict[str, object] = {}

# name -> {check name: why scikit-learn's generic check cannot pass}.
EXPECTED_FAILED_CHECKS: dict[str, dict[str, str]] = {}


def _merge_family_configs() -> None:
    for path in sorted(Path(__file__).parent.glob("*/common_config.py")):
        spec = importlib.util.spec_from_file_location(f"_cfg_{path.parent.name}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        TEST_INSTANCES.update(getattr(module, "TEST_INSTANCES", {}))
        EXPECTED_FAILED_CHECKS.update(getattr(module, "EXPECTED_FAILED_CHECKS", {}))


_merge_family_configs()


def _instances():
    out = []
    for name, cls in all_estimators():
        factory = TEST_INSTANCES.get(name)
        out.extend(factory() if factory else [cls()])
    return out


INSTANCES = _instances()


def _scikit_learn_bugs(estimator) -> dict[str, str]:
    """Checks that are broken in the scikit-learn release under test itself."""
    bugs = {}
    if SKLEARN_VERSION < (1, 7) and get_tags(estimator).input_tags.categorical:
        bugs["check_positive_only_tag_during_fit"] = (
            "scikit-learn < 1.7 casts categorical X to int32 and then subtracts a "
            "float mean in place, which raises inside the check (fixed in 1.7)."
        )
    if get_tags(estimator).input_tags.one_d_array and not _csr_from_1d():
        bugs["check_estimator_sparse_tag"] = (
            "the check makes X 1-D for an estimator taking 1-D arrays and then "
            "builds a CSR array from it, which older scipy releases refuse (it "
            "raises inside the check, before the estimator sees X)."
        )
    return bugs


def _csr_from_1d() -> bool:
    try:
        sparse.csr_array(np.array([0.0, 1.0, 0.0]))
    except ValueError:
        return False
    return True


def _expected_failed_checks(estimator):
    return {
        **EXPECTED_FAILED_CHECKS.get(type(estimator).__name__, {}),
        **_scikit_learn_bugs(estimator),
    }


@parametrize_with_checks(INSTANCES, expected_failed_checks=_expected_failed_checks)
def test_sklearn_compatible_estimator(estimator, check):
    check(estimator)


def test_every_family_name_is_exported_at_top_level():
    for family in skprivate.FAMILIES.values():
        for name in family.__all__:
            assert getattr(skprivate, name) is getattr(family, name)
            assert name in skprivate.__all__


def test_discovery_picks_up_a_new_public_estimator(monkeypatch):
    from sklearn.base import BaseEstimator

    class BrandNewEstimator(BaseEstimator):
        def fit(self, X, y=None):
            return self

    BrandNewEstimator.__module__ = "skprivate.ldp"
    monkeypatch.setattr(
        skprivate.ldp, "BrandNewEstimator", BrandNewEstimator, raising=False
    )
    monkeypatch.setattr(
        skprivate.ldp, "__all__", [*skprivate.ldp.__all__, "BrandNewEstimator"]
    )
    assert ("BrandNewEstimator", BrandNewEstimator) in all_estimators()


@pytest.mark.parametrize("estimator", INSTANCES, ids=lambda e: type(e).__name__)
def test_parameters_are_declared_and_validated(estimator):
    """Every constructor parameter has a constraint and a bad type is refused in fit."""
    assert isinstance(estimator, ParamsValidationMixin), (
        f"{type(estimator).__name__} must validate its parameters "
        "(inherit ParamsValidationMixin and call self._check_params() in fit)."
    )
    params = estimator.get_params(deep=False)
    declared = set(type(estimator)._parameter_constraints)
    assert declared == set(params), (
        f"_parameter_constraints of {type(estimator).__name__} must list exactly "
        f"its parameters; missing {set(params) - declared}, "
        f"extra {declared - set(params)}"
    )
    bad = type("BadType", (), {})()
    X = np.random.default_rng(0).uniform(size=(20, 3))
    y = np.arange(20) % 2
    for name, constraint in type(estimator)._parameter_constraints.items():
        if constraint == "no_validation":
            continue
        est = clone(estimator).set_params(**{name: bad})
        with pytest.raises(InvalidParameterError, match=f"'{name}' parameter"):
            est.fit(X, y)


PRIVATIZERS = [e for e in INSTANCES if isinstance(e, PrivatizerMixin)]


@pytest.mark.parametrize("privatizer", PRIVATIZERS, ids=lambda e: type(e).__name__)
def test_privatizers_describe_their_privacy(privatizer):
    assert callable(getattr(privatizer, "privacy_summary", None)), (
        f"{type(privatizer).__name__} must implement privacy_summary()."
    )
    assert "random_state" in privatizer.get_params()


@pytest.mark.parametrize("estimator", INSTANCES, ids=lambda e: type(e).__name__)
def test_public_docstring_has_example(estimator):
    doc = inspect.getdoc(type(estimator)) or ""
    assert "Parameters" in doc and "Examples" in doc, (
        f"{type(estimator).__name__} needs a numpydoc docstring with Parameters "
        "and Examples."
    )
