"""Load tools from a tools.json file (DESIGN.md format) or a bare list of function specs.

Every problem is reported as one line naming the file, the tool and the field: a file that is
missing, too large, not UTF-8 (a byte-order mark is fine), not JSON or nested too deeply; an
unknown field (own fields start with ``x-``); a ``$ref`` that points nowhere; a bad executor.
A tool's ``"side_effects": true|false`` (see :mod:`play2prompt.tools.effects`) overrides what
its executor tells; absent, it is inferred.
"""

from __future__ import annotations

import json
import math
import re
import stat
import unicodedata
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from play2prompt.errors import ToolsFileError, UserError
from play2prompt.jsonutil import scan_json
from play2prompt.tools.effects import check_sandbox, declared_side_effects
from play2prompt.tools.executors._base import available_executors, executor_kind, find_executor
from play2prompt.tools.lint import lint_spec
from play2prompt.tools.model import Tool
from play2prompt.tools.types import normalize_schema

MAX_FILE_BYTES = 16 * 2**20   # a tools file larger than this is not a tools file
MAX_DEPTH = 64                # brackets nested deeper than this are not a schema
DOCUMENT_FIELDS = frozenset({"tools", "meta", "$schema", "version", "description"})
ENTRY_FIELDS = frozenset({"type", "function", "executor", "meta", "side_effects"})
DEFAULT_LOAD_TIMEOUT = 10.0  # seconds a tools module gets to load when its tool names none
FUNCTION_FIELDS = frozenset({"name", "description", "parameters", "strict", "response",
                             "returns"})


def load_tools(
    path: str | Path,
    module: str | None = None,
    select: Sequence[str] | None = None,
    check_executors: bool = True,
) -> list[Tool]:
    """Read ``path`` and return its tools (types normalised, executors checked).

    ``module`` (a ``.py`` file or an importable module) supplies a python executor for every
    tool that has none. ``select`` keeps only the named tools.
    """
    path = Path(path)
    data = read_json_file(path)
    check_fields(data, str(path))
    tools = parse_tools(data, source=str(path), module=module)
    if module and all(t.executor != {"python": f"{module}:{t.name}"} for t in tools):
        raise ToolsFileError(f"{path}: every tool names its executor; --module {module} is "
                             "for tools without one")
    if select:
        names = {t.name for t in tools}
        unknown = [s for s in select if s not in names]
        if unknown:
            raise ToolsFileError(f"{path}: unknown tool(s) {', '.join(unknown)}")
        tools = [t for t in tools if t.name in set(select)]
    for tool in tools:
        check_tool_name(tool.name, f"{path}: tool {_short(tool.name)}")
    if check_executors:
        check_tool_executors(tools, path.parent)
    return tools


# what OpenAI and Anthropic accept as a function's name
TOOL_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")


def _short(name: str) -> str:
    return repr(name if len(name) <= 40 else name[:40] + "...")


def check_tool_name(name: str, where: str) -> None:
    """One line unless ``name`` is 1 to 64 ASCII letters, digits, ``_`` or ``-`` (the rule
    of OpenAI's and Anthropic's APIs, which refuse any other name)."""
    if TOOL_NAME.fullmatch(name):
        return
    if len(name) > 64:
        why = f"{len(name)} characters long"
    else:
        bad = next(c for c in name if not TOOL_NAME.fullmatch(c))
        why = "it has a space" if bad == " " else \
            f"it has {unicodedata.name(bad, f'U+{ord(bad):04X}')} ({bad!r})"
    raise ToolsFileError(f"{where}: field 'name': {why}; OpenAI and Anthropic take 1 to 64 "
                         "letters, digits, '_' or '-'")


def read_json_file(path: Path, error: type[UserError] = ToolsFileError) -> Any:
    """A JSON file's content (a UTF-8 byte-order mark is allowed), or one line saying why not:
    missing, too large, not UTF-8, not JSON, nested too deeply."""
    if not path.is_file():
        raise error(f"{path}: {not_a_file(path)}")
    size = path.stat().st_size
    if size > MAX_FILE_BYTES:
        raise error(f"{path}: too large ({size / 2**20:.1f} MB; at most "
                    f"{MAX_FILE_BYTES // 2**20} MB)")
    raw = path.read_bytes()
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise error(f"{path}: not UTF-8 text (byte 0x{raw[exc.start]:02x} at offset "
                    f"{exc.start})") from exc
    if _depth_over(text, MAX_DEPTH):
        raise error(f"{path}: nested more than {MAX_DEPTH} levels deep")
    try:
        return json.loads(text, parse_constant=_not_json, parse_float=_finite)
    except json.JSONDecodeError as exc:
        raise error(f"{path}: not valid JSON (line {exc.lineno}: {exc.msg})") from exc
    except ValueError as exc:
        raise error(f"{path}: not valid JSON ({exc})") from exc


def _not_json(word: str) -> Any:
    raise ValueError(f"{word} is no JSON number")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text} is too large for a number")
    return value


def not_a_file(path: Path) -> str:
    """Why ``path`` (not a regular file) cannot be read as one, without opening it (a named
    pipe would block): missing, a folder, a named pipe, a device."""
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        return "no such file"
    except OSError as exc:
        return exc.strerror or "cannot be read"
    if stat.S_ISDIR(mode):
        return "a folder, not a file"
    if stat.S_ISFIFO(mode):
        return "a named pipe, not a file (give the file itself)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device, not a file"
    return "not a regular file"


def _depth_over(text: str, limit: int) -> bool:
    """Whether brackets outside strings nest deeper than ``limit`` (before parsing, so a
    pathological file costs no recursion)."""
    depth = 0
    for _, ch in scan_json(text).brackets:
        depth += 1 if ch in "[{" else -1
        if depth > limit:
            return True
    return False


def check_fields(data: Any, source: str) -> None:
    """Unknown fields of a tools file (a typo such as ``executer`` would silently leave a tool
    without its executor): one line naming the first."""
    if isinstance(data, Mapping):
        _known(data, DOCUMENT_FIELDS, source)
        entries = data.get("tools")
    else:
        entries = data
    for i, entry in enumerate(entries if isinstance(entries, list) else []):
        if not isinstance(entry, Mapping):
            continue
        fn = entry.get("function")
        name = (fn if isinstance(fn, Mapping) else entry).get("name", f"#{i}")
        where = f"{source}: tool {name!r}" if isinstance(name, str) else f"{source}: tool #{i}"
        if isinstance(fn, Mapping):
            _known(entry, ENTRY_FIELDS, where)
            _known(fn, FUNCTION_FIELDS, f"{where}: field 'function'")
        else:
            _known(entry, ENTRY_FIELDS | FUNCTION_FIELDS, where)


def _known(obj: Mapping[str, Any], known: frozenset[str], where: str) -> None:
    unknown = sorted(str(k) for k in obj if k not in known and not str(k).startswith("x-"))
    if unknown:
        raise ToolsFileError(f"{where}: unknown field {unknown[0]!r} (known: "
                             f"{', '.join(sorted(known))}; prefix your own with 'x-')")


def parse_tools(data: Any, source: str = "tools.json", module: str | None = None) -> list[Tool]:
    if isinstance(data, Mapping) and "tools" in data:
        entries = data["tools"]
    elif isinstance(data, list):
        entries = data
    else:
        raise ToolsFileError(f"{source}: expected {{\"tools\": [...]}} or a list of functions")
    if not isinstance(entries, list) or not entries:
        raise ToolsFileError(f"{source}: 'tools' must be a non-empty list")
    tools, seen = [], set()
    for i, entry in enumerate(entries):
        tool = _parse_entry(entry, i, source, module)
        if tool.name in seen:
            raise ToolsFileError(f"{source}: tool #{i} {tool.name!r}: duplicate name")
        seen.add(tool.name)
        tools.append(tool)
    return tools


def _parse_entry(entry: Any, index: int, source: str, module: str | None) -> Tool:
    where = f"{source}: tool #{index}"
    if not isinstance(entry, Mapping):
        raise ToolsFileError(f"{where}: must be an object")
    fn = entry.get("function", entry) if entry.get("type", "function") == "function" else None
    if not isinstance(fn, Mapping):
        raise ToolsFileError(f"{where}: field 'function' must be an object")
    name = fn.get("name")
    if name is not None and not isinstance(name, str):
        raise ToolsFileError(f"{where}: field 'name' must be a text, got {type(name).__name__}")
    if not isinstance(name, str) or not name.strip():
        raise ToolsFileError(f"{where}: field 'name' is missing or empty")
    where = f"{source}: tool {name!r}"
    description = fn.get("description", "")
    if not isinstance(description, str):
        raise ToolsFileError(f"{where}: field 'description' must be a string")
    parameters = fn.get("parameters", {"type": "object", "properties": {}})
    errors = [i for i in lint_spec(name, description, parameters) if i.severity == "error"]
    if errors:
        raise ToolsFileError(f"{where}: field '{errors[0].field}': {errors[0].message}")
    executor = entry.get("executor")
    if executor is None and module:
        executor = {"python": f"{module}:{name}"}
    if executor is not None and not isinstance(executor, Mapping):
        raise ToolsFileError(f"{where}: field 'executor' must be an object")
    return Tool(
        name=name,
        description=description,
        parameters=normalize_schema(parameters),
        executor=dict(executor) if executor is not None else None,
        meta=dict(entry.get("meta") or {}),
        side_effects=declared_side_effects(entry, where),
    )


def check_tool_executors(tools: Sequence[Tool], base_dir: Path) -> None:
    """Fail early, on one line, for a missing executor, an unknown kind or an unknown module."""
    from play2prompt.tools.executors.python import check_loadable, check_spec

    python: list[tuple[str, str, object, float]] = []
    for tool in tools:
        kind = executor_kind(tool.executor, tool.name)
        timeout = (tool.executor or {}).get("timeout", 1)
        if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or \
                not timeout > 0 or not math.isfinite(timeout):
            raise ToolsFileError(f"tool {tool.name!r}: executor 'timeout' must be a finite "
                                 f"number of seconds > 0, got {timeout!r}")
        check_sandbox(tool.executor, kind, f"tool {tool.name!r}", base_dir)
        if find_executor(kind) is None:
            known = available_executors()
            raise ToolsFileError(
                f"tool {tool.name!r}: unknown executor {kind!r} (known: {', '.join(sorted(known))})"
            )
        _check_spec(tool, kind, base_dir)
        if kind == "python":
            spec = tool.executor["python"]  # type: ignore[index]
            ref = check_spec(spec, f"tool {tool.name!r}: executor 'python'")
            env = spec.get("env") if isinstance(spec, Mapping) else None
            python.append((tool.name, ref, env,
                           float((tool.executor or {}).get("timeout", DEFAULT_LOAD_TIMEOUT))))
    check_loadable(python, base_dir)


def _check_spec(tool: Tool, kind: str, base_dir: Path) -> None:
    """The static checks of an executor's spec, per kind (nothing started, nothing run)."""
    where = f"tool {tool.name!r}: executor {kind!r}"
    conf = (tool.executor or {}).get(kind)
    if kind == "mcp":
        from play2prompt.tools.executors._mcp_session import ServerSpec

        ServerSpec.from_conf(conf, base_dir, where)
    elif kind == "http":
        from play2prompt.tools.executors.http import check_spec

        check_spec(conf, where)
    elif kind == "sqlite":
        from play2prompt.tools.executors.sqlite import check_spec as check_sql

        check_sql(conf, where)


def dump_tools(tools: Sequence[Tool]) -> dict[str, Any]:
    """The tools.json document for ``tools``."""
    return {"tools": [t.to_dict() for t in tools]}
