"""Instances of the ldp family for the common tests.

The deconvolution learners need the noise description: either
``noise_scale`` or a ``privatizer``.  Their default construction has
neither and ``fit`` refuses it, so the common checks use a known noise
scale, and also a privatizer-driven instance.
"""

from skprivate import (
    DeconvolutionKernelClassifier,
    DeconvolutionKernelDensity,
    DeconvolutionKernelRegressor,
    LaplaceLDP,
)

TEST_INSTANCES = {
    "LaplaceLDP": lambda: [
        LaplaceLDP(),
        LaplaceLDP(epsilon=2.0, bounds=(-10, 10), secure=True, random_state=0),
    ],
    "DeconvolutionKernelDensity": lambda: [
        DeconvolutionKernelDensity(noise_scale=0.1),
        DeconvolutionKernelDensity(bandwidth=0.5, kernel="cauchy", noise_scale=0.2),
    ],
    "DeconvolutionKernelRegressor": lambda: [
        DeconvolutionKernelRegressor(noise_scale=0.1),
        DeconvolutionKernelRegressor(
            kernel="cauchy",
            privatizer=LaplaceLDP(epsilon=1000.0, bounds=(-10, 10), random_state=0),
        ),
    ],
    "DeconvolutionKernelClassifier": lambda: [
        DeconvolutionKernelClassifier(noise_scale=0.1),
    ],
}

_STREAM_ONE_FEATURE = (
    "the check calls partial_fit on several features, and with the default "
    "bandwidth='cv' and no support: streaming refuses both by design (a "
    "bandwidth chosen by cross-validation and a grid following the data are "
    "data-derived, and the binned counts kept instead of the records live on a "
    "one-dimensional grid), raising a ValueError that names the parameter; "
    "fit accepts all of them."
)

EXPECTED_FAILED_CHECKS: dict[str, dict[str, str]] = {
    "DeconvolutionKernelDensity": {
        "check_fit_score_takes_y": _STREAM_ONE_FEATURE,
        "check_n_features_in_after_fitting": _STREAM_ONE_FEATURE,
    },
}
