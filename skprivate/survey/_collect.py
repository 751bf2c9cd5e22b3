"""Issue respondent tokens, and read the collected answers for the learners."""

from __future__ import annotations

import numbers
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..interval import intervals_from_answers
from ..utils._param_validation import Interval, validate_params
from ._questionnaire import Questionnaire
from ._store import SurveyStore

__all__ = ["issue_tokens", "read_responses"]


class UnknownQuestionError(KeyError, ValueError):
    """A question name the survey does not have (a KeyError and a ValueError)."""

    def __str__(self) -> str:
        return str(self.args[0])


def check_questionnaire(questionnaire: Any) -> None:
    """Refuse anything but a :class:`Questionnaire`, naming the argument."""
    if not isinstance(questionnaire, Questionnaire):
        kind = type(questionnaire).__name__
        raise TypeError(f"questionnaire must be a Questionnaire; got {kind}.")


def issue_tokens(
    questionnaire: Questionnaire, database: str | Path, n_respondents: int
) -> list[str]:
    """Issue one token per respondent, with the respondent's interval anchors.

    The anchors of every interval question are drawn now, by the collector,
    and bound to the token: the respondent's page shows them and the server
    turns the chosen cell into an interval with them.  The database keeps a
    SHA-256 of each token, never the token itself.

    Parameters
    ----------
    questionnaire : Questionnaire
        The survey.
    database : str or Path
        SQLAlchemy URL, or the path of an SQLite file (created if needed).
    n_respondents : int
        Number of tokens to issue.

    Returns
    -------
    tokens : list of str
        One 256-bit URL-safe token per respondent; the respondent's page is
        at ``/s/<token>`` on the server.  Give each to one respondent.

    Examples
    --------
    >>> import tempfile, os
    >>> from skprivate import IntervalCaseI
    >>> from skprivate.survey import Question, Questionnaire, issue_tokens
    >>> survey = Questionnaire(
    ...     [Question("age", "How old are you?", IntervalCaseI().fit([[0.0]]))]
    ... )
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     tokens = issue_tokens(survey, os.path.join(tmp, "survey.db"), 3)
    >>> len(tokens), len(tokens[0])
    (3, 43)
    """
    check_questionnaire(questionnaire)
    validate_params(
        {"n_respondents": [Interval(numbers.Integral, 0, None, closed="left")]},
        {"n_respondents": n_respondents},
        "issue_tokens",
    )
    store = SurveyStore(database)
    try:
        store.initialize(questionnaire.public_spec(), questionnaire.fingerprint())
        return store.add_tokens(questionnaire.draw_anchors(n_respondents))
    finally:
        store.close()


def _question_array(entry: dict, rows: list[tuple[dict, dict]]) -> np.ndarray:
    name, kind, spec = entry["name"], entry["kind"], entry["spec"]
    answers = [a[name] for a, _ in rows]
    n = len(answers)
    if kind == "interval":
        k = spec["n_anchors"]
        anchors = np.array([q[name] for _, q in rows], dtype=float).reshape(n, k)
        cells = np.asarray(answers, dtype=np.int64).reshape(n)
        if n == 0:
            return np.empty((0, 2))
        return intervals_from_answers(anchors, cells)
    if kind == "subset":
        return np.asarray(answers, dtype=np.int8).reshape(n, spec["n_outputs"])
    if kind == "rvns":
        return np.asarray(answers, dtype=float).reshape(n, spec["k"])
    return np.asarray(answers, dtype=float).reshape(n, 1)


def _column_names(entry: dict) -> list[str]:
    name, kind, spec = entry["name"], entry["kind"], entry["spec"]
    if kind == "interval":
        return [f"{name}_lower", f"{name}_upper"]
    if kind == "subset":
        names = [f"{name}={c}" for c in spec["categories"]]
        if spec["dummies"]:
            names += [f"{name}=<dummy1>", f"{name}=<dummy2>"]
        return names
    if kind == "rvns":
        return [f"{name}_s{j}" for j in range(spec["k"])]
    return [name]


def read_responses(
    database: str | Path, question: str | None = None, *, as_frame: bool = False
) -> Any:
    """The collected answers, in the format the learners take.

    * interval question: ``(n, 2)`` intervals ``[lower, upper]`` (the cell
      chosen among the respondent's anchors), for
      :class:`~skprivate.IntervalNPMLE` or
      :class:`~skprivate.IterativeIntervalRegressor`;
    * subset question: ``(n, n_outputs)`` 0/1 report matrix, for
      :class:`~skprivate.SubsetDistributionEstimator`;
    * Laplace and Square Wave questions: ``(n, 1)`` noisy values, for
      :class:`~skprivate.DeconvolutionKernelDensity` and
      :class:`~skprivate.ldp.SquareWaveEMSEstimator`;
    * negative-survey question: ``(n, k)`` reports, for
      :class:`~skprivate.RVNSDensityEstimator`.

    Rows are respondents, in the order their answers were received; every
    stored response answers every question, so the rows of different
    questions belong to the same respondents.

    Parameters
    ----------
    database : str or Path
        SQLAlchemy URL or SQLite file of the survey.
    question : str or None, default=None
        One question's answers; ``None`` gives every question.
    as_frame : bool, default=False
        Return a DataFrame with the column names of the privatizers'
        ``get_feature_names_out`` (``age_lower``, ``race=White``, ...).

    Returns
    -------
    answers : ndarray, dict of ndarray or DataFrame
        An array for one ``question``; a dict question name to array
        otherwise; a DataFrame with ``as_frame=True``.

    Examples
    --------
    >>> import tempfile, os
    >>> from skprivate import IntervalCaseI
    >>> from skprivate.survey import Question, Questionnaire, issue_tokens
    >>> from skprivate.survey import read_responses
    >>> survey = Questionnaire(
    ...     [Question("age", "How old are you?", IntervalCaseI().fit([[0.0]]))]
    ... )
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     db = os.path.join(tmp, "survey.db")
    ...     _ = issue_tokens(survey, db, 2)
    ...     read_responses(db, "age").shape
    (0, 2)
    """
    validate_params(
        {"question": [str, None], "as_frame": ["boolean"]},
        {"question": question, "as_frame": as_frame},
        "read_responses",
    )
    store = SurveyStore(database)
    try:
        spec = store.public_spec()
        rows = store.rows()
    finally:
        store.close()
    entries = spec["questions"]
    if question is not None:
        names = [e["name"] for e in entries]
        if question not in names:
            raise UnknownQuestionError(
                f"No question named {question!r}; the survey has {names}."
            )
        entries = [e for e in entries if e["name"] == question]
    arrays = {e["name"]: _question_array(e, rows) for e in entries}
    if as_frame:
        frames = [
            pd.DataFrame(arrays[e["name"]], columns=_column_names(e)) for e in entries
        ]
        return pd.concat(frames, axis=1)
    if question is not None:
        return arrays[question]
    return arrays
