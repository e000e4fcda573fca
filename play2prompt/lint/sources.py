"""What ``p2p lint`` reads: a tools.json, an OpenAPI spec or a Python module, as targets.

A tools.json is read leniently: a schema the loader would refuse is a finding (``P2P001``),
not the end of the lint. Each target knows where its tool is written (file and line, for SARIF
and code review) and whether its source declares if it changes things. An MCP server's tools
come from :func:`play2prompt.adapters.mcp.load_mcp_tools` (the command line imports them and
hands them to :func:`server_targets`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from play2prompt.errors import ToolsFileError, UserError
from play2prompt.lint.findings import Finding, Target, make
from play2prompt.tools.effects import declared_side_effects
from play2prompt.tools.lint import lint_spec
from play2prompt.tools.model import Tool
from play2prompt.tools.types import normalize_schema

_MODULE = re.compile(r"^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*$")


def source_kind(source: str) -> str:
    """``tools``, ``openapi`` or ``python`` for a SOURCE argument (one line when none)."""
    path = Path(source)
    suffix = path.suffix.lower()
    if suffix == ".py" or (not path.exists() and _MODULE.match(source) and suffix != ".json"):
        return "python"
    if suffix in (".yaml", ".yml"):
        return "openapi"
    if suffix == ".json":
        from play2prompt.tools.loading import read_json_file

        data = read_json_file(path)
        return "openapi" if isinstance(data, Mapping) and ("openapi" in data or
                                                          "swagger" in data) else "tools"
    raise UserError(f"{source}: not a tools.json, an OpenAPI spec (.json, .yaml) or a Python "
                    "module (.py or pkg.module); for an MCP server: p2p lint --mcp -- CMD")


def load_targets(source: str) -> tuple[list[Target], list[Finding]]:
    """The targets of one SOURCE and the findings reading it made (a tools file's schema
    errors)."""
    kind = source_kind(source)
    if kind == "python":
        from play2prompt.lint.pyfuncs import module_targets

        return module_targets(source), []
    if kind == "openapi":
        return openapi_targets(Path(source)), []
    return tools_file_targets(Path(source))


def tools_file_targets(path: Path) -> tuple[list[Target], list[Finding]]:
    """A tools.json's tools, each at its line; a schema the loader refuses is kept raw and
    reported."""
    from play2prompt.tools.loading import check_fields, read_json_file

    data = read_json_file(path)
    text = path.read_text(encoding="utf-8-sig")
    found: list[Finding] = []
    try:
        check_fields(data, str(path))
    except ToolsFileError as exc:
        found.append(make("P2P001", "*", "fields", str(exc).removeprefix(f"{path}: ")))
    entries = data.get("tools") if isinstance(data, Mapping) else data
    if not isinstance(entries, list) or not entries:
        raise ToolsFileError(f"{path}: expected {{\"tools\": [...]}} or a non-empty list of "
                             "functions")
    targets = []
    for i, entry in enumerate(entries):
        target = _entry_target(entry, i, str(path))
        line = _line_of(text, [f'"name"\\s*:\\s*"{re.escape(target.tool.name)}"'])
        targets.append(Target(target.tool, target.effects_declared,
                              {"uri": str(path), **({"line": line} if line else {})}))
    return targets, [f.at({"uri": str(path)}) for f in found]


def _entry_target(entry: Any, index: int, source: str) -> Target:
    where = f"{source}: tool #{index}"
    if not isinstance(entry, Mapping):
        raise ToolsFileError(f"{where}: must be an object")
    fn = entry.get("function", entry)
    if not isinstance(fn, Mapping) or not isinstance(fn.get("name"), str) or \
            not fn["name"].strip():
        raise ToolsFileError(f"{where}: field 'name' is missing or empty")
    name = fn["name"]
    description = fn.get("description") or ""
    parameters = fn.get("parameters") or {"type": "object", "properties": {}}
    errors = [i for i in lint_spec(name, str(description), parameters) if i.severity == "error"]
    if not errors:
        parameters = normalize_schema(parameters)
    executor = entry.get("executor") if isinstance(entry.get("executor"), Mapping) else None
    declared = declared_side_effects(entry, f"{source}: tool {name!r}")
    tool = Tool(name, str(description), parameters, executor=executor,
                meta=dict(entry.get("meta") or {}), side_effects=declared)
    http = (executor or {}).get("http")
    says = declared is not None or (isinstance(http, Mapping) and "method" in http) or \
        "sqlite" in (executor or {})
    return Target(tool, says)


def openapi_targets(path: Path) -> list[Target]:
    """An OpenAPI spec's operations (:mod:`play2prompt.tools.openapi`), each at the line of
    its ``operationId`` when it has one; the method declares the side effects."""
    from play2prompt.tools.openapi import load_openapi

    tools = load_openapi(path)
    text = path.read_text(encoding="utf-8-sig")
    out = []
    for tool in tools:
        op = str(((tool.meta or {}).get("openapi") or {}).get("operationId") or tool.name)
        line = _line_of(text, [f'"operationId"\\s*:\\s*"{re.escape(op)}"',
                               f"operationId:\\s*['\"]?{re.escape(op)}['\"]?\\s*$"])
        out.append(Target(tool, True, {"uri": str(path), **({"line": line} if line else {})}))
    return out


def server_targets(tools: Sequence[Tool]) -> list[Target]:
    """An MCP server's tools (no file: their server is their source)."""
    return [Target(t, bool((((t.meta or {}).get("mcp") or {}).get("annotations") or {})
                           .get("readOnlyHint") is not None)) for t in tools]


def _line_of(text: str, patterns: Sequence[str]) -> int | None:
    for pattern in patterns:
        m = re.search(pattern, text, re.M)
        if m:
            return text.count("\n", 0, m.start()) + 1
    return None
