"""``--opaque-check DIR``: our opaque questions against OpaqueToolsBench's config files.

OpaqueToolsBench ships, per category and opacity, ``src/datasets/bfcl/tool_configs/
executable_simple_name[all:increasing_number]_desc[all:blank]_config.json`` (and
``executable_multiple_function_...``): ``{"tests": [{"test_id": i, "question", "tools",
"ground_truth", "name_mapping"}, ...]}`` with ``test_id`` the question's index in BFCL's exec
file (our ``exec_simple_<i>``). The user's own download of them is read from ``DIR`` (searched
recursively); each question we run offline is compared with its test: the question, the tools
the task model sees (names, descriptions, parameters, their descriptions, types and
``required``), the name mapping and the ground truth. One line per difference.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from play2prompt.adapters.bfcl.opacity import NameMap, Opacity, real_name
from play2prompt.adapters.bfcl.suite import parse_ground_truth, tool_name
from play2prompt.errors import UserError
from play2prompt.evaluation.items import EvalItem, EvalSuite
from play2prompt.tools.types import normalize_schema

CONFIG_CATEGORIES = {"simple": "executable_simple", "multiple": "executable_multiple_function"}
MAX_LINES = 50   # differences listed; the rest are counted


def config_name(category: str, opacity: Opacity) -> str:
    """OpaqueToolsBench's file name for ``category`` under ``opacity``."""
    parts = (["name[all:increasing_number]"] if opacity.names else []) + (
        ["desc[all:blank]"] if opacity.descriptions else [])
    if opacity.params:
        parts.append("param[all:remove_all]")
    elif opacity.param_docs:
        parts.append("param[all:blank_descriptions]")
    return f"{CONFIG_CATEGORIES[category]}_{'_'.join(parts) or 'base'}_config.json"


def find_config(folder: Path, name: str) -> Path | None:
    hits = sorted((p for p in Path(folder).rglob("*_config.json") if p.name == name),
                  key=lambda p: len(p.parts))   # the name's brackets are no glob
    return hits[0] if hits else None


def shown_spec(tool: Mapping[str, Any]) -> dict[str, Any]:
    """A tool as the task model sees it, in a form both sides compare in (types normalised,
    absent parameters read as none)."""
    params = normalize_schema(tool.get("parameters") or {"type": "object", "properties": {}})
    props = params.get("properties") or {}
    return {"name": tool.get("name"), "description": tool.get("description") or "",
            "params": {n: {"type": p.get("type"), "description": p.get("description") or ""}
                       for n, p in props.items()},
            "required": sorted(params.get("required") or [])}


def item_differences(item: EvalItem, test: Mapping[str, Any]) -> list[str]:
    """What differs between our item and OpaqueToolsBench's test (empty: they match)."""
    out = []
    if " ".join(item.query.split()) != " ".join(str(test.get("question") or "").split()):
        out.append("question text")
    ours = [shown_spec(t.to_openai()["function"]) for t in item.specs]
    theirs = [shown_spec(t) for t in test.get("tools") or []]
    if [t["name"] for t in ours] != [t["name"] for t in theirs]:
        out.append(f"tool names: ours {[t['name'] for t in ours]}, "
                   f"theirs {[t['name'] for t in theirs]}")
    else:
        for a, b in zip(ours, theirs):
            for key in ("description", "params", "required"):
                if a[key] != b[key]:
                    out.append(f"{a['name']} {key}: ours {json.dumps(a[key])[:120]}, "
                               f"theirs {json.dumps(b[key])[:120]}")
    names = NameMap({real_name(t): t.name for t in item.specs})
    mapping = {tool_name(k): v for k, v in (test.get("name_mapping") or {}).items()}
    if mapping and mapping != dict(names.shown):
        out.append(f"name mapping: ours {dict(names.shown)}, theirs {mapping}")
    try:
        gold = parse_ground_truth(test.get("ground_truth") or [])
    except UserError:
        gold = ()
    if [c.to_dict() for c in gold] != [c.to_dict() for c in names.to_real(item.calls)]:
        out.append("ground truth")
    return out


def check_category(folder: Path, category: str, items: Sequence[EvalItem],
                   opacity: Opacity) -> tuple[int, list[str]]:
    """(questions compared, one line per difference) for one category; a missing or unreadable
    file is a :class:`UserError`."""
    name = config_name(category, opacity)
    path = find_config(folder, name)
    if path is None:
        raise UserError(f"--opaque-check: no {name} under {folder}")
    try:
        tests = json.loads(path.read_text(encoding="utf-8")).get("tests") or []
    except (OSError, ValueError, AttributeError) as exc:
        raise UserError(f"--opaque-check: cannot read {path}: {exc}") from exc
    by_id = {f"exec_{category}_{t.get('test_id')}": t for t in tests if isinstance(t, dict)}
    lines = []
    for item in items:
        test = by_id.get(item.id)
        if test is None:
            lines.append(f"OpaqueToolsBench {name}: no test for {item.id}")
            continue
        lines.extend(f"OpaqueToolsBench {name} ({item.id}): {what} differs"
                     for what in item_differences(item, test))
    return len(items), lines


def check_opaque(folder: Path, suite: EvalSuite, opacity: Opacity) -> list[str]:
    """One summary line, then one line per difference (at most :data:`MAX_LINES`)."""
    if not Path(folder).is_dir():
        raise UserError(f"--opaque-check: {folder} is not a folder")
    compared, lines, missing = 0, [], []
    for category in CONFIG_CATEGORIES:
        items = [i for i in suite.items if i.category == category]
        if not items:
            continue
        try:
            count, found = check_category(Path(folder), category, items, opacity)
        except UserError as exc:
            missing.append(str(exc).removeprefix("--opaque-check: "))
            continue
        compared, lines = compared + count, lines + found
    others = sorted({i.category for i in suite.items} - set(CONFIG_CATEGORIES))
    head = (f"OpaqueToolsBench check ({folder}, --opaque {opacity.spec or '(none)'}): "
            f"{compared} questions compared, {len(lines)} difference(s)"
            + (f"; not found: {'; '.join(missing)}" if missing else "")
            + (f"; it has no configs for {', '.join(others)}" if others else ""))
    extra = [f"... and {len(lines) - MAX_LINES} more"] if len(lines) > MAX_LINES else []
    return [head, *lines[:MAX_LINES], *extra]
