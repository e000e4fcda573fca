"""The tools of a DSPy program as play2prompt tools.

:func:`collect_tools` finds the ``dspy.Tool`` objects of every ``dspy.ReAct`` in a program (or
takes a list of tools / plain callables), and :func:`tool_spec` turns one into a
:class:`~play2prompt.tools.model.Tool`: the name, the description (the docstring's summary when
the description is a docstring), and per argument the JSON schema DSPy derived from the type
hints plus a description from, in order, ``arg_desc``, the schema's own ``description`` and the
docstring (Google ``Args:``, NumPy ``Parameters`` or Sphinx ``:param x:`` style). An argument
without a default is required, as DSPy itself declares it to a model.
"""

from __future__ import annotations

import copy
import inspect
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from play2prompt.errors import UserError
from play2prompt.tools.model import Tool

FINISH = "finish"  # the tool dspy.ReAct adds to every agent; not the user's
_SECTIONS = re.compile(r"^(Args|Arguments|Parameters|Params|Keyword Args|Returns?|Yields?|"
                       r"Raises|Examples?|Notes?|See Also|Attributes)\s*:?\s*$")
_ARG_SECTIONS = {"args", "arguments", "parameters", "params", "keyword args"}
_GOOGLE_ARG = re.compile(r"^(\*{0,2}\w+)\s*(\([^)]*\))?\s*:\s*(.*)$")
_SPHINX_ARG = re.compile(r"^:param\s+(?:[\w\[\], |.]+\s+)?(\w+)\s*:\s*(.*)$")


@dataclass(frozen=True)
class FoundTools:
    """What a program holds: its tools (unique by name) and the ReAct modules using them."""

    tools: tuple[Any, ...]
    reacts: tuple[tuple[str, Any], ...]   # (name in the program, dspy.ReAct)


def collect_tools(program: Any) -> FoundTools:
    """The tools of ``program``: a module containing ``dspy.ReAct`` agents, a ``dspy.Tool`` or
    callable, or an iterable of those (plain callables are wrapped in ``dspy.Tool``)."""
    import dspy

    if isinstance(program, dspy.Module):
        reacts = tuple(program.named_sub_modules(type_=dspy.ReAct))
        if not reacts:
            raise UserError(f"{type(program).__name__} holds no dspy.ReAct: pass its tools "
                            f"(a list of dspy.Tool or callables) instead")
        tools: dict[str, Any] = {}
        for _, react in reacts:
            for name, tool in react.tools.items():
                if name != FINISH:
                    tools.setdefault(name, tool)
        return FoundTools(tuple(tools.values()), reacts)
    items = [program] if isinstance(program, dspy.Tool) or callable(program) else list(program)
    wrapped = [t if isinstance(t, dspy.Tool) else dspy.Tool(t) for t in items]
    names = [t.name for t in wrapped]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise UserError(f"two tools share the name {dupes[0]!r}: give them distinct names")
    if not wrapped:
        raise UserError("no tools to optimize")
    return FoundTools(tuple(wrapped), ())


def tool_spec(tool: Any) -> Tool:
    """The play2prompt tool for a ``dspy.Tool`` (executed in-process by its callable)."""
    summary, documented = parse_docstring(tool.desc or "")
    own = dict(tool.arg_desc or {})
    properties: dict[str, Any] = {}
    for name, schema in (tool.args or {}).items():
        prop = copy.deepcopy(dict(schema))
        text = own.get(name) or prop.get("description") or documented.get(name, "")
        prop["description"] = str(text)
        properties[name] = prop
    required = [n for n, s in properties.items() if "default" not in s]
    parameters = {"type": "object", "properties": properties, "required": required}
    return Tool(tool.name, summary, parameters, {"callable": tool.name}, {"source": "dspy"})


def tool_callable(tool: Any) -> Callable[..., Any]:
    """What the ``callable`` executor runs: the tool as ReAct runs it (DSPy validates and
    parses the arguments, then calls the function; async functions are awaited)."""
    return tool.acall


def parse_docstring(doc: str) -> tuple[str, dict[str, str]]:
    """(the summary, {argument: description}) of a Google, NumPy or Sphinx style docstring."""
    lines = inspect.cleandoc(doc).splitlines() if doc.strip() else []
    summary: list[str] = []
    args: dict[str, str] = {}
    section: str | None = None   # None (summary), "args", "numpy-args", "sphinx" or "other"
    base = current = None
    i = 0
    while i < len(lines):
        line, stripped = lines[i], lines[i].strip()
        underlined = i + 1 < len(lines) and lines[i + 1].strip() and \
            set(lines[i + 1].strip()) == {"-"}
        header = _SECTIONS.match(stripped)
        if header and (stripped.endswith(":") or underlined):
            is_args = header.group(1).lower() in _ARG_SECTIONS
            section = ("numpy-args" if underlined else "args") if is_args else "other"
            base = current = None
            i += 2 if underlined else 1
            continue
        sphinx = _SPHINX_ARG.match(stripped)
        if sphinx:
            section, current = "sphinx", sphinx.group(1)
            args[current] = sphinx.group(2).strip()
        elif stripped.startswith(":"):
            section, current = "other", None
        elif section is None:
            summary.append(line)
        elif section in ("args", "numpy-args") and stripped:
            indent = len(line) - len(line.lstrip())
            base = indent if base is None else base
            named = _arg_start(stripped, section) if indent <= base else None
            if named is not None:
                current, args[named[0]] = named
            elif current is not None:
                args[current] = f"{args[current]} {stripped}".strip()
        elif section == "sphinx" and current and stripped:
            args[current] = f"{args[current]} {stripped}".strip()
        i += 1
    text = "\n".join(summary).strip()
    return (text or inspect.cleandoc(doc).strip()), args


def _arg_start(stripped: str, section: str) -> tuple[str, str] | None:
    """(name, description so far) when the line names an argument."""
    if section == "numpy-args":   # "name : type", the description on the lines below
        match = re.match(r"^\*{0,2}(\w+)\s*(:.*)?$", stripped)
        return (match.group(1), "") if match else None
    match = _GOOGLE_ARG.match(stripped)   # "name (type): description"
    return (match.group(1).lstrip("*"), match.group(3).strip()) if match else None
