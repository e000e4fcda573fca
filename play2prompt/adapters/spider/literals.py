"""Literals of a query -> typed, named parameters (part of :mod:`.decompose`).

A literal is an input of the query when it is compared with a column or an aggregate, listed in
``IN (...)``, a ``BETWEEN`` bound, a ``LIKE`` pattern or a ``LIMIT``/``OFFSET``. Its parameter is
named after what it is compared with (``country``, ``min_age``/``max_age`` for ``BETWEEN``,
``limit``) and typed from the literal and the column's affinity (an int against a REAL column is
a float; a quoted number against an INTEGER column is an integer). ``LIKE '%x%'`` becomes
``'%' || :name || '%'`` so the parameter holds just ``x``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from sqlglot import exp

from play2prompt.adapters.spider.schema import DbSchema

OPS = {exp.EQ: "=", exp.NEQ: "!=", exp.GT: ">", exp.GTE: ">=", exp.LT: "<", exp.LTE: "<=",
        exp.Like: "LIKE", exp.ILike: "LIKE", exp.In: "IN", exp.Between: "BETWEEN",
        exp.Glob: "GLOB", exp.Is: "IS"}
PREDICATES = tuple(OPS)


@dataclass(frozen=True)
class Param:
    name: str
    kind: str                    # integer | float | text
    value: Any                   # the gold value
    op: str                      # =, >, LIKE, IN, BETWEEN (low), LIMIT, ...
    target: str                  # what it is compared with: "singer.country", "COUNT(*)", ...
    table: str | None = None     # the column it is compared with, when there is one
    column: str | None = None
    match: str = "equals"        # equals | contains (LIKE patterns)


def children(node: exp.Expression) -> Iterator[exp.Expression]:
    """Child nodes in the order the clauses are written (sqlglot's ``arg_types`` order)."""
    for key in node.arg_types:
        value = node.args.get(key)
        for child in value if isinstance(value, list) else [value]:
            if isinstance(child, exp.Expression):
                yield child


def sanitize(text: str) -> str:
    name = re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")
    if not name:
        return "value"
    return f"v_{name}" if name[0].isdigit() else name


def _number(text: str) -> int | float:
    try:
        return int(text)
    except ValueError:
        return float(text)


def _literal_value(node: exp.Expression) -> tuple[Any, bool] | None:
    """(value, is_string) of a literal, a negated number included."""
    if isinstance(node, exp.Neg) and isinstance(node.this, exp.Literal) \
            and not node.this.is_string:
        return -_number(node.this.name), False
    if isinstance(node, exp.Literal):
        return (node.name, True) if node.is_string else (_number(node.name), False)
    return None


def target_text(node: exp.Expression) -> str:
    return node.sql(dialect="sqlite")


def _sources(select: exp.Select | None) -> list[tuple[str, str | None]]:
    """(alias or name, table) of the tables a SELECT reads directly."""
    if select is None:
        return []
    items = []
    from_ = select.args.get("from_")
    if from_ is not None:
        items.append(from_.this)
    items += [j.this for j in select.args.get("joins") or []]
    out = []
    for item in items:
        if isinstance(item, exp.Table):
            out.append(((item.alias or item.name).lower(), item.name))
        elif item.alias:
            out.append((item.alias.lower(), None))
    return out


def resolve_column(col: exp.Column, schema: DbSchema) -> tuple[str, str] | None:
    sources = _sources(col.find_ancestor(exp.Select))
    if col.table:
        tables = [t for alias, t in sources if alias == col.table.lower()]
    else:
        tables = [t for _, t in sources]
    for table in tables:
        if table and schema.column(table, col.name):
            return schema.table(table) or table, schema.column(table, col.name) or col.name
    return None


def _base_name(other: exp.Expression) -> str:
    if isinstance(other, exp.Column):
        return sanitize(other.name)
    if isinstance(other, exp.Func):
        inner = other.this if isinstance(other.this, exp.Column) else None
        fname = sanitize(other.key)
        return f"{fname}_{sanitize(inner.name)}" if inner is not None else fname
    return "value"


def _param_for(node: exp.Expression, value: Any, is_string: bool, schema: DbSchema
               ) -> tuple[str, Param] | None:
    """The parameter a literal becomes (its base name and info), or None to keep it."""
    parent = node.parent
    if isinstance(parent, (exp.Limit, exp.Offset)) and not is_string:
        name = parent.key
        return name, Param(name, "integer", int(value), parent.key.upper(), "the number of rows")
    if not isinstance(parent, PREDICATES):
        return None
    key = node.arg_key
    other = parent.this if key != "this" else parent.args.get("expression")
    if not isinstance(other, exp.Expression):
        return None
    base = _base_name(other)
    op = OPS[type(parent)]
    if isinstance(parent, exp.Between):
        base, op = (f"min_{base}", "BETWEEN (low)") if key == "low" else \
            (f"max_{base}", "BETWEEN (high)")
    if isinstance(parent.parent, exp.Not):
        op = f"NOT {op}"
    ref = resolve_column(other, schema) if isinstance(other, exp.Column) else None
    col_kind = schema.column_kind(*ref) if ref else None
    kind, value = _typed(value, is_string, col_kind, op)
    match = "contains" if op.endswith("LIKE") else "equals"
    target = f"{ref[0]}.{ref[1]}" if ref else target_text(other)
    return base, Param(base, kind, value, op, target, ref[0] if ref else None,
                       ref[1] if ref else None, match)


def _typed(value: Any, is_string: bool, col_kind: str | None, op: str) -> tuple[str, Any]:
    if op.endswith(("LIKE", "GLOB")):
        return "text", str(value)
    if is_string:
        if col_kind in ("integer", "float") and re.fullmatch(r"-?\d+(\.\d+)?", value.strip()):
            num = _number(value.strip())
            if col_kind == "float" or isinstance(num, float):
                return "float", float(num)
            return "integer", num
        return "text", value
    if isinstance(value, float) or col_kind == "float":
        return "float", float(value)
    return "integer", int(value)


def _like_parts(value: str) -> tuple[str, str, str]:
    prefix = "%" if value.startswith("%") else ""
    suffix = "%" if value.endswith("%") and len(value) > len(prefix) else ""
    core = value[len(prefix): len(value) - len(suffix) if suffix else None]
    return prefix, core, suffix


def _placeholder(name: str, prefix: str = "", suffix: str = "") -> exp.Expression:
    node: exp.Expression = exp.Placeholder(this=name)
    if prefix:
        node = exp.DPipe(this=exp.Literal.string(prefix), expression=node)
    if suffix:
        node = exp.DPipe(this=node, expression=exp.Literal.string(suffix))
    return node


def unique(base: str, taken: set[str]) -> str:
    name, i = base, 1
    while name in taken:
        i += 1
        name = f"{base}_{i}"
    taken.add(name)
    return name


def parameterize(tree: exp.Expression, schema: DbSchema, taken: set[str]) -> list[Param]:
    """Replace the input literals of ``tree`` (in place) by placeholders; return the params."""
    params: list[Param] = []

    def visit(node: exp.Expression) -> None:
        lit = _literal_value(node)
        if lit is not None:
            found = _param_for(node, lit[0], lit[1], schema)
            if found is not None:
                base, param = found
                name = unique(base, taken)
                prefix = suffix = ""
                value = param.value
                if param.match == "contains":
                    prefix, value, suffix = _like_parts(str(param.value))
                params.append(Param(name, param.kind, value, param.op, param.target,
                                    param.table, param.column, param.match))
                node.replace(_placeholder(name, prefix, suffix))
            return
        for child in list(children(node)):
            visit(child)

    visit(tree)
    return params
