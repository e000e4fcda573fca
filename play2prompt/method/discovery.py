"""The interface a tool's errors showed: which parameters it has, which it requires, what
type each takes and which it does not take, as JSON Schema, from the book's ``param`` facts
(read by :mod:`play2prompt.method.error_reading` from errors like "f() missing 1 required
positional argument: 'b'" or pydantic's "b  Field required [type=missing, ...]").

Pure functions of the facts: play calls them to give a tool whose schema lost its parameters
(or never listed some) the ones its errors named.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from play2prompt.method.facts import Fact


def discovered_parameters(facts: Iterable[Fact], parameters: Mapping[str, Any]
                          ) -> dict[str, Any]:
    """The parameters ``facts`` (kind ``param``) show that the schema ``parameters`` lacks:
    ``{"properties": {name: {"type": ...} or {}}, "required": [names]}``. A parameter is in
    ``properties`` when the schema does not have it, or has it without the type the tool
    showed (an integer where the schema says number counts, the reverse does not); in
    ``required`` when the tool said it is required and the schema does not. A parameter the
    tool said it does not take is in neither. Pure: reads nothing else."""
    props = parameters.get("properties") or {}
    required = set(parameters.get("required") or [])
    said = [f for f in facts if f.kind == "param" and f.values]
    absent = {f.param for f in said if f.values[0] == "absent"}
    kinds: dict[str, set[str]] = {}
    needed: list[str] = []
    for fact in sorted(said, key=lambda f: (f.param, f.values)):
        if fact.param in absent:
            continue
        kinds.setdefault(fact.param, set()).update(fact.values[1:2])
        if fact.values[0] == "required" and fact.param not in required:
            needed.append(fact.param)
    out: dict[str, Any] = {}
    for name, seen_kinds in kinds.items():
        kind = "integer" if seen_kinds == {"integer", "number"} else (
            next(iter(seen_kinds)) if len(seen_kinds) == 1 else "")
        have = (props.get(name) or {}).get("type")
        if name not in props or (kind and kind != have):
            out[name] = {"type": kind} if kind else {}
    return {"properties": out, "required": sorted(set(needed))}


def with_discovered(parameters: Mapping[str, Any], found: Mapping[str, Any],
                    absent: Iterable[str] = ()) -> dict[str, Any]:
    """A schema ``parameters`` extended by :func:`discovered_parameters`' ``found``."""
    out = dict(parameters)
    gone = set(absent)
    props = {k: dict(v) for k, v in (parameters.get("properties") or {}).items()
             if k not in gone}
    for name, spec in (found.get("properties") or {}).items():
        props.setdefault(name, {}).update(spec)
    required = [r for r in [*(parameters.get("required") or []), *found.get("required", [])]
                if r not in gone]
    out.update({"type": "object", "properties": props})
    if required:
        out["required"] = list(dict.fromkeys(required))
    return out
