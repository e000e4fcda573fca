"""Function calling for backends without it: tools become a JSON schema to decode against.

The request's tools are described in a system message (as a chat template would) and the
answer is constrained to ``{"name": <one of the tools>, "arguments": <its parameters>}`` (or a
list of those under ``"calls"`` when parallel calls are allowed). The parsed result comes back
as native-looking :class:`ToolCall`s.

For backends that apply the model's own chat template to ``tools=`` (the embedded model with
``?tools=native``), :func:`parse_native` reads the calls back from what the model wrote.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from play2prompt.jsonutil import extract_json
from play2prompt.lm._base import ChatRequest, Choice, ToolCall

_GRAMMAR_UNSAFE = ("format", "pattern", "default", "examples", "description", "title")


def grammar_safe(schema: Any) -> Any:
    """A copy of a parameter schema without keywords grammar converters choke on."""
    if isinstance(schema, list):
        return [grammar_safe(v) for v in schema]
    if not isinstance(schema, Mapping):
        return copy.deepcopy(schema)
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key in ("properties", "patternProperties", "$defs", "definitions"):
            out[key] = ({name: grammar_safe(sub) for name, sub in value.items()}
                        if isinstance(value, Mapping) else value)
        elif key in ("enum", "const", "required"):
            out[key] = copy.deepcopy(value)
        elif key not in _GRAMMAR_UNSAFE:
            out[key] = grammar_safe(value)
    return out


def _fn(tool: Mapping[str, Any]) -> Mapping[str, Any]:
    return tool.get("function", tool)


def call_schema(tools: Sequence[Mapping[str, Any]], parallel: bool = False) -> dict[str, Any]:
    options = []
    for tool in tools:
        fn = _fn(tool)
        params = call_arguments_schema(fn)
        options.append({
            "type": "object",
            "properties": {"name": {"const": fn["name"]}, "arguments": params},
            "required": ["name", "arguments"],
            "additionalProperties": False,
        })
    one = options[0] if len(options) == 1 else {"anyOf": options}
    if not parallel:
        return one
    return {
        "type": "object",
        "properties": {"calls": {"type": "array", "items": one, "minItems": 1}},
        "required": ["calls"],
        "additionalProperties": False,
    }


def tools_system_text(tools: Sequence[Mapping[str, Any]], parallel: bool = False) -> str:
    specs = json.dumps([_fn(t) for t in tools], ensure_ascii=False)
    shape = ('{"calls": [{"name": ..., "arguments": {...}}, ...]}' if parallel
             else '{"name": ..., "arguments": {...}}')
    return (f"You can call these functions:\n{specs}\n"
            f"Answer with the function call(s) as JSON: {shape}")


def emulate(request: ChatRequest) -> ChatRequest:
    """Turn a function-calling request into a JSON-schema-constrained one."""
    assert request.tools
    messages = list(request.messages)
    note = {"role": "system", "content": tools_system_text(request.tools,
                                                           request.parallel_tool_calls)}
    if messages and messages[0].get("role") == "system":
        first = dict(messages[0])
        first["content"] = f"{first.get('content', '')}\n\n{note['content']}"
        messages[0] = first
    else:
        messages.insert(0, note)
    return replace(request, messages=tuple(messages), tools=None,
                   json_schema=call_schema(request.tools, request.parallel_tool_calls))


@dataclass(frozen=True)
class CallHeader:
    """How a model starts an emulated call: the text before the tool's name and after it, up
    to the arguments (Qwen2.5-Coder: ``{\\n  "name": "`` and ``",\\n  "arguments":``)."""

    before: str
    after: str

    def of(self, fn: Mapping[str, Any]) -> str:
        """The whole header of a call to ``fn``, up to its arguments."""
        return self.before + quoted_name(fn)[:-1] + self.after


def quoted_name(fn: Mapping[str, Any]) -> str:
    """``fn``'s name as a call writes it after the opening quote: escaped, with its closing
    quote."""
    return json.dumps(fn["name"])[1:-1] + '"'


_HEADER = re.compile(r'(\{\s*"name"\s*:\s*")(?:[^"\\]|\\.)+("\s*,\s*"arguments"\s*:)')
WS = r"/[ \t\n\r]*/"   # the free whitespace of llguidance's JSON, as a lexeme


def header_of(text: str) -> CallHeader | None:
    """The header of an emulated answer (None where it does not start as a call)."""
    found = _HEADER.match(text)
    return CallHeader(found.group(1), found.group(2)) if found else None


def prefilled(tools: Sequence[Mapping[str, Any]], header: CallHeader) -> tuple[str, str]:
    """The start of a call written for the model (``prefix``) and the llguidance grammar of
    the rest, which is what :func:`call_schema` allows after that start. One tool: its whole
    header, up to its arguments; several: the text before the name, then one alternative a
    tool (its name, the arguments' key, its arguments)."""
    if len(tools) == 1:
        fn = _fn(tools[0])
        return header.of(fn), (f"%llguidance {{}}\nstart: {WS} args {WS} \"}}\"\n"
                        f"args: %json {json.dumps(call_arguments_schema(fn))}")
    lines = []
    for i, tool in enumerate(tools):
        fn = _fn(tool)
        name = json.dumps(quoted_name(fn))
        lines.append(f'c{i}: {name} {WS} "," {WS} "\\"arguments\\"" {WS} ":" {WS} a{i} '
                     f'{WS} "}}"')
        lines.append(f"a{i}: %json {json.dumps(call_arguments_schema(fn))}")
    start = " | ".join(f"c{i}" for i in range(len(tools)))
    return header.before, "%llguidance {}\nstart: " + start + "\n" + "\n".join(lines)


def call_arguments_schema(fn: Mapping[str, Any]) -> dict[str, Any]:
    """The grammar-safe schema of a tool's arguments (an object)."""
    params = grammar_safe(fn.get("parameters") or {"type": "object", "properties": {}})
    params.setdefault("type", "object")
    return params


def parse_emulated(text: str) -> Choice:
    """The emulated answer as a Choice with tool calls (none when it does not parse)."""
    try:
        value = extract_json(text)
    except ValueError:
        return Choice(text, (), "stop")
    items = value.get("calls") if isinstance(value, Mapping) and "calls" in value else value
    items = items if isinstance(items, list) else [items]
    calls = tuple(
        ToolCall(str(item["name"]), item.get("arguments") or {})
        for item in items
        if isinstance(item, Mapping) and isinstance(item.get("name"), str)
    )
    return Choice(text, calls, "tool_calls" if calls else "stop")


# -- native function calling: the model's chat template, its calls read back robustly ----------
_TAGGED = re.compile(r"<tool_call>\s*(.*?)\s*(?:</tool_call>|$)", re.DOTALL)


def parse_native(message: Mapping[str, Any], names: Sequence[str] = ()) -> Choice:
    """The calls of an assistant message answered with ``tools=``: the runtime's parsed
    ``tool_calls`` if any, else the calls written in the text (``<tool_call>`` blocks, fenced or
    bare JSON ``{"name", "arguments"}``, lists of those). Text with no call is a text answer;
    an unreadable call is dropped, never raised."""
    text = str(message.get("content") or "")
    calls = [c for c in (_runtime_call(tc) for tc in message.get("tool_calls") or []) if c]
    if not calls:
        blocks = _TAGGED.findall(text) or [text]
        calls = [c for block in blocks for c in _calls_in_text(block, names)]
    return Choice(text, tuple(calls), "tool_calls" if calls else "stop")


def _runtime_call(raw: Any) -> ToolCall | None:
    fn = raw.get("function", raw) if isinstance(raw, Mapping) else None
    if not isinstance(fn, Mapping) or not isinstance(fn.get("name"), str):
        return None
    return ToolCall(fn["name"], _arguments(fn.get("arguments")))


def _arguments(value: Any) -> Mapping[str, Any] | str:
    if isinstance(value, str):
        try:
            value = json.loads(value or "{}")
        except json.JSONDecodeError:
            return value
    return value if isinstance(value, Mapping) else {} if value is None else str(value)


def _calls_in_text(text: str, names: Sequence[str]) -> list[ToolCall]:
    """Every call-shaped JSON value in ``text``, in order."""
    decoder = json.JSONDecoder()
    out: list[ToolCall] = []
    i = 0
    while i < len(text):
        if text[i] not in "{[":
            i += 1
            continue
        try:
            value, end = decoder.raw_decode(text, i)
        except json.JSONDecodeError:
            i += 1
            continue
        found = _calls_in_value(value, names)
        out.extend(found)
        i = end if found else i + 1
    return out


def _calls_in_value(value: Any, names: Sequence[str]) -> list[ToolCall]:
    if isinstance(value, list):
        return [c for item in value for c in _calls_in_value(item, names)]
    if not isinstance(value, Mapping):
        return []
    for key in ("calls", "tool_calls"):
        if isinstance(value.get(key), list):
            return _calls_in_value(value[key], names)
    fn = value.get("function") if isinstance(value.get("function"), Mapping) else value
    name = fn.get("name")
    if not isinstance(name, str):
        return []
    args_key = next((k for k in ("arguments", "parameters") if k in fn), None)
    if args_key is None and name not in names:
        return []
    return [ToolCall(name, _arguments(fn.get(args_key) if args_key else {}))]
