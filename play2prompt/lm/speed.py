"""How close a run gets to the machine's speed: the measured ceiling of each embedded model
(``bench/bench_ceiling.py`` records it) and a run's achieved throughput as a share of it.

The ceiling is the largest prompt-processing and generation throughput (tokens/s) measured
for a model on this machine over thread counts, parallel slots and speculative decoding. A run
knows how many tokens its model processed and generated and for how long the model was busy
(the wall time with at least one request in flight, overlaps counted once:
``LMStats.busy_seconds``);
the share is the time the ceiling would need for those tokens over the time the run's model
was busy. A regression in speed shows as a falling share, like a regression in accuracy.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from play2prompt.lm.inventory import load_bench, save_bench

CEILING_FILE = "bench_ceiling.json"


def load_ceilings(directory: Path | None = None) -> dict[str, Any]:
    """The ceilings measured on this machine, by model name (empty if none)."""
    return load_bench(directory, CEILING_FILE)


def save_ceiling(name: str, ceiling: Mapping[str, Any], directory: Path | None = None) -> Path:
    return save_bench(name, ceiling, directory, CEILING_FILE)


def throughput_share(prompt_tokens: int, completion_tokens: int, busy_s: float,
                     ceiling: Mapping[str, Any]) -> float | None:
    """The time the ceiling needs for these tokens over the time they took (None when
    nothing was measured). Cached prompt tokens are not counted: they cost nothing."""
    pp, tg = float(ceiling.get("pp_tps") or 0), float(ceiling.get("tg_tps") or 0)
    if busy_s <= 0 or pp <= 0 or tg <= 0:
        return None
    return (prompt_tokens / pp + completion_tokens / tg) / busy_s


def lm_speed(lm: Any, directory: Path | None = None) -> dict[str, Any] | None:
    """:func:`speed_summary` of an LM's work in this session (None when it did none)."""
    st = lm.stats
    if not st.calls:
        return None
    return speed_summary(lm.bench_name or "", st.prompt_tokens - st.cached_prompt_tokens,
                         st.completion_tokens, st.busy_seconds, directory)


def speed_summary(model: str, prompt_tokens: int, completion_tokens: int, busy_s: float,
                  directory: Path | None = None) -> dict[str, Any]:
    """What a run's stats say about its speed: tokens, busy seconds, tokens/s and, when the
    model's ceiling was measured here, the share of it."""
    out: dict[str, Any] = {
        "busy_s": round(busy_s, 1), "prompt_tokens_processed": prompt_tokens,
        "completion_tokens": completion_tokens,
        "tokens_per_s": round((prompt_tokens + completion_tokens) / busy_s, 1) if busy_s
        else None}
    ceiling = load_ceilings(directory).get(model) if model else None
    if ceiling:
        share = throughput_share(prompt_tokens, completion_tokens, busy_s, ceiling)
        out.update(ceiling_pp_tps=ceiling.get("pp_tps"), ceiling_tg_tps=ceiling.get("tg_tps"),
                   share_of_ceiling=round(share, 3) if share is not None else None)
    return out
