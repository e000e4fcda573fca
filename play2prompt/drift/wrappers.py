"""The drifted tools at run time: real wrappers around the original Python tools.

``p2p drift simulate`` writes a folder with ``tools.json``, ``drift.json`` (the manifest) and
``drifted_tools.py``, whose functions call :meth:`DriftedTools.call`: the arguments of the
drifted tool are turned into the original's (a renamed parameter back to its old name, a value
in the new unit back to the old one, a new accepted value back to the old code), the original
function runs, and its output (a new shape) or its error (in the new names, codes and units)
comes back as the drifted tool's. Each :class:`Drift` also rewrites a gold call of the query
set to match (:meth:`Drift.rewrite_call`).

This module runs inside the tools' worker processes: it imports only what resolving a Python
function needs.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from play2prompt.numeric import is_number
from play2prompt.tools.executors._worker import resolve_callable

RENAME, UNIT, VALUES, REMOVED, OUTPUT = "rename", "unit", "values", "removed", "output"
KINDS = (RENAME, UNIT, VALUES, REMOVED, OUTPUT)
MANIFEST = "drift.json"
_NUMBER = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?![\w.])")
_TOKEN_LIST = re.compile(r"[\w./+-]+(?:, [\w./+-]+)+")


@dataclass(frozen=True)
class Drift:
    """One change of one tool (``tool``: its name before the change).

    ``rename``: parameter ``param`` is now ``new``; ``unit``: ``param`` is now in a unit
    ``factor`` times larger (old value = new value * factor; ``words``: the unit's old and new
    names, as error messages say them); ``values``: the accepted values of ``params`` changed
    (``values``: old -> new); ``removed``: the tool is gone, ``new`` replaces it; ``output``:
    the output is wrapped in ``{"data": ..., "api_version": 2}``."""

    kind: str
    tool: str
    param: str = ""
    new: str = ""
    factor: float = 1.0
    words: tuple[str, str] = ("", "")
    values: Mapping[str, str] = field(default_factory=dict)
    params: tuple[str, ...] = ()
    integer: bool = False                # unit: the original takes an integer

    def describe(self) -> str:
        if self.kind == RENAME:
            return f"{self.tool}: parameter {self.param!r} renamed to {self.new!r}"
        if self.kind == UNIT:
            unit = f" ({self.words[0]} -> {self.words[1]})" if self.words[0] else ""
            return f"{self.tool}: {self.param!r} now in a unit {self.factor:g} times " \
                   f"larger{unit}"
        if self.kind == VALUES:
            shown = ", ".join(f"{a} -> {b}" for a, b in list(self.values.items())[:4])
            return f"{self.tool}: accepted values of {', '.join(self.params)} changed " \
                   f"({shown}, ...)"
        if self.kind == REMOVED:
            return f"{self.tool}: removed, replaced by {self.new!r}"
        return f"{self.tool}: output reshaped to {{\"data\": ..., \"api_version\": 2}}"

    # -- at run time -----------------------------------------------------------------------
    def inbound(self, arguments: Mapping[str, Any]) -> dict[str, Any]:
        """The drifted tool's arguments as the original takes them."""
        args = dict(arguments)
        if self.kind == RENAME:
            if self.param in args:
                raise TypeError(f"unexpected parameter {self.param!r}")
            if self.new in args:
                args = {(self.param if k == self.new else k): v for k, v in args.items()}
        elif self.kind == UNIT and is_number(args.get(self.param)):
            value = round(args[self.param] * self.factor, 10)
            args[self.param] = int(round(value)) if self.integer else value
        elif self.kind == VALUES:
            back = {new: old for old, new in self.values.items()}
            for p in self.params:
                if p in args and args[p] not in back:
                    raise ValueError(f"unknown {p} {args[p]!r}; accepted: "
                                     f"{', '.join(sorted(back))}")
                if p in args:
                    args[p] = back[args[p]]
        return args

    def outbound(self, output: Any) -> Any:
        return {"data": output, "api_version": 2} if self.kind == OUTPUT else output

    def message(self, text: str) -> str:
        """An error of the original, as the drifted tool says it."""
        if self.kind == RENAME:
            return re.sub(rf"(?<![\w]){re.escape(self.param)}(?![\w])", self.new, text)
        if self.kind == REMOVED:
            return re.sub(rf"(?<![\w]){re.escape(self.tool)}(?![\w])", self.new, text)
        if self.kind == UNIT:
            return "; ".join(self._unit_clause(c) for c in text.split("; "))
        if self.kind == VALUES:
            return self._values_text(text)
        return text

    def _unit_clause(self, clause: str) -> str:
        if not re.search(rf"(?<![\w]){re.escape(self.param)}(?![\w])", clause):
            return clause
        clause = _NUMBER.sub(lambda m: f"{float(m.group(0)) / self.factor:g}", clause)
        old, new = self.words
        return re.sub(rf"\b{re.escape(old)}\b", new, clause, flags=re.I) if old else clause

    def _values_text(self, text: str) -> str:
        for old, new in self.values.items():
            text = re.sub(rf"(['\"]){re.escape(old)}\1", rf"\g<1>{new}\1", text)

        def listed(m: re.Match[str]) -> str:
            items = m.group(0).split(", ")
            known = [i for i in items if i in self.values]
            return ", ".join(self.values.get(i, i) for i in items) if len(known) >= 2 \
                else m.group(0)

        return _TOKEN_LIST.sub(listed, text)

    # -- on the query set ------------------------------------------------------------------
    def rewrite_call(self, call: Mapping[str, Any]) -> dict[str, Any]:
        """A gold call ``{"name", "arguments"}`` of the original tool, for the drifted one."""
        name, args = call["name"], dict(call.get("arguments") or {})
        if name != self.tool:
            return {"name": name, "arguments": args}
        if self.kind == RENAME and self.param in args:
            args = {(self.new if k == self.param else k): v for k, v in args.items()}
        elif self.kind == UNIT and is_number(args.get(self.param)):
            args[self.param] = round(args[self.param] / self.factor, 10)
        elif self.kind == VALUES:
            args = {k: self.values.get(v, v) if k in self.params and isinstance(v, str) else v
                    for k, v in args.items()}
        elif self.kind == REMOVED:
            name = self.new
        return {"name": name, "arguments": args}

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "tool": self.tool, "param": self.param, "new": self.new,
                "factor": self.factor, "words": list(self.words), "values": dict(self.values),
                "params": list(self.params), "integer": self.integer,
                "description": self.describe()}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Drift:
        words = tuple(data.get("words") or ("", ""))
        return cls(str(data["kind"]), str(data["tool"]), str(data.get("param", "")),
                   str(data.get("new", "")), float(data.get("factor", 1.0)),
                   (str(words[0]), str(words[1])), dict(data.get("values") or {}),
                   tuple(data.get("params") or ()), bool(data.get("integer")))


class DriftedTools:
    """The drifted tools of one simulation folder (read from its ``drift.json``)."""

    def __init__(self, manifest: Mapping[str, Any], folder: Path) -> None:
        self.base = (folder / str(manifest["base_dir"])).resolve()
        self.entries: dict[str, Mapping[str, Any]] = dict(manifest["tools"])
        self._functions: dict[str, Any] = {}

    @classmethod
    def load(cls, path: str | Path) -> DriftedTools:
        path = Path(path)
        return cls(json.loads(path.read_text(encoding="utf-8")), path.parent)

    def function(self, name: str) -> Any:
        if name not in self._functions:
            ref = str(self.entries[name]["function"])
            self._functions[name] = resolve_callable(ref, [str(self.base),
                                                           str(self.base.parent)])
        return self._functions[name]

    def call(self, name: str, arguments: Mapping[str, Any]) -> Any:
        """Run the drifted tool ``name``: the original function behind its drift."""
        raw = self.entries[name].get("drift")
        drift = Drift.from_dict(raw) if raw else None
        args = drift.inbound(arguments) if drift else dict(arguments)
        try:
            output = self.function(name)(**args)
        except Exception as exc:
            if drift is None:
                raise
            raise _same_kind(exc, drift.message(str(exc))) from None
        return drift.outbound(output) if drift else output


def _same_kind(exc: Exception, message: str) -> Exception:
    try:
        return type(exc)(message)
    except Exception:  # noqa: BLE001 - an exception type that wants other arguments
        return ValueError(message)
