"""Gold SQL -> parameterised functions ("Hell or High Water", built from its description).

The gold query is parsed with ``sqlglot`` and walked depth-first, in the order clauses are
written. Every literal that is an input of the query (compared with a column or an aggregate,
listed in ``IN (...)``, a ``BETWEEN`` bound, a ``LIKE`` pattern, a ``LIMIT``/``OFFSET``) becomes a
named placeholder and a typed parameter (:mod:`.literals`); constants inside expressions (e.g. a
date format) stay.
Every subquery that runs on its own (a scalar subquery, ``IN (SELECT ...)``, a derived table,
the right side of ``UNION``/``INTERSECT``/``EXCEPT``) becomes a function of its own; the
*outer part* takes its result as a list argument, loaded into a temporary ``scratchpad`` table.
A query with one subquery thus yields three functions: the direct one, the subquery, the outer
part; calling the direct one equals calling the subquery and then the outer part on its result.
Correlated subqueries cannot run alone and stay inline.

Spider writes string literals in double quotes, which SQL parsers read as identifiers: a quoted
"column" that is no column of the database is turned back into a string.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import sqlglot
from sqlglot import exp

from play2prompt.adapters.spider.literals import (
    OPS,
    PREDICATES,
    Param,
    children,
    parameterize,
    resolve_column,
    sanitize,
    target_text,
    unique,
)
from play2prompt.adapters.spider.schema import DbSchema, output_columns
from play2prompt.jsonutil import stable_hash

SUB_KEY = "p2p_sub"
MAX_PLANS = 4


class SqlError(ValueError):
    """A gold query this adapter cannot turn into functions."""


@dataclass(frozen=True)
class ListParam:
    name: str
    table: str                   # the temporary table it is loaded into
    columns: tuple[str, ...]
    usage: str                   # how the query uses it ("stadium.stadium_id NOT IN", ...)


@dataclass(frozen=True)
class FunctionDraft:
    db_id: str
    sql: str                     # with :name placeholders
    params: tuple[Param, ...]
    lists: tuple[ListParam, ...] = ()
    tables: tuple[str, ...] = ()
    outputs: tuple[str, ...] = ()

    @property
    def key(self) -> str:
        """Identity across questions: the same template is the same function."""
        return stable_hash(self.db_id, self.sql, [(p.name, p.kind) for p in self.params],
                           [(lp.name, lp.table, list(lp.columns)) for lp in self.lists])

    def gold_args(self) -> dict[str, Any]:
        return {p.name: p.value for p in self.params}

    def param_names(self) -> list[str]:
        return [p.name for p in self.params] + [lp.name for lp in self.lists]


@dataclass(frozen=True)
class PlanStep:
    function: FunctionDraft
    inputs: Mapping[str, int] = field(default_factory=dict)  # list param -> producing step


@dataclass(frozen=True)
class Decomposition:
    direct: FunctionDraft
    plans: tuple[tuple[PlanStep, ...], ...] = ()  # compositions of smaller functions


# -- parsing -------------------------------------------------------------------------------
def parse_sql(sql: str, schema: DbSchema) -> exp.Expression:
    try:
        tree = sqlglot.parse_one(sql, read="sqlite")
    except sqlglot.errors.SqlglotError as exc:
        raise SqlError(f"cannot parse: {str(exc).splitlines()[0][:200]}") from exc
    if not isinstance(tree, (exp.Select, exp.SetOperation)):
        raise SqlError(f"not a query: {type(tree).__name__}")
    for col in list(tree.find_all(exp.Column)):
        ident = col.this
        if (isinstance(ident, exp.Identifier) and ident.quoted and not col.table
                and not schema.has_column_anywhere(ident.name)):
            col.replace(exp.Literal.string(ident.name))
    return tree


# -- subqueries ----------------------------------------------------------------------------
def immediate_subqueries(tree: exp.Expression) -> list[exp.Expression]:
    """Subqueries of ``tree`` not nested in another subquery, in written order."""
    found: list[exp.Expression] = []

    def visit(node: exp.Expression, root: bool) -> None:
        if (not root and isinstance(node, exp.Subquery)
                and isinstance(node.this, (exp.Select, exp.SetOperation))):
            found.append(node)
            return
        for child in children(node):
            if isinstance(node, exp.SetOperation) and child is node.args.get("expression"):
                found.append(child)
            else:
                visit(child, False)

    visit(tree, True)
    return found


def subquery_body(node: exp.Expression) -> exp.Expression:
    return node.this if isinstance(node, exp.Subquery) else node


def _usage(node: exp.Expression, schema: DbSchema) -> str:
    parent = node.parent
    if isinstance(parent, exp.SetOperation):
        return f"{type(parent).__name__.upper()} with the rows of the query"
    if isinstance(parent, (exp.From, exp.Join)):
        return "the rows the query reads (FROM)"
    if isinstance(parent, PREDICATES):
        neg = "NOT " if isinstance(parent.parent, exp.Not) else ""
        other = parent.this
        ref = resolve_column(other, schema) if isinstance(other, exp.Column) else None
        target = f"{ref[0]}.{ref[1]}" if ref else target_text(other)
        return f"{target} {neg}{OPS[type(parent)]}"
    return "a value used by the query"


def _scratchpad_ref(node: exp.Expression, table: str) -> exp.Expression:
    if isinstance(node.parent, (exp.From, exp.Join)):
        alias = node.args.get("alias")
        return exp.Table(this=exp.to_identifier(table), alias=alias.copy() if alias else None)
    select = exp.select("*").from_(table)
    return select if isinstance(node.parent, exp.SetOperation) else exp.Subquery(this=select)


# -- functions and decompositions ----------------------------------------------------------
def build_function(tree: exp.Expression, schema: DbSchema,
                   replaced: Mapping[int, tuple[str, tuple[str, ...], str]] | None = None
                   ) -> FunctionDraft:
    """The function of ``tree``; subqueries marked in ``replaced`` (mark -> (table, columns,
    usage)) become list parameters read from their temporary tables."""
    t = tree.copy()
    lists: list[ListParam] = []
    taken: set[str] = set()
    if replaced:
        marked = [n for n in t.walk() if n.meta.get(SUB_KEY) in replaced]
        for node in sorted(marked, key=lambda n: n.meta[SUB_KEY]):
            table, columns, usage = replaced[node.meta[SUB_KEY]]
            base = f"{sanitize(columns[0])}_values" if len(columns) == 1 else "rows"
            if "NOT IN" in usage:
                base = f"excluded_{base}"
            lists.append(ListParam(base, table, columns, usage))
            node.replace(_scratchpad_ref(node, table))
    params = parameterize(t, schema, taken)
    lists = [ListParam(unique(lp.name, taken), lp.table, lp.columns, lp.usage) for lp in lists]
    tables = []
    for tbl in t.find_all(exp.Table):
        name = schema.table(tbl.name)
        if name and name not in tables:
            tables.append(name)
    first = t
    while isinstance(first, exp.SetOperation):
        first = first.this
    outputs = tuple(e.sql(dialect="sqlite") for e in getattr(first, "expressions", []))
    return FunctionDraft(schema.db_id, t.sql(dialect="sqlite"), tuple(params), tuple(lists),
                         tuple(tables), outputs)


_marks = itertools.count(1)


def decompose(tree: exp.Expression, schema: DbSchema, max_plans: int = MAX_PLANS
              ) -> Decomposition:
    """The direct function of ``tree`` and its compositions of smaller functions."""
    direct = build_function(tree, schema)
    subs = []
    for node in immediate_subqueries(tree):
        columns = output_columns(schema.path, subquery_body(node).sql(dialect="sqlite"))
        if columns:
            subs.append((node, tuple(columns)))
    if not subs:
        return Decomposition(direct)
    replaced = {}
    for i, (node, columns) in enumerate(subs):
        mark = next(_marks)
        node.meta[SUB_KEY] = mark
        table = "scratchpad" if i == 0 else f"scratchpad_{i + 1}"
        replaced[mark] = (table, columns, _usage(node, schema))
    outer = build_function(tree, schema, replaced)
    alternatives = []
    for node, _ in subs:
        part = decompose(subquery_body(node).copy(), schema, max_plans)
        alternatives.append([(PlanStep(part.direct),), *part.plans])
    plans = []
    for combo in itertools.islice(itertools.product(*alternatives), max_plans):
        steps: list[PlanStep] = []
        inputs = {}
        for lp, seq in zip(outer.lists, combo):
            base = len(steps)
            steps += [PlanStep(s.function, {k: v + base for k, v in s.inputs.items()})
                      for s in seq]
            inputs[lp.name] = len(steps) - 1
        steps.append(PlanStep(outer, inputs))
        plans.append(tuple(steps))
    return Decomposition(direct, tuple(plans))
