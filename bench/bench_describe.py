"""How often the describe step (``evidence/describe.py``) says what an undocumented tool really
does: each tool of a finished run is described again from the executions the run logged for it
(its first ones, in the order they ran: play's calls and their probes come first), and the
description is printed beside the tool's real one, with a rough score: whether it names a
content word of the real name ("density" for ``calculate_density``; a word of four letters or
more, or an abbreviation the real description spells out, such as "gcd").

Made for opaque runs (names and descriptions blank, the real ones in the run's tool ``meta``
and in the benchmark or tools file): a new describe prompt (``--metaprompts DIR``), more calls
shown (``--calls N``) or another model is measured in minutes on the same evidence, not by a
whole optimize run. The score is a first filter; read the table.

    python bench/bench_describe.py --run bfcl-a-set --benchmark bfcl --subset simple,multiple \\
        [--model embedded:qwen2.5-coder-1.5b] [--calls 6] [--metaprompts DIR]

``--operations`` asks no model: each tool is described by the ``known-operations`` catalogue
alone (``evidence/operations.py``), run by code on the same logged calls.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import sqlite3
from contextlib import closing
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from play2prompt.evidence import describe
from play2prompt.lm.registry import make_lm
from play2prompt.metaprompts import MetaPrompts
from play2prompt.scrub import Scrubber
from play2prompt.tools.model import Invocation, Observation, Tool

GENERIC = {"calculate", "get", "math", "by", "compute", "find", "value", "from", "the", "of",
           "to", "and", "numbers", "number", "retrieve"}


def run_tools(db: sqlite3.Connection) -> list[Tool]:
    """The run's tools as given (opaque ones carry ``meta.real_name``), in name order."""
    rows = db.execute("SELECT result FROM results ORDER BY tool").fetchall()
    return [Tool.from_dict(json.loads(r[0])["original"]) for r in rows]


def logged_calls(db: sqlite3.Connection, tool: str) -> list[tuple[Invocation, Observation]]:
    rows = db.execute("SELECT arguments, observation FROM executions WHERE tool = ? "
                      "ORDER BY created", (tool,)).fetchall()
    return [(Invocation(tool, json.loads(a)), Observation.from_dict(json.loads(o)))
            for a, o in rows]


def real_docs(args: argparse.Namespace) -> dict[str, str]:
    """Real name -> real description, from the benchmark or a tools file."""
    if args.benchmark:
        from play2prompt.benchmarks import load_benchmark

        tools = load_benchmark(args.benchmark).optimize_tools(subset=args.subset).tools
    else:
        from play2prompt.tools.loading import load_tools

        tools = load_tools(args.tools_file)
    return {t.name: t.description or "" for t in tools}


def named(text: str, real_name: str, real_doc: str) -> bool:
    """Whether ``text`` names a content word of ``real_name`` (4-letter stems), or an
    abbreviation in it whose words ``real_doc`` spells out (gcd: greatest common divisor)."""
    said = {w[:4] for w in re.findall(r"[a-z]+", text.lower()) if len(w) >= 4}
    parts = [p.lower() for p in re.split(r"_|(?<=[a-z])(?=[A-Z])", real_name)
             if p and p.lower() not in GENERIC]
    if any(p[:4] in said for p in parts if len(p) >= 4):
        return True
    doc_words = re.findall(r"[a-z]+", real_doc.lower())
    for p in (p for p in parts if len(p) < 4):
        for i in range(len(doc_words) - len(p) + 1):
            run = doc_words[i:i + len(p)]
            if "".join(w[0] for w in run) == p and all(w[:4] in said for w in run):
                return True
    return False


async def describe_all(tools: list[Tool], db: sqlite3.Connection, lm: Any,
                       prompts: MetaPrompts, check: bool) -> list[tuple[Tool, str, str]]:
    """(tool, description, how its expression did: "" unchecked)."""
    engine = SimpleNamespace(generator=lm, prompts=prompts, scrubber=Scrubber())

    async def one(tool: Tool) -> tuple[Tool, str, str]:
        calls = logged_calls(db, tool.name)
        # describe-check: a guess that holds replaces the first description, which is then
        # not needed (the run asks for it first, before the probes give outputs to check)
        held = await describe.verified_description(tool, engine, calls) if check else None
        if held is not None:
            return tool, held.text, f"held on {held.check.checked}"
        said = await describe.describe_tool(tool, engine, calls)
        how = "never held" if check and describe.can_check(calls) else ""
        return tool, said.text if said is not None else "", how

    todo = [t for t in tools if describe.needs_description(t)]
    return list(await asyncio.gather(*(one(t) for t in todo)))


def catalogue_descriptions(tools: list[Tool], db: sqlite3.Connection
                           ) -> list[tuple[Tool, str, str]]:
    """(tool, the catalogue's description or "", how it held) for each undocumented tool."""
    from play2prompt.evidence.operations import known_description

    out = []
    for tool in (t for t in tools if describe.needs_description(t)):
        said = known_description(tool, logged_calls(db, tool.name))
        how = (f"held on {said.check.matched} of {said.check.checked}"
               if said is not None and said.check is not None else "none held")
        out.append((tool, said.text if said is not None else "", how))
    return out


def logged_descriptions(tools: list[Tool], result: Path) -> list[tuple[Tool, str, str]]:
    """The run's own ``describes`` facts of each tool (whole-tool ones), with how their
    expression did as the fact's evidence says ("... run on 6 of them (5 matched)")."""
    facts = {name: t["stats"]["facts"] for name, t in
             json.loads(result.read_text())["tools"].items()}
    out = []
    for tool in tools:
        said = [f for f in facts.get(tool.name, []) if f["kind"] == "describes"
                and not f["param"]]
        if said:
            found = re.search(r"run on (\d+) of them \((\d+) matched\)", said[0]["evidence"])
            how = "" if not found else (
                "never held" if said[0]["text"].startswith("What calls returned")
                else f"held on {found.group(2)} of {found.group(1)}")
            out.append((tool, said[0]["text"], how))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--run", required=True, help="run id under --runs-dir")
    ap.add_argument("--runs-dir", type=Path, default=Path("runs"))
    ap.add_argument("--benchmark", help="where the real docs are (bfcl)")
    ap.add_argument("--subset")
    ap.add_argument("--tools-file", type=Path, help="or: the real tools file")
    ap.add_argument("--model", default="embedded:qwen2.5-coder-1.5b")
    ap.add_argument("--calls", type=int, default=describe.MAX_CALLS,
                    help="executed calls that ran shown per tool")
    ap.add_argument("--metaprompts", type=Path, help="a folder with another describe.txt")
    ap.add_argument("--check", action="store_true",
                    help="the describe-check component: expressions run on the calls")
    ap.add_argument("--operations", action="store_true",
                    help="no model: the known-operations catalogue alone, on the logged calls")
    ap.add_argument("--logged", action="store_true",
                    help="no model: score the descriptions the run itself wrote (result.json)")
    args = ap.parse_args()
    if not args.benchmark and not args.tools_file:
        ap.error("give --benchmark or --tools-file (where the real docs are)")
    describe.MAX_CALLS = args.calls
    docs = real_docs(args)
    db_path = args.runs_dir / args.run / "run.db"
    with closing(sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)) as db:
        tools = run_tools(db)
        if args.logged:
            said = logged_descriptions(tools, args.runs_dir / args.run / "result.json")
            args.check, args.model = True, "as the run wrote them"
        elif args.operations:
            said = catalogue_descriptions(tools, db)
            args.check, args.model = True, "the known-operations catalogue, no model"
        else:
            lm = make_lm(args.model)
            try:
                said = asyncio.run(describe_all(tools, db, lm, MetaPrompts(args.metaprompts),
                                                args.check))
            finally:
                lm.close()
    hits = held = 0
    for tool, text, how in said:
        real = str(tool.meta.get("real_name", tool.name))
        ok = named(text, real, docs.get(real, ""))
        hits += ok
        held += how.startswith("held")
        print(f"{'+' if ok else '-'} {tool.name} = {real}: {docs.get(real, '?')}\n"
              f"    said{f' ({how})' if how else ''}: {text}")
    print(f"\n{hits} of {len(said)} descriptions name what the tool is"
          + (f", {held} expressions held" if args.check else "")
          + f" ({args.model}, {args.calls} calls shown, run {args.run})")


if __name__ == "__main__":
    main()
