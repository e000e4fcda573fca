"""Claim check (evidence component ``claim-check``): what a rewrite says an optional parameter
defaults to, checked by execution before the rewrite is scored.

G_D writes what a doc usually says, and a weak generator states defaults nobody established. In
run q53 (Qwen2.5-Coder-1.5B, the example tools) the add_days rewrite that won on its verified
examples said of ``business_days`` "Defaults to True"; the task model then set
``business_days=true`` on every plain date question (add_days 60.0 -> 46.7 % of its 15
queries). A stated default is a claim code can test: a verified call run without the parameter
and run with the claimed value must give the same output. Where both run and the outputs differ,
the sentence that makes the claim is taken out of the rewrite (D0's text where nothing is
left). A claim about a required
parameter, or one no call can test, is left as written.

The words that introduce a default are English ("defaults to", "default:", "default is").
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Mapping, Sequence
from typing import Any

from play2prompt.tools.model import Invocation, Tool, ToolDoc

_CLAIM = re.compile(r"\bdefault(?:s|\s+value)?\s*(?:to|is|:|=|of)\s*['\"`]?"
                    r"(?P<value>-?\d+(?:\.\d+)?|[A-Za-z][\w-]*)", re.I)
# a sentence ends at ".", "!" or "?" followed by a space or the end, never inside a number
_SENTENCE = re.compile(r"(?:[^.!?]|[.!?](?=\S))*[.!?]?")
_BOOLS = {"true": True, "false": False, "yes": True, "no": False}


def claimed_default(text: str) -> tuple[str, str] | None:
    """(the sentence that states a default, the value as written), or None."""
    for m in _SENTENCE.finditer(text):
        sentence = m.group(0)
        found = _CLAIM.search(sentence)
        if found:
            return sentence, found.group("value")
    return None


def as_value(raw: str, schema: Mapping[str, Any]) -> Any | None:
    """The claimed value as the parameter's type takes it; None when it is not one."""
    kind = schema.get("type")
    low = raw.lower()
    if kind == "boolean":
        return _BOOLS.get(low)
    if kind in ("integer", "number"):
        try:
            number = float(raw)
        except ValueError:
            return None
        return int(number) if kind == "integer" and number.is_integer() else number
    values = schema.get("enum")
    if kind == "string" and values and raw in values:   # free text: "the current date" is
        return raw                                       # no value to run
    return None


async def refuted(tool: Tool, engine: Any, param: str, value: Any,
                  calls: Sequence[Invocation]) -> bool:
    """Whether a call run without ``param`` and with ``param=value`` gave different outputs
    (the claimed default is not the default), on the first of ``calls`` where both run. A
    tool whose output varies between identical calls refutes every claim it is tested on."""
    for inv in calls:
        without = inv.without(param)
        claimed = Invocation(inv.name, {**without.arguments, param: value})
        obs = await asyncio.gather(engine.runtime.run(without), engine.runtime.run(claimed))
        if all(o.ok for o in obs):
            return obs[0].output != obs[1].output
    return False


async def check_claims(doc: ToolDoc, tool: Tool, engine: Any,
                       calls: Sequence[Invocation]) -> ToolDoc:
    """``doc`` with every sentence that states a refuted default taken out of its parameter
    texts (see the module's docstring)."""
    required = set(tool.required)
    params = dict(doc.params)
    for name, text in doc.params.items():
        claim = claimed_default(text)
        schema = tool.properties.get(name) or {}
        if claim is None or name in required:
            continue
        value = as_value(claim[1], schema)
        if value is not None and await refuted(tool, engine, name, value, calls):
            kept = " ".join(text.replace(claim[0], " ").split())
            params[name] = kept or tool.doc.params.get(name, "")   # nothing left: D0's
    return ToolDoc(doc.description, params) if params != dict(doc.params) else doc
