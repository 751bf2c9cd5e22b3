"""skprivate: collect data privately and learn from privatized data.

Five privacy families, each a subpackage holding its mechanisms (scikit-learn
transformers) and the learners that consume their output:

* :mod:`skprivate.interval` -- interval privacy;
* :mod:`skprivate.ldp` -- Laplace local differential privacy + deconvolution;
* :mod:`skprivate.subset` -- subset privacy for categorical data;
* :mod:`skprivate.negative_survey` -- the real-value negative survey;
* :mod:`skprivate.integral` -- integrally private descriptive statistics.

Every public name of every family is importable from ``skprivate`` directly.
"""

__version__ = "0.1.0.dev0"

from . import (
    datasets,  # noqa: F401  (skprivate.datasets works after import skprivate)
    integral,
    interval,
    ldp,
    negative_survey,
    subset,
)
from ._audit import audit
from ._planning import expected_half_width, plan_sample_size
from ._privacy_report import RowwiseTransformer, privacy_report
from .exceptions import (
    InvalidParameterError,
    NotIdentifiableWarning,
    PrivacyLeakWarning,
)
from .integral import *  # noqa: F403
from .interval import *  # noqa: F403
from .ldp import *  # noqa: F403
from .negative_survey import *  # noqa: F403
from .subset import *  # noqa: F403

FAMILIES = {
    "interval": interval,
    "ldp": ldp,
    "subset": subset,
    "negative_survey": negative_survey,
    "integral": integral,
}

__all__ = [
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
    *interval.__all__,
    *ldp.__all__,
    *subset.__all__,
    *negative_survey.__all__,
    *integral.__all__,
]
