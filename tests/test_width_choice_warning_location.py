"""The warning that the widest smoothing width is tied points at the caller.

Kept apart from the mutation tests of the width choice: under mutmut a
trampoline frame stands between the caller and the module, which moves the
warning's location.
"""

import warnings
from dataclasses import replace

import numpy as np
from scipy import stats

from skprivate.exceptions import CoverageWarning
from skprivate.negative_survey import RVNSDensityEstimator, RVNSPerturber


def test_widest_width_warning_names_the_callers_line():
    x = stats.beta(2, 5, scale=10.0).rvs(size=(300, 1), random_state=2)
    r = RVNSPerturber(d=4.0, k=1, bounds=(0, 10), random_state=2).fit_transform(x)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = RVNSDensityEstimator(d=4.0, bounds=(0, 10), n_points=30).fit(r)
    choice = est._width_choice
    k = choice.widths.size
    tied = np.isin(np.arange(k), [choice.chosen, int(np.argmax(choice.widths))])
    est._width_choice = replace(
        choice,
        gain=np.where(tied, 0.0, 1.0),
        gain_se=np.full(k, 0.01),
        log_probs=None,
    )
    for kind, points in (("cdf", [2.0]), ("quantile", [0.5])):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            est.conf_int(kind, points, X=r)
        assert [w.category for w in caught] == [CoverageWarning]
        assert "widest candidate" in str(caught[0].message)
        assert caught[0].filename == __file__
