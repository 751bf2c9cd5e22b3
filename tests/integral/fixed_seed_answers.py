"""Print fixed-seed integral-family answers; run by test_machine_independence.

Run as a script: ``python tests/integral/fixed_seed_answers.py``.  Every
number printed must be the same on every BLAS kernel and thread count.
"""

import warnings

import numpy as np
import pandas as pd

from skprivate.datasets import load_adult, load_life_expectancy
from skprivate.integral import (
    IntegralPrivateStatistics,
    Microaggregator,
    integral_describe,
    laplace_describe,
    microaggregate,
)


def main() -> None:
    warnings.simplefilter("ignore")
    pd.set_option("display.precision", 17)
    rng = np.random.default_rng(0)
    synthetic = pd.DataFrame(
        {
            "a": rng.normal(10, 2, 400),
            "b": rng.poisson(4, 400).astype(float),
            "c": rng.lognormal(3, 1, 400),
        }
    )
    adult = load_adult()
    life = load_life_expectancy()
    real = {
        "adult": adult[["age", "hours_per_week", "education_num"]].iloc[:1500],
        "life": life[["life_expectancy", "fertility"]].dropna().iloc[:1500],
    }
    print(
        integral_describe(
            synthetic, n_resamples=300, min_cluster_size=20, random_state=0
        ).to_string()
    )
    for name, frame in real.items():
        for y in (None, 20):
            table = integral_describe(
                frame, n_resamples=300, min_cluster_size=y, random_state=1
            )
            print(name, y)
            print(table.to_string())
    est = IntegralPrivateStatistics(
        n_resamples=300, selection="least_error", random_state=2
    ).fit(synthetic)
    print(est.results_.to_string())
    print(
        laplace_describe(
            real["life"], epsilon=1.0, bounds=(0, 100), random_state=3
        ).to_string()
    )
    for col in ("age", "hours_per_week"):
        column = real["adult"][col].to_numpy(float)
        values, labels = microaggregate(column, 7, "optimal")
        print(col, repr(values.sum()), labels.max())
    print(Microaggregator(4, method="mdav").fit(synthetic).labels_.tolist())


if __name__ == "__main__":
    main()
