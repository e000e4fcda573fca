"""Seed documentation of the Spider functions.

The generator LLM writes a doc from the SQL and the schema of the tables it reads, as JSON
under a schema (constrained decoding: the embedded model needs it). Code then checks it: the
doc linter (every parameter described, required names exist, JSON-Schema types), a minimum
length, and grounding (the description names a table or a column the function reads). A doc
that fails is asked for again, with the problems listed, up to 3 times; then a mechanical doc
naming the tables, columns and conditions is used.
"""

from __future__ import annotations

import json
import re
from typing import Any

import sqlglot
from sqlglot import exp

from play2prompt.adapters.spider.functions import SpiderFunction
from play2prompt.adapters.spider.schema import DbSchema
from play2prompt.jsonutil import derive_seed
from play2prompt.lm.structured import chat_json, object_schema
from play2prompt.metaprompts import MetaPrompts
from play2prompt.tools.lint import lint_tool
from play2prompt.tools.model import ToolDoc

DOC_TRIES = 3
MIN_DESCRIPTION = 20
MIN_DESCRIPTION_WORDS = 6
MIN_PARAM_WORDS = 3
_SQL = re.compile(r"\b(SELECT|FROM\s+\w+\s+WHERE|scratchpad)\b|:\w+|\{\{|\{\.\*\}")
_ECHO = re.compile(r"previous answer|was rejected|documentation of a function|"
                   r"you have written", re.I)
KIND_WORDS = {"integer": "An integer", "float": "A float (write a decimal point, e.g. 3.0)",
              "text": "A text"}


def doc_schema(param_names: list[str]) -> dict[str, Any]:
    params = object_schema({n: {"type": "string", "minLength": 3, "maxLength": 200}
                            for n in param_names})
    return object_schema({"description": {"type": "string", "minLength": MIN_DESCRIPTION,
                                          "maxLength": 400},
                          "params": params})


def _words(text: str) -> set[str]:
    return {w for w in re.split(r"[^a-z0-9]+", text.lower().replace("_", " ")) if w}


def grounding_terms(fn: SpiderFunction) -> set[str]:
    """Words a faithful description mentions: table names, columns read, outputs."""
    terms: set[str] = set()
    for table in fn.draft.tables:
        terms |= _words(table)
    for _, p in fn.params:
        if p.column:
            terms |= _words(p.column)
    for _, lp in fn.lists:
        for col in lp.columns:
            terms |= _words(col)
    for out in fn.draft.outputs:
        terms |= _words(re.sub(r"\b\w+\.", "", out))
    generic = {"t1", "t2", "t3", "t4", "as", "count", "avg", "sum", "min", "max", "distinct",
               "id", "name"}
    return (terms - generic) or terms


def doc_problems(fn: SpiderFunction, doc: ToolDoc) -> list[str]:
    """What is wrong with ``doc`` for ``fn`` (empty when it is usable)."""
    tool = fn.skeleton().with_doc(doc)
    problems = [f"{i.field}: {i.message}" for i in lint_tool(tool)]
    if (len(doc.description.strip()) < MIN_DESCRIPTION
            or len(doc.description.split()) < MIN_DESCRIPTION_WORDS):
        problems.append("the description is too short")
    terms = grounding_terms(fn)
    if terms and not (_words(doc.description) & terms):
        problems.append("the description names none of the tables or columns read: "
                        + ", ".join(sorted(terms)[:8]))
    for name in fn.parameters()["properties"]:
        if len(doc.params.get(name, "").split()) < MIN_PARAM_WORDS:
            problems.append(f"parameter {name} is not described in words")
    texts = [doc.description, *doc.params.values()]
    if any(_SQL.search(t) for t in texts):
        problems.append("the doc shows SQL; describe it in plain words")
    if any(_ECHO.search(t) for t in texts):
        problems.append("the doc repeats the instructions instead of describing the function")
    return problems


def _param_lines(fn: SpiderFunction) -> str:
    lines = []
    for name, p in fn.params:
        lines.append(f"- {name} ({p.kind}): compared with {p.target} ({p.op}); "
                     f"example {json.dumps(p.value)}")
    for name, lp in fn.lists:
        lines.append(f"- {name} (list): rows of {', '.join(lp.columns)} produced by another "
                     f"query; used as: {lp.usage} <{name}>")
    return "\n".join(lines) or "(none)"


async def seed_doc(fn: SpiderFunction, schema: DbSchema, lm: Any, prompts: MetaPrompts,
                   seed: int = 0) -> tuple[ToolDoc, str, list[str]]:
    """(doc, source 'llm'|'mechanical', problems of the rejected tries)."""
    names = list(fn.parameters()["properties"])
    rejected: list[str] = []
    feedback = ""
    example = json.dumps(fn.example, default=str)[:300] if fn.example is not None else "(none)"
    for attempt in range(DOC_TRIES):
        messages = prompts.render(
            "spider_seed_doc", db_id=fn.draft.db_id, schema=schema.describe(fn.draft.tables),
            sql=fn.sql, params=_param_lines(fn), example=example, feedback=feedback)
        (value,), _ = await chat_json(lm, messages, doc_schema(names), role="generator",
                                      seed=derive_seed(seed, fn.name, attempt), temperature=0.7,
                                      max_tokens=300)
        if not isinstance(value, dict):
            rejected.append("unreadable answer")
            continue
        doc = ToolDoc(str(value["description"]).strip(),
                      {k: str(v).strip() for k, v in (value.get("params") or {}).items()})
        problems = doc_problems(fn, doc)
        if not problems:
            return doc, "llm", rejected
        rejected.append("; ".join(problems))
        feedback = "A previous answer was rejected: " + "; ".join(problems[:4])
    return mechanical_doc(fn), "mechanical", rejected


def _sql_words(node: exp.Expression) -> str:
    text = node.sql(dialect="sqlite")
    return re.sub(r"(?<![\w:]):([A-Za-z_]\w*)", r"<\1>", text)


def query_clauses(fn: SpiderFunction) -> list[str]:
    """The query's shape in words: its conditions, grouping, order and set operations."""
    tree = sqlglot.parse_one(fn.sql, read="sqlite")
    lists = {lp.table.lower(): name for name, lp in fn.lists}
    for sub in list(tree.find_all(exp.Subquery)):
        src = sub.this.args.get("from_") if isinstance(sub.this, exp.Select) else None
        if src is not None and isinstance(src.this, exp.Table) and src.this.name.lower() in lists:
            sub.replace(exp.Placeholder(this=lists[src.this.name.lower()]))
    parts = []
    first = tree
    while isinstance(first, exp.SetOperation):
        op = type(first).__name__.upper()
        right = first.expression
        src = right.args.get("from_") if isinstance(right, exp.Select) else None
        if src is not None and isinstance(src.this, exp.Table) and src.this.name.lower() in lists:
            parts.append(f"combines them ({op}) with the rows given in "
                         f"<{lists[src.this.name.lower()]}>")
        else:
            parts.append(f"combines them ({op}) with: {_sql_words(right)}")
        first = first.this
    src = first.args.get("from_")
    if src is not None and isinstance(src.this, exp.Table) and src.this.name.lower() in lists:
        parts.insert(0, f"reads the rows given in <{lists[src.this.name.lower()]}>")
    labels = (("where", "keeps rows where"), ("group", "groups by"),
              ("having", "keeps groups where"), ("order", "sorts by"),
              ("limit", "returns at most"), ("offset", "skips"))
    for key, label in labels:
        node = first.args.get(key)
        if node is None:
            continue
        inner = node.this if key in ("where", "having") else node
        text = _sql_words(inner)
        for kw in ("GROUP BY ", "ORDER BY ", "LIMIT ", "OFFSET "):
            text = text.removeprefix(kw)
        suffix = " rows" if key in ("limit", "offset") else ""
        parts.insert(len(parts), f"{label} {text}{suffix}")
    return parts


def mechanical_doc(fn: SpiderFunction) -> ToolDoc:
    """A doc built from the query's structure: tables, output columns, conditions."""
    tables = ", ".join(fn.draft.tables) or "rows given as a list argument"
    outputs = ", ".join(re.sub(r"\b[A-Za-z_]\w*\.", "", o) for o in fn.draft.outputs) or "rows"
    text = (f"Reads {tables} in the {fn.draft.db_id} database and returns {outputs} "
            f"as a list of records.")
    clauses = query_clauses(fn)
    if clauses:
        text += " It " + "; ".join(clauses) + "."
    params = {}
    for name, p in fn.params:
        if p.op == "LIMIT":
            params[name] = "An integer: the maximum number of rows to return."
        elif p.op == "OFFSET":
            params[name] = "An integer: the number of rows to skip."
        elif p.match == "contains":
            params[name] = f"A text that {p.target} must contain (no wildcards needed)."
        else:
            params[name] = f"{KIND_WORDS[p.kind]} compared with {p.target} ({p.op})."
    for name, lp in fn.lists:
        params[name] = (f"A list of {', '.join(lp.columns)} values (or the records returned "
                        f"by another function), used as: {lp.usage} this list.")
    return ToolDoc(text, params)
