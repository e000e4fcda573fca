"""Opacity: which parts of a tool the task model does not see (OpaqueToolsBench's settings).

OpaqueToolsBench (Hallinan et al., 2026, arXiv 2602.15197, Apache-2.0,
github.com/shallinan1/OpaqueToolsBench) hides parts of tool specs from the agent:

- ``names``: the tools are renamed ``function_1, function_2, ...`` (``name[all:increasing_number]``;
  the numbering rule is the caller's: BFCL numbers each question's tools in order, a tools file
  ranks its tools' real names);
- ``descriptions``: the tool description is blank (``desc[all:blank]``);
- ``param-docs``: every parameter description is blank, names, types and ``required`` kept
  (``param[all:blank_descriptions]``);
- ``params``: the parameters are removed altogether (``param[all:remove_all]``): an empty
  ``properties``, no ``required``; the task model calls with whatever arguments the doc says.

Everything here is pure: an :class:`Opacity` and functions from real tools to the tools the
task model sees (which still run the real tool; their meta keeps the real name, ``real_name``,
and the opacity, ``opaque``), and a :class:`NameMap` between real and shown names.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from play2prompt.errors import UserError
from play2prompt.tools.model import Invocation, Tool, ToolDoc

SETTINGS = ("names", "descriptions", "param-docs", "params")
REAL_NAME = "real_name"      # the meta key of an opaque tool holding the tool's real name
OPAQUE = "opaque"            # the meta key holding the opacity it was made under
SIMULATES = "simulates"      # a simulated executor's key for the API it answers as


@dataclass(frozen=True)
class Opacity:
    """Which parts of a tool spec the task model does not see (all False: transparent)."""

    names: bool = False
    descriptions: bool = False
    param_docs: bool = False
    params: bool = False

    @classmethod
    def parse(cls, spec: str | Sequence[str] | None) -> Opacity:
        """``names,descriptions`` (a comma list, or several of them) -> Opacity."""
        if not spec:
            return cls()
        parts = [p.strip() for s in ([spec] if isinstance(spec, str) else spec)
                 for p in s.split(",") if p.strip()]
        bad = [p for p in parts if p not in SETTINGS]
        if bad:
            raise UserError(f"--opaque: unknown setting {bad[0]!r} (a comma list of "
                            f"{', '.join(SETTINGS)})")
        return cls(*(name in parts for name in SETTINGS))

    @property
    def spec(self) -> str:
        """The canonical comma list (empty when transparent)."""
        flags = (self.names, self.descriptions, self.param_docs, self.params)
        return ",".join(name for name, on in zip(SETTINGS, flags) if on)

    def __bool__(self) -> bool:
        return bool(self.spec)


def opaque_name(index: int) -> str:
    """The name of the ``index``-th tool (0-based) under ``names``."""
    return f"function_{index + 1}"


def opaque_schema(parameters: Mapping[str, Any], opacity: Opacity) -> dict[str, Any]:
    """The parameters' schema as the task model sees it."""
    if opacity.params:
        return {"type": "object", "properties": {}}
    schema = copy.deepcopy(dict(parameters))
    if opacity.param_docs:
        for prop in (schema.get("properties") or {}).values():
            if isinstance(prop, dict) and "description" in prop:
                prop["description"] = ""
    return schema


def real_name(tool: Tool) -> str:
    """The real name of a (possibly opaque) tool."""
    return str(tool.meta.get(REAL_NAME, tool.name))


def pinned_executor(tool: Tool) -> Mapping[str, Any] | None:
    """``tool``'s executor spec, bound to the real tool where the kind would otherwise take the
    tool's (shown) name: an MCP server's tool (``"tool"``), an in-process callable's key, and
    a simulated API's name and documentation (``"simulates"``: an LLM answering as
    ``function_3`` with a blank doc would invent another API)."""
    spec = tool.executor
    if not isinstance(spec, Mapping):
        return spec
    name = real_name(tool)
    mcp = spec.get("mcp")
    if isinstance(mcp, Mapping) and not mcp.get("tool"):
        return {**spec, "mcp": {**mcp, "tool": name}}
    if "callable" in spec and not (isinstance(spec["callable"], str) and spec["callable"]):
        return {**spec, "callable": name}
    sim = spec.get("simulated")
    if "simulated" in spec and (sim is None or isinstance(sim, Mapping)) and not (
            sim or {}).get(SIMULATES):   # the simulator answers as the real, documented API
        return {**spec, "simulated": {**(sim or {}),
                                      SIMULATES: {"name": name, "doc": tool.render_doc()}}}
    return spec


def opaque_tool(tool: Tool, shown: str, opacity: Opacity) -> Tool:
    """``tool`` as the task model sees it under ``opacity``, named ``shown``; it still runs the
    real tool (the executor is kept, :func:`pinned_executor`) and its meta keeps the real name."""
    meta = {**tool.meta, REAL_NAME: real_name(tool), OPAQUE: opacity.spec}
    return replace(tool, name=shown, executor=pinned_executor(tool),
                   description="" if opacity.descriptions else tool.description,
                   parameters=opaque_schema(tool.parameters, opacity), meta=meta)


@dataclass(frozen=True)
class NameMap:
    """Real tool names -> the names the task model sees (a bijection)."""

    shown: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def numbered(cls, names: Sequence[str], opacity: Opacity) -> NameMap:
        """Numbered in order of appearance (a name listed twice keeps its first number)."""
        out: dict[str, str] = {}
        for name in names:
            if name not in out:
                out[name] = opaque_name(len(out)) if opacity.names else name
        return cls(out)

    @classmethod
    def ranked(cls, names: Iterable[str], opacity: Opacity) -> NameMap:
        """Numbered by the rank of the sorted names (a tools file: the same tools get the same
        names in every command, whatever their order or the subset selected)."""
        return cls.numbered(sorted(set(names)), opacity)

    @property
    def real(self) -> dict[str, str]:
        return {v: k for k, v in self.shown.items()}

    def to_shown(self, calls: Iterable[Invocation]) -> tuple[Invocation, ...]:
        return tuple(Invocation(self.shown.get(c.name, c.name), c.arguments) for c in calls)

    def to_real(self, calls: Iterable[Invocation]) -> tuple[Invocation, ...]:
        real = self.real
        return tuple(Invocation(real.get(c.name, c.name), c.arguments) for c in calls)


def opaque_tools(tools: Sequence[Tool], opacity: Opacity,
                 universe: Iterable[str] | None = None) -> tuple[list[Tool], NameMap]:
    """A tools file's ``tools`` as the task model sees them under ``opacity`` (with ``names``:
    ``function_N`` by the rank of the real name among ``universe``, default the tools' own
    names, so a subset keeps the names of the whole file), and the name map."""
    names = NameMap.ranked(universe if universe is not None else [t.name for t in tools],
                           opacity)
    missing = [t.name for t in tools if t.name not in names.shown]
    if missing:
        raise ValueError(f"tool(s) {', '.join(missing)} not among the named ones")
    return [opaque_tool(t, names.shown[t.name], opacity) for t in tools], names


def shown_names(tools: Iterable[Tool]) -> dict[str, str]:
    """Real name -> the name each of ``tools`` is shown under."""
    return {real_name(t): t.name for t in tools}


def rename_text(text: str, names: Mapping[str, str]) -> str:
    """Every whole-word occurrence of a key of ``names`` replaced by its value, in one pass."""
    olds = sorted((n for n, m in names.items() if n != m and n), key=len, reverse=True)
    if not olds or not text:
        return text
    pattern = re.compile(r"(?<![A-Za-z0-9_])(" + "|".join(map(re.escape, olds))
                         + r")(?![A-Za-z0-9_])")
    return pattern.sub(lambda m: names[m.group(1)], text)


def code_names(names: Mapping[str, str]) -> dict[str, str]:
    """The entries of ``names`` whose key reads as code, not as a word (``calc_area``,
    ``function_1``, ``getArea``; not ``choose``): what texts get renamed."""
    return {k: v for k, v in names.items()
            if "_" in k or any(c.isdigit() for c in k) or k != k.lower()}


def renamed_doc(doc: ToolDoc, names: Mapping[str, str]) -> ToolDoc:
    """``doc`` with the tool names (read as code) it mentions renamed."""
    names = code_names(names)
    return ToolDoc(rename_text(doc.description, names),
                   {p: rename_text(t, names) for p, t in doc.params.items()})
