"""The run store: one SQLite database per run (``runs/<run-id>/run.db``).

It holds the run's config, every LLM call (the call log doubles as the cache: a sample already
logged is never requested again), every tool execution, every search candidate with its reward,
parent, iteration and state, and the final prompts. Writes commit immediately (WAL mode), so a
run killed at any point resumes from what was written.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from play2prompt.errors import UserError
from play2prompt.store.blobs import pack, refs_in, unpack
from play2prompt.store.calls import LoggedCalls
from play2prompt.store.meta import RunMeta
from play2prompt.store.migrations import MIGRATIONS
from play2prompt.tools.model import Invocation, Observation

DB_NAME = "run.db"


class StoreError(UserError):
    """A run store that cannot be opened, read or written (damage, a full disk)."""


class RunStore(LoggedCalls):
    """A run's database. Thread-safe; pass it explicitly to whatever needs it."""

    def __init__(self, path: str | Path, read_only: bool = False) -> None:
        self.path = Path(path)
        self.read_only = read_only
        self._lock = threading.RLock()
        self._seeded: set[str] | None = None   # seeded samples not used yet (store/seeds.py)
        try:
            self._conn = self._connect()
            self._check_tables()
            if read_only:
                self._conn.execute("SELECT key FROM meta LIMIT 1").fetchall()
            else:
                self.migrate()
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{self.path}: not a play2prompt run store ({exc})") from exc
        except OSError as exc:
            raise StoreError(f"{self.path}: cannot open ({exc.strerror or exc})") from exc

    def _check_tables(self) -> None:
        """Refuse a database of something else (tables, none of them a run store's): a run
        store is never written over another program's data."""
        tables = sorted(r[0] for r in self._conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table'"))
        if tables and "meta" not in tables:
            shown = ", ".join(tables[:5]) + (", ..." if len(tables) > 5 else "")
            raise StoreError(f"{self.path}: not a play2prompt run store (its tables: {shown})")

    def _failed(self, exc: sqlite3.DatabaseError) -> StoreError:
        """One line for a store that cannot be read or written: a full disk, damage."""
        text = str(exc)
        if "full" in text.lower():
            return StoreError(f"{self.path}: the disk is full ({text}): free some space; what "
                              "was written is kept (continue a run with --resume)")
        return StoreError(f"{self.path}: damaged, or not a play2prompt run store ({text})")

    def _connect(self) -> sqlite3.Connection:
        if self.read_only:
            conn = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True,
                                   check_same_thread=False)
        else:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None,
                                   timeout=30)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
        conn.row_factory = sqlite3.Row
        return conn

    @property
    def run_dir(self) -> Path:
        return self.path.parent

    # -- schema ------------------------------------------------------------------------------
    def migrate(self) -> list[str]:
        with self._lock:
            self._conn.execute("CREATE TABLE IF NOT EXISTS migrations "
                               "(name TEXT PRIMARY KEY, applied REAL NOT NULL)")
            done = {r[0] for r in self._conn.execute("SELECT name FROM migrations")}
            applied = []
            for name, sql in MIGRATIONS:
                if name in done:
                    continue
                self._conn.executescript(f"BEGIN; {sql}; COMMIT;")
                self._conn.execute("INSERT INTO migrations VALUES (?, ?)", (name, time.time()))
                applied.append(name)
            return applied

    def applied_migrations(self) -> list[str]:
        return [r[0] for r in self._query("SELECT name FROM migrations ORDER BY name")]

    # -- low level ---------------------------------------------------------------------------
    def _exec(self, sql: str, params: tuple = ()) -> None:
        self._query(sql, params)

    def _query(self, sql: str, params: tuple = ()) -> list[sqlite3.Row]:
        """Run ``sql`` under the lock; damage to the database is one line (a missing table is
        passed on as it is: the migrations' concern)."""
        with self._lock:
            try:
                return list(self._conn.execute(sql, params))
            except sqlite3.OperationalError as exc:
                if str(exc).startswith("no such table"):
                    raise
                raise self._failed(exc) from exc
            except sqlite3.DatabaseError as exc:
                raise self._failed(exc) from exc

    def _json(self, text: str) -> Any:
        """A stored JSON text; one line when damage made it unreadable."""
        try:
            return json.loads(text)
        except (ValueError, TypeError) as exc:
            raise StoreError(f"{self.path}: damaged, or not a play2prompt run store "
                             f"(unreadable value: {exc})") from exc

    @contextmanager
    def transaction(self) -> Iterator[None]:
        with self._lock:
            self._conn.execute("BEGIN")
            try:
                yield
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            self._conn.execute("COMMIT")

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    # -- meta / config -----------------------------------------------------------------------
    def set_meta(self, key: str, value: Any) -> None:
        self._exec("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, json.dumps(value)))

    def get_meta(self, key: str, default: Any = None) -> Any:
        rows = self._query("SELECT value FROM meta WHERE key = ?", (key,))
        return self._json(rows[0][0]) if rows else default

    def all_meta(self) -> dict[str, Any]:
        return {r[0]: self._json(r[1]) for r in self._query("SELECT key, value FROM meta")}

    def run_meta(self) -> RunMeta:
        """The meta table as a typed record."""
        return RunMeta.from_dict(self.all_meta())

    # -- large outputs, stored once (store/blobs.py) -----------------------------------------
    def _put_blob(self, key: str, text: str) -> None:
        self._exec("INSERT OR IGNORE INTO blobs VALUES (?,?,?)", (key, text, len(text)))

    def _get_blob(self, key: str) -> str | None:
        rows = self._query("SELECT value FROM blobs WHERE key = ?", (key,))
        return rows[0][0] if rows else None

    def _dump(self, value: Any) -> str:
        return json.dumps(pack(value, self._put_blob), default=str)

    def _load(self, text: str) -> Any:
        return unpack(json.loads(text), self._get_blob)

    # -- tool executions ---------------------------------------------------------------------
    def get_execution(self, key: str) -> Observation | None:
        rows = self._query("SELECT observation FROM executions WHERE key = ?", (key,))
        return Observation.from_dict(self._load(rows[0][0])) if rows else None

    def put_execution(self, key: str, invocation: Invocation, obs: Observation) -> None:
        self._exec(
            "INSERT OR REPLACE INTO executions VALUES (?,?,?,?,?,?)",
            (key, invocation.name, json.dumps(invocation.to_dict()["arguments"]),
             self._dump(obs.to_dict()), int(obs.ok), time.time()),
        )

    def executions(self, tool: str) -> list[tuple[dict[str, Any], Observation]]:
        """A tool's executions: (arguments, observation), oldest first."""
        rows = self._query("SELECT arguments, observation FROM executions WHERE tool = ? "
                           "ORDER BY rowid", (tool,))
        return [(json.loads(r[0]), Observation.from_dict(self._load(r[1]))) for r in rows]

    def execution_stats(self) -> dict[str, dict[str, int]]:
        rows = self._query("SELECT tool, SUM(ok), COUNT(*) FROM executions GROUP BY tool")
        return {r[0]: {"ok": r[1] or 0, "total": r[2]} for r in rows}

    # -- search candidates -------------------------------------------------------------------
    def put_candidate(self, cid: str, *, tool: str, stage: str, iteration: int,
                      parent: str | None, state: str, reward: float | None,
                      payload: Mapping[str, Any]) -> None:
        self._exec(
            "INSERT OR REPLACE INTO candidates VALUES (?,?,?,?,?,?,?,?,?)",
            (cid, tool, stage, iteration, parent, state, reward, self._dump(payload),
             time.time()),
        )

    def candidates(self, tool: str | None = None, stage: str | None = None) -> list[dict]:
        sql, params = "SELECT * FROM candidates WHERE 1=1", []
        if tool is not None:
            sql += " AND tool = ?"
            params.append(tool)
        if stage is not None:
            sql += " AND stage = ?"
            params.append(stage)
        sql += " ORDER BY iteration, rowid"
        out = []
        for r in self._query(sql, tuple(params)):
            row = dict(r)
            row["payload"] = self._load(row["payload"])
            out.append(row)
        return out

    # -- moving rows between stores (distributed workers) -----------------------------------
    def export_rows(self, tool: str | None = None) -> dict[str, dict[str, list]]:
        """The logged LLM calls, executions and candidates (of one ``tool``, or all), as
        ``{table: {"columns": [...], "rows": [[...], ...]}}`` for :meth:`import_rows`."""
        where = {"llm_calls": "tag", "executions": "tool", "candidates": "tool"}
        out: dict[str, dict[str, list]] = {}
        with self._lock:
            for table, column in where.items():
                sql, params = f"SELECT * FROM {table}", ()
                if tool is not None:
                    sql, params = f"{sql} WHERE {column} = ?", (tool,)
                cur = self._conn.execute(sql + " ORDER BY rowid", params)
                out[table] = {"columns": [d[0] for d in cur.description],
                              "rows": [list(r) for r in cur]}
            keys = sorted({k for part in out.values() for row in part["rows"] for v in row
                           if isinstance(v, str) for k in refs_in(v)})
            cur = self._conn.execute(
                f"SELECT * FROM blobs WHERE key IN ({', '.join('?' for _ in keys)})", keys)
            out["blobs"] = {"columns": [d[0] for d in cur.description],
                            "rows": [list(r) for r in cur]}
            out["seeded_calls"] = self.seeded_rows(tool)
        return out

    def import_rows(self, data: Mapping[str, Mapping[str, list]]) -> int:
        """Add rows exported by another store; rows whose key is already here are kept as they
        are (same key, same content: the log is content-addressed), and its seeded samples'
        records merged (:meth:`merge_seeded`). Returns log rows added."""
        added = 0
        with self.transaction():
            for table in ("blobs", "llm_calls", "executions", "candidates"):
                part = data.get(table)
                if not part or not part["rows"]:
                    continue
                known = {r[1] for r in self._conn.execute(f"PRAGMA table_info({table})")}
                unknown = set(part["columns"]) - known
                if unknown:
                    raise ValueError(f"{table}: unknown columns {sorted(unknown)}")
                cols = ", ".join(part["columns"])
                marks = ", ".join("?" for _ in part["columns"])
                before = self._conn.total_changes
                self._conn.executemany(
                    f"INSERT OR IGNORE INTO {table} ({cols}) VALUES ({marks})",
                    [tuple(r) for r in part["rows"]])
                added += self._conn.total_changes - before
        self.merge_seeded(data.get("seeded_calls"))
        return added

    def clear_results(self) -> None:
        """Forget the final results (``--recompute``: redo every tool from the log)."""
        self._exec("DELETE FROM results")

    # -- final results -----------------------------------------------------------------------
    def put_result(self, tool: str, result: Mapping[str, Any]) -> None:
        self._exec("INSERT OR REPLACE INTO results VALUES (?,?,?)",
                   (tool, json.dumps(result, default=str), time.time()))

    def get_result(self, tool: str) -> dict[str, Any] | None:
        rows = self._query("SELECT result FROM results WHERE tool = ?", (tool,))
        return json.loads(rows[0][0]) if rows else None

    def results(self) -> dict[str, dict[str, Any]]:
        rows = self._query("SELECT tool, result FROM results ORDER BY rowid")
        return {r[0]: json.loads(r[1]) for r in rows}

    # -- sessions (each optimize() call on the run) -----------------------------------------
    def add_session(self, stats: Mapping[str, Any]) -> None:
        self._exec("INSERT INTO sessions (finished, stats) VALUES (?, ?)",
                   (time.time(), json.dumps(stats, default=str)))

    def sessions(self) -> list[dict[str, Any]]:
        try:
            rows = self._query("SELECT finished, stats FROM sessions ORDER BY id")
        except sqlite3.OperationalError:  # a read-only store from before the migration
            return []
        return [{"finished": r[0], **json.loads(r[1])} for r in rows]

    # -- evaluations -------------------------------------------------------------------------
    def put_eval(self, eval_id: str, name: str, config: Mapping[str, Any],
                 summary: Mapping[str, Any]) -> None:
        self._exec("INSERT OR REPLACE INTO evals VALUES (?,?,?,?,?)",
                   (eval_id, name, json.dumps(config, default=str),
                    json.dumps(summary, default=str), time.time()))

    def put_eval_item(self, eval_id: str, item_id: str, record: Mapping[str, Any]) -> None:
        self._exec("INSERT OR REPLACE INTO eval_items VALUES (?,?,?)",
                   (eval_id, item_id, json.dumps(record, default=str)))

    def get_eval_item(self, eval_id: str, item_id: str,
                      fingerprint: str | None = None) -> dict[str, Any] | None:
        """An item's record; with ``fingerprint``, only a record made the same way (its
        ``fingerprint`` field equal), so a changed setting redoes the item."""
        rows = self._query("SELECT record FROM eval_items WHERE eval_id = ? AND item_id = ?",
                           (eval_id, item_id))
        record = json.loads(rows[0][0]) if rows else None
        if record is not None and fingerprint is not None and \
                record.get("fingerprint") != fingerprint:
            return None
        return record

    def eval_outcomes(self, eval_id: str) -> dict[str, bool]:
        """Item id -> whether it was answered right, for every stored item of ``eval_id``."""
        rows = self._query("SELECT item_id, record FROM eval_items WHERE eval_id = ?",
                           (eval_id,))
        return {str(r[0]): bool(json.loads(r[1]).get("correct")) for r in rows}

    def evals(self) -> list[dict[str, Any]]:
        rows = self._query("SELECT * FROM evals ORDER BY created")
        return [{**dict(r), "config": json.loads(r["config"]), "summary": json.loads(r["summary"])}
                for r in rows]
