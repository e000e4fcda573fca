"""OpenAPI specs (YAML or JSON) with a run's docs and demos written in.

Where each text goes comes from :func:`play2prompt.tools.openapi.openapi_tools` (the JSON
pointers of ``meta.openapi``): the operation's ``description``, each parameter's (or body
field's) ``description``; demos become named ``examples`` of the parameters and of the request
body's media type (``p2p-1``, ``p2p-2``, ... each with the demo's request as ``summary``). An
object that has its own ``example``/``examples`` already is left as it is (a note says so).

Both kinds are edited as text at the spans a parser gives (:mod:`.jsontext` for JSON, the YAML
composer's marks for YAML), so every other byte stays: comments, key order, quoting, layout.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from play2prompt.apply.changes import DocChange, Edited
from play2prompt.apply.jsontext import TextEdits, parse
from play2prompt.tools.openapi import openapi_tools

Target = tuple[str, str, Any]      # (JSON pointer of an object, key, value to set there)


def edit_openapi_json(text: str, changes: Sequence[DocChange], source: str) -> Edited:
    root = parse(text, source)
    targets, written, notes = plan(root.value, changes, source)
    edits = TextEdits(text)
    for ptr, key, value in targets:
        node = root.get(*_steps(ptr, root.value))
        if node is not None:
            edits.set_value(node, key, value)
    return Edited(edits.result(), written, notes)


def edit_openapi_yaml(text: str, changes: Sequence[DocChange], source: str) -> Edited:
    from play2prompt.apply.yamltext import YamlEdits

    edits = YamlEdits(text, source)
    targets, written, notes = plan(edits.data, changes, source)
    for ptr, key, value in targets:
        edits.set_value(_steps(ptr, edits.data), key, value)
    unplaced = tuple(f"{where}: no line to add it after; left out" for where in edits.unplaced)
    return Edited(edits.result(), written, notes + unplaced)


def plan(spec: Any, changes: Sequence[DocChange], source: str
         ) -> tuple[list[Target], tuple[str, ...], tuple[str, ...]]:
    """Where each change goes: ``(targets, tools written, notes)``."""
    tools = {t.name: t for t in openapi_tools(spec, source, base_url="")}
    targets: list[Target] = []
    written: list[str] = []
    notes: list[str] = []
    for change in changes:
        tool = tools.get(change.tool)
        if tool is None:
            continue
        change, said = change.against(tool.description, {
            p: str(s.get("description", "")) for p, s in tool.properties.items()})
        notes += said
        meta = tool.meta["openapi"]
        if change.description is not None:
            targets.append((meta["operation"], "description", change.description))
        for pname, doc in change.params.items():
            if pname in meta["params"]:
                targets.append((meta["params"][pname], "description", doc))
        targets.extend(_examples(spec, tool, change, notes))
        written.append(change.tool)
    return _first_wins(targets, notes), tuple(written), tuple(notes)


def _first_wins(targets: list[Target], notes: list[str]) -> list[Target]:
    """One value per place (a shared component documented by two tools keeps the first)."""
    out: dict[tuple[str, str], Target] = {}
    for target in targets:
        key = (target[0], target[1])
        if key in out and out[key][2] != target[2]:
            notes.append(f"{target[0]}: {target[1]} is shared by several tools; the first "
                         "tool's text kept")
        out.setdefault(key, target)
    return list(out.values())


def _examples(spec: Any, tool: Any, change: DocChange, notes: list[str]) -> Iterator[Target]:
    """The demos as ``examples`` of the parameters and of the request body."""
    calls = [(i, demo.query, call.arguments) for i, demo in enumerate(change.demos, 1)
             for call in demo.calls[:1] if call.name == change.tool]
    if not calls:
        return
    meta = tool.meta["openapi"]
    places = (tool.executor or {}).get("http", {}).get("params", {})
    by_param: dict[str, dict[str, Any]] = {}
    body: dict[str, Any] = {}
    for i, query, args in calls:
        fields = {}
        for arg, value in args.items():
            place = places.get(arg, "path")
            place = place.get("in") if isinstance(place, Mapping) else place
            if place == "request_body":
                body[f"p2p-{i}"] = {"summary": query, "value": value}
            elif place == "body":
                fields[arg] = value
            elif arg in meta["params"]:
                by_param.setdefault(meta["params"][arg], {})[f"p2p-{i}"] = \
                    {"summary": query, "value": value}
        if fields:
            body[f"p2p-{i}"] = {"summary": query, "value": fields}
    for ptr, examples in [*by_param.items(), *([(meta["body"], body)] if body else [])]:
        obj = _resolve(spec, ptr)
        if isinstance(obj, Mapping) and ("example" in obj or "examples" in obj):
            notes.append(f"{ptr}: has examples of its own; the demos of {change.tool} not added")
            continue
        yield ptr, "examples", examples


def _resolve(spec: Any, ptr: str) -> Any:
    node = spec
    for step in _steps(ptr, spec):
        node = node[step]
    return node


def _steps(ptr: str, spec: Any) -> list[str | int]:
    """A JSON pointer's steps, array indices as ints."""
    steps: list[str | int] = []
    node = spec
    for raw in ptr.split("/")[1:]:
        part = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, list):
            steps.append(int(part))
            node = node[int(part)]
        else:
            steps.append(part)
            node = node[part] if isinstance(node, Mapping) and part in node else None
    return steps

