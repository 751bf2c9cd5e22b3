"""Longitudinal (memoized, RAPPOR-style) k-RR and OUE.

Two stages per respondent and value (Erlingsson, Pihur and Korolova,
2014): a *permanent* answer ``B`` drawn once with the oracle at
``epsilon_permanent``, then, at every wave, an *instantaneous* report
drawn from ``B`` at ``epsilon_instant``:

* k-RR: ``B`` is k-RR of the category; each wave reports k-RR of ``B``;
* OUE: ``B`` is the OUE bit vector of the category; each wave passes
  every bit of ``B`` through a further OUE-style flip (a 1 stays 1 with
  probability ``p_i = 1/2``, a 0 becomes 1 with ``q_i = 1/(e**eps_i + 1)``).

Both composed channels are pure oracles again.  With ``(p_p, q_p)`` and
``(p_i, q_i)`` the support probabilities of the two stages, a wave's
report supports the respondent's own category with probability
``a = p_p p_i + (1 - p_p) q_i`` and any other with
``b = q_p p_i + (1 - q_p) q_i`` (for k-RR this is ``Q = P_perm P_inst``:
``(1 - p_p) = (k - 1) q_p``).  Two waves of one respondent share ``B``:
given the category, their support indicators of ``v`` have covariance
``(p_i - q_i)**2 r (1 - r)``, ``r = p_p`` when ``v`` is the category and
``q_p`` otherwise (the variance of ``P(S_t = 1 | B)``).

All probabilities are the realised dyadic ones of :mod:`._coins`; the
composed ones are computed exactly as fractions.
"""

from __future__ import annotations

import math
import numbers
from fractions import Fraction
from typing import Any, ClassVar

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray
from sklearn.base import BaseEstimator, clone
from sklearn.utils.validation import check_is_fitted

from .._uncertainty import ConfidenceIntervalMixin, IntervalRequest
from ..base import ParamsValidationMixin, SufficientStatisticMixin
from ..utils import HasMethods, Interval, Options
from ..utils._budget import budget_share
from ..utils._statistic import RowStatistic, validate_rows
from ._coins import COIN_SCALE, MIN_EPSILON, draw_coins, unary_numerators
from ._estimator import _distinct_rows, norm_sub
from ._laws import oracle_law
from ._oracles import MAX_LAW_CELLS, make_oracle
from ._pmf_intervals import pmf_conf_int
from ._privatizers import _COMMON_CONSTRAINTS, _FrequencyPrivatizer

__all__ = ["LongitudinalFrequencyEstimator", "LongitudinalOracle"]

#: Largest number of waves one call simulates.
MAX_WAVES = 1 << 12


def _log(p: Fraction) -> float:
    """``log p`` of an exact fraction, accurate to about 1e-16."""
    return math.log(p.numerator) - math.log(p.denominator) if p > 0 else -math.inf


class LongitudinalChannel:
    """One column's two-stage channel: samplers, composed law, variances.

    Parameters
    ----------
    kind : {"krr", "oue"}
        The oracle of both stages.
    n_categories : int
        ``k``.
    epsilon_permanent, epsilon_instant : float
        Losses of the two stages (this column's share).
    """

    def __init__(
        self,
        kind: str,
        n_categories: int,
        epsilon_permanent: float,
        epsilon_instant: float,
    ) -> None:
        self.kind = kind
        self.n_categories = int(n_categories)
        self.epsilon_permanent = float(epsilon_permanent)
        self.epsilon_instant = float(epsilon_instant)
        k = self.n_categories
        self.permanent = make_oracle(kind, k, epsilon_permanent)
        if kind == "krr":
            self.instant = make_oracle("krr", k, epsilon_instant)
            keep = self.instant.keep
            p_i = Fraction(keep, COIN_SCALE)
            q_i = Fraction(COIN_SCALE - keep, COIN_SCALE * (k - 1))
            p_p = Fraction(self.permanent.keep, COIN_SCALE)
            q_p = Fraction(COIN_SCALE - self.permanent.keep, COIN_SCALE * (k - 1))
        else:
            self.instant_numerators = unary_numerators(epsilon_instant, False)
            p_i, q_i = (Fraction(a, COIN_SCALE) for a in self.instant_numerators)
            p_p = Fraction(self.permanent.own, COIN_SCALE)
            q_p = Fraction(self.permanent.other, COIN_SCALE)
        self._stages = (p_p, q_p, p_i, q_i)
        a = p_p * p_i + (1 - p_p) * q_i
        b = q_p * p_i + (1 - q_p) * q_i
        self._composed = (a, b)
        self.p_star, self.q_star = float(a), float(b)
        if kind == "krr":
            self._log_p, self._log_q = _log(a), _log(b)
            self.wave_epsilon = self._log_p - self._log_q
        else:
            self._levels = np.array([[_log(1 - a), _log(a)], [_log(1 - b), _log(b)]])
            self.wave_epsilon = _log(a * (1 - b) / (b * (1 - a)))
        # realised loss of the permanent answer: all waves are functions of it
        self.lifetime_epsilon = float(self.permanent.realised_epsilon)
        pi_qi = p_i - q_i
        self._cov = (
            float(pi_qi**2 * p_p * (1 - p_p)),
            float(pi_qi**2 * q_p * (1 - q_p)),
        )

    @property
    def n_outputs(self) -> int:
        """Report columns of one wave."""
        return 1 if self.kind == "krr" else self.n_categories

    def output_names(
        self, feature: str, categories: list[str], waves: int
    ) -> list[str]:
        if self.kind == "krr":
            return [f"{feature}_wave{t}" for t in range(waves)]
        return [f"{feature}_wave{t}={c}" for t in range(waves) for c in categories]

    def sample(
        self, codes: NDArray[np.int64], waves: int, rng: np.random.Generator
    ) -> NDArray[np.int64]:
        """All waves of one collection; the permanent answers stay local."""
        permanent = self.permanent.sample(codes, rng)
        blocks = []
        for _ in range(waves):
            if self.kind == "krr":
                blocks.append(self.instant.sample(permanent[:, 0], rng))
            else:
                own, other = self.instant_numerators
                thresholds = np.where(permanent == 1, own, other).astype(np.int64)
                blocks.append(draw_coins(rng, thresholds))
        return np.hstack(blocks).astype(np.int64)

    def support(self, wave_reports: NDArray[np.int64]) -> NDArray[np.bool_]:
        """Categories each report of one wave supports (n x k)."""
        if self.kind == "krr":
            return wave_reports[:, :1] == np.arange(self.n_categories)[None, :]
        return wave_reports.astype(bool)

    def variance(self, frequencies: Any, n_samples: int) -> NDArray[np.float64]:
        """Variance of one wave's unbiased estimate of each frequency."""
        f = np.asarray(frequencies, dtype=float)
        p, q = self.p_star, self.q_star
        num = f * p * (1 - p) + (1 - f) * q * (1 - q)
        return num / (n_samples * (p - q) ** 2)

    def covariance(self, frequencies: Any, n_samples: int) -> NDArray[np.float64]:
        """Covariance of two waves' unbiased estimates of each frequency."""
        f = np.asarray(frequencies, dtype=float)
        c1, c0 = self._cov
        return (f * c1 + (1 - f) * c0) / (n_samples * (self.p_star - self.q_star) ** 2)

    def pooled_variance(
        self, frequencies: Any, n_samples: int, waves: int
    ) -> NDArray[np.float64]:
        """Variance of the average of ``waves`` waves' estimates."""
        v = self.variance(frequencies, n_samples)
        c = self.covariance(frequencies, n_samples)
        return v / waves + (waves - 1) / waves * c

    def full_table(self, categories: list[str]) -> tuple[NDArray, list[str]] | None:
        """``log P(one wave's report | category)``, inputs by outputs."""
        k = self.n_categories
        if self.kind == "krr":
            if k * k > MAX_LAW_CELLS:
                return None
            table = np.full((k, k), self._log_q)
            np.fill_diagonal(table, self._log_p)
            return table, list(categories)
        if k * 2**k > MAX_LAW_CELLS:
            return None
        outputs = (np.arange(2**k)[:, None] >> np.arange(k)[None, :]) & 1
        other = self._levels[1][outputs].sum(axis=1)
        table = np.empty((k, 2**k))
        for x in range(k):
            bit = outputs[:, x]
            table[x] = other - self._levels[1][bit] + self._levels[0][bit]
        labels = [
            "{" + ", ".join(str(categories[j]) for j in np.flatnonzero(row)) + "}"
            for row in outputs
        ]
        return table, labels

    def pair_table(self) -> tuple[NDArray, list[str]]:
        """Two categories' law over classes of outputs of equal ratio."""
        if self.kind == "krr":
            lp, lq = self._log_p, self._log_q
            rows, labels = [[lp, lq], [lq, lp]], ["the first category", "the second"]
            if self.n_categories > 2:
                rest = math.log(self.n_categories - 2) + lq
                rows.append([rest, rest])
                labels.append("any other category")
            return np.array(rows).T, labels
        own, oth = self._levels
        cols, labels = [], []
        for b0 in (0, 1):
            for b1 in (0, 1):
                cols.append([own[b0] + oth[b1], oth[b0] + own[b1]])
                labels.append(f"bits ({b0}, {b1}) of the two categories")
        return np.array(cols).T, labels

    def summary(self) -> dict[str, Any]:
        return {
            "oracle": f"longitudinal {self.kind}",
            "n_categories": self.n_categories,
            "epsilon_permanent": self.epsilon_permanent,
            "epsilon_instant": self.epsilon_instant,
            "realised_epsilon_per_wave": self.wave_epsilon,
            "realised_epsilon_lifetime": self.lifetime_epsilon,
            "p_star": self.p_star,
            "q_star": self.q_star,
        }


class LongitudinalOracle(_FrequencyPrivatizer):
    """Memoized two-stage k-RR or OUE (RAPPOR's permanent and instantaneous answers).

    For each respondent and value, a permanent answer is drawn once with
    the ``kind`` oracle at ``epsilon_permanent``; every wave then reports
    an instantaneous randomization of it at ``epsilon_instant`` (k-RR of
    the permanent category, or an OUE-style flip of every permanent bit).
    :meth:`transform` simulates all ``waves`` waves of one collection and
    releases ``waves`` blocks of report columns per input column.

    The permanent answers exist only inside one :meth:`transform` call:
    they are never stored on the object, so neither a copy nor a pickle
    carries them, and two calls draw independent permanent answers (a
    seeded ``random_state`` makes the calls reproducible, for simulation).
    On a real device the permanent answer is kept by the respondent's
    device between waves; keeping it is the survey's job, not this
    object's.

    Privacy: one wave's report is pure epsilon-LDP with the exact loss of
    the composed channel (``realised_epsilon_per_wave`` in
    :meth:`privacy_summary`, at most ``min(epsilon_permanent,
    epsilon_instant)`` per column).  Any number of waves of a respondent
    whose value does not change are functions of one permanent answer, so
    their lifetime loss is ``epsilon_permanent``; a changed value gets a
    fresh permanent answer and adds another ``epsilon_permanent``.

    Parameters
    ----------
    kind : {"krr", "oue"}, default="krr"
        The oracle of both stages.
    epsilon_permanent : float, default=2.0
        Loss of the permanent answer of one record (all columns together,
        split equally), ``> 0``: the lifetime bound.
    epsilon_instant : float, default=1.0
        Loss of one wave's randomization of the permanent answer (split
        equally over the columns), ``> 0``.
    waves : int, default=1
        Number of waves one call simulates.
    categories : "auto" or list of array-like, default="auto"
        Categories of each column, declared before seeing the data
        (``"auto"`` reads them with a
        :class:`~skprivate.exceptions.PrivacyLeakWarning`).
    handle_unknown : {"error", "ignore"}, default="error"
        A value outside the categories is refused, or released as a
        uniformly drawn category.
    random_state : int, Generator, RandomState or None, default=None
        ``None`` for a real release; an int for simulations.

    Attributes
    ----------
    categories_ : list of ndarray
        Categories of each column.
    oracles_ : list of LongitudinalChannel
        Each column's two-stage channel (public description).
    n_features_in_ : int
        Number of input columns.

    References
    ----------
    U. Erlingsson, V. Pihur and A. Korolova, "RAPPOR: Randomized
    Aggregatable Privacy-Preserving Ordinal Response", CCS 2014.

    Examples
    --------
    >>> import numpy as np
    >>> from skprivate.frequency import LongitudinalOracle
    >>> lo = LongitudinalOracle(
    ...     kind="krr",
    ...     epsilon_permanent=2.0,
    ...     epsilon_instant=1.0,
    ...     waves=3,
    ...     categories=[["a", "b", "c"]],
    ...     random_state=0,
    ... )
    >>> lo.fit_transform(np.array([["a"], ["b"]])).shape
    (2, 3)
    >>> list(lo.get_feature_names_out())
    ['x0_wave0', 'x0_wave1', 'x0_wave2']
    >>> summary = lo.privacy_summary()
    >>> summary["epsilon_lifetime"] <= 2.0, summary["epsilon_per_wave"] < 1.0
    (True, True)
    """

    _parameter_constraints: ClassVar[dict] = {
        **{k: v for k, v in _COMMON_CONSTRAINTS.items() if k != "epsilon"},
        "kind": [Options({"krr", "oue"})],
        "epsilon_permanent": [Interval(numbers.Real, 0, None, closed="neither")],
        "epsilon_instant": [Interval(numbers.Real, 0, None, closed="neither")],
        "waves": [Interval(numbers.Integral, 1, MAX_WAVES, closed="both")],
    }

    def __init__(
        self,
        kind: str = "krr",
        epsilon_permanent: float = 2.0,
        epsilon_instant: float = 1.0,
        waves: int = 1,
        categories: str | list = "auto",
        handle_unknown: str = "error",
        random_state: Any = None,
    ) -> None:
        self.kind = kind
        self.epsilon_permanent = epsilon_permanent
        self.epsilon_instant = epsilon_instant
        self.waves = waves
        self.categories = categories
        self.handle_unknown = handle_unknown
        self.random_state = random_state

    @property
    def _epsilon_per_feature(self) -> float:
        return budget_share(self.epsilon_permanent, self.n_features_in_)

    def _oracle_kind(self, n_categories: int, epsilon: float) -> str:
        return self.kind

    def _fit(self, X: ArrayLike, y: Any = None):
        self._check_params()
        n_features = self._validate(X, reset=True).shape[1]
        for name in ("epsilon_permanent", "epsilon_instant"):
            share = budget_share(getattr(self, name), n_features)
            if share < MIN_EPSILON:
                raise ValueError(
                    f"{name} per column is {share:.3g} over {n_features} columns; "
                    f"the exact coins are set up for at least {MIN_EPSILON:g}."
                )
        super()._fit(X, y)
        n = self.n_features_in_
        self.oracles_ = [
            LongitudinalChannel(
                self.kind,
                c.size,
                budget_share(self.epsilon_permanent, n),
                budget_share(self.epsilon_instant, n),
            )
            for c in self.categories_
        ]
        return self

    def _transform(self, X: ArrayLike) -> NDArray[np.int64]:
        check_is_fitted(self)
        X = self._validate(X, reset=False)
        codes = self._codes(X)
        rng = self._next_generator(X)
        unknown = codes < 0
        if unknown.any():
            sizes = np.array([c.size for c in self.categories_])
            rows, cols = np.nonzero(unknown)
            codes[rows, cols] = rng.integers(0, sizes[cols])
        blocks = [
            channel.sample(codes[:, j], int(self.waves), rng)
            for j, channel in enumerate(self.oracles_)
        ]
        return np.hstack(blocks)

    def get_feature_names_out(self, input_features: ArrayLike | None = None):
        """Names of the report columns: each column's waves, in order.

        k-RR: ``feature_wave{t}`` (the reported code); OUE:
        ``feature_wave{t}=category`` bits.

        Parameters
        ----------
        input_features : array-like of str or None
            Input names; defaults to ``feature_names_in_`` or ``x0, x1, ...``.

        Returns
        -------
        names : ndarray of str
        """
        names = self._input_names(input_features)
        out = []
        for name, cats, channel in zip(names, self.categories_, self.oracles_):
            out.extend(
                channel.output_names(str(name), [str(c) for c in cats], int(self.waves))
            )
        return np.asarray(out, dtype=object)

    def _exact_law(self, column: int) -> Any:
        """Exact law that bounds one call's release of ``column``, for the audit.

        With one wave, the law of that wave's report (the composed channel).
        With several, every wave is a function of the permanent answer and
        fresh coins, so the release of all waves is a post-processing of the
        permanent answer: its law is audited, and its loss bounds the loss of
        the whole release.
        """
        check_is_fitted(self)
        cats = [str(c) for c in self.categories_[column]]
        channel = self.oracles_[column]
        if int(self.waves) > 1:
            return oracle_law(channel.permanent, cats)
        return oracle_law(channel, cats)

    def privacy_summary(self) -> dict[str, Any]:
        """The loss of one call's release (all waves), per wave and lifetime.

        Returns
        -------
        summary : dict
            ``notion``; ``epsilon`` and per column ``epsilon_per_feature``:
            the claim for what :meth:`transform` releases per record, all
            ``waves`` reports together: the exact loss of the one wave when
            ``waves=1``, else the realised loss of the permanent answer
            (every wave is a function of it), the figure
            :func:`skprivate.audit` checks; ``epsilon_per_wave`` (the exact
            loss of one wave's report, from the composed law);
            ``epsilon_lifetime`` and ``epsilon_lifetime_per_feature`` (all
            waves ever collected from a respondent whose values do not
            change: at most ``epsilon_permanent``); ``condition`` (how the
            figures read, and that a changed value adds
            ``epsilon_permanent``); ``floating_point_safe``; ``oracles``;
            and the ``reproducible`` entries.
        """
        check_is_fitted(self)
        policy = self._release_policy()
        per_wave = [self._wave_claim(j) for j in range(self.n_features_in_)]
        lifetime = [
            max(float(c.lifetime_epsilon), self._audited(j))
            for j, c in enumerate(self.oracles_)
        ]
        release = per_wave if int(self.waves) == 1 else lifetime
        columns = [
            {"feature": name, **channel.summary()}
            for name, channel in zip(self._names(), self.oracles_)
        ]
        return {
            "notion": "epsilon-LDP (longitudinal frequency oracle)",
            "epsilon": float(sum(release)),
            "epsilon_lifetime": float(sum(lifetime)),
            "epsilon_per_wave": float(sum(per_wave)),
            "epsilon_per_feature": release,
            "epsilon_lifetime_per_feature": lifetime,
            "realised_epsilon_per_feature": release,
            "condition": (
                f"epsilon covers the {int(self.waves)} wave(s) one call releases "
                f"per record; one wave alone costs {sum(per_wave):.6g}; all waves "
                "ever collected from a respondent whose value does not change "
                f"cost {sum(lifetime):.6g} together (the permanent answer); a "
                "changed value gets a fresh permanent answer and adds "
                "epsilon_permanent"
            ),
            "floating_point_safe": True,
            "oracles": columns,
            **policy,
        }

    def _audited(self, column: int) -> float:
        # the float evaluation of the law skprivate.audit reads
        return float(self._exact_law(column).worst_epsilon().value)

    def _wave_claim(self, column: int) -> float:
        # the exact loss of one wave, never below the float evaluation of
        # the same law that skprivate.audit performs
        cats = [str(c) for c in self.categories_[column]]
        law = oracle_law(self.oracles_[column], cats)
        audited = float(law.worst_epsilon().value)
        return max(float(self.oracles_[column].wave_epsilon), audited)


class LongitudinalFrequencyEstimator(
    SufficientStatisticMixin,
    ConfidenceIntervalMixin,
    ParamsValidationMixin,
    BaseEstimator,
):
    """Per-wave and pooled frequency estimates from longitudinal reports.

    Each wave ``t`` gives the unbiased estimate
    ``f_t(v) = (C_t(v) / n - b) / (a - b)`` of the composed channel; the
    pooled estimate is their average.  The waves of one respondent share
    the permanent answer, so the pooled variance
    ``V / T + (T - 1) / T * Cov`` includes the covariance of two waves'
    estimates (see :mod:`skprivate.frequency._longitudinal`); it is
    evaluated at the plug-in frequencies ``clip(distribution_raw_, 0, 1)``.
    ``conf_int("pmf")`` bounds each category's share in the population the
    respondents were drawn from: with the normal law of the pooled unbiased
    estimate and that variance plus the sampling variance ``f (1 - f) / n``
    (``method="unbiased"``), or by the percentile bootstrap of respondents
    (all waves of a respondent resampled together, which keeps their
    dependence; ``method="norm-sub"``).  ``partial_fit`` adds respondents, and a dask
    collection is fitted partition by partition: the estimate depends on
    the rows only through the counts of distinct report rows.

    Parameters
    ----------
    oracle : LongitudinalOracle
        The fitted privatizer (one column) that produced the reports, or
        an unfitted one with declared categories.  The estimate only
        post-processes the reports: :func:`~skprivate.privacy_report` of the
        fitted estimator states the guarantee of this privatizer's release.
    method : {"unbiased", "norm-sub"}, default="unbiased"
        ``distribution_`` is the pooled unbiased estimate, or its Euclidean
        projection on the simplex.

    Attributes
    ----------
    wave_estimates_ : ndarray of shape (waves, k)
        Unbiased estimate of each wave.
    wave_variance_ : ndarray of shape (k,)
        Closed-form variance of one wave's estimate.
    distribution_raw_ : ndarray of shape (k,)
        Pooled (average) unbiased estimate.
    distribution_ : ndarray of shape (k,)
        The estimate of ``method``.
    variance_ : ndarray of shape (k,)
        Closed-form variance of ``distribution_raw_``.
    categories_ : ndarray
        Category labels.
    oracle_ : LongitudinalChannel
        The column's channel.
    n_samples_seen_ : int
        Number of respondents.
    reports_, report_counts_ : ndarray
        The distinct report rows (all waves of a respondent) and how often
        each occurred.

    Examples
    --------
    >>> import numpy as np
    >>> from skprivate.frequency import (
    ...     LongitudinalFrequencyEstimator,
    ...     LongitudinalOracle,
    ... )
    >>> x = np.random.default_rng(0).choice(3, size=(20000, 1), p=[0.2, 0.3, 0.5])
    >>> lo = LongitudinalOracle(
    ...     epsilon_permanent=4.0,
    ...     epsilon_instant=3.0,
    ...     waves=4,
    ...     categories=[[0, 1, 2]],
    ...     random_state=0,
    ... )
    >>> est = LongitudinalFrequencyEstimator(oracle=lo.fit(x)).fit(lo.transform(x))
    >>> est.distribution_.round(1).tolist()
    [0.2, 0.3, 0.5]
    """

    _parameter_constraints: ClassVar[dict] = {
        "oracle": [None, HasMethods(["fit", "transform"])],
        "method": [Options({"unbiased", "norm-sub"})],
    }
    # the counts of distinct report rows depend on the oracle only
    _STREAM_SETTINGS = ("oracle",)

    def __init__(self, oracle: Any = None, method: str = "unbiased") -> None:
        self.oracle = oracle
        self.method = method

    def _resolve(self) -> tuple[LongitudinalChannel, NDArray, int]:
        source = self.oracle
        if not isinstance(source, LongitudinalOracle):
            raise TypeError(
                f"oracle must be a LongitudinalOracle; got {type(source).__name__}."
            )
        if not hasattr(source, "oracles_"):
            declared = source.get_params()["categories"]
            if isinstance(declared, str):
                raise ValueError(
                    "oracle is not fitted and declares no categories; pass the "
                    "fitted privatizer or declare categories=[[...]]."
                )
            first = np.array([[next(iter(c)) for c in declared]], dtype=object)
            source = clone(source).fit(first)
        if len(source.oracles_) != 1:
            raise ValueError(
                f"oracle privatizes {len(source.oracles_)} columns; one column is "
                "needed here. Fit one privatizer per column."
            )
        return source.oracles_[0], np.asarray(source.categories_[0]), int(source.waves)

    def fit(self, X: ArrayLike, y: Any = None):
        """Estimate the frequencies from the reports of all waves.

        Parameters
        ----------
        X : array-like or dask collection of shape (n_samples, waves * \
n_wave_columns)
            One row per respondent, the waves' report blocks in order.
        y : None
            Ignored.

        Returns
        -------
        self : object
        """
        return self._fit_statistic(X)

    def partial_fit(self, X: ArrayLike, y: Any = None):
        """Add respondents' reports to the estimate.

        Parameters
        ----------
        X : array-like of shape (n_samples, waves * n_wave_columns)
            Reports of more respondents (rows numbered after those seen).
        y : None
            Ignored.

        Returns
        -------
        self : object
        """
        return self._partial_fit_statistic(X)

    # -- the statistic protocol ------------------------------------------
    def _statistic_input(self, X, reset):
        return validate_rows(self, X, reset=reset, dtype=None, ensure_all_finite=False)

    def _statistic_plan(self, data, stream):
        channel, cats, waves = self._resolve()
        return _WaveReports(channel, cats, waves)

    def _statistic_fit(self, statistic, total, added):
        rows, counts = total
        if counts.sum() == 0:
            raise ValueError("X holds no report; there is nothing to estimate from.")
        channel, waves = statistic.channel, statistic.waves
        self.oracle_, self.categories_ = channel, statistic.categories
        self.reports_, self.report_counts_ = rows, counts
        self.n_samples_seen_, self.n_waves_ = int(counts.sum()), waves
        self.wave_estimates_ = _wave_estimates(channel, waves, rows, counts)
        self.distribution_raw_ = self.wave_estimates_.mean(axis=0)
        raw = self.distribution_raw_
        self.distribution_ = raw if self.method == "unbiased" else norm_sub(raw)
        plug_in = np.clip(raw, 0.0, 1.0)
        n = self.n_samples_seen_
        self.wave_variance_ = channel.variance(plug_in, n)
        self.variance_ = channel.pooled_variance(plug_in, n, waves)

    # -- intervals ---------------------------------------------------------
    def _conf_int_pmf(self, request: IntervalRequest) -> pd.DataFrame:
        """``"normal"``: the pooled unbiased estimate with its closed-form
        variance (the waves' covariance included) plus the sampling
        variance; ``"bootstrap"``: percentile bootstrap of
        ``distribution_``, respondents resampled with all their waves.
        ``"auto"`` is ``"normal"`` for ``method="unbiased"`` and
        ``"bootstrap"`` otherwise (see :mod:`._pmf_intervals`)."""
        return pmf_conf_int(
            request,
            self,
            normal="normal (closed-form pooled variance of the waves plus "
            "sampling variance, plug-in frequencies)",
            bootstrap="bootstrap-percentile (respondents resampled with all "
            "their waves)",
            estimate=self._resampled_estimate,
        )

    def _resampled_estimate(self, rows: NDArray, counts: NDArray) -> NDArray:
        raw = _wave_estimates(self.oracle_, self.n_waves_, rows, counts).mean(axis=0)
        return raw if self.method == "unbiased" else norm_sub(raw)


def _wave_estimates(
    channel: LongitudinalChannel, waves: int, rows: NDArray, counts: NDArray
) -> NDArray[np.float64]:
    """Unbiased estimate of each wave from distinct report rows and counts."""
    n = float(counts.sum())
    blocks = rows.reshape(rows.shape[0], waves, channel.n_outputs)
    support = np.array(
        [counts @ channel.support(blocks[:, t, :]) for t in range(waves)], dtype=float
    )
    return (support / n - channel.q_star) / (channel.p_star - channel.q_star)


class _WaveReports(RowStatistic):
    """Counts of the distinct report rows (all waves) of one column."""

    def __init__(
        self, channel: LongitudinalChannel, categories: NDArray, waves: int
    ) -> None:
        self.channel = channel
        self.categories = categories
        self.waves = waves
        limit = channel.n_categories if channel.kind == "krr" else 2
        self.limits = np.full(waves * channel.n_outputs, limit, dtype=np.int64)

    def block(self, rows, first_row):
        R = np.asarray(rows)
        width = self.limits.size
        if R.ndim != 2 or R.shape[1] != width:
            raise ValueError(
                f"X must have {width} columns ({self.waves} waves of "
                f"{self.channel.n_outputs}); got shape {R.shape}."
            )
        if R.dtype.kind not in "biuf":
            raise TypeError(f"X must hold integer report codes; got dtype {R.dtype}.")
        limit = int(self.limits[0])
        with np.errstate(invalid="ignore"):
            ok = np.isfinite(R) & (np.round(R) == R) & (R >= 0) & (limit > R)
        if not ok.all():
            row, col = np.argwhere(~ok)[0]
            raise ValueError(
                f"X must hold report codes in [0, {limit}) as released by the "
                f"oracle; row {first_row + row}, column {col} does not."
            )
        return _distinct_rows(R.astype(np.int64), self.limits)

    def merge(self, values):
        rows = np.concatenate([v[0] for v in values])
        counts = np.concatenate([v[1] for v in values])
        return _distinct_rows(rows, self.limits, counts)
