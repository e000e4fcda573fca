"""Named schema migrations of the run store, applied in order and recorded by name."""

from __future__ import annotations

MIGRATIONS: list[tuple[str, str]] = [
    ("0001_initial", """
    CREATE TABLE meta (
        key TEXT PRIMARY KEY,
        value TEXT NOT NULL
    );
    CREATE TABLE llm_calls (
        key TEXT PRIMARY KEY,            -- hash of (model, request, sample index)
        model TEXT NOT NULL,
        role TEXT NOT NULL,
        tag TEXT NOT NULL DEFAULT '',    -- what the call was for (the tool being optimized)
        sample_index INTEGER NOT NULL,
        request TEXT NOT NULL,           -- JSON
        response TEXT,                   -- JSON Choice; NULL when failed
        status TEXT NOT NULL,            -- ok | error
        error TEXT,
        prompt_tokens INTEGER NOT NULL DEFAULT 0,
        completion_tokens INTEGER NOT NULL DEFAULT 0,
        latency_s REAL NOT NULL DEFAULT 0,
        created REAL NOT NULL
    );
    CREATE INDEX llm_calls_role ON llm_calls(role);
    CREATE INDEX llm_calls_tag ON llm_calls(tag);
    CREATE TABLE executions (
        key TEXT PRIMARY KEY,            -- canonical invocation
        tool TEXT NOT NULL,
        arguments TEXT NOT NULL,
        observation TEXT NOT NULL,
        ok INTEGER NOT NULL,
        created REAL NOT NULL
    );
    CREATE INDEX executions_tool ON executions(tool);
    CREATE TABLE candidates (
        id TEXT PRIMARY KEY,
        tool TEXT NOT NULL,
        stage TEXT NOT NULL,             -- play | example | doc
        iteration INTEGER NOT NULL,
        parent TEXT,
        state TEXT NOT NULL,             -- valid | invalid (play); kept | dropped (search)
        reward REAL,
        payload TEXT NOT NULL,           -- JSON
        created REAL NOT NULL
    );
    CREATE INDEX candidates_tool ON candidates(tool, stage);
    CREATE TABLE results (
        tool TEXT PRIMARY KEY,
        result TEXT NOT NULL,            -- JSON ToolResult
        created REAL NOT NULL
    );
    """),
    ("0002_evals", """
    CREATE TABLE evals (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        config TEXT NOT NULL,
        summary TEXT NOT NULL,
        created REAL NOT NULL
    );
    CREATE TABLE eval_items (
        eval_id TEXT NOT NULL,
        item_id TEXT NOT NULL,
        record TEXT NOT NULL,
        PRIMARY KEY (eval_id, item_id)
    );
    """),
    ("0003_sessions", """
    CREATE TABLE sessions (             -- one row per optimize() session of the run
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        finished REAL NOT NULL,
        stats TEXT NOT NULL              -- JSON: wall_s, LLM calls, cache hits, tokens
    );
    """),
    ("0004_blobs", """
    CREATE TABLE blobs (                -- large tool outputs, stored once (store/blobs.py)
        key TEXT PRIMARY KEY,            -- sha256 of the JSON text
        value TEXT NOT NULL,             -- the output as JSON text
        size INTEGER NOT NULL
    );
    """),
    ("0005_seeded_calls", """
    CREATE TABLE seeded_calls (         -- samples copied from earlier runs (--reuse-calls)
        key TEXT PRIMARY KEY,            -- the llm_calls key
        source TEXT NOT NULL,            -- the run it came from
        hit INTEGER NOT NULL DEFAULT 0   -- 1 once this run was answered from it
    );
    """),
    ("0006_cached_tokens", """
    ALTER TABLE llm_calls ADD COLUMN   -- prompt tokens the runtime served from its prefix cache
        cached_tokens INTEGER NOT NULL DEFAULT 0;
    """),
]
