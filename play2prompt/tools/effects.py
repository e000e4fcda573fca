"""Side effects: whether executing a tool may change something, and who allowed it.

A tool is read-only or it is not. What the tools file says (``"side_effects": true|false`` on
the tool's entry) wins; otherwise the executor tells:

- ``mcp``: the server's annotations: read-only only with ``readOnlyHint: true`` (a tool without
  annotations may change things, as the MCP specification says);
- ``http``: the method: ``GET``, ``HEAD`` and ``OPTIONS`` read, ``POST``, ``PUT``, ``PATCH`` and
  ``DELETE`` may write;
- ``sqlite``: the statement: read-only when it is one ``SELECT`` (``WITH ... SELECT``, ``UNION``
  included), parsed with sqlglot; anything else, or SQL that does not parse, may write;
- ``python``, ``callable``, ``simulated`` and other kinds: read-only (the user wrote the function;
  a function that writes says ``"side_effects": true``).

Play, probes, re-reading, evaluation, ``p2p verify`` and ``p2p refresh`` execute a tool that
may change things only with the consent of the command that executes it
(``--allow-side-effects NAME,...`` or ``all``; a stored run's consent is never reused, only named
as a hint) or in a sandbox
(``"sandbox": "rollback"`` in a sqlite executor spec: every execution is rolled back;
``"sandbox": {"copy": "repo/"}`` in any executor spec: the tool works on the run's copy of that
folder, :mod:`play2prompt.tools.sandbox`).
:class:`~play2prompt.tools.runtime.ToolRuntime` refuses the others with a ``consent``
observation; nothing is executed.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from play2prompt.errors import ToolsFileError, UserError

CONSENT = "consent"          # the error_type of a call refused for want of consent
ALL = "all"                  # --allow-side-effects all
READ_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
SANDBOXES = {"rollback": ("sqlite",)}   # sandbox -> executor kinds it works for


def mcp_reason(annotations: Mapping[str, Any] | None) -> str | None:
    """Why an MCP tool may change things (from its annotations), or None when read-only."""
    notes = annotations or {}
    if notes.get("readOnlyHint") is True:
        return None
    if not notes:
        return "MCP server gives no annotations: not read-only"
    if notes.get("destructiveHint", True) is not False:
        return "MCP annotations: not read-only, destructive"
    return "MCP annotations: not read-only"


def http_reason(conf: Any) -> str | None:
    """Why an HTTP tool may change things (its method), or None for GET, HEAD, OPTIONS."""
    method = str(conf.get("method", "GET")).upper() if isinstance(conf, Mapping) else "GET"
    return None if method in READ_METHODS else f"HTTP {method}"


def sql_reason(sql: Any) -> str | None:
    """Why a SQL statement may change things, or None when it is a single SELECT."""
    import sqlglot
    from sqlglot import exp

    if not isinstance(sql, str) or not sql.strip():
        return "no SQL statement"
    logger = logging.getLogger("sqlglot")
    level = logger.level
    logger.setLevel(logging.ERROR)   # "falling back to parsing as a Command" is ours to judge
    try:
        statements = [s for s in sqlglot.parse(sql, read="sqlite") if s is not None]
    except sqlglot.errors.SqlglotError:
        return "SQL statement that could not be parsed"
    finally:
        logger.setLevel(level)
    if len(statements) != 1:
        return f"{len(statements)} SQL statements"
    stmt = statements[0]
    while isinstance(stmt, exp.Subquery):
        stmt = stmt.this
    writes = (exp.Insert, exp.Update, exp.Delete, exp.Create, exp.Drop, exp.Alter,
              exp.Command, exp.Pragma, exp.Attach, exp.Detach)
    if isinstance(stmt, (exp.Select, exp.SetOperation)) and stmt.find(*writes) is None:
        return None
    return f"SQL {stmt.key.upper()} statement"


def inferred_reason(executor: Mapping[str, Any] | None,
                    meta: Mapping[str, Any] | None = None) -> str | None:
    """Why the executor may change things, from its spec (and an MCP tool's annotations in
    ``meta``), or None when it reads only."""
    spec = executor or {}
    if "mcp" in spec:
        mcp_meta = (meta or {}).get("mcp")
        notes = mcp_meta.get("annotations") if isinstance(mcp_meta, Mapping) else None
        return mcp_reason(notes if isinstance(notes, Mapping) else None)
    if "http" in spec:
        return http_reason(spec["http"])
    if "sqlite" in spec:
        conf = spec["sqlite"]
        return sql_reason(conf.get("sql") if isinstance(conf, Mapping) else None)
    return None


def declared_side_effects(entry: Mapping[str, Any], where: str) -> bool | None:
    """The tools file's ``"side_effects"`` for one entry (None when absent)."""
    value = entry.get("side_effects")
    if value is None:
        return None
    if not isinstance(value, bool):
        raise ToolsFileError(f"{where}: field 'side_effects' must be true or false, "
                             f"got {value!r}")
    return value


def side_effects_of(entry: Mapping[str, Any], executor: Mapping[str, Any] | None,
                    meta: Mapping[str, Any] | None, where: str = "tool") -> bool:
    """What a tools-file entry says, else what its executor tells."""
    declared = declared_side_effects(entry, where)
    if declared is not None:
        return declared
    return inferred_reason(executor, meta) is not None


def reason(tool: Any) -> str:
    """Why ``tool`` (a Tool with ``side_effects`` set) may change things."""
    return inferred_reason(tool.executor, tool.meta) or 'the tools file says "side_effects": true'


def sandbox(tool: Any) -> str | None:
    """The sandbox its executions run in (``rollback``, ``copy of repo/``), or None."""
    value = (tool.executor or {}).get("sandbox")
    if isinstance(value, Mapping):
        return f"copy of {value.get('copy')}"
    return str(value) if value is not None else None


def check_sandbox(executor: Mapping[str, Any] | None, kind: str, where: str,
                  base_dir: Any = None) -> None:
    """One line for a sandbox that does not exist or does not fit the executor (a folder to
    copy must be there, relative to ``base_dir`` when given)."""
    value = (executor or {}).get("sandbox")
    if value is None:
        return
    if isinstance(value, Mapping):
        check_copy(value, base_dir, where)
        return
    kinds = SANDBOXES.get(value) if isinstance(value, str) else None
    if kinds is None:
        raise ToolsFileError(f"{where}: executor 'sandbox' must be one of "
                             f"{', '.join(repr(s) for s in SANDBOXES)} or "
                             f"{{\"copy\": \"folder/\"}}, got {value!r}")
    if kind not in kinds:
        raise ToolsFileError(f"{where}: sandbox {value!r} works for {', '.join(kinds)} "
                             f"executors, not {kind!r}")


def allowed(name: str, allow: Iterable[str] | None) -> bool:
    """Whether ``allow`` (None: no gate) lets tool ``name`` have side effects."""
    if allow is None:
        return True
    names = set(allow)
    return ALL in names or name in names


def needs_consent(tool: Any, allow: Iterable[str] | None) -> str | None:
    """Why ``tool`` must not run under ``allow``, or None when it may run."""
    if not tool.side_effects or sandbox(tool) is not None or allowed(tool.name, allow):
        return None
    return reason(tool)


def refusal_text(name: str, why: str) -> str:
    """The one line said about a tool that is not executed."""
    return (f"tool {name!r} may change things ({why}); not executed: pass "
            f"--allow-side-effects {name}")


def stored_hint(name: str, stored: Iterable[str] | None, source: str) -> str:
    """What a stored run's consent would have allowed ``name``, as a hint ("" when nothing):
    consent belongs to the command that executes, so a stored run's is shown, never applied."""
    stored = tuple(stored or ())
    if not stored or not allowed(name, stored):
        return ""
    return (f" ({source} was made with --allow-side-effects {','.join(stored)}; a stored "
            "run's consent is not reused)")


def consent_notes(tools: Iterable[Any], allow: Iterable[str] | None,
                  stored: Iterable[str] | None = None, source: str = "the run") -> list[str]:
    """One line per tool that will not be executed under ``allow``; ``stored``: the consent
    ``source`` (a stored run) was made with, named as a hint where it would have allowed it."""
    allow = None if allow is None else tuple(allow)
    stored = tuple(stored or ())
    notes = []
    for tool in tools:
        why = needs_consent(tool, allow)
        if why is not None:
            notes.append(refusal_text(tool.name, why) + stored_hint(tool.name, stored, source))
    return notes


def parse_allow(values: Sequence[str] | None) -> tuple[str, ...]:
    """``--allow-side-effects`` values (repeatable, each comma-separated) as names."""
    names: list[str] = []
    for value in values or ():
        names.extend(part.strip() for part in str(value).split(",") if part.strip())
    return tuple(dict.fromkeys(names))


def check_allow(tools: Iterable[Any], allow: Iterable[str]) -> None:
    """One line for a name in ``--allow-side-effects`` that is no tool of the run."""
    known = {t.name for t in tools}
    unknown = sorted(set(allow) - known - {ALL})
    if unknown:
        raise UserError(f"--allow-side-effects names no tool of this run: {', '.join(unknown)} "
                        f"(tools: {', '.join(sorted(known))}; or 'all')")


COPY = "copy"           # the key of a folder sandbox: {"copy": "folder/"}


def check_copy(value: Any, base_dir: Path | None, where: str) -> None:
    """One line for a malformed copy sandbox or a folder that is not there."""
    if not isinstance(value, Mapping) or set(value) != {COPY} or \
            not isinstance(value[COPY], str) or not value[COPY].strip():
        raise ToolsFileError(f"{where}: executor 'sandbox' must be \"rollback\" or "
                             f"{{\"copy\": \"folder/\"}}, got {value!r}")
    if base_dir is None:
        return
    folder = Path(base_dir) / value[COPY]
    if not folder.is_dir():
        raise ToolsFileError(f"{where}: sandbox copy {value[COPY]!r}: no such folder "
                             f"({folder})")
