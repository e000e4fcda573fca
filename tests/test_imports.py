"""The package's import graph keeps its shape: no circle, no upward import.

Every ``import`` in every module counts, at module level, inside a function (a lazy import is
still a dependency) or under ``if TYPE_CHECKING:`` (a type is a dependency too): no circle
through any of them. Registries that name a module by string (``"pkg.mod:attr"``) are
checked too: the core must not name an adapter that way either.
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "play2prompt"
# May import the core, never the reverse.
TOP = ("play2prompt.adapters", "play2prompt.integrations", "play2prompt.cli")
FAKE = "play2prompt.lm.fake"
REGISTRY = "play2prompt.benchmarks"  # names the built-in benchmark packages, by string


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


class _Imports(ast.NodeVisitor):
    """(imported name, how) for every import and registry string of a module; ``how`` is
    ``import``, ``typing`` (under ``if TYPE_CHECKING:``) or ``string``."""

    def __init__(self, package: str) -> None:
        self.package = package
        self.found: list[tuple[str, str]] = []
        self.typing = False

    def visit_If(self, node: ast.If) -> None:
        test = node.test
        guarded = (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
            isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")
        if not guarded:
            self.generic_visit(node)
            return
        before, self.typing = self.typing, True
        for child in node.body:
            self.visit(child)
        self.typing = before
        for child in node.orelse:
            self.visit(child)

    def visit_Import(self, node: ast.Import) -> None:
        self.found.extend((a.name, self._how()) for a in node.names)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        base = node.module or ""
        if node.level:
            parts = self.package.split(".")
            parts = parts[: len(parts) - node.level + 1]
            base = ".".join([*parts, base] if base else parts)
        self.found.append((base, self._how()))
        self.found.extend((f"{base}.{a.name}", self._how()) for a in node.names)

    def visit_Constant(self, node: ast.Constant) -> None:
        value = node.value
        if isinstance(value, str) and value.startswith("play2prompt.") and " " not in value:
            self.found.append((value.partition(":")[0], "string"))

    def _how(self) -> str:
        return "typing" if self.typing else "import"


@cache
def graph() -> dict[str, dict[str, str]]:
    """module -> {module it depends on: how} (``import`` wins over ``typing`` over
    ``string``)."""
    rank = {"import": 0, "typing": 1, "string": 2}
    out: dict[str, dict[str, str]] = {}
    for name, path in modules().items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        visitor = _Imports(package)
        visitor.visit(ast.parse(path.read_text(encoding="utf-8")))
        edges: dict[str, str] = {}
        for target, how in visitor.found:
            resolved = _resolve(target) if target.startswith("play2prompt") else None
            if resolved and resolved != name:
                old = edges.get(resolved)
                edges[resolved] = how if old is None or rank[how] < rank[old] else old
        out[name] = edges
    return out


def _in(module: str, rooms: tuple[str, ...] | str) -> bool:
    rooms = (rooms,) if isinstance(rooms, str) else rooms
    return any(module == r or module.startswith(r + ".") for r in rooms)


def _cycles() -> list[list[str]]:
    """Strongly connected components of more than one module: run-time imports (module level
    or lazy) and typing-only ones alike; registry strings aside."""
    edges = {m: [t for t, how in e.items() if how in ("import", "typing")]
             for m, e in graph().items()}
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
    assert "play2prompt.optimize" in g and g["play2prompt.pipeline"]["play2prompt.engine"] == \
        "import"
    assert g["play2prompt.lm.registry"][FAKE] == "string"
    assert g["play2prompt.benchmarks"]["play2prompt.evaluation.items"] == "typing"


def test_no_import_circle():
    """Not even through a lazy or a typing-only import."""
    assert _cycles() == []


def test_a_circle_through_lazy_and_typing_imports_is_found(monkeypatch):
    lazy = {"a": {"b": "import"}, "b": {"c": "typing"}, "c": {"a": "import"}, "d": {}}
    monkeypatch.setattr(__import__(__name__, fromlist=["graph"]), "graph", lambda: lazy)
    assert _cycles() == [["a", "b", "c"]]


def test_the_low_registries_do_not_ask_the_benchmark_registry():
    """The executor and template registries are added to; they never import benchmarks.py."""
    for low in ("play2prompt.tools.executors._base", "play2prompt.metaprompts",
                "play2prompt.plugins"):
        assert REGISTRY not in graph()[low]
    assert not any(_in(t, "play2prompt.method") for t in
                   graph()["play2prompt.evaluation.items"])


def test_the_core_imports_no_adapter_and_no_cli():
    """Not even by string: the benchmark registry alone names the built-in benchmarks'
    packages (what the adapters register is found through it)."""
    upward = {(m, t) for m, e in graph().items() if not _in(m, TOP) for t in e if _in(t, TOP)}
    allowed = {(REGISTRY, f"play2prompt.adapters.{name}") for name in
               ("bfcl", "stabletoolbench", "spider")}
    assert upward - allowed == set()
    assert all(graph()[REGISTRY][t] == "string" for _, t in allowed)


def test_adapters_use_no_private_cli_helper():
    private = {(m, t) for m, e in graph().items() if _in(m, "play2prompt.adapters")
               for t in e if _in(t, "play2prompt.cli")}
    assert private == set()


def test_only_the_lm_registry_names_the_fake():
    users = {m for m, e in graph().items() if FAKE in e and not _in(m, "play2prompt.testing")}
    assert users == {"play2prompt.lm.registry"} and graph()["play2prompt.lm.registry"][FAKE] == \
        "string"
    assert not any(_in(t, "play2prompt.testing") for m, e in graph().items()
                   if not _in(m, "play2prompt.testing") for t in e)


def test_nothing_imports_the_ray_runner():
    assert all(e.get("play2prompt.distributed") in (None, "string") for e in graph().values())


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


def test_the_method_imports_nothing_of_the_run():
    """method/ is the algorithm: the engine comes in as an argument (its type only)."""
    run = ("play2prompt.engine", "play2prompt.pipeline", "play2prompt.optimize",
           "play2prompt.distributed", "play2prompt.cli", "play2prompt.evaluation")
    bad = {(m, t) for m, e in graph().items() if _in(m, "play2prompt.method")
           for t, how in e.items() if _in(t, run) and how != "typing"}
    assert bad == set()
