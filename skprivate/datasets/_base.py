"""Loaders for the real datasets vendored with skprivate."""

from __future__ import annotations

from importlib import resources

import pandas as pd

__all__ = ["load_adult", "load_life_expectancy"]


def _read(filename: str) -> pd.DataFrame:
    with resources.as_file(resources.files(__package__) / "data" / filename) as path:
        return pd.read_csv(path)


def load_adult() -> pd.DataFrame:
    """Load the UCI Adult ("Census Income") training data, 32,561 rows.

    Extracted by Barry Becker from the 1994 US Census (CPS) database and
    published by Ronny Kohavi and Barry Becker (1996) in the UCI Machine
    Learning Repository, "Adult", https://doi.org/10.24432/C5XW20 .  Licence:
    Creative Commons Attribution 4.0 (CC BY 4.0), as given by the UCI
    repository; cite Kohavi & Becker / UCI when you use it.

    The bundled copy is the raw ``adult.data`` file (MD5
    ``5d7c39d7b8804f071cdd1f2a7c460872``) with snake_case column names,
    whitespace around fields stripped and ``?`` read as missing; rows, order
    and values are unchanged.

    Returns
    -------
    data : pandas.DataFrame of shape (32561, 15)
        Columns ``age``, ``workclass``, ``fnlwgt``, ``education``,
        ``education_num`` (1--16), ``marital_status``, ``occupation``,
        ``relationship``, ``race``, ``sex``, ``capital_gain``,
        ``capital_loss``, ``hours_per_week``, ``native_country`` and
        ``income`` (``"<=50K"`` or ``">50K"``).  ``workclass``,
        ``occupation`` and ``native_country`` have missing values.

    Examples
    --------
    >>> from skprivate.datasets import load_adult
    >>> adult = load_adult()
    >>> adult.shape
    (32561, 15)
    >>> round(float((adult["race"] == "White").mean()), 6)
    0.854274
    """
    return _read("adult.csv.gz")


def load_life_expectancy() -> pd.DataFrame:
    """Load the Gapminder country--year panel of life expectancy, 10,545 rows.

    Health and income outcomes for 185 countries from 1960 to 2016, from the
    Gapminder Foundation (https://www.gapminder.org, data under CC BY 4.0)
    via the ``gapminder`` data frame of the dslabs R package (Irizarry &
    Gill; CRAN, Artistic-2.0).  ``gdp`` is "according to World Bank" (World
    Bank data are CC BY 4.0).  Credit "Gapminder Foundation (via the dslabs R
    package)" when you use it.

    Returns
    -------
    data : pandas.DataFrame of shape (10545, 9)
        Columns ``country``, ``year``, ``infant_mortality`` (per 1,000),
        ``life_expectancy`` (years, no missing values), ``fertility``
        (children per woman), ``population``, ``gdp``, ``continent`` and
        ``region``.  ``infant_mortality``, ``fertility``, ``population`` and
        ``gdp`` have missing values.

    Examples
    --------
    >>> from skprivate.datasets import load_life_expectancy
    >>> load_life_expectancy().shape
    (10545, 9)
    """
    return _read("gapminder_life_expectancy.csv.gz")
