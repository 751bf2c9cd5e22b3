"""Regression with interval responses: Algorithm 1 around any regressor.

:class:`IterativeIntervalRegressor` holds the parameters, their validation
and the orchestration of a fit: the start (marginal MLE or boosted), the
choice of solver (Newton's method of :mod:`._newton` for a Gaussian
``LinearRegression``, else the iteration of :mod:`._em` with or without
SQUAREM) and the final model.  The base regressor's clone and the
responses it is fitted to come from :mod:`._regression_inputs`, the choices
of ``init="auto"`` from :mod:`._auto_init`.
"""

from __future__ import annotations

import importlib.util
import numbers
import warnings
from typing import Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import sparse
from sklearn.base import BaseEstimator, RegressorMixin, clone
from sklearn.exceptions import (
    ConvergenceWarning,
    NotFittedError,
)
from sklearn.linear_model import LinearRegression
from sklearn.utils import get_tags
from sklearn.utils.validation import check_is_fitted

from ..base import ParamsValidationMixin, PrivatizedInputMixin, check_in_memory
from ..exceptions import NotIdentifiableWarning
from ..utils import HasMethods, Interval, Options
from ..utils._redact import raw_values_withheld
from ..utils._warnings import external_stacklevel, warn_once
from ..utils.validation import check_weights
from ._auto_init import _START_ROWS, AutoInitMixin
from ._em import (
    EMState,
    log_likelihood,
    make_em_map,
    plain_em,
    squarem,
    squarem_cached,
)
from ._input_checks import (
    base_predict,
    check_base_features,
    check_rows_for_linear_base,
    warn_if_scale_unidentified,
)
from ._metrics import interval_r2_score
from ._newton import _MAX_PASSES as _NEWTON_MAX_PASSES
from ._newton import _STEP_TOL as _NEWTON_STEP_TOL
from ._newton import (
    CensoredNormal,
    ResponseFrame,
    newton_interval_mle,
    one_blas_thread,
)
from ._parametric import IntervalMLE
from ._refit import LinearSmoother, make_refitter
from ._regression_inputs import RegressionInputsMixin
from ._regression_intervals import RegressionIntervalsMixin
from ._truncated import interval_log_likelihood
from ._warm_start import WarmStarter

__all__ = ["IterativeIntervalRegressor"]

# max_iter="auto": base fits for a general regressor; cached solves (each
# O(n p), a fraction of one fit) for LinearRegression and Ridge.
_AUTO_MAX_ITER = 20
_AUTO_MAX_ITER_LINEAR = 500
_START_ROWS_NEWTON = 2_000
# Newton's method on large samples first solves the MLE on every k-th row
# (at least this many rows), whose solution is within sampling error
# (about sqrt(p / rows) sigma) of the full one: from there two or three
# full-data passes converge quadratically, instead of the six to ten that
# close the gap from a constant start.  Applies from _NEWTON_SUBSAMPLE_FROM
# rows on.
_NEWTON_SUBSAMPLE_ROWS = 20_000
# That solve starts from the one on every k-th row of at least this many
# (three passes on the larger subsample instead of about nine).
_NEWTON_PRESOLVE_ROWS = 2_000
_NEWTON_SUBSAMPLE_FROM = 100_000
# The subsample solve stops at this step (relative to sigma), well below its
# own sampling error.
_NEWTON_SUBSAMPLE_TOL = 1e-3


def _unit_mean_weights(w: NDArray) -> tuple[NDArray, float]:
    """Weights scaled to a mean of 1, and the factor taken out.

    Divided by their largest value first (equal weights become ones
    exactly, and the mean cannot overflow), then by their mean.

    Parameters
    ----------
    w : ndarray of shape (n_samples,)
        Finite non-negative weights, not all zero (as ``check_weights``
        returns them).

    Returns
    -------
    weights : ndarray of shape (n_samples,)
        ``w`` over the factor, of mean 1.
    factor : float
        The mean of ``w`` (to rounding), computed without overflow.
    """
    top = float(w.max())
    w = w / top
    mean = float(w.mean())
    return w / mean, top * mean


def _marginal_start(
    Z: NDArray, w: NDArray, step: int, noise: str
) -> tuple[float, float]:
    """Location and scale of the responses alone: where the iteration starts.

    The marginal maximum-likelihood fit of every ``step``-th row.  When
    those rows all enclose a common set ``[a, b]`` that fit does not exist
    (its scale goes to 0, see :class:`IntervalMLE`): the start is then the
    set's centre (its finite end when it is a half-line) and the spread of
    the finite ends.  When all the rows do, so does the regression's
    maximum-likelihood fit (a constant inside the set, with sigma going to
    0, predicts every row with certainty), and a warning says so.
    """
    rows, weights = Z[::step], w[::step]
    held = weights > 0
    a, b = float(rows[held, 0].max()), float(rows[held, 1].min())
    if not a <= b:
        marginal = IntervalMLE(
            family="normal" if noise == "gaussian" else "logistic"
        ).fit(rows, sample_weight=weights)
        return float(marginal.loc_), float(marginal.scale_)
    if np.isfinite(a) and np.isfinite(b):
        loc = 0.5 * (a + b)
    else:
        loc = a if np.isfinite(a) else b
    finite = Z[np.isfinite(Z)]
    spread = float(np.std(finite)) if finite.size else 0.0
    scale = spread if spread > 0 else max(abs(loc), 1.0)
    every = w > 0
    if float(Z[every, 0].max()) <= float(Z[every, 1].min()):
        warnings.warn(
            "Every response interval of positive weight encloses one common "
            "set: a constant prediction inside it with sigma going to 0 "
            "predicts every row with certainty, so the maximum-likelihood "
            "fit does not exist, and sigma_ and the coefficients reflect "
            "where the iteration stopped. Pass a known sigma, or anchors "
            "that cut the responses more finely.",
            NotIdentifiableWarning,
            stacklevel=external_stacklevel(),
        )
    return float(loc), float(scale)


class IterativeIntervalRegressor(
    AutoInitMixin,
    RegressionInputsMixin,
    RegressionIntervalsMixin,
    PrivatizedInputMixin,
    ParamsValidationMixin,
    RegressorMixin,
    BaseEstimator,
):
    """Regression on interval-valued responses around any regressor (Algorithm 1).

    Model ``Y = f(X) + e`` with Gaussian or logistic noise ``e``.  Starting
    from a constant fit, each iteration replaces every interval response
    ``(lower, upper]`` by its conditional mean given the current fit,
    ``f(x) + E[e | lower - f(x) < e <= upper - f(x)]`` (closed forms,
    computed stably in the tails), keeps exact responses as they are, and
    refits the base regressor on these imputed responses.  With Gaussian
    noise, an OLS base learner and ``sigma="auto"`` this is the EM algorithm
    of the censored linear model.

    Parameters
    ----------
    estimator : regressor, default=None
        Any scikit-learn regressor (or pipeline); ``None`` means
        :class:`~sklearn.linear_model.LinearRegression`.  Cloned in fit.
    noise : {"gaussian", "logistic"}, default="gaussian"
        Noise family assumed for the imputation.
    sigma : "auto" or float, default="auto"
        Noise scale (standard deviation of the Gaussian, scale ``s`` of the
        logistic).  ``"auto"`` starts from the marginal MLE of the responses
        and re-estimates it after each iteration with the EM update
        ``σ² = n⁻¹ Σ E[(Y_i - f(x_i))² | data_i]`` (for the logistic the
        variance is matched, ``s = sqrt(3 v) / π``).
    max_iter : int or "auto", default="auto"
        Maximum number of iterations, i.e. of fits of the base regressor.
        ``"auto"``: 20 for a general regressor (with a LightGBM base and
        ``init="auto"``, whichever start it chose, run as a fixed budget
        like ``tol=None``: no convergence check or warning), or 500 when the
        base regressor is exactly a
        :class:`~sklearn.linear_model.LinearRegression` or
        :class:`~sklearn.linear_model.Ridge` on a dense numeric design: its
        fitted values are a fixed linear map of the responses, so the
        design is factorized once and each iteration is one cached solve of
        ``O(n p)`` (a fraction of one fit); the final model is an ordinary
        fit of the user's regressor on the last imputations.  With exactly
        ``LinearRegression``, Gaussian noise and the default
        ``acceleration``/``init``, the fixed point of the iteration is the
        interval-regression (censored-normal) MLE, which is computed by
        Newton's method instead (see ``solver_``); ``max_iter`` then bounds
        its likelihood passes.
    tol : float or None, default=1e-4
        Stop when one iteration changes no fitted value by more than
        ``tol * sigma`` (the fixed-point residual of Algorithm 1 on the
        scale of the noise; the sampling error of a fitted value is about
        ``sigma * sqrt(p / n)``, far above ``1e-4 sigma`` for any ``n``
        below 10^8 p).  ``None`` runs exactly
        ``max_iter`` base fits without a convergence check or warning (as
        ``tol=None`` does in scikit-learn's SGD models): the usual choice for
        tree ensembles, whose fitted values never settle below a few percent
        of ``sigma``.
    acceleration : "squarem" or None, default="squarem"
        ``"squarem"`` extrapolates the sequence of fitted values and log
        noise scale along its slow direction (SQUAREM, Varadhan and Roland,
        2008) and keeps an extrapolation only when the observed-data
        log-likelihood does not drop; Algorithm 1 moves by a roughly
        constant factor per iteration when the intervals are wide, and the
        extrapolation typically cuts the iterations to convergence several
        fold.  ``None`` runs the plain iteration of the paper.
    init : {"auto", "constant", "boosting"} or LightGBM regressor, \
default="auto"
        Where the iteration starts.  ``"auto"``: with a LightGBM base
        regressor (or a pipeline ending in one), unless ``max_iter < 2`` or
        ``warm_start``, the start chosen by the data: Algorithm 1 runs from
        the constant and from the boosted start (the latter with its
        constant Hessian raised to ``min(0.5, 20 / (n * information))`` on
        small, weakly informative samples, see below) on three quarters of
        the rows (drawn with ``random_state`` when it is an int, else a
        fixed draw), with at most 10 fits each, and the start whose fit has
        the higher interval log-likelihood on the held-out quarter is kept
        (the scores are stored in ``start_scores_``); the fit on all the
        rows then starts there.  The likelihood of the interval answers
        needs no clean response; held out, it penalizes a start that fits
        noise, which the training likelihood rewards.  Below 25 rows on
        either side of that split, ``"constant"``.  With exactly
        ``LinearRegression`` (Gaussian noise, ``sigma="auto"``), the
        constant start, whose fixed point, the interval MLE, is kept unless
        a score test at the MLE finds the linear model misspecified and a
        flexible model of the responses then predicts held-out answers
        clearly better, in which case the final model is the least-squares
        fit to that model's imputations (see Notes).  ``"constant"`` for every
        other regressor.  With a LightGBM base ``max_iter="auto"`` runs 20
        fits.  No fixed rule on the design does as well: on real tables
        made from the bundled data (Gapminder, Adult) and on Friedman #1
        and #2, with Case-I answers at anchor scales 2 and 5, Case-II
        answers at scale 2 and Case-II anchors narrower than the response,
        LightGBM with 200 trees at learning rate 0.05
        (``benchmarks/results/interval_auto_init.md``), the boosted start
        wins by up to 0.18 R^2 on wide cells with a strong signal, but on
        Adult hours per week (clean R^2 0.12) at anchor scale 5 it loses
        0.034 to the constant start: with so little information per row it
        fits the noise of the imputations (its training likelihood is the
        higher one, its held-out likelihood the lower one), while 20 fits
        from the constant start stop short of that; and on Friedman #2 with
        narrow anchors (information 0.57, which the former rule of
        boosting below an information of 0.3 gave to the constant start)
        the boosted start wins by 0.016.  The held-out choice is within
        0.01 of the best start's held-out R^2 on all 24 table-designs (it
        picks the better start on both of those).  It costs the two scoring
        runs (at most 10 fits each on three quarters of the rows, with
        SQUAREM's likelihood passes and the boosted start's E-steps about
        20 to 30 base fits) on top of the 20 fits from the chosen start:
        39 to 62 base fits' CPU time in all on these tables, against 17 to
        32 for 20 fits from either start alone; ``init="constant"`` or
        ``init="boosting"`` skip the choice, and ``init="boosting",
        max_iter=3`` costs 4 to 10 fits for up to 0.045 R^2 less (0.07 on
        the Adult table).
        ``"constant"``: every fitted value at the marginal MLE location of
        the responses (the paper starts at 0; the iteration is the same).
        ``"boosting"``: the fitted values of a LightGBM model whose
        objective re-runs the E-step before every tree
        (trees are fitted to the residuals of the current imputations, the
        noise scale is updated every 5 trees), which lands close to the
        fixed point of Algorithm 1.  The start is fitted with the base
        regressor itself when it is a LightGBM model (or a pipeline ending
        in one), otherwise with ``LGBMRegressor(verbose=-1)`` (in place of
        the last step of a pipeline, so it sees the same preprocessing); pass
        a LightGBM regressor here to choose its settings.  The later
        iterations and the final model are ordinary refits of the base
        regressor on imputed responses; the start counts as one of the
        ``max_iter`` fits.  With tree ensembles, whose iterations never
        settle below a few percent of ``sigma``, on wide cells 3 to 5 fits
        from this start reach the test error of 20 from the constant one on
        Friedman #1, and 20 fits go further; on small, weakly informative
        samples (a few hundred rows at high coverage) the start overfits:
        its Hessian, the information fraction (0.1 there), makes every tree
        a step of ``learning_rate / 0.1``.
        ``"auto"`` raises that Hessian to ``min(0.5, 20 / (n * information))``
        when this is larger (``n * information``: the number of complete
        observations the intervals are worth), which removes the overfitting
        there and leaves samples worth more than about 100 complete
        observations untouched.
        Needs lightgbm.  When no feature varies (an intercept-only model),
        no tree can split and the boosted start is skipped: ``init_`` is
        ``"constant"`` and the fit that of ``init="constant"``; when
        features vary but LightGBM can split none of them (a value on fewer
        rows than its ``min_data_in_leaf``), the boosted start is the
        constant one.
    warm_start : bool or int, default=False
        Continue the previous iteration's model instead of refitting from
        scratch: boosting models add rounds (``True``: a tenth of their
        round count, an int: that many) fitted to the new imputations on top
        of the previous ensemble; models whose ``warm_start`` initializes
        their solver start at the previous solution.  Random forests and
        pipelines are refused.  Disables ``acceleration``.
    privatizer : interval mechanism, default=None
        If given, ``fit`` takes raw 1-D ``y`` and privatizes it first with a
        clone of this mechanism (``privatizer.fit_transform(y.reshape(-1,
        1))``), which lets a grid search tune the privacy parameters.
    random_state : None, int, RandomState or Generator, default=None
        Seeds the ``random_state`` parameters of the base estimator that are
        left at ``None``.
    verbose : int, default=0
        Print the change of the fitted values at each iteration when > 0.

    Attributes
    ----------
    estimator_ : regressor
        The base regressor fitted at the last iteration.
    n_iter_ : int
        Iterations run (fits of the base regressor).
    history_ : list of float
        Largest change of the fitted values at each iteration (from the
        fitted values the iteration started from, which with
        ``acceleration="squarem"`` may be an extrapolated point).
    sigma_ : float
        Final noise scale.
    log_likelihood_ : float
        Observed-data log-likelihood of the interval responses at the final
        fitted values and noise scale (weighted by ``sample_weight``).
    sigma_history_ : list of float
        Noise scale used at each iteration.
    converged_ : bool
        Whether the change fell below ``tol`` (always ``False`` with
        ``tol=None`` and with the fixed budget of ``max_iter="auto"`` with a
        LightGBM base and ``init="auto"``).
    init_ : str or estimator
        The start used: ``init`` itself, or what ``init="auto"`` chose
        (``"boosting"`` or ``"constant"``); ``"constant"`` whenever no
        feature varies.
    start_information_ : float or None
        With ``init="auto"`` and a LightGBM base, the information fraction
        the intervals keep at the constant start (the average of ``1 -
        Var(e | cell) / Var(e)`` at the marginal fit), a diagnostic of how
        wide the cells are (None otherwise).
    start_scores_ : dict or None
        With ``init="auto"`` and a LightGBM base, the held-out interval
        log-likelihood per unit weight of the runs from ``"constant"`` and
        from ``"boosting"`` that chose the start.  With ``init="auto"`` and
        exactly ``LinearRegression`` solved by Newton's method, the held-out
        interval log-likelihood per unit weight of the MLE (``"MLE"``) and
        of the boosted models from the constant (``"boosting"``) and from
        the MLE (``"boosting from MLE"``), and the z-statistics of the two
        boosted models' paired gains over the MLE (``"z boosting"``, ``"z
        boosting from MLE"``), and the p-value of the score test that
        screened the check (``"specification p-value"``; the only entry when
        the test did not reject and no boosted model was fitted), see
        Notes.  None otherwise, and when the sample is too small to hold
        rows out.
    projection_ : {"constant", "mle"} or None
        With ``init="auto"`` and exactly ``LinearRegression``: the start of
        the boosted model to whose E-step imputations the final model was
        fitted by least squares, or None when the final model is the
        interval MLE (see Notes).
    solver_ : {"newton", "projection", "squarem", "em"}
        How the fixed point was found.  ``"newton"``: exactly
        ``LinearRegression`` with Gaussian noise, ``acceleration="squarem"``,
        ``init="constant"`` and ``tol > 0``: the fixed point of Algorithm 1
        is then the MLE of the interval-regression model in ``(β, σ)``
        (``β`` alone with a known ``sigma``), found by Newton's method on
        the observed-data log-likelihood in ``(β / σ, 1 / σ)``, where it is
        concave (gradient and Hessian from the same ``log_ndtr`` terms as
        the E-step, a step-halving line search, typically 6 to 8 passes
        over the data; from 100,000 rows on it first solves on every k-th
        row, at least 20,000 of them, and starts the full solve there, which
        then takes 3 or 4 passes); it stops after a step that changes no
        fitted value
        by more than ``min(tol, 1e-6) * sigma``, nor sigma by more than that
        fraction of itself (the error left is about the square of that).
        It works on the responses centred and scaled by a least-squares
        pilot fit of the interval centres (exact for a linear model, with
        or without intercept), so that ``y + c`` and ``a y`` give the same
        fit moved and scaled alike, to rounding, at any offset.
        ``estimator_`` is then an ordinary fit of the
        user's regressor on the E-step imputations at the solution, whose
        least-squares coefficients are the MLE; ``history_`` holds the
        changes of the Newton steps.  If Newton's method fails (a
        non-finite likelihood, no ascent along its direction, or a last
        step after which the quadratic model of the likelihood still
        promises a rise: not the maximum), the SQUAREM iteration runs
        instead.  ``"projection"``: the MLE was found so,
        and ``init="auto"`` replaced it by the least-squares fit to a
        boosted model's imputations (see Notes).  ``"squarem"``/``"em"``:
        the accelerated or plain iteration of Algorithm 1.
    privatizer_ : transformer or None
        The fitted privatizer (when ``privatizer`` is set).
    released_ : ndarray of shape (n_samples, 2) or None
        The intervals ``privatizer`` released, read by ``conf_int`` (kinds
        ``"predict"`` and ``"coef"``; it then refuses ``y``: it would be the
        raw responses); None without it.
    n_features_in_ : int
        Number of features (from the base estimator).
    feature_names_in_ : ndarray of str
        Feature names, when fitted on a DataFrame with named columns.

    See Also
    --------
    IntervalCaseI : the mechanism producing Case-I responses.
    interval_mae : interval-aware error for cross-validation.

    Notes
    -----
    **The default of a linear base under misspecification.**  With exactly
    ``LinearRegression``, Gaussian noise and ``sigma="auto"``, Algorithm 1
    converges to the interval-regression (censored-normal) MLE.  When
    ``E[Y | x]`` is not linear, the MLE estimates the Kullback-Leibler
    projection of the answers' law onto the linear model (White, 1982),
    which under heavy one-sided censoring (anchors far from most responses)
    can be far from the least-squares projection of ``E[Y | x]`` onto the
    linear functions, the best linear predictor that the R^2 of the
    predictions rewards (Buja et al., 2019).  ``init="auto"`` therefore
    checks the linear model against flexible ones, from the answers alone
    (never a clean response): on three quarters of at most 4,000 rows (a
    seeded draw, ``random_state`` when it is an int) it fits the MLE and
    two boosted models of the responses (the objective of
    ``init="boosting"``, one started from the constant, one from the MLE
    so that where the answers say little it stays at the linear fit), and
    scores each by the interval log-likelihood of the held-out quarter.  If
    a boosted model's held-out log-likelihood exceeds the MLE's by more
    than two standard errors of the paired per-row differences (a held-out
    form of Vuong's (1989) test, which keeps the parametric model unless
    the answers reject it), the better of the two is fitted again on all
    the rows and the base regressor is fitted once, by least squares, to
    its E-step imputations ``E[Y | answer, x]``: a two-stage estimate of
    the least-squares projection (``solver_="projection"``; ``projection_``
    names its start).  Otherwise, and when every response is exact (least
    squares already), the MLE is kept.  On the 24 table-designs of
    ``benchmarks/results/interval_auto_init.md`` (real tables from the
    bundled Gapminder and Adult data, Friedman #1 and #2, four anchor
    designs, 3,333 training rows) the MLE alone is within 0.01 R^2 of the
    best compared setting on 22 and misses by 0.023 and 0.036 on two
    designs with narrow anchors; the choice is within 0.01 on all 24
    (largest gap 0.0074; in the measurements behind it, margins of 1.5 to
    2.5 standard errors met the target on all 24, 1 and 3 missed one design
    each).  Neither projection alone is right everywhere: refitting on the
    imputations of the boosted model from the constant loses up to 0.069
    R^2 to the MLE where the linear model fits well and the cells are wide,
    and the one from the MLE loses 0.02 on one narrow-anchor table.  The
    check is the MLE on the held-out split and two boosted fits (130 to 300
    linear fits' CPU time on those tables, 1.5 to 1.8 times one boosted
    start; it uses at most 4,000 rows: 0.35 s at 10^6 rows, where one
    linear fit takes 0.13 s); a projection adds one boosted fit on all the
    rows.  Where the MLE alone took 8 to 28 linear fits, the default takes
    65 to 500; pass ``init="constant"`` for the MLE alone.  The check
    needs lightgbm; without it ``init="auto"`` keeps the MLE.  It runs on
    the Newton path only: when Newton's method fails and SQUAREM runs
    instead, the result is that iteration's.  After a projection,
    ``conf_int("predict")`` and ``conf_int("coef")`` use the pairs
    bootstrap (its refits repeat the check) and refuse ``method="wald"``,
    the interval MLE's information,
    which is not the variance of the two-stage estimate.

    References
    ----------
    J. Ding and B. Ding, "Interval Privacy: A Framework for Data Collection",
    Algorithm 1 and Remark 4.

    H. White, "Maximum likelihood estimation of misspecified models",
    Econometrica 50(1), 1982.

    Q. H. Vuong, "Likelihood ratio tests for model selection and non-nested
    hypotheses", Econometrica 57(2), 1989.

    A. Buja, L. Brown, R. Berk, E. George, E. Pitkin, M. Traskin, K. Zhang
    and L. Zhao, "Models as approximations I: consequences illustrated with
    linear regression", Statistical Science 34(4), 2019.

    R. Varadhan and C. Roland, "Simple and globally convergent methods for
    accelerating the convergence of any EM algorithm", Scandinavian Journal
    of Statistics 35(2), 2008 (SQUAREM).

    Examples
    --------
    >>> import numpy as np
    >>> from skprivate.interval import IntervalCaseI, IterativeIntervalRegressor
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(500, 1))
    >>> y = 2 * X[:, 0] + rng.normal(size=500)
    >>> Z = IntervalCaseI(scale=3.0, random_state=0).fit_transform(y[:, None])
    >>> reg = IterativeIntervalRegressor(max_iter=200).fit(X, Z)
    >>> reg.converged_, bool(abs(reg.estimator_.coef_[0] - 2.0) < 0.3)
    (True, True)
    """

    _parameter_constraints: ClassVar[dict[str, list]] = {
        "estimator": [HasMethods(["fit", "predict"]), None],
        "noise": [Options({"gaussian", "logistic"})],
        "sigma": [Options({"auto"}), Interval(numbers.Real, 0, None, closed="neither")],
        "max_iter": [
            Interval(numbers.Integral, 1, None, closed="left"),
            Options({"auto"}),
        ],
        "tol": [Interval(numbers.Real, 0, None, closed="left"), None],
        "acceleration": [Options({"squarem"}), None],
        "init": [
            Options({"auto", "constant", "boosting"}),
            HasMethods(["fit", "predict"]),
        ],
        "warm_start": ["boolean", Interval(numbers.Integral, 1, None, closed="left")],
        "privatizer": [HasMethods(["fit_transform"]), None],
        "random_state": ["random_state"],
        "verbose": [Interval(numbers.Integral, 0, None, closed="left"), "boolean"],
    }

    def __init__(
        self,
        estimator: Any = None,
        noise: str = "gaussian",
        sigma: str | float = "auto",
        max_iter: int | str = "auto",
        tol: float | None = 1e-4,
        acceleration: str | None = "squarem",
        init: Any = "auto",
        warm_start: bool | int = False,
        privatizer: Any = None,
        random_state: Any = None,
        verbose: int = 0,
    ) -> None:
        self.estimator = estimator
        self.noise = noise
        self.sigma = sigma
        self.max_iter = max_iter
        self.tol = tol
        self.acceleration = acceleration
        self.init = init
        self.warm_start = warm_start
        self.privatizer = privatizer
        self.random_state = random_state
        self.verbose = verbose

    def fit(self, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None = None):
        """Fit the base regressor on interval responses.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Clean features, passed to the base regressor unchanged.
        y : array-like of shape (n_samples, 2) or (n_samples,)
            Interval responses ``[lower, upper]`` (``±inf`` allowed; equal
            bounds for exact values; a 1-D array is exact values).  With
            ``privatizer`` set: the raw 1-D responses.
        sample_weight : array-like of shape (n_samples,), optional
            Passed to the base regressor and used in the scale update.
            Multiplying every weight by the same constant changes no fit
            of ``LinearRegression`` (nor any start, check or scale update,
            which use the weights relative to their mean); it multiplies
            ``log_likelihood_`` by that constant.

        Returns
        -------
        self : object
        """
        # Raw records (y too, with a privatizer) reach the checks, the
        # privatizer and every fit of the base regressor: no error quotes them.
        with raw_values_withheld():
            return self._fit_records(X, y, sample_weight)

    def _fit_records(self, X: Any, y: Any, sample_weight: Any):
        check_in_memory(self, X)  # iterations over all the records
        self._check_params()
        self._ci_forget_fit_data()
        est = self._make_estimator()
        Z = self._responses(y)
        all_exact = self._check_samples(X, Z)
        n = Z.shape[0]
        w = check_weights(sample_weight, n)
        # Every use of the weights here is relative (weighted means, scores
        # per unit weight, least squares): scaled to a mean of 1 once, so
        # that weights of 1e-100 or 1e160 neither over- nor underflow in
        # sums of squares or in LightGBM's float32 weights.  The base
        # regressor still gets sample_weight as given, except exactly
        # LinearRegression (Newton's path), where only ratios count.
        w, weight_unit = _unit_mean_weights(w)
        check_base_features(est, X)
        underdetermined = check_rows_for_linear_base(est, X, Z)
        fit_params = {} if sample_weight is None else {"sample_weight": sample_weight}
        linear_params = {} if sample_weight is None else {"sample_weight": w}
        # The marginal fit only places the start (the fixed point does not
        # depend on it); on large samples every k-th row is enough, where the
        # full fit would cost more than a dozen refits of a linear model.
        linear = not self.warm_start and LinearSmoother.applies(est, X, fit_params)
        self.init_ = self._resolve_init(est, linear, X)
        # For a LightGBM base, init="auto" picks the start by the held-out
        # likelihood of both (below); either start is not
        # linear, so the Newton path and the marginal subsample do not depend
        # on that choice.
        constant_start = isinstance(self.init_, str) and self.init_ == "constant"
        use_newton = (
            linear
            and constant_start
            and type(est) is LinearRegression
            and not underdetermined
            and self.noise == "gaussian"
            and self.acceleration == "squarem"
            and self.tol is not None
            and self.tol > 0
        )
        # Newton's method converges from any start in a few passes: a rough
        # one from fewer rows is enough.
        step = max(1, n // (_START_ROWS_NEWTON if use_newton else _START_ROWS))
        loc, scale = _marginal_start(Z, w, step, self.noise)
        sigma = scale if self.sigma == "auto" else float(self.sigma)
        if self.sigma == "auto":
            warn_if_scale_unidentified(Z, scale)
        self.history_, self.sigma_history_ = [], []
        state = EMState(np.full(n, loc), sigma, None, np.inf)
        if self.max_iter == "auto":
            self._budget = _AUTO_MAX_ITER_LINEAR if linear else _AUTO_MAX_ITER
        else:
            self._budget = self.max_iter
        self.start_information_ = None
        self.start_scores_ = None
        if self._auto_tree:
            self.start_information_ = self._information(state.f, Z, sigma, w)
            self.start_scores_ = self._select_start(est, X, Z, w, state, fit_params)
            scores = self.start_scores_
            if scores is None or not scores["boosting"] > scores["constant"]:
                self.init_ = "constant"
                self._auto_boosted = False
                constant_start = True

        one_fit = self.max_iter != "auto" and self.max_iter < 2
        project = (
            use_newton
            and isinstance(self.init, str)
            and self.init == "auto"
            and self.sigma == "auto"
            and not one_fit
            # Exact responses only: the MLE is least squares already.
            and not all_exact
            and importlib.util.find_spec("lightgbm") is not None
        )
        self.projection_ = None
        solved = None
        with one_blas_thread():  # (products with p columns)
            if use_newton:
                solved = self._newton(est, X, Z, w, state, linear_params)
            self.solver_ = "newton" if solved is not None else None
            if solved is not None and project:
                solved = self._project(est, X, Z, w, state, solved, linear_params)
        if solved is not None:
            fitter = None
        elif self.warm_start:
            fitter = WarmStarter(est, self.warm_start).fit_predict
        else:
            # LinearRegression/Ridge: each refit is one cached solve.
            fitter = make_refitter(est, X, fit_params)

        if not constant_start:
            state = self._boosted_start(est, X, Z, state, w, fit_params)
        # tol=None, and the automatic budget of init="auto" with a LightGBM
        # base: a fixed number of fits, never "converged" (tree refits do not
        # settle below tol).
        fixed_budget = self.tol is None or (self._auto_tree and self.max_iter == "auto")
        tol = -np.inf if fixed_budget else self.tol
        if solved is not None:
            state = solved
        else:
            state = self._iterate(X, Z, w, state, fitter, fit_params, tol)
        # A Newton solve stops at its own step criterion (below min(tol,
        # 1e-6) sigma, its remaining error about the square of that); the
        # projection is one least-squares fit.
        self.converged_ = bool(state.change < tol) or self.solver_ in (
            "newton",
            "projection",
        )
        self.n_iter_ = len(self.history_)
        self.sigma_ = state.sigma
        finalize = getattr(fitter, "finalize", None)
        self.estimator_ = (
            state.estimator if finalize is None else finalize(state.estimator)
        )
        if self.solver_ == "newton" and np.isfinite(state.ll_from):
            ll = state.ll_from
        else:
            ll = log_likelihood(state, Z, self.noise, w)
        # (weighted by sample_weight as given)
        self.log_likelihood_ = ll * weight_unit
        if hasattr(self.estimator_, "feature_names_in_"):
            self.feature_names_in_ = self.estimator_.feature_names_in_
        if not self.converged_ and not fixed_budget:
            hint = (
                " Tree ensembles never settle below a few percent of sigma: "
                "tol=None runs exactly max_iter fits without this warning"
            )
            if constant_start:
                hint += (
                    ", and on wide intervals (information fraction below 0.3) "
                    "init='boosting' gets further in as many fits"
                )
            hint += "."
            warn_once(
                # Same text for every fit (the last change is in history_): shown
                # once per process by default, not once per CV fold.
                f"IterativeIntervalRegressor did not converge in max_iter="
                f"{self._budget} iterations (tol={self.tol:g} sigma; the changes "
                f"are in history_); increase max_iter or tol.{hint}",
                ConvergenceWarning,
            )
        # conf_int then checks that its X is these features, and carries the
        # weights (a method that cannot use them refuses a weighted fit)
        self._ci_remember_fit_data(self._ci_fit_data_form(X), sample_weight)
        return self

    def _ci_fit_data_form(self, X: Any) -> Any:
        """The features as numbers (as the intervals read them), else as given.

        A sparse matrix is put in one canonical form (CSR, float, sorted
        indices, duplicates summed), whose fingerprint is that of its entries.
        """
        if sparse.issparse(X):
            canonical = sparse.csr_array(X, dtype=float)
            canonical.sum_duplicates()
            canonical.sort_indices()
            return canonical
        try:
            return np.asarray(X, dtype=float)
        except (TypeError, ValueError):  # features a base regressor encodes
            return np.asarray(X)

    def _newton(
        self,
        est: Any,
        X: Any,
        Z: NDArray,
        w: NDArray,
        start: EMState,
        fit_params: dict,
    ) -> EMState | None:
        # Gaussian noise and exactly LinearRegression: the fixed point of
        # Algorithm 1 is the interval-regression MLE, found by Newton's
        # method; the model is then one real fit on the imputations there
        # (whose least-squares solution is that MLE).  None on failure.
        features = X  # as given, so the final fit keeps its column names
        X = np.asarray(X, dtype=float)
        known = None if self.sigma == "auto" else float(self.sigma)
        intercept = bool(est.fit_intercept)
        # Newton's method runs on the response in units centred and scaled
        # by a pilot fit (exact for a linear model, see ResponseFrame): in
        # raw units a response far from zero on the scale of its noise
        # leaves the problem too ill-conditioned for the step.
        frame = ResponseFrame(X, Z[:, 0], Z[:, 1], w, intercept)
        lower, upper = frame.bounds(Z[:, 0], Z[:, 1])
        known_new = None if known is None else known / frame.scale
        model = CensoredNormal(X, lower, upper, w, intercept, sigma=known_new)
        step_tol = max(min(_NEWTON_STEP_TOL, float(self.tol)), 1e-12)
        # (the constant start, in the new units)
        loc, sigma = float(start.f[0]), start.sigma
        constant = frame.constant_start(model, loc, sigma)
        max_passes = min(self._budget, _NEWTON_MAX_PASSES)
        first = None
        n = X.shape[0]
        if n >= _NEWTON_SUBSAMPLE_FROM:
            rough = None
            for rows in _NEWTON_PRESOLVE_ROWS, _NEWTON_SUBSAMPLE_ROWS:
                k = max(1, n // rows)
                sub = CensoredNormal(
                    X[::k], lower[::k], upper[::k], w[::k], intercept, sigma=known_new
                )
                if rough is None:
                    at = frame.constant_start(sub, loc, sigma)
                else:
                    at = sub.params_for(rough.coef, rough.intercept, rough.sigma)
                rough = newton_interval_mle(
                    sub, loc, sigma, max_passes, _NEWTON_SUBSAMPLE_TOL, at, impute=False
                )
            # On failure (e.g. a degenerate subsample) the full solve starts
            # from the constant fit.
            if rough is not None:
                first = model.params_for(rough.coef, rough.intercept, rough.sigma)
        result = newton_interval_mle(
            model,
            loc,
            sigma,
            max_passes=max_passes,
            step_tol=step_tol,
            start=constant if first is None else first,
        )
        if result is None and first is not None:
            result = newton_interval_mle(
                model,
                loc,
                sigma,
                max_passes=max_passes,
                step_tol=step_tol,
                start=constant,
            )
        if result is None:
            return None
        if not np.isfinite(result.log_likelihood):
            # (narrow cells, taken for exact values by the model: the
            # likelihood of the cells as they are, in the new units, where
            # the residuals do not lose the digits of a large response)
            result = result._replace(
                log_likelihood=interval_log_likelihood(
                    lower, upper, result.fitted, "gaussian", result.sigma, w
                )
            )
        exact = Z[:, 0] == Z[:, 1]
        result = frame.restore(result, float(w[exact].sum()))
        if known is not None:
            result = result._replace(sigma=known)
        sigma = result.sigma
        final = clone(est).fit(features, result.imputed, **fit_params)
        self.history_.extend(result.changes)
        self.sigma_history_.extend(result.sigmas)
        if self.verbose:
            print(
                f"[IterativeIntervalRegressor] Newton: {len(result.changes)} steps, "
                f"{result.n_passes} likelihood passes, sigma={sigma:.4g}"
            )
        change = result.changes[-1] / sigma if result.changes else 0.0
        # The log-likelihood of the last pass (nan with narrow cells, whose
        # density stood in for the cell probability: computed afresh).
        return EMState(result.fitted, sigma, final, change, result.log_likelihood)

    def _iterate(
        self,
        X: Any,
        Z: NDArray,
        w: NDArray,
        state: EMState,
        fitter: Any,
        fit_params: dict,
        tol: float,
    ) -> EMState:
        # Algorithm 1 from ``state``: SQUAREM with cached linear solves, SQUAREM
        # with a likelihood safeguard, or the plain iteration (see _em).
        auto = self.sigma == "auto"
        em_map = make_em_map(
            X,
            Z,
            w,
            self.noise,
            auto,
            fitter,
            fit_params,
            self.history_,
            self.sigma_history_,
            self.verbose,
        )
        history, budget = self.history_, self._budget
        if self.acceleration == "squarem" and isinstance(fitter, LinearSmoother):
            self.solver_ = "squarem"
            return squarem_cached(em_map, state, auto, tol, budget, history)
        if self.acceleration == "squarem" and not self.warm_start:
            self.solver_ = "squarem"
            return squarem(em_map, state, Z, w, self.noise, auto, tol, budget, history)
        self.solver_ = "em"
        return plain_em(em_map, state, tol, budget, history)

    def predict(self, X: ArrayLike) -> NDArray[np.float64]:
        """Predict with the last fitted base regressor.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Clean features.

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        check_is_fitted(self)
        return base_predict(self.estimator_, X)

    def score(
        self, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None = None
    ) -> float:
        """Interval R² of the predictions (the usual R² for exact ``y``).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Clean features.
        y : array-like of shape (n_samples, 2) or (n_samples,)
            Interval or exact responses (clean responses when scoring a
            model trained with ``privatizer``).
        sample_weight : array-like of shape (n_samples,), optional
            Weights.

        Returns
        -------
        float
            See :func:`interval_r2_score`.
        """
        with raw_values_withheld():  # clean records: no error quotes them
            return interval_r2_score(y, self.predict(X), sample_weight=sample_weight)

    @property
    def n_features_in_(self) -> int:
        """Number of features seen by the base regressor."""
        try:
            check_is_fitted(self)
        except NotFittedError as exc:
            raise AttributeError(
                f"{type(self).__name__} object has no n_features_in_ attribute."
            ) from exc
        return self.estimator_.n_features_in_

    def __sklearn_is_fitted__(self) -> bool:
        return hasattr(self, "estimator_")

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        base = get_tags(self._get_estimator())
        tags.input_tags.sparse = base.input_tags.sparse
        tags.input_tags.allow_nan = base.input_tags.allow_nan
        tags.input_tags.categorical = base.input_tags.categorical
        tags.input_tags.string = base.input_tags.string
        return tags
