"""The noise generator of one integral release."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..base import _check_random_state_value, _seed_words
from ..utils._seeding import canonical, data_fingerprint, words

__all__ = ["release_generator"]


def release_generator(random_state: Any, settings: Any, data: Any):
    """The noise generator of one release, never a stream a copy can carry.

    Parameters
    ----------
    random_state : None, int, Generator or RandomState
        ``None`` is fresh OS entropy.  A ``Generator`` or ``RandomState`` is
        a source of entropy, not the noise stream: four words are drawn from
        it (so it advances, and two calls with it never share noise) and
        mixed with ``settings`` and a fingerprint of ``data``, as
        privatizers mix them, so copies of one generator (``copy``,
        ``pickle``) that release two batches draw independent noise, and
        the difference of the releases never reveals the difference of the
        true statistics.  An int seed is for simulation: every 64-bit word
        of it (an int of ``2**64`` or more enters in full) is mixed with the
        settings and the data, so the same seed on another batch (or for
        another statistic of the same batch) draws other noise, and the
        same seed, settings and data reproduce the release.  A negative int
        is refused.
    settings : object
        What the release is, read by :func:`~skprivate.utils._seeding.canonical`.
    data : object
        What the release reads, read by
        :func:`~skprivate.utils._seeding.data_fingerprint`.

    Returns
    -------
    numpy.random.Generator
        A new generator, never ``random_state`` itself.

    Raises
    ------
    ValueError
        If ``random_state`` is a negative int or none of the accepted kinds.
    """
    _check_random_state_value(random_state)
    if random_state is None:
        return np.random.default_rng()
    entropy = [
        *_seed_words(random_state),
        *words(data_fingerprint((canonical(settings), data))),
    ]
    return np.random.default_rng(np.random.SeedSequence(entropy))
