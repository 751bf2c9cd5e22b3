"""The public description of a fitted privatizer, and the check of an answer.

:func:`mechanism_spec` turns a fitted privatizer into the JSON-ready
description that the respondent's page samples from (grids, bounds and
probabilities as exact rationals) and that the server checks answers
against.  It reads the privatizer's fitted state and never changes it, so
the page follows the law of the Python privatizer it was built from.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction
from typing import Any

import numpy as np
from sklearn.utils.validation import check_is_fitted

from ..interval._base_mechanism import _BaseIntervalMechanism
from ..ldp import LaplaceLDP, SquareWaveLDP
from ..negative_survey import RVNSPerturber
from ..subset._design import masks_to_indicators, popcount
from ..subset._mechanism import _BaseSubsetPrivatizer
from ..utils import check_bounds
from ._spec_frequency import (
    check_declared_categories,
    check_frequency_answer,
    frequency_spec,
    is_frequency,
)

__all__ = [
    "AnswerError",
    "admissible_subsets",
    "check_answer",
    "check_declared",
    "mechanism_spec",
    "subset_disclosure",
]

KINDS = ("interval", "laplace", "square_wave", "rvns", "subset", "frequency")
# Largest expected number of rounds of the Square Wave's near/far coin on the
# page (see mechanism_spec); beyond it the page would take seconds per answer.
MAX_SQUARE_WAVE_ROUNDS = 2.0**20


class AnswerError(ValueError):
    """An answer outside the output space of its question's mechanism."""


def _rational(value: float) -> str:
    """Exact ``num/den`` of a finite float (a dyadic rational)."""
    frac = Fraction(float(value))
    return f"{frac.numerator}/{frac.denominator}"


_NOT_FITTED = (
    "%(name)s is not fitted: fit each question's privatizer on one column "
    "first (e.g. .fit([[0.0]]) when every parameter, bounds included, is "
    "declared)."
)


def _check_fitted(privatizer: Any) -> None:
    """Refuse an unfitted privatizer, or one whose settings changed since fit.

    A setting changed with ``set_params`` after ``fit`` leaves a fitted
    state (scale, grid, design) that belongs to the old settings: a spec
    built from both would mix them, so it is refused as ``transform``
    refuses.  Objects that are not privatizers are left to the type check.
    """
    settings = getattr(privatizer, "_check_fitted_settings", None)
    if not callable(settings):
        return
    settings()
    check_is_fitted(privatizer, msg=_NOT_FITTED)


def _single_column(privatizer: Any) -> None:
    n = getattr(privatizer, "n_features_in_", None)
    if n is None:
        raise ValueError(_NOT_FITTED % {"name": type(privatizer).__name__})
    if n != 1:
        raise ValueError(
            f"{type(privatizer).__name__} was fitted on {n} columns; a question "
            "asks for one value: fit one privatizer per question."
        )


def check_declared(privatizer: Any) -> None:
    """Refuse a privatizer whose bounds or categories come from the data.

    A question writes its mechanism's bounds or categories into every
    respondent's page: read from raw data they would publish a raw minimum,
    maximum or a category held by one person.  Checked on the parameters
    (fitted or not) and, once fitted, on the fitted state, which must be the
    declared one (a ``set_params`` after ``fit`` does not undo a fit on data).
    """
    name = type(privatizer).__name__
    if is_frequency(privatizer):
        check_declared_categories(privatizer)
    if isinstance(privatizer, LaplaceLDP | SquareWaveLDP | RVNSPerturber):
        declared = getattr(privatizer, "bounds", None)
        from_data = declared is None or bool(
            getattr(privatizer, "bounds_from_data_", False)
        )
        fitted = getattr(privatizer, "bounds_", None)
        if not from_data and fitted is not None:
            names = getattr(privatizer, "feature_names_in_", None)
            try:
                want = check_bounds(declared, len(fitted[0]), feature_names=names)
                from_data = not (
                    np.array_equal(want[0], fitted[0])
                    and np.array_equal(want[1], fitted[1])
                )
            except (TypeError, ValueError):
                from_data = True
        if from_data:
            raise ValueError(
                f"declare `bounds=` on {name}: a survey question publishes its "
                "bounds in every respondent's page, and bounds read from the data "
                "(bounds=None, or a fit on data before bounds were set) are a raw "
                "minimum and maximum. Fit it with bounds=(low, high) fixed before "
                "seeing the data."
            )
    if isinstance(privatizer, _BaseSubsetPrivatizer):
        declared = getattr(privatizer, "categories", "auto")
        from_data = isinstance(declared, str)
        fitted = getattr(privatizer, "categories_", None)
        if not from_data and fitted is not None:
            from_data = len(declared) != len(fitted) or any(
                list(np.asarray(d).tolist()) != list(np.asarray(f).tolist())
                for d, f in zip(declared, fitted, strict=False)
            )
        if from_data:
            raise ValueError(
                f"declare `categories=` on {name}: a survey question shows every "
                "category in every respondent's page, and categories read from "
                "the data (categories='auto', or a fit on data before categories "
                "were set) include values held by a single respondent. Fit it "
                "with categories=[[...]] listed before seeing the data."
            )


def _secure(privatizer: Any) -> None:
    if not getattr(privatizer, "secure", True):
        raise ValueError(
            f"{type(privatizer).__name__}(secure=False) samples in floating point, "
            "which leaks the value through the low bits of the output; the page "
            "implements the exact (secure=True) samplers only."
        )


def _laplace_spec(priv: LaplaceLDP) -> dict[str, Any]:
    _secure(priv)
    k_low = int(priv._k_low[0])
    k_high = int(priv._k_high[0])
    width = k_high - k_low
    eps = float(priv.epsilon) / priv.n_features_in_
    low, high = priv.bounds_
    return {
        "kind": "laplace",
        "low": float(low[0]),
        "high": float(high[0]),
        "clip": bool(priv.clip),
        "step": float(priv.grid_step_[0]),
        "k_low": k_low,
        "k_high": k_high,
        "margin": int(priv._margin[0]),
        # noise in grid steps: a Laplace draw of scale width / eps rounded to
        # the nearest integer; gamma = 1 / scale = eps / width exactly.
        "noise": "rounded_laplace",
        "gamma": str(Fraction(eps) / width).replace(" ", ""),
        "epsilon": eps,
        "scale": float(priv.scale_[0]),
    }


def _square_wave_spec(priv: SquareWaveLDP) -> dict[str, Any]:
    _secure(priv)
    eps = float(priv.epsilon) / priv.n_features_in_
    n = int(priv._n_cells)
    half = int(priv._half_cells)
    c = n / (2 * half + 1)
    rounds = (1.0 + c) / (1.0 + c * math.exp(-eps))
    if rounds > MAX_SQUARE_WAVE_ROUNDS:
        raise ValueError(
            f"SquareWaveLDP with epsilon per value {eps:g} needs about "
            f"{rounds:.3g} rounds of its exact near/far coin on the respondent's "
            "device; the page supports at most 2**20 (epsilon up to about 17)."
        )
    low, high = priv.bounds_
    return {
        "kind": "square_wave",
        "low": float(low[0]),
        "high": float(high[0]),
        "n_cells": n,
        "half_cells": half,
        "step": float(priv.grid_step_[0]),
        "epsilon": _rational(eps),
        "epsilon_value": eps,
        "half_width": float(priv.half_width_),
    }


def _rvns_spec(priv: RVNSPerturber) -> dict[str, Any]:
    _secure(priv)
    h, ja, jb, D = (int(v[0]) if i else float(v[0]) for i, v in enumerate(priv._grid))
    low, high = priv.bounds_
    # "boundary_safe": band start uniform on jx - D .. jx, reports on
    # ja - D .. jb + D; "paper": band start uniform on
    # max(ja, jx - D) .. min(jx, jb - D), reports on ja .. jb.
    placement = getattr(priv, "placement", "paper")
    if placement not in ("boundary_safe", "paper"):
        raise ValueError(f"RVNSPerturber placement {placement!r} has no page sampler.")
    lo, hi = (ja - D, jb + D) if placement == "boundary_safe" else (ja, jb)
    # the page draws the band and the reports as integers below 2**53 (its
    # numbers are doubles); a finer grid has no page sampler
    if max(abs(lo), abs(hi), hi - lo + 1) > 2**53:
        raise ValueError(
            f"RVNSPerturber(d={float(priv.d_[0])!r}) on the bounds "
            f"[{float(low[0])!r}, {float(high[0])!r}] has a report grid of "
            f"{hi - lo + 1} points, more than the 2**53 the page can draw "
            "from: give a larger d or narrower bounds."
        )
    return {
        "kind": "rvns",
        "low": float(low[0]),
        "high": float(high[0]),
        "d": float(priv.d_[0]),
        "k": int(priv.k),
        "step": h,
        "ja": ja,
        "jb": jb,
        "band": D,
        "placement": placement,
        "report_low": lo,
        "report_high": hi,
    }


def _exact_weights(values: np.ndarray) -> tuple[list[str], str]:
    """Integer weights proportional to the floats ``values``, exactly."""
    fracs = [Fraction(float(v)) for v in values]
    den = math.lcm(*(f.denominator for f in fracs))
    nums = [f.numerator * (den // f.denominator) for f in fracs]
    return [str(v) for v in nums], str(sum(nums))


def _subset_spec(priv: _BaseSubsetPrivatizer) -> dict[str, Any]:
    design = priv.designs_[0]
    p = design.n_categories
    labels = [str(c) for c in np.asarray(priv.categories_[0]).tolist()]
    spec: dict[str, Any] = {
        "kind": "subset",
        "p": p,
        "n_outputs": design.n_outputs,
        "categories": labels,
        "dummies": design.has_dummies,
        "alpha": _rational(design.min_coverage) if design.has_dummies else None,
        "alpha_value": design.min_coverage,
    }
    if not design.enumerable:  # uniform design on more than 20 categories
        spec.update(design="uniform", sizes=[2, p - 2])
        return spec
    masks = design._masks
    if design.is_independent:
        weights = design._nu
        drawn = weights > 0
        sizes = popcount(masks[drawn])
        smallest, largest = int(sizes.min()), int(sizes.max())
        n_band = sum(math.comb(p, s) for s in range(smallest, largest + 1))
        uniform = (
            design.kind == "uniform"
            and int(drawn.sum()) == n_band
            and np.all(weights[drawn] == weights[drawn][0])
        )
        if uniform:
            spec.update(design="uniform", sizes=[smallest, largest])
            return spec
        kind = "independent"
        masks, weights = masks[drawn], weights[drawn]
    else:
        kind = "conditional"
        weights = design._mu
    nums, total = _exact_weights(weights)
    spec.update(
        design=kind,
        subsets=masks_to_indicators(masks, p).astype(int).tolist(),
        weights=nums,
        total=total,
    )
    return spec


def subset_disclosure(spec: dict[str, Any]) -> tuple[Fraction, Fraction]:
    """What a subset question's report says about the category, exactly.

    Returns ``(contains, alone)``: the smallest probability, over the true
    categories ``x``, that the report holds ``x``, and the largest
    probability that the report is ``{x}`` alone (the category sent as it
    is).  A true respondent draws ``Ã`` from the design and reports ``Ã`` or
    its complement, whichever holds ``x`` (a conditional design draws among
    the subsets holding ``x``); with dummy categories the respondent is, with
    probability ``2 alpha``, a dummy who reports ``Ã`` itself.  Hence
    ``P(x in A) = 1 - 2 alpha + 2 alpha nu(x in Ã)`` and ``P(A = {x}) =
    (1 - 2 alpha) (nu({x}) + nu([p] minus x)) + 2 alpha nu({x})``.

    Parameters
    ----------
    spec : dict
        The spec of a subset question (:func:`mechanism_spec`).

    Returns
    -------
    contains, alone : Fraction

    Examples
    --------
    >>> from skprivate import SubsetUniform
    >>> from skprivate.survey._spec import mechanism_spec, subset_disclosure
    >>> sub = SubsetUniform(categories=[["a", "b", "c"]]).fit([["a"]])
    >>> [round(float(f), 4) for f in subset_disclosure(mechanism_spec(sub))]
    [0.95, 0.3167]
    """
    p = spec["p"]
    alpha = Fraction(spec["alpha"]) if spec["dummies"] else Fraction(0)
    full = (1 << p) - 1
    if spec["design"] == "uniform":
        low, high = spec["sizes"]
        n = sum(math.comb(p, k) for k in range(low, high + 1))
        inside = Fraction(
            sum(math.comb(p - 1, k - 1) for k in range(max(low, 1), high + 1)), n
        )
        single = Fraction(int(low <= 1 <= high), n)
        co_single = Fraction(int(low <= p - 1 <= high), n)
        contains = 1 - 2 * alpha + 2 * alpha * inside
        alone = (1 - 2 * alpha) * (single + co_single) + 2 * alpha * single
        return contains, alone
    total = Fraction(int(spec["total"]))
    weights = {
        sum(1 << i for i, b in enumerate(bits) if b): Fraction(int(w)) / total
        for bits, w in zip(spec["subsets"], spec["weights"], strict=True)
    }
    contains, alone = Fraction(1), Fraction(0)
    for x in range(p):
        one = 1 << x
        if spec["design"] == "conditional":
            # every report holds x, dummy or not; weights of the subsets
            # holding x sum to one
            held, p_alone = Fraction(1), weights.get(one, Fraction(0))
        else:
            inside = sum((w for m, w in weights.items() if m & one), Fraction(0))
            single = weights.get(one, Fraction(0))
            co_single = weights.get(full ^ one, Fraction(0))
            held = 1 - 2 * alpha + 2 * alpha * inside
            p_alone = (1 - 2 * alpha) * (single + co_single) + 2 * alpha * single
        contains, alone = min(contains, held), max(alone, p_alone)
    return contains, alone


def _interval_spec(priv: _BaseIntervalMechanism) -> dict[str, Any]:
    priv._check_params()
    priv._validate_design()
    exact = priv._fixed_set().shape[0] > 0 or any(
        cells for _, cells in priv._components(np.random.default_rng(0), 1, 0)
    )
    if exact:
        raise ValueError(
            f"{type(priv).__name__} reports some values exactly (acceptable_range "
            "or exact_cells); a survey built from it would send raw values. Use "
            "a mechanism without exact disclosure."
        )

    def ends(pair):  # None for an unbounded side (JSON has no infinity)
        return [float(v) if math.isfinite(v) else None for v in pair]

    return {
        "kind": "interval",
        "mechanism": type(priv).__name__,
        "n_anchors": int(priv._n_anchors()),
        # the declared range of the values, and where the anchors fall in it
        "support": ends(priv._value_support(0)),
        "anchor_support": ends(priv._anchor_support(0)),
    }


def mechanism_spec(privatizer: Any) -> dict[str, Any]:
    """The public description of a fitted one-column privatizer.

    The description is what a respondent's page needs to privatize an answer
    on the device and what the collection server needs to check an answer:
    the output grid, the bounds and the probabilities of the mechanism, the
    probabilities written as exact rationals ``"num/den"`` (a float is a
    dyadic rational, so nothing is rounded).  It reads the fitted state of
    ``privatizer`` and never modifies it.

    Parameters
    ----------
    privatizer : privatizer
        A fitted :class:`~skprivate.LaplaceLDP`,
        :class:`~skprivate.ldp.SquareWaveLDP`,
        :class:`~skprivate.RVNSPerturber` (all with ``secure=True``),
        :class:`~skprivate.SubsetUniform` or
        :class:`~skprivate.subset.SubsetMechanism`, a k-RR or unary-encoding
        frequency privatizer
        (:class:`~skprivate.frequency.GeneralizedRandomizedResponse`,
        :class:`~skprivate.frequency.OptimizedUnaryEncoding`,
        :class:`~skprivate.frequency.LongitudinalOracle`, ...), fitted on one
        column; or an interval mechanism (:class:`~skprivate.IntervalCaseI`,
        :class:`~skprivate.interval.IntervalCaseII`,
        :class:`~skprivate.interval.IntervalMechanism`) without exact
        disclosure.

    Returns
    -------
    spec : dict
        JSON-ready; ``spec["kind"]`` is one of ``"interval"``,
        ``"laplace"``, ``"square_wave"``, ``"rvns"``, ``"subset"``,
        ``"frequency"`` (see :mod:`skprivate.survey._spec_frequency`).

    Raises
    ------
    ValueError
        For bounds or categories read from the data (declare ``bounds=`` or
        ``categories=``), an unfitted or multi-column privatizer, a
        privatizer whose settings changed (``set_params``) since it was
        fitted, ``secure=False``, an
        interval mechanism with exact disclosure, or a Square Wave budget
        too large for the page's exact sampler.
    TypeError
        For any other object.

    Examples
    --------
    >>> from skprivate import LaplaceLDP
    >>> from skprivate.survey import mechanism_spec
    >>> ldp = LaplaceLDP(epsilon=1.0, bounds=(0, 100)).fit([[0.0]])
    >>> spec = mechanism_spec(ldp)
    >>> spec["kind"], spec["step"], spec["gamma"]
    ('laplace', 6.103515625e-05, '1/1638400')
    """
    # bounds or categories read from the data first: the more useful message
    # for a privatizer fitted on data and given declared settings afterwards
    check_declared(privatizer)
    _check_fitted(privatizer)
    if isinstance(privatizer, _BaseIntervalMechanism):
        _single_column(privatizer)
        return _interval_spec(privatizer)
    builders = [
        (LaplaceLDP, _laplace_spec),
        (SquareWaveLDP, _square_wave_spec),
        (RVNSPerturber, _rvns_spec),
        (_BaseSubsetPrivatizer, _subset_spec),
    ]
    if is_frequency(privatizer):
        builders = [(type(privatizer), frequency_spec)]
    for cls, build in builders:
        if isinstance(privatizer, cls):
            _single_column(privatizer)
            return build(privatizer)
    raise TypeError(
        "A survey question needs an interval mechanism, LaplaceLDP, SquareWaveLDP, "
        "RVNSPerturber, SubsetUniform, SubsetMechanism or a k-RR or unary-encoding "
        f"frequency privatizer as its privatizer; got "
        f"{type(privatizer).__name__}."
    )


# -- checking answers -----------------------------------------------------------
def _is_integer(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def json_type(value: Any) -> str:
    """The JSON name of a parsed value's type (for messages; never the value)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def _number(name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise AnswerError(
            f"answer to {name!r} must be a number; got {json_type(value)}."
        )
    try:
        # a JSON integer beyond the largest float overflows here
        value = float(value)
    except OverflowError:
        value = math.inf
    if not math.isfinite(value):
        raise AnswerError(
            f"answer to {name!r} must be a finite number within the range of a "
            "double (about 1.8e308 in magnitude)."
        )
    return value


def _laplace_answer(name: str, spec: dict, value: Any) -> float:
    v = _number(name, value)
    m = v / spec["step"]
    low, high = spec["k_low"] - spec["margin"], spec["k_high"] + spec["margin"]
    if not (m.is_integer() and m * spec["step"] == v):
        raise AnswerError(
            f"answer to {name!r} is not on the public output grid of its mechanism "
            f"(multiples of {spec['step']!r})."
        )
    if not low <= m <= high:
        raise AnswerError(
            f"answer to {name!r} lies outside the output range of its mechanism "
            f"[{low * spec['step']!r}, {high * spec['step']!r}]."
        )
    return v


def _square_wave_answer(name: str, spec: dict, value: Any) -> float:
    v = _number(name, value)
    low, step = spec["low"], spec["step"]
    n, half = spec["n_cells"], spec["half_cells"]
    # An output is the double low + j * step.  That double is non-decreasing
    # in j (each rounding is), so the first j whose output reaches v is found
    # by bisection; (v - low) / step can be off by many steps when low is
    # large against the width (one ulp of 1e12 is 128 steps of a width of 1).
    first, last = -half, n + half
    while first < last:
        mid = (first + last) // 2
        if low + float(mid) * step < v:
            first = mid + 1
        else:
            last = mid
    if low + float(first) * step == v:
        return v
    raise AnswerError(
        f"answer to {name!r} is not an output of its Square Wave mechanism: outputs "
        f"are {low!r} + j * {step!r} for integers j in [{-half}, {n + half}]."
    )


def _rvns_answer(name: str, spec: dict, value: Any) -> list[float]:
    k = spec["k"]
    if not isinstance(value, list) or len(value) != k:
        raise AnswerError(f"answer to {name!r} must be a list of {k} numbers.")
    reports = [_number(name, v) for v in value]
    h, D = spec["step"], spec["band"]
    lo, hi = spec["report_low"], spec["report_high"]
    idx = []
    for v in reports:
        i = v / h
        if not (i.is_integer() and i * h == v and lo <= i <= hi):
            raise AnswerError(
                f"answer to {name!r} holds a number that is not a report of its "
                f"mechanism: reports are multiples of {h!r} in "
                f"[{lo * h!r}, {hi * h!r}]."
            )
        idx.append(int(i))
    # The reports must all avoid one band of D + 1 consecutive grid points,
    # and every such band inside the report range can occur.
    edges = [lo - 1, *sorted(set(idx)), hi + 1]
    if not any(b - a - 1 >= D + 1 for a, b in itertools.pairwise(edges)):
        raise AnswerError(
            f"answer to {name!r} cannot come from its mechanism: the reports leave "
            f"no band of width {spec['d']!r} free, and every report avoids one."
        )
    return reports


def _subset_answer(
    name: str, spec: dict, value: Any, subsets: frozenset[int] | None
) -> list[int]:
    size = spec["n_outputs"]
    if (
        not isinstance(value, list)
        or len(value) != size
        or not all(_is_integer(b) and b in (0, 1) for b in value)
    ):
        raise AnswerError(
            f"answer to {name!r} must be a list of {size} integers 0 or 1 (one per "
            "category"
            + (", then the two dummy categories" if spec["dummies"] else "")
            + ")."
        )
    p = spec["p"]
    if spec["dummies"] and value[p] + value[p + 1] != 1:
        raise AnswerError(
            f"answer to {name!r} must set exactly one of its two dummy categories."
        )
    if not _admissible(spec, subsets, value[:p]):
        raise AnswerError(
            f"answer to {name!r} is a subset its design never reports (size "
            f"{sum(value[:p])} of {p})."
        )
    return list(value)


def admissible_subsets(design: Any) -> frozenset[int] | None:
    """Bitmasks of the subsets a design reports (None: decided by size)."""
    if not design.enumerable:
        return None
    return frozenset(int(m) for m, w in zip(design._masks, design._mu) if w > 0)


def _admissible(spec: dict, subsets: frozenset[int] | None, bits: list[int]) -> bool:
    """Whether a subset (0/1 list) has positive probability under the design."""
    if subsets is None or spec["design"] == "uniform":
        low, high = spec["sizes"] if "sizes" in spec else (2, spec["p"] - 2)
        return low <= sum(bits) <= high
    return sum(1 << i for i, b in enumerate(bits) if b) in subsets


def _interval_answer(name: str, spec: dict, value: Any) -> int:
    k = spec["n_anchors"]
    if not _is_integer(value) or not 0 <= value <= k:
        raise AnswerError(
            f"answer to {name!r} must be the index of the chosen cell, an integer "
            f"from 0 to {k} (cell i lies between the i-th and (i+1)-th anchors)."
        )
    return int(value)


def check_answer(
    name: str, spec: dict, value: Any, subsets: frozenset[int] | None = None
) -> Any:
    """Check one answer against its question's output space; return it.

    ``subsets`` holds the bitmasks of the subsets a subset question's design
    reports (:func:`admissible_subsets`; ``None`` when the subset size
    decides).  Raises :class:`AnswerError` with a message for the
    respondent's client.
    """
    kind = spec["kind"]
    if kind == "laplace":
        return _laplace_answer(name, spec, value)
    if kind == "square_wave":
        return _square_wave_answer(name, spec, value)
    if kind == "rvns":
        return _rvns_answer(name, spec, value)
    if kind == "subset":
        return _subset_answer(name, spec, value, subsets)
    if kind == "interval":
        return _interval_answer(name, spec, value)
    if kind == "frequency":
        return check_frequency_answer(name, spec, value, AnswerError)
    raise AnswerError(f"question {name!r} has an unknown kind {kind!r}.")
