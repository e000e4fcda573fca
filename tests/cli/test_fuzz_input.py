"""Fuzzed input (hypothesis) over the CLI's flags and the tools file's schema: every command
ends with exit status 0 or 2, never a traceback, never a hang.

Each example runs ``p2p`` in this process (the fake model) under a time limit that fails it
(:func:`time_limit`: an alarm raised inside the command), never an assertion on a duration.
Values are either out of range or small (a valid width of a million would be a long run, not
a bad input); servers are given a run that does not exist, so a valid port ends too.
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import re
import shutil
import signal
import sqlite3
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from play2prompt import limits
from play2prompt.cli import main
from play2prompt.tools.executors.http import METHODS
from tests.conftest import EXAMPLES
from tests.emit.stored import make_stored_run

LIMIT_S = 30          # one example's time limit: far above a valid small run (about 1 s)
FUZZ = settings(max_examples=12, deadline=None, database=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow])


class CaseTimedOut(BaseException):
    """Raised inside the command at its time limit (a BaseException: the CLI's own
    handlers of Exception must not turn it into an exit status)."""


@contextlib.contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    def _alarm(signum, frame):
        raise CaseTimedOut(f"no answer within {seconds} s")

    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def run_cli(argv: list[str]) -> tuple[int, str]:
    err = io.StringIO()
    with time_limit(LIMIT_S), contextlib.redirect_stderr(err), \
            contextlib.redirect_stdout(io.StringIO()):
        code = main(argv)
    return code, err.getvalue()


def assert_answered(argv: list[str], code: int, err: str) -> None:
    assert "Traceback" not in err, (argv, err)
    assert code in (0, 2), (argv, code, err)
    if code == 2:
        lines = [line for line in err.splitlines() if line.strip()]
        assert lines and lines[-1].startswith("error: "), (argv, err)


@pytest.fixture(scope="module")
def scratch(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("fuzz")
    for name in ("tools.json", "tools.py", "queries.jsonl"):
        shutil.copy(EXAMPLES / name, root / name)
    with sqlite3.connect(root / "shop.sqlite") as db:
        db.execute("CREATE TABLE items (id INTEGER, name TEXT, price REAL)")
        db.execute("INSERT INTO items VALUES (1, 'pen', 1.5)")
    make_stored_run(root / "runs", "done")
    return root


# -- values ------------------------------------------------------------------------------------
JUNK = st.sampled_from(["", "abc", "1.5", "1e3", "nan", "-", "--", "0x10", "9" * 40, " 1",
                        "\u200b", "\U0001f600"])
COUNT = st.one_of(st.integers(-3, 3).map(str), st.integers(10**6, 10**30).map(str),
                  st.integers(-10**30, -4).map(str), JUNK)
NUMBER = st.one_of(st.floats(allow_nan=True, allow_infinity=True).map(repr),
                   st.sampled_from(["nan", "inf", "-inf", "1e400", "-0.0", "0", "0.5"]), JUNK)
WORD = st.one_of(st.text(max_size=12), st.sampled_from(["beam", "mc", "quick", "default",
                                                        "prompting", "full", "openai"]))

OPTIMIZE = {"--width": COUNT, "--expand": COUNT, "--depth": COUNT, "--n-e": COUNT,
            "--max-tries": COUNT, "--doc-batch": COUNT, "--demos-per-tool": COUNT,
            "--patience": COUNT, "--observation-limit": COUNT, "--fact-tests": COUNT,
            "--siblings": COUNT, "--set-check": COUNT, "--seed": COUNT, "--lambda": NUMBER,
            "--holdout": NUMBER, "--drop-param-desc": NUMBER, "--tool-timeout": NUMBER,
            "--max-concurrency": st.one_of(COUNT, WORD), "--search": WORD, "--mode": WORD,
            "--preset": WORD, "--draft-rounds": COUNT, "--sibling-pick": WORD}
EVAL = {"--temperature": NUMBER, "--max-concurrency": COUNT, "--demos": COUNT,
        "--limit": COUNT, "--drop-param-desc": NUMBER, "--seed": COUNT, "--mode": WORD,
        "--variant": WORD}
# a server given a valid port and host would serve: one of the two is always bad
BAD_PORT = st.one_of(st.integers(-10**30, 0), st.integers(65536, 10**30)).map(str) | JUNK
PORT = st.integers(1, 65535).map(str)
HOST = st.one_of(WORD, st.sampled_from(["", "::1", "127.0.0.1", "a b", "-x", "localhost"]))
BAD_HOST = st.sampled_from(["", "a b", "-x", "\u200b", "host_name", "a..b", "x" * 70])
SERVER_FLAGS = st.one_of(st.tuples(BAD_PORT, HOST), st.tuples(PORT, BAD_HOST)).map(
    lambda pair: ["--port", pair[0], "--host", pair[1]])


# the flags whose range is known (play2prompt.limits): a value outside it must be refused
RANGES = {"--width": limits.WIDTH, "--expand": limits.EXPAND, "--depth": limits.DEPTH,
          "--n-e": limits.N_E, "--max-tries": limits.MAX_TRIES, "--doc-batch": limits.DOC_BATCH,
          "--demos-per-tool": limits.COUNT, "--patience": limits.PATIENCE,
          "--observation-limit": limits.OBSERVATION_LIMIT, "--fact-tests": limits.COUNT,
          "--siblings": limits.COUNT, "--set-check": limits.COUNT, "--seed": limits.SEED,
          "--lambda": limits.LAMBDA, "--drop-param-desc": limits.SHARE,
          "--tool-timeout": limits.SECONDS, "--draft-rounds": limits.DRAFT_ROUNDS,
          "--temperature": limits.TEMPERATURE, "--demos": limits.DEMOS,
          "--limit": limits.QUERY_LIMIT, "--port": limits.PORT}


def out_of_range(extra: list[str]) -> bool:
    """Whether a flag of ``extra`` has a value outside its known range (or not a number)."""
    for flag, text in zip(extra[::2], extra[1::2]):
        limit = RANGES.get(flag)
        if limit is None:
            continue
        try:
            value: float = int(text) if limit.integer else float(text)
        except ValueError:
            return True
        if not limit.holds(value):
            return True
    return False


def flags(table: dict) -> st.SearchStrategy[list[str]]:
    pairs = st.lists(st.sampled_from(sorted(table)), min_size=1, max_size=3, unique=True)
    return pairs.flatmap(lambda names: st.tuples(*(table[n] for n in names)).map(
        lambda values: [part for n, v in zip(names, values) for part in (n, v)]))


def _in_scratch(scratch: Path, argv: list[str], extra: list[str]) -> None:
    with tempfile.TemporaryDirectory(dir=scratch) as tmp:
        filled = [a.format(root=scratch, tmp=tmp) for a in argv] + extra
        code, err = run_cli(filled)
    assert_answered(filled, code, err)
    if out_of_range(extra):
        assert code == 2, (extra, err)


BASE_OPTIMIZE = ["optimize", "{root}/tools.json", "--tools", "convert_units", "--generator",
                 "fake", "--preset", "quick", "--no-docs", "--evidence", "none", "--width",
                 "1", "--depth", "0", "--runs-dir", "{tmp}", "-q"]


@FUZZ
@given(extra=flags(OPTIMIZE))
def test_optimize_flags(scratch, extra):
    _in_scratch(scratch, BASE_OPTIMIZE, extra)


@FUZZ
@given(extra=flags(EVAL))
def test_eval_flags(scratch, extra):
    _in_scratch(scratch, ["eval", "{root}/tools.json", "--queries", "{root}/queries.jsonl",
                          "--tools", "convert_units", "--task-model", "fake", "--limit", "1",
                          "--runs-dir", "{tmp}", "-o", "{tmp}/out", "-q"], extra)


@FUZZ
@given(extra=SERVER_FLAGS, command=st.sampled_from(["serve", "mcp"]))
def test_server_flags(scratch, extra, command):
    http = ["--http"] if command == "mcp" else []
    argv = [command, "done", *http, "--runs-dir", str(scratch / "runs"), *extra]
    code, err = run_cli(argv)
    assert_answered(argv, code, err)
    assert code == 2, (argv, err)


# -- tools files -------------------------------------------------------------------------------
NAMES = st.one_of(st.sampled_from(["convert_units", "a", "x" * 64, "x" * 65, "with space",
                                   "zero\u200bwidth", "dot.name", "", "ünï", "-"]),
                  st.text(max_size=70))
BOUND_KEYS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
              "minLength", "maxLength", "minItems", "maxItems")
BOUND = st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.integers(-5, 5),
                  st.integers(-10**20, 10**20), st.sampled_from(["0", None, True, []]))
SCHEMA = st.fixed_dictionaries(
    {"type": st.sampled_from(["number", "integer", "string", "array", "numbr",
                              ["number", "null"]])},
    optional={k: BOUND for k in BOUND_KEYS} | {"description": st.text(max_size=10)})
HOSTS = ["127.0.0.1:9", "[::1]:9", "", "bad host", "{host}", "localhost:9"]
URL = st.builds(lambda scheme, host, path: f"{scheme}{host}/{path}",
                st.sampled_from(["http://", "https://", "ftp://", "", "HTTP://", "http:/"]),
                st.sampled_from(HOSTS), st.text(max_size=8))
SQL = st.one_of(st.sampled_from(["SELECT price FROM items WHERE price > :value",
                                 "SELECT price FROM nowhere", "SELEC price FROM", "",
                                 "SELECT nope FROM items", "SELECT 1; SELECT 2",
                                 "DELETE FROM items"]), st.text(max_size=20))
EXECUTOR = st.one_of(
    st.just({"python": "tools.py:convert_units"}),
    st.builds(lambda f: {"python": f"tools.py:{f}"}, st.text(max_size=10)),
    st.builds(lambda url, method, body: {"http": {"url": url, "method": method,
                                                  "body": body}},
              URL, st.one_of(st.sampled_from(["GET", "post", "FETCH", ""]), st.text(max_size=5)),
              st.sampled_from(["query", "json", "form", "xml"])),
    st.builds(lambda db, sql, rows: {"sqlite": {"database": db, "sql": sql,
                                                "params": {"value": "float"},
                                                "max_rows": rows}},
              st.sampled_from(["shop.sqlite", "missing.sqlite", ""]), SQL,
              st.one_of(st.integers(-2, 5), st.just("x"))),
    st.builds(lambda t: {"python": "tools.py:convert_units", "timeout": t}, BOUND))
TOOLS_FILE = st.builds(
    lambda name, schema, executor: {"tools": [{"type": "function", "function": {
        "name": name, "description": "Converts units.",
        "parameters": {"type": "object", "properties": {"value": schema},
                       "required": ["value"]}}, "executor": executor}]},
    NAMES, SCHEMA, EXECUTOR)


def must_refuse(document: dict) -> bool:
    """What a tools file certainly may not hold: a name the APIs refuse, a bound that is no
    finite number, an http URL that is not http(s) or a method HTTP lacks, SQL that does not
    parse or is several statements, no database, a max_rows below 1."""
    entry = document["tools"][0]
    name, schema = entry["function"]["name"], entry["function"]["parameters"]["properties"]
    if not re.fullmatch(r"[A-Za-z0-9_-]{1,64}", name):
        return True
    if any(isinstance(v, float) and not math.isfinite(v) for v in schema["value"].values()):
        return True
    http, sql = entry["executor"].get("http"), entry["executor"].get("sqlite")
    if http is not None:
        return not http["url"].lower().startswith(("http://", "https://")) or \
            http["method"].upper() not in METHODS or http["body"] == "xml"
    if sql is not None:
        return sql["sql"] in ("SELEC price FROM", "SELECT 1; SELECT 2", "") or \
            not sql["database"] or sql["max_rows"] == "x" or sql["max_rows"] < 1
    return False


@settings(FUZZ, max_examples=25)
@given(document=TOOLS_FILE)
def test_tools_file_schema(scratch, document):
    with tempfile.TemporaryDirectory(dir=scratch) as tmp:
        shutil.copy(scratch / "tools.py", Path(tmp) / "tools.py")
        shutil.copy(scratch / "shop.sqlite", Path(tmp) / "shop.sqlite")
        path = Path(tmp) / "tools.json"
        path.write_text(json.dumps(document), encoding="utf-8")
        argv = ["optimize", str(path), "--generator", "fake", "--preset", "quick", "--no-docs",
                "--evidence", "none", "--width", "1", "--depth", "0", "--runs-dir",
                str(Path(tmp) / "runs"), "-q"]
        code, err = run_cli(argv)
    assert_answered(argv, code, err)
    if must_refuse(document):
        assert code == 2, (document, err)


def test_the_time_limit_fails_a_case_that_hangs():
    """The limit is real: a command that does not end is stopped and fails its case."""
    with pytest.raises(CaseTimedOut), time_limit(0.2):
        signal.pause()
