"""A named Spider function: a deduplicated :class:`FunctionDraft` with its final names, and its
rendering as a play2prompt :class:`~play2prompt.tools.model.Tool` with a ``sqlite`` executor."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from play2prompt.adapters.spider.decompose import FunctionDraft, ListParam
from play2prompt.adapters.spider.literals import Param
from play2prompt.adapters.spider.naming import rename_placeholders
from play2prompt.tools.model import Tool, ToolDoc

JSON_TYPES = {"integer": "integer", "float": "number", "text": "string"}
MAX_ROWS = 1000


@dataclass
class SpiderFunction:
    draft: FunctionDraft
    name: str
    renames: Mapping[str, str]          # draft parameter name -> final name
    database: str                       # path relative to tools.json
    roles: set[str] = field(default_factory=set)       # direct | part | outer
    problems: list[str] = field(default_factory=list)
    example: Any = None                 # an output seen at generation time

    @property
    def sql(self) -> str:
        return rename_placeholders(self.draft.sql, self.renames)

    @property
    def params(self) -> list[tuple[str, Param]]:
        return [(self.renames[p.name], p) for p in self.draft.params]

    @property
    def lists(self) -> list[tuple[str, ListParam]]:
        return [(self.renames[lp.name], lp) for lp in self.draft.lists]

    def rename_args(self, args: Mapping[str, Any]) -> dict[str, Any]:
        return {self.renames.get(k, k): v for k, v in args.items()}

    def parameters(self, doc: ToolDoc | None = None) -> dict[str, Any]:
        props: dict[str, Any] = {}
        for name, p in self.params:
            props[name] = {"type": JSON_TYPES[p.kind]}
        for name, _ in self.lists:
            props[name] = {"type": "array", "items": {}}
        if doc is not None:
            for name, schema in props.items():
                schema["description"] = doc.params.get(name, "")
        return {"type": "object", "properties": props, "required": list(props)}

    def executor_spec(self) -> dict[str, Any]:
        columns = {}
        for name, p in self.params:
            if p.kind == "text" and p.table and p.column:
                columns[name] = {"table": p.table, "column": p.column, "match": p.match}
        spec: dict[str, Any] = {
            "database": self.database,
            "sql": self.sql,
            "params": {name: p.kind for name, p in self.params},
            "max_rows": MAX_ROWS,
        }
        if self.lists:
            spec["list_params"] = {name: {"table": lp.table, "columns": list(lp.columns)}
                                   for name, lp in self.lists}
        if columns:
            spec["columns"] = columns
        return {"sqlite": spec}

    def skeleton(self) -> Tool:
        """The tool without documentation (what the doc writers fill in)."""
        return Tool(self.name, "", self.parameters(), self.executor_spec())

    def to_tool(self, doc: ToolDoc, doc_source: str) -> Tool:
        meta = {"spider": {"db_id": self.draft.db_id, "roles": sorted(self.roles),
                           "problems": list(self.problems), "doc_source": doc_source,
                           "tables": list(self.draft.tables)}}
        return Tool(self.name, doc.description, self.parameters(doc), self.executor_spec(),
                    meta)
