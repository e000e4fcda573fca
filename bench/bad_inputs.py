"""Malformed input across ``p2p``'s flags and files: how each is answered.

Each case is one real ``p2p`` subprocess (its memory capped, a time limit on it) given one
malformed flag value or file, classified as

- ``one line``: exit status 2, one line on standard error, no traceback;
- ``misleading``: one line, but it says something untrue (a folder reported as "no such file");
- ``traceback``: a traceback, or the CLI's "not expected" line (a bug's, exit 1);
- ``hang``: still running at the time limit (or killed for memory);
- ``accepted``: exit status 0: the input was taken although it cannot work;
- ``other``: anything else (several lines, another exit status).

    .venv/bin/python bench/bad_inputs.py              # the counts; -v: every case not one line

Every command uses the fake model (never the embedded one); a case that is accepted runs a
small optimize or evaluation (seconds).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
P2P = Path(sys.executable).parent / "p2p"
MEMORY_CAP = 3 * 2**30          # bytes of address space one case may take
CLASSES = ("one line", "misleading", "traceback", "hang", "accepted", "other")

OPT = ["--generator", "fake", "--preset", "quick", "--no-docs", "--runs-dir", "{runs}", "-q"]
EVAL = ["--queries", "{queries}", "--task-model", "fake", "--runs-dir", "{runs}", "-o", "{out}",
        "-q"]


@dataclass(frozen=True)
class Case:
    """One malformed input: the command (placeholders in braces), the file it names (written
    into the scratch folder as ``{file}``) and text its line must not hold."""

    name: str
    argv: tuple[str, ...]
    file: tuple[str, Any] | None = None
    untrue: str | None = None
    serves: bool = False        # a server: still serving at the time limit is "accepted"


@dataclass(frozen=True)
class Outcome:
    case: Case
    kind: str
    code: int | None
    err: str = field(repr=False)


# -- the corpus ---------------------------------------------------------------------------------
INT_FLAGS = ("width", "expand", "depth", "n-e", "max-tries", "doc-width", "doc-expand",
             "doc-depth", "doc-batch", "demos-per-tool", "patience", "observation-limit",
             "fact-tests", "siblings", "set-check", "draft-rounds")
FLOAT_FLAGS = ("lambda", "holdout", "drop-param-desc", "tool-timeout")


def _flag_cases() -> list[Case]:
    cases = []
    for flag in INT_FLAGS:
        for value in ("-1", "abc", "1.5", "1000000000"):
            cases.append(Case(f"optimize --{flag} {value}",
                              ("optimize", "{tools}", f"--{flag}", value, *OPT)))
    for flag in FLOAT_FLAGS:
        for value in ("nan", "inf", "-inf", "-1", "abc", "1e400"):
            cases.append(Case(f"optimize --{flag} {value}",
                              ("optimize", "{tools}", f"--{flag}", value, *OPT)))
    odd = [("--max-concurrency", "0"), ("--max-concurrency", "-1"), ("--max-concurrency", "abc"),
           ("--max-concurrency", "openai-compat=0"), ("--max-concurrency", "=3"),
           ("--search", "dfs"), ("--mode", "chat"), ("--preset", "huge"), ("--runner", "slurm"),
           ("--method", "magic"), ("--evidence", "telepathy"), ("--sibling-pick", "closest"),
           ("--opaque", "everything"), ("--allow-side-effects", "nope"), ("--tools", "nope"),
           ("--seed", "abc"), ("--seed", "-1"), ("--run-id", "../escape"), ("--run-id", ""),
           ("--generator", "nope:model"), ("--task-model", "nope:model"),
           ("--reuse-calls", "no-such-run"), ("--metaprompts", "{scratch}/no-such-folder"),
           ("--module", "no_such_module_xyz"), ("--benchmark", "nope"),
           ("--resume", "no-such-run"), ("--recompute", None), ("--draft-rounds", "0")]
    for flag, value in odd:
        extra = (flag,) if value is None else (flag, value)
        cases.append(Case(f"optimize {' '.join(extra)}", ("optimize", "{tools}", *OPT, *extra)))
    cases += [
        Case("optimize OTHER.json --resume ID --preset default",
             ("optimize", "{file}", "--resume", "{done}", "--preset", "default",
              "--generator", "fake", "--runs-dir", "{shared}", "-q"),
             ("other.json", _one_tool("other_tool"))),
        Case("optimize OTHER.json --resume ID", ("optimize", "{file}", "--resume", "{done}",
                                                 "--generator", "fake", "--runs-dir",
                                                 "{shared}", "-q"),
             ("other.json", _one_tool("other_tool"))),
        Case("optimize --resume ID --preset default",
             ("optimize", "--resume", "{done}", "--preset", "default", "--generator", "fake",
              "--runs-dir", "{shared}", "-q")),
        Case("optimize --resume ID --width 5",
             ("optimize", "--resume", "{done}", "--width", "5", "--generator", "fake",
              "--runs-dir", "{shared}", "-q")),
        Case("optimize (no tools)", ("optimize", *OPT)),
    ]
    return cases


def _eval_cases() -> list[Case]:
    bad = [("--temperature", "nan"), ("--temperature", "-1"), ("--temperature", "inf"),
           ("--temperature", "5"), ("--temperature", "abc"), ("--max-concurrency", "0"),
           ("--max-concurrency", "-1"), ("--demos", "-1"), ("--limit", "0"), ("--limit", "-1"),
           ("--drop-param-desc", "2"), ("--drop-param-desc", "nan"), ("--mode", "chat"),
           ("--variant", "half"), ("--seed", "abc"), ("--prompts", "no-such-run"),
           ("--oracle", "{scratch}/missing.json"), ("--opaque", "everything"),
           ("--tools", "nope"), ("--allow-side-effects", "nope"),
           ("--reuse-calls", "no-such-run")]
    cases = [Case(f"eval tools {flag} {value}", ("eval", "{tools}", *EVAL, flag, value))
             for flag, value in bad]
    for what, text in (("not JSON", "{not json\n"), ("empty", ""),
                       ("unknown tool", '{"query": "x", "calls": [{"name": "nope", '
                                        '"arguments": {}}]}\n'),
                       ("no query", '{"calls": []}\n'), ("a list", "[1, 2]\n")):
        cases.append(Case(f"eval --queries {what}",
                          ("eval", "{tools}", "--queries", "{file}", "--task-model", "fake",
                           "--runs-dir", "{runs}", "-o", "{out}", "-q"),
                          ("queries.jsonl", text)))
    cases.append(Case("eval no-such-benchmark", ("eval", "nosuchbench", "--task-model", "fake")))
    return cases


def _server_cases() -> list[Case]:
    serve = [("--port", v) for v in ("70000", "-1", "0", "abc", "99999")]
    serve += [("--host", "not a host!"), ("--host", "")]
    cases = [Case(f"serve {f} {v}", ("serve", "{done}", f, v, "--runs-dir", "{shared}"),
                  serves=True) for f, v in serve]
    cases.append(Case("serve no-such-run", ("serve", "no-such-run", "--runs-dir", "{shared}")))
    mcp = [("--port", v) for v in ("99999", "-1", "0", "abc")]
    cases += [Case(f"mcp --http {f} {v}", ("mcp", "{done}", "--http", f, v, "--runs-dir",
                                           "{shared}"), serves=True) for f, v in mcp]
    cases += [Case("mcp --demos-k -1", ("mcp", "{done}", "--demos-k", "-1", "--runs-dir",
                                        "{shared}")),
              Case("mcp --demos sometimes", ("mcp", "{done}", "--demos", "sometimes",
                                             "--runs-dir", "{shared}")),
              Case("mcp no-such-run", ("mcp", "no-such-run", "--runs-dir", "{shared}"))]
    return cases


def _other_command_cases() -> list[Case]:
    run = ("--runs-dir", "{shared}")
    return [
        Case("export --format nope", ("export", "{done}", "--format", "nope", *run)),
        Case("export --demos -1", ("export", "{done}", "--demos", "-1", *run)),
        Case("export --format all (no -o)", ("export", "{done}", "--format", "all", *run)),
        Case("export no-such-run", ("export", "no-such-run", *run)),
        Case("runs show no-such-run", ("runs", "show", "no-such-run", *run)),
        Case("runs list --runs-dir FILE", ("runs", "list", "--runs-dir", "{tools}")),
        Case("report no-such-run", ("report", "no-such-run", *run)),
        Case("report --tool nope", ("report", "{done}", "--tool", "nope", "-o", "{out}", *run)),
        Case("verify --limit 0", ("verify", "{done}", "--limit", "0", *run)),
        Case("verify --timeout nan", ("verify", "{done}", "--timeout", "nan", *run)),
        Case("verify --timeout -1", ("verify", "{done}", "--timeout", "-1", *run)),
        Case("verify --timeout 0", ("verify", "{done}", "--timeout", "0", *run)),
        Case("verify --match nope", ("verify", "{done}", "--match", "nope", *run)),
        Case("verify no-such-run", ("verify", "no-such-run", *run)),
        Case("refresh no-such-run", ("refresh", "no-such-run", "{tools}", *run)),
        Case("sweep --limit 0", ("sweep", "{tools}", "--queries", "{queries}", "--limit", "0",
                                 "--generator", "fake", "--runs-dir", "{runs}")),
        Case("sweep --temperature nan", ("sweep", "{tools}", "--queries", "{queries}",
                                         "--temperature", "nan", "--generator", "fake",
                                         "--runs-dir", "{runs}", "--limit", "1")),
        Case("sweep --max-concurrency 0", ("sweep", "{tools}", "--queries", "{queries}",
                                           "--max-concurrency", "0", "--generator", "fake",
                                           "--runs-dir", "{runs}", "--limit", "1")),
        Case("sweep --n-trials 0", ("sweep", "{tools}", "--queries", "{queries}", "--sampler",
                                    "random", "--no-grid", "--n-trials", "0", "--generator",
                                    "fake", "--runs-dir", "{runs}", "--limit", "1")),
        Case("sweep --space nope", ("sweep", "{tools}", "--queries", "{queries}", "--space",
                                    "nope=1,2", "--generator", "fake", "--runs-dir", "{runs}")),
        Case("sweep --space width=-1", ("sweep", "{tools}", "--queries", "{queries}",
                                        "--space", "width=-1,2", "--generator", "fake",
                                        "--runs-dir", "{runs}", "--limit", "1")),
        Case("sweep --sampler nope", ("sweep", "{tools}", "--queries", "{queries}",
                                      "--sampler", "nope", "--runs-dir", "{runs}")),
        Case("sweep --variants nope", ("sweep", "{tools}", "--queries", "{queries}",
                                       "--variants", "nope", "--runs-dir", "{runs}")),
        Case("tools from-mcp --start-timeout nan", ("tools", "from-mcp", "--start-timeout",
                                                    "nan", "--", sys.executable, "-c", "0")),
        Case("tools from-mcp --start-timeout -1", ("tools", "from-mcp", "--start-timeout",
                                                   "-1", "--", sys.executable, "-c", "0")),
        Case("tools from-mcp --url not a url", ("tools", "from-mcp", "--url", "not a url")),
        Case("models assemble nope", ("models", "assemble", "nope")),
        Case("drift simulate --kinds nope", ("drift", "simulate", "{tools}", "-o", "{out}",
                                             "--kinds", "nope")),
        Case("data bfcl --nope", ("data", "bfcl", "--nope")),
        Case("optimize --nope", ("optimize", "{tools}", "--nope")),
    ]


def _one_tool(name: Any = "convert_units", executor: Any = None, **fn: Any) -> dict[str, Any]:
    function = {"name": name, "description": "Converts units.",
                "parameters": {"type": "object", "properties": {
                    "value": {"type": "number", "description": "the value"},
                    "from_unit": {"type": "string", "description": "unit name"},
                    "to_unit": {"type": "string", "description": "unit name"}},
                    "required": ["value", "from_unit", "to_unit"]}}
    function.update(fn)
    return {"tools": [{"type": "function", "function": function,
                       "executor": executor or {"python": "tools.py:convert_units"}}]}


def _bounded(**bounds: Any) -> dict[str, Any]:
    schema = {"type": "number", "description": "the value", **bounds}
    return {"type": "object", "properties": {"value": schema}, "required": ["value"]}


def _sqlite(sql: Any, **extra: Any) -> dict[str, Any]:
    return {"sqlite": {"database": "shop.sqlite", "sql": sql, "params": {"value": "float"},
                       **extra}}


def _tools_file_cases() -> list[Case]:
    files: list[tuple[str, Any]] = [
        ("name with spaces", _one_tool("convert units")),
        ("name of 300 characters", _one_tool("n" * 300)),
        ("name with a zero-width space", _one_tool("convert\u200bunits")),
        ("name with a dot", _one_tool("units.convert")),
        ("name with an accent", _one_tool("convertir_unités")),
        ("name with a slash", _one_tool("convert/units")),
        ("name empty", _one_tool("")),
        ("name a number", _one_tool(7)),
        ("http url not a url", _one_tool(executor={"http": {"url": "not a url"}})),
        ("http url ftp", _one_tool(executor={"http": {"url": "ftp://example.com/x"}})),
        ("http url without host", _one_tool(executor={"http": {"url": "http://"}})),
        ("http url a number", _one_tool(executor={"http": {"url": 5}})),
        ("http method FETCH", _one_tool(executor={"http": {"url": "http://127.0.0.1:9/x",
                                                           "method": "FETCH"}})),
        ("http method empty", _one_tool(executor={"http": {"url": "http://127.0.0.1:9/x",
                                                           "method": ""}})),
        ("http body nope", _one_tool(executor={"http": {"url": "http://127.0.0.1:9/x",
                                                        "body": "xml"}})),
        ("http headers a list", _one_tool(executor={"http": {"url": "http://127.0.0.1:9/x",
                                                             "headers": ["a"]}})),
        ("minimum NaN", _one_tool(parameters=_bounded(minimum=float("nan")))),
        ("maximum -Infinity", _one_tool(parameters=_bounded(maximum=float("-inf")))),
        ("minimum > maximum", _one_tool(parameters=_bounded(minimum=10, maximum=1))),
        ("exclusiveMinimum >= maximum", _one_tool(parameters=_bounded(exclusiveMinimum=5,
                                                                      maximum=5))),
        ("minimum a string", _one_tool(parameters=_bounded(minimum="0"))),
        ("minLength > maxLength", _one_tool(parameters={
            "type": "object", "properties": {"value": {"type": "string", "minLength": 5,
                                                       "maxLength": 2}}})),
        ("minLength -1", _one_tool(parameters={
            "type": "object", "properties": {"value": {"type": "string", "minLength": -1}}})),
        ("minItems > maxItems", _one_tool(parameters={
            "type": "object", "properties": {"value": {"type": "array", "minItems": 3,
                                                       "maxItems": 1}}})),
        ("executor timeout NaN", _one_tool(executor={"python": "tools.py:convert_units",
                                                     "timeout": float("nan")})),
        ("sql does not parse", _one_tool(executor=_sqlite("SELEC price FROM items WHERE"))),
        ("sql names no table", _one_tool(executor=_sqlite("SELECT price FROM nowhere "
                                                          "WHERE price > :value"))),
        ("sql names no column", _one_tool(executor=_sqlite("SELECT nope FROM items "
                                                           "WHERE price > :value"))),
        ("sql no table at all", _one_tool(executor=_sqlite("SELECT :value"))),
        ("sql empty", _one_tool(executor=_sqlite(""))),
        ("sql a number", _one_tool(executor=_sqlite(5))),
        ("sqlite database missing", _one_tool(executor={"sqlite": {
            "database": "nowhere.sqlite", "sql": "SELECT price FROM items"}})),
        ("sqlite param type nope", _one_tool(executor={"sqlite": {
            "database": "shop.sqlite", "sql": "SELECT price FROM items WHERE price > :value",
            "params": {"value": "decimal"}}})),
        ("sqlite max_rows -1", _one_tool(executor=_sqlite("SELECT price FROM items WHERE "
                                                          "price > :value", max_rows=-1))),
        ("executor unknown kind", _one_tool(executor={"telepathy": {}})),
        ("parameters a list", _one_tool(parameters=[])),
        ("type nope", _one_tool(parameters={"type": "object", "properties": {
            "value": {"type": "numbr"}}})),
        ("tools empty", {"tools": []}),
        ("not JSON", "{\"tools\": [\n"),
        ("empty file", ""),
        ("NaN at top", "NaN"),
    ]
    cases = []
    for what, content in files:
        cases.append(Case(f"tools file: {what}", ("optimize", "{file}", *OPT),
                          ("tools.json", content)))
    for command in (("optimize", "{special}", *OPT), ("eval", "{special}", *EVAL),
                    ("eval", "{tools}", "--queries", "{special}", "--task-model", "fake",
                     "--runs-dir", "{runs}", "-o", "{out}", "-q"),
                    ("mcp", "{done}", "--tools", "{special}", "--runs-dir", "{shared}"),
                    ("verify", "{done}", "--tools", "{special}", "--runs-dir", "{shared}"),
                    ("drift", "simulate", "{special}", "-o", "{out}")):
        for special in ("{scratch}/a_folder", "/dev/null", "{scratch}/a_fifo"):
            argv = tuple(a.replace("{special}", special) for a in command)
            what = "queries" if "--queries" in command and \
                command[command.index("--queries") + 1] == "{special}" else "tools"
            cases.append(Case(f"{command[0]} {special.split('/')[-1]} as {what} file", argv,
                              untrue="no such file"))
    return cases


def corpus() -> list[Case]:
    return [*_flag_cases(), *_eval_cases(), *_server_cases(), *_other_command_cases(),
            *_tools_file_cases()]


# -- running ------------------------------------------------------------------------------------
def prepare(scratch: Path) -> dict[str, str]:
    """The scratch folder: the example tools and queries, a small database, a folder and a
    named pipe, and one finished run (a fake optimize) in a shared runs folder."""
    for name in ("tools.json", "tools.py", "queries.jsonl"):
        shutil.copy(EXAMPLES / name, scratch / name)
    with sqlite3.connect(scratch / "shop.sqlite") as db:
        db.execute("CREATE TABLE items (id INTEGER, name TEXT, price REAL)")
        db.execute("INSERT INTO items VALUES (1, 'pen', 1.5)")
    (scratch / "a_folder").mkdir()
    os.mkfifo(scratch / "a_fifo")
    shared = scratch / "shared-runs"
    subprocess.run([str(P2P), "optimize", str(scratch / "tools.json"), "--tools",
                    "convert_units", "--generator", "fake", "--preset", "quick", "--no-docs",
                    "--run-id", "done", "--runs-dir", str(shared), "-q"],
                   cwd=scratch, check=True, capture_output=True, timeout=300)
    return {"scratch": str(scratch), "tools": str(scratch / "tools.json"),
            "queries": str(scratch / "queries.jsonl"), "shared": str(shared), "done": "done"}


def _limit_memory() -> None:
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))


def run_case(index: int, case: Case, values: dict[str, str], timeout: float) -> Outcome:
    folder = Path(values["scratch"]) / f"case-{index:03d}"
    folder.mkdir()
    for name in ("tools.py", "shop.sqlite"):
        shutil.copy(Path(values["scratch"]) / name, folder / name)
    mine = {**values, "runs": str(folder / "runs"), "out": str(folder / "out")}
    if case.file is not None:
        name, content = case.file
        text = content if isinstance(content, str) else json.dumps(content)
        (folder / name).write_text(text, encoding="utf-8")
        mine["file"] = str(folder / name)
    argv = [str(P2P), *(a.format(**mine) for a in case.argv)]
    env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "200", "P2P_RUNS_DIR": mine["runs"]}
    env.pop("P2P_TRACEBACK", None)
    try:
        done = subprocess.run(argv, cwd=folder, capture_output=True, text=True, env=env,
                              timeout=timeout, stdin=subprocess.DEVNULL,
                              preexec_fn=_limit_memory)
    except subprocess.TimeoutExpired as exc:
        err = exc.stderr.decode(errors="replace") if isinstance(exc.stderr, bytes) else ""
        return Outcome(case, "accepted" if case.serves else "hang", None, err)
    return Outcome(case, classify(case, done.returncode, done.stderr), done.returncode,
                   done.stderr)


def classify(case: Case, code: int, err: str) -> str:
    lines = [line for line in err.splitlines() if line.strip()]
    if "Traceback (most recent call last)" in err or "not expected: P2P_TRACEBACK" in err:
        return "traceback"
    if code in (-9, 137) or "MemoryError" in err:
        return "hang"
    if code == 0:
        return "accepted"
    if code == 2 and len(lines) == 1:
        return "misleading" if case.untrue and case.untrue in lines[0] else "one line"
    return "other"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds per case")
    parser.add_argument("--jobs", type=int, default=2, help="cases run at once")
    parser.add_argument("--only", default="", help="only the cases whose name has this text")
    parser.add_argument("-v", "--verbose", action="store_true",
                        help="every case that is not one clear line, with its output's end")
    parser.add_argument("--json", type=Path, help="write every outcome here")
    args = parser.parse_args(argv)
    cases = [c for c in corpus() if args.only in c.name]
    with tempfile.TemporaryDirectory(prefix="p2p-bad-inputs-") as tmp:
        values = prepare(Path(tmp))
        with ThreadPoolExecutor(max(1, args.jobs)) as pool:
            outcomes = list(pool.map(lambda ic: run_case(*ic, values, args.timeout),
                                     enumerate(cases)))
    counts = Counter(o.kind for o in outcomes)
    if args.verbose:
        for o in outcomes:
            if o.kind != "one line":
                tail = " | ".join(o.err.strip().splitlines()[-2:])[:300]
                print(f"{o.kind:10} {o.case.name}: exit {o.code}: {tail}")
    if args.json:
        args.json.write_text(json.dumps([{"case": o.case.name, "kind": o.kind, "exit": o.code,
                                          "stderr": o.err} for o in outcomes], indent=1))
    print(f"{len(outcomes)} malformed inputs: " + ", ".join(
        f"{counts.get(k, 0)} {k}" for k in CLASSES))
    return 0


if __name__ == "__main__":
    sys.exit(main())
