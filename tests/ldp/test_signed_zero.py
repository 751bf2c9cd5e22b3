"""No release carries a sign of zero that depends on the input.

``-0.0`` and ``+0.0`` are the same real number but not the same output:
``np.signbit``, ``repr`` and a CSV file tell them apart.  An output that one
input can give and another cannot makes the loss infinite, whatever the
law of the real values says (and ``audit``, which reads real values, would
agree with the claim).
"""

import numpy as np
import pytest

from skprivate import LaplaceLDP, RVNSPerturber
from skprivate.ldp import FlippedHuberLDP, GeneralizedGaussianLDP, SquareWaveLDP


class _Draws:
    """Stand-in generator: every ``standard_exponential`` call returns the
    pair ``(e1, e2)`` in its last axis, so the Laplace noise in grid steps is
    ``(e1 - e2) * scale_ / grid_step_`` (both are values numpy's sampler can
    return; the event they stand for has positive probability)."""

    def __init__(self, e1, e2):
        self.e1, self.e2 = e1, e2

    def standard_exponential(self, size=None):
        out = np.empty(size)
        out[..., 0] = self.e1
        out[..., 1] = self.e2
        return out


def _release(model, x, draws):
    model._next_generator = lambda data=None: draws  # the call's generator
    return model.transform(np.array([[x]]))[0, 0]


def test_laplace_grid_release_never_carries_the_sign_of_a_zero_input():
    """LaplaceLDP(secure=True) leaks the sign of an input near zero.

    Where: ``skprivate.ldp._laplace.LaplaceLDP._secure_noise``.  The grid
    index is ``k = clip(rint(x / g), k_lo, k_hi)``; for any ``x`` in
    ``[-g/2, 0]`` (``-0.0`` included, and e.g. ``-1e-9`` with bounds
    ``(-1, 1)``) ``rint`` returns ``-0.0``.  When the rounded noise is a
    negative value that rounds to ``-0.0`` (Laplace noise in
    ``[-1/2, 0)`` grid steps, probability about ``1 / (4 s)`` per value),
    ``k + n = -0.0 + -0.0 = -0.0`` and the release is ``-0.0 * g = -0.0``.
    An input in ``(0, g/2]`` gives ``+0.0`` with the same draws, and no draw
    ever makes it release ``-0.0`` (``+0.0 + -0.0 = +0.0``; ``m + (-m) =
    +0.0``).  The release ``-0.0`` (visible with ``np.signbit``, ``repr``,
    ``str``, a CSV file) therefore has positive probability for ``x =
    -1e-9`` and probability 0 for ``x = +1e-9``: the realised loss is
    infinite, while ``privacy_summary``/``privacy_report`` state
    ``epsilon = 1`` and ``floating_point_safe = True``, and ``audit``
    (which compares real values, ``-0.0 == 0.0``) agrees with the claim.
    The correct figure is the claimed epsilon only if the grid output is
    canonicalised (``k + 0.0`` after the noise is added, or the release
    written as ``(k + n) * g + 0.0``) so that no output carries a sign of
    zero that depends on the input.
    """
    model = LaplaceLDP(epsilon=1.0, bounds=(-1.0, 1.0)).fit(np.zeros((2, 1)))
    assert model.privacy_summary()["floating_point_safe"] is True
    # noise of -2**-30 in exponential units: a tiny negative number of grid
    # steps that rounds to -0.0
    draws = _Draws(1.0, 1.0 + 2.0**-30)
    below = _release(model, -1e-9, draws)
    above = _release(model, 1e-9, draws)
    assert below == 0.0 and above == 0.0  # the same real value ...
    # ... but the bit patterns differ: one input's output is impossible
    # from the other input
    assert np.signbit(below) == np.signbit(above), (
        "x=-1e-9 released -0.0, an output x=+1e-9 can never produce"
    )


@pytest.mark.parametrize(
    "make",
    [
        lambda: LaplaceLDP(epsilon=1.0, bounds=(-1.0, 1.0)),
        lambda: LaplaceLDP(epsilon=1.0, bounds=(-0.0, 1.0)),
        lambda: SquareWaveLDP(epsilon=1.0, bounds=(-1.0, 1.0)),
        lambda: GeneralizedGaussianLDP(epsilon=1.0, delta=1e-6, bounds=(-1.0, 1.0)),
        lambda: FlippedHuberLDP(epsilon=1.0, delta=1e-6, bounds=(-1.0, 1.0)),
        lambda: RVNSPerturber(d=0.5, k=2, bounds=(-1.0, 1.0)),
    ],
    ids=["laplace", "laplace-from-minus-zero", "square-wave", "gg", "fh", "rvns"],
)
def test_no_grid_release_is_a_negative_zero(make):
    """Inputs at and around zero, many draws: every zero released is +0.0."""
    X = np.repeat([[-0.0], [0.0], [-1e-300], [1e-300], [-1e-9]], 4000, axis=0)
    model = make().fit(np.zeros((2, 1)))
    out = model.transform(X)
    assert not np.any((out == 0) & np.signbit(out))
