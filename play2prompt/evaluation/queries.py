"""The user's own queries: a JSON Lines file, one query per line.

``{"id": "q1", "query": "...", "calls": [{"name": "tool", "arguments": {...}}],
"match": "exact" | "real_time" | "structural"}``

``match`` is optional (default ``exact``) and applies to every call; ``calls`` may hold several
calls for a parallel query (matched in any order). Optional ``category`` groups queries in the
table (default: the called tool names) and optional ``tools`` restricts the tools offered to the
task model (default: all tools of the tools.json).

A line that is not valid JSON, names an unknown tool, or has arguments that fail the tool's
schema is reported with its line number and skipped; blank lines and lines starting with ``#``
are ignored.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from play2prompt.config import split_names
from play2prompt.errors import UserError
from play2prompt.evaluation.items import EvalItem, EvalSuite, Skipped
from play2prompt.jsonutil import to_jsonable
from play2prompt.scoring.match import MATCH_TYPES
from play2prompt.tools.model import Invocation, Tool
from play2prompt.tools.validate import validation_errors


class BadLine(ValueError):
    """One line of the query file that cannot be used."""


@dataclass(frozen=True)
class QueryFile:
    items: list[EvalItem]
    bad: list[Skipped]          # id = "line N"


def load_queries(path: str | Path, tools: Sequence[Tool]) -> QueryFile:
    path = Path(path)
    if not path.is_file():
        from play2prompt.tools.loading import not_a_file

        raise UserError(f"{path}: {not_a_file(path).replace('file', 'query file')}")
    by_name = {t.name: t for t in tools}
    items: list[EvalItem] = []
    bad: list[Skipped] = []
    seen: set[str] = set()
    raw = path.read_bytes()
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise UserError(f"{path}: not UTF-8 text (byte 0x{raw[exc.start]:02x} at offset "
                        f"{exc.start})") from exc
    for number, line in enumerate(text.splitlines(), start=1):
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        try:
            item = parse_query_line(text, number, by_name)
            if item.id in seen:
                raise BadLine(f"duplicate id {item.id!r}")
        except BadLine as exc:
            bad.append(Skipped(f"line {number}", str(exc)))
            continue
        seen.add(item.id)
        items.append(item)
    return QueryFile(items, bad)


def parse_query_line(text: str, number: int, tools: Mapping[str, Tool]) -> EvalItem:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise BadLine(f"not valid JSON ({exc.msg} at column {exc.colno})") from exc
    if not isinstance(data, Mapping):
        raise BadLine("must be a JSON object")
    query = data.get("query")
    if not isinstance(query, str) or not query.strip():
        raise BadLine("field 'query' is missing or empty")
    raw_calls = data.get("calls")
    if not isinstance(raw_calls, list) or not raw_calls:
        raise BadLine("field 'calls' must be a non-empty list of {\"name\", \"arguments\"}")
    calls = tuple(_parse_call(c, tools) for c in raw_calls)
    match = data.get("match", "exact")
    if match not in MATCH_TYPES:
        raise BadLine(f"unknown match {match!r} (one of {', '.join(MATCH_TYPES)})")
    offered = data.get("tools") or list(tools)
    if not isinstance(offered, list) or not all(isinstance(n, str) for n in offered):
        raise BadLine("field 'tools' must be a list of tool names")
    unknown = [n for n in offered if n not in tools]
    if unknown:
        raise BadLine(f"unknown tool {unknown[0]!r} in 'tools'")
    missing = [c.name for c in calls if c.name not in offered]
    if missing:
        raise BadLine(f"tool {missing[0]!r} is called but not in 'tools'")
    category = data.get("category") or "+".join(sorted({c.name for c in calls}))
    return EvalItem(id=str(data.get("id") or f"line{number}"), query=query.strip(),
                    calls=calls, match=(match,) * len(calls), category=str(category),
                    tools=tuple(offered))


def _parse_call(call: Any, tools: Mapping[str, Tool]) -> Invocation:
    if not isinstance(call, Mapping) or not isinstance(call.get("name"), str):
        raise BadLine("each call needs a 'name' and 'arguments'")
    name = call["name"]
    if name not in tools:
        raise BadLine(f"unknown tool {name!r} (tools: {', '.join(sorted(tools))})")
    arguments = call.get("arguments", {})
    errors = validation_errors(tools[name].parameters, arguments)
    if errors:
        raise BadLine(f"arguments of {name!r} fail its schema: {'; '.join(errors[:3])}")
    return Invocation(name, to_jsonable(dict(arguments)))


def only_tools(tools: Sequence[Tool], queries: QueryFile, names: Sequence[str]
               ) -> tuple[list[Tool], QueryFile]:
    """The tools named (comma lists allowed) and the queries whose calls use only them."""
    wanted = set(split_names(names))
    unknown = sorted(wanted - {t.name for t in tools})
    if unknown:
        raise UserError(f"--tools: no tool named {', '.join(unknown)} in the tools file")
    kept = [replace(item, tools=tuple(n for n in item.tools if n in wanted))
            for item in queries.items if all(c.name in wanted for c in item.calls)]
    return [t for t in tools if t.name in wanted], QueryFile(kept, queries.bad)


def tools_suite(tools: Sequence[Tool], queries: QueryFile, name: str,
                base_dir: Path | None) -> EvalSuite:
    """The suite for ``p2p eval tools.json --queries FILE``."""
    if not queries.items:
        reason = f" ({len(queries.bad)} bad line(s))" if queries.bad else ""
        raise UserError(f"no usable query in the query file{reason}")
    return EvalSuite(name=name, items=list(queries.items), tools={t.name: t for t in tools},
                     require_exec=True, base_dir=base_dir, notes=bad_line_notes(queries))


def bad_line_notes(queries: QueryFile) -> list[str]:
    if not queries.bad:
        return []
    return [f"skipped {len(queries.bad)} bad line(s) of the query file:",
            *(f"  {b.id}: {b.reason}" for b in queries.bad)]
