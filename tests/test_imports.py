"""The package's import graph keeps its shape: no circle, no upward import.

Every ``import`` in every module counts, at module level or inside a function (a lazy import
is still a dependency). Registries that name a module by string (``"pkg.mod:attr"``) are
checked too: the core must not name an adapter that way either.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from functools import cache
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "play2prompt"
TOP = ("play2prompt.adapters", "play2prompt.cli")   # may import the core, never the reverse
FAKE = "play2prompt.lm.fake"

# Upward imports still to be removed (issue 17, phase 2); the list may only shrink.
KNOWN_UPWARD = {
    ("play2prompt.sweep.target", "play2prompt.adapters"),
    ("play2prompt.sweep.target", "play2prompt.adapters.bfcl.data"),
    ("play2prompt.sweep.target", "play2prompt.adapters.bfcl.suite"),
    ("play2prompt.tools.executors._base", "play2prompt.adapters.stabletoolbench.executor"),
}
KNOWN_ADAPTER_TO_CLI = {
    ("play2prompt.adapters.bfcl.cli", "play2prompt.cli._common"),
    ("play2prompt.adapters.bfcl.cli", "play2prompt.cli._eval_common"),
    ("play2prompt.adapters.spider.cli", "play2prompt.cli._common"),
    ("play2prompt.adapters.stabletoolbench.cli", "play2prompt.cli._common"),
    ("play2prompt.adapters.stabletoolbench.run", "play2prompt.cli._common"),
}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@cache
def modules() -> dict[str, Path]:
    return {_module_name(p): p for p in PACKAGE.rglob("*.py")}


def _resolve(name: str) -> str | None:
    """The package module ``name`` refers to (an attribute import names its module)."""
    known = modules()
    while name and name not in known:
        name = name.rpartition(".")[0]
    return name or None


def _targets(module: str, tree: ast.AST) -> Iterator[tuple[str, bool]]:
    """(imported name, named by string only) for every import and registry string."""
    package = module if modules()[module].name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from ((a.name, False) for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                parts = parts[: len(parts) - node.level + 1]
                base = ".".join([*parts, base] if base else parts)
            yield base, False
            yield from ((f"{base}.{a.name}", False) for a in node.names)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and \
                node.value.startswith("play2prompt.") and " " not in node.value:
            yield node.value.partition(":")[0], True


@cache
def graph() -> dict[str, dict[str, bool]]:
    """module -> {module it depends on: only by string}."""
    out: dict[str, dict[str, bool]] = {}
    for name, path in modules().items():
        edges: dict[str, bool] = {}
        for target, by_string in _targets(name, ast.parse(path.read_text(encoding="utf-8"))):
            resolved = _resolve(target) if target.startswith("play2prompt") else None
            if resolved and resolved != name:
                edges[resolved] = edges.get(resolved, True) and by_string
        out[name] = edges
    return out


def _in(module: str, rooms: tuple[str, ...] | str) -> bool:
    rooms = (rooms,) if isinstance(rooms, str) else rooms
    return any(module == r or module.startswith(r + ".") for r in rooms)


def _cycles() -> list[list[str]]:
    """Strongly connected components of more than one module (imports, not strings)."""
    edges = {m: [t for t, s in e.items() if not s] for m, e in graph().items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def test_the_walk_sees_the_package():
    g = graph()
    assert "play2prompt.optimize" in g and "play2prompt.engine" in g["play2prompt.pipeline"]
    assert g["play2prompt.lm.registry"].get(FAKE) is True  # named by string only


def test_no_import_circle():
    assert _cycles() == []


def test_the_core_imports_no_adapter_and_no_cli():
    upward = {(m, t) for m, e in graph().items() if not _in(m, TOP) for t in e if _in(t, TOP)}
    assert upward - KNOWN_UPWARD == set()
    assert KNOWN_UPWARD - upward == set(), "fixed: drop it from KNOWN_UPWARD"


def test_adapters_use_no_private_cli_helper():
    private = {(m, t) for m, e in graph().items() if _in(m, "play2prompt.adapters")
               for t in e if _in(t, "play2prompt.cli") and t.rpartition(".")[2].startswith("_")}
    assert private - KNOWN_ADAPTER_TO_CLI == set()
    assert KNOWN_ADAPTER_TO_CLI - private == set(), "fixed: drop it from KNOWN_ADAPTER_TO_CLI"


def test_only_the_lm_registry_names_the_fake():
    users = {m for m, e in graph().items() if FAKE in e}
    assert users <= {"play2prompt.lm.registry", "play2prompt.testing"}
    assert graph()["play2prompt.lm.registry"][FAKE] is True
    assert not any("play2prompt.testing" in e for e in graph().values())


def test_nothing_imports_the_ray_runner():
    assert not any("play2prompt.distributed" in e and not e["play2prompt.distributed"]
                   for e in graph().values())


def test_public_faces_reexport_their_types():
    import importlib

    for name in ("play2prompt", "play2prompt.lm", "play2prompt.store", "play2prompt.tools"):
        module = importlib.import_module(name)
        for attr in module.__all__:
            assert getattr(module, attr) is not None, f"{name}.{attr}"
    from play2prompt.lm import LM, make_lm
    from play2prompt.store import RunStore
    from play2prompt.tools import Tool, ToolRuntime

    assert LM.__module__ == "play2prompt.lm._base" and callable(make_lm)
    assert RunStore.__name__ == "RunStore" and Tool.__name__ == "Tool"
    assert ToolRuntime.__module__ == "play2prompt.tools.runtime"
