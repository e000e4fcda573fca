"""Is a side really better than the baseline? Paired per-query comparison of the sides of one
evaluation: wins and losses against the baseline, McNemar's exact test on them, and the share
of the oracle headroom a side recovers.

Every side answers the same queries, so the comparison is paired: a query counts as a win when
the side gets it right and the baseline does not, a loss the other way round. McNemar's exact
test asks how likely at least that lopsided a split of the discordant queries is if the side
and the baseline were equally good (two-sided binomial test with p = 1/2). With a few dozen
queries a difference of one or two is noise: the p-value says so.

The headroom is what correct documentation would give: (side - baseline) / (oracle - baseline),
the share of the oracle's gain that the side recovers (None when the oracle is no better).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

BASELINE = "baseline"
ORACLE = "oracle"


def mcnemar_exact(wins: int, losses: int) -> float:
    """Two-sided exact McNemar p-value for ``wins`` vs ``losses`` discordant pairs: the exact
    binomial test of the split against p = 1/2 (``scipy.stats.binomtest``, imported on first use:
    it costs a second that commands which compare nothing should not pay)."""
    n = wins + losses
    if n == 0:
        return 1.0
    from scipy.stats import binomtest

    return float(binomtest(min(wins, losses), n, 0.5).pvalue)


@dataclass(frozen=True)
class Paired:
    """One side against the baseline, query by query."""

    side: str
    n: int
    accuracy: float
    baseline: float
    wins: tuple[str, ...]
    losses: tuple[str, ...]
    headroom: float | None = None     # share of the oracle's gain recovered

    @property
    def p_value(self) -> float:
        return mcnemar_exact(len(self.wins), len(self.losses))

    def to_dict(self) -> dict[str, Any]:
        return {"side": self.side, "n": self.n, "accuracy": round(100 * self.accuracy, 1),
                "baseline": round(100 * self.baseline, 1), "wins": list(self.wins),
                "losses": list(self.losses), "p_value": round(self.p_value, 4),
                "headroom_recovered": None if self.headroom is None
                else round(100 * self.headroom, 1)}


def _outcomes(records: Sequence[Mapping[str, Any]]) -> dict[str, bool]:
    return {str(r["id"]): bool(r["correct"]) for r in records}


def paired(sides: Mapping[str, Sequence[Mapping[str, Any]]]) -> list[Paired]:
    """Each side but the baseline against it, on the queries every side answered. ``sides``:
    side name -> its per-query records (``id``, ``correct``)."""
    if BASELINE not in sides:
        return []
    outcomes = {name: _outcomes(recs) for name, recs in sides.items()}
    common = sorted(set.intersection(*(set(o) for o in outcomes.values())))
    if not common:
        return []
    base = outcomes[BASELINE]

    def acc(name: str) -> float:
        return sum(outcomes[name][i] for i in common) / len(common)

    oracle_gain = acc(ORACLE) - acc(BASELINE) if ORACLE in outcomes else None
    out = []
    for name, mine in outcomes.items():
        if name == BASELINE:
            continue
        wins = tuple(i for i in common if mine[i] and not base[i])
        losses = tuple(i for i in common if base[i] and not mine[i])
        head = None
        if name != ORACLE and oracle_gain is not None and oracle_gain > 0:
            head = (acc(name) - acc(BASELINE)) / oracle_gain
        out.append(Paired(name, len(common), acc(name), acc(BASELINE), wins, losses, head))
    return out


def comparison_rows(pairs: Sequence[Paired]) -> list[dict[str, Any]]:
    """One table row per side: accuracy, wins / losses against the baseline, the p-value and
    the headroom recovered."""
    return [{"side": p.side, "n": p.n, "exec %": round(100 * p.accuracy, 1),
             "baseline %": round(100 * p.baseline, 1), "wins": len(p.wins),
             "losses": len(p.losses), "McNemar p": round(p.p_value, 3),
             "headroom recovered %": None if p.headroom is None else round(100 * p.headroom, 1)}
            for p in pairs]


def verdict(pair: Paired, alpha: float = 0.05) -> str:
    """A plain sentence on one side against the baseline."""
    diff = len(pair.wins) - len(pair.losses)
    if diff == 0:
        return f"{pair.side}: level with the baseline (+{len(pair.wins)} -{len(pair.losses)})"
    word = "ahead of" if diff > 0 else "behind"
    if pair.p_value >= alpha:
        return (f"{pair.side}: {word} the baseline by {abs(diff)} of {pair.n} queries "
                f"(+{len(pair.wins)} -{len(pair.losses)}), within noise (McNemar p = "
                f"{pair.p_value:.2f})")
    return (f"{pair.side}: {word} the baseline by {abs(diff)} of {pair.n} queries "
            f"(+{len(pair.wins)} -{len(pair.losses)}, McNemar p = {pair.p_value:.3f})")
