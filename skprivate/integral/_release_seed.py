"""The noise generator of one integral release."""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from ..utils import check_generator
from ..utils._seeding import canonical, data_fingerprint, words

__all__ = ["release_generator"]


def release_generator(random_state: Any, settings: Any, data: Any):
    """The noise generator of one release.

    ``None`` is fresh OS entropy and a ``Generator`` or ``RandomState`` is
    used as given (it advances, so two calls never share noise).  An int
    seed is for simulation: it is mixed with the release's settings and a
    fingerprint of what it releases, so the same seed on another batch (or
    for another statistic of the same batch) draws other noise; the same
    seed, settings and data reproduce the release.
    """
    if isinstance(random_state, numbers.Integral) and not isinstance(
        random_state, bool
    ):
        check_generator(random_state)  # the int's range is checked there
        entropy = [
            int(random_state) % 2**64,
            *words(data_fingerprint((canonical(settings), data))),
        ]
        return np.random.default_rng(np.random.SeedSequence(entropy))
    return check_generator(random_state)
