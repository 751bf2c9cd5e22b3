"""The demo's interval cells say which estimate an interval is built around."""

import numpy as np
import pandas as pd

from skprivate._app.intervals import interval_text


def _frame(estimate, lower, upper):
    return pd.DataFrame({"estimate": [estimate], "lower": [lower], "upper": [upper]})


def test_interval_around_the_printed_estimate_shows_bounds_only():
    assert interval_text(_frame(1.234, 1.0, 1.5), point=1.2349) == "[1.00, 1.50]"


def test_interval_around_another_estimate_names_its_centre():
    # A bias-corrected quantile: the printed estimate 66.55 lies outside
    # [66.58, 67.81]; the cell says the interval is centred elsewhere.
    text = interval_text(_frame(67.2, 66.58, 67.81), point=66.55)
    assert text == "[66.58, 67.81] around 67.20"


def test_centre_compared_at_the_printed_precision():
    ci = _frame(0.12341, 0.1, 0.15)
    assert interval_text(ci, fmt=".4f", point=0.12344) == "[0.1000, 0.1500]"
    assert interval_text(ci, fmt=".4f", point=0.12346) == (
        "[0.1000, 0.1500] around 0.1234"
    )


def test_no_point_and_unbounded_intervals():
    assert interval_text(_frame(5.0, 1.0, 2.0)) == "[1.00, 2.00]"
    assert interval_text(_frame(5.0, -np.inf, 2.0), point=1.0) == ""
    assert interval_text(None, point=1.0) == ""
