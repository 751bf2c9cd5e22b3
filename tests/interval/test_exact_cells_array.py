"""exact_cells given as a numpy array is a declaration of exact cells.

``np.array([0])`` has the truth value of its one entry (cell 0 read as
"no cell"): the summary and the report said nothing was released exactly
while a third of the reports were the raw values.
"""

from __future__ import annotations

import numpy as np
import pytest

from skprivate import IntervalEnsemble, IntervalMechanism, privacy_report

_Y = np.random.default_rng(0).normal(size=(400, 1))


@pytest.mark.parametrize("cells", [np.array([0]), np.array([0, 2]), [0], (0,)])
def test_exact_cells_of_any_container_are_disclosed(cells):
    mech = IntervalMechanism(n_anchors=2, exact_cells=cells, random_state=0).fit(_Y)
    Z = mech.transform(_Y)
    exact = np.mean(Z[:, 0] == Z[:, 1])
    assert exact > 0.2
    assert mech.privacy_summary()["exact_disclosure"] is True
    report = privacy_report(mech)
    assert bool(report["exact_disclosure"].iloc[0]) is True
    assert report["epsilon"].iloc[-1] == np.inf


def test_no_exact_cell_is_no_disclosure():
    for cells in (None, np.array([], dtype=int)):
        mech = IntervalMechanism(n_anchors=2, exact_cells=cells).fit(_Y)
        assert mech.privacy_summary()["exact_disclosure"] is False


def test_an_ensemble_keeps_its_members_array_cells():
    member = IntervalMechanism(n_anchors=2, exact_cells=np.array([0]))
    ensemble = IntervalEnsemble([member, IntervalMechanism(n_anchors=3)]).fit(_Y)
    assert ensemble.exact_cells == [0]
    assert ensemble.privacy_summary()["exact_disclosure"] is True
