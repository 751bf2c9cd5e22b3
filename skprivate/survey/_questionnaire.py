"""Questionnaires: questions worded for people, each with a fitted privatizer."""

from __future__ import annotations

import copy
import hashlib
import json
import math
import numbers
import pickle
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike
from sklearn.base import clone

from .._privacy_report import privacy_report as _privacy_rows
from ._anchor_grid import AnchorGrid
from ._spec import check_declared, mechanism_spec

__all__ = ["GUARANTEE", "Question", "Questionnaire"]

NAME_PATTERN = re.compile(r"^[A-Za-z][A-Za-z0-9_]{0,63}$")
_HASHED_SENT = (
    "a random public hash seed and a bucket, the respondent's category's "
    "bucket under that seed with the probability of its oracle"
)

GUARANTEE = (
    "The server receives only outputs of each question's mechanism: for an "
    "interval question, the cell the respondent picks among anchors that the "
    "collector drew for that respondent beforehand; for every other question, "
    "an answer the page draws on the respondent's device from the question's "
    "mechanism. It stores an answer only if it lies in the output space of "
    "its question's mechanism. An output can still reveal the value: a "
    "subset report can be the category alone and a noisy value can equal the "
    "value on its grid, with the probabilities of the mechanism; what each "
    "output reveals is the guarantee reported on its row."
)


class Question:
    """One question of a private survey: its wording and its privatizer.

    Parameters
    ----------
    name : str
        Identifier of the question (letters, digits and ``_``, starting with
        a letter, at most 64 characters); the key of its answers.
    text : str
        The question as the respondent reads it.
    privatizer : privatizer
        A fitted one-column privatizer (see
        :func:`~skprivate.survey.mechanism_spec` for the supported ones).
        The question keeps a deep copy of it, taken here: changing the
        object passed afterwards (``set_params``, a new ``fit``) does not
        reach the survey.  Its ``random_state`` is not used by the survey:
        the collection draws from fresh entropy whatever it is, and a
        simulation takes its own seed (:meth:`Questionnaire.draw_anchors`,
        :meth:`Questionnaire.simulate_answers`).
    help : str, default=""
        An extra line shown under the question.
    unit : str, default=""
        Unit printed after numbers (``"years"``).
    decimals : int or None, default=None
        Interval questions only: the anchors drawn for a respondent are
        rounded to this many decimals before they are shown and stored, so
        that the cells the collector records are exactly the ones the
        respondent read, and kept strictly inside the ``support`` declared
        on the privatizer, so that no range offered is impossible.  ``None``
        keeps about three significant digits of the anchors' spread.
        Rounding acts on the anchors, which do not depend on the answers,
        so the privacy argument is unchanged.
    labels : mapping or None, default=None
        Subset and frequency questions only: text shown for each category
        (by category), the category itself otherwise.

    Attributes
    ----------
    privatizer : privatizer
        The question's own copy of the privatizer passed.  The page's
        ``spec``, the privacy report, the server's ledger and its answer
        checks all read this copy; it is frozen: a survey whose question's
        privatizer no longer gives ``spec`` is refused (``ValueError``) when
        it is reported, loaded, served or given tokens.
    spec : dict
        The mechanism the respondent's page samples
        (:func:`~skprivate.survey.mechanism_spec` of :attr:`privatizer`).
    kind : str
        ``spec["kind"]``.

    Examples
    --------
    >>> from skprivate import LaplaceLDP
    >>> from skprivate.survey import Question
    >>> ldp = LaplaceLDP(epsilon=1.0, bounds=(0, 100)).fit([[0.0]])
    >>> q = Question("hours", "How many hours did you work last week?", ldp)
    >>> q.kind
    'laplace'
    >>> _ = ldp.set_params(epsilon=0.25).fit([[0.0]])  # the question keeps its copy
    >>> q.privatizer.epsilon, q.spec["epsilon"]
    (1.0, 1.0)
    """

    def __init__(
        self,
        name: str,
        text: str,
        privatizer: Any,
        *,
        help: str = "",
        unit: str = "",
        decimals: int | None = None,
        labels: Mapping | None = None,
    ) -> None:
        if not isinstance(name, str) or not NAME_PATTERN.match(name):
            raise ValueError(
                f"Question name must be letters, digits or _, starting with a "
                f"letter, at most 64 characters; got {name!r}."
            )
        if not isinstance(text, str) or not text.strip():
            raise ValueError(f"Question {name!r} needs a non-empty text.")
        self.name = name
        self.text = text
        # the question's own copy: the page's spec, the report, the ledger and
        # the answer checks read this object, never the caller's
        self.privatizer = copy.deepcopy(privatizer)
        self.help = str(help)
        self.unit = str(unit)
        self.spec = mechanism_spec(self.privatizer)
        self.kind = self.spec["kind"]
        if decimals is not None and (
            not isinstance(decimals, int) or not 0 <= decimals <= 15
        ):
            raise ValueError(f"decimals must be an int in [0, 15]; got {decimals!r}.")
        if self.kind == "interval" and decimals is None:
            spread = self.privatizer._anchor_distribution(0).mult
            decimals = int(np.clip(2 - math.floor(math.log10(spread)), 0, 10))
        self.decimals = decimals
        self.labels = None if labels is None else dict(labels)
        if self.kind == "interval":
            self._check_anchor_support()
            self.anchor_grid()

    def _check_spec(self) -> None:
        """Refuse a privatizer that no longer gives the page's ``spec``.

        Raises
        ------
        ValueError
            Naming the question and the fields of the spec that changed.
        """
        try:
            current = mechanism_spec(self.privatizer)
        except (TypeError, ValueError) as exc:
            raise ValueError(
                f"the privatizer of question {self.name!r} changed since the "
                f"question was built and no longer describes its page: {exc}"
            ) from None
        if _canonical(current) != _canonical(self.spec):
            changed = sorted(
                key
                for key in set(current) | set(self.spec)
                if _canonical(current.get(key)) != _canonical(self.spec.get(key))
            )
            raise ValueError(
                f"the privatizer of question {self.name!r} changed since the "
                f"question was built ({', '.join(changed)} of its mechanism): "
                "the page samples the mechanism frozen in the question's spec, "
                "while the report and the ledger would read the changed one. "
                "Build a new Question (and Questionnaire) from the privatizer "
                "you mean to use."
            )

    def _check_anchor_support(self) -> None:
        low, high = self.privatizer._value_support(0)
        a_low, a_high = self.privatizer._anchor_support(0)
        if a_low < low or a_high > high:
            raise ValueError(
                f"the anchors of question {self.name!r} can fall outside the "
                "support declared for its values: declare the same support= on "
                "every mechanism of the ensemble."
            )

    def anchor_grid(self) -> AnchorGrid:
        """Interval questions: the numbers its anchors are shown as.

        Anchors are rounded to ``decimals`` decimals and kept strictly
        inside the ``support`` declared on the privatizer, so that every
        range a respondent reads can hold a value.

        Returns
        -------
        grid : AnchorGrid

        Examples
        --------
        >>> from skprivate import IntervalCaseI
        >>> from skprivate.survey import Question
        >>> mech = IntervalCaseI(anchor_loc=30, anchor_scale=20, support=(0, 120))
        >>> q = Question("commute", "Minutes to work?", mech.fit([[0.0]]))
        >>> q.anchor_grid().snap([-3.71, 42.123, 119.98]).tolist()
        [0.1, 42.1, 119.9]
        """
        if self.kind != "interval":
            raise ValueError(f"question {self.name!r} is not an interval question.")
        low, high = self.privatizer._value_support(0)
        return AnchorGrid(self.decimals, low, high, self.name)

    def category_labels(self) -> list[str]:
        """The text shown for each category of a subset question."""
        categories = np.asarray(self.privatizer.categories_[0]).tolist()
        if self.labels is None:
            return [str(c) for c in categories]
        return [str(self.labels.get(c, c)) for c in categories]

    def public(self) -> dict[str, Any]:
        """The JSON-ready description of the question (no random draw)."""
        entry = {
            "name": self.name,
            "text": self.text,
            "help": self.help,
            "unit": self.unit,
            "kind": self.kind,
            "spec": self.spec,
        }
        if self.kind == "interval":
            entry["decimals"] = self.decimals
        if self.kind in ("subset", "frequency"):
            entry["labels"] = self.category_labels()
        return entry

    def __repr__(self) -> str:
        return f"Question({self.name!r}, kind={self.kind!r})"


def _canonical(value: Any) -> str:
    """A JSON text of a spec (or of one of its fields), to compare specs."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)


def _reseeded(privatizer: Any, random_state: int | None) -> Any:
    """A fitted privatizer that draws with ``random_state``.

    ``None``: fresh operating-system entropy on every call, whatever the
    privatizer's own ``random_state`` (the privatizer itself when it has
    none); an int: a copy whose seeded draws start anew, for a reproducible
    simulation.  The question's privatizer is never changed.
    """
    if random_state is None and getattr(privatizer, "random_state", None) is None:
        return privatizer
    copied = copy.deepcopy(privatizer)
    # set_params drops the copied call counter; the fitted settings exclude
    # random_state, so the copy stays fitted
    copied.set_params(random_state=random_state)
    return copied


def _check_seed(random_state: Any) -> int | None:
    """The seed of a simulation: None, or an int >= 0."""
    if random_state is None:
        return None
    if isinstance(random_state, bool) or not isinstance(random_state, numbers.Integral):
        raise TypeError(
            "random_state must be an int >= 0 or None; got "
            f"{type(random_state).__name__}."
        )
    if random_state < 0:
        raise ValueError(
            f"random_state must be an int >= 0 or None; got {random_state}."
        )
    return int(random_state)


class Questionnaire:
    """A private survey: questions whose answers are privatized at the source.

    Interval questions show each respondent anchors drawn by the collector
    for that respondent (:meth:`draw_anchors`) and ask which cell holds
    their value; the other questions take the value on the respondent's
    device and privatize it there, with the exact sampler of the question's
    privatizer.  :meth:`render_html` writes the page, :func:`issue_tokens`
    and ``python -m skprivate survey serve`` run the collection, and
    :func:`read_responses` returns what the learners take.

    The collection draws from fresh entropy whatever the privatizers'
    ``random_state``: the anchors of :func:`issue_tokens` and of open
    enrollment from the operating system (:meth:`draw_anchors` without a
    seed), the answers from ``crypto.getRandomValues`` on the respondent's
    device.  A seed is for simulation: :meth:`draw_anchors` and
    :meth:`simulate_answers` take one explicitly.

    Parameters
    ----------
    questions : sequence of Question
        The questions, in the order shown; names must be distinct.
    title : str, default="A private survey"
        Title of the page.
    intro : str, default=""
        Paragraph shown under the title.
    lifetime_epsilon : float or None, default=None
        Declares a survey asked again of the same respondents, in waves
        (``serve(..., wave=w)``), and its lifetime budget: the largest total
        epsilon the server releases per respondent link over all waves.  The
        server's ledger charges every stored wave what it can add to the
        link's loss whatever the values (``epsilon_lifetime_any_values`` of
        :meth:`wave_report`) and refuses a wave that would exceed the
        budget.  The respondent's page then keeps its private answers on the
        device between waves (see :mod:`skprivate.survey._waves`).  ``None``:
        one wave only, and nothing kept on the device.

    Attributes
    ----------
    questions : list of Question
        The questions.
    guarantee : str
        The statement printed by :meth:`privacy_report`.

    Examples
    --------
    >>> from skprivate import IntervalCaseI, LaplaceLDP
    >>> from skprivate.survey import Question, Questionnaire
    >>> survey = Questionnaire(
    ...     [
    ...         Question(
    ...             "age",
    ...             "How old are you?",
    ...             IntervalCaseI(anchor_loc=40, anchor_scale=12).fit([[0.0]]),
    ...         ),
    ...         Question(
    ...             "hours",
    ...             "Hours worked last week?",
    ...             LaplaceLDP(epsilon=1, bounds=(0, 100)).fit([[0.0]]),
    ...         ),
    ...     ],
    ...     title="Work and age",
    ... )
    >>> [q.kind for q in survey.questions]
    ['interval', 'laplace']
    >>> anchors = survey.draw_anchors(3)
    >>> len(anchors), len(anchors[0]["age"])
    (3, 1)
    >>> html = survey.render_html(anchors[0], submit_url="/s/token")
    >>> "Math.random" in html
    False
    """

    def __init__(
        self,
        questions: Sequence[Question],
        *,
        title: str = "A private survey",
        intro: str = "",
        lifetime_epsilon: float | None = None,
    ) -> None:
        questions = list(questions)
        if not questions:
            raise ValueError("A questionnaire needs at least one question.")
        for q in questions:
            if not isinstance(q, Question):
                raise TypeError(
                    f"questions must be Question objects; got {type(q).__name__}."
                )
        names = [q.name for q in questions]
        if len(set(names)) != len(names):
            dup = next(n for n in names if names.count(n) > 1)
            raise ValueError(f"Question names must be distinct; {dup!r} repeats.")
        for q in questions:
            q._check_spec()
        self.questions = questions
        self.title = str(title)
        self.intro = str(intro)
        self.guarantee = GUARANTEE
        self.lifetime_epsilon = None
        if lifetime_epsilon is not None:
            self._set_budget(lifetime_epsilon)

    def _set_budget(self, budget: Any) -> None:
        from ._waves import first_wave_epsilon

        if isinstance(budget, bool) or not isinstance(budget, int | float):
            raise TypeError(
                f"lifetime_epsilon must be a number; got {type(budget).__name__}."
            )
        if not (math.isfinite(budget) and budget > 0):
            raise ValueError(
                f"lifetime_epsilon must be a finite number > 0; got {budget!r}."
            )
        one = first_wave_epsilon(self)
        if one > budget * (1 + 1e-9):
            raise ValueError(
                f"lifetime_epsilon={budget:g} is below the epsilon of one wave "
                f"({one:.6g}, the sum over the questions): no wave could be "
                "answered."
            )
        self.lifetime_epsilon = float(budget)

    def __getitem__(self, name: str) -> Question:
        for q in self.questions:
            if q.name == name:
                return q
        raise KeyError(f"No question named {name!r}.")

    def __repr__(self) -> str:
        kinds = ", ".join(f"{q.name}: {q.kind}" for q in self.questions)
        return f"Questionnaire({kinds})"

    # -- descriptions ---------------------------------------------------------
    def public_spec(self) -> dict[str, Any]:
        """The public description of the whole questionnaire (JSON-ready)."""
        spec = {
            "title": self.title,
            "intro": self.intro,
            "questions": [q.public() for q in self.questions],
        }
        # only when declared: the fingerprint of a one-wave survey is unchanged
        if getattr(self, "lifetime_epsilon", None) is not None:
            spec["lifetime_epsilon"] = self.lifetime_epsilon
        return spec

    def fingerprint(self) -> str:
        """SHA-256 of :meth:`public_spec`, to tell questionnaires apart."""
        text = json.dumps(self.public_spec(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()

    def draw_anchors(
        self, n_respondents: int, random_state: int | None = None
    ) -> list[dict[str, list[float]]]:
        """Draw the anchors of every interval question, per respondent.

        Parameters
        ----------
        n_respondents : int
            Number of respondents.
        random_state : int or None, default=None
            ``None``: fresh operating-system entropy on every call, whatever
            the ``random_state`` of the questions' privatizers, so that no
            two respondents share anchors across calls, processes, server
            restarts or copies of the questionnaire; this is what
            :func:`issue_tokens` and open enrollment use.  An int: a
            reproducible draw, for simulation only.

        Returns
        -------
        anchors : list of dict
            One dict per respondent, question name to its sorted anchors
            (rounded to the question's ``decimals``, strictly inside the
            declared support of its values); empty dicts when there is no
            interval question.
        """
        n = int(n_respondents)
        if n < 0:
            raise ValueError(f"n_respondents must be >= 0; got {n_respondents!r}.")
        seed = _check_seed(random_state)
        seeds = None if seed is None else np.random.default_rng(seed)
        out: list[dict[str, list[float]]] = [{} for _ in range(n)]
        for q in self.questions:
            if q.kind != "interval" or n == 0:
                continue
            state = None if seeds is None else int(seeds.integers(2**31))
            drawn = _reseeded(q.privatizer, state).draw_anchors(n)
            drawn = np.sort(q.anchor_grid().snap(drawn), axis=1)
            for row, values in zip(out, drawn.tolist()):
                row[q.name] = [float(v) for v in values]
        return out

    def respondent_spec(
        self,
        anchors: Mapping[str, Any] | None = None,
        submit_url: str | None = None,
        *,
        wave: int = 1,
    ) -> dict[str, Any]:
        """What one respondent's page holds: questions, mechanisms, anchors.

        Parameters
        ----------
        anchors : mapping or None
            This respondent's anchors (an entry of :meth:`draw_anchors`);
            ``None`` draws fresh ones (from fresh entropy).
        submit_url : str or None
            Where the page posts the privatized answers (relative to the
            page); ``None`` for a description that is not a page (simulated
            respondents, :meth:`simulate_answers`).
        wave : int, default=1
            The wave this page collects (a survey with ``lifetime_epsilon``;
            the page then also carries ``survey``, the :meth:`fingerprint`
            that keys what the device keeps between waves).

        Returns
        -------
        spec : dict

        Raises
        ------
        ValueError
            For anchors that are missing, of the wrong count, unsorted, not
            the numbers the page shows (``decimals``) or not strictly inside
            the declared support of the question's values.
        """
        if anchors is None:
            anchors = self.draw_anchors(1)[0]
        spec = self.public_spec()
        spec["submit"] = submit_url
        if self.lifetime_epsilon is not None:
            spec["wave"] = int(wave)
            spec["survey"] = self.fingerprint()
        for entry in spec["questions"]:
            if entry["kind"] == "interval":
                q = self[entry["name"]]
                if q.name not in anchors:
                    raise ValueError(f"anchors has no entry for question {q.name!r}.")
                values = q.anchor_grid().check(anchors[q.name])
                if len(values) != q.spec["n_anchors"]:
                    raise ValueError(
                        f"anchors of {q.name!r} must hold {q.spec['n_anchors']} "
                        f"values; got {len(values)}."
                    )
                entry["anchors"] = values
        return spec

    def render_html(
        self,
        anchors: Mapping[str, Any] | None = None,
        submit_url: str | None = None,
        *,
        lang: str = "en",
        wave: int = 1,
    ) -> str:
        """One respondent's page: a self-contained HTML document.

        The page loads nothing from the network; its script privatizes the
        answers on the device (``crypto.getRandomValues``) and posts only
        the privatized answers to ``submit_url``, the respondent's link on
        the collection server, which binds the answers to the anchors drawn
        for that respondent.

        Parameters
        ----------
        anchors : mapping or None
            This respondent's anchors (from :meth:`draw_anchors`; the server
            passes the ones bound to the respondent's token); ``None`` draws
            fresh ones.
        submit_url : str
            Where to post the answers, relative to the page (``/s/<token>``
            on the server).  Required: there is no page that only shows its
            answers, since nothing could bring them back into
            :func:`read_responses` with the server's checks.
        lang : str, default="en"
            Language of the page (the ``lang`` attribute).
        wave : int, default=1
            The wave the page collects (see :meth:`respondent_spec`).

        Returns
        -------
        html : str
        """
        from ._render import render_page

        if not isinstance(submit_url, str) or not submit_url:
            raise ValueError(
                "render_html needs submit_url, the respondent's link on the "
                "collection server (/s/<token>): a page that only shows the "
                "private answers is not supported. Issue links with issue_tokens "
                "and collect with serve."
            )
        spec = self.respondent_spec(anchors, submit_url, wave=wave)
        return render_page(spec, lang=lang)

    def privacy_report(self) -> pd.DataFrame:
        """The guarantee of every question, and where each answer is privatized.

        Returns
        -------
        report : pandas.DataFrame
            The columns of :func:`skprivate.privacy_report` with ``column``
            renamed ``question``, plus ``privatized_on`` and ``sent``; the
            last row, ``total``, composes the epsilons when every question has
            one and states, in ``note``, what reaches the server
            (:attr:`guarantee`).  ``reproducible`` is False on every question:
            the collection draws from fresh entropy whatever the privatizers'
            ``random_state``.

        Raises
        ------
        ValueError
            When a question's privatizer was changed after the question was
            built (its report would not describe the page).
        """
        rows = []
        for q in self.questions:
            q._check_spec()
            report = _privacy_rows(q.privatizer)
            row = report.iloc[0].to_dict()
            row["column"] = q.name
            if "reproducible" in row:
                row["reproducible"] = False
            if q.kind == "interval":
                row["privatized_on"] = "collector draws anchors; respondent picks"
                row["sent"] = "index of the chosen cell"
            else:
                row["privatized_on"] = "respondent's device"
                row["sent"] = {
                    "laplace": "value on a grid plus Laplace noise rounded to it",
                    "square_wave": "Square Wave output on its grid",
                    "rvns": f"{q.spec.get('k')} values away from the truth",
                    "subset": "0/1 indicators of a random subset of the "
                    "categories, drawn to hold the category (it can be the "
                    "category alone, or, with dummy categories, miss it)",
                    "frequency": {
                        "krr": "a category drawn at random, the respondent's "
                        "with the probability of its oracle",
                        "olh": _HASHED_SENT,
                        "blh": _HASHED_SENT,
                        "hr": "a random index of the Hadamard matrix, in the "
                        "respondent's category's half with the probability of "
                        "its oracle",
                    }.get(
                        q.spec.get("oracle"),
                        "one random 0/1 flag per category, the respondent's "
                        "set with the probability of its oracle",
                    ),
                }[q.kind]
            rows.append(row)
        frame = pd.DataFrame(rows).rename(columns={"column": "question"})
        eps = frame["epsilon"].to_numpy(dtype=float)
        total = {
            "question": "total",
            "epsilon": float(eps.sum()) if np.all(np.isfinite(eps)) else np.nan,
            "privatized_on": "",
            "sent": "privatized answers only",
            "note": self.guarantee,
        }
        return pd.concat([frame, pd.DataFrame([total])], ignore_index=True)

    def wave_report(self, waves: int):
        """Per-wave and lifetime epsilon of every question after ``waves`` waves.

        See :func:`skprivate.survey._waves.wave_report`: the exact loss of
        the joint law of the waves' reports of an unchanged value (a), and
        the bound against any other sequence of values (b), which the
        server's ledger charges against :attr:`lifetime_epsilon`.

        Parameters
        ----------
        waves : int
            Number of waves, ``>= 1``.

        Returns
        -------
        report : pandas.DataFrame

        Examples
        --------
        >>> from skprivate.frequency import LongitudinalOracle
        >>> from skprivate.survey import Question, Questionnaire
        >>> lo = LongitudinalOracle(categories=[["a", "b"]]).fit([["a"]])
        >>> survey = Questionnaire([Question("q", "Which?", lo)], lifetime_epsilon=3.0)
        >>> list(survey.wave_report(2)["question"])
        ['q', 'total']
        """
        from ._waves import wave_report

        return wave_report(self, waves)

    # -- simulation of respondents -------------------------------------------
    def simulate_answers(
        self,
        respondents: Sequence[Mapping[str, Any]],
        values: Mapping[str, ArrayLike] | pd.DataFrame,
        random_state: int | None = None,
    ) -> list[dict[str, Any]]:
        """The answers simulated respondents' pages would send.

        Draws with each question's privatizer (the law the page samples)
        and finds the cell of each value among the respondent's anchors, so
        simulated respondents can submit through the server like real ones.

        Parameters
        ----------
        respondents : sequence of mapping
            One respondent spec per respondent (:meth:`respondent_spec`, or
            the JSON the server gives at ``/s/<token>/questions.json``).
        values : mapping or DataFrame
            Raw values per question name, one per respondent.
        random_state : int or None, default=None
            Seed of the simulation.  ``None``: fresh operating-system
            entropy on every call, whatever the ``random_state`` of the
            questions' privatizers (a copy of a seeded questionnaire, a
            pickle for instance, never replays its draws).

        Returns
        -------
        answers : list of dict
            Question name to answer, one dict per respondent (the ``answers``
            object the page posts).
        """
        n = len(respondents)
        rng = np.random.default_rng(random_state)
        out: list[dict[str, Any]] = [{} for _ in range(n)]
        for i, q in enumerate(self.questions):
            raw = np.asarray(values[q.name]).reshape(-1)
            if raw.shape[0] != n:
                raise ValueError(
                    f"values[{q.name!r}] has {raw.shape[0]} entries for {n} "
                    "respondents."
                )
            if q.kind == "interval":
                anchors = np.array(
                    [r["questions"][i]["anchors"] for r in respondents], dtype=float
                ).reshape(n, -1)
                cells = np.sum(anchors < raw.astype(float)[:, None], axis=1)
                for row, c in zip(out, cells.tolist()):
                    row[q.name] = int(c)
                continue
            priv = q.privatizer
            if random_state is not None:
                priv = clone(priv).set_params(random_state=int(rng.integers(2**31)))
                priv.fit(self._one_row(q))
            else:
                priv = _reseeded(priv, None)
            released = priv.transform(raw.reshape(-1, 1))
            released = np.asarray(released)
            for row, r in zip(out, released):
                if q.kind in ("laplace", "square_wave"):
                    row[q.name] = float(r[0])
                elif q.kind == "frequency" and q.spec["oracle"] in ("krr", "hr"):
                    row[q.name] = int(r[0])
                elif q.kind == "rvns":
                    row[q.name] = [float(v) for v in r]
                else:
                    row[q.name] = [int(v) for v in r]
        return out

    @staticmethod
    def _one_row(q: Question) -> Any:
        if q.kind in ("subset", "frequency"):
            return np.asarray(q.privatizer.categories_[0][:1], dtype=object)[:, None]
        return np.array([[q.spec["low"]]])

    # -- files -------------------------------------------------------------------
    def save(self, path: str | Path) -> None:
        """Write the questionnaire (with its fitted privatizers) to a file.

        The file is a pickle: load only files you wrote yourself.

        Parameters
        ----------
        path : str or Path
            Destination.
        """
        with open(path, "wb") as fh:
            pickle.dump(self, fh, protocol=pickle.HIGHEST_PROTOCOL)

    @classmethod
    def load(cls, path: str | Path) -> Questionnaire:
        """Read a questionnaire written by :meth:`save`.

        Parameters
        ----------
        path : str or Path
            A file written by :meth:`save` (a pickle: load only your own).

        Returns
        -------
        questionnaire : Questionnaire

        Raises
        ------
        ValueError
            When a question's privatizer does not give the spec stored with
            the question (a privatizer changed after the question was built,
            or a file of another version): its pages and its report would
            describe different mechanisms.
        """
        with open(path, "rb") as fh:
            obj = pickle.load(fh)
        if not isinstance(obj, cls):
            raise TypeError(
                f"{path} holds a {type(obj).__name__}, not a Questionnaire."
            )
        if not hasattr(obj, "lifetime_epsilon"):  # written before waves
            obj.lifetime_epsilon = None
        # a file written before bounds and categories had to be declared
        for q in obj.questions:
            check_declared(q.privatizer)
            q._check_spec()
        return obj
