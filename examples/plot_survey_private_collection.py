"""
Running a private survey over HTTP, from question to estimate
=============================================================

Each privatizer of skprivate simulates a mechanism on data already held in
the clear.  :mod:`skprivate.survey` runs the respondent's side for real: a
questionnaire built from fitted privatizers gives every respondent a page
that privatizes the answers on the device, and a small collection server
stores only the privatized answers.  Here 1,200 simulated respondents (rows
of the bundled census extract) answer five questions through HTTP, one per
mechanism, and the learners estimate the population from what the server
stored.

The server runs in a background thread for the length of the example; in a
real survey it is ``python -m skprivate survey serve survey.pkl``.
"""

import tempfile
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

from skprivate import (
    DeconvolutionKernelDensity,
    IntervalCaseII,
    IntervalNPMLE,
    LaplaceLDP,
    RVNSDensityEstimator,
    RVNSPerturber,
    SubsetDistributionEstimator,
    SubsetUniform,
)
from skprivate.datasets import load_adult
from skprivate.ldp import SquareWaveEMSEstimator, SquareWaveLDP
from skprivate.survey import (
    Question,
    Questionnaire,
    background_server,
    fetch_questions,
    issue_tokens,
    read_responses,
    submit_answers,
)

# %%
# The questionnaire
# -----------------
# One fitted privatizer per question, with every parameter (bounds,
# categories) declared before collection.  The interval question never asks
# for the age: the collector draws two anchors per respondent, inside the
# declared support of the ages, and the respondent picks the range that
# holds their age.
races = ["Amer-Indian-Eskimo", "Asian-Pac-Islander", "Black", "Other", "White"]
survey = Questionnaire(
    [
        Question(
            "age",
            "How old are you?",
            IntervalCaseII(
                scale=2.0, anchor_loc=40.0, anchor_scale=12.0, support=(0, 120)
            ).fit([[0.0]]),
            unit="years",
        ),
        Question(
            "race",
            "Which of these best describes you?",
            SubsetUniform(categories=[races]).fit([[races[0]]]),
        ),
        Question(
            "hours",
            "How many hours did you work last week?",
            LaplaceLDP(epsilon=3.0, bounds=(1, 99)).fit([[1.0]]),
            unit="hours",
        ),
        Question(
            "education",
            "How many years of education have you completed?",
            SquareWaveLDP(epsilon=3.0, bounds=(1, 16)).fit([[1.0]]),
        ),
        Question(
            "commute",
            "How many minutes does your trip to work take?",
            RVNSPerturber(d=15.0, k=2, bounds=(0, 120)).fit([[0.0]]),
            unit="minutes",
        ),
    ],
    title="Work and commuting",
)
report = survey.privacy_report()
print(report[["question", "mechanism", "epsilon", "coverage", "privatized_on"]])
print(report["note"].iloc[-1])

# %%
# The respondents
# ---------------
# The census extract has no commuting time; it is drawn from a gamma law
# for the simulation.
rng = np.random.default_rng(0)
people = load_adult().sample(1200, random_state=0)
values = {
    "age": people["age"].to_numpy(float),
    "race": people["race"].to_numpy(),
    "hours": people["hours_per_week"].to_numpy(float),
    "education": people["education_num"].to_numpy(float),
    "commute": np.clip(rng.gamma(3.0, 9.0, len(people)), 0, 120),
}

# %%
# Collection over HTTP
# --------------------
# The collector issues one token per respondent (the interval anchors are
# drawn now and bound to it).  Each simulated respondent fetches their
# questions, privatizes their answers with the question's mechanism, as
# their page would, and posts them.  The server checks every answer against
# the mechanism's output space and accepts one response per token.
folder = tempfile.TemporaryDirectory()
database = Path(folder.name) / "responses.db"
tokens = issue_tokens(survey, database, len(people))
with background_server(survey, database) as url:
    pages = fetch_questions(url, tokens)
    answers = survey.simulate_answers(pages, values, random_state=1)
    statuses = submit_answers(url, tokens, answers)
    replay = submit_answers(url, tokens[:10], answers[:10])
print(f"stored: {statuses.count(201)} of {len(tokens)}; replays refused: {replay}")

# %%
# Estimation from the stored answers
# ----------------------------------
# :func:`~skprivate.survey.read_responses` returns each question's answers
# in the format its learners take: intervals, 0/1 subset reports, noisy
# values, negative-survey reports.
collected = read_responses(database)
for name, array in collected.items():
    print(f"{name:<10} {array.shape}")

npmle = IntervalNPMLE().fit(collected["age"])
shares = SubsetDistributionEstimator(
    method="mle", design=survey["race"].privatizer
).fit(collected["race"])
hours = DeconvolutionKernelDensity(
    noise_scale=survey["hours"].privatizer.scale_, support=(1, 99)
).fit(collected["hours"])
education = SquareWaveEMSEstimator(epsilon=3.0, bounds=(1, 16), n_points=60).fit(
    collected["education"]
)
commute_mechanism = survey["commute"].privatizer
commute = RVNSDensityEstimator(
    d=15.0,
    bounds=(0, 120),
    n_points=60,
    placement=getattr(commute_mechanism, "placement", "paper"),
).fit(collected["commute"])
folder.cleanup()

fig, axes = plt.subplots(1, 5, figsize=(17, 3.4))
ages = np.linspace(17, 90, 300)
axes[0].plot(ages, npmle.cdf(ages), label="NPMLE from ranges")
axes[0].plot(ages, (values["age"][:, None] <= ages).mean(0), "k--", label="clean")
axes[0].set(title="age: CDF (interval)", xlabel="years")
clean_shares = [np.mean(values["race"] == r) for r in races]
x = np.arange(len(races))
axes[1].bar(x - 0.2, shares.distribution_, 0.4, label="from subsets")
axes[1].bar(x + 0.2, clean_shares, 0.4, color="0.6", label="clean")
axes[1].set(title="race: shares (subset)", yscale="log")
axes[1].set_xticks(x, ["AIE", "API", "Black", "Other", "White"], fontsize=8)
for ax, est, key, grid, title in [
    (axes[2], hours, "hours", np.linspace(1, 99, 300), "hours (Laplace LDP)"),
    (axes[3], education, "education", np.linspace(1, 16, 300), "education (SW)"),
    (axes[4], commute, "commute", np.linspace(0, 120, 300), "commute (RVNS)"),
]:
    ax.plot(grid, est.cdf(grid), label="estimate")
    ax.plot(grid, (values[key][:, None] <= grid).mean(0), "k--", label="clean")
    ax.set(title=f"{title}: CDF")
for ax in axes:
    ax.legend(fontsize=7)
fig.tight_layout()
