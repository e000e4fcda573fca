"""The LLM call log of a run (implements :class:`play2prompt.lm._base.CallLog`): every sample
keyed by its request, its tokens (those served from the runtime's prefix cache too) and
latency, and the sums ``p2p runs show`` reads. A mixin of
:class:`~play2prompt.store.db.RunStore`."""

from __future__ import annotations

import json
import time
from typing import Any

from play2prompt.lm._base import ChatRequest, Choice, Usage
from play2prompt.store.seeds import SeededSamples

_CALL_COLUMNS = ("key, model, role, tag, sample_index, request, response, status, error, "
                 "prompt_tokens, completion_tokens, latency_s, created, cached_tokens")
_CALL_MARKS = ", ".join("?" for _ in _CALL_COLUMNS.split(","))


class LoggedCalls(SeededSamples):
    """The call-log operations of a run store (its connection, lock and helpers)."""

    read_only: bool

    def get_sample(self, key: str) -> Choice | None:
        rows = self._query("SELECT response FROM llm_calls WHERE key = ? AND status = 'ok'",
                           (key,))
        if rows and not self.read_only:
            self._note_hit(key)
        return Choice.from_dict(json.loads(rows[0][0])) if rows else None

    def put_sample(self, key: str, *, model: str, role: str, index: int, request: ChatRequest,
                   choice: Choice, usage: Usage, latency_s: float) -> None:
        self._exec(
            f"INSERT OR REPLACE INTO llm_calls ({_CALL_COLUMNS}) VALUES ({_CALL_MARKS})",
            (key, model, role or "-", request.tag, index, json.dumps(request.key_payload()),
             json.dumps(choice.to_dict()), "ok", None, usage.prompt_tokens,
             usage.completion_tokens, latency_s, time.time(), usage.cached_tokens),
        )

    def put_failure(self, key: str, *, model: str, role: str, request: ChatRequest,
                    error: str) -> None:
        """Record a call that failed after its retries. Failures get rows of their own (the
        sample's key plus a time stamp), so a later success does not erase the record."""
        now = time.time()
        self._exec(
            f"INSERT OR IGNORE INTO llm_calls ({_CALL_COLUMNS}) VALUES ({_CALL_MARKS})",
            (f"{key}!failed@{now:.6f}", model, role or "-", request.tag, 0,
             json.dumps(request.key_payload()), None, "error", error, 0, 0, 0.0, now, 0),
        )

    def call_stats(self) -> dict[str, Any]:
        rows = self._query(
            "SELECT role, status, COUNT(*), SUM(prompt_tokens), SUM(completion_tokens), "
            f"SUM(latency_s) FROM llm_calls WHERE 1 = 1{self._used_only()} GROUP BY role, status")
        by_role: dict[str, dict[str, Any]] = {}
        total = {"samples": 0, "failed": 0, "prompt_tokens": 0, "completion_tokens": 0,
                 "latency_s": 0.0}
        for role, status, count, ptok, ctok, lat in rows:
            entry = by_role.setdefault(role, {"samples": 0, "failed": 0, "prompt_tokens": 0,
                                              "completion_tokens": 0})
            if status == "ok":
                entry["samples"] += count
                entry["prompt_tokens"] += ptok or 0
                entry["completion_tokens"] += ctok or 0
                total["samples"] += count
                total["prompt_tokens"] += ptok or 0
                total["completion_tokens"] += ctok or 0
                total["latency_s"] += lat or 0.0
            else:
                entry["failed"] += count
                total["failed"] += count
        return {"total": total, "by_role": by_role}

    def samples_by_opening(self, chars: int = 600
                           ) -> list[tuple[str, str, int, int, int, float, int | None]]:
        """(role, first message's first ``chars`` characters, samples, prompt tokens, generated
        tokens, summed latency, prompt tokens served from the runtime's cache) of the answered
        samples: which prompt spent the model's time. The cached count is None in a store
        written before it was logged (opened read-only, not migrated)."""
        cached = "SUM(cached_tokens)" if self.has_cached_tokens() else "NULL"
        rows = self._query(
            "SELECT role, substr(json_extract(request, '$.messages[0].content'), 1, ?), COUNT(*), "
            f"SUM(prompt_tokens), SUM(completion_tokens), SUM(latency_s), {cached} FROM llm_calls "
            f"WHERE status = 'ok'{self._used_only()} GROUP BY 1, 2", (chars,))
        return [(r[0], r[1] or "", r[2], r[3] or 0, r[4] or 0, r[5] or 0.0, r[6]) for r in rows]

    def has_cached_tokens(self) -> bool:
        """Whether the call log has the per-sample cached-token count (migration 0006)."""
        return "cached_tokens" in {r[1] for r in self._query("PRAGMA table_info(llm_calls)")}

    def samples_by_tag(self) -> dict[str, dict[str, int]]:
        rows = self._query(
            "SELECT tag, COUNT(*), SUM(prompt_tokens), SUM(completion_tokens) FROM llm_calls "
            f"WHERE status = 'ok'{self._used_only()} GROUP BY tag")
        return {r[0]: {"samples": r[1], "prompt_tokens": r[2] or 0,
                       "completion_tokens": r[3] or 0} for r in rows}
