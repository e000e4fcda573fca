"""Paired comparison of evaluation sides: wins, losses, McNemar's exact test, headroom."""

from play2prompt.evaluation.compare import mcnemar_exact, paired, verdict


def _records(outcomes):
    return [{"id": f"q{i}", "correct": ok} for i, ok in enumerate(outcomes)]


def test_mcnemar_exact_matches_the_binomial():
    assert mcnemar_exact(0, 0) == 1.0
    assert mcnemar_exact(3, 3) == 1.0
    assert abs(mcnemar_exact(6, 0) - 2 / 64) < 1e-12          # 2 * 0.5**6
    assert abs(mcnemar_exact(1, 0) - 1.0) < 1e-12
    assert mcnemar_exact(10, 2) < 0.05 < mcnemar_exact(7, 3)


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
