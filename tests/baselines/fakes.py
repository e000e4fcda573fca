"""A fake generator for the baselines: it answers EasyTool's rewrite, DRAFT's exploration
(candidate calls of the tool named in the prompt, one per round), analysis (quoting the result
it was shown) and rewrite; everything else is schema-filled."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from play2prompt.lm.fake import FakeLM, play_rules
from tests.scale_support import EXAMPLE_CALLS

EASY_MARK = "Write the concise instruction for "
EXPLORE_MARK = "Write a new request and the call to "
ANALYZE_MARK = "Which changes to the documentation does this result call for?"
REWRITE_MARK = "Write the revised documentation."
NEXT = "try the units the tool rejected"


def _doc(prefix: str):  # noqa: ANN202
    def reply(request, index):  # noqa: ANN001, ANN202
        props = request.json_schema["properties"]
        out: dict[str, Any] = {
            "description": f"{prefix} doc: what the tool does and the formats it accepts.",
            "params": {p: f"{prefix} text for {p}" for p in props["params"]["properties"]}}
        if "next" in props:
            out["next"] = NEXT
        return out
    return reply


class Explore:
    """The tool's candidate calls in turn: round r (the number of earlier explorations in the
    prompt) gets call r."""

    def __init__(self, calls: Mapping[str, Sequence[Mapping[str, Any]]]) -> None:
        self.calls = calls

    def __call__(self, request, index):  # noqa: ANN001, ANN204
        text = str(request.messages[-1]["content"])
        name = text.split(EXPLORE_MARK, 1)[1].split()[0]
        done = sum(1 for ln in text.splitlines() if ln.startswith("- "))
        options = self.calls[name]
        return {"query": f"Exploration number {done} of {name} please",
                "arguments": dict(options[done % len(options)])}


def analyse(request, index):  # noqa: ANN001, ANN201
    text = str(request.messages[-1]["content"])
    result = text.split("Result: ", 1)[1].split("\n")[0]
    return {"suggestions": f"The tool said: {result[:200]}"}


def baseline_rules(calls: Mapping[str, Sequence[Mapping[str, Any]]] = EXAMPLE_CALLS
                   ) -> list[tuple[str, Any]]:
    return [(EASY_MARK, _doc("EasyTool")), (EXPLORE_MARK, Explore(calls)),
            (ANALYZE_MARK, analyse), (REWRITE_MARK, _doc("DRAFT"))]


def baseline_lm(model_id: str = "fake-baselines") -> FakeLM:
    """Answers the baselines' prompts, and plays tools as ``play_rules`` does (Play2Prompt)."""
    return FakeLM(rules=baseline_rules() + play_rules(EXAMPLE_CALLS), fill_schema=True,
                  model_id=model_id)
