"""Subset designs: the public description of a subset-privacy mechanism.

A design says how a respondent with category ``j`` turns it into a random
subset ``A`` that contains ``j``.  Internally a subset of the ``p`` true
categories is a bitmask (an ``int``; bit ``j`` set when ``j`` is in it);
externally it is a 0/1 indicator row.

With dummy categories (Appendices B and C of the paper) the output domain has
``p + 2`` columns: the ``p`` true categories followed by two dummies.  Every
output then contains exactly one dummy, the dummies carry mass ``alpha``
each, and the true categories ``(1 - 2 alpha) w``.  Writing ``s = 1 - 2 alpha``
and ``t = alpha``, the population share of an output ``a ∪ {d}`` is
``L(a) = s 1_aᵀw + t``, and the ``p``-part ``a`` has probability
``mu_a L(a)``: the dummy column is independent of everything else given
``a``.  All estimators therefore work on the ``p``-part with this affine
``L``; ``s = 1, t = 0`` without dummies.
"""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..utils import Interval, check_generator, validate_params

__all__ = ["SubsetDesign"]

# Designs given subset by subset are enumerated; 2**20 subsets is the limit.
MAX_ENUMERATED = 20
# Bitmask keys are int64: up to 62 categories.
MAX_BITMASK = 62


def masks_to_indicators(masks: NDArray, p: int) -> NDArray[np.bool_]:
    """Bitmasks ``(m,)`` to a boolean indicator matrix ``(m, p)``."""
    masks = np.asarray(masks, dtype=np.int64)
    return ((masks[:, None] >> np.arange(p, dtype=np.int64)) & 1).astype(bool)


def indicators_to_masks(ind: NDArray) -> NDArray[np.int64]:
    """Boolean indicator matrix ``(m, p)`` (``p <= 62``) to bitmasks."""
    ind = np.asarray(ind)
    weights = np.left_shift(np.int64(1), np.arange(ind.shape[1], dtype=np.int64))
    return ind.astype(np.int64) @ weights


def popcount(masks: NDArray) -> NDArray[np.int64]:
    """Number of set bits of each int64 bitmask."""
    m = np.asarray(masks, dtype=np.uint64).copy()
    count = np.zeros(m.shape, dtype=np.int64)
    while np.any(m):
        count += (m & np.uint64(1)).astype(np.int64)
        m >>= np.uint64(1)
    return count


def uniform_ratio(p: int) -> float:
    """``r_p`` of the uniform design: ``Q_ij = 1 / r_p`` off the diagonal."""
    return (2.0 ** (p - 1) - p - 1) / (2.0 ** (p - 2) - p + 1)


def _check_probabilities_vector(probabilities: ArrayLike, m: int) -> NDArray:
    prob = np.asarray(probabilities, dtype=float)
    if prob.shape != (m,):
        raise ValueError(
            f"probabilities must have one entry per subset ({m}); got shape "
            f"{prob.shape}."
        )
    if not np.all(np.isfinite(prob)) or np.any(prob < 0):
        bad = int(np.flatnonzero(~np.isfinite(prob) | (prob < 0))[0])
        raise ValueError(
            f"probabilities must be finite and non-negative; entry {bad} is "
            f"{float(prob[bad])!r}."
        )
    return prob


def _check_subsets(subsets: ArrayLike) -> NDArray[np.bool_]:
    sub = np.asarray(subsets)
    if sub.ndim != 2 or sub.shape[0] == 0:
        raise ValueError(
            "subsets must be a non-empty 0/1 indicator matrix of shape "
            f"(n_subsets, n_categories); got shape {sub.shape}."
        )
    if not np.all((sub == 0) | (sub == 1)):
        row = int(np.flatnonzero(~np.all((sub == 0) | (sub == 1), axis=1))[0])
        raise ValueError(f"subsets must contain only 0 and 1; row {row} does not.")
    p = sub.shape[1]
    if p < 2:
        raise ValueError(
            f"A subset design needs at least 2 categories; got n_categories={p}."
        )
    if p > MAX_ENUMERATED:
        raise ValueError(
            f"subsets can be listed for at most {MAX_ENUMERATED} categories; got "
            f"{p}. Use SubsetDesign.uniform for more categories."
        )
    return sub.astype(bool)


class SubsetDesign:
    """Public description of a subset-privacy mechanism (Definitions 2–4).

    Build designs with the class methods :meth:`uniform`,
    :meth:`independent` and :meth:`conditional`; the constructor is not
    meant to be called directly.  A design is validated when built: its
    probabilities sum to one, forbidden subset sizes carry no mass, and the
    design is identifiable (Assumption 1: the matrix ``Q`` with
    ``Q_ij = P(i ∈ A | X = j)`` is positive definite).

    Parameters
    ----------
    n_categories : int
        Number ``p`` of true categories.
    kind : {"uniform", "independent", "conditional"}
        How the design was specified.
    masks : ndarray of int64 or None
        Bitmasks of the subsets of ``[p]`` with positive conditional
        probability (``None`` for a uniform design too large to enumerate).
    mu : ndarray or None
        Conditional probabilities ``mu_a`` aligned with ``masks``.
    nu : ndarray or None
        Independent probabilities ``nu_a`` aligned with ``masks`` (independent
        and uniform designs only).
    min_coverage : float or None
        ``alpha`` of the dummy-category extension, or ``None`` without dummies.

    Attributes
    ----------
    n_categories : int
        Number of true categories ``p``.
    n_outputs : int
        Number of indicator columns of a report (``p``, or ``p + 2`` with
        dummy categories).
    has_dummies : bool
        Whether the design uses the two dummy categories.

    References
    ----------
    Wang, G. and Ding, J. "Subset Privacy: Draw from an Obfuscated Urn",
    Definitions 2–4, Appendices B and C.

    Examples
    --------
    >>> from skprivate.subset import SubsetDesign
    >>> design = SubsetDesign.uniform(4)
    >>> design.q_matrix().round(3)
    array([[1.   , 0.333, 0.333, 0.333],
           [0.333, 1.   , 0.333, 0.333],
           [0.333, 0.333, 1.   , 0.333],
           [0.333, 0.333, 0.333, 1.   ]])
    >>> SubsetDesign.uniform(2, min_coverage=0.1).n_outputs
    4
    """

    def __init__(
        self,
        n_categories: int,
        kind: str,
        masks: NDArray | None,
        mu: NDArray | None,
        nu: NDArray | None = None,
        min_coverage: float | None = None,
    ) -> None:
        self.n_categories = int(n_categories)
        self.kind = kind
        self._masks = masks
        self._mu = mu
        self._nu = nu
        self.min_coverage = min_coverage

    # ------------------------------------------------------------------ build
    @classmethod
    def uniform(cls, n_categories: int, min_coverage: float | None = None):
        """The uniform independent design (Definition 4).

        Parameters
        ----------
        n_categories : int
            Number of categories ``p``.  With ``p >= 4``, ``nu`` is uniform
            over the subsets of size ``2..p-2``.  With ``p`` in ``{2, 3}``,
            ``nu`` is uniform over the subsets of size ``1..p-1`` and dummy
            categories are required (Appendix C), so ``min_coverage`` must
            be given.
        min_coverage : float in (0, 0.5) or None
            ``alpha``: adds the two dummy categories of Appendix B, so that
            every report covers at least ``alpha`` of the population.

        Returns
        -------
        design : SubsetDesign
        """
        p = _check_n_categories(n_categories)
        alpha = _check_alpha(min_coverage)
        if p < 4 and alpha is None:
            raise ValueError(
                f"A uniform design on n_categories={p} < 4 categories needs the "
                "dummy categories of Appendix C: pass min_coverage (e.g. 0.05)."
            )
        lo, hi = (2, p - 2) if p >= 4 else (1, p - 1)
        if p > MAX_ENUMERATED:
            return cls(p, "uniform", None, None, None, alpha)
        masks = np.arange(1 << p, dtype=np.int64)
        size = popcount(masks)
        masks = masks[(size >= lo) & (size <= hi)]
        nu = np.full(masks.size, 1.0 / masks.size)
        return cls(p, "uniform", masks, 2.0 * nu, nu, alpha)

    @classmethod
    def independent(
        cls,
        subsets: ArrayLike,
        probabilities: ArrayLike,
        min_coverage: float | None = None,
    ):
        """An independent design ``nu`` (Definition 3).

        A respondent is shown a subset ``Ã`` drawn from ``nu`` and reports
        ``Ã`` if their category is in it, its complement otherwise.

        Parameters
        ----------
        subsets : array-like of shape (m, p)
            0/1 indicator rows of the subsets with positive probability.
        probabilities : array-like of shape (m,)
            ``nu_a``; must sum to one.  Subsets of size 0, 1, ``p - 1`` and
            ``p`` are forbidden (sizes 1 and ``p - 1`` are allowed with dummy
            categories, as in Appendix C).
        min_coverage : float in (0, 0.5) or None
            ``alpha`` of the dummy extension (Appendix B); requires the
            symmetry ``nu_a = nu_{aᶜ}``.

        Returns
        -------
        design : SubsetDesign
        """
        sub = _check_subsets(subsets)
        p = sub.shape[1]
        alpha = _check_alpha(min_coverage)
        nu = _check_probabilities_vector(probabilities, sub.shape[0])
        _check_sum(nu, "probabilities")
        masks = indicators_to_masks(sub)
        _check_distinct(masks)
        size = sub.sum(axis=1)
        forbidden = (size == 0) | (size == p)
        if alpha is None:
            forbidden |= (size == 1) | (size == p - 1)
        bad = np.flatnonzero(forbidden & (nu > 0))
        if bad.size:
            raise ValueError(
                f"subsets row {int(bad[0])} has size {int(size[bad[0]])}, which an "
                f"independent design on {p} categories may not use (sizes 0, 1, "
                f"p-1 and p are forbidden{'' if alpha is None else ' except 1 and p-1'}"
                "); its probability must be 0."
            )
        full = (1 << p) - 1
        order = np.argsort(masks)
        masks, nu = masks[order], nu[order]
        comp = full ^ masks
        pos = np.searchsorted(masks, comp)
        found = (pos < masks.size) & (masks[np.minimum(pos, masks.size - 1)] == comp)
        nu_comp = np.where(found, nu[np.minimum(pos, masks.size - 1)], 0.0)
        if alpha is not None and not np.allclose(nu, nu_comp, atol=1e-12):
            raise ValueError(
                "min_coverage (the dummy categories of Appendix B) requires a "
                "symmetric design: probabilities of a subset and of its "
                "complement must be equal."
            )
        # mu_a = nu_a + nu_{a^c}; complements absent from the list get mu too.
        all_masks = np.union1d(masks, comp[nu_comp == 0])
        mu = np.zeros(all_masks.size)
        np.add.at(mu, np.searchsorted(all_masks, masks), nu)
        np.add.at(mu, np.searchsorted(all_masks, comp), nu)
        nu_all = np.zeros(all_masks.size)
        nu_all[np.searchsorted(all_masks, masks)] = nu
        keep = mu > 0
        design = cls(p, "independent", all_masks[keep], mu[keep], nu_all[keep], alpha)
        design._check_identifiable()
        return design

    @classmethod
    def conditional(cls, subsets: ArrayLike, probabilities: ArrayLike):
        """A conditional design ``mu`` (Definition 2).

        ``P(A = a | X = j) = mu_a 1{j ∈ a}``.

        Parameters
        ----------
        subsets : array-like of shape (m, p)
            0/1 indicator rows of the subsets with positive probability.
        probabilities : array-like of shape (m,)
            ``mu_a``; for every category ``j`` the ``mu_a`` of the subsets
            containing ``j`` must sum to one, and subsets of size below 2
            are forbidden.

        Returns
        -------
        design : SubsetDesign
        """
        sub = _check_subsets(subsets)
        p = sub.shape[1]
        mu = _check_probabilities_vector(probabilities, sub.shape[0])
        masks = indicators_to_masks(sub)
        _check_distinct(masks)
        size = sub.sum(axis=1)
        bad = np.flatnonzero((size < 2) & (mu > 0))
        if bad.size:
            raise ValueError(
                f"subsets row {int(bad[0])} has size {int(size[bad[0]])}; a "
                "conditional design may not use subsets of size below 2."
            )
        totals = sub.T.astype(float) @ mu
        wrong = np.flatnonzero(np.abs(totals - 1.0) > 1e-8)
        if wrong.size:
            j = int(wrong[0])
            raise ValueError(
                "probabilities of the subsets containing each category must sum "
                f"to 1; for category {j} they sum to {totals[j]:.6g}."
            )
        keep = mu > 0
        order = np.argsort(masks[keep])
        design = cls(p, "conditional", masks[keep][order], mu[keep][order])
        design._check_identifiable()
        return design

    # ------------------------------------------------------------ properties
    @property
    def has_dummies(self) -> bool:
        return self.min_coverage is not None

    @property
    def n_outputs(self) -> int:
        return self.n_categories + (2 if self.has_dummies else 0)

    @property
    def is_independent(self) -> bool:
        return self.kind in ("uniform", "independent")

    @property
    def scale(self) -> float:
        """``s = 1 - 2 alpha``: share of true respondents."""
        return 1.0 - 2.0 * self.min_coverage if self.has_dummies else 1.0

    @property
    def offset(self) -> float:
        """``t = alpha``: mass of the dummy every report contains."""
        return float(self.min_coverage) if self.has_dummies else 0.0

    @property
    def enumerable(self) -> bool:
        return self._masks is not None

    def _require_enumeration(self, what: str) -> None:
        if not self.enumerable:
            raise ValueError(
                f"{what} sums over every subset; this design has "
                f"{self.n_categories} categories, more than the {MAX_ENUMERATED} "
                "that can be enumerated."
            )

    def subsets(self) -> tuple[NDArray[np.int8], NDArray[np.float64]]:
        """Subsets of the true categories with positive probability.

        Returns
        -------
        subsets : ndarray of shape (m, p)
            0/1 indicator rows.
        mu : ndarray of shape (m,)
            Their conditional probabilities ``mu_a``.
        """
        self._require_enumeration("Listing the subsets")
        return (
            masks_to_indicators(self._masks, self.n_categories).astype(np.int8),
            self._mu.copy(),
        )

    def __repr__(self) -> str:
        extra = f", min_coverage={self.min_coverage}" if self.has_dummies else ""
        return (
            f"SubsetDesign(kind={self.kind!r}, n_categories={self.n_categories}{extra})"
        )

    # ------------------------------------------------------------ matrices
    def q_matrix(self) -> NDArray[np.float64]:
        """``Q_ij = sum_{a ∋ i, j} mu_a = P(i ∈ A | X = j)`` on the true categories."""
        p = self.n_categories
        if self.kind == "uniform" and p >= 4:
            q = np.full((p, p), 1.0 / uniform_ratio(p))
            np.fill_diagonal(q, 1.0)
            return q
        self._require_enumeration("Q")
        ind = masks_to_indicators(self._masks, p).astype(float)
        return (ind * self._mu[:, None]).T @ ind

    def _check_identifiable(self) -> None:
        q = self.q_matrix()
        eig = np.linalg.eigvalsh(0.5 * (q + q.T))
        if eig[0] <= 1e-10:
            raise ValueError(
                "The design is not identifiable (Assumption 1): its matrix Q "
                f"is singular (smallest eigenvalue {eig[0]:.3g}), so the "
                "category distribution cannot be recovered from the subsets."
            )

    def mu_of(self, masks: NDArray) -> NDArray[np.float64]:
        """Conditional probability ``mu_a`` of each given subset (0 if not used)."""
        masks = np.asarray(masks, dtype=np.int64)
        p = self.n_categories
        if not self.enumerable:
            size = popcount(masks)
            ok = (size >= 2) & (size <= p - 2)
            return np.where(ok, 2.0 / (2.0**p - 2 * p - 2), 0.0)
        pos = np.clip(np.searchsorted(self._masks, masks), 0, self._masks.size - 1)
        return np.where(self._masks[pos] == masks, self._mu[pos], 0.0)

    def admissible(self, ind: NDArray[np.bool_]) -> NDArray[np.bool_]:
        """Whether each indicator row (true categories only) has ``mu_a > 0``."""
        p = self.n_categories
        if not self.enumerable:
            size = ind.sum(axis=1)
            return (size >= 2) & (size <= p - 2)
        return self.mu_of(indicators_to_masks(ind)) > 0

    def coverage(self, ind: NDArray, weights: ArrayLike) -> NDArray[np.float64]:
        """``L(a) = s 1_aᵀw + t`` of each indicator row (true categories)."""
        w = np.asarray(weights, dtype=float)
        return self.scale * (np.asarray(ind, dtype=float) @ w) + self.offset

    # ------------------------------------------------------------ sampling
    def _draw_nu(self, n: int, rng: np.random.Generator) -> NDArray[np.bool_]:
        p = self.n_categories
        if self.enumerable:
            cum = np.cumsum(self._nu)
            idx = np.searchsorted(cum, rng.random(n) * cum[-1], side="right")
            idx = np.minimum(idx, self._masks.size - 1)
            return masks_to_indicators(self._masks[idx], p)
        # Uniform over sizes 2..p-2, by rejection from uniform bit strings.
        out = rng.random((n, p)) < 0.5
        todo = np.flatnonzero(~_size_ok(out, p))
        while todo.size:
            out[todo] = rng.random((todo.size, p)) < 0.5
            todo = todo[~_size_ok(out[todo], p)]
        return out

    def draw_questions(self, n_questions: int, random_state: Any = None):
        """Draw the subsets ``Ã`` to show respondents (independent designs).

        The survey asks each respondent "is your value in Ã?"; record the
        answers with :meth:`record_answers`.

        Parameters
        ----------
        n_questions : int
            Number of respondents.
        random_state : int, Generator, RandomState or None
            Source of randomness.

        Returns
        -------
        questions : ndarray of shape (n_questions, n_categories)
            0/1 indicator rows of ``Ã``.
        """
        if not self.is_independent:
            raise ValueError(
                "Only independent designs have a question form; this design is "
                "conditional."
            )
        validate_params(
            {"n_questions": [Interval(numbers.Integral, 0, None, closed="left")]},
            {"n_questions": n_questions},
            "SubsetDesign.draw_questions",
        )
        rng = check_generator(random_state)
        return self._draw_nu(int(n_questions), rng).astype(np.int8)

    def record_answers(
        self, questions: ArrayLike, answers: ArrayLike, random_state: Any = None
    ) -> NDArray[np.int8]:
        """Turn yes/no answers into reported subsets.

        Parameters
        ----------
        questions : array-like of shape (n, n_categories)
            The subsets ``Ã`` shown (from :meth:`draw_questions`).
        answers : array-like of shape (n,)
            True when the respondent said their value is in ``Ã``.
        random_state : int, Generator, RandomState or None
            Draws the dummy category added to each report when the design
            has dummies.

        Returns
        -------
        reports : ndarray of shape (n, n_outputs)
            ``Ã`` for a "yes", its complement for a "no", plus one dummy
            column set when the design has dummies.
        """
        q = np.asarray(questions)
        if q.ndim != 2 or q.shape[1] != self.n_categories:
            raise ValueError(
                f"questions must have shape (n, {self.n_categories}); got {q.shape}."
            )
        ans = np.asarray(answers)
        if ans.shape != (q.shape[0],):
            raise ValueError(
                f"answers must have one entry per question ({q.shape[0]}); got "
                f"shape {ans.shape}."
            )
        if not np.all((ans == 0) | (ans == 1)):
            raise ValueError("answers must be booleans (True = 'my value is in Ã').")
        a = np.where(ans.astype(bool)[:, None], q.astype(bool), ~q.astype(bool))
        return self._add_dummy(a, check_generator(random_state)).astype(np.int8)

    def _add_dummy(self, a: NDArray, rng: np.random.Generator, dummy=None):
        if not self.has_dummies:
            return a
        n = a.shape[0]
        if dummy is None:
            dummy = rng.random(n) < 0.5
        d = np.zeros((n, 2), dtype=bool)
        d[np.arange(n), dummy.astype(int)] = True
        return np.hstack([a, d])

    def sample(self, codes: ArrayLike, random_state: Any = None) -> NDArray[np.bool_]:
        """Draw one report per respondent.

        Parameters
        ----------
        codes : array-like of int, shape (n,)
            Categories ``0..p-1``; with dummy categories, codes ``p`` and
            ``p + 1`` are dummy respondents (Appendix B).
        random_state : int, Generator, RandomState or None
            Source of randomness.

        Returns
        -------
        reports : ndarray of bool, shape (n, n_outputs)
            Indicator rows; each contains the respondent's code.
        """
        rng = check_generator(random_state)
        codes = np.asarray(codes, dtype=np.int64)
        p = self.n_categories
        n = codes.size
        if np.any((codes < 0) | (codes >= self.n_outputs)):
            raise ValueError(f"codes must lie in [0, {self.n_outputs}).")
        if self.is_independent:
            tilde = self._draw_nu(n, rng)
            true = codes < p
            inside = np.zeros(n, dtype=bool)
            inside[true] = tilde[np.flatnonzero(true), codes[true]]
            # Dummy respondents report Ã itself plus their dummy.
            a = np.where((inside | ~true)[:, None], tilde, ~tilde)
        else:
            a = self._sample_conditional(codes, rng)
        if not self.has_dummies:
            return a
        dummy = np.where(codes >= p, codes - p, rng.random(n) < 0.5)
        return self._add_dummy(a, rng, dummy)

    def _sample_conditional(self, codes, rng):
        p = self.n_categories
        ind = masks_to_indicators(self._masks, p)
        out = np.zeros((codes.size, p), dtype=bool)
        u = rng.random(codes.size)
        for j in range(p):
            rows = np.flatnonzero(codes == j)
            if rows.size == 0:
                continue
            cand = np.flatnonzero(ind[:, j])
            cum = np.cumsum(self._mu[cand])
            pick = np.searchsorted(cum, u[rows] * cum[-1], side="right")
            out[rows] = ind[cand[np.minimum(pick, cand.size - 1)]]
        return out


def _size_ok(bits: NDArray[np.bool_], p: int) -> NDArray[np.bool_]:
    size = bits.sum(axis=1)
    return (size >= 2) & (size <= p - 2)


def _check_n_categories(p: Any) -> int:
    if not isinstance(p, int | np.integer) or isinstance(p, bool):
        raise ValueError(f"n_categories must be an int; got {p!r}.")
    if p < 2:
        raise ValueError(
            f"Subset privacy needs at least 2 categories; got n_categories={p}."
        )
    return int(p)


def _check_alpha(alpha: Any) -> float | None:
    if alpha is None:
        return None
    if not (isinstance(alpha, float | int) and 0 < alpha < 0.5) or math.isnan(alpha):
        raise ValueError(f"min_coverage must lie in (0, 0.5); got {alpha!r}.")
    return float(alpha)


def _check_sum(prob: NDArray, name: str) -> None:
    total = float(prob.sum())
    if abs(total - 1.0) > 1e-8:
        raise ValueError(f"{name} must sum to 1; they sum to {total:.6g}.")


def _check_distinct(masks: NDArray) -> None:
    _, counts = np.unique(masks, return_counts=True)
    if np.any(counts > 1):
        raise ValueError("subsets must be distinct; a subset is listed twice.")
