"""Fixtures of the integral family's tests."""

from __future__ import annotations

import pytest

from tests._scripted_generator import pass_scripted_generators_through


@pytest.fixture(autouse=True)
def _scripted_draws(monkeypatch):
    """A :class:`~tests._scripted_generator.ScriptedGenerator` given as
    ``random_state`` is the release's generator (its draws pin formulas);
    every other ``random_state`` is seeded as the library seeds it."""
    pass_scripted_generators_through(monkeypatch)
