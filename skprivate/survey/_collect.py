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
from ._store import SurveyStore, check_existing, check_persistent

__all__ = ["issue_tokens", "read_responses", "read_waves"]


class UnknownQuestionError(KeyError, ValueError):
    """A question name the survey does not have (a KeyError and a ValueError)."""

    def __str__(self) -> str:
        return str(self.args[0])


def check_questionnaire(questionnaire: Any) -> None:
    """Refuse anything but a :class:`Questionnaire`, naming the argument,
    and a questionnaire whose questions' privatizers changed since they were
    built (its pages would sample another mechanism than the one reported
    and charged)."""
    if not isinstance(questionnaire, Questionnaire):
        kind = type(questionnaire).__name__
        raise TypeError(f"questionnaire must be a Questionnaire; got {kind}.")
    for q in questionnaire.questions:
        q._check_spec()


def issue_tokens(
    questionnaire: Questionnaire, database: str | Path, n_respondents: int
) -> list[str]:
    """Issue one token per respondent, with the respondent's interval anchors.

    The anchors of every interval question are drawn now, by the collector,
    from fresh operating-system entropy whatever the ``random_state`` of the
    question's privatizer (a seed is for simulation: two calls, or two
    loads of one saved questionnaire, never give respondents the same
    anchors), and bound to the token: the respondent's page shows them and
    the server turns the chosen cell into an interval with them.  The
    database keeps a SHA-256 of each token, never the token itself.

    Parameters
    ----------
    questionnaire : Questionnaire
        The survey.
    database : str or Path
        SQLAlchemy URL, or the path of an SQLite file (created if needed).
        An in-memory SQLite database (``sqlite://``) is refused: the tokens
        would vanish with it.
    n_respondents : int
        Number of tokens to issue.

    Returns
    -------
    tokens : list of str
        One 256-bit URL-safe token per respondent; the respondent's page is
        at ``/s/<token>`` on the server.  Give each to one respondent.

    Raises
    ------
    ValueError
        For an in-memory ``database``, a database holding another
        questionnaire, or a question whose privatizer changed since the
        question was built.

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
    check_persistent(database, "issue_tokens")
    store = SurveyStore(database)
    try:
        store.initialize(questionnaire.public_spec(), questionnaire.fingerprint())
        anchors = questionnaire.draw_anchors(n_respondents, random_state=None)
        return store.add_tokens(anchors)
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
    if kind == "frequency":
        width = {"krr": 1, "hr": 1, "olh": 2, "blh": 2}.get(spec["oracle"], spec["k"])
        return np.asarray(answers, dtype=np.int64).reshape(n, width)
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
    if kind == "frequency" and spec["oracle"] in ("olh", "blh"):
        return [f"{name}_seed", f"{name}_hash"]
    if kind == "frequency" and spec["oracle"] == "hr":
        return [f"{name}_hadamard"]
    if kind == "frequency" and spec["oracle"] != "krr":
        return [f"{name}={c}" for c in spec["categories"]]
    return [name]


def read_responses(
    database: str | Path,
    question: str | None = None,
    *,
    as_frame: bool = False,
    wave: int | None = None,
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
      :class:`~skprivate.RVNSDensityEstimator`;
    * frequency question: ``(n, 1)`` reported category codes (k-RR),
      ``(n, k)`` bits (unary encoding), ``(n, 2)`` seeds and buckets (local
      hashing) or ``(n, 1)`` Hadamard indices (Hadamard response), for
      :class:`~skprivate.frequency.FrequencyEstimator` with the question's
      privatizer as ``oracle``; a memoized question
      (:class:`~skprivate.frequency.LongitudinalOracle`) for
      :class:`~skprivate.frequency.LongitudinalFrequencyEstimator` with that
      privatizer (``waves=1``: one wave's estimate), and :func:`read_waves`
      gives all its waves side by side for the pooled estimate.

    Rows are respondents, in the order their answers were received; every
    stored response answers every question, so the rows of different
    questions belong to the same respondents.

    Parameters
    ----------
    database : str or Path
        SQLAlchemy URL or SQLite file of the survey; an SQLite file that
        does not exist is refused (``ValueError``), never created.
    question : str or None, default=None
        One question's answers; ``None`` gives every question.
    as_frame : bool, default=False
        Return a DataFrame with the column names of the privatizers'
        ``get_feature_names_out`` (``age_lower``, ``race=White``, ...).
    wave : int or None, default=None
        The responses of one wave of a survey asked in waves; ``None``: the
        responses of every wave, in the order received (a respondent then
        has one row per wave answered).

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
        {
            "question": [str, None],
            "as_frame": ["boolean"],
            "wave": [Interval(numbers.Integral, 1, None, closed="left"), None],
        },
        {"question": question, "as_frame": as_frame, "wave": wave},
        "read_responses",
    )
    check_existing(database)
    store = SurveyStore(database)
    try:
        spec = store.public_spec()
        rows = store.rows(wave)
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


def read_waves(
    database: str | Path, question: str, *, waves: int | None = None
) -> np.ndarray:
    """One question's answers of waves 1 to ``waves``, one row per respondent.

    The input of :class:`~skprivate.frequency.LongitudinalFrequencyEstimator`
    for a memoized frequency question: each row holds the waves' report
    blocks in order (the layout of
    :meth:`~skprivate.frequency.LongitudinalOracle.transform` with
    ``waves`` waves).  Only the respondents who answered every one of these
    waves are kept, in the order of their first answer.

    Parameters
    ----------
    database : str or Path
        SQLAlchemy URL or SQLite file of the survey; an SQLite file that
        does not exist is refused (``ValueError``), never created.
    question : str
        The question's name.
    waves : int or None, default=None
        Number of waves; ``None``: the last wave stored.

    Returns
    -------
    answers : ndarray of shape (n_respondents, waves * n_wave_columns)

    Examples
    --------
    >>> import tempfile, os
    >>> from skprivate.frequency import LongitudinalOracle
    >>> from skprivate.survey import Question, Questionnaire, issue_tokens
    >>> from skprivate.survey import read_waves
    >>> lo = LongitudinalOracle(categories=[["a", "b"]]).fit([["a"]])
    >>> survey = Questionnaire([Question("q", "Which?", lo)], lifetime_epsilon=4.0)
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     db = os.path.join(tmp, "survey.db")
    ...     _ = issue_tokens(survey, db, 2)
    ...     read_waves(db, "q", waves=2).shape
    (0, 2)
    """
    validate_params(
        {
            "question": [str],
            "waves": [Interval(numbers.Integral, 1, None, closed="left"), None],
        },
        {"question": question, "waves": waves},
        "read_waves",
    )
    check_existing(database)
    store = SurveyStore(database)
    try:
        spec = store.public_spec()
        rows = store.wave_rows()
    finally:
        store.close()
    entries = {e["name"]: e for e in spec["questions"]}
    if question not in entries:
        raise UnknownQuestionError(
            f"No question named {question!r}; the survey has {list(entries)}."
        )
    entry = entries[question]
    n_waves = (
        int(waves) if waves is not None else max((w for _, w, _, _ in rows), default=1)
    )
    by_token: dict[str, dict[int, tuple[dict, dict]]] = {}
    for token, w, answers, anchors in rows:
        by_token.setdefault(token, {})[w] = (answers, anchors)
    wanted = set(range(1, n_waves + 1))
    complete = [got for got in by_token.values() if wanted <= got.keys()]
    blocks = [
        _question_array(entry, [got[t] for got in complete])
        for t in range(1, n_waves + 1)
    ]
    return np.hstack(blocks)
