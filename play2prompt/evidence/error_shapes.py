"""Errors with a shape, read by their structure: JSON error bodies (FastAPI's 422 ``detail``
list, GitHub's ``errors``, Stripe's and OpenAI's ``error`` object, Google's ``fieldViolations``,
RFC 7807 ``invalid-params``, JSON:API ``source.pointer``, zod issues), pydantic's validation
text (as the MCP SDK sends it, on several lines or on one), the TypeScript MCP SDK's
"path: message" list; and the clues in Python's own errors: which parameters a signature error
names (missing, unexpected) and which type a type error asks for.

Each issue says where it points (``loc``: a parameter, then the path inside it) and what it
says; :mod:`play2prompt.evidence.error_reading` turns issues into facts.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from play2prompt.evidence.error_text import norm, words
from play2prompt.jsonutil import scan_json

MISSING: Any = object()     # an issue that carries no input value
_MESSAGE_KEYS = ("msg", "message", "detail", "description", "reason", "title")
_LOC_KEYS = ("loc", "path", "param", "field", "parameter", "pointer", "property")
_PYDANTIC = re.compile(r"^\d+ validation errors? for \S+\s*", re.I)
_PYDANTIC_ITEM = re.compile(r"(?P<loc>\S+) (?P<msg>.+?) \[type=(?P<type>[\w.]+)"
                            r"(?:, input_value=(?P<input>.*?), input_type=[\w.]+)?\]")
_TS_LIST = re.compile(r"^invalid arguments for tool [\w.-]+:\s*", re.I)


@dataclass(frozen=True)
class Issue:
    """One thing a structured error says: where it points and what it says."""

    loc: tuple[str, ...]
    message: str
    code: str = ""
    value: Any = MISSING
    expected: str = ""      # the type a schema validator says it wanted
    cut: bool = False       # the message was cut short (the body was truncated)


def issues(text: str) -> list[Issue] | None:
    """The issues of a structured error (its wrappers removed), or None for plain text."""
    for parse in (_pydantic, _ts_list, _json):
        found = parse(text)
        if found:
            return found
    return None


def _tokens(loc: Any) -> tuple[str, ...]:
    if isinstance(loc, (list, tuple)):
        return tuple(t for item in loc for t in _tokens(item))
    if isinstance(loc, int) or loc is None:
        return (str(loc),) if loc is not None else ()
    return tuple(t for t in re.split(r"[./\[\]]+", str(loc)) if t)


def _pydantic(text: str) -> list[Issue] | None:
    m = _PYDANTIC.match(text)
    if not m:
        return None
    body = re.sub(r"\s*For further information visit \S+", " ", text[m.end():])
    body = " ".join(body.split())
    out = []
    for item in _PYDANTIC_ITEM.finditer(body):
        raw = item.group("input")
        out.append(Issue(_tokens(item.group("loc")), item.group("msg").strip(),
                         item.group("type"), MISSING if raw is None else _literal(raw)))
    return out or None


def _literal(raw: str) -> Any:
    try:
        return ast.literal_eval(raw)
    except (ValueError, SyntaxError):
        return raw.strip("'\"")


def _ts_list(text: str) -> list[Issue] | None:
    m = _TS_LIST.match(text)
    if not m:
        return None
    rest = text[m.end():]
    if rest.lstrip().startswith(("[", "{")):
        return _json(rest)
    out = []
    for part in re.split(r",\s+(?=[\w.\[\]-]+:\s)", rest):
        path, sep, message = part.partition(": ")
        if sep and re.fullmatch(r"[\w.\[\]-]+", path):
            out.append(Issue(_tokens(path), message.strip()))
    return out or None


def _json(text: str) -> list[Issue] | None:
    start = min((i for i in (text.find("{"), text.find("[")) if i >= 0), default=-1)
    if start < 0:
        return None
    data, cut = _load(text[start:])
    if data is None:
        return None
    out: list[Issue] = []
    _walk(data, out, cut)
    return out or None


def _load(text: str) -> tuple[Any, str | None]:
    """JSON text, closed first if it was cut short; and the string value the cut fell in."""
    try:
        return json.loads(text), None
    except ValueError:
        pass
    closed, cut = _close(text)
    try:
        return json.loads(closed), cut
    except ValueError:
        return None, None


def _close(text: str) -> tuple[str, str | None]:
    stack: list[str] = []
    scan = scan_json(text)
    for _, ch in scan.brackets:
        if ch in "{[":
            stack.append("}" if ch == "{" else "]")
        elif stack:
            stack.pop()
    cut, start, esc = None, scan.open_string, scan.escaped
    if start >= 0:
        body = re.sub(r"\\u[0-9a-fA-F]{0,3}$", "", text[start + 1:])
        body = body[:-1] if esc else body
        cut = json.loads(f'"{body}"')
        key = text[:start].rstrip().endswith(("{", ",")) and stack[-1:] == ["}"]
        text = text[:start] + f'"{body}"' + (": null" if key else "")
    text = text.rstrip().rstrip(",")
    if text.endswith(":"):
        text += " null"
    return text + "".join(reversed(stack)), cut


def _walk(node: Any, out: list[Issue], cut: str | None) -> None:
    if isinstance(node, Mapping):
        issue = _issue(node, cut)
        if issue is not None:
            out.append(issue)
        for key, value in node.items():
            if isinstance(value, (Mapping, list)) and key not in ("ctx", "input", "source"):
                _walk(value, out, cut)
    elif isinstance(node, list):
        for value in node:
            _walk(value, out, cut)


def _issue(node: Mapping[str, Any], cut: str | None) -> Issue | None:
    message = next((node[k] for k in _MESSAGE_KEYS if isinstance(node.get(k), str)
                    and not (k == "reason" and "name" not in node and node[k].isupper())), "")
    source = node.get("source") if isinstance(node.get("source"), Mapping) else {}
    loc_keys = [node.get(k) for k in _LOC_KEYS] + [source.get("pointer"),
                                                   source.get("parameter")]
    if "reason" in node and isinstance(node.get("name"), str):
        loc_keys.insert(0, node["name"])
    loc = next((_tokens(v) for v in loc_keys if isinstance(v, (str, list)) and v), ())
    code = node.get("type") if "loc" in node else node.get("code")
    code = code if isinstance(code, str) else ""
    value = node.get("input", node.get("value", MISSING))
    expected = node.get("expected") if isinstance(node.get("expected"), str) else ""
    if not message and not (loc and code):
        return None
    return Issue(loc, message, code, value, expected, cut is not None and message == cut)


def resolve(loc: tuple[str, ...], known: Iterable[str]) -> tuple[str | None, tuple[str, ...]]:
    """The parameter an issue points at (a known one matched loosely, else the first name
    after the location words "body", "query", ...) and the path inside it."""
    names = {norm(k): k for k in known}
    skip = set(words()["location"])
    for i, token in enumerate(loc):
        if token.lower() in skip or token.isdigit():
            continue
        if norm(token) in names:
            return names[norm(token)], loc[i + 1:]
        if re.fullmatch(r"[A-Za-z_][\w-]*", token):
            return token, loc[i + 1:]
    return None, ()


def _names(raw: str) -> list[str]:
    quoted = re.findall(r"['\"`]([\w.-]+)['\"`]", raw)
    if quoted:
        return quoted
    return [n for n in re.split(r",\s*|\s+and\s+|\s+", raw.strip(" .")) if
            re.fullmatch(r"[A-Za-z_][\w.-]*", n) and n.lower() not in ("and", "or")]


def named_params(text: str) -> list[tuple[str, str]]:
    """The parameters a signature error names, each with what it says of it: ``required``
    (missing), ``absent`` (unexpected, unknown) or ``exists``."""
    out = []
    for status, patterns in words()["signature"].items():
        for p in patterns:
            for m in re.finditer(p, text, re.I | re.M):
                out += [(name, status) for name in _names(m.group("names"))]
    return list(dict.fromkeys(out))


def json_type(word: str) -> str | None:
    """A type word ("int", "real number", "list") as a JSON Schema type."""
    word = word.lower().strip()
    for kind, said in words()["type_words"].items():
        if word in said or word == kind:
            return kind
    return words()["python_types"].get(word)


def python_type(value: Any) -> str:
    return type(value).__name__


def type_clues(text: str, arguments: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(parameter, JSON type) pairs a type error implies: "must be real number, not str" for
    the one text argument, "unsupported operand type(s) for +: 'int' and 'str'" for the one
    argument of the odd type, "invalid literal for int() with base 10: 'x'" for the argument
    whose value is 'x'."""
    out = []
    for entry in words()["types"]:
        for m in re.finditer(entry["re"], text, re.I | re.M):
            g = {k: v for k, v in m.groupdict().items() if v}
            want = json_type(g.get("want", entry.get("want", "")) or "") or ""
            if "value" in g:
                value = _literal(g["value"].strip())
                hits = [p for p, v in arguments.items() if v == value or str(v) == str(value)]
            elif "b" in g:
                hits, want = _operands(g.get("a", entry.get("a", "")), g["b"], arguments)
            else:
                hits = [p for p, v in arguments.items() if python_type(v) == g.get("got")]
            if len(hits) == 1 and want:
                out.append((hits[0], want))
    return list(dict.fromkeys(out))


def _operands(a: str, b: str, arguments: Mapping[str, Any]) -> tuple[list[str], str]:
    """Which argument an operation on types a and b got wrong, and what it should be: a text
    where the other operand is a number should be a number; a number where the other operand
    is a text (and no argument is a text) should be a text."""
    numeric = {"int", "float"}
    texts = [p for p, v in arguments.items() if isinstance(v, str)]
    if "str" in (a, b) and {a, b} & numeric:
        if len(texts) == 1:
            return texts, "number"
        if not texts:
            other = next(t for t in (a, b) if t in numeric)
            return [p for p, v in arguments.items() if python_type(v) == other], "string"
    return [], ""


def base_literal(text: str, arguments: Mapping[str, Any]) -> tuple[str, str, str] | None:
    """"invalid literal for int() with base 2: '12'": the argument, its value, the base."""
    m = re.search(words()["base_literal"], text, re.I | re.M)
    if not m or m.group("base") == "10":
        return None
    value = str(_literal(m.group("value").strip()))
    hits = [p for p, v in arguments.items() if isinstance(v, str) and v == value]
    return (hits[0], value, m.group("base")) if len(hits) == 1 else None
