"""Paired comparison of evaluation sides: wins, losses, McNemar's exact test, headroom."""

import math

import pytest

from play2prompt.evaluation.compare import mcnemar_exact, paired, verdict


def _records(outcomes):
    return [{"id": f"q{i}", "correct": ok} for i, ok in enumerate(outcomes)]


def test_mcnemar_exact_matches_the_binomial():
    assert mcnemar_exact(0, 0) == 1.0
    assert mcnemar_exact(3, 3) == 1.0
    assert abs(mcnemar_exact(6, 0) - 2 / 64) < 1e-12          # 2 * 0.5**6
    assert abs(mcnemar_exact(1, 0) - 1.0) < 1e-12
    assert mcnemar_exact(10, 2) < 0.05 < mcnemar_exact(7, 3)


def _by_hand(wins, losses):
    """The hand-written test that scipy's binomtest replaced: 2 * P(X <= min) under B(n, 1/2),
    in exact integers."""
    n = wins + losses
    if n == 0:
        return 1.0
    return min(1.0, 2.0 * sum(math.comb(n, i) for i in range(min(wins, losses) + 1)) / 2 ** n)


def test_mcnemar_exact_gives_the_same_p_values_as_before():
    """The values published (rounded to 4 places in summaries, 3 in sweep tables) are those of
    the hand-written test; the raw floats agree to 1e-12."""
    assert mcnemar_exact(6, 0) == 0.03125 and mcnemar_exact(0, 6) == 0.03125
    assert mcnemar_exact(10, 2) == 0.03857421875 and mcnemar_exact(7, 3) == 0.34375
    assert mcnemar_exact(40, 25) == pytest.approx(0.08168153394154005, rel=1e-12)
    for wins in range(0, 61, 3):
        for losses in range(0, 61, 2):
            old, new = _by_hand(wins, losses), mcnemar_exact(wins, losses)
            assert new == pytest.approx(old, rel=1e-12, abs=1e-300)
            assert round(new, 4) == round(old, 4) and f"{new:.3f}" == f"{old:.3f}"


def test_paired_counts_wins_losses_and_headroom():
    base = _records([False, False, True, True, False, False])
    opt = _records([True, False, True, False, True, False])
    oracle = _records([True, True, True, True, True, False])
    pairs = {p.side: p for p in paired({"baseline": base, "full": opt, "oracle": oracle})}
    full = pairs["full"]
    assert full.wins == ("q0", "q4") and full.losses == ("q3",) and full.n == 6
    # baseline 2/6, full 3/6, oracle 5/6: (3 - 2) / (5 - 2) of the headroom
    assert abs(full.headroom - 1 / 3) < 1e-9 and pairs["oracle"].headroom is None
    assert "within noise" in verdict(full)
    assert paired({"full": opt}) == []


def test_only_common_queries_are_compared():
    base = _records([False, True])
    opt = _records([True, True, True])
    (p,) = paired({"baseline": base, "full": opt})
    assert p.n == 2 and p.wins == ("q0",)
