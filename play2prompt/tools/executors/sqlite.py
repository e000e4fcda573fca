"""SQLite queries as tools (the Spider-derived functions of "Hell or High Water").

Spec::

    {"sqlite": {
        "database": "databases/concert_singer.sqlite",   # relative to the tools.json folder
        "sql": "SELECT name FROM stadium WHERE capacity > :capacity
                AND NOT stadium_id IN (SELECT * FROM scratchpad)",
        "params": {"capacity": "integer"},                # integer | float | text
        "list_params": {"stadium_ids": {"table": "scratchpad", "columns": ["stadium_id"]}},
        "columns": {"capacity": {"table": "stadium", "column": "capacity", "match": "equals"}},
        "max_rows": 1000
    }}

- A single ``SELECT`` (``WITH ... SELECT`` too) opens the database read-only (``mode=ro``):
  nothing it does can change the database. Any other statement may write: the tool counts as
  having side effects (:mod:`play2prompt.tools.effects`) and play runs it only with consent,
  in a transaction that is committed, or with ``"sandbox": "rollback"`` next to ``"sqlite"`` in
  the executor spec, in a transaction rolled back after every call (the output is what the
  statement returned; the database is left as it was). A statement that returns no rows
  answers ``{"rows_changed": N}``.
- ``params`` are bound by name to the ``:name`` placeholders of ``sql``. Their Python types are
  checked strictly before anything runs: ``integer`` takes an int, ``float`` a float (an int is
  refused: "expected float, got int for x"), ``text`` a string.
- ``list_params`` carry the result of another query (a subquery computed by a separate call).
  Each is loaded into its own temporary table (``table``, e.g. ``scratchpad``) with the given
  columns, which ``sql`` reads. A list item may be a bare value (one column), a list of values
  (a row) or a record ``{column: value}`` as returned by another sqlite tool; a bare value is
  taken as a one-item list.
- ``columns`` (optional) ties text parameters to the column they are compared with
  (``match``: ``equals`` or ``contains`` for LIKE patterns). When the query returns nothing and
  a text value does not occur in its column, the call fails with the closest values of that
  column ("did you mean ...?").
- The output is a list of records ``[{column: value}, ...]`` (duplicate column names get a
  ``_2`` suffix), at most ``max_rows`` of them.
"""

from __future__ import annotations

import difflib
import re
import sqlite3
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from play2prompt.errors import ToolsFileError
from play2prompt.tools.effects import sql_reason
from play2prompt.tools.executors._base import Executor, ToolCallError

SCALAR_TYPES = ("integer", "float", "text")
DEFAULT_MAX_ROWS = 1000
MAX_DISTINCT_FOR_SUGGESTIONS = 20000


def type_name(value: Any) -> str:
    """The name used in type errors: int, float, str, bool, list, dict, None."""
    if value is None:
        return "None"
    return type(value).__name__


def check_scalar(name: str, kind: str, value: Any) -> None:
    """Raise a ``type`` ToolCallError unless ``value`` has the parameter's exact type."""
    ok = {
        "integer": isinstance(value, int) and not isinstance(value, bool),
        "float": isinstance(value, float),
        "text": isinstance(value, str),
    }[kind]
    if not ok:
        expected = {"integer": "int", "float": "float", "text": "str"}[kind]
        raise ToolCallError(f"expected {expected}, got {type_name(value)} for {name}", "type")


def rows_of(name: str, value: Any, columns: Sequence[str]) -> list[tuple[Any, ...]]:
    """The rows of a list argument, checked against the number of columns."""
    items = value if isinstance(value, list) else [value]
    rows: list[tuple[Any, ...]] = []
    for i, item in enumerate(items):
        if isinstance(item, Mapping):
            row = tuple(item.values())
        elif isinstance(item, (list, tuple)):
            row = tuple(item)
        else:
            row = (item,)
        if len(row) != len(columns):
            raise ToolCallError(
                f"expected {len(columns)} value(s) per item for {name} "
                f"({', '.join(columns)}), got {len(row)} in item {i}", "type")
        for v in row:
            if isinstance(v, (Mapping, list, tuple)):
                raise ToolCallError(f"item {i} of {name} holds a nested {type_name(v)}; "
                                    "give plain values", "type")
        rows.append(row)
    return rows


def unique_keys(names: Sequence[str]) -> list[str]:
    seen: dict[str, int] = {}
    out = []
    for name in names:
        if name in seen:
            seen[name] += 1
            out.append(f"{name}_{seen[name]}")
        else:
            seen[name] = 1
            out.append(name)
    return out


def quote_ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def check_spec(conf: Any, where: str) -> None:
    """One line unless ``conf`` (a sqlite executor's spec) names a database and one SQL
    statement that parses (sqlglot) and names a table, with known parameter types and a
    positive ``max_rows``.
    Whether its tables and columns exist is the database's to say (:func:`compile_check`)."""
    import logging

    import sqlglot

    if not isinstance(conf, Mapping) or not conf.get("database") or not conf.get("sql"):
        raise ToolsFileError(f"{where}: needs 'database' and 'sql'")
    sql = conf["sql"]
    if not isinstance(sql, str):
        raise ToolsFileError(f"{where}: 'sql' must be a text, got {type_name(sql)}")
    logger = logging.getLogger("sqlglot")
    level = logger.level
    logger.setLevel(logging.ERROR)
    try:
        statements = [s for s in sqlglot.parse(sql, read="sqlite") if s is not None]
    except sqlglot.errors.ParseError as exc:
        first = exc.errors[0] if exc.errors else {}
        what = re.sub(r"<class '(?:\w+\.)*(\w+)'>", r"\1", str(first.get("description", exc)))
        raise ToolsFileError(f"{where}: 'sql' does not parse (line {first.get('line', '?')}, "
                             f"column {first.get('col', '?')}: {what})") from None
    except sqlglot.errors.SqlglotError as exc:
        raise ToolsFileError(f"{where}: 'sql' does not parse ({str(exc).splitlines()[0]})"
                             ) from None
    finally:
        logger.setLevel(level)
    if len(statements) != 1:
        raise ToolsFileError(f"{where}: 'sql' holds {len(statements)} statements; a sqlite "
                             "tool runs one")
    if statements[0].find(sqlglot.exp.Table) is None:
        raise ToolsFileError(f"{where}: 'sql' names no table; a sqlite tool reads or writes "
                             "its database")
    params = conf.get("params") or {}
    bad = [f"{k}: {v!r}" for k, v in params.items() if v not in SCALAR_TYPES] \
        if isinstance(params, Mapping) else ["(not an object)"]
    if bad:
        raise ToolsFileError(f"{where}: 'params' {bad[0]}: a type is one of "
                             f"{', '.join(SCALAR_TYPES)}")
    rows = conf.get("max_rows", DEFAULT_MAX_ROWS)
    if isinstance(rows, bool) or not isinstance(rows, int) or rows < 1:
        raise ToolsFileError(f"{where}: 'max_rows' must be a whole number >= 1, got {rows!r}")


def compile_check(conf: Mapping[str, Any], database: Path) -> str | None:
    """What SQLite says compiling ``conf``'s SQL against ``database`` (read-only, nothing
    run; its list parameters' tables made empty): a table or column it lacks, a placeholder
    no parameter fills; None when it compiles."""
    conn = open_read_only(database)
    try:
        for spec in (conf.get("list_params") or {}).values():
            SqliteExecutor._load_list(conn, spec, [])
        binds = {name: None for name in (conf.get("params") or {})}
        conn.execute("EXPLAIN " + conf["sql"], binds)
    except sqlite3.Error as exc:
        return str(exc)
    finally:
        conn.close()
    return None


def open_read_only(path: Path) -> sqlite3.Connection:
    uri = f"file:{path.resolve().as_posix()}?mode=ro"
    return sqlite3.connect(uri, uri=True, check_same_thread=False)


def open_read_write(path: Path) -> sqlite3.Connection:
    """A connection that opens no transaction of its own (the caller says BEGIN)."""
    uri = f"file:{path.resolve().as_posix()}?mode=rw"
    return sqlite3.connect(uri, uri=True, check_same_thread=False, isolation_level=None)


class SqliteExecutor(Executor):
    def __init__(self, tool: Any, spec: Any, ctx: Any) -> None:
        super().__init__(tool, spec, ctx)
        conf = spec["sqlite"]
        if not isinstance(conf, Mapping) or not conf.get("database") or not conf.get("sql"):
            raise ToolCallError("sqlite executor needs 'database' and 'sql'", "config")
        path = Path(conf["database"])
        self.database = path if path.is_absolute() else Path(ctx.base_dir) / path
        self.sql: str = conf["sql"]
        self.params: dict[str, str] = dict(conf.get("params") or {})
        self.list_params: dict[str, Mapping[str, Any]] = dict(conf.get("list_params") or {})
        self.columns: dict[str, Any] = dict(conf.get("columns") or {})
        self.max_rows = int(conf.get("max_rows", DEFAULT_MAX_ROWS))
        self.writes = sql_reason(self.sql) is not None       # not a single SELECT
        self.rollback = spec.get("sandbox") == "rollback"   # every execution rolled back
        for name, kind in self.params.items():
            if kind not in SCALAR_TYPES:
                raise ToolCallError(f"parameter {name}: unknown type {kind!r} "
                                    f"(one of {', '.join(SCALAR_TYPES)})", "config")

    # -- checks ---------------------------------------------------------------------------
    def check_arguments(self, arguments: Mapping[str, Any]) -> dict[str, list[tuple]]:
        """Type-check every argument; return the rows of the list arguments."""
        known = set(self.params) | set(self.list_params)
        unknown = [k for k in arguments if k not in known]
        if unknown:
            raise ToolCallError(f"unknown argument(s) {', '.join(unknown)} "
                                f"(expected: {', '.join(sorted(known)) or 'none'})", "type")
        missing = [k for k in self.params if k not in arguments]
        missing += [k for k in self.list_params if k not in arguments]
        if missing:
            raise ToolCallError(f"missing argument(s) {', '.join(missing)}", "type")
        for name, kind in self.params.items():
            check_scalar(name, kind, arguments[name])
        return {name: rows_of(name, arguments[name], list(spec.get("columns") or ["value"]))
                for name, spec in self.list_params.items()}

    # -- execution ------------------------------------------------------------------------
    def _call(self, arguments: dict[str, Any], timeout: float) -> Any:
        lists = self.check_arguments(arguments)
        if not self.database.is_file():
            raise ToolCallError(f"database not found: {self.database}", "unavailable")
        conn = open_read_write(self.database) if self.writes else \
            open_read_only(self.database)
        deadline = time.monotonic() + timeout
        conn.set_progress_handler(lambda: int(time.monotonic() > deadline), 10000)
        try:
            if self.writes:
                conn.execute("BEGIN")
            for name, rows in lists.items():
                self._load_list(conn, self.list_params[name], rows)
            cur, rows = self._query(conn, {k: arguments[k] for k in self.params}, timeout)
            if cur.description is None:
                records: Any = {"rows_changed": max(cur.rowcount, 0)}
            else:
                keys = unique_keys([d[0] for d in cur.description])
                records = [dict(zip(keys, map(_plain, row))) for row in rows]
                if not records:
                    self._suggest(conn, arguments)
            if self.writes:
                conn.execute("ROLLBACK" if self.rollback else "COMMIT")
            return records
        finally:
            if conn.in_transaction:
                conn.rollback()
            conn.close()

    def _query(self, conn: sqlite3.Connection, binds: dict[str, Any],
               timeout: float) -> tuple[sqlite3.Cursor, list[Any]]:
        try:
            cur = conn.execute(self.sql, binds)
            return cur, cur.fetchmany(self.max_rows)
        except sqlite3.OperationalError as exc:
            if "interrupted" in str(exc):
                raise ToolCallError(f"query took longer than {timeout:g} s", "timeout") from exc
            raise ToolCallError(f"SQL error: {exc}", "sql") from exc

    @staticmethod
    def _load_list(conn: sqlite3.Connection, spec: Mapping[str, Any],
                   rows: list[tuple]) -> None:
        table = quote_ident(str(spec.get("table") or "scratchpad"))
        cols = list(spec.get("columns") or ["value"])
        conn.execute(f"CREATE TEMP TABLE {table} ({', '.join(quote_ident(c) for c in cols)})")
        marks = ", ".join("?" for _ in cols)
        conn.executemany(f"INSERT INTO temp.{table} VALUES ({marks})", rows)

    def _suggest(self, conn: sqlite3.Connection, arguments: Mapping[str, Any]) -> None:
        """An empty result: fail with close values when a text argument matches nothing."""
        hints = []
        for name, ref in self.columns.items():
            if self.params.get(name) != "text" or not isinstance(arguments.get(name), str):
                continue
            ref = ref if isinstance(ref, Mapping) else _parse_ref(str(ref))
            value = arguments[name]
            close = column_suggestions(conn, ref["table"], ref["column"], value,
                                       ref.get("match", "equals"))
            if close:
                shown = ", ".join(repr(c) for c in close)
                hints.append(f"{name}={value!r} matches no value of {ref['table']}.{ref['column']}"
                             f"; did you mean {shown}?")
        if hints:
            raise ToolCallError("no results: " + " ".join(hints), "no_match")


def _parse_ref(ref: str) -> dict[str, str]:
    table, _, column = ref.rpartition(".")
    return {"table": table, "column": column}


def column_suggestions(conn: sqlite3.Connection, table: str, column: str, value: str,
                       match: str = "equals", n: int = 3) -> list[str]:
    """Close values of ``table.column`` for ``value``, or [] when ``value`` occurs there."""
    t, c = quote_ident(table), quote_ident(column)
    try:
        if match == "contains":
            hit = conn.execute(f"SELECT 1 FROM {t} WHERE {c} LIKE ? LIMIT 1",
                               (f"%{value}%",)).fetchone()
        else:
            hit = conn.execute(f"SELECT 1 FROM {t} WHERE {c} = ? LIMIT 1", (value,)).fetchone()
        if hit:
            return []
        values = [str(r[0]) for r in conn.execute(
            f"SELECT DISTINCT {c} FROM {t} WHERE {c} IS NOT NULL LIMIT ?",
            (MAX_DISTINCT_FOR_SUGGESTIONS,))]
    except sqlite3.Error:
        return []
    low = value.strip().lower()
    exact = [v for v in values if v.strip().lower() == low]
    if match == "contains":
        exact += [v for v in values if low and low in v.lower() and v not in exact]
    lowered = {v.lower(): v for v in values}
    close = [lowered[m] for m in difflib.get_close_matches(low, list(lowered), n=n, cutoff=0.6)]
    out: list[str] = []
    for v in exact + close:
        if v not in out:
            out.append(v)
    return out[:n]


def _plain(value: Any) -> Any:
    if isinstance(value, bytes):
        return value.hex()
    return value
