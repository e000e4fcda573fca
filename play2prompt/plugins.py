"""Plug-ins by name, the one mechanism behind every registry of the package.

A registry is a mapping name -> ``module[:attribute.path]``: the built-in targets of one kind
(LM backends, executors, optimization methods, benchmarks, export formats) plus what other
packages register under that kind's entry-point group. A target is imported only when its name
is used, so an optional dependency is needed only by the plug-in that uses it.

A :class:`Registry` is such a mapping that others may also add to at run time: the executor
kinds and the meta-prompt templates, which a benchmark adds to when it is loaded. So the low
floors that look a kind or a template up never ask the benchmark registry (they would import
every adapter, and the benchmark registry imports them).
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from importlib.metadata import entry_points
from typing import Any


def registered(builtin: Mapping[str, str], group: str) -> dict[str, str]:
    """Name -> target: the built-in ones, then the entry points' (a built-in name wins)."""
    found = dict(builtin)
    for ep in entry_points(group=group):
        found.setdefault(ep.name, ep.value)
    return found


def load_target(target: str, default_attribute: str = "") -> Any:
    """The object a ``module[:attribute.path]`` target names, imported now (a bare module
    with ``default_attribute``: that attribute of it; without one: the module)."""
    module_name, _, attribute = target.partition(":")
    obj: Any = importlib.import_module(module_name)
    for part in filter(None, (attribute or default_attribute).split(".")):
        obj = getattr(obj, part)
    return obj


class Registry:
    """Name -> target of one pluggable kind: the built-in ones, then the entry points of
    ``group``, then those :meth:`add`-ed at run time (the first naming a key wins)."""

    def __init__(self, builtin: Mapping[str, str], group: str) -> None:
        self.builtin = dict(builtin)
        self.group = group
        self.added: dict[str, str] = {}

    def add(self, name: str, target: str) -> None:
        """Register ``target`` under ``name`` unless a name is taken already."""
        self.added.setdefault(name, target)

    def targets(self) -> dict[str, str]:
        found = registered(self.builtin, self.group)
        for name, target in self.added.items():
            found.setdefault(name, target)
        return found

    def find(self, name: str) -> str | None:
        return self.targets().get(name)
