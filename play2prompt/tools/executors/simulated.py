"""LLM-simulated APIs: a tool with no live backend answered by a language model.

The simulator (StableToolBench's idea, written here from its description) gives the model the
API's documentation, the shape of its usual response (a ToolBench ``template_response`` such as
``{"name": "str", "items": [{"id": "int", "_list_length": 3}]}``) and up to 5 recorded calls
(fewer while they exceed 2,048 characters), and asks for the response to a new call as JSON.
The response shape, when known, becomes the JSON schema the answer is decoded against, so even
the small embedded model answers with the right structure.

Requests are deterministic (temperature and seed fixed by the call), so the run's LM call log
replays them; every simulated response is also recorded in the run store as an execution of
``<tool>#simulated`` and served from there first, so a rerun sees the same API.

Spec: ``{"simulated": {"template_response": ..., "examples": [[arguments, response], ...],
"doc": "extra documentation"}}`` (all optional; ``{"simulated": {}}`` uses the tool's doc).
``"simulates": {"name": ..., "doc": ...}`` (set by ``--opaque``, :mod:`play2prompt.tools.opacity`):
the API answered as, where the tool is shown under another name and doc.
"""

from __future__ import annotations

import ast
import asyncio
import json
from collections.abc import Coroutine, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from play2prompt.jsonutil import canonical, derive_seed, stable_hash
from play2prompt.lm.structured import chat_json
from play2prompt.metaprompts import MetaPrompts
from play2prompt.tools.executors._base import Executor, ToolCallError
from play2prompt.tools.model import Invocation, Observation

MAX_EXAMPLES = 5
EXAMPLES_CHARS = 2048
MAX_DEPTH = 3
MAX_PROPERTIES = 8
MAX_ITEMS = 2
MAX_STRING = 40
MAX_INT = 10**6
# Without a known shape: a short text (ToolBench's cached responses are often text).
FREE_RESPONSE = {"type": "string", "maxLength": 500}
SIMULATOR_ROLE = "simulator"
_SCALARS = {"str": "string", "string": "string", "int": "integer", "integer": "integer",
            "float": "number", "number": "number", "bool": "boolean", "boolean": "boolean",
            "nonetype": "null", "none": "null", "null": "null"}


def parse_template(template: Any) -> Any:
    """A ``template_response`` as a value (it is sometimes a JSON or Python literal string)."""
    if isinstance(template, str):
        text = template.strip()
        if text[:1] in "{[":
            for parse in (json.loads, ast.literal_eval):
                try:
                    return parse(text)
                except (ValueError, SyntaxError, TypeError):
                    continue
    return template


def template_schema(template: Any, depth: int = 0) -> dict[str, Any]:
    """A JSON schema for responses shaped like ``template`` (capped for small models)."""
    if isinstance(template, Mapping):
        if depth >= MAX_DEPTH:
            return {"type": "string", "maxLength": MAX_STRING}
        props = {str(k): template_schema(v, depth + 1)
                 for k, v in list(template.items())[:MAX_PROPERTIES] if k != "_list_length"}
        return {"type": "object", "properties": props, "required": list(props),
                "additionalProperties": False}
    if isinstance(template, list) and template and _is_list_note(template[0]):
        return template_schema(template[0], depth)  # ["list of str with length 8"]
    if isinstance(template, list):
        length = next((int(x["_list_length"]) for x in template
                       if isinstance(x, Mapping) and str(x.get("_list_length", "")).isdigit()), 1)
        items = template_schema(template[0], depth + 1) if template else {"type": "string"}
        return {"type": "array", "items": items, "minItems": 1 if length else 0,
                "maxItems": max(1, min(length, MAX_ITEMS))}
    if isinstance(template, str):
        key = template.strip().lower()
        if key in _SCALARS:
            kind = _SCALARS[key]
            if kind == "string":
                return {"type": "string", "maxLength": MAX_STRING}
            if kind == "integer":  # bounded, or a small model writes digits forever
                return {"type": "integer", "minimum": -MAX_INT, "maximum": MAX_INT}
            return {"type": kind}
        if _is_list_note(key):
            words = key.split()
            inner = template_schema(words[2] if len(words) > 2 else "str", depth + 1)
            return {"type": "array", "items": inner, "maxItems": MAX_ITEMS}
    if isinstance(template, bool):
        return {"type": "boolean"}
    if isinstance(template, (int, float)):
        return {"type": "number"}
    return {"type": "string", "maxLength": MAX_STRING}


_WORDS = {"str": "text", "string": "text", "int": "whole number", "integer": "whole number",
          "float": "number", "number": "number", "bool": "true/false", "boolean": "true/false"}


def describe_template(template: Any, indent: str = "", limit: int = 40) -> str:
    """A ``template_response`` as a field list in words (a small model copies a literal
    ``"str"`` placeholder into its answer, but not a description)."""
    lines: list[str] = []

    def walk(node: Any, pad: str, label: str) -> None:
        if len(lines) >= limit:
            return
        if isinstance(node, list) and node and _is_list_note(node[0]):
            node = node[0]
        if isinstance(node, Mapping):
            if label:
                lines.append(f"{pad}- {label}: an object with")
            for key, sub in node.items():
                if key != "_list_length":
                    walk(sub, pad + ("  " if label else ""), str(key))
        elif isinstance(node, list):
            lines.append(f"{pad}- {label or 'the response'}: a list of")
            if node:
                walk(node[0], pad + "  ", "each item")
        elif label:
            word = str(node).strip().lower()
            lines.append(f"{pad}- {label}: {_WORDS.get(word, word.replace('str', 'text'))}")

    walk(template, indent, "")
    return "\n".join(lines)


def _is_list_note(value: Any) -> bool:
    return isinstance(value, str) and value.strip().lower().startswith("list of ")


def response_schema(template: Any) -> dict[str, Any]:
    value = parse_template(template)
    inner = template_schema(value) if isinstance(value, (Mapping, list)) else FREE_RESPONSE
    return {"type": "object", "properties": {"response": inner}, "required": ["response"],
            "additionalProperties": False}


def select_examples(items: Sequence[tuple[Any, Any]], limit: int = MAX_EXAMPLES,
                    max_chars: int = EXAMPLES_CHARS) -> list[tuple[Any, Any]]:
    """The first ``limit`` recorded calls, fewer while they are longer than ``max_chars``."""
    chosen = list(items[:limit])
    while len(chosen) > 1 and len(str(chosen)) > max_chars:
        chosen = chosen[:-1]
    return chosen


@dataclass(frozen=True)
class SimulatedCall:
    """What the simulator needs to answer one call."""

    tool: str
    doc: str
    arguments: Mapping[str, Any]
    template: Any = None
    examples: Sequence[tuple[Any, Any]] = ()

    def messages(self, prompts: MetaPrompts) -> list[dict[str, str]]:
        value = parse_template(self.template)
        fields = describe_template(value)
        shape = ("Fields of a usual response (fill them with realistic values):\n" + fields
                 if fields else "")
        examples = "\n".join(f"- call {args} -> {json.dumps(resp, ensure_ascii=False)[:600]}"
                             for args, resp in select_examples(list(self.examples)))
        return prompts.render("simulate_api", doc=self.doc, template=shape,
                              examples=f"Recorded calls:\n{examples}" if examples else "",
                              call=json.dumps(dict(self.arguments), ensure_ascii=False))


async def simulate(lm: Any, call: SimulatedCall, prompts: MetaPrompts | None = None, *,
                   temperature: float = 0.3, max_tokens: int = 500) -> Any:
    """The simulated response to ``call``; raises ToolCallError when none could be read."""
    if lm is None:
        raise ToolCallError(f"{call.tool}: no language model to simulate the API with",
                            "unavailable")
    inner = lm.tagged(call.tool) if hasattr(lm, "tagged") else lm
    seed = derive_seed("simulate", call.tool, canonical(dict(call.arguments)))
    (answer,), _ = await chat_json(inner, call.messages(prompts or MetaPrompts()),
                                   response_schema(call.template), role=SIMULATOR_ROLE,
                                   seed=seed, temperature=temperature, max_tokens=max_tokens,
                                   validate=False)  # the shape guides decoding; not a contract
    if not isinstance(answer, Mapping) or "response" not in answer:
        raise ToolCallError("Failed to generate a simulated response", "simulation")
    return answer["response"]


def _record_key(tool: str, arguments: Mapping[str, Any]) -> str:
    return "sim:" + stable_hash(tool, dict(arguments), length=24)


def recall(store: Any, tool: str, arguments: Mapping[str, Any]) -> Observation | None:
    """A simulated response recorded earlier in this run, if any."""
    return store.get_execution(_record_key(tool, arguments)) if store is not None else None


def remember(store: Any, tool: str, arguments: Mapping[str, Any], output: Any) -> None:
    if store is not None:
        store.put_execution(_record_key(tool, arguments),
                            Invocation(f"{tool}#simulated", dict(arguments)),
                            Observation.success(output))


async def simulate_recorded(ctx: Any, call: SimulatedCall) -> Any:
    """Serve a recorded simulation, or simulate with ``ctx.lm`` and record the response."""
    seen = recall(ctx.store, call.tool, call.arguments)
    if seen is not None and seen.ok:
        return seen.output
    output = await simulate(ctx.lm, call)
    remember(ctx.store, call.tool, call.arguments, output)
    return output


def run_sync(coro: Coroutine[Any, Any, Any]) -> Any:
    """Run ``coro`` from synchronous code (a thread without an event loop)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    coro.close()
    raise ToolCallError("a simulated API must be awaited (aexecute) inside an event loop",
                        "exception")


class SimulatedExecutor(Executor):
    needs_lm = True

    def __init__(self, tool: Any, spec: Any, ctx: Any) -> None:
        super().__init__(tool, spec, ctx)
        conf = spec.get("simulated")
        conf = dict(conf) if isinstance(conf, Mapping) else {}
        self.template = conf.get("template_response")
        raw = conf.get("examples") or []
        items = raw.items() if isinstance(raw, Mapping) else raw
        self.examples = [tuple(e) for e in items if isinstance(e, (list, tuple)) and len(e) == 2]
        extra = str(conf.get("doc") or "")
        real = conf.get("simulates")   # set where the tool is shown under another name/doc
        real = real if isinstance(real, Mapping) else {}
        self.name = str(real.get("name") or tool.name)
        self.doc = str(real.get("doc") or tool.render_doc()) + (f"\n{extra}" if extra else "")

    def _call(self, arguments: dict[str, Any], timeout: float) -> Any:
        return run_sync(self._acall(arguments, timeout))

    async def _acall(self, arguments: dict[str, Any], timeout: float) -> Any:
        call = SimulatedCall(self.name, self.doc, arguments, self.template, self.examples)
        return await simulate_recorded(self.ctx, call)
