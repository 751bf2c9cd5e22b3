"""Demo section of the subset family: Adult race and sex × income."""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats

from skprivate.subset import (
    SubsetDistributionEstimator,
    SubsetUniform,
    subset_independence_test,
    subset_leakage,
)

from ..demo import ADULT, DemoFigure, DemoRow, DemoSection, DemoTable, pyplot
from ..intervals import interval_frame_or_none, interval_text

METHODS = ("mom", "em", "mle", "one-step")
# The categories are public (the questionnaire's answer options), declared
# before collection: reading them from the data would publish a category held
# by a single person (SubsetUniform warns about it).
RACES = ["Amer-Indian-Eskimo", "Asian-Pac-Islander", "Black", "Other", "White"]
SEXES = ["Female", "Male"]
INCOMES = ["<=50K", ">50K"]


def run(context):
    """Privatize Adult's race column, estimate its distribution, test sex × income."""
    seed = context.random_state
    adult = context.adult
    race = adult[["race"]]
    mech = SubsetUniform(categories=[RACES], random_state=seed + 1).fit(race)
    reports = mech.transform(race)
    cats = list(mech.categories_[0])
    clean = race["race"].value_counts(normalize=True).reindex(cats).to_numpy()
    design = mech.designs_[0]
    privacy = f"uniform design, p={len(cats)}"
    rows = []
    estimates = {}
    intervals = {}
    for method in METHODS:
        est = SubsetDistributionEstimator(method, design=mech).fit(reports)
        estimates[method] = est.distribution_
        intervals[method] = interval_frame_or_none(est, "pmf", cats)
        l1 = float(np.abs(est.distribution_ - clean).sum())
        white = cats.index("White")
        rows.append(
            DemoRow(
                "subset",
                ADULT,
                f"race distribution ({method}); private/clean: share of White",
                privacy,
                f"{est.distribution_[white]:.4f}",
                f"{clean[white]:.4f}",
                f"L1 {l1:.4f}",
                "share of people (0-1)",
                interval_text(interval_frame_or_none(est, "pmf", ["White"]), fmt=".4f"),
            )
        )
    leak = subset_leakage(design, clean)
    for label, key, unit, clean_value in [
        ("size leakage of race", "size_leakage", "share (0-1)", None),
        (
            "mutual information between race and report",
            "mutual_information_bits",
            "bits",
            None,
        ),
        ("prediction leakage of race", "prediction_leakage", "share (0-1)", 1.0),
    ]:
        before = leak.get(f"{key}_nonprivate", clean_value)
        rows.append(
            DemoRow(
                "subset",
                ADULT,
                f"{label} (clean: the race column itself)",
                privacy,
                f"{leak[key]:.3f}",
                f"{before:.3f}",
                f"{leak[key] - before:+.3f}",
                unit,
            )
        )
    pair = adult[["sex", "income"]]
    mech_a = SubsetUniform(
        categories=[SEXES], min_coverage=0.05, random_state=seed + 2
    ).fit(pair[["sex"]])
    mech_b = SubsetUniform(
        categories=[INCOMES], min_coverage=0.05, random_state=seed + 3
    ).fit(pair[["income"]])
    test = subset_independence_test(
        mech_a.transform(pair[["sex"]]),
        mech_b.transform(pair[["income"]]),
        method="lrt-mom",
        design_a=mech_a,
        design_b=mech_b,
    )
    table = np.array(
        [
            [((pair.sex == s) & (pair.income == i)).sum() for i in ("<=50K", ">50K")]
            for s in ("Female", "Male")
        ]
    )
    expected = table.sum(1, keepdims=True) * table.sum(0, keepdims=True) / table.sum()
    clean_chi2 = float(((table - expected) ** 2 / expected).sum())
    clean_p = float(stats.chi2.sf(clean_chi2, 1))
    same = (test.pvalue < 0.05) == (clean_p < 0.05)
    rows.append(
        DemoRow(
            "subset",
            ADULT,
            "sex ⟂ income: test statistic (private: LRT on MoM estimates; "
            "clean: Pearson χ²)",
            "p=2 (sex, income)",
            f"{test.statistic:.1f}",
            f"{clean_chi2:.1f}",
            "same decision at 5%" if same else "decisions differ at 5%",
            "χ², 1 degree of freedom",
        )
    )
    rows.append(
        DemoRow(
            "subset",
            ADULT,
            "sex ⟂ income: p-value",
            "p=2 (sex, income)",
            f"{test.pvalue:.2g}",
            f"{clean_p:.2g}" if clean_p > 0 else "< 1e-300",
            "same decision at 5%" if same else "decisions differ at 5%",
            "probability",
        )
    )
    shares = pd.DataFrame(
        {"clean": clean, **{m: estimates[m] for m in METHODS}},
        index=pd.Index(cats, name="race"),
    )
    figures = {}
    plt = pyplot()
    if plt is not None:
        fig, ax = plt.subplots(figsize=(8, 3.6))
        pos = np.arange(len(cats))
        height = 0.16
        ax.barh(pos - 2 * height, clean, height, label="clean", color="black")
        for k, method in enumerate(METHODS):
            ci = intervals[method]
            xerr = None
            if ci is not None:
                # 95% intervals as error bars; a lower end at or below zero
                # is drawn down to the axis (log scale)
                low = np.maximum(ci["lower"].to_numpy(float), 1e-4)
                high = ci["upper"].to_numpy(float)
                xerr = np.vstack(
                    [
                        np.maximum(estimates[method] - low, 0.0),
                        np.maximum(high - estimates[method], 0.0),
                    ]
                )
            ax.barh(
                pos + (k - 1) * height,
                estimates[method],
                height,
                label=method,
                xerr=xerr,
                error_kw={"elinewidth": 0.8, "capsize": 1.5},
            )
        ax.set_xscale("log")
        ax.set_yticks(pos, cats)
        ax.invert_yaxis()
        ax.set_xlabel("share of people (log scale)")
        ax.set_title(f"{ADULT}: race shares from subset reports vs clean")
        # outside the axes: inside, it would cover the ends of the long bars
        ax.legend(
            fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1), borderaxespad=0
        )
        fig.tight_layout()
        figures["adult_race_shares"] = DemoFigure(
            fig,
            "For each race, the four coloured bars (estimates from the subset "
            "reports) should be as long as the black bar (the clean share). The "
            "log scale makes the small groups visible; their relative errors are "
            "the largest. The whiskers are the 95% confidence intervals of the "
            "private estimates (conf_int, from the reports alone).",
            shares,
        )
    text = (
        f"Each of the {len(race):,} Adult respondents reported a random subset "
        f"of the {len(cats)} races containing their own (uniform design; the "
        "categories are the questionnaire's, declared in advance, not read "
        "from the data). The "
        "four estimators (method of moments, EM, maximum likelihood, one-step) "
        "recover the race distribution from the subsets. Leakage measures how "
        "much the reports reveal about a person's race, next to the same "
        "measure for publishing the race column itself. The test of sex ⟂ "
        "income uses only subset reports of each column (min_coverage=0.05)."
    )
    return DemoSection(
        "subset",
        rows,
        figures,
        text,
        title=f"random subsets of categories, {ADULT}",
        lead="Subset privacy: each person reports a random set of categories "
        "that contains the true one; distributions and tests use the sets only.",
        glossary={
            "p": "number of categories of the privatized column",
            "uniform design": "a subset of size 2..p-2 is drawn uniformly, "
            "independently of the value; the report is that subset if it "
            "contains the value, else its complement",
        },
        tables=[
            DemoTable(
                "Race shares: clean and estimated from the subset reports",
                shares.round(4),
            )
        ],
    )
