"""StableToolBench data: where it is, its queries, and its APIs as play2prompt tools.

A *source* is a folder: a StableToolBench checkout or download (``--stb-dir``), or by default
the shared slice (``$P2P_STB_DIR`` or ``shared/data/stabletoolbench`` next to the repository).
Queries come from ``solvable_queries/test_instruction/<subset>.json`` (or ``<subset>.json``,
``<subset>_head8.json``, ``<subset>_example.json`` directly in the folder). Tool files
(``tools/<Category>/<tool>.json``) and the response cache (``tool_response_cache/``) are used
when present (also under ``server/``, ``toolenv/`` or ``data/toolenv/``).

Each API becomes a :class:`~play2prompt.tools.model.Tool` named as StableToolBench names it
(``<api>_for_<tool>``), with parameters named as it names them, and an executor spec
``{"stabletoolbench": {...}}`` that carries everything the executor needs (absolute paths and
the original API documentation, so a resumed optimization rebuilds it from the spec alone).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from play2prompt.adapters.stabletoolbench.names import function_name, param_name, standardize
from play2prompt.errors import UserError
from play2prompt.tools.model import Tool

SUBSETS: dict[str, int] = {
    "G1_instruction": 163, "G1_category": 153, "G1_tool": 158,
    "G2_instruction": 106, "G2_category": 124, "G3_instruction": 61,
}
ENV_DIR = "P2P_STB_DIR"
SHARED_SLICE = Path("shared") / "data" / "stabletoolbench"
QUERY_DIRS = ("solvable_queries/test_instruction", "solvable_queries_example/test_instruction",
              "test_instruction", ".")
QUERY_SUFFIXES = ("", "_head8", "_example")
TOOL_DIRS = ("tools", "toolenv/tools", "server/tools", "data/toolenv/tools")
CACHE_DIRS = ("tool_response_cache", "server/tool_response_cache", "data/tool_response_cache")
DESCRIPTION_LIMIT = 256  # StableToolBench truncates API and parameter descriptions here


@dataclass(frozen=True)
class Source:
    """Where queries, tool files and the response cache are."""

    root: Path
    tools_dir: Path | None = None
    cache_dir: Path | None = None

    def query_file(self, subset: str) -> Path | None:
        for sub in QUERY_DIRS:
            for suffix in QUERY_SUFFIXES:
                path = self.root / sub / f"{subset}{suffix}.json"
                if path.is_file():
                    return path
        return None

    def subsets(self) -> list[str]:
        """Subsets with a query file here, in StableToolBench's order (then any others)."""
        found = [s for s in SUBSETS if self.query_file(s) is not None]
        for sub in QUERY_DIRS:
            folder = self.root / sub
            for path in sorted(folder.glob("G*_*.json")) if folder.is_dir() else []:
                name = path.stem
                for suffix in QUERY_SUFFIXES[1:]:
                    name = name.removesuffix(suffix)
                if name not in found and self.query_file(name) is not None:
                    found.append(name)
        return found


def _repo_root() -> Path:
    return Path(__file__).resolve().parents[3]


def default_root() -> Path | None:
    env = os.environ.get(ENV_DIR)
    if env:
        return Path(env)
    repo = _repo_root()
    for base in (repo.parent, *repo.parent.parents):  # a worktree may sit deeper than main
        if (base / SHARED_SLICE).is_dir():
            return base / SHARED_SLICE
    return None


def _first_dir(root: Path, names: Sequence[str]) -> Path | None:
    for name in names:
        if (root / name).is_dir():
            return root / name
    return None


def resolve_source(stb_dir: Path | str | None = None, tools_dir: Path | str | None = None,
                   cache_dir: Path | str | None = None) -> Source:
    root = Path(stb_dir) if stb_dir else default_root()
    if root is None:
        raise UserError(f"no StableToolBench data: pass --stb-dir or set ${ENV_DIR} "
                        f"(the shared slice {SHARED_SLICE} was not found near the repository)")
    if not root.is_dir():
        raise UserError(f"StableToolBench folder not found: {root}")
    tools = Path(tools_dir) if tools_dir else _first_dir(root, TOOL_DIRS)
    cache = Path(cache_dir) if cache_dir else _first_dir(root, CACHE_DIRS)
    for label, path in (("tools", tools), ("cache", cache)):
        if path is not None and not path.is_dir():
            raise UserError(f"StableToolBench {label} folder not found: {path}")
    return Source(root.resolve(), tools.resolve() if tools else None,
                  cache.resolve() if cache else None)


@dataclass(frozen=True)
class Query:
    query_id: str
    query: str
    subset: str
    relevant: tuple[tuple[str, str], ...]            # (tool name, API name) as in the file
    apis: tuple[Mapping[str, Any], ...]              # the api_list entries

    def relevant_names(self, tools_index: ToolFiles | None = None) -> list[str]:
        std = {t: standard_tool_name(t, tools_index) for t, _ in self.relevant}
        return [function_name(api, std[tool]) for tool, api in self.relevant]


def load_queries(source: Source, subset: str) -> list[Query]:
    path = source.query_file(subset)
    if path is None:
        have = ", ".join(source.subsets()) or "none"
        raise UserError(f"no query file for subset {subset!r} in {source.root} (found: {have})")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise UserError(f"{path}: not a readable JSON file ({exc})") from exc
    if not isinstance(data, list):
        raise UserError(f"{path}: expected a JSON array of queries")
    out = []
    for i, item in enumerate(data):
        if not isinstance(item, Mapping) or "query" not in item or "api_list" not in item:
            raise UserError(f"{path}: entry {i} has no 'query' / 'api_list'")
        relevant = tuple((str(t), str(a)) for t, a in item.get("relevant APIs") or [])
        out.append(Query(str(item.get("query_id", i)), str(item["query"]), subset, relevant,
                         tuple(item["api_list"])))
    return out


@dataclass
class ToolFiles:
    """An index of ``tools/<Category>/<tool>.json``: standardised tool name -> file data."""

    root: Path | None
    by_name: dict[str, tuple[str, dict[str, Any]]] = field(default_factory=dict)  # std -> stem

    @classmethod
    def scan(cls, root: Path | None) -> ToolFiles:
        index = cls(root)
        if root is None:
            return index
        for path in sorted(root.glob("*/*.json")):
            try:
                data = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, json.JSONDecodeError):
                continue
            if isinstance(data, Mapping) and "tool_name" in data:
                index.by_name.setdefault(standardize(data["tool_name"]), (path.stem, dict(data)))
        return index

    def get(self, tool_name: str) -> tuple[str, dict[str, Any]] | None:
        return self.by_name.get(standardize(tool_name))


def standard_tool_name(tool_name: str, tools_index: ToolFiles | None = None) -> str:
    """StableToolBench uses the tool file's name when it has the tool file."""
    found = tools_index.get(tool_name) if tools_index else None
    return found[0] if found else standardize(tool_name)


def _type(name: Any) -> str:
    # StableToolBench maps NUMBER/STRING/BOOLEAN and sends everything else as a string;
    # NUMBER is 'number' here (it maps it to 'integer', which rejects coordinates and prices).
    return {"NUMBER": "number", "INTEGER": "integer", "BOOLEAN": "boolean"}.get(
        str(name).strip().upper(), "string")


def _param_schema(param: Mapping[str, Any]) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": _type(param.get("type", "STRING")),
                              "description": str(param.get("description") or "")[
                                  :DESCRIPTION_LIMIT]}
    default = param.get("default")
    if default is not None and str(default) != "":
        schema["examples"] = [default]
    return schema


def _api_doc(api: Mapping[str, Any], file_api: Mapping[str, Any] | None) -> dict[str, Any]:
    """The API's documentation: the query file's entry, completed from the tool file."""
    doc = {k: api.get(k) for k in ("api_name", "api_description", "required_parameters",
                                   "optional_parameters", "method", "template_response")}
    if file_api:
        doc["api_description"] = doc["api_description"] or file_api.get("description", "")
        for key in ("required_parameters", "optional_parameters", "method",
                    "template_response"):
            if doc.get(key) in (None, [], "") and file_api.get(key) not in (None, []):
                doc[key] = file_api[key]
    doc["required_parameters"] = list(doc.get("required_parameters") or [])
    doc["optional_parameters"] = list(doc.get("optional_parameters") or [])
    return doc


def api_tool(api: Mapping[str, Any], source: Source, tools_index: ToolFiles | None = None,
             server: str | None = None) -> Tool:
    """One API of a query's ``api_list`` as a Tool."""
    tool_name, api_label = str(api["tool_name"]), str(api["api_name"])
    std_tool = standard_tool_name(tool_name, tools_index)
    found = tools_index.get(tool_name) if tools_index else None
    tool_desc = str(found[1].get("tool_description") or "") if found else ""
    file_api = None
    if found:
        file_api = next((a for a in found[1].get("api_list", [])
                         if standardize(a.get("name", "")) == standardize(api_label)), None)
    doc = _api_doc(api, file_api)
    props: dict[str, Any] = {}
    required: list[str] = []
    for group, is_required in (("required_parameters", True), ("optional_parameters", False)):
        for param in doc[group]:
            pname = param_name(param.get("name", ""))
            if not pname or pname in props:
                continue
            props[pname] = _param_schema(param)
            if is_required:
                required.append(pname)
    description = str(doc.get("api_description") or "").strip()[:DESCRIPTION_LIMIT]
    intro = f'An endpoint of the "{std_tool}" API.'
    executor = {"stabletoolbench": {
        "category": str(api.get("category_name") or ""), "tool_name": tool_name,
        "standard_tool": std_tool, "api_name": api_label,
        "cache_dir": str(source.cache_dir) if source.cache_dir else None,
        "server": server, "tool_description": tool_desc, "doc": doc,
    }}
    return Tool(
        name=function_name(api_label, std_tool),
        description=f"{intro} {description}" if description else intro,
        parameters={"type": "object", "properties": props, "required": required},
        executor=executor,
        meta={"benchmark": "stabletoolbench", "category": api.get("category_name"),
              "tool": tool_name, "standard_tool": std_tool, "api": api_label,
              "tool_description": tool_desc},
    )


def query_tools(query: Query, source: Source, tools_index: ToolFiles | None = None,
                server: str | None = None) -> list[Tool]:
    """The tools offered for a query (its whole ``api_list``, as StableToolBench does)."""
    tools: dict[str, Tool] = {}
    for api in query.apis:
        tool = api_tool(api, source, tools_index, server)
        tools.setdefault(tool.name, tool)
    return list(tools.values())
