"""Parse a task model's output into invocations.

Accepted: native tool calls; JSON (``{"name", "arguments"}``, a list of those, ``{"calls": ...}``,
``{"tool_calls": ...}``, OpenAI's ``{"function": {...}}``); and Python call syntax
(``[f(a=1), g(b='x')]`` or ``f(a=1)``), possibly inside a code fence or after some prose.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Mapping
from typing import Any

from play2prompt.jsonutil import extract_json
from play2prompt.lm._base import Choice
from play2prompt.tools.model import Invocation


class ParseError(ValueError):
    """The output holds no call that can be read."""


def parse_calls(output: Choice | str) -> list[Invocation]:
    if isinstance(output, Choice):
        if output.tool_calls:
            return [_from_tool_call(c.name, c.arguments) for c in output.tool_calls]
        text = output.text
    else:
        text = output
    text = _strip_fences(text or "").strip()
    if not text:
        raise ParseError("empty output")
    if text[0] in "{[":
        try:
            calls = _from_json(json.loads(text))
            if calls:
                return calls
        except (json.JSONDecodeError, ParseError):
            pass
    try:
        return parse_python_calls(text)
    except ParseError:
        pass
    try:
        calls = _from_json(extract_json(text))
    except ValueError as exc:
        raise ParseError(f"no function call found in {text[:120]!r}") from exc
    if not calls:
        raise ParseError(f"no function call found in {text[:120]!r}")
    return calls


def _from_tool_call(name: str, arguments: Any) -> Invocation:
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments or "{}")
        except json.JSONDecodeError as exc:
            raise ParseError(f"arguments of {name} are not JSON: {arguments[:80]!r}") from exc
    if not isinstance(arguments, Mapping):
        raise ParseError(f"arguments of {name} must be an object")
    return Invocation(name, dict(arguments))


def _from_json(value: Any) -> list[Invocation]:
    if isinstance(value, Mapping):
        for key in ("calls", "tool_calls", "function_calls"):
            if isinstance(value.get(key), list):
                return _from_json(value[key])
        if isinstance(value.get("function"), Mapping):
            fn = value["function"]
            return [_from_tool_call(str(fn.get("name")), fn.get("arguments") or {})]
        name = value.get("name") or value.get("function") or value.get("tool")
        if isinstance(name, str):
            args = value.get("arguments", value.get("parameters", value.get("args", {})))
            return [_from_tool_call(name, args if args is not None else {})]
        if len(value) == 1:  # {"func_name": {...args}} (BFCL's ground-truth shape)
            (name, args), = value.items()
            if isinstance(args, Mapping):
                return [Invocation(str(name), dict(args))]
        raise ParseError("JSON object is not a function call")
    if isinstance(value, list):
        calls: list[Invocation] = []
        for item in value:
            calls.extend(_from_json(item))
        return calls
    raise ParseError("JSON value is not a function call")


def _strip_fences(text: str) -> str:
    match = re.search(r"```(?:[a-zA-Z]+)?\s*\n?(.*?)```", text, re.S)
    return match.group(1) if match else text


_CALL_START = re.compile(r"\[?\s*[A-Za-z_][\w.]*\s*\(")


def parse_python_calls(text: str) -> list[Invocation]:
    """``[f(a=1), g(b=2)]`` or ``f(a=1)`` (possibly after prose) -> invocations."""
    text = text.strip()
    candidates = [text]
    match = _CALL_START.search(text)
    if match and match.start() > 0:
        candidates.append(text[match.start():].strip())
    for cand in candidates:
        for attempt in (cand, _balanced_prefix(cand)):
            if not attempt:
                continue
            try:
                tree = ast.parse(attempt, mode="eval")
            except SyntaxError:
                continue
            calls = _calls_from_node(tree.body)
            if calls:
                return calls
    raise ParseError(f"not Python call syntax: {text[:120]!r}")


def _balanced_prefix(text: str) -> str:
    depth, quote, end = 0, "", -1
    for i, ch in enumerate(text):
        if quote:
            if ch == quote and text[i - 1] != "\\":
                quote = ""
            continue
        if ch in "'\"":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
            if depth == 0:
                end = i
                break
    return text[: end + 1] if end >= 0 else ""


def _calls_from_node(node: ast.AST) -> list[Invocation]:
    if isinstance(node, (ast.List, ast.Tuple)):
        out: list[Invocation] = []
        for elt in node.elts:
            out.extend(_calls_from_node(elt))
        return out
    if isinstance(node, ast.Call):
        name = _dotted(node.func)
        if not name:
            return []
        args = {kw.arg: _literal(kw.value) for kw in node.keywords if kw.arg}
        return [Invocation(name, args)]
    return []


def _dotted(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value)
        return f"{base}.{node.attr}" if base else ""
    return ""


def _literal(node: ast.AST) -> Any:
    try:
        return ast.literal_eval(node)
    except (ValueError, SyntaxError, TypeError):
        pass
    if isinstance(node, (ast.List, ast.Tuple)):
        return [_literal(e) for e in node.elts]
    if isinstance(node, ast.Dict):
        return {_literal(k): _literal(v) for k, v in zip(node.keys, node.values) if k is not None}
    if isinstance(node, ast.Name):
        return {"true": True, "false": False, "null": None, "none": None}.get(
            node.id.lower(), node.id)
    number = _arithmetic(node)
    if number is not None:
        return number
    return ast.unparse(node)


_ARITHMETIC: dict[type, Any] = {
    ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b,
    ast.Div: lambda a, b: a / b, ast.FloorDiv: lambda a, b: a // b,
    ast.Mod: lambda a, b: a % b, ast.Pow: lambda a, b: a ** b,
}


def _arithmetic(node: ast.AST) -> int | float | None:
    """The value of constant arithmetic such as ``1 / 6`` or ``2 ** 10`` (else None)."""
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        value = _arithmetic(node.operand)
        if value is None:
            return None
        return -value if isinstance(node.op, ast.USub) else value
    if isinstance(node, ast.BinOp) and type(node.op) in _ARITHMETIC:
        left, right = _arithmetic(node.left), _arithmetic(node.right)
        if left is None or right is None:
            return None
        if isinstance(node.op, ast.Pow) and (abs(right) > 64 or abs(left) > 1e6):
            return None  # keep a model's huge power from stalling the parser
        try:
            return _ARITHMETIC[type(node.op)](left, right)
        except (ZeroDivisionError, OverflowError, ValueError):
            return None
    return None
