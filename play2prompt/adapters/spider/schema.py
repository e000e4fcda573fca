"""A Spider database: its tables, columns and column types, and read-only query helpers."""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from play2prompt.errors import UserError
from play2prompt.tools.executors.sqlite import open_read_only, quote_ident


def affinity(declared: str) -> str | None:
    """SQLite's type affinity of a declared column type, as a parameter kind (or None)."""
    t = (declared or "").upper()
    if "INT" in t:
        return "integer"
    if any(k in t for k in ("CHAR", "CLOB", "TEXT")):
        return "text"
    if any(k in t for k in ("REAL", "FLOA", "DOUB")):
        return "float"
    return None


@dataclass(frozen=True)
class DbSchema:
    db_id: str
    path: Path
    tables: Mapping[str, tuple[tuple[str, str], ...]]  # table -> ((column, declared type), ...)

    def table(self, name: str) -> str | None:
        """The table's name as spelled in the schema (case-insensitive lookup)."""
        low = name.lower()
        return next((t for t in self.tables if t.lower() == low), None)

    def column(self, table: str, column: str) -> str | None:
        real = self.table(table)
        if real is None:
            return None
        low = column.lower()
        return next((c for c, _ in self.tables[real] if c.lower() == low), None)

    def column_kind(self, table: str, column: str) -> str | None:
        real = self.table(table)
        if real is None:
            return None
        low = column.lower()
        return next((affinity(t) for c, t in self.tables[real] if c.lower() == low), None)

    def has_column_anywhere(self, column: str) -> bool:
        low = column.lower()
        return any(c.lower() == low for cols in self.tables.values() for c, _ in cols)

    def describe(self, tables: Sequence[str] | None = None) -> str:
        """``table(column TYPE, ...)`` lines for the given tables (all by default)."""
        names = [self.table(t) or t for t in tables] if tables else list(self.tables)
        lines = []
        for name in names:
            cols = self.tables.get(name)
            if cols is None:
                continue
            inner = ", ".join(f"{c} {t}".strip() for c, t in cols)
            lines.append(f"{name}({inner})")
        return "\n".join(lines)


def read_schema(path: Path, db_id: str) -> DbSchema:
    if not path.is_file():
        raise UserError(f"database {db_id!r} not found: {path}")
    conn = open_read_only(path)
    try:
        names = [r[0] for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' "
            "ORDER BY name")]
        tables = {}
        for name in names:
            info = conn.execute(f"PRAGMA table_info({quote_ident(name)})").fetchall()
            tables[name] = tuple((str(r[1]), str(r[2] or "")) for r in info)
    except sqlite3.DatabaseError as exc:
        raise UserError(f"database {db_id!r} ({path}) cannot be read: {exc}") from exc
    finally:
        conn.close()
    return DbSchema(db_id, path, tables)


def run_query(path: Path, sql: str, binds: Mapping[str, Any] | None = None,
              max_rows: int = 1001) -> tuple[list[str], list[tuple[Any, ...]]]:
    """Column names and rows of ``sql`` on the read-only database (raises sqlite3.Error)."""
    conn = open_read_only(path)
    try:
        cur = conn.execute(sql, dict(binds or {}))
        rows = cur.fetchmany(max_rows)
        return [d[0] for d in cur.description or []], [tuple(r) for r in rows]
    finally:
        conn.close()


def output_columns(path: Path, sql: str) -> list[str] | None:
    """The output columns of ``sql`` when it runs on its own (None if it cannot, e.g. it is
    correlated with an outer query)."""
    try:
        cols, _ = run_query(path, f"SELECT * FROM ({sql}) LIMIT 0")
    except sqlite3.Error:
        return None
    return cols
