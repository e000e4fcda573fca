"""A drift simulator, after ToolEvo's API drift: drifted versions of a tools file.

From a tools file whose tools run Python functions, and optionally its query set,
:func:`simulate` picks one tool per drift kind and writes a folder that is a tool set of its
own: ``tools.json`` (the drifted specs), ``drifted_tools.py`` (one real function per tool,
each wrapping the original with its change, :mod:`play2prompt.drift.wrappers`), ``drift.json``
(the manifest: the originals, relative to the folder, and every change in words) and
``queries.jsonl`` (the query set with its gold calls rewritten to match). The kinds:

- ``rename``: a parameter is renamed (the first required one);
- ``unit``: a number is now in a unit 100 (or 1000) times larger: a percentage becomes a
  fraction, cents dollars, centimetres metres, grams kilograms; the docs are left as they were
  (a silent change, the kind docs lag behind);
- ``values``: the accepted values of a text parameter change (short codes become names: ``mi``
  -> ``mile``); the tool rejects the old ones, listing the new;
- ``removed``: the tool is gone; ``NAME_v2`` replaces it (``meta: {"replaces": NAME}``);
- ``output``: the output is wrapped (``{"data": ..., "api_version": 2}``).

Tools not chosen are wrapped unchanged, so the folder runs on its own.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from play2prompt.drift.wrappers import KINDS, MANIFEST, REMOVED, RENAME, UNIT, VALUES, Drift
from play2prompt.errors import UserError
from play2prompt.tools.executors.python import check_spec
from play2prompt.tools.loading import dump_tools, load_tools
from play2prompt.tools.model import Tool

MODULE = "drifted_tools.py"
ORDER = (VALUES, UNIT, RENAME, REMOVED, "output")   # the most particular kinds choose first
# words in a parameter's name or doc -> (factor, old unit, new unit)
UNITS: tuple[tuple[str, float, str, str], ...] = (
    (r"rate|percent|interest", 100.0, "percentage", "fraction"),
    (r"price|cost|cents", 100.0, "cents", "dollars"),
    (r"height|length|centim", 100.0, "centimetres", "metres"),
    (r"weight|mass|gram", 1000.0, "grams", "kilograms"),
)
NEEDS = {VALUES: " (it needs a text parameter with an enum, or with values in --queries)",
         UNIT: " (it needs a number parameter)", RENAME: " (it needs a parameter)"}
RENAMES = {"principal": "loan_amount", "date": "start_date", "value": "quantity",
           "amount": "sum", "query": "search_text", "weight": "mass", "height": "stature",
           "time": "clock_time"}
NAMES = {"c": "celsius", "f": "fahrenheit", "k": "kelvin", "mm": "millimetre",
         "cm": "centimetre", "m": "metre", "km": "kilometre", "in": "inch", "ft": "foot",
         "yd": "yard", "mi": "mile", "g": "gram", "kg": "kilogram", "lb": "pound",
         "oz": "ounce", "t": "tonne", "ml": "millilitre", "l": "litre", "gal": "gallon",
         "qt": "quart", "cup": "us_cup", "asc": "ascending", "desc": "descending"}


@dataclass(frozen=True)
class Simulation:
    folder: Path
    drifts: tuple[Drift, ...]
    queries: int                    # query lines rewritten (0 without a query set)


def read_queries(path: Path | None) -> list[dict[str, Any]]:
    """The query set's lines (JSON objects); one line naming a bad one."""
    if path is None:
        return []
    if not Path(path).is_file():
        raise UserError(f"{path}: no such query file")
    out = []
    for number, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        if line.strip() and not line.lstrip().startswith("#"):
            try:
                data = json.loads(line)
            except json.JSONDecodeError as exc:
                raise UserError(f"{path}: line {number} is not JSON ({exc.msg})") from exc
            if not isinstance(data, dict):
                raise UserError(f"{path}: line {number} is not a JSON object")
            out.append(data)
    return out


def gold_values(queries: Sequence[Mapping[str, Any]], tool: str, param: str) -> list[Any]:
    return [c.get("arguments", {}).get(param) for q in queries for c in q.get("calls") or []
            if isinstance(c, Mapping) and c.get("name") == tool
            and param in (c.get("arguments") or {})]


def _values_drift(tool: Tool, queries: Sequence[Mapping[str, Any]]) -> tuple[float, Drift] | None:
    """The best ``values`` drift of ``tool`` (score: share of codes that have a name)."""
    best: tuple[float, Drift] | None = None
    for name, spec in tool.properties.items():
        if (spec or {}).get("type") != "string":
            continue
        seen = [str(v) for v in (spec.get("enum") or gold_values(queries, tool.name, name))]
        codes = sorted(set(seen))
        if len(codes) < 2 or not all(len(c) <= 24 and " " not in c for c in codes) or \
                (not spec.get("enum") and len(seen) < 3):
            continue
        params = [p for p, s in tool.properties.items() if (s or {}).get("type") == "string"
                  and len(set(map(str, gold_values(queries, tool.name, p))) & set(codes))
                  * 2 >= len(codes)] or [name]
        pool = sorted({*codes, *(str(v) for p in params
                                 for v in gold_values(queries, tool.name, p))})
        mapping = {c: NAMES.get(c.lower(), f"{c}_v2") for c in pool}
        score = sum(c.lower() in NAMES for c in pool) / len(pool)
        drift = Drift(VALUES, tool.name, params[0], values=mapping, params=tuple(params))
        if best is None or score > best[0]:
            best = (score, drift)
    return best


def _unit_drift(tool: Tool) -> tuple[float, Drift] | None:
    numbers = [(n, s) for n, s in tool.properties.items()
               if (s or {}).get("type") in ("number", "integer")]
    for name, spec in numbers:
        text = f"{name} {spec.get('description') or ''}"
        for pattern, factor, old, new in UNITS:
            if re.search(pattern, text, re.I):
                return 1.0, Drift(UNIT, tool.name, name, factor=factor, words=(old, new),
                                  integer=spec.get("type") == "integer")
    if numbers:
        name, spec = numbers[0]
        return 0.0, Drift(UNIT, tool.name, name, factor=100.0,
                          integer=spec.get("type") == "integer")
    return None


def _drift_for(kind: str, tool: Tool, queries: Sequence[Mapping[str, Any]]
               ) -> tuple[float, Drift] | None:
    """The drift of ``kind`` for ``tool`` with a score (higher fits better), or None."""
    if kind == VALUES:
        return _values_drift(tool, queries)
    if kind == UNIT:
        return _unit_drift(tool)
    if kind == RENAME:
        params = tool.required or list(tool.properties)
        if not params:
            return None
        new = RENAMES.get(params[0], f"{params[0]}_value")
        return (1.0 if params[0] in RENAMES else 0.0), Drift(RENAME, tool.name, params[0], new)
    if kind == REMOVED:
        return 0.0, Drift(REMOVED, tool.name, new=f"{tool.name}_v2")
    return 0.0, Drift(kind, tool.name)


def plan_drifts(tools: Sequence[Tool], queries: Sequence[Mapping[str, Any]],
                kinds: Sequence[str], chosen: Mapping[str, str] | None = None) -> list[Drift]:
    """One drift per kind, each on a tool of its own: ``chosen`` kind -> tool, else the
    tool that fits best (in file order on a tie)."""
    chosen = dict(chosen or {})
    bad = [k for k in [*kinds, *chosen] if k not in KINDS]
    if bad:
        raise UserError(f"unknown drift kind {bad[0]!r} (kinds: {', '.join(KINDS)})")
    by_name = {t.name: t for t in tools}
    unknown = [n for n in chosen.values() if n not in by_name]
    if unknown:
        raise UserError(f"--tool names {unknown[0]!r}, not a tool of the file")
    if len(set(kinds)) > len(tools):
        raise UserError(f"{len(set(kinds))} drift kinds need as many tools; the file has "
                        f"{len(tools)}")
    taken: dict[str, Drift] = {}
    for kind in sorted(dict.fromkeys(kinds), key=lambda k: (k not in chosen, ORDER.index(k))):
        names = [chosen[kind]] if kind in chosen else [t.name for t in tools
                                                        if t.name not in taken]
        options = [(o, i) for i, n in enumerate(names)
                   if (o := _drift_for(kind, by_name[n], queries)) is not None]
        if not options or (kind in chosen and chosen[kind] in taken):
            raise UserError(f"no tool fits drift kind {kind!r}{NEEDS.get(kind, '')}"
                            if not options else
                            f"--tool: {chosen[kind]!r} already drifts by another kind")
        (_, drift), _ = max(options, key=lambda oi: (oi[0][0], -oi[1]))
        taken[drift.tool] = drift
    return [taken[t.name] for t in tools if t.name in taken]


def drifted_spec(tool: Tool, drift: Drift | None) -> Tool:
    """The drifted tool as the new tools file describes it."""
    props = {k: dict(v) for k, v in tool.properties.items()}
    required = list(tool.required)
    name, description, meta = tool.name, tool.description, dict(tool.meta)
    if drift is not None and drift.kind == RENAME:
        props = {(drift.new if k == drift.param else k): v for k, v in props.items()}
        required = [drift.new if r == drift.param else r for r in required]
    elif drift is not None and drift.kind == UNIT and drift.integer:
        props[drift.param]["type"] = "number"
    elif drift is not None and drift.kind == VALUES:
        for p in drift.params:
            if "enum" in props[p]:
                props[p]["enum"] = [drift.values.get(v, v) for v in props[p]["enum"]]
    elif drift is not None and drift.kind == REMOVED:
        name, meta = drift.new, {**meta, "replaces": tool.name}
        description = f"{description} (replaces {tool.name}, which was removed)".strip()
    parameters = {**tool.parameters, "properties": props}
    if required or "required" in tool.parameters:
        parameters["required"] = required
    return Tool(name, description, parameters, _executor(tool, name), meta)


def _executor(tool: Tool, name: str) -> dict[str, Any]:
    spec = dict(tool.executor or {})
    target = spec["python"]
    ref = f"{MODULE}:{name}"
    spec["python"] = {**target, "function": ref} if isinstance(target, Mapping) else ref
    return spec


def _module_text(source: str, tools: Sequence[Tool], drifts: Mapping[str, Drift]) -> str:
    lines = [f'"""Drifted versions of the tools of {source}, written by p2p drift simulate.',
             "",
             f"Every function wraps an original tool with the change {MANIFEST} describes.",
             '"""', "", "from pathlib import Path", "",
             "from play2prompt.drift.wrappers import DriftedTools", "",
             f'_TOOLS = DriftedTools.load(Path(__file__).with_name("{MANIFEST}"))', ""]
    for tool in tools:
        drift = drifts.get(tool.name)
        name = drift.new if drift is not None and drift.kind == REMOVED else tool.name
        said = drift.describe() if drift is not None else "unchanged"
        lines += ["", f"def {name}(**arguments):", f'    """{said}"""',
                  f'    return _TOOLS.call("{name}", arguments)', ""]
    return "\n".join(lines)


def simulate(tools_file: Path, out_dir: Path, kinds: Sequence[str], *,
             queries: Path | None = None, chosen: Mapping[str, str] | None = None
             ) -> Simulation:
    """Write the drifted tool set of ``tools_file`` to ``out_dir`` (see the module doc)."""
    tools_file, out_dir = Path(tools_file), Path(out_dir)
    tools = load_tools(tools_file)
    not_python = [t.name for t in tools if "python" not in (t.executor or {})]
    if not_python:
        raise UserError(f"tool {not_python[0]!r}: drift simulation wraps Python tools only")
    lines = read_queries(queries)
    drifts = plan_drifts(tools, lines, kinds, chosen)
    by_tool = {d.tool: d for d in drifts}
    out_dir.mkdir(parents=True, exist_ok=True)
    new_tools = [drifted_spec(t, by_tool.get(t.name)) for t in tools]
    base = _relative(tools_file.parent.resolve(), out_dir.resolve())
    manifest = {"source": _relative(tools_file.resolve(), out_dir.resolve()), "base_dir": base,
                "drifts": [d.to_dict() for d in drifts],
                "tools": {new.name: {"original": old.name,
                                     "function": check_spec(old.executor["python"], old.name),
                                     "drift": by_tool[old.name].to_dict()
                                     if old.name in by_tool else None}
                          for old, new in zip(tools, new_tools)}}
    (out_dir / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n")
    (out_dir / MODULE).write_text(_module_text(tools_file.name, tools, by_tool))
    (out_dir / "tools.json").write_text(json.dumps(dump_tools(new_tools), indent=2) + "\n")
    if queries is not None:
        rewritten = [rewrite_query(q, drifts) for q in lines]
        (out_dir / "queries.jsonl").write_text(
            "".join(json.dumps(q, ensure_ascii=False) + "\n" for q in rewritten))
    return Simulation(out_dir, tuple(drifts), len(lines))


def rewrite_query(query: Mapping[str, Any], drifts: Sequence[Drift]) -> dict[str, Any]:
    """A query line with its gold calls (and offered tools) as the drifted tools take them."""
    out = dict(query)
    calls = list(query.get("calls") or [])
    for drift in drifts:
        calls = [drift.rewrite_call(c) for c in calls]
        if drift.kind == REMOVED and isinstance(out.get("tools"), list):
            out["tools"] = [drift.new if n == drift.tool else n for n in out["tools"]]
    out["calls"] = calls
    return out


def _relative(path: Path, start: Path) -> str:
    try:
        return os.path.relpath(path, start)
    except ValueError:  # another drive (Windows)
        return str(path)
