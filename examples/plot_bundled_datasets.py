"""
The bundled datasets
====================

skprivate ships two real datasets for its examples and its demo: the UCI
Adult census extract and the Gapminder life-expectancy panel.  This example
loads both and shows the columns the privacy families use: the race
distribution (subset privacy), years of education against income (local
differential privacy) and life expectancy (interval privacy).
"""

import matplotlib.pyplot as plt

from skprivate.datasets import load_adult, load_life_expectancy

adult = load_adult()
life = load_life_expectancy()

fig, axes = plt.subplots(1, 3, figsize=(12, 3.5))
adult["race"].value_counts(normalize=True).plot.barh(ax=axes[0])
axes[0].set_xlabel("share of respondents")
axes[0].set_title("Adult: race")

rich = adult.groupby("education_num")["income"].apply(lambda s: (s == ">50K").mean())
axes[1].plot(rich.index, rich.values, marker="o")
axes[1].set_xlabel("years of education")
axes[1].set_ylabel("P(income > 50K)")
axes[1].set_title("Adult: income vs education")

life["life_expectancy"].plot.hist(bins=40, ax=axes[2])
axes[2].set_xlabel("life expectancy (years)")
axes[2].set_title("Gapminder, 1960-2016")
fig.tight_layout()
plt.show()
