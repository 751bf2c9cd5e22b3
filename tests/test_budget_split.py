"""A record's budget split over its columns, at the edges of floating point."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from skprivate import (
    FlippedHuberLDP,
    GeneralizedGaussianLDP,
    GeneralizedRandomizedResponse,
    LaplaceLDP,
    SquareWaveLDP,
    audit,
)
from skprivate.utils._budget import budget_share

_X = np.random.default_rng(0).uniform(0, 1, (40, 5))


@pytest.mark.parametrize("total", [1.0, 0.3, 5.0, 2.0**-1074, 1e300])
@pytest.mark.parametrize("q", [1, 3, 5, 7, 10])
def test_the_shares_never_sum_above_the_budget(total, q):
    share = budget_share(total, q)
    assert Fraction(share) * q <= Fraction(total)
    # the largest such double: one step up overspends
    above = float(np.nextafter(share, np.inf))
    assert Fraction(above) * q > Fraction(total) or share == total / q


def test_shares_of_exact_cases():
    assert budget_share(1.0, 4) == 0.25
    assert budget_share(1.0, 1) == 1.0
    assert budget_share(0.0, 3) == 0.0
    # 1.0 / 5 rounds up to 0.2000000000000000111; the share is one step below
    assert budget_share(1.0, 5) == float(np.nextafter(0.2, 0.0))
    # a float16 budget is divided in double precision, not in its own
    assert budget_share(np.float16(5.0), 3) == budget_share(5.0, 3)


@pytest.mark.parametrize("epsilon", [np.float16(5.0), np.float32(1.0), 1.0])
def test_laplace_columns_compose_to_at_most_the_budget(epsilon):
    """The audited losses of the columns add to at most epsilon, exactly."""
    p = LaplaceLDP(epsilon=epsilon, bounds=(0, 1)).fit(_X)
    assert p.privacy_summary()["epsilon_per_feature"] == float(epsilon) / 5
    table = audit(p)
    assert table["respected"].all()
    spent = sum(Fraction(float(v)) for v in table["audited_epsilon"])
    assert spent <= Fraction(float(epsilon))


@pytest.mark.parametrize(
    "privatizer",
    [
        LaplaceLDP(epsilon=Fraction(1, 2), bounds=(0, 1)),
        GeneralizedRandomizedResponse(epsilon=Fraction(1, 2), categories=[[0, 1]]),
    ],
    ids=["LaplaceLDP", "GeneralizedRandomizedResponse"],
)
def test_a_fraction_budget_is_read_as_its_float(privatizer):
    X = _X[:, :1] if isinstance(privatizer, LaplaceLDP) else (_X[:, :1] > 0.5) * 1
    privatizer.fit(X)
    assert privatizer.privacy_summary()["epsilon"] == 0.5


@pytest.mark.parametrize("cls", [GeneralizedGaussianLDP, FlippedHuberLDP])
def test_a_share_that_underflows_is_refused(cls):
    p = cls(epsilon=5e-324, delta=1e-3, bounds=(0, 1))
    with pytest.raises(ValueError, match="underflows to 0 in double precision"):
        p.fit(_X[:, :2])


def test_square_wave_refuses_a_share_below_its_coins_margin():
    """Below 1e-9 per column its rounding margin outweighed e**eps - 1."""
    with pytest.raises(ValueError) as info:
        SquareWaveLDP(epsilon=1e-12, bounds=(0, 1)).fit(_X[:, :1])
    assert str(info.value) == (
        "epsilon per column is 1e-12 over 1 columns; SquareWaveLDP's exact coin "
        "is set up for at least 1e-09 per column."
    )
    with pytest.raises(ValueError, match="is 5e-10 over 2 columns"):
        SquareWaveLDP(epsilon=1e-9, bounds=(0, 1)).fit(_X[:, :2])
    p = SquareWaveLDP(epsilon=1e-9, bounds=(0, 1)).fit(_X[:, :1])
    assert audit(p)["respected"].all()


def test_audit_checks_the_columns_add_up_to_the_record_claim(monkeypatch):
    """Each column within its share, the shares above the record: not respected."""
    p = LaplaceLDP(epsilon=1.0, bounds=(0, 1)).fit(_X[:, :3])
    table = audit(p)
    assert table.attrs["record_respected"] is True
    assert table.attrs["record_claimed_epsilon"] == 1.0
    spent = sum(Fraction(float(v)) for v in table["audited_epsilon"])
    assert table.attrs["record_audited_epsilon"] == float(spent)
    summary = p.privacy_summary()
    claimed = {**summary, "epsilon": float(spent) - 1e-6}
    methods = table["method"].tolist()
    monkeypatch.setattr(p, "privacy_summary", lambda: claimed)
    table = audit(p)
    assert table.attrs["record_respected"] is False
    assert table["respected"].tolist() == [False, False, False]
    why = (
        f"; the columns' audited losses add to {float(spent)!r}, above the "
        f"record's claimed epsilon {float(spent) - 1e-6!r}"
    )
    assert table["method"].tolist() == [m + why for m in methods]
    # a claim with a delta is not added up here
    monkeypatch.setattr(p, "privacy_summary", lambda: {**claimed, "delta": 1e-9})
    assert "record_respected" not in audit(p).attrs


@pytest.mark.parametrize("cls", [GeneralizedGaussianLDP, FlippedHuberLDP])
def test_a_delta_share_that_underflows_is_refused_in_full(cls):
    p = cls(epsilon=1.0, delta=5e-324, bounds=(0, 1))
    with pytest.raises(ValueError) as info:
        p.fit(_X[:, :2])
    assert str(info.value) == (
        "delta=5e-324 over 2 columns leaves each column a budget that underflows "
        "to 0 in double precision; give a larger delta or fewer columns."
    )
    p = cls(epsilon=5e-324, delta=1e-3, bounds=(0, 1))
    with pytest.raises(ValueError) as info:
        p.fit(_X[:, :2])
    assert str(info.value).startswith("epsilon=5e-324 over 2 columns leaves each")
