"""The seeded part of a run's call log: samples copied from earlier runs before the run
starts (:mod:`play2prompt.store.reuse`), which of them the run was answered from, and dropping
the unused ones when it finishes. A mixin of :class:`~play2prompt.store.db.RunStore`."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager
from pathlib import Path

from play2prompt.errors import UserError


class SeededSamples:
    """The seeding operations of a run store (its connection, lock and helpers)."""

    _conn: sqlite3.Connection
    _lock: threading.RLock
    _seeded: set[str] | None
    _query: Callable[..., list[sqlite3.Row]]
    _exec: Callable[..., None]
    transaction: Callable[[], AbstractContextManager[None]]

    def _used_only(self) -> str:
        """A SQL condition on ``llm_calls`` leaving out the seeded samples not used (yet): the
        log's counts are what the run used ("" for a store without seeded samples)."""
        rows = self._query("SELECT 1 FROM sqlite_master WHERE name = 'seeded_calls'")
        return " AND key NOT IN (SELECT key FROM seeded_calls WHERE hit = 0)" if rows else ""

    def _note_hit(self, key: str) -> None:
        """A sample served from the log: mark it used when it was seeded and not used yet."""
        with self._lock:
            if self._seeded is None:
                self._seeded = {r[0] for r in self._query(
                    "SELECT key FROM seeded_calls WHERE hit = 0")}
            if key in self._seeded:
                self._seeded.discard(key)
                self._exec("UPDATE seeded_calls SET hit = 1 WHERE key = ?", (key,))

    def _shared_call_columns(self) -> str:
        """The call-log columns this store and the attached ``src`` both have (a store written
        before a migration lacks the later columns; theirs take the default)."""
        def columns(db: str) -> list[str]:
            return [r[1] for r in self._conn.execute(f"PRAGMA {db}.table_info(llm_calls)")]
        theirs = set(columns("src"))
        return ", ".join(c for c in columns("main") if c in theirs)

    def import_samples(self, other: Path, models: Sequence[str], source: str) -> int:
        """Copy the logged samples of ``models`` from the run store at ``other`` into this
        one, in one statement (keys already here are kept), recording them as seeded from
        ``source``. Returns the samples added (:mod:`play2prompt.store.reuse`)."""
        if not models:
            return 0
        marks = ", ".join("?" for _ in models)
        picked = f"FROM src.llm_calls WHERE status = 'ok' AND model IN ({marks})"
        with self._lock:
            try:
                self._conn.execute("ATTACH DATABASE ? AS src", (str(other),))
                try:
                    cols = self._shared_call_columns()
                    with self.transaction():
                        before = self._conn.total_changes
                        self._conn.execute(
                            f"INSERT OR IGNORE INTO seeded_calls (key, source) SELECT key, ? "
                            f"{picked} AND key NOT IN (SELECT key FROM main.llm_calls)",
                            (source, *models))
                        added = self._conn.total_changes - before
                        self._conn.execute(f"INSERT OR IGNORE INTO llm_calls ({cols}) "
                                           f"SELECT {cols} {picked}", tuple(models))
                finally:
                    self._conn.execute("DETACH DATABASE src")
            except sqlite3.DatabaseError as exc:
                raise UserError(f"{other}: cannot reuse its calls ({exc})") from exc
            self._seeded = None
        return added

    def seeded_rows(self, tool: str | None = None) -> dict[str, list]:
        """The seeding records (of the samples tagged ``tool``, or all) for another store, as
        :meth:`~play2prompt.store.db.RunStore.export_rows` gives tables: a Ray worker answered
        from a seeded sample marks it used, and the driver learns it."""
        sql, params = "SELECT key, source, hit FROM seeded_calls", ()
        if tool is not None:
            sql += " WHERE key IN (SELECT key FROM llm_calls WHERE tag = ?)"
            params = (tool,)
        with self._lock:
            rows = [list(r) for r in self._conn.execute(sql + " ORDER BY key", params)]
        return {"columns": ["key", "source", "hit"], "rows": rows}

    def merge_seeded(self, part: Mapping[str, list] | None) -> None:
        """Take seeding records from another store: new ones added, and a sample used there is
        used here (a hit is never undone)."""
        if not part or not part.get("rows"):
            return
        rows = [dict(zip(part["columns"], r, strict=True)) for r in part["rows"]]
        with self.transaction():
            self._conn.executemany("INSERT OR IGNORE INTO seeded_calls (key, source, hit) "
                                   "VALUES (?, ?, ?)",
                                   [(r["key"], r["source"], int(r["hit"])) for r in rows])
            self._conn.executemany("UPDATE seeded_calls SET hit = 1 WHERE key = ?",
                                   [(r["key"],) for r in rows if r["hit"]])
        self._seeded = None

    def seeded_counts(self) -> tuple[int, int]:
        """(seeded samples still in the log, those of them this run was answered from)."""
        rows = self._query("SELECT COUNT(*), COALESCE(SUM(hit), 0) FROM seeded_calls")
        return int(rows[0][0]), int(rows[0][1])

    def prune_unused_seeds(self) -> int:
        """Drop the seeded samples the finished run never asked for: its log then holds what
        it used, so its logged cost is its configuration's. Returns the samples dropped."""
        with self.transaction():
            before = self._conn.total_changes
            self._conn.execute("DELETE FROM llm_calls WHERE key IN "
                               "(SELECT key FROM seeded_calls WHERE hit = 0)")
            dropped = self._conn.total_changes - before
            self._conn.execute("DELETE FROM seeded_calls WHERE hit = 0")
        self._seeded = None
        return dropped
