"""``RowwiseTransformer``: declare that a step maps each record on its own."""

from __future__ import annotations

from typing import Any, ClassVar

from numpy.typing import ArrayLike
from sklearn.base import BaseEstimator, TransformerMixin, clone
from sklearn.preprocessing import FunctionTransformer
from sklearn.utils import get_tags
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted

from ..base import ParamsValidationMixin
from ..utils import HasMethods

__all__ = ["RowwiseTransformer"]


def _inner_has(name: str):
    def check(self: RowwiseTransformer) -> bool:
        inner = getattr(self, "transformer_", None)
        if inner is None:
            inner = self._inner()
        return hasattr(inner, name)

    return check


class RowwiseTransformer(
    ParamsValidationMixin, TransformerMixin, BaseEstimator, auto_wrap_output_keys=None
):
    """Declare that a transformer maps each record on its own.

    :func:`~skprivate.privacy_report` keeps the epsilon of a privatizer only
    when every step before it is known to compute a record's output from
    that record alone.  An arbitrary function cannot be read: the step
    ``FunctionTransformer(lambda X: 100 * X / X.max())`` divides every
    record by the largest one, so one record moves every other record's
    released value, and the report refuses it (``epsilon = inf``).  Wrap a
    step in ``RowwiseTransformer`` to state that its ``transform`` computes
    each output row from the same input row alone (``np.log1p``, a unit
    conversion, a fixed formula of a row's columns); the report then keeps
    the epsilon of the privatizer that follows it.

    The declaration covers what cannot be checked, the function itself.
    What can be checked is checked: a declared step is still refused when
    fitting taught it anything about the records.  Its fitted state may
    hold the column count and names (``n_features_in_``,
    ``feature_names_in_``) and nothing else learned (no other public
    attribute ending in ``_``, in the step or in any estimator it holds),
    unless it is one of the scikit-learn steps whose fitted state follows
    from its parameters alone (see :func:`~skprivate.privacy_report`).  A
    declared ``StandardScaler`` is refused: its ``mean_`` and ``scale_`` are
    computed from every record.

    Otherwise it is a transparent wrapper: ``fit`` fits a clone of
    ``transformer`` (``transformer_``), ``transform``, ``inverse_transform``
    and ``get_feature_names_out`` call it, and ``set_output`` is passed on.
    Parameters are reached as ``transformer__<name>``, so the declaration
    survives :func:`~sklearn.base.clone`, ``set_params``, pickling and
    :class:`~sklearn.model_selection.GridSearchCV`.

    Parameters
    ----------
    transformer : estimator or None, default=None
        The step declared row-wise, with ``fit`` and ``transform``.
        ``None`` is the identity, ``FunctionTransformer(validate=True)``.

    Attributes
    ----------
    transformer_ : estimator
        The fitted clone of ``transformer``.
    n_features_in_ : int
        Number of columns seen in ``fit`` (when ``transformer_`` has it).
    feature_names_in_ : ndarray of str
        Column names seen in ``fit`` (when ``transformer_`` has them).

    See Also
    --------
    skprivate.privacy_report : Where the declaration is read.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.preprocessing import FunctionTransformer
    >>> from skprivate import LaplaceLDP, RowwiseTransformer, privacy_report
    >>> X = np.linspace(0, 10, 50).reshape(-1, 1)
    >>> log = FunctionTransformer(np.log1p, inverse_func=np.expm1)
    >>> pipe = make_pipeline(
    ...     RowwiseTransformer(log), LaplaceLDP(epsilon=1, bounds=(0, 2.4))
    ... ).fit(X)
    >>> privacy_report(pipe)[["column", "mechanism", "epsilon"]]
      column   mechanism  epsilon
    0     x0  LaplaceLDP      1.0
    1  total                  1.0

    Undeclared, the same function is not certified:

    >>> pipe = make_pipeline(log, LaplaceLDP(epsilon=1, bounds=(0, 2.4))).fit(X)
    >>> privacy_report(pipe)[["column", "mechanism", "epsilon"]]
      column            mechanism  epsilon
    0     x0           LaplaceLDP      1.0
    1     x0  FunctionTransformer      inf
    2  total                           inf
    """

    _parameter_constraints: ClassVar[dict[str, list]] = {
        "transformer": [HasMethods(["fit", "transform"]), None],
    }

    def __init__(self, transformer: Any = None) -> None:
        self.transformer = transformer

    def _inner(self) -> Any:
        if self.transformer is None:
            return FunctionTransformer(validate=True)
        return self.transformer

    def fit(self, X: ArrayLike, y: Any = None, **fit_params: Any) -> RowwiseTransformer:
        """Fit a clone of ``transformer``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Input of the step.
        y : array-like, default=None
            Passed on to ``transformer.fit``.
        **fit_params : dict
            Passed on to ``transformer.fit``.

        Returns
        -------
        self : object
        """
        self._check_params()
        inner = clone(self._inner())
        transform = getattr(self, "_sklearn_output_config", {}).get("transform")
        if transform is not None and hasattr(inner, "set_output"):
            inner.set_output(transform=transform)
        self.transformer_ = inner.fit(X, y, **fit_params)
        for name in ("n_features_in_", "feature_names_in_"):
            if hasattr(self.transformer_, name):
                setattr(self, name, getattr(self.transformer_, name))
            elif name in vars(self):
                delattr(self, name)
        return self

    def transform(self, X: ArrayLike) -> Any:
        """Apply the fitted ``transformer_``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Input of the step.

        Returns
        -------
        X_out : array-like
            What ``transformer_.transform`` returns.
        """
        check_is_fitted(self, "transformer_")
        return self.transformer_.transform(X)

    @available_if(_inner_has("inverse_transform"))
    def inverse_transform(self, X: ArrayLike) -> Any:
        """Apply ``transformer_.inverse_transform``.

        Parameters
        ----------
        X : array-like
            Output of :meth:`transform`.

        Returns
        -------
        X_original : array-like
        """
        check_is_fitted(self, "transformer_")
        return self.transformer_.inverse_transform(X)

    @available_if(_inner_has("get_feature_names_out"))
    def get_feature_names_out(self, input_features: Any = None) -> Any:
        """Output feature names, from ``transformer_``.

        Parameters
        ----------
        input_features : array-like of str or None, default=None
            Input feature names.

        Returns
        -------
        feature_names_out : ndarray of str
        """
        check_is_fitted(self, "transformer_")
        return self.transformer_.get_feature_names_out(input_features)

    def set_output(self, *, transform: str | None = None) -> RowwiseTransformer:
        """Set the output container of the wrapped transformer.

        Parameters
        ----------
        transform : {"default", "pandas", "polars"} or None, default=None
            Passed on to the fitted ``transformer_`` (now, and at every
            later ``fit``); ``None`` leaves it unchanged.

        Returns
        -------
        self : object
        """
        if transform is None:
            return self
        # kept where clone copies it, and applied to each fitted clone
        self._sklearn_output_config = {"transform": transform}
        fitted = getattr(self, "transformer_", None)
        if hasattr(fitted, "set_output"):
            fitted.set_output(transform=transform)
        return self

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        inner = get_tags(self._inner())
        tags.input_tags = inner.input_tags
        # fit passes y on: the wrapper reads the response when its step does
        tags.target_tags = inner.target_tags
        tags.non_deterministic = inner.non_deterministic
        if inner.transformer_tags is not None and tags.transformer_tags is not None:
            tags.transformer_tags.preserves_dtype = list(
                inner.transformer_tags.preserves_dtype
            )
        return tags
