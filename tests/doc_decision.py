"""What a working method guarantees about one tool's doc decision, read from its run: a test
that breaks when the decision, the scores it rests on or the facts doc break."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from play2prompt.store.db import RunStore


def check_doc_decision(result: Mapping[str, Any], store: RunStore, tool: str,
                       fact_word: str = "") -> None:
    """Assert that ``result`` (a tool's entry of result.json) follows the method's rule.

    Without a doc search, the original is kept for one of its two reasons. With one: the
    stored score of the original is the one the decision used; the facts doc states
    ``fact_word`` (a fact play established); the doc changes exactly when the best candidate
    scored strictly higher than the original on all verified examples and not lower on the
    held-out ones, and the reason gives those numbers."""
    scores, reason = result["scores"], result["doc_reason"]
    # the scored candidates (a rewrite rejected before scoring has no kind); several share a
    # kind (every rewrite is one), so the shipped doc is looked for among all of them
    scored = [c["payload"] for c in store.candidates(tool, "doc") if "kind" in c["payload"]]
    docs = {d["kind"]: d for d in scored}
    if not docs:
        assert not result["doc_changed"], reason
        assert ("too few to hold any out" in reason or "already solves all" in reason), reason
        return
    assert docs["original"]["accuracy"] == scores["d0_train"], (docs["original"], scores)
    if fact_word:
        assert "facts" in docs, "no facts doc: what play established was not written into one"
        assert fact_word in json.dumps(docs["facts"]["doc"]), docs["facts"]["doc"]
    earned = scores.get("best_all") is not None and scores["best_all"] > scores["d0_all"] \
        and scores["best_holdout"] >= scores["d0_holdout"]
    assert result["doc_changed"] == earned, (reason, scores)
    if earned:
        assert f"{scores['d0_all']:.2f} -> {scores['best_all']:.2f}" in reason, reason
        assert result["doc"] in [d["doc"] for d in scored if d["kind"] != "original"]
