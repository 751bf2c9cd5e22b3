"""Generators that script their draws, and the seam that lets them through.

An integral release never draws its noise from the ``random_state`` it is
given: :func:`skprivate.integral._release_seed.release_generator` draws
entropy from a ``Generator`` and mixes it with the release's settings and
data into a new generator (so copies of one generator releasing two batches
draw independent noise).  Tests that pin exact formulas script the draws of
a :class:`ScriptedGenerator`; :func:`pass_scripted_generators_through`
patches the modules that call ``release_generator`` so that such an instance
is the release's generator itself, while every other ``random_state`` goes
to the real ``release_generator``.  The library has no such exception: the
seam lives here, in the tests.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from skprivate.integral import _dp, _statistics
from skprivate.integral._release_seed import release_generator

__all__ = ["ScriptedGenerator", "pass_scripted_generators_through"]

# (module, name under which it calls release_generator)
CALL_SITES = ((_dp, "_release_generator"), (_statistics, "release_generator"))


class ScriptedGenerator(np.random.Generator):
    """A generator whose draws a test scripts or records (subclass it)."""


def _scripted_or_released(random_state: Any, settings: Any, data: Any):
    """A scripted generator as given; anything else as the library seeds it."""
    if isinstance(random_state, ScriptedGenerator):
        return random_state
    return release_generator(random_state, settings, data)


def pass_scripted_generators_through(monkeypatch) -> None:
    """Let a :class:`ScriptedGenerator` be the generator of an integral release."""
    for module, name in CALL_SITES:
        assert getattr(module, name) is release_generator, (module, name)
        monkeypatch.setattr(module, name, _scripted_or_released)
