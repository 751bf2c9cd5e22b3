"""The operator's view of a survey: answers over time and running estimates.

:func:`survey_status` reads the stored private answers of a survey (never a
raw value: the server has none) and gives, per question, the number of
stored answers and the estimate of the question's main quantity with its
confidence interval, computed by the estimator of the question's mechanism
and that estimator's own ``conf_int``; and the number of responses per hour
or per day, from the hour each response was received.
"""

from __future__ import annotations

import math
import numbers
import warnings
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .._uncertainty import check_level, conf_int_rows
from ..exceptions import NotIdentifiableWarning
from ..utils._param_validation import Options, validate_params
from ..utils._warnings import external_stacklevel
from ._collect import _question_array, check_questionnaire
from ._questionnaire import Question, Questionnaire
from ._store import SurveyStore, check_existing, display_url

__all__ = ["QuestionStatus", "SurveyStatus", "survey_status"]

# Fewer stored answers than this give no estimate: with one or two answers
# an "estimate" is little more than those answers themselves.
MIN_ANSWERS = 5
# Up to this many hours between the first and the last recorded response,
# freq="auto" counts per hour; beyond it, per day.
HOURLY_SPAN_HOURS = 48
ESTIMATE_COLUMNS = [
    "statistic",
    "value",
    "centre",
    "lower",
    "upper",
    "level",
    "method",
    "covers",
    "note",
]


@dataclass(frozen=True)
class QuestionStatus:
    """The running estimate of one question.

    Attributes
    ----------
    name, kind, text : str
        The question's name, the kind of its mechanism and its wording.
    n_answers : int
        Stored answers to the question.
    estimator : str
        The estimator fitted on the stored answers, with its parameters
        (empty when no estimate was made).
    estimates : DataFrame
        One row per statistic, with the columns ``statistic`` (``mean``,
        ``q50`` the median, or ``P(category)``), ``value``, ``centre`` (the
        estimate the interval is built around), ``lower``, ``upper``,
        ``level``, ``method`` (how ``conf_int`` computed the interval, or why
        there is none), ``covers`` (what the interval covers, as
        ``conf_int`` states it) and ``note``.  NaN where there is no number.
    notes : tuple of str
        Why there is no estimate, and the warnings of the estimator.

    Examples
    --------
    >>> import tempfile, os
    >>> from skprivate import LaplaceLDP
    >>> from skprivate.survey import Question, Questionnaire, issue_tokens
    >>> from skprivate.survey import survey_status
    >>> survey = Questionnaire(
    ...     [Question("hours", "Hours?", LaplaceLDP(bounds=(0, 80)).fit([[0.0]]))]
    ... )
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     db = os.path.join(tmp, "survey.db")
    ...     _ = issue_tokens(survey, db, 1)
    ...     question = survey_status(survey, db).questions[0]
    >>> question.name, question.n_answers, question.estimates.empty
    ('hours', 0, True)
    >>> question.estimator
    'DeconvolutionKernelDensity(noise_scale=80, support=(0, 80))'
    """

    name: str
    kind: str
    text: str
    n_answers: int
    estimator: str
    estimates: pd.DataFrame
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class SurveyStatus:
    """What :func:`survey_status` returns.

    Attributes
    ----------
    title : str
        The questionnaire's title.
    level : float
        Confidence level of the intervals.
    issued, responses : int
        Respondent links issued, and responses stored.
    freq : {"hour", "day"}
        The period of :attr:`counts`.
    counts : DataFrame
        Responses received per period (UTC): columns ``period`` (the start
        of the period, ``YYYY-MM-DDTHH:00Z`` or ``YYYY-MM-DD``; ``unrecorded``
        for responses stored before the server recorded times),
        ``responses`` and ``cumulative``, and ``wave`` first when the
        survey has waves.  Every response answers every question, so these
        are also the answers per question over time.
    questions : tuple of QuestionStatus
        One entry per question, in the questionnaire's order.
    wave : int or None
        The wave the estimates are of, when several waves are stored (each
        respondent answers every wave, so the waves are not pooled): the
        latest.  None: every stored response.

    Examples
    --------
    >>> import tempfile, os
    >>> from skprivate import IntervalCaseI
    >>> from skprivate.survey import Question, Questionnaire, issue_tokens
    >>> from skprivate.survey import survey_status
    >>> survey = Questionnaire(
    ...     [Question("age", "How old are you?", IntervalCaseI().fit([[0.0]]))]
    ... )
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     db = os.path.join(tmp, "survey.db")
    ...     _ = issue_tokens(survey, db, 2)
    ...     status = survey_status(survey, db)
    >>> status.to_dict()["questions"][0]["notes"]
    ['too few answers for an estimate (no answers yet; at least 5)']
    >>> status.to_frame()[["question", "n_answers", "value"]]
      question  n_answers  value
    0      age          0    NaN
    """

    title: str
    level: float
    issued: int
    responses: int
    freq: str
    counts: pd.DataFrame
    questions: tuple[QuestionStatus, ...] = field(default_factory=tuple)
    wave: int | None = None

    def to_frame(self) -> pd.DataFrame:
        """Every question's estimates in one tidy frame.

        Returns
        -------
        DataFrame
            Columns ``question, kind, n_answers, estimator`` and the columns
            of :attr:`QuestionStatus.estimates`.
        """
        parts = []
        for q in self.questions:
            part = q.estimates.copy()
            if part.empty:
                text = {"statistic": "", "method": "", "covers": ""}
                row = {c: text.get(c, np.nan) for c in ESTIMATE_COLUMNS}
                row["note"] = "; ".join(q.notes)
                part = pd.DataFrame([row], columns=ESTIMATE_COLUMNS)
            part.insert(0, "estimator", q.estimator)
            part.insert(0, "n_answers", q.n_answers)
            part.insert(0, "kind", q.kind)
            part.insert(0, "question", q.name)
            parts.append(part)
        return pd.concat(parts, ignore_index=True)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready description (``None`` where there is no number).

        Returns
        -------
        dict
        """

        def number(v: Any) -> Any:
            if isinstance(v, numbers.Real) and not isinstance(v, bool):
                return float(v) if math.isfinite(v) else None
            return v

        def records(frame: pd.DataFrame) -> list[dict]:
            return [
                {k: number(v) for k, v in row.items()}
                for row in frame.to_dict(orient="records")
            ]

        return {
            "title": self.title,
            "level": self.level,
            "issued": self.issued,
            "responses": self.responses,
            "freq": self.freq,
            "wave": self.wave,
            "counts": records(self.counts),
            "questions": [
                {
                    "name": q.name,
                    "kind": q.kind,
                    "text": q.text,
                    "n_answers": q.n_answers,
                    "estimator": q.estimator,
                    "estimates": records(q.estimates),
                    "notes": list(q.notes),
                }
                for q in self.questions
            ],
        }


def format_number(value: Any) -> str:
    """A statistic as the terminal and the status page show it (4 significant
    digits, no exponent below 10**7); an empty string for no number."""
    if value is None or not np.isfinite(value):
        return ""
    value = float(value) + 0.0
    if value != 0 and abs(value) >= 1e4:
        return f"{value:.0f}" if abs(value) < 1e7 else f"{value:.4g}"
    return f"{value:.4g}"


def statistic_name(statistic: str) -> str:
    """A statistic as a reader sees it (``q50`` is the median)."""
    return "median (q50)" if statistic == "q50" else str(statistic)


def interval_text(row: Any) -> str:
    """``[lower, upper]`` of an estimates row (an infinite end as ``inf``),
    or ``none``."""
    ends = [row["lower"], row["upper"]]
    if any(v is None or np.isnan(v) for v in ends):
        return "none"
    lower, upper = (format_number(v) or f"{float(v):g}" for v in ends)
    return f"[{lower}, {upper}]"


def interval_legend(row: Any) -> str:
    """How a row's interval was computed and what it covers, in the words of
    ``conf_int``; the centre when the interval is built around another
    estimate than the one shown; why the statistic has no number."""
    text = f"{statistic_name(row['statistic'])}: {row['method']}"
    if row["covers"]:
        text += f"; covers {row['covers']}"
    centre = format_number(row["centre"])
    if centre and centre != format_number(row["value"]):
        text += f"; built around {centre}"
    if row["note"]:
        text += f" ({row['note']})"
    return text


# -- the estimator of each kind of question ------------------------------------
def _ends(pair: Any) -> tuple[float, float]:
    """A support as the spec writes it (None: unbounded) as two floats."""
    low, high = pair
    return (
        -math.inf if low is None else float(low),
        math.inf if high is None else float(high),
    )


def _shown(value: Any) -> str:
    if isinstance(value, tuple):
        return "(" + ", ".join(_shown(v) for v in value) + ")"
    if isinstance(value, float):
        return f"{value:g}"
    if hasattr(value, "get_params"):
        return type(value).__name__
    return repr(value)


def _estimator(question: Question) -> tuple[Any, str] | None:
    """The estimator of ``question``'s answers, and how it reads; None if
    the kind has none."""
    from ..interval import IntervalNPMLE
    from ..ldp import DeconvolutionKernelDensity, SquareWaveEMSEstimator
    from ..negative_survey import RVNSDensityEstimator
    from ..subset import SubsetDistributionEstimator

    spec, kind = question.spec, question.kind
    params: dict[str, Any]
    if kind == "interval":
        support = _ends(spec["support"])
        params = {}
        if any(math.isfinite(v) for v in support):
            params["bounds"] = support
        cls = IntervalNPMLE
    elif kind == "subset":
        params, cls = {"design": question.privatizer}, SubsetDistributionEstimator
    elif kind == "laplace":
        params = {
            "noise_scale": float(spec["scale"]),
            "support": (float(spec["low"]), float(spec["high"])),
        }
        cls = DeconvolutionKernelDensity
    elif kind == "square_wave":
        params = {
            "epsilon": float(spec["epsilon_value"]),
            "bounds": (float(spec["low"]), float(spec["high"])),
        }
        cls = SquareWaveEMSEstimator
    elif kind == "rvns":
        params = {
            "d": float(spec["d"]),
            "bounds": (float(spec["low"]), float(spec["high"])),
            "placement": spec["placement"],
        }
        cls = RVNSDensityEstimator
    elif kind == "frequency":
        from ..frequency import FrequencyEstimator, LongitudinalFrequencyEstimator

        # one wave's reports of a memoized question follow the composed
        # (two-stage) channel, which the longitudinal estimator knows
        memoized = hasattr(question.privatizer, "epsilon_instant")
        cls = LongitudinalFrequencyEstimator if memoized else FrequencyEstimator
        params = {"oracle": question.privatizer}
    else:
        return None
    text = ", ".join(f"{k}={_shown(v)}" for k, v in params.items())
    return cls(**params), f"{cls.__name__}({text})"


def _rows(statistics: list[str], values: list[float], found: list[tuple]) -> list:
    return [
        {
            "statistic": s,
            "value": v,
            "centre": centre,
            "lower": lower,
            "upper": upper,
            "level": np.nan,
            "method": method,
            "covers": covers,
            "note": "",
        }
        for s, v, (lower, upper, method, centre, covers) in zip(
            statistics, values, found, strict=True
        )
    ]


def _estimate(
    question: Question, X: np.ndarray, level: float
) -> tuple[str, pd.DataFrame, list[str]]:
    """Fit the question's estimator on ``X``; its statistics and intervals."""
    empty = pd.DataFrame(columns=ESTIMATE_COLUMNS)
    n = X.shape[0]
    built = _estimator(question)
    if built is None:
        what = f"questions of kind {question.kind!r}"
        return "", empty, [f"no estimator with intervals for {what}"]
    est, described = built
    if n < MIN_ANSWERS:
        what = "no answers yet" if n == 0 else f"only {n} answer{'s' * (n > 1)}"
        return (
            described,
            empty,
            [f"too few answers for an estimate ({what}; at least {MIN_ANSWERS})"],
        )
    notes: list[str] = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        categorical = question.kind in ("subset", "frequency")
        try:
            est.fit(X)
            if categorical:
                cats = [str(c) for c in est.categories_]
                stats = [f"P({c})" for c in cats]
                shares = np.asarray(est.distribution_)[: len(cats)]
                values = [float(v) for v in shares]
            else:
                stats = ["mean", "q50"]
                values = [float(est.mean()), float(np.ravel(est.quantile(0.5))[0])]
        except (ValueError, TypeError, np.linalg.LinAlgError) as exc:
            return described, empty, [f"no estimate: {str(exc).splitlines()[0]}"]
        if categorical:
            found = conf_int_rows(est, "pmf", None, level)
        else:
            found = conf_int_rows(est, "mean", None, level, X=X)
            found += conf_int_rows(est, "quantile", [0.5], level, X=X)
    for w in caught:
        text = str(w.message).splitlines()[0] if str(w.message) else ""
        if text and text not in notes:
            notes.append(text)
    rows = _rows(stats, values, found)
    # The NPMLE puts mass beyond every anchor at the finite end of its cell:
    # then the mean and the median are bounds, not estimates.
    unplaced = float(getattr(est, "tail_mass_", 0.0)) > 0.5
    for row in rows:
        if unplaced or not np.isfinite(row["value"]):
            row["value"] = np.nan
            row["note"] = "not identified by the stored answers"
        if np.isfinite(row["lower"]) or np.isfinite(row["upper"]):
            row["level"] = level
    frame = pd.DataFrame(rows, columns=ESTIMATE_COLUMNS)
    return described, frame, notes


# -- the responses over time ------------------------------------------------------
def _counts(
    store: SurveyStore, freq: str, waves: bool
) -> tuple[pd.DataFrame, str, list[int]]:
    """Responses per period, by wave when ``waves`` (or several are stored);
    and the waves stored."""
    from sqlalchemy import func, inspect, literal_column, select

    names = {c["name"] for c in inspect(store.reader).get_columns(store.responses.name)}
    keys = []
    # a database of an older version lacks these columns: read it as it is
    if "received" in names:
        keys.append(literal_column("received").label("received"))
    if "wave" in names:
        # rows stored before waves existed are wave 1
        keys.append(func.coalesce(literal_column("wave"), 1).label("wave"))
    query = select(*keys, func.count().label("n")).select_from(store.responses)
    if keys:
        query = query.group_by(*keys)
    with store.reader.connect() as conn:
        found = pd.DataFrame(conn.execute(query).mappings().all())
    stored = sorted({int(w) for w in found["wave"]}) if "wave" in found else []
    waved = "wave" in names and (waves or len(stored) > 1)
    columns = (["wave"] if waved else []) + ["period", "responses", "cumulative"]
    if found.empty or int(found["n"].sum()) == 0:
        empty = pd.DataFrame(columns=columns)
        return empty, "hour" if freq == "auto" else freq, stored
    if "received" not in found:
        found["received"] = None
    hours = pd.to_numeric(found["received"], errors="coerce")
    known = hours.dropna()
    if freq == "auto":
        span = (known.max() - known.min()) / 3600 if len(known) else 0
        freq = "hour" if span <= HOURLY_SPAN_HOURS else "day"
    pattern = "%Y-%m-%dT%H:00Z" if freq == "hour" else "%Y-%m-%d"

    def period(seconds: float) -> str:
        if not np.isfinite(seconds):
            return "unrecorded"
        moment = datetime.fromtimestamp(int(seconds), tz=timezone.utc)
        return moment.strftime(pattern)

    found["period"] = [period(v) for v in hours.fillna(np.nan)]
    # "unrecorded" (older responses) first, then in time order
    found["order"] = hours.fillna(-np.inf)
    group = (["wave"] if waved else []) + ["period"]
    counts = (
        found.groupby(group, sort=False, dropna=False)
        .agg(responses=("n", "sum"), order=("order", "min"))
        .reset_index()
        .sort_values((["wave"] if waved else []) + ["order"], kind="stable")
    )
    counts["responses"] = counts["responses"].astype(int)
    by = counts.groupby("wave", dropna=False) if waved else None
    counts["cumulative"] = (
        by["responses"].cumsum() if waved else counts["responses"].cumsum()
    ).astype(int)
    return counts[columns].reset_index(drop=True), freq, stored


def _stored_fingerprint(store: SurveyStore) -> str | None:
    from sqlalchemy import select

    with store.reader.connect() as conn:
        return conn.execute(
            select(store.meta.c.value).where(store.meta.c.key == "fingerprint")
        ).scalar_one_or_none()


def status_from_store(
    questionnaire: Questionnaire,
    store: SurveyStore,
    level: float,
    freq: str,
    warn: bool = True,
) -> SurveyStatus:
    """:func:`survey_status` on an open store (the server's own, which
    passes ``warn=False``: its page says what is not identified)."""
    spec = store.public_spec()  # refuses a database with no survey
    if _stored_fingerprint(store) != questionnaire.fingerprint():
        raise ValueError(
            f"{display_url(store.url)} holds the responses of another "
            "questionnaire; give the questionnaire it was collected with."
        )
    totals = store.counts()
    waves = getattr(questionnaire, "lifetime_epsilon", None) is not None
    counts, freq, stored = _counts(store, freq, waves)
    wave = None
    if len(stored) > 1:
        # a respondent answers every wave: estimate the latest one
        wave = stored[-1]
    rows = store.rows(wave)
    entries = {e["name"]: e for e in spec["questions"]}
    questions = []
    for q in questionnaire.questions:
        answered = [r for r in rows if q.name in r[0]]
        X = _question_array(entries[q.name], answered)
        described, estimates, notes = _estimate(q, X, level)
        questions.append(
            QuestionStatus(
                name=q.name,
                kind=q.kind,
                text=q.text,
                n_answers=len(answered),
                estimator=described,
                estimates=estimates,
                notes=tuple(notes),
            )
        )
    absent = [
        f"{q.name} {row['statistic']}"
        for q in questions
        for _, row in q.estimates.iterrows()
        if row["note"]
    ]
    if absent and warn:
        warnings.warn(
            f"Not identified by the stored answers, so not estimated: "
            f"{', '.join(absent)}.",
            NotIdentifiableWarning,
            stacklevel=external_stacklevel(),
        )
    return SurveyStatus(
        title=questionnaire.title,
        level=level,
        issued=totals["issued"],
        responses=totals["responses"],
        freq=freq,
        counts=counts,
        questions=tuple(questions),
        wave=wave,
    )


def survey_status(
    questionnaire: Questionnaire,
    database: str | Path,
    level: float = 0.95,
    *,
    freq: str = "auto",
) -> SurveyStatus:
    """Answers over time and the running estimate of every question.

    Reads the stored private answers only.  Each question's estimate comes
    from the estimator of its mechanism, fitted on the stored answers, and
    its interval from that estimator's ``conf_int`` (``random_state=0``, as
    ``python -m skprivate estimate --level`` does):

    * interval question: :class:`~skprivate.IntervalNPMLE` (bounded by the
      question's declared support): mean and median;
    * subset question: :class:`~skprivate.SubsetDistributionEstimator` with
      the question's design: the share of every category;
    * Laplace: :class:`~skprivate.DeconvolutionKernelDensity`; Square Wave:
      :class:`~skprivate.ldp.SquareWaveEMSEstimator`; negative survey:
      :class:`~skprivate.RVNSDensityEstimator`: mean and median;
    * frequency question: :class:`~skprivate.frequency.FrequencyEstimator`
      with the question's oracle (one stage), or
      :class:`~skprivate.frequency.LongitudinalFrequencyEstimator` (a
      memoized question, whose one wave follows the two-stage channel): the
      share of every category.

    A question with fewer than five stored answers gets no estimate, and
    says so.  A statistic the answers do not identify (the interval NPMLE
    with most of its mass beyond every anchor, or a value that is not
    finite) gets no number and a :class:`~skprivate.exceptions.NotIdentifiableWarning`.

    Parameters
    ----------
    questionnaire : Questionnaire
        The survey the database collected.
    database : str or Path
        SQLAlchemy URL or SQLite file of the survey; only read.
    level : float, default=0.95
        Confidence level of the intervals, in (0, 1).
    freq : {"auto", "hour", "day"}, default="auto"
        Period of the counts over time; ``"auto"`` counts per hour when the
        recorded responses span at most 48 hours, per day otherwise.

    Returns
    -------
    SurveyStatus
        ``counts`` (responses per period), ``questions`` (one
        :class:`QuestionStatus` each, with its ``estimates`` frame);
        ``to_frame()`` and ``to_dict()`` give them as one table or as JSON.

    Examples
    --------
    >>> import tempfile, os
    >>> from skprivate import IntervalCaseI
    >>> from skprivate.survey import Question, Questionnaire, issue_tokens
    >>> from skprivate.survey import survey_status
    >>> survey = Questionnaire(
    ...     [Question("age", "How old are you?", IntervalCaseI().fit([[0.0]]))]
    ... )
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     db = os.path.join(tmp, "survey.db")
    ...     _ = issue_tokens(survey, db, 3)
    ...     status = survey_status(survey, db)
    >>> status.issued, status.responses
    (3, 0)
    >>> status.questions[0].notes
    ('too few answers for an estimate (no answers yet; at least 5)',)
    """
    check_questionnaire(questionnaire)
    level = check_level(level)
    validate_params(
        {"freq": [Options({"auto", "hour", "day"})]},
        {"freq": freq},
        "survey_status",
    )
    check_existing(database)  # connecting would create an empty file
    store = SurveyStore(database)
    try:
        return status_from_store(questionnaire, store, level, freq)
    finally:
        store.close()
