"""A Python module's public functions as tools, read from its source (nothing is imported or
run): ``p2p lint path/to/tools.py`` or ``p2p lint pkg.module``.

Each public function (no leading ``_``; the names in ``__all__`` when the module has one) is
a tool: its name, its docstring's summary and body as the description, and one parameter per
argument (``self``, ``*args`` and ``**kwargs`` aside) whose description is the docstring's
(Google, NumPy, Sphinx or Epydoc style, read by ``docstring_parser``) or an
``Annotated[..., Field(description=...)]`` one, whose type comes from the annotation (``str``,
``int``, ``float``, ``bool``, ``list[...]``, ``dict``, ``Optional``, ``X | None``,
``Literal[...]`` as an enum; anything else: no type) and whose default is a literal default.
An argument without a default is required. The tool calls the function through the python
executor, so ``--exec`` can run it.
"""

from __future__ import annotations

import ast
import importlib.util
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from play2prompt.errors import ToolsFileError
from play2prompt.lint.findings import Target
from play2prompt.tools.model import Tool

_SIMPLE = {"str": "string", "int": "integer", "float": "number", "bool": "boolean",
           "list": "array", "tuple": "array", "set": "array", "Sequence": "array",
           "dict": "object", "Mapping": "object", "None": "null"}
_SKIP = frozenset({"self", "cls"})


def module_file(ref: str) -> Path:
    """The source file of ``ref``: a ``.py`` path, or a dotted module name found on the
    path (its parent packages are imported to find it, the module itself is not)."""
    if ref.endswith(".py"):
        path = Path(ref)
        if not path.is_file():
            raise ToolsFileError(f"{ref}: no such file")
        return path
    try:
        spec = importlib.util.find_spec(ref)
    except (ImportError, ValueError) as exc:
        raise ToolsFileError(f"{ref}: cannot find the module ({exc})") from None
    if spec is None or not spec.origin or not spec.origin.endswith(".py"):
        raise ToolsFileError(f"{ref}: no Python source for this module")
    return Path(spec.origin)


def module_targets(ref: str) -> list[Target]:
    """The public functions of the module ``ref`` as lint targets (each at its line)."""
    path = module_file(ref)
    try:
        tree = ast.parse(path.read_text(encoding="utf-8-sig"), filename=str(path))
    except (SyntaxError, UnicodeDecodeError) as exc:
        raise ToolsFileError(f"{path}: not Python source ({exc})") from None
    public = _exported(tree)
    executor_ref = str(path) if ref.endswith(".py") else ref
    out = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and (
                node.name in public if public is not None else not node.name.startswith("_")):
            tool = function_tool(node, executor_ref)
            out.append(Target(tool, False, {"uri": str(path), "line": node.lineno}))
    if not out:
        raise ToolsFileError(f"{path}: no public function")
    return out


def _exported(tree: ast.Module) -> set[str] | None:
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            try:
                return {str(n) for n in ast.literal_eval(node.value)}
            except ValueError:
                return None
    return None


def function_tool(node: ast.FunctionDef | ast.AsyncFunctionDef, module_ref: str) -> Tool:
    """One function as a tool calling ``module_ref:name`` through the python executor."""
    from play2prompt.apply.docstrings import read_docstring

    description, said = read_docstring(ast.get_docstring(node) or "")
    args = node.args
    positional = [*args.posonlyargs, *args.args]
    defaults: dict[str, ast.expr] = dict(zip([a.arg for a in positional][-len(args.defaults):],
                                             args.defaults)) if args.defaults else {}
    defaults.update({a.arg: d for a, d in zip(args.kwonlyargs, args.kw_defaults)
                     if d is not None})
    props: dict[str, Any] = {}
    required = []
    for arg in [*positional, *args.kwonlyargs]:
        if arg.arg in _SKIP:
            continue
        schema = annotation_schema(arg.annotation)
        text = said.get(arg.arg) or str(schema.pop("description", "") or "")
        schema.pop("description", None)
        if text:
            schema["description"] = text
        if arg.arg in defaults:
            _default(schema, defaults[arg.arg])
        else:
            required.append(arg.arg)
        props[arg.arg] = schema
    parameters: dict[str, Any] = {"type": "object", "properties": props}
    if required:
        parameters["required"] = required
    return Tool(node.name, description, parameters,
                executor={"python": f"{module_ref}:{node.name}"})


def _default(schema: dict[str, Any], node: ast.expr) -> None:
    try:
        value = ast.literal_eval(node)
    except ValueError:
        return
    if value is not None:
        schema["default"] = value


def annotation_schema(node: ast.expr | None) -> dict[str, Any]:
    """A JSON Schema for a type annotation written in the source (empty when unknown)."""
    if node is None:
        return {}
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        try:
            return annotation_schema(ast.parse(node.value, mode="eval").body)
        except SyntaxError:
            return {}
    if isinstance(node, ast.Constant) and node.value is None:
        return {"type": "null"}
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _union([annotation_schema(node.left), annotation_schema(node.right)])
    name = _name(node.value if isinstance(node, ast.Subscript) else node)
    if not isinstance(node, ast.Subscript):
        return {"type": _SIMPLE[name]} if name in _SIMPLE else {}
    args = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
    if name == "Optional":
        return _union([annotation_schema(args[0]), {"type": "null"}])
    if name == "Union":
        return _union([annotation_schema(a) for a in args])
    if name == "Literal":
        return _literal(args)
    if name == "Annotated":
        return {**annotation_schema(args[0]), **_field_description(args[1:])}
    if name in _SIMPLE and _SIMPLE[name] == "array":
        items = annotation_schema(args[0])
        return {"type": "array", **({"items": items} if items else {})}
    return {"type": _SIMPLE[name]} if name in _SIMPLE else {}


def _name(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return ""


def _union(parts: list[dict[str, Any]]) -> dict[str, Any]:
    kinds = [p.get("type") for p in parts]
    if any(not k for k in kinds):
        return {}
    flat = list(dict.fromkeys(k for k in kinds if isinstance(k, str)))
    if all(isinstance(k, str) for k in kinds) and len(flat) <= 2 and all(
            set(p) == {"type"} for p in parts):
        return {"type": flat[0] if len(flat) == 1 else flat}
    return {"anyOf": parts}


def _literal(args: list[ast.expr]) -> dict[str, Any]:
    try:
        values = [ast.literal_eval(a) for a in args]
    except ValueError:
        return {}
    kinds = {type(v).__name__ for v in values}
    kind = _SIMPLE.get(kinds.pop()) if len(kinds) == 1 else None
    return {"type": kind, "enum": values} if kind else {"enum": values}


def _field_description(extras: list[ast.expr]) -> Mapping[str, Any]:
    """``Field(description="...")`` (pydantic) or a plain string in ``Annotated``."""
    for extra in extras:
        if isinstance(extra, ast.Constant) and isinstance(extra.value, str):
            return {"description": extra.value}
        if isinstance(extra, ast.Call):
            for kw in extra.keywords:
                if kw.arg == "description" and isinstance(kw.value, ast.Constant):
                    return {"description": str(kw.value.value)}
    return {}
