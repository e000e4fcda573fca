"""What an undocumented tool does, learned from its outputs on varied inputs (issue 27).

A tool whose original description is blank or one word (opaque BFCL's ``function_3``, say; two
words such as "Converts units." already say what it does) gives the generator nothing to write
requests from. Once per tool, when play has executed at least one call that ran, the generator
is shown the tool's name, its parameters as play knows them (discovered ones included) and up
to :data:`MAX_CALLS` executed calls with their outputs (and up to :data:`MAX_ERRORS` errors),
scrubbed, and says in one or two sentences what the tool computes and returns and what each
parameter means (structured output). The answer becomes facts of kind ``describes``
(:data:`~play2prompt.method.discovery.DESCRIBES`): they fill D0's blanks in the doc play reads,
the request writer's labels and the facts doc, never the task model's D0 (R_e and the original
side of honest selection). A tool with a real description gets no call.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from play2prompt.evidence.facts import Fact
from play2prompt.jsonutil import derive_seed
from play2prompt.lm.structured import chat_json, object_schema
from play2prompt.method.discovery import DESCRIBES
from play2prompt.tools.model import Invocation, Observation, Tool

if TYPE_CHECKING:
    from play2prompt.scrub import Scrubber

MIN_WORDS = 2        # a description with fewer words says nothing of what the tool does
MAX_CALLS = 6        # executed calls that ran shown to the generator
MAX_ERRORS = 2       # calls that failed shown beside them
OUTPUT_LIMIT = 300   # characters of one output shown
EVIDENCE = "the generator's reading of executed calls"


def needs_description(tool: Tool) -> bool:
    """The tool's original description says nothing (blank or under :data:`MIN_WORDS`)."""
    return len((tool.description or "").split()) < MIN_WORDS


@dataclass(frozen=True)
class Description:
    """What the generator said the tool does and what its parameters mean."""

    text: str
    params: tuple[tuple[str, str], ...] = ()

    def facts(self) -> list[Fact]:
        out = [Fact("", DESCRIBES, self.text, (), EVIDENCE)] if self.text else []
        return out + [Fact(n, DESCRIBES, m, (), EVIDENCE) for n, m in self.params if m]


def describe_schema(params: Sequence[str]) -> dict[str, Any]:
    """{"description": text, "parameters": {name: meaning}} for the parameters ``params``."""
    meanings = object_schema({n: {"type": "string", "maxLength": 120} for n in params})
    return object_schema({"description": {"type": "string", "minLength": 8, "maxLength": 300},
                          "parameters": meanings})


def _type(spec: Mapping[str, Any]) -> str:
    kind = spec.get("type") if isinstance(spec, Mapping) else None
    return str(kind) if kind else "any"


def _shown(calls: Sequence[tuple[Invocation, Observation]],
           scrubber: Scrubber) -> tuple[str, str]:
    """The calls that ran and a few that failed, one line each, scrubbed."""
    def line(inv: Invocation, obs: Observation) -> str:
        return scrubber.text(f"- {inv.to_python()[:200]} -> {obs.render(OUTPUT_LIMIT)}")

    ran = list(dict.fromkeys(line(i, o) for i, o in calls if o.ok))[:MAX_CALLS]
    failed = list(dict.fromkeys(line(i, o) for i, o in calls if not o.ok))[:MAX_ERRORS]
    errors = "Calls that failed:\n" + "\n".join(failed) if failed else ""
    return "\n".join(ran), errors


async def describe_tool(tool: Tool, engine: Any,
                        calls: Sequence[tuple[Invocation, Observation]]) -> Description | None:
    """One generator call: what ``tool`` (as play knows it) does, from ``calls`` (executed,
    in a fixed order). None when the answer is unusable."""
    props = dict(tool.properties)
    ran, errors = _shown(calls, engine.scrubber)
    params = ", ".join(f"{n} ({_type(s)})" for n, s in props.items()) or "(none)"
    messages = engine.prompts.render("describe", tool=tool.name, params=params, calls=ran,
                                     errors=errors)
    (answer,), _ = await chat_json(engine.generator, messages, describe_schema(list(props)),
                                   role="generator", seed=derive_seed(tool.name, "describe"),
                                   temperature=0.0, max_tokens=400)
    if not isinstance(answer, Mapping) or not str(answer.get("description", "")).strip():
        return None
    meanings = answer.get("parameters") or {}
    return Description(whole_sentences(str(answer["description"]), 300),
                       tuple((n, whole_sentences(str(meanings.get(n, "")), 120))
                             for n in props))


def whole_sentences(text: str, limit: int) -> str:
    """``text`` on one line, without a last sentence the length bound (``limit``, the schema's
    maxLength) cut off: "Whether to count weekends. If True, weekends are included; if False,
    weekends" keeps its first sentence. A text with no full sentence before the cut is kept."""
    text = " ".join(text.split())
    if len(text) < limit - 1 or text.endswith((".", "!", "?")):
        return text
    end = max(text.rfind(". "), text.rfind("! "), text.rfind("? "))
    return text[:end + 1] if end > 0 else text
