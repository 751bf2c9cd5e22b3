"""The ``total`` row: the guarantee of one record over all its columns."""

from __future__ import annotations

import numpy as np

from ._certify import NOT_CERTIFIED
from ._inspect import _join


def _names(columns: list[str]) -> str:
    return ", ".join(dict.fromkeys(columns))


def _total_row(rows: list[dict], raw: dict[str, dict]) -> dict:
    """Compose the privatizer ``rows`` and the ``raw`` channels of a walk.

    A column without any guarantee (a raw channel, a step that may mix
    records before its privatizer, values released exactly, a search's
    scores of raw held-out records) makes the total
    ``inf``, whatever the other columns have.  Otherwise a column without an
    epsilon (coverage notions) makes it NaN, and the epsilons and deltas of
    all rows add up (sequential composition).
    """
    by_kind = {
        kind: [name for name, row in raw.items() if kind in row["_kinds"]]
        for kind in ("raw", "uncertified", "scores")
    }
    exact = [r["column"] for r in rows if r.get("exact_disclosure") is True]
    eps = np.array([r.get("epsilon", np.nan) for r in rows], dtype=float)
    nan_reasons = "; ".join(
        dict.fromkeys(r["_nan_reason"] for r in rows if "_nan_reason" in r)
    )
    if any(by_kind.values()) or exact:
        heads, lists = [], []
        if by_kind["raw"]:
            heads.append("some columns leave raw")
            lists.append(f"raw columns (epsilon = inf): {_names(by_kind['raw'])}")
        if by_kind["uncertified"]:
            heads.append("some columns are not certified")
            lists.append(f"{NOT_CERTIFIED}: {_names(by_kind['uncertified'])}")
        if by_kind["scores"]:
            heads.append("scores of raw values are kept")
            lists.append(
                f"computed from raw values (epsilon = inf): {_names(by_kind['scores'])}"
            )
        if exact:
            heads.append("some columns leave exactly")
            lists.append(f"values released exactly: {_names(exact)}")
        note = _join("no guarantee: " + " and ".join(heads), *lists)
        if np.any(np.isnan(eps)):
            note = _join(note, "other columns have no epsilon: " + nan_reasons)
        return {
            "epsilon": np.inf,
            "delta": np.nan,
            "note": note,
            "exact_disclosure": bool(by_kind["raw"] or exact),
        }
    if np.any(np.isnan(eps)):
        return {
            "epsilon": np.nan,
            "delta": np.nan,
            "note": "no composed epsilon: "
            + (nan_reasons or "some columns have no epsilon"),
        }
    deltas = np.asarray([r.get("delta", 0.0) for r in rows], dtype=float)
    note = "sequential composition over the columns of one record"
    notions = list(dict.fromkeys(r.get("notion") or "" for r in rows))
    if len(notions) > 1:
        # e.g. pointwise LDP next to RVNS's loss between windows of outputs:
        # the pointwise one implies the weaker, not the other way round
        note = _join(
            note,
            "the columns' epsilons are of different notions ("
            + "; ".join(n or "unnamed" for n in notions)
            + "): the sum holds for the weakest of them only",
        )
    return {
        "epsilon": float(eps.sum()),
        "delta": float(np.nansum(deltas)),
        "note": note,
    }


def _audited_total(rows: list[dict], total: dict) -> dict:
    """``audited_epsilon`` and ``audited_delta`` of the total row.

    The audited figures of the columns compose as the claimed ones do
    (sequential composition, repeats included).  A total without any
    guarantee stays ``inf``; a column whose law could not be audited makes
    the audited total NaN.
    """
    if total.get("epsilon") == np.inf:
        return {"audited_epsilon": np.inf, "audited_delta": np.nan}
    eps = np.array([r.get("audited_epsilon", np.nan) for r in rows], dtype=float)
    deltas = np.array([r.get("audited_delta", np.nan) for r in rows], dtype=float)
    if eps.size == 0 or np.any(np.isnan(eps)):
        return {"audited_epsilon": np.nan, "audited_delta": np.nan}
    delta = float(deltas.sum()) if not np.any(np.isnan(deltas)) else np.nan
    return {"audited_epsilon": float(eps.sum()), "audited_delta": delta}
