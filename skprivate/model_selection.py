"""Choosing privacy parameters by cross-validation.

A grid search over privacy parameters answers "which setting predicts best?",
but the practical question is "what is the *most private* setting whose
cross-validated score is within a tolerance of the best?".
:class:`MostPrivateWithin` answers it, either after the search
(:func:`most_private_setting`) or during it, as the ``refit`` strategy of
:class:`~sklearn.model_selection.GridSearchCV`, so that ``best_estimator_``
is refitted at the chosen setting.

Tuning privacy parameters on the real private data is itself a use of that
data: the chosen setting depends on it.  Tune on simulated or public data,
or account for the search in the privacy budget.
"""

from __future__ import annotations

import numbers
import re
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["MostPrivateWithin", "most_private_setting"]


class MostPrivateWithin:
    """Select the most private grid point scoring within a tolerance of the best.

    Parameters
    ----------
    param : str or callable
        The privacy parameter as named in the grid (for example
        ``"privatizer__epsilon"``), or a callable mapping a parameter dict to
        a number that is larger for more private settings (to combine several
        parameters, such as RVNS's band width ``d`` and sample count ``k``).
    more_private : {"lower", "higher"}, default="lower"
        Direction of privacy for ``param`` when it is a name: ``"lower"`` for
        ε, ``"higher"`` for an interval mechanism's anchor scale or an RVNS
        band width.  Ignored when ``param`` is callable.
    tolerance : float, default=0.0
        Allowed shortfall from the best mean test score.
    rule : {"absolute", "relative", "one-se"}, default="absolute"
        ``"absolute"``: score ≥ best − tolerance; ``"relative"``: score ≥
        best − tolerance·abs(best); ``"one-se"``: score ≥ best − tolerance·SE of
        the best, where SE = std / sqrt(n_splits) (tolerance=1 is the
        one-standard-error rule).  The standard deviation and the splits are
        read from the columns matching ``score_key``: for
        ``"mean_test_<name>"``, ``"std_test_<name>"`` and
        ``"split<i>_test_<name>"``.
    score_key : str, default="mean_test_score"
        Column of ``cv_results_`` to use (``"mean_test_<name>"`` with several
        scorers).  With ``rule="one-se"`` it must start with ``"mean_"``.

    Examples
    --------
    >>> import numpy as np
    >>> from skprivate.model_selection import MostPrivateWithin
    >>> results = {
    ...     "params": [{"eps": 0.5}, {"eps": 1.0}, {"eps": 4.0}],
    ...     "mean_test_score": np.array([0.70, 0.79, 0.80]),
    ... }
    >>> MostPrivateWithin("eps", more_private="lower", tolerance=0.02)(results)
    1
    """

    def __init__(
        self,
        param: str | Callable[[Mapping[str, Any]], float],
        *,
        more_private: str = "lower",
        tolerance: float = 0.0,
        rule: str = "absolute",
        score_key: str = "mean_test_score",
    ) -> None:
        self.param = param
        self.more_private = more_private
        self.tolerance = tolerance
        self.rule = rule
        self.score_key = score_key

    def _privacy(self, params: Mapping[str, Any]) -> float:
        if callable(self.param):
            value = self.param(params)
            if (
                isinstance(value, bool)
                or not isinstance(value, numbers.Real)
                or not np.isfinite(value)
            ):
                raise ValueError(
                    f"param returned {value!r} for {dict(params)}; a callable "
                    "param must return a finite number (larger = more private)."
                )
            return float(value)
        if not isinstance(self.param, str):
            raise TypeError(
                f"param must be a parameter name (str) or a callable; got "
                f"{type(self.param).__name__}."
            )
        if self.param not in params:
            raise ValueError(
                f"param {self.param!r} is not a searched parameter; the grid has "
                f"{sorted(params)}."
            )
        value = params[self.param]
        try:
            number = float(value)
        except (TypeError, ValueError):
            raise TypeError(
                f"param {self.param!r} is {value!r} in the grid point "
                f"{dict(params)}; expected a number (the privacy parameter, "
                f"{self.more_private} = more private)."
            ) from None
        if np.isnan(number):
            raise ValueError(
                f"param {self.param!r} is NaN in the grid point {dict(params)}; "
                "expected a number (the privacy parameter)."
            )
        return -number if self.more_private == "lower" else number

    def _standard_error(self, cv_results: Mapping[str, Any], best: int) -> float:
        """SE of the best mean score: its std over the splits / sqrt(n_splits)."""
        key = self.score_key
        if not key.startswith("mean_") or key == "mean_":
            raise ValueError(
                f"rule='one-se' needs a score_key 'mean_<...>' (the mean of the "
                f"scores over the splits, as 'mean_test_score'); got {key!r}."
            )
        suffix = key[len("mean") :]  # "_test_score", "_test_r2", ...
        std_key = f"std{suffix}"
        if std_key not in cv_results:
            raise ValueError(
                f"rule='one-se' needs the column {std_key!r} of cv_results (the "
                f"standard deviation over the splits of score_key {key!r}); it "
                "has none."
            )
        split = re.compile(rf"split\d+{re.escape(suffix)}")
        n_splits = sum(1 for k in cv_results if split.fullmatch(str(k)))
        if n_splits == 0:
            raise ValueError(
                f"rule='one-se' needs the split scores 'split<i>{suffix}' of "
                f"cv_results (to count the splits of score_key {key!r}); it has "
                "none."
            )
        return float(np.asarray(cv_results[std_key])[best]) / np.sqrt(n_splits)

    def _check(self) -> None:
        if self.more_private not in ("lower", "higher"):
            raise ValueError(
                f"more_private must be 'lower' or 'higher'; got {self.more_private!r}."
            )
        if self.rule not in ("absolute", "relative", "one-se"):
            raise ValueError(
                f"rule must be 'absolute', 'relative' or 'one-se'; got {self.rule!r}."
            )
        if not (
            isinstance(self.tolerance, numbers.Real)
            and not isinstance(self.tolerance, bool)
            and np.isfinite(self.tolerance)
            and self.tolerance >= 0
        ):
            raise ValueError(
                f"tolerance must be a finite number >= 0; got {self.tolerance!r}."
            )
        if not isinstance(self.score_key, str):
            raise TypeError(
                f"score_key must be a column name of cv_results (str); got "
                f"{type(self.score_key).__name__}."
            )

    def table(self, cv_results: Mapping[str, Any]) -> pd.DataFrame:
        """Grid points with their score, privacy rank and eligibility.

        Parameters
        ----------
        cv_results : dict
            ``cv_results_`` of a fitted search.

        Returns
        -------
        pandas.DataFrame
            Columns ``params``, ``score``, ``privacy`` (larger is more
            private), ``eligible`` and ``selected``, sorted from most to
            least private.
        """
        self._check()
        if not isinstance(cv_results, Mapping) or "params" not in cv_results:
            raise TypeError(
                "search must be a fitted search (GridSearchCV, RandomizedSearchCV) "
                f"or its cv_results_ dict; got {type(cv_results).__name__}."
            )
        if len(cv_results["params"]) == 0:
            raise ValueError(
                "search has no grid point (its cv_results 'params' is empty); "
                "expected a search fitted over at least one setting."
            )
        if self.score_key not in cv_results:
            raise ValueError(
                f"cv_results has no score_key {self.score_key!r}; with several "
                "scorers use score_key='mean_test_<scorer>'."
            )
        scores = np.asarray(cv_results[self.score_key], dtype=float)
        if np.all(np.isnan(scores)):
            raise ValueError(
                f"every grid point has a NaN score in score_key "
                f"{self.score_key!r}; check the scorer."
            )
        best = int(np.nanargmax(scores))
        if self.rule == "absolute":
            threshold = scores[best] - self.tolerance
        elif self.rule == "relative":
            threshold = scores[best] - self.tolerance * abs(scores[best])
        else:
            threshold = scores[best] - self.tolerance * self._standard_error(
                cv_results, best
            )
        privacy = np.array([self._privacy(p) for p in cv_results["params"]])
        frame = pd.DataFrame(
            {
                "params": list(cv_results["params"]),
                "score": scores,
                "privacy": privacy,
                "eligible": scores >= threshold - 1e-12,
            }
        )
        # Most private first; among equally private settings, the best score.
        frame = frame.sort_values(["privacy", "score"], ascending=[False, False])
        chosen = frame.index[frame["eligible"]][0]
        frame["selected"] = frame.index == chosen
        return frame

    def __call__(self, cv_results: Mapping[str, Any]) -> int:
        """Index of the selected grid point (the ``refit`` callable protocol)."""
        frame = self.table(cv_results)
        return int(frame.index[frame["selected"]][0])


def most_private_setting(
    search: Any,
    param: str | Callable[[Mapping[str, Any]], float],
    *,
    more_private: str = "lower",
    tolerance: float = 0.0,
    rule: str = "absolute",
    score_key: str = "mean_test_score",
) -> dict[str, Any]:
    """The most private setting whose CV score is within ``tolerance`` of the best.

    Parameters
    ----------
    search : fitted GridSearchCV or RandomizedSearchCV, or its ``cv_results_``
        The search over (among others) the privacy parameter.
    param, more_private, tolerance, rule, score_key
        See :class:`MostPrivateWithin`.

    Returns
    -------
    result : dict
        ``params`` (the chosen setting), ``score`` (its mean CV score),
        ``best_params`` and ``best_score`` (the unconstrained best), and
        ``table`` (every grid point, see :meth:`MostPrivateWithin.table`).

    Examples
    --------
    >>> import numpy as np
    >>> from skprivate.model_selection import most_private_setting
    >>> results = {
    ...     "params": [{"scale": 1}, {"scale": 5}, {"scale": 20}],
    ...     "mean_test_score": np.array([0.80, 0.78, 0.50]),
    ... }
    >>> most_private_setting(results, "scale", more_private="higher", tolerance=0.05)[
    ...     "params"
    ... ]
    {'scale': 5}
    """
    cv_results = getattr(search, "cv_results_", search)
    selector = MostPrivateWithin(
        param,
        more_private=more_private,
        tolerance=tolerance,
        rule=rule,
        score_key=score_key,
    )
    frame = selector.table(cv_results)
    chosen = frame[frame["selected"]].iloc[0]
    best = frame.loc[frame["score"].idxmax()]
    return {
        "params": chosen["params"],
        "score": float(chosen["score"]),
        "best_params": best["params"],
        "best_score": float(best["score"]),
        "table": frame.reset_index(drop=True),
    }
