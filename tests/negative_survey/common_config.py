"""Instances and expected failures of the negative-survey family in test_common."""

from skprivate.negative_survey import RVNSDensityEstimator, RVNSPerturber

_SCORE_COLUMNS = (
    "score() takes clean values of the variable while fit() takes k reports per "
    "row, so their column counts differ by design and score() does not compare "
    "them with n_features_in_."
)

TEST_INSTANCES = {
    # d is required (it defines the mechanism); 0.01 fits every column range
    # of scikit-learn's generic data, with bounds read from the data.
    "RVNSPerturber": lambda: [RVNSPerturber(d=0.01, k=2)],
    # Reports pooled from every column.  Bounds and bandwidth are declared so
    # that partial_fit, which refuses data-derived ones, can run in the checks
    # (the family's tests cover bounds and bandwidth read from the data).
    "RVNSDensityEstimator": lambda: [
        RVNSDensityEstimator(d=0.01, bounds=(-1000, 1000), bandwidth=50.0, n_points=20)
    ],
}

EXPECTED_FAILED_CHECKS = {
    "RVNSDensityEstimator": {"check_n_features_in_after_fitting": _SCORE_COLUMNS}
}
