"""The negative-survey demo section describes where its CDF band misses."""

import numpy as np
import pandas as pd

from skprivate._app.sections.negative_survey import _miss_text


def _band(clean, lower, upper):
    n = len(clean)
    return pd.DataFrame(
        {
            "age": 17.5 + np.arange(n),
            "clean": clean,
            "reconstructed": 0.5 * (np.asarray(lower) + np.asarray(upper)),
            "lower": lower,
            "upper": upper,
        }
    )


def test_miss_text_names_the_runs_of_missed_ages_and_the_largest_gap():
    clean = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6]
    lower = [0.0, 0.25, 0.35, 0.3, 0.4, 0.7]  # misses at 18, 19 and 22
    upper = [0.2, 0.35, 0.45, 0.5, 0.6, 0.8]
    text = _miss_text(_band(clean, lower, upper))
    # the gaps |centre - clean|: 0.1 at 18, 0.1 at 19, 0.15 at 22
    assert "misses the clean share at 3 of the 6 ages (18-19, 22, by at most 15.0" in (
        text
    )


def test_miss_text_when_the_band_contains_every_clean_share():
    text = _miss_text(_band([0.1, 0.2], [0.0, 0.1], [0.2, 0.3]))
    assert text == "Here the band contains the clean share at every age."
