"""``privacy_report``: the privacy guarantee of a fitted estimator, column by column."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from sklearn.exceptions import NotFittedError
from sklearn.utils.validation import check_is_fitted

from ._inspect import _COLUMNS, _Col, _input_cols, _join
from ._released import no_privatizer_hint
from ._rowwise import RowwiseTransformer
from ._total import _audited_total, _total_row
from ._walker import _Walker

__all__ = ["RowwiseTransformer", "privacy_report"]


def privacy_report(estimator: Any) -> pd.DataFrame:
    """The privacy guarantee of a fitted estimator, one row per released column.

    Walks ``estimator`` and reads the ``privacy_summary()`` of every fitted
    privatizer it holds: a privatizer itself, the steps of a
    :class:`~sklearn.pipeline.Pipeline`, the branches (and the
    ``remainder``) of a :class:`~sklearn.compose.ColumnTransformer` with
    their columns, the branches of a :class:`~sklearn.pipeline.FeatureUnion`,
    the ``privatizer_`` of a learner fitted with ``privatizer=``, the fitted
    members of ensembles and meta-estimators (``estimators_``,
    ``estimator_``, ``regressor_``, ...), and the ``best_estimator_`` of a
    fitted search.

    A member fitted once per record (voting, multi-output, one-vs-rest,
    chains, ``SelectFromModel``) keeps its rows as they are; bagging and
    :class:`~sklearn.feature_selection.RFE` multiply them by the fits each
    record went through (RFE: ``max(ranking_)``, one per elimination round
    and one on the columns kept).  A meta-estimator that refits clones a
    number of times its fitted state does not tell (``RANSACRegressor``,
    ``RFECV``, ``SelfTrainingClassifier``, ...), and the base regressor of
    :class:`~skprivate.IterativeIntervalRegressor`, refitted and predicted
    with at every iteration, have rows with ``epsilon = NaN`` and a note
    saying so: no finite budget is claimed for them.  A feature selector
    that also predicts (RFE) passes the raw columns it keeps to a next
    step.

    An estimator fitted on reports released elsewhere, described by the
    privatizer that released them
    (``FrequencyEstimator(oracle=...)``,
    ``LongitudinalFrequencyEstimator(oracle=...)``,
    ``SubsetDistributionEstimator(design=...)``, without ``privatizer=``),
    privatizes nothing: it only post-processes the reports.  Its rows are
    those of the release, the rows ``privacy_report`` gives for that
    privatizer on its own (its columns, mechanism and epsilon), each noted
    as the release the estimator reads at no further privacy cost.  An
    unfitted ``oracle=`` or ``design=`` (as a search's clone leaves it) is
    read from a clone fitted on the categories the estimator read the
    reports with, as its fit rebuilt it.  Reports privatized by a step
    before the estimator are counted once, at that step.

    Every column that leaves without a privatizer is a row too, with
    ``epsilon = inf``: a ``"passthrough"`` branch or ``remainder``
    (mechanism ``"raw (passthrough)"``), a transformer that is not a
    privatizer fitted on raw columns (mechanism: its class name), raw
    columns that reach a learner, and the response ``y`` of a supervised
    learner that privatizes only ``X`` (mechanism ``"raw (response)"``).
    Only :class:`~skprivate.IterativeIntervalRegressor` privatizes ``y``
    (its ``X`` reaches its base regressor raw).

    A privatizer keeps its epsilon only when every step before it computes
    a record's output from that record alone.  Any other step before a
    privatizer (an arbitrary ``FunctionTransformer``, an unknown
    transformer, anything fitted on the raw values such as
    ``StandardScaler``) gets a row with ``epsilon = inf`` and the note "not
    certified: this step may let one record change other records' released
    values".  The steps that keep the epsilon are the identity
    (``FunctionTransformer()``), ``Normalizer``, ``Binarizer``,
    ``PolynomialFeatures``, ``SplineTransformer`` with knots given as an
    array, ``OneHotEncoder`` and ``OrdinalEncoder`` with ``categories``
    given and no grouping of rare categories (exact classes; their fitted
    state follows from their parameters and the column count), and any step
    declared with :class:`~skprivate.RowwiseTransformer` that learned
    nothing from the records in ``fit`` beyond the column count and names.
    Steps after a privatizer only see released values (post-processing) and
    cost nothing; the same rule holds for the response of
    :class:`~sklearn.compose.TransformedTargetRegressor` before a
    privatizer of ``y``.

    Parameters
    ----------
    estimator : estimator
        A fitted privatizer, pipeline, column transformer, feature union,
        learner, ensemble or search.

    Returns
    -------
    report : pandas.DataFrame
        Columns ``column``, ``mechanism``, ``notion``, ``epsilon``,
        ``delta``, ``coverage``, ``leakage``, ``bounds``,
        ``bounds_from_data``, ``floating_point_safe`` (on the total row,
        whether every privatizer that states it is; one with
        ``secure=False`` makes it False, which the note then says),
        ``reproducible`` (True for a seeded privatizer: its releases are for
        simulation, not for release; on the total row, whether any
        privatizer is seeded, which its note then says) and ``note``, then
        (appended, so the columns above keep their positions) ``coverage_reference``,
        ``exact_disclosure``, ``audited_epsilon``, ``audited_delta`` and
        ``categories_from_data`` (True when a
        categorical privatizer read its categories from the data, which
        its note then says are published; NaN for other privatizers).

        For a coverage notion, ``coverage`` is an expectation under a
        reference law, an assumption named in ``coverage_reference`` (for
        interval privacy ``N(anchor_loc, anchor_scale^2)`` with its
        values); the report holds no figure of the fitted data (the
        privatizer warns at ``fit`` when the data are covered far less).
        ``exact_disclosure`` is True when some values leave exactly: a raw
        channel, or a design that
        reports any value as it is (an interval design's
        ``acceptable_range`` or ``exact_cells``), however small its share,
        since a record whose value falls there is released raw; bounds or
        categories read from the data (``bounds_from_data``,
        ``categories_from_data``), which publish the raw extremes or every
        value present; a subset privatizer's ``handle_unknown="ignore"``,
        whose all-zero block says a value is unknown.  Such a privatizer
        row has ``epsilon = inf``.  It is False for a finite epsilon and NaN
        when the privatizer does not say.  A claim made only for some
        inputs (RVNS's paper placement, away from the bounds) is reported
        at every input (``epsilon_every_input`` of its summary).

        The last row, ``total``, is the
        guarantee of one record over all its columns by sequential
        composition: the epsilons (and deltas) of
        every privatizer applied to the record add up, including several
        privatizers applied to the same column (feature-union branches, the
        members of an ensemble, each fitted with its own privatizer, and
        repeated releases, which multiply a row's budget and are named in
        its note).  A column without any guarantee (raw, not certified, or
        released exactly) makes the total ``inf`` whatever the other columns
        have, and the note names those columns.  Otherwise coverage notions
        (interval or subset privacy), which do not compose this way, make
        the total epsilon NaN and the note says why.  Each further release of
        the same record (another ``transform`` call) spends the total again.

        For a search, the rows are those of ``best_estimator_``, the model
        a deployment would use; ``report.attrs["releases_per_record"]``
        and the note of the total say how many times the search privatized
        each record (``n_candidates x`` training folds per record, plus the
        held-out folds a privatizing transform sees when scoring, plus one
        refit).  With ``refit=False`` there is no fitted model (a
        ``best_estimator_`` left from an earlier fit with ``refit=True`` is
        not read: it is not the model of the last fit): the rows are
        those of one candidate, read from the ``epsilon`` and ``delta``
        parameters of its privatizers (one with a raw channel first, then
        the largest epsilon, then the largest delta), and every column that
        another candidate releases raw or uncertified gets its row too, with
        a note naming the candidates that do.  The search also keeps its
        scores (``cv_results_``, ``best_score_``, and the choice of
        ``best_params_``): when they were computed from raw values (the raw
        response, a model that predicts at raw inputs, or a scorer given as
        code), a ``"search scores"`` row with ``epsilon = inf`` names them,
        and the total is ``inf``; ``privacy_report(search.best_estimator_)``
        states the guarantee of the model alone.

    Raises
    ------
    sklearn.exceptions.NotFittedError
        If ``estimator`` is not fitted (composites, ensembles and searches
        included: the report reads their fitted members).
    ValueError
        If ``estimator`` holds no privatizer (its input cannot be told raw
        from already privatized), if a privatizer's settings changed
        with ``set_params`` since it was fitted, or if the ``oracle=`` or
        ``design=`` of an estimator fitted on released reports is not the
        mechanism it was fitted with (changed or refitted since).

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> from sklearn.compose import ColumnTransformer
    >>> from skprivate import LaplaceLDP, SquareWaveLDP, privacy_report
    >>> X = np.column_stack([np.linspace(18, 90, 20), np.linspace(0, 1, 20)])
    >>> ct = ColumnTransformer(
    ...     [
    ...         ("age", LaplaceLDP(epsilon=1, bounds=(18, 90)), [0]),
    ...         ("share", SquareWaveLDP(epsilon=2, bounds=(0, 1)), [1]),
    ...     ]
    ... ).fit(X)
    >>> report = privacy_report(ct)
    >>> report[["column", "mechanism", "epsilon"]]
      column      mechanism  epsilon
    0      0     LaplaceLDP      1.0
    1      1  SquareWaveLDP      2.0
    2  total                     3.0

    A column left to ``remainder="passthrough"`` is released raw:

    >>> df = pd.DataFrame({"age": X[:, 0], "zip": np.arange(20) + 10000.0})
    >>> ct = ColumnTransformer(
    ...     [("age", LaplaceLDP(epsilon=1, bounds=(18, 90)), ["age"])],
    ...     remainder="passthrough",
    ... ).fit(df)
    >>> report = privacy_report(ct)
    >>> report[["column", "mechanism", "epsilon"]]
      column          mechanism  epsilon
    0    age         LaplaceLDP      1.0
    1    zip  raw (passthrough)      inf
    2  total                         inf
    """
    if not callable(getattr(estimator, "get_params", None)):
        raise TypeError(
            "estimator must be a fitted scikit-learn estimator (a privatizer, "
            f"pipeline, learner or search); got {type(estimator).__name__}."
        )
    try:
        check_is_fitted(estimator)
    except NotFittedError:
        # raised here, not in the except clause: scikit-learn's message is
        # replaced, not chained
        fitted = False
    else:
        fitted = True
    if not fitted:
        raise NotFittedError(
            f"privacy_report reads what a fitted estimator released; this "
            f"{type(estimator).__name__} is not fitted. Fit it first (the "
            "report states the guarantees of the privatizers as fitted)."
        )
    walker = _Walker()
    out = walker.walk(estimator, _input_cols(estimator), _Col("y"))
    for col in out:
        if col.raw and not col.flagged and not col.prediction:
            walker.flag_col(col, None)
    if walker.n_privatizers == 0:
        raise ValueError(
            "estimator holds no fitted privatizer, so whether its input was raw "
            "or already privatized cannot be told: expected a fitted privatizer "
            "or a composite, learner, ensemble or search holding one; got "
            f"{type(estimator).__name__}.{no_privatizer_hint(estimator)}"
        )
    rows = walker.rows + list(walker.raw.values())
    report = pd.DataFrame(rows).reindex(columns=_COLUMNS)
    for col in ("epsilon", "delta", "audited_epsilon", "audited_delta"):
        report[col] = report[col].astype(float)
    total = _total_row(walker.rows, walker.raw)
    total.update(_audited_total(walker.rows, total))
    if walker.releases:
        n = sum(count for count, _ in walker.releases)
        hows = "; ".join(how for _, how in walker.releases)
        total["note"] = _join(
            total["note"],
            f"in this simulation each record was privatized up to {n} times "
            f"({hows}); a real deployment privatizes each record once",
        )
    seeded = [
        r["reproducible"]
        for r in walker.rows
        if isinstance(r.get("reproducible"), bool)
    ]
    if seeded:
        # a seeded privatizer's noise is a function of its random_state: the
        # record's guarantee assumes the seed is as secret as the noise
        total["reproducible"] = any(seeded)
        if any(seeded):
            total["note"] = _join(
                total["note"],
                "seeded (reproducible) privatizers: whoever holds random_state "
                "and the other records replays their noise; for simulation, "
                "not for release",
            )
    safe = [
        bool(r["floating_point_safe"])
        for r in walker.rows
        if isinstance(r.get("floating_point_safe"), bool | np.bool_)
    ]
    if safe:
        # one continuous sampler (secure=False) is enough for the record's
        # release to carry input-dependent rounding
        total["floating_point_safe"] = all(safe)
        if not all(safe):
            total["note"] = _join(
                total["note"],
                "not floating-point safe: a privatizer with secure=False draws "
                "continuous noise, whose rounding depends on the input; its "
                "epsilon holds in exact arithmetic only",
            )
    total.update(column="total", mechanism="", notion="")
    report = pd.concat([report, pd.DataFrame([total])], ignore_index=True)
    if walker.releases:
        report.attrs["releases_per_record"] = n
    return report
