"""The frequency oracles of one column: sampler, support, realised law.

An oracle object is the public description of how one categorical column
(categories coded ``0..k-1``) is released: what :meth:`sample` draws,
which categories a report supports, and the realised probabilities its
estimators and exact law use.  Every oracle here is *pure* (Wang et al.,
2017): a report supports a set of categories, the respondent's own with
probability ``p*`` and any other with probability ``q*``, so that

    f_hat(v) = (C(v) / n - q*) / (p* - q*)

is unbiased, with variance
``[f_v p* (1 - p*) + (1 - f_v) q* (1 - q*)] / (n (p* - q*)**2)``.  Given
the respondent's category ``x``, a report's probability is a base weight
times ``rho`` when ``x`` is in its support and times 1 otherwise, which is
what the iterative Bayesian update needs.

All probabilities are the realised dyadic ones of :mod:`._coins`.

References
----------
T. Wang, J. Blocki, N. Li and S. Jha, "Locally Differentially Private
Protocols for Frequency Estimation", USENIX Security 2017.
J. Acharya, Z. Sun and H. Zhang, "Hadamard Response: Estimating
Distributions Privately, Efficiently, and with Little Communication",
AISTATS 2019.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ._coins import (
    COIN_SCALE,
    draw_coins,
    keep_numerator,
    log_prob,
    unary_numerators,
)
from ._hashing import (
    MAX_CATEGORIES,
    collision_probability,
    hash_prime,
    hash_values,
    n_seeds,
)

__all__ = ["ORACLE_KINDS", "make_oracle"]

ORACLE_KINDS = ("krr", "sue", "oue", "olh", "blh", "hr")
#: Largest table (inputs x outputs) an exact law enumerates in full.
MAX_LAW_CELLS = 1 << 21
#: Largest number of buckets of optimized local hashing.
MAX_BUCKETS = 1 << 24


def _parity(x: NDArray[np.int64]) -> NDArray[np.int64]:
    """Parity of the set bits of non-negative int64 values."""
    x = np.asarray(x, dtype=np.int64).copy()
    for shift in (32, 16, 8, 4, 2, 1):
        x ^= x >> shift
    return x & 1


class _Oracle:
    """Shared parts; subclasses set the sampler, support and levels."""

    kind = ""
    name = ""

    def __init__(self, n_categories: int, epsilon: float) -> None:
        self.n_categories = int(n_categories)
        self.epsilon = float(epsilon)

    # -- what subclasses define ------------------------------------------
    n_outputs = 1
    p_star = 0.0
    q_star = 0.0
    log_rho = 0.0

    def output_names(self, feature: str, categories: list[str]) -> list[str]:
        return [feature]

    def sample(self, codes: NDArray[np.int64], rng: np.random.Generator) -> NDArray:
        raise NotImplementedError  # pragma: no cover

    def output_limits(self) -> list[int]:
        """Exclusive upper limit of each report column (lower limit 0)."""
        raise NotImplementedError  # pragma: no cover

    def support(self, reports: NDArray[np.int64]) -> NDArray[np.bool_]:
        raise NotImplementedError  # pragma: no cover

    def full_table(self, categories: list[str]) -> tuple[NDArray, list[str]] | None:
        raise NotImplementedError  # pragma: no cover

    def log_base(self, reports: NDArray[np.int64]) -> NDArray[np.float64]:
        """``log P(report | x)`` for a category ``x`` outside its support.

        A report's probability given ``x`` is this base times ``rho`` when
        ``x`` is in its support.
        """
        raise NotImplementedError  # pragma: no cover

    def pair_table(self) -> tuple[NDArray, list[str]]:
        raise NotImplementedError  # pragma: no cover

    # -- shared -------------------------------------------------------------
    @property
    def realised_epsilon(self) -> float:
        """Exact worst-case loss of the realised law (at most ``epsilon``)."""
        return float(self.log_rho)

    def variance(self, frequencies: Any, n_samples: int) -> NDArray[np.float64]:
        """Closed-form variance of the unbiased estimate of each frequency."""
        f = np.asarray(frequencies, dtype=float)
        p, q = self.p_star, self.q_star
        num = f * p * (1 - p) + (1 - f) * q * (1 - q)
        return num / (n_samples * (p - q) ** 2)

    def summary(self) -> dict[str, Any]:
        return {
            "oracle": self.kind,
            "oracle_name": self.name,
            "n_categories": self.n_categories,
            "epsilon": self.epsilon,
            "realised_epsilon": self.realised_epsilon,
            "p_star": self.p_star,
            "q_star": self.q_star,
        }


class GeneralizedRR(_Oracle):
    """k-RR: keep the category with probability ``p``, else another uniformly."""

    kind, name = "krr", "generalized randomized response (k-RR)"

    def __init__(self, n_categories: int, epsilon: float) -> None:
        super().__init__(n_categories, epsilon)
        k = self.n_categories
        self.keep = keep_numerator(epsilon, k - 1)
        self.p_star = self.keep / COIN_SCALE
        self.q_star = (COIN_SCALE - self.keep) / (COIN_SCALE * (k - 1))
        self._log_p = log_prob(self.keep)
        self._log_q = log_prob(COIN_SCALE - self.keep) - math.log(k - 1)
        self.log_rho = self._log_p - self._log_q

    def output_limits(self) -> list[int]:
        return [self.n_categories]

    def sample(self, codes, rng):
        keep = draw_coins(rng, np.full(codes.shape, self.keep, dtype=np.int64))
        other = rng.integers(0, self.n_categories - 1, size=codes.shape)
        other = other + (other >= codes)
        return np.where(keep, codes, other)[:, None]

    def support(self, reports):
        return reports[:, :1] == np.arange(self.n_categories)[None, :]

    def log_base(self, reports):
        return np.full(reports.shape[0], self._log_q)

    def full_table(self, categories):
        k = self.n_categories
        if k * k > MAX_LAW_CELLS:
            return None
        table = np.full((k, k), self._log_q)
        np.fill_diagonal(table, self._log_p)
        return table, list(categories)

    def pair_table(self):
        lp, lq = self._log_p, self._log_q
        rows = [[lp, lq], [lq, lp]]
        labels = ["the first category", "the second category"]
        if self.n_categories > 2:
            rest = math.log(self.n_categories - 2) + lq
            rows.append([rest, rest])
            labels.append("any other category")
        return np.array(rows).T, labels


class UnaryEncoding(_Oracle):
    """SUE / OUE: one bit per category, each flipped independently."""

    def __init__(self, n_categories: int, epsilon: float, symmetric: bool) -> None:
        super().__init__(n_categories, epsilon)
        self.symmetric = bool(symmetric)
        self.kind = "sue" if symmetric else "oue"
        self.name = (
            "symmetric unary encoding (SUE)"
            if symmetric
            else "optimized unary encoding (OUE)"
        )
        self.own, self.other = unary_numerators(epsilon, symmetric)
        self.p_star = self.own / COIN_SCALE
        self.q_star = self.other / COIN_SCALE
        # log P(bit) for (own bit, other bit) x (bit 0, bit 1)
        self._levels = np.array(
            [
                [log_prob(COIN_SCALE - self.own), log_prob(self.own)],
                [log_prob(COIN_SCALE - self.other), log_prob(self.other)],
            ]
        )
        self.log_rho = float(
            self._levels[0, 1]
            + self._levels[1, 0]
            - self._levels[1, 1]
            - self._levels[0, 0]
        )

    @property
    def n_outputs(self) -> int:
        return self.n_categories

    def output_names(self, feature, categories):
        return [f"{feature}={c}" for c in categories]

    def output_limits(self) -> list[int]:
        return [2] * self.n_categories

    def sample(self, codes, rng):
        n, k = codes.size, self.n_categories
        thresholds = np.full((n, k), self.other, dtype=np.int64)
        thresholds[np.arange(n), codes] = self.own
        return draw_coins(rng, thresholds).astype(np.int64)

    def support(self, reports):
        return reports.astype(bool)

    def log_base(self, reports):
        # every bit at its "other" level, but x's own bit 0 at its own level
        on = reports.sum(axis=1)
        others = on * self._levels[1, 1] + (self.n_categories - on) * self._levels[1, 0]
        return others + self._levels[0, 0] - self._levels[1, 0]

    def full_table(self, categories):
        k = self.n_categories
        if k * 2**k > MAX_LAW_CELLS:
            return None
        outputs = (np.arange(2**k)[:, None] >> np.arange(k)[None, :]) & 1
        other = self._levels[1][outputs].sum(axis=1)  # every bit an "other" bit
        table = np.empty((k, 2**k))
        for x in range(k):
            bit = outputs[:, x]
            table[x] = other - self._levels[1][bit] + self._levels[0][bit]
        labels = [
            "{" + ", ".join(str(categories[j]) for j in np.flatnonzero(row)) + "}"
            for row in outputs
        ]
        return table, labels

    def pair_table(self):
        own, oth = self._levels
        cols, labels = [], []
        for b0 in (0, 1):
            for b1 in (0, 1):
                cols.append([own[b0] + oth[b1], oth[b0] + own[b1]])
                labels.append(
                    f"first category's bit {b0}, second's {b1} (other bits alike)"
                )
        return np.array(cols).T, labels


class LocalHashing(_Oracle):
    """OLH / BLH: hash to ``g`` buckets with a public seed, then ``g``-RR."""

    def __init__(self, n_categories: int, epsilon: float, optimal: bool) -> None:
        super().__init__(n_categories, epsilon)
        if self.n_categories > MAX_CATEGORIES:
            raise ValueError(
                f"local hashing takes at most {MAX_CATEGORIES} categories; got "
                f"{self.n_categories}."
            )
        self.kind = "olh" if optimal else "blh"
        self.name = (
            "optimized local hashing (OLH)" if optimal else "binary local hashing (BLH)"
        )
        if optimal:
            g = round(math.exp(min(epsilon, 40.0))) + 1
            self.n_buckets = min(max(g, 2), MAX_BUCKETS)
        else:
            self.n_buckets = 2
        g = self.n_buckets
        self.prime = hash_prime(self.n_categories, g)
        self.n_seeds = n_seeds(self.prime)
        self.keep = keep_numerator(epsilon, g - 1)
        self.collision = collision_probability(self.prime, g)
        p = self.keep / COIN_SCALE
        q = (COIN_SCALE - self.keep) / (COIN_SCALE * (g - 1))
        c = float(self.collision)
        self.p_star = p
        self.q_star = q + (p - q) * c
        self._log_p = log_prob(self.keep)
        self._log_q = log_prob(COIN_SCALE - self.keep) - math.log(g - 1)
        self.log_rho = self._log_p - self._log_q

    @property
    def n_outputs(self) -> int:
        return 2

    def output_names(self, feature, categories):
        return [f"{feature}_seed", f"{feature}_hash"]

    def output_limits(self) -> list[int]:
        return [self.n_seeds, self.n_buckets]

    def summary(self):
        return {
            **super().summary(),
            "n_buckets": self.n_buckets,
            "hash_prime": self.prime,
            "hash_family": "((a x + b) mod P) mod g, a = 1 + seed // P, b = seed % P",
        }

    def sample(self, codes, rng):
        seeds = rng.integers(0, self.n_seeds, size=codes.shape, dtype=np.int64)
        hashed = hash_values(seeds, codes, self.prime, self.n_buckets)
        keep = draw_coins(rng, np.full(codes.shape, self.keep, dtype=np.int64))
        other = rng.integers(0, self.n_buckets - 1, size=codes.shape)
        other = other + (other >= hashed)
        return np.column_stack([seeds, np.where(keep, hashed, other)])

    def support(self, reports):
        cats = np.arange(self.n_categories, dtype=np.int64)[None, :]
        hashed = hash_values(reports[:, :1], cats, self.prime, self.n_buckets)
        return hashed == reports[:, 1:2]

    def log_base(self, reports):
        return np.full(reports.shape[0], self._log_q - math.log(self.n_seeds))

    def full_table(self, categories):
        k, g, m = self.n_categories, self.n_buckets, self.n_seeds
        if k * m * g > MAX_LAW_CELLS:
            return None
        seeds = np.repeat(np.arange(m, dtype=np.int64), g)
        values = np.tile(np.arange(g, dtype=np.int64), m)
        hit = self.support(np.column_stack([seeds, values])).T  # (k, m g)
        table = np.where(hit, self._log_p, self._log_q) - math.log(m)
        labels = [f"seed {s}, hash {v}" for s, v in zip(seeds, values)]
        return table, labels

    def pair_table(self):
        c = float(self.collision)
        lp, lq, g = self._log_p, self._log_q, self.n_buckets
        cols, labels = [], []

        def add(first: float, second: float, label: str) -> None:
            cols.append([first, second])
            labels.append(label)

        if c > 0:
            log_c = math.log(c)
            add(log_c + lp, log_c + lp, "seeds hashing both alike; the shared hash")
            rest = log_c + log_prob(COIN_SCALE - self.keep)
            add(rest, rest, "seeds hashing both alike; another hash")
        log_apart = math.log1p(-c)
        add(log_apart + lp, log_apart + lq, "seeds hashing them apart; first's hash")
        add(log_apart + lq, log_apart + lp, "seeds hashing them apart; second's hash")
        if g > 2:
            rest = log_apart + math.log(g - 2) + lq
            add(rest, rest, "seeds hashing them apart; a third hash")
        return np.array(cols).T, labels


class HadamardResponse(_Oracle):
    """Hadamard response: report an index in the row's +1 half or its complement."""

    kind, name = "hr", "Hadamard response (HR)"

    def __init__(self, n_categories: int, epsilon: float) -> None:
        super().__init__(n_categories, epsilon)
        self.size = 1 << self.n_categories.bit_length()  # smallest power of 2 > k
        self.keep = keep_numerator(epsilon, 1)
        self.p_star = self.keep / COIN_SCALE
        self.q_star = 0.5
        self._log_in = log_prob(self.keep) + math.log(2.0 / self.size)
        self._log_out = log_prob(COIN_SCALE - self.keep) + math.log(2.0 / self.size)
        self.log_rho = self._log_in - self._log_out

    def output_names(self, feature, categories):
        return [f"{feature}_hadamard"]

    def output_limits(self) -> list[int]:
        return [self.size]

    def summary(self):
        return {**super().summary(), "hadamard_size": self.size}

    def sample(self, codes, rng):
        rows = codes.astype(np.int64) + 1
        index = rng.integers(0, self.size, size=codes.shape, dtype=np.int64)
        inside = draw_coins(rng, np.full(codes.shape, self.keep, dtype=np.int64))
        now_inside = _parity(rows & index) == 0
        flip = rows & -rows  # lowest set bit: a bijection between the halves
        return np.where(inside == now_inside, index, index ^ flip)[:, None]

    def support(self, reports):
        rows = np.arange(1, self.n_categories + 1, dtype=np.int64)[None, :]
        return _parity(rows & reports[:, :1]) == 0

    def log_base(self, reports):
        return np.full(reports.shape[0], self._log_out)

    def full_table(self, categories):
        k, size = self.n_categories, self.size
        if k * size > MAX_LAW_CELLS:
            return None
        hit = self.support(np.arange(size, dtype=np.int64)[:, None]).T
        table = np.where(hit, self._log_in, self._log_out)
        return table, [f"index {j}" for j in range(size)]

    def pair_table(self):
        quarter = math.log(self.size / 4.0)
        i, o = self._log_in + quarter, self._log_out + quarter
        labels = [
            "indices in both rows' halves",
            "indices in the first row's half only",
            "indices in the second row's half only",
            "indices in neither half",
        ]
        return np.array([[i, i], [i, o], [o, i], [o, o]]).T, labels


def make_oracle(kind: str, n_categories: int, epsilon: float) -> _Oracle:
    """The oracle ``kind`` for ``n_categories`` categories at ``epsilon``."""
    if kind == "krr":
        return GeneralizedRR(n_categories, epsilon)
    if kind in ("sue", "oue"):
        return UnaryEncoding(n_categories, epsilon, symmetric=kind == "sue")
    if kind in ("olh", "blh"):
        return LocalHashing(n_categories, epsilon, optimal=kind == "olh")
    if kind == "hr":
        return HadamardResponse(n_categories, epsilon)
    raise ValueError(f"oracle must be one of {list(ORACLE_KINDS)}; got {kind!r}.")


def choose_oracle(n_categories: int, epsilon: float) -> str:
    """k-RR when its variance is the smaller (``k < 3 e**epsilon + 2``), else OUE."""
    return "krr" if n_categories < 3.0 * math.exp(min(epsilon, 700.0)) + 2.0 else "oue"
