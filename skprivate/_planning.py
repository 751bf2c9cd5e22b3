"""Plan a private collection: the interval half-width a design will give.

Before collecting, a user chooses the privacy level and the number of
respondents.  :func:`expected_half_width` gives the expected half-width of
the confidence interval of a quantity for a planned ``n``;
:func:`plan_sample_size` inverts it: the ``n`` needed for a target
half-width.  Closed forms are used where the interval's variance is known:

* additive noise (:class:`~skprivate.LaplaceLDP`,
  :class:`~skprivate.ldp.GeneralizedGaussianLDP`,
  :class:`~skprivate.ldp.FlippedHuberLDP`), the mean: the noisy sample mean
  has variance ``(sigma**2 + Var e) / n`` (``2 b**2`` for Laplace noise of
  scale ``b``), so ``n = z**2 (sigma**2 + Var e) / E**2``;
* the Square Wave mechanism, the mean: the variance of its unbiased moment
  estimator, ``(b - a)**2 Var(v') / (s**2 n)``, with ``Var(v')`` from the
  first two moments of the data (see :mod:`skprivate.ldp._intervals`);
* Case-I interval privacy (one anchor), the mean: the asymptotic variance
  of the NPMLE mean, ``n**-1 integral F (1 - F) / g``, with ``g`` the
  density of the mechanism's public anchors.

``sigma`` (or the whole distribution, ``reference``) is a guess made before
collecting; without it the worst case over the declared bounds is used
(``sigma = (high - low) / 2``).  Any other mechanism, learner and interval
kind is planned by simulation: ``estimator=`` and ``kind=`` simulate
samples from ``reference``, privatize them, fit and average the
half-widths of ``conf_int`` (:func:`plan_sample_size` then extrapolates a
pilot size along the interval's rate, ``rate``, and checks the answer once).
The intervals are computed from each simulated release alone: an estimator
set up to take released data is fitted on it and given it again, one with
``privatizer=`` is given the planned mechanism and keeps its own release.

A plan is published (it sets the survey's size), so everything it reads is
treated as public: a sample given as ``reference`` (real data, not a
declared distribution) warns with
:class:`~skprivate.exceptions.PrivacyLeakWarning`.
"""

from __future__ import annotations

import math
import numbers
import warnings
from typing import Any

import numpy as np
from scipy import integrate
from sklearn.base import clone

from ._uncertainty import check_level, z_value
from .exceptions import PrivacyLeakWarning
from .utils import HasMethods, Interval, check_generator, validate_params
from .utils._warnings import external_stacklevel
from .utils.validation import check_float_array

__all__ = ["expected_half_width", "plan_sample_size"]

_ADDITIVE = ("LaplaceLDP", "GeneralizedGaussianLDP", "FlippedHuberLDP")


def _declared_bounds(mechanism: Any) -> tuple[float, float]:
    bounds = getattr(mechanism, "bounds", None)
    if bounds is None:
        raise ValueError(
            f"{type(mechanism).__name__} needs declared bounds=(low, high) to be "
            "planned: its noise is calibrated to them."
        )
    if isinstance(bounds, dict):
        if len(bounds) != 1:
            raise ValueError("plan one column at a time: bounds must hold one pair.")
        bounds = next(iter(bounds.values()))
    low, high = np.ravel(np.asarray(bounds, dtype=float))[[0, -1]]
    if not (np.isfinite(low) and np.isfinite(high) and low < high):
        raise ValueError(f"bounds must be finite with low < high; got {bounds!r}.")
    return float(low), float(high)


def _fitted(mechanism: Any, low: float, high: float) -> Any:
    """A clone fitted on the bounds alone (the noise depends on nothing else)."""
    return clone(mechanism).fit(np.array([[low], [high]]))


def _noise_variance(mechanism: Any, low: float, high: float) -> float:
    fitted = _fitted(mechanism, low, high)
    if type(mechanism).__name__ == "LaplaceLDP":
        return 2.0 * float(np.ravel(fitted.scale_)[0]) ** 2
    law = fitted.noise_[0]
    scale = float(law.scale)

    def density(t):
        return float(np.exp(law.logpdf(np.array([t]))[0]))

    second = integrate.quad(lambda t: t * t * density(t), -np.inf, np.inf)[0]
    if not second > 0:  # pragma: no cover - a law always spreads
        raise ValueError(f"could not integrate the noise law of scale {scale:g}.")
    return float(second)


def _moments(reference: Any, sd: Any, low: float, high: float) -> tuple[float, float]:
    """``(E X, E X**2)`` of the planned population (within the bounds)."""
    if reference is not None:
        if hasattr(reference, "mean") and hasattr(reference, "var"):
            m, v = float(reference.mean()), float(reference.var())
        else:
            sample = np.asarray(reference, dtype=float).ravel()
            m, v = float(sample.mean()), float(sample.var())
        return m, v + m * m
    if sd is not None:
        s = float(sd)
        return 0.5 * (low + high), s * s + (0.5 * (low + high)) ** 2
    return None, None


def _worst_sd(low: float, high: float) -> float:
    return 0.5 * (high - low)


def _square_wave_variance(mechanism: Any, low, high, reference, sd) -> float:
    """Variance of one report's contribution to the moment estimator of the mean."""
    from .ldp._intervals import square_wave_moment_terms
    from .ldp._square_wave import _square_wave_terms

    fitted = _fitted(mechanism, low, high)
    eps = float(fitted.privacy_summary()["epsilon_per_feature"])
    w, near_odds = _square_wave_terms(eps)
    p = near_odds / (1.0 + near_odds)
    s, c = square_wave_moment_terms(eps)

    def variance(m1, m2):
        second = (
            p * (m2 + w * w / 3.0)
            + (1.0 - p) * ((1.0 + w) ** 3 - w**3 - 6.0 * w * m2) / 3.0
        )
        return second - (s * m1 + c) ** 2

    mean, second = _moments(reference, sd, low, high)
    span = high - low
    if mean is None:
        # Worst case over distributions on [0, 1]: E v = m1, m1^2 <= E v^2 <= m1.
        grid = np.linspace(0.0, 1.0, 201)
        worst = max(
            variance(m1, m2) for m1 in grid for m2 in np.linspace(m1 * m1, m1, 21)
        )
        return span**2 * worst / s**2
    m1 = (mean - low) / span
    m2 = (second - 2 * low * mean + low * low) / span**2
    return span**2 * variance(m1, m2) / s**2


def _case_one_variance(mechanism: Any, reference: Any) -> float:
    """``integral F (1 - F) / g`` for the mechanism's anchor density ``g``."""
    if reference is None:
        raise ValueError(
            "planning the NPMLE mean of Case-I data needs reference= (a guess of "
            "the population: a scipy distribution or a sample), since the "
            "variance depends on where the values fall among the anchors."
        )
    anchors = mechanism._anchor_distribution(0)
    if hasattr(reference, "cdf"):
        cdf = reference.cdf
        lo, hi = reference.ppf([1e-6, 1 - 1e-6])
    else:
        sample = np.sort(np.asarray(reference, dtype=float).ravel())

        def cdf(u):
            return np.searchsorted(sample, u, side="right") / sample.size

        lo, hi = sample[0], sample[-1]
    u = np.linspace(lo, hi, 4001)
    step = 1e-4 * (hi - lo)
    g = (anchors.cdf(u + step) - anchors.cdf(u - step)) / (2 * step)
    F = np.asarray(cdf(u), dtype=float)
    terms = np.where(g > 0, F * (1 - F) / np.maximum(g, 1e-300), np.inf)
    if not np.all(np.isfinite(terms[(F > 0) & (F < 1)])):
        raise ValueError(
            "the anchors have no density where the population has values: the "
            "mean is not identified there (widen the anchor distribution)."
        )
    return float(integrate.trapezoid(np.where(np.isfinite(terms), terms, 0), u))


def _unit_variance(mechanism: Any, statistic: str, reference: Any, sd: Any) -> float:
    """Variance of the interval's estimator times ``n`` (closed forms)."""
    name = type(mechanism).__name__
    if statistic != "mean":
        raise ValueError(
            f"statistic={statistic!r} has no closed form here; pass estimator= and "
            "kind= to plan it by simulation."
        )
    if name in _ADDITIVE:
        low, high = _declared_bounds(mechanism)
        mean, second = _moments(reference, sd, low, high)
        var_x = _worst_sd(low, high) ** 2 if mean is None else second - mean**2
        return var_x + _noise_variance(mechanism, low, high)
    if name == "SquareWaveLDP":
        low, high = _declared_bounds(mechanism)
        return _square_wave_variance(mechanism, low, high, reference, sd)
    if (
        hasattr(mechanism, "_anchor_distribution")
        and getattr(mechanism, "n_anchors", 1) == 1
    ):
        return _case_one_variance(mechanism, reference)
    raise ValueError(
        f"no closed form for mechanism={name}; pass estimator= and kind= to plan "
        "by simulation."
    )


def _draw(reference: Any, n: int, rng: np.random.Generator) -> np.ndarray:
    if reference is None:
        raise ValueError("planning by simulation needs reference= to draw from.")
    if callable(reference) and not hasattr(reference, "rvs"):
        return np.asarray(reference(n, rng), dtype=float).reshape(n, -1)
    if hasattr(reference, "rvs"):
        return np.asarray(reference.rvs(size=n, random_state=rng), dtype=float).reshape(
            n, -1
        )
    sample = np.asarray(reference, dtype=float)
    sample = sample.reshape(sample.shape[0], -1)
    return sample[rng.integers(0, sample.shape[0], size=n)]


def _simulated_half_width(
    mechanism, estimator, kind, points, n, level, reference, n_simulations, seed
) -> float:
    rng = check_generator(seed)
    # An estimator with a privatizer privatizes the simulated values itself
    # (with the planned mechanism) and keeps its release; one without is
    # fitted on the release and given it again.
    privatizes = getattr(estimator, "privatizer", None) is not None
    widths = []
    for _ in range(n_simulations):
        x = _draw(reference, n, rng)
        released = clone(mechanism).set_params(random_state=int(rng.integers(2**31)))
        if privatizes:
            est = clone(estimator).set_params(privatizer=released).fit(x)
            ci = est.conf_int(kind, points, level=level)
        else:
            Z = released.fit_transform(x)
            est = clone(estimator).fit(Z)
            ci = est.conf_int(kind, points, level=level, X=Z)
        widths.append(float(np.nanmean(ci["upper"] - ci["lower"])) / 2.0)
    return float(np.nanmean(widths))


def _count(minimum: int) -> list:
    return [Interval(numbers.Integral, minimum, None, closed="left")]


_POSITIVE = [Interval(numbers.Real, 0, None, closed="neither")]

# What every plan reads, checked before anything is computed (a bad
# simulation setting is refused even when the closed form is used).
_PLAN_CONSTRAINTS = {
    "mechanism": [HasMethods(("fit", "fit_transform"))],
    "statistic": ["string"],
    "sd": [*_POSITIVE, None],
    "reference": [
        None,
        HasMethods("rvs"),
        HasMethods("cdf"),
        "callable",
        "array-like",
    ],
    "estimator": [None, HasMethods(("fit", "conf_int"))],
    "kind": [None, "string"],
    "n_simulations": _count(1),
}


def _check_plan(caller: str, params: dict[str, Any], constraints: dict) -> Any:
    """Validate the arguments of a plan; return ``reference`` ready to use.

    ``random_state`` is checked as :func:`~skprivate.utils.check_generator`
    checks it, a sample given as ``reference`` as an array of finite numbers,
    and ``kind`` against the interval kinds of ``estimator``.
    """
    named = {k: params[k] for k in (*_PLAN_CONSTRAINTS, *constraints)}
    validate_params({**_PLAN_CONSTRAINTS, **constraints}, named, caller)
    check_level(params["level"])
    random_state = params["random_state"]
    if not isinstance(random_state, np.random.RandomState):
        check_generator(random_state)  # refuses strings and negative seeds
    reference = params["reference"]
    if not (
        reference is None
        or callable(reference)
        or hasattr(reference, "rvs")
        or hasattr(reference, "cdf")
    ):
        reference = check_float_array(reference, name="reference", allow_inf=False)
        if reference.size == 0:
            raise ValueError("reference must hold at least one value; got none.")
        warnings.warn(
            f"{caller}: reference is a sample of values, which the plan treats "
            "as public: its moments (or values) set the planned half-width and "
            "sample size, which are published with the survey. Use a declared "
            "distribution (a scipy.stats law, or sd=) when the sample is "
            "private data.",
            PrivacyLeakWarning,
            stacklevel=external_stacklevel(),
        )
    estimator, kind, points = params["estimator"], params["kind"], params["points"]
    if points is not None:
        check_float_array(points, name="points")
    if estimator is None:
        for name in ("kind", "points"):
            if params[name] is not None:
                raise ValueError(
                    f"{name}= chooses what to simulate and needs estimator= "
                    "(planning by simulation); without an estimator the closed "
                    f"form of statistic={params['statistic']!r} is planned. Got "
                    f"{name}={params[name]!r}."
                )
        return reference
    name, kind = ("statistic", params["statistic"]) if kind is None else ("kind", kind)
    if not callable(getattr(estimator, f"_conf_int_{kind}", None)):
        available = sorted(
            name[len("_conf_int_") :]
            for name in dir(type(estimator))
            if name.startswith("_conf_int_")
        )
        raise ValueError(
            f"{name}={kind!r} is not an interval kind of "
            f"{type(estimator).__name__}; available: {available}."
        )
    return reference


def expected_half_width(
    mechanism: Any,
    n: int,
    *,
    statistic: str = "mean",
    level: float = 0.95,
    sd: float | None = None,
    reference: Any = None,
    estimator: Any = None,
    kind: str | None = None,
    points: Any = None,
    n_simulations: int = 20,
    random_state: int = 0,
) -> float:
    """Expected half-width of the confidence interval for ``n`` respondents.

    Parameters
    ----------
    mechanism : privatizer
        The planned mechanism, unfitted (e.g. ``LaplaceLDP(epsilon=1,
        bounds=(0, 100))``).
    n : int
        Planned number of respondents, at least 2.
    statistic : {"mean"}, default="mean"
        Quantity with a closed form (see the module notes).
    level : float, default=0.95
        Confidence level.
    sd : float, optional
        Guess of the population standard deviation, positive (additive and
        Square Wave mechanisms); default: the worst case on the bounds.
    reference : scipy distribution, sample or callable, optional
        Guess of the population: moments for the closed forms, the law of
        the values for the Case-I NPMLE and for simulation (a callable is
        ``reference(n, rng) -> values``).  A sample (an array of values)
        is treated as public and warns
        (:class:`~skprivate.exceptions.PrivacyLeakWarning`): pass a
        declared distribution when the values are private.
    estimator : estimator, optional
        Plan by simulation instead: the learner, set up to take the released
        data (e.g. ``DeconvolutionKernelDensity(noise_scale=...)``), or
        with a ``privatizer``, which is then replaced by ``mechanism`` (the
        learner privatizes each simulated sample and keeps its release).
    kind, points : optional
        The ``conf_int`` kind (one the estimator offers; default
        ``statistic``) and numeric points to simulate.  Only with
        ``estimator``: without it they are refused, not ignored.
    n_simulations : int, default=20
        Simulated surveys (with ``estimator``), at least 1.
    random_state : None, int, RandomState or Generator, default=0
        Seed of the simulation (a non-negative int for a reproducible plan).

    Raises
    ------
    ValueError or TypeError
        If an argument is of the wrong type or out of range; the message
        names it.  Every argument is checked, also those the closed form
        does not read.

    Warns
    -----
    PrivacyLeakWarning
        When ``reference`` is a sample of values (it is treated as public).

    Returns
    -------
    float
        Expected half-width, in the unit of the data.

    Examples
    --------
    >>> from skprivate import LaplaceLDP, expected_half_width
    >>> mech = LaplaceLDP(epsilon=1.0, bounds=(0, 100))
    >>> round(expected_half_width(mech, 10_000, sd=20.0), 2)  # years of age
    2.8
    """
    reference = _check_plan(
        "expected_half_width", locals(), {"n": _count(2), "level": "no_validation"}
    )
    level = float(level)
    if estimator is not None:
        return _simulated_half_width(
            mechanism,
            estimator,
            kind or statistic,
            points,
            int(n),
            level,
            reference,
            int(n_simulations),
            random_state,
        )
    unit = _unit_variance(mechanism, statistic, reference, sd)
    return float(z_value(level) * math.sqrt(unit / n))


def plan_sample_size(
    mechanism: Any,
    half_width: float,
    *,
    statistic: str = "mean",
    level: float = 0.95,
    sd: float | None = None,
    reference: Any = None,
    estimator: Any = None,
    kind: str | None = None,
    points: Any = None,
    rate: float = 0.5,
    pilot_n: int = 1000,
    n_simulations: int = 20,
    random_state: int = 0,
) -> int:
    """Respondents needed for a confidence interval of the given half-width.

    Parameters
    ----------
    mechanism : privatizer
        The planned mechanism, unfitted.
    half_width : float
        Target half-width ``E`` (the interval is ``estimate -/+ E``), in the
        unit of the data.
    statistic, level, sd, reference : see :func:`expected_half_width`.
    estimator, kind, points : optional
        Plan by simulation (see :func:`expected_half_width`).
    rate : float, default=0.5
        With ``estimator``: the half-width shrinks as ``n**-rate``, a rate
        in ``(0, 1]`` (0.5 for root-n intervals; 1/3 for the NPMLE at a
        point).
    pilot_n : int, default=1000
        With ``estimator``: the size simulated first; the answer is
        extrapolated from it along ``rate``, simulated once more and
        corrected; at least 2.
    n_simulations : int, default=20
        Simulated surveys per size.
    random_state : None, int, RandomState or Generator, default=0
        Seed of the simulation.

    Raises
    ------
    ValueError or TypeError
        If an argument is of the wrong type or out of range (as in
        :func:`expected_half_width`; ``half_width`` must be positive and
        finite).

    Warns
    -----
    PrivacyLeakWarning
        When ``reference`` is a sample of values (it is treated as public).

    Returns
    -------
    int
        Number of respondents (rounded up).

    Examples
    --------
    How many respondents for an average age within 2 years at ε = 1?

    >>> from skprivate import LaplaceLDP, plan_sample_size
    >>> plan_sample_size(LaplaceLDP(epsilon=1.0, bounds=(0, 100)), 2.0, sd=20.0)
    19592
    """
    reference = _check_plan(
        "plan_sample_size",
        locals(),
        {
            "half_width": _POSITIVE,
            "level": "no_validation",
            "rate": [Interval(numbers.Real, 0, 1, closed="right")],
            "pilot_n": _count(2),
        },
    )
    level = float(level)
    if estimator is None:
        unit = _unit_variance(mechanism, statistic, reference, sd)
        return math.ceil(z_value(level) ** 2 * unit / half_width**2)
    n = int(pilot_n)
    for _ in range(2):
        # The arguments are checked (and a sample reference warned about) once.
        width = _simulated_half_width(
            mechanism,
            estimator,
            kind or statistic,
            points,
            n,
            level,
            reference,
            int(n_simulations),
            random_state,
        )
        n = max(2, math.ceil(n * (width / half_width) ** (1.0 / rate)))
    return n
