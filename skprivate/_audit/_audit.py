"""``audit``: the exact worst case of a fitted privatizer, next to its claim."""

from __future__ import annotations

import time
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
import pandas as pd
from sklearn.exceptions import NotFittedError
from sklearn.utils.validation import check_is_fitted

from ._result import NoExactLaw, WorstCase

__all__ = ["InfiniteLoss", "audit", "audited_columns", "read_from_data"]

NOTE = (
    "Exact figures from the output law the privatizer's sampler implements "
    "(probabilities summed over its output grid or set, never sampled). "
    "audited_epsilon is the largest log ratio of two inputs' probabilities of "
    "one output, over all input pairs and outputs; audited_delta is the "
    "largest hockey-stick divergence at the claimed epsilon over all input "
    "pairs (given where the claim has a delta). A pure epsilon claim is "
    "respected when audited_epsilon <= claimed_epsilon, an (epsilon, delta) "
    "claim when audited_delta <= claimed_delta; notions without an epsilon "
    "(coverage, subset privacy) have no claim to compare with. A privatizer "
    "whose epsilon bounds another loss (between windows of outputs at a "
    "stated resolution) is audited on that loss; its method says which."
)


@dataclass(frozen=True)
class InfiniteLoss:
    """A law whose worst-case loss is infinite, with the pair that shows it.

    Parameters
    ----------
    inputs : tuple
        Two inputs.
    output : object
        An output (or set of outputs) possible for the first input and
        impossible for the second.
    reason : str
        Why the second input cannot produce it.
    other_notion : str or None
        Set when the privatizer's claimed epsilon is of another notion
        (for example a loss between windows of outputs, not single outputs),
        which this pointwise loss does not test; the audit then leaves
        ``respected`` empty and says why.
    """

    inputs: tuple[Any, Any]
    output: Any
    reason: str
    other_notion: str | None = None

    def worst_epsilon(self) -> WorstCase:
        return WorstCase(np.inf, self.inputs, self.output, self.reason)

    def worst_delta(self, epsilon: float) -> WorstCase | None:
        return None


def _per_column(value: Any, j: int) -> float | None:
    if value is None:
        return None
    if np.ndim(value) == 0:
        return float(value)
    value = list(value)
    return float(value[j]) if j < len(value) else None


def _column_names(privatizer: Any) -> list[str]:
    names = getattr(privatizer, "feature_names_in_", None)
    if names is not None:
        return [str(n) for n in names]
    return [f"x{j}" for j in range(int(privatizer.n_features_in_))]


def audited_columns(
    privatizer: Any, summary: dict[str, Any] | None = None
) -> list[dict[str, Any]]:
    """Exact audited figures of each column of a fitted privatizer.

    Each column's output law comes from the privatizer's ``_exact_law(j)``
    hook; the claims come from its ``privacy_summary()``
    (``epsilon_per_feature`` and, for an ``(epsilon, delta)`` claim,
    ``delta_per_feature``).

    Parameters
    ----------
    privatizer : fitted privatizer
        Any fitted privatizer of the package.
    summary : dict or None
        The privatizer's ``privacy_summary()`` when the caller already has
        it (computed here otherwise).

    Returns
    -------
    rows : list of dict
        One dict per column with ``column``, ``claimed_epsilon``,
        ``audited_epsilon``, ``claimed_delta``, ``audited_delta``,
        ``worst_inputs``, ``worst_output``, ``method``, ``respected``
        (``None`` when there is no claim or no exact law), ``exact``
        (whether an exact law was audited) and ``seconds``.

    Examples
    --------
    >>> import numpy as np
    >>> from skprivate import LaplaceLDP
    >>> from skprivate._audit import audited_columns
    >>> ldp = LaplaceLDP(epsilon=1.0, bounds=(0, 1)).fit(np.zeros((1, 1)))
    >>> row = audited_columns(ldp)[0]
    >>> row["audited_epsilon"] <= row["claimed_epsilon"]
    True
    """
    if summary is None:
        summary = privatizer.privacy_summary()
    eps_claim = summary.get("epsilon_per_feature")
    delta_claim = summary.get("delta_per_feature")
    rows = []
    for j, name in enumerate(_column_names(privatizer)):
        start = time.perf_counter()
        claimed_eps = _per_column(eps_claim, j)
        claimed_delta = _per_column(delta_claim, j)
        row: dict[str, Any] = {
            "column": name,
            "claimed_epsilon": claimed_eps,
            "audited_epsilon": None,
            "claimed_delta": claimed_delta,
            "audited_delta": None,
            "worst_inputs": None,
            "worst_output": None,
            "method": None,
            "respected": None,
            "exact": False,
        }
        try:
            law = privatizer._exact_law(j)
        except NotImplementedError as exc:
            law = NoExactLaw(str(exc) or "no exact output law is implemented")
        if isinstance(law, NoExactLaw):
            row["method"] = f"not auditable: {law.reason}"
        else:
            worst = law.worst_epsilon()
            row.update(
                audited_epsilon=worst.value,
                worst_inputs=worst.inputs,
                worst_output=worst.output,
                method=worst.method,
                exact=True,
            )
            if claimed_delta is not None and claimed_eps is not None:
                at_claim = law.worst_delta(claimed_eps)
                if at_claim is not None:
                    row.update(
                        audited_delta=at_claim.value,
                        worst_inputs=at_claim.inputs,
                        worst_output=at_claim.output,
                        method=f"{worst.method}; delta: {at_claim.method}",
                        respected=bool(at_claim.value <= claimed_delta),
                    )
            elif claimed_eps is not None:
                row["respected"] = bool(worst.value <= claimed_eps)
            other = getattr(law, "other_notion", None)
            if other:
                row["respected"] = None
                row["method"] = f"{row['method']}; the claim is {other}"
        read = read_from_data(summary)
        if read and row["respected"] is not None:
            # the law is audited given its bounds or categories; those, read
            # from the data, leave exactly beside the release
            row["respected"] = False
            row["method"] = (
                f"{row['method']}; not respected: the {read} read from the "
                "data are published exactly (raw values of the records), "
                "which no epsilon covers"
            )
        row["seconds"] = time.perf_counter() - start
        rows.append(row)
    return rows


def read_from_data(summary: dict) -> str:
    """What of a privatizer's law its summary says was read from the data.

    ``"bounds"``, ``"categories"``, both joined by "and", or ``""``: the
    summary's ``bounds_from_data`` and ``categories_from_data`` flags (a
    flag per column counts when any column's is set).
    """
    read = []
    for key, what in (
        ("bounds_from_data", "bounds"),
        ("categories_from_data", "categories"),
    ):
        flag = summary.get(key)
        if flag is not None and bool(np.any(np.asarray(flag, dtype=bool))):
            read.append(what)
    return " and ".join(read)


def audit(privatizer: Any) -> pd.DataFrame:
    """Check a fitted privatizer's guarantee from its exact output law.

    The output law of each column is the one the sampler implements (its
    grid, the rounding of inputs, the clamps, the realised probabilities
    of its coins), and the worst case is computed exactly from it: summed
    over outputs, never estimated by sampling.  Laws on fine grids are
    audited through their structure (see Notes), so the default grids of
    ``2**20`` steps take well under a second.

    Parameters
    ----------
    privatizer : fitted privatizer
        For example :class:`~skprivate.LaplaceLDP`,
        :class:`~skprivate.ldp.SquareWaveLDP`,
        :class:`~skprivate.SubsetUniform`.

    Returns
    -------
    report : pandas.DataFrame
        One row per column: ``column``, ``mechanism``, ``claimed_epsilon``,
        ``audited_epsilon`` (the exact largest log ratio of two inputs'
        probabilities of one output), ``claimed_delta``, ``audited_delta``
        (the exact hockey-stick divergence at the claimed epsilon,
        maximized over input pairs; only for ``(epsilon, delta)`` claims),
        ``worst_inputs`` and ``worst_output`` (what attains the figure),
        ``method`` (how it was computed, or why the law cannot be audited)
        and ``respected``.  ``report.attrs["note"]`` says how to read it.
        For a pure epsilon claim, ``report.attrs`` also holds
        ``record_audited_epsilon`` (the columns' audited losses added up
        exactly: the loss of a whole record), ``record_claimed_epsilon``
        and ``record_respected``; when the sum exceeds the claim every row
        is marked not respected, with the reason in ``method``.

    Raises
    ------
    TypeError
        If ``privatizer`` is not a privatizer (a composite's audited figures
        are the ``audited_epsilon`` and ``audited_delta`` columns of
        :func:`~skprivate.privacy_report`).

    Notes
    -----
    * Additive noise on a grid (Laplace, generalized Gaussian, flipped
      Huber): the law is a shift of one log-concave integer noise, clamped;
      the likelihood ratio is monotone, so the worst pair is the two
      extreme inputs, the worst output a clamp, and the worst ``delta``
      set a half-line found by bisection.
    * Square Wave: two probability levels, the ratio is exact.
    * Finite laws (subset designs): every pair and output is enumerated.
    * Continuous samplers (``secure=False``) have no exact law and are
      reported as not auditable.

    Examples
    --------
    >>> import numpy as np
    >>> import skprivate
    >>> ldp = skprivate.LaplaceLDP(epsilon=1.0, bounds=(0, 1)).fit(np.zeros((5, 1)))
    >>> report = skprivate.audit(ldp)
    >>> bool(report.loc[0, "respected"])
    True
    >>> report.loc[0, "worst_inputs"]
    (0.0, 1.0)
    """
    if not callable(getattr(privatizer, "_exact_law", None)):
        raise TypeError(
            "audit takes a fitted privatizer of skprivate; got "
            f"{type(privatizer).__name__}. For a pipeline, column transformer, "
            "learner, ensemble or search, privacy_report(estimator) gives the "
            "audited figures of every privatizer it holds (columns "
            "audited_epsilon and audited_delta) and their audited total."
        )
    try:
        check_is_fitted(privatizer)
    except NotFittedError as exc:
        raise NotFittedError(
            f"privatizer {type(privatizer).__name__} is not fitted: audit reads "
            "the output law of a fitted privatizer (its bounds, grid and noise "
            "scale are set by fit); call fit first."
        ) from exc
    rows = audited_columns(privatizer)
    mechanism = type(privatizer).__name__
    frame = pd.DataFrame(
        [
            {
                "column": r["column"],
                "mechanism": mechanism,
                **{k: r[k] for k in r if k not in ("column", "exact", "seconds")},
            }
            for r in rows
        ]
    )
    frame.attrs["note"] = NOTE
    _check_record(privatizer, frame)
    return frame


def _check_record(privatizer: Any, frame: pd.DataFrame) -> None:
    """Compare the columns' audited losses, added up, with the record's claim.

    The columns of a record are released independently, so its loss is
    the sum of theirs.  Each column may meet its own share while the shares
    add to more than the record's budget (a budget split in low precision);
    then every row is marked not respected and says why.  Only for a pure
    epsilon claim, every column audited to a finite figure.
    """
    try:
        summary = privatizer.privacy_summary()
    except Exception:  # a summary that needs more than the fitted state
        return
    claim = summary.get("epsilon")
    if (
        claim is None
        or summary.get("delta") not in (None, 0, 0.0)
        or frame.empty
        or "audited_epsilon" not in frame
        or frame["respected"].isna().any()
    ):
        return
    audited = [float(v) for v in frame["audited_epsilon"]]
    if not all(np.isfinite(audited)) or not np.isfinite(float(claim)):
        return
    # exact sum of the doubles: no rounding decides the comparison
    spent = sum((Fraction(v) for v in audited), Fraction(0))
    respected = spent <= Fraction(float(claim))
    frame.attrs["record_audited_epsilon"] = float(spent)
    frame.attrs["record_claimed_epsilon"] = float(claim)
    frame.attrs["record_respected"] = bool(respected)
    if not respected:
        frame["respected"] = False
        frame["method"] = frame["method"].astype(str) + (
            f"; the columns' audited losses add to {float(spent)!r}, above the "
            f"record's claimed epsilon {float(claim)!r}"
        )
