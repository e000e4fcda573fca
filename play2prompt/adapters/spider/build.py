"""Build Spider-derived tools and problems: ``p2p data spider``.

For each question of the split: run the gold SQL (drop it when it returns nothing or more than
100 rows), decompose it into functions (:mod:`.decompose`), and verify every solution set by
executing it through the real ``sqlite`` executor: the direct function and each composition
must return the gold rows (a composition that does not is dropped and counted). Functions are
shared between questions with the same SQL template. Then names are assigned (readable or
obfuscated), seed docs written (:mod:`.seed_docs`), and the output folder gets ``tools.json``,
``problems.jsonl``, ``manifest.json`` and a copy of the databases used under ``databases/``.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import sqlite3
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from play2prompt.adapters.spider.decompose import (
    Decomposition,
    FunctionDraft,
    SqlError,
    decompose,
    parse_sql,
)
from play2prompt.adapters.spider.functions import SpiderFunction
from play2prompt.adapters.spider.naming import assign_names
from play2prompt.adapters.spider.problems import (
    MANIFEST_FILE,
    PROBLEMS_FILE,
    TOOLS_FILE,
    Problem,
    SolutionCall,
    write_problems,
)
from play2prompt.adapters.spider.schema import DbSchema, read_schema, run_query
from play2prompt.adapters.spider.seed_docs import mechanical_doc, seed_doc
from play2prompt.errors import UserError
from play2prompt.jsonutil import canonical
from play2prompt.metaprompts import MetaPrompts
from play2prompt.tools.executors._base import ExecContext
from play2prompt.tools.executors.sqlite import SqliteExecutor, unique_keys
from play2prompt.tools.loading import dump_tools
from play2prompt.tools.model import Observation, Tool

SPLIT_FILES = {"dev": ("dev.json",), "train": ("train_spider.json",)}
MAX_GOLD_ROWS = 100


@dataclass
class _Draft:
    draft: FunctionDraft
    roles: set[str] = field(default_factory=set)
    problems: list[str] = field(default_factory=list)
    example: Any = None


@dataclass
class BuildResult:
    out_dir: Path
    tools: list[Tool]
    problems: list[Problem]
    stats: dict[str, Any]


def load_split(spider_dir: Path, split: str) -> list[dict[str, Any]]:
    if split not in SPLIT_FILES:
        raise UserError(f"unknown split {split!r} (one of {', '.join(SPLIT_FILES)})")
    if not spider_dir.is_dir():
        raise UserError(f"Spider folder not found: {spider_dir}")
    items: list[dict[str, Any]] = []
    for name in SPLIT_FILES[split]:
        path = spider_dir / name
        if not path.is_file():
            raise UserError(f"{spider_dir} has no {name} (is it a Spider folder?)")
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            raise UserError(f"{path}: not valid JSON (line {exc.lineno}: {exc.msg})") from exc
        if not isinstance(data, list):
            raise UserError(f"{path}: expected a list of questions")
        for i, item in enumerate(data):
            if not isinstance(item, Mapping) or not all(k in item for k in
                                                        ("db_id", "question", "query")):
                raise UserError(f"{path}: item {i} lacks db_id, question or query")
            items.append(dict(item))
    return items


def rows_key(records: Sequence[Any]) -> list[str]:
    """Order-free identity of a result (each row by its values)."""
    out = []
    for r in records:
        values = list(r.values()) if isinstance(r, Mapping) else list(r)
        out.append(canonical(values))
    return sorted(out)


def draft_executor(draft: FunctionDraft, schema: DbSchema) -> SqliteExecutor:
    fn = SpiderFunction(draft, "draft", {n: n for n in draft.param_names()}, str(schema.path))
    tool = fn.skeleton()
    return SqliteExecutor(tool, tool.executor or {}, ExecContext(base_dir=schema.path.parent))


class _Builder:
    def __init__(self, spider_dir: Path, split: str) -> None:
        self.spider_dir = spider_dir
        self.split = split
        self.schemas: dict[str, DbSchema] = {}
        self.drafts: dict[str, _Draft] = {}
        self.problems: list[tuple[Problem, list[list[tuple[str, dict, dict]]]]] = []
        self.stats: Counter[str] = Counter()

    def schema(self, db_id: str) -> DbSchema:
        if db_id not in self.schemas:
            path = self.spider_dir / "database" / db_id / f"{db_id}.sqlite"
            self.schemas[db_id] = read_schema(path, db_id)
        return self.schemas[db_id]

    def run(self, draft: FunctionDraft, args: dict[str, Any]) -> Observation:
        return draft_executor(draft, self.schema(draft.db_id)).execute(args)

    def add(self, pid: str, item: Mapping[str, Any]) -> None:
        self.stats["questions"] += 1
        db_id, sql = str(item["db_id"]), str(item["query"])
        try:
            schema = self.schema(db_id)
        except UserError:
            self.stats["dropped: missing database"] += 1
            return
        try:
            columns, rows = run_query(schema.path, sql, max_rows=MAX_GOLD_ROWS + 1)
        except sqlite3.Error:
            self.stats["dropped: gold SQL fails"] += 1
            return
        if not rows or len(rows) > MAX_GOLD_ROWS:
            self.stats["dropped: empty gold" if not rows else "dropped: > 100 gold rows"] += 1
            return
        try:
            dec = decompose(parse_sql(sql, schema), schema)
        except SqlError:
            self.stats["dropped: SQL not parsed"] += 1
            return
        keys = unique_keys(columns)
        gold = tuple(dict(zip(keys, r)) for r in rows)
        solutions = self.verified_solutions(dec, gold)
        if not solutions:
            self.stats["dropped: direct function differs from gold"] += 1
            return
        for sol in solutions:
            for key, _, _ in sol:
                self.drafts[key].problems.append(pid)
        problem = Problem(pid, db_id, str(item["question"]), sql, tuple(keys), gold, ())
        self.problems.append((problem, solutions))

    def verified_solutions(self, dec: Decomposition, gold: Sequence[Any]
                           ) -> list[list[tuple[str, dict, dict]]]:
        target = rows_key(gold)
        obs = self.run(dec.direct, dec.direct.gold_args())
        if not obs.ok or rows_key(obs.output) != target:
            return []
        self._register(dec.direct, "direct", obs.output)
        solutions = [[(dec.direct.key, dec.direct.gold_args(), {})]]
        for plan in dec.plans:
            calls, outputs = [], []
            for step in plan:
                args = dict(step.function.gold_args())
                args.update({name: outputs[i] for name, i in step.inputs.items()})
                out = self.run(step.function, args)
                if not out.ok:
                    break
                outputs.append(out.output)
                calls.append((step.function, args, dict(step.inputs), out.output))
            if len(calls) == len(plan) and rows_key(outputs[-1]) == target:
                for fn, _, inputs, output in calls:
                    self._register(fn, "outer" if inputs else "part", output)
                solutions.append([(fn.key, args, inputs) for fn, args, inputs, _ in calls])
            else:
                self.stats["compositions dropped (differ from gold)"] += 1
        return solutions

    def _register(self, draft: FunctionDraft, role: str, output: Any) -> None:
        entry = self.drafts.setdefault(draft.key, _Draft(draft))
        entry.roles.add(role)
        if entry.example is None and output:
            entry.example = output[:3]


def build_spider(spider_dir: Path, out_dir: Path, *, split: str = "dev",
                 limit: int | None = None, obfuscate: bool = False, generator: Any = None,
                 seed: int = 0, metaprompts_dir: Path | None = None,
                 on_doc: Callable[[str, str], None] | None = None) -> BuildResult:
    """Generate tools and problems from a Spider folder into ``out_dir``."""
    builder = _Builder(spider_dir, split)
    for i, item in enumerate(load_split(spider_dir, split)):
        if limit is not None and len(builder.problems) >= limit:
            break
        builder.add(f"{split}-{i:04d}", item)
    if not builder.problems:
        raise UserError(f"no usable question in {spider_dir} ({split}): "
                        + ", ".join(f"{k} {v}" for k, v in builder.stats.items()))
    out_dir.mkdir(parents=True, exist_ok=True)
    functions = _name_functions(builder, obfuscate, seed)
    docs = asyncio.run(_write_docs(functions, builder.schemas, generator,
                                   MetaPrompts(metaprompts_dir), seed, on_doc))
    tools = [fn.to_tool(doc, source) for fn, (doc, source, _) in zip(functions.values(), docs)]
    problems = _final_problems(builder, functions)
    _copy_databases(builder, out_dir)
    (out_dir / TOOLS_FILE).write_text(json.dumps(dump_tools(tools), indent=1) + "\n")
    write_problems(out_dir / PROBLEMS_FILE, problems)
    stats = dict(builder.stats)
    stats.update({
        "problems": len(problems),
        "problems with a backup plan": sum(1 for p in problems if p.has_backup),
        "functions": len(tools),
        "docs by the LLM": sum(1 for _, s, _ in docs if s == "llm"),
        "mechanical docs": sum(1 for _, s, _ in docs if s == "mechanical"),
        "rejected doc tries": sum(len(r) for _, _, r in docs),
    })
    manifest = {"spider_dir": str(spider_dir), "split": split, "limit": limit,
                "obfuscate": obfuscate, "seed": seed,
                "generator": getattr(generator, "model_id", None), "stats": stats}
    (out_dir / MANIFEST_FILE).write_text(json.dumps(manifest, indent=1) + "\n")
    return BuildResult(out_dir, tools, problems, stats)


def _name_functions(builder: _Builder, obfuscate: bool, seed: int) -> dict[str, SpiderFunction]:
    entries = list(builder.drafts.values())
    names = assign_names([e.draft for e in entries], obfuscate, seed)
    out = {}
    for entry, (name, renames) in zip(entries, names):
        database = f"databases/{entry.draft.db_id}.sqlite"
        out[entry.draft.key] = SpiderFunction(entry.draft, name, renames, database, entry.roles,
                                              sorted(set(entry.problems)), entry.example)
    return out


async def _write_docs(functions: Mapping[str, SpiderFunction], schemas: Mapping[str, DbSchema],
                      generator: Any, prompts: MetaPrompts, seed: int,
                      on_doc: Callable[[str, str], None] | None) -> list[tuple[Any, str, list]]:
    async def one(fn: SpiderFunction) -> tuple[Any, str, list]:
        if generator is None:
            result = (mechanical_doc(fn), "mechanical", [])
        else:
            result = await seed_doc(fn, schemas[fn.draft.db_id], generator, prompts, seed)
        if on_doc is not None:
            on_doc(fn.name, result[1])
        return result

    return list(await asyncio.gather(*(one(fn) for fn in functions.values())))


def _final_problems(builder: _Builder, functions: Mapping[str, SpiderFunction]) -> list[Problem]:
    out = []
    for problem, solutions in builder.problems:
        sols = []
        for sol in solutions:
            calls = []
            for key, args, inputs in sol:
                fn = functions[key]
                calls.append(SolutionCall(fn.name, fn.rename_args(args),
                                          {fn.renames[k]: v for k, v in inputs.items()}))
            sols.append(tuple(calls))
        out.append(Problem(problem.id, problem.db_id, problem.question, problem.query,
                           problem.columns, problem.gold, tuple(sols)))
    return out


def _copy_databases(builder: _Builder, out_dir: Path) -> None:
    target = out_dir / "databases"
    target.mkdir(parents=True, exist_ok=True)
    used = {p.db_id for p, _ in builder.problems}
    for db_id in sorted(used):
        shutil.copyfile(builder.schemas[db_id].path, target / f"{db_id}.sqlite")
