"""What the baselines share: the schema of a rewritten doc, reading a rewrite into a
:class:`ToolDoc`, the cost of one tool, and its stored :class:`ToolResult`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from play2prompt.engine import Engine
from play2prompt.lm.structured import object_schema
from play2prompt.results import ToolResult
from play2prompt.tools.model import Tool, ToolDoc

# Text a small model writes when it has nothing to say; such a field keeps its earlier text.
_PLACEHOLDERS = {"", "none", "n/a", "na", "tbd", "todo", "unknown", "null", "-", "..."}


def doc_schema(param_names: Sequence[str], **extra: Any) -> dict[str, Any]:
    """A rewritten doc: a description and one text per parameter (plus ``extra`` fields).
    Length bounds only: regex patterns compile slowly in grammar engines."""
    params = {p: {"type": "string", "minLength": 3, "maxLength": 300} for p in param_names}
    return object_schema({
        "description": {"type": "string", "minLength": 10, "maxLength": 800},
        "params": object_schema(params),
        **extra,
    })


def _usable(text: str) -> bool:
    clean = text.strip()
    return clean.lower().strip(".:; ") not in _PLACEHOLDERS and len(clean.split()) >= 2


def read_doc(answer: Any, base: ToolDoc, names: Sequence[str]) -> tuple[ToolDoc, list[str]]:
    """The doc an answer writes, and the fields it left unusable (empty or placeholder):
    those keep ``base``'s text. An unreadable answer is ``base`` unchanged."""
    if not isinstance(answer, Mapping):
        return base, ["description", *names]
    kept: list[str] = []
    description = str(answer.get("description") or "").strip()
    if not _usable(description):
        description, kept = base.description, ["description"]
    given = answer.get("params") if isinstance(answer.get("params"), Mapping) else {}
    params = {}
    for name in names:
        text = str(given.get(name) or "").strip()
        if not _usable(text):
            text = base.params.get(name, "")
            kept.append(name)
        params[name] = text
    return ToolDoc(description, params), kept


def render(tool: Tool, doc: ToolDoc) -> str:
    return doc.render(tool.name, tool.parameters)


def tool_cost(engine: Engine, name: str) -> dict[str, int]:
    """The LLM samples and tokens logged for tool ``name`` (its tagged calls)."""
    tagged = engine.store.samples_by_tag().get(name, {})
    return {"llm_samples": tagged.get("samples", 0),
            "prompt_tokens": tagged.get("prompt_tokens", 0),
            "completion_tokens": tagged.get("completion_tokens", 0)}


def stored_result(engine: Engine, tool: Tool) -> ToolResult | None:
    """The tool's result when a finished run (or session) stored it: not redone."""
    stored = engine.store.get_result(tool.name)
    if stored is None:
        return None
    engine.reporter.done(tool.name, "done (from store)")
    return ToolResult.from_dict(stored)


def finish(engine: Engine, tool: Tool, doc: ToolDoc, reason: str,
           stats: Mapping[str, Any]) -> ToolResult:
    """Store and return the tool's result: its doc, no demos, its cost and statistics (the
    keys Play2Prompt's results have, so the CLI, report and sweep read them alike)."""
    attempts = int(stats.get("play_attempts", 0))
    valid = int(stats.get("valid_invocations", 0))
    full = {"play_attempts": attempts, "valid_invocations": valid,
            "invocation_success_rate": valid / attempts if attempts else 0.0,
            "examples": 0, "verified_examples": 0, "demos": 0, "verified_demos": 0,
            "best_reward": None, "best_reward_per_iteration": [],
            "doc_score_per_iteration": [], **stats, **tool_cost(engine, tool.name)}
    result = ToolResult(tool.name, tool, doc, (), doc != tool.doc, reason, {}, full)
    engine.store.put_result(tool.name, result.to_dict())
    engine.reporter.done(tool.name, reason)
    return result
