"""How often the generator's first answer to m3 passes the request gates, under the m3 text a
run used and under today's: a change to the request prompt measured on the prompts a run
really sent, paired.

    python bench/bench_m3_gates.py --run q55 --tools examples/tools.json --old-rev e84277b

Each m3 request of ``runs/RUN/run.db`` (sample 0; the fact tests' m3 variant is left out) is
sent twice to a freshly loaded embedded model: once with the system text it was logged with,
once with the system text of ``play2prompt/metaprompts/m3_query.txt`` as it is now (the tool's
doc, which follows the fixed text, is kept; the user message is the logged one). Every reply
goes through the code gates (``request_problems``, without the call: what the gates find of
code, value lists, copied instructions and length). Reported: the share that passes under
each text, the prompts only one passes (McNemar's exact test) and the problems found. With
``--key NAME`` the second pass keeps the logged text and asks for the request under the JSON
key NAME instead of "query" (what the key's word primes: "query" reads as a search query). A draft
that fails a gate costs a redraft (up to three a call), so the pass rate is what a run pays
for in m3 calls.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import json
import sqlite3
import subprocess
from contextlib import closing
from pathlib import Path
from typing import Any

from play2prompt.evaluation.compare import mcnemar_exact
from play2prompt.evidence.gates import request_problems
from play2prompt.lm._base import ChatRequest
from play2prompt.lm.embedded import EmbeddedLM
from play2prompt.tools.loading import load_tools

TEMPLATE = "play2prompt/metaprompts/m3_query.txt"
OPENING = "You write the message a real person would send"
FACT_MARK = "One value is the point"


def fixed_system(template: str) -> str:
    """The system text of an m3 template before the doc is filled in."""
    system = template.split("[system]", 1)[1].split("[user]", 1)[0]
    return system.split("$doc", 1)[0].strip()


def load_m3(db_path: Path, old: str, limit: int) -> list[tuple[str, dict[str, Any], str]]:
    """(tool, logged request, the doc part of its system message) of each m3 request."""
    with closing(sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)) as db:
        rows = db.execute("SELECT tag, request FROM llm_calls WHERE status = 'ok' AND "
                          "sample_index = 0 ORDER BY created").fetchall()
    out = []
    for tag, request in rows:
        r = json.loads(request)
        system = r["messages"][0]["content"]
        if not system.startswith(OPENING) or FACT_MARK in system or not system.startswith(old):
            continue
        out.append((tag, r, system[len(old):]))
    return out[:limit]


def as_request(r: dict[str, Any], system: str, key: str = "query") -> ChatRequest:
    messages = ({"role": "system", "content": system}, *r["messages"][1:])
    schema = json.loads(json.dumps(r["json_schema"]).replace('"query"', json.dumps(key)))
    return ChatRequest(messages=messages, temperature=r["temperature"],
                       max_tokens=r["max_tokens"], json_schema=schema,
                       seed=r["seed"], role="generator")


def query_of(text: str) -> str:
    try:
        return str(next(iter(json.loads(text).values()))).strip()
    except (ValueError, KeyError, TypeError):
        return ""


async def gate_all(lm: EmbeddedLM, items: list[tuple[Any, ChatRequest, str]]
                   ) -> list[list[str]]:
    """The gates' problems with each reply (["no request"] when the model wrote none)."""
    async def one(tool: Any, req: ChatRequest, fixed: str) -> list[str]:
        reply = await lm.chat(req)
        query = query_of(reply.choices[0].text)
        user = req.messages[-1]["content"]
        return (request_problems(query, tool, [fixed, user.split("Values the message")[0]])
                if query else ["no request"])
    return list(await asyncio.gather(*(one(*it) for it in items)))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--run", required=True)
    ap.add_argument("--tools", required=True, help="the run's tools file")
    ap.add_argument("--old-rev", required=True, help="git revision of the m3 text the run used")
    ap.add_argument("--model", default="qwen2.5-coder-1.5b")
    ap.add_argument("--limit", type=int, default=80)
    ap.add_argument("--key", default="", help="second pass: the logged text, this JSON key")
    args = ap.parse_args()
    old = fixed_system(subprocess.check_output(["git", "show", f"{args.old_rev}:{TEMPLATE}"],
                                               text=True))
    new = fixed_system(Path(TEMPLATE).read_text())
    tools = {t.name: t for t in load_tools(Path(args.tools))}
    logged = load_m3(Path("runs") / args.run / "run.db", old, args.limit)
    lm = EmbeddedLM(args.model, parallel=2)
    lm.load()
    second = (f"key {args.key!r}", old, args.key) if args.key else ("current text", new, "query")
    results = {}
    for name, fixed, key in (("logged text", old, "query"), second):
        items = [(tools[tag], as_request(r, fixed + doc, key), fixed) for tag, r, doc in logged]
        results[name] = asyncio.run(gate_all(lm, items))
    lm.close()
    a, b = results["logged text"], results[second[0]]
    only_old = sum(not x and bool(y) for x, y in zip(a, b))
    only_new = sum(bool(x) and not y for x, y in zip(a, b))
    for name, found in results.items():
        passed = sum(not p for p in found)
        counts = collections.Counter(p.split(":")[0][:50] for ps in found for p in ps)
        print(f"{name}: {passed}/{len(found)} pass the code gates; "
              + "; ".join(f"{k} {v}" for k, v in counts.most_common()))
    print(f"passes only with the logged text {only_old}, only with the {second[0]} {only_new},"
          f" McNemar p = {mcnemar_exact(only_old, only_new):.3g}")


if __name__ == "__main__":
    main()
