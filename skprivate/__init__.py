"""skprivate: collect data privately and learn from privatized data.

Six privacy families, each a subpackage holding its mechanisms (scikit-learn
transformers) and the learners that consume their output:

* :mod:`skprivate.interval` -- interval privacy;
* :mod:`skprivate.ldp` -- Laplace local differential privacy + deconvolution;
* :mod:`skprivate.subset` -- subset privacy for categorical data;
* :mod:`skprivate.negative_survey` -- the real-value negative survey;
* :mod:`skprivate.integral` -- integrally private descriptive statistics;
* :mod:`skprivate.frequency` -- frequency oracles (k-RR, unary encoding,
  local hashing, Hadamard response) beside subset privacy.

Every public name of every family is importable from ``skprivate`` directly.
The names are resolved on first use (PEP 562), so ``import skprivate`` and the
command line's ``--help`` do not pay for scikit-learn and scipy; a name costs
the import of its own family only.
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0.dev0"

_FAMILY_NAMES = (
    "interval",
    "ldp",
    "subset",
    "negative_survey",
    "integral",
    "frequency",
)

# Public names of each family, as in its ``__all__`` (tests/test_fast_paths.py
# checks the two agree; a name missing here is still found, by importing
# every family).
_FAMILY_EXPORTS: dict[str, tuple[str, ...]] = {
    "interval": (
        "IntervalCaseI",
        "IntervalCaseII",
        "IntervalEnsemble",
        "IntervalMLE",
        "IntervalMechanism",
        "IntervalNPMLE",
        "IterativeIntervalRegressor",
        "average_coverage",
        "composition_bound",
        "estimate_coverage",
        "individual_coverage",
        "interval_distance",
        "interval_mae",
        "interval_r2_score",
        "interval_r2_scorer",
        "intervals_from_answers",
        "neg_interval_mae_scorer",
        "optimal_anchor_density",
        "truncated_mean",
        "truncated_second_moment",
        "turnbull_intervals",
        "uniform_anchor_mean",
    ),
    "ldp": (
        "DeconvolutionKernelClassifier",
        "DeconvolutionKernelDensity",
        "DeconvolutionKernelRegressor",
        "FlippedHuberLDP",
        "GeneralizedGaussianLDP",
        "LaplaceLDP",
        "PerturbedKDEEstimator",
        "SquareWaveEMSEstimator",
        "SquareWaveLDP",
        "deconvolution_kernel",
    ),
    "subset": (
        "SubsetDesign",
        "SubsetDistributionEstimator",
        "SubsetIndependenceResult",
        "SubsetMechanism",
        "SubsetUniform",
        "subset_independence_test",
        "subset_individual_leakage",
        "subset_leakage",
    ),
    "negative_survey": (
        "RVNSDensityEstimator",
        "RVNSPerturber",
        "grid_kde",
        "indicator_errors",
        "ksdensity_bandwidth",
        "privacy_distance",
        "rvns_adversary_inference",
        "rvns_grid",
        "rvns_transition_density",
        "rvns_transition_matrix",
        "six_indicators",
        "wasserstein_on_grid",
    ),
    "integral": (
        "IntegralPrivateStatistics",
        "Microaggregator",
        "absolute_relative_error",
        "integral_describe",
        "laplace_describe",
        "laplace_intervals",
        "laplace_statistic",
        "microaggregate",
    ),
    "frequency": (
        "BinaryLocalHashing",
        "FrequencyEstimator",
        "FrequencyOracle",
        "GeneralizedRandomizedResponse",
        "HadamardResponse",
        "LongitudinalFrequencyEstimator",
        "LongitudinalOracle",
        "OptimizedLocalHashing",
        "OptimizedUnaryEncoding",
        "SymmetricUnaryEncoding",
        "norm_sub",
        "oracle_variance",
    ),
}

# Shared public names: name -> module relative to the package.
_SHARED_EXPORTS = {
    "CoverageWarning": ".exceptions",
    "InvalidParameterError": ".exceptions",
    "NotIdentifiableWarning": ".exceptions",
    "PrivacyLeakWarning": ".exceptions",
    "RowwiseTransformer": "._privacy_report",
    "audit": "._audit",
    "expected_half_width": "._planning",
    "plan_sample_size": "._planning",
    "privacy_report": "._privacy_report",
}

_WHERE = dict(_SHARED_EXPORTS)
for _family, _names in _FAMILY_EXPORTS.items():
    _WHERE.update(dict.fromkeys(_names, "." + _family))
del _family, _names

# Subpackages reachable as attributes right after ``import skprivate``.
_SUBMODULES = ("datasets", *_FAMILY_NAMES)

__all__ = [
    "CoverageWarning",
    "FAMILIES",
    "InvalidParameterError",
    "NotIdentifiableWarning",
    "PrivacyLeakWarning",
    "RowwiseTransformer",
    "__version__",
    "audit",
    "expected_half_width",
    "plan_sample_size",
    "privacy_report",
    *(name for names in _FAMILY_EXPORTS.values() for name in names),
]


def _families() -> dict[str, Any]:
    return {
        name: importlib.import_module("." + name, __name__) for name in _FAMILY_NAMES
    }


def __getattr__(name: str) -> Any:
    if name in _SUBMODULES:
        return importlib.import_module("." + name, __name__)
    if name == "FAMILIES":
        value: Any = _families()
    elif name in _WHERE:
        value = getattr(importlib.import_module(_WHERE[name], __name__), name)
    elif not name.startswith("_"):
        # A public name added to a family but not yet to _FAMILY_EXPORTS.
        for module in _families().values():
            if name in module.__all__:
                value = getattr(module, name)
                break
        else:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__) | set(_SUBMODULES))
