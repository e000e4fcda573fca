"""Python: typed functions with Google-style docstrings (Args / Returns / Examples).

Code-writing agents plan best with signatures they can read: each tool becomes a keyword-only
function whose annotations come from its JSON Schema, whose docstring is the exported
documentation and whose examples are the run's verified demos. Each function calls the real
tool: the module's ``bind()`` takes the implementations (a module whose functions carry the
tools' names, a mapping by tool name, or keyword arguments), and a call passes its arguments on
under the tools' own parameter names. The examples are doctests run under the module's
``dry_run()`` (a call returns the tool call it would make instead of making it), so
``python -m doctest`` on the file passes without the tools and checks every demo against its
function's signature.
"""

from __future__ import annotations

import keyword
import re
import textwrap
from collections.abc import Mapping, Sequence
from typing import Any

from play2prompt.emit._base import Exporter, ExportOptions, ExportTool, source_note
from play2prompt.results import RunResult
from play2prompt.tools.model import Invocation

_SIMPLE = {"string": "str", "integer": "int", "number": "float", "boolean": "bool",
           "null": "None", "object": "dict[str, Any]"}
WIDTH = 96


def identifier(name: str) -> str:
    """``name`` as a Python identifier (invalid characters become ``_``)."""
    ident = re.sub(r"\W", "_", name) or "_"
    if ident[0].isdigit():
        ident = "_" + ident
    return ident + "_" if keyword.iskeyword(ident) else ident


def annotation(schema: Mapping[str, Any] | None, typing: str = "") -> str:
    """A Python type annotation for a JSON Schema (``typing``: how the module reaches the
    ``typing`` names, e.g. ``"_t."`` for ``_t.Any``)."""
    any_ = f"{typing}Any"
    if not isinstance(schema, Mapping):
        return any_
    enum = schema.get("enum")
    if isinstance(enum, list) and enum and all(isinstance(v, (str, int, bool)) for v in enum):
        return f"{typing}Literal[" + ", ".join(repr(v) for v in enum) + "]"
    for key in ("anyOf", "oneOf"):
        if isinstance(schema.get(key), list):
            return _union([annotation(s, typing) for s in schema[key]], any_)
    kind = schema.get("type")
    if isinstance(kind, list):
        return _union([annotation({**schema, "type": k}, typing) for k in kind], any_)
    if kind == "array":
        items = schema.get("items")
        return f"list[{annotation(items, typing) if items else any_}]"
    simple = _SIMPLE.get(kind, "Any") if isinstance(kind, str) else "Any"
    return simple.replace("Any", any_)


def _union(parts: Sequence[str], any_: str = "Any") -> str:
    unique = list(dict.fromkeys(parts))
    return any_ if any_ in unique else " | ".join(unique)


def _parameter(name: str, schema: Mapping[str, Any], required: bool, typing: str = "") -> str:
    ann = annotation(schema, typing)
    if required:
        return f"{identifier(name)}: {ann}"
    if "default" in schema and isinstance(schema["default"], (str, int, float, bool, type(None))):
        return f"{identifier(name)}: {ann} = {schema['default']!r}"
    optional = ann if ann == f"{typing}Any" or "None" in ann.split(" | ") else f"{ann} | None"
    return f"{identifier(name)}: {optional} = None"


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"""', '\\"\\"\\"')


def _wrap(text: str, indent: str, hanging: str | None = None) -> list[str]:
    """``text`` wrapped paragraph by paragraph (blank lines kept)."""
    lines: list[str] = []
    first = True
    for para in text.strip().splitlines() or [""]:
        if not para.strip():
            lines.append("")
            continue
        head = indent if first or hanging is None else hanging
        lines.extend(textwrap.wrap(para, WIDTH, initial_indent=head,
                                   subsequent_indent=hanging or indent,
                                   break_long_words=False, break_on_hyphens=False) or [head])
        first = False
    return lines


def returns_text(description: str) -> str:
    """What the tool returns: the description's 'Returns ...' sentence when it has one."""
    match = re.search(r"(?:^|(?<=[.!?]\s))(Returns?\b[^.!?\n]*[.!?]?)", description)
    return match.group(1).strip() if match else "The tool's result (a JSON value)."


def _default(schema: Mapping[str, Any]) -> Any:
    """The default the signature gives an optional parameter (None unless the schema has one
    that is a plain literal)."""
    value = schema.get("default")
    return value if isinstance(value, (str, int, float, bool)) else None


def sent_arguments(tool: ExportTool, arguments: Mapping[str, Any]) -> dict[str, Any] | None:
    """The arguments the generated function passes on for a call with ``arguments``, or None
    when its signature rejects the call (an unknown or a missing required argument)."""
    props, required = tool.tool.properties, set(tool.tool.required)
    if set(arguments) - set(props) or required - set(arguments):
        return None
    out = {}
    for name, schema in props.items():
        value = arguments.get(name, _default(schema) if isinstance(schema, Mapping) else None)
        if value is not None or name in required:
            out[name] = value
    return out


def _example_lines(tool: ExportTool, by_name: Mapping[str, ExportTool]) -> list[str]:
    """Each demo: its request, then its calls as a doctest under ``dry_run()`` (a call that is
    not one of the module's functions is shown, not run)."""
    lines: list[str] = []
    pad = " " * 8
    for demo in tool.demos:
        lines += ([""] if lines else []) + _wrap(demo.query, pad)
        runnable = []
        for call in demo.calls:
            args = {identifier(k): v for k, v in call.arguments.items()}
            text = Invocation(identifier(call.name), args).to_python()
            target = by_name.get(call.name)
            sent = sent_arguments(target, call.arguments) if target else None
            if sent is None:
                lines.append(f"{pad}{text}")
            else:
                runnable.append((text, {"name": call.name, "arguments": sent}))
        if runnable:
            lines += ["", f"{pad}>>> with dry_run():"]
            lines += [f"{pad}...     {text}" for text, _ in runnable]
            lines += [f"{pad}{sent!r}" for _, sent in runnable]
    return lines


def _docstring(tool: ExportTool, by_name: Mapping[str, ExportTool]) -> list[str]:
    t = tool.tool
    body = _wrap(t.description or "(no description)", " " * 4)
    if identifier(t.name) != t.name:
        body += ["", f"    Tool name: {t.name}"]
    if t.properties:
        body += ["", "    Args:"]
        for pname, schema in t.properties.items():
            desc = str(schema.get("description") or "") or "(no description)"
            body += _wrap(f"{identifier(pname)}: {desc}", " " * 8, " " * 12)
    body += ["", "    Returns:"] + _wrap(f"Any: {returns_text(t.description)}", " " * 8, " " * 12)
    if tool.demos:
        body += ["", "    Examples:"] + _example_lines(tool, by_name)
    lines = [_escape(line) for line in body]
    lines[0] = '    """' + lines[0].lstrip()
    return lines + ['    """']


def _call_line(tool: ExportTool) -> str:
    """``return _call(tool name, {parameter: argument}, required names)``."""
    t = tool.tool
    pairs = [f"{n!r}: {identifier(n)}" for n in t.properties]
    names = [repr(n) for n in t.required if n in t.properties]
    required = "(" + ", ".join(names) + ("," if len(names) == 1 else "") + ")"
    line = f"    return _call({t.name!r}, {{{', '.join(pairs)}}}, {required})"
    if len(line) <= WIDTH:
        return line
    return (f"    return _call(\n        {t.name!r},\n        {{\n"
            + "".join(f"            {p},\n" for p in pairs)
            + f"        }},\n        {required},\n    )")


def signature(tool: ExportTool, typing: str = "") -> str:
    """``def NAME(*, PARAMS) -> Any:`` for a tool, one parameter a line where it is too long
    (``typing``: the prefix the module's typing names take, e.g. ``"_t."``)."""
    t = tool.tool
    required = set(t.required)
    params = [_parameter(n, s if isinstance(s, Mapping) else {}, n in required, typing)
              for n, s in t.properties.items()]
    line = f"def {identifier(t.name)}(" + (f"*, {', '.join(params)}" if params else "")
    line += f") -> {typing}Any:"
    if len(line) <= WIDTH:
        return line
    return (f"def {identifier(t.name)}(\n    *,\n"
            + "".join(f"    {p},\n" for p in params) + f") -> {typing}Any:")


def function(tool: ExportTool, by_name: Mapping[str, ExportTool] | None = None) -> str:
    """One tool as a keyword-only function that calls the bound implementation."""
    body = "\n".join(_docstring(tool, by_name or {tool.name: tool}))
    return f"{signature(tool)}\n{body}\n{_call_line(tool)}\n"


_HEADER = '''"""Tool functions generated by {note}.

Signatures follow the tools' JSON Schemas; the examples are the run's demonstrations. Bind the
real tools once, then call the functions:

    import my_tools          # the implementations
    bind(my_tools)           # or bind({{"tool-name": fn}}), or bind(function_name=fn)

``python -m doctest`` on this file checks every example under ``dry_run()``.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Callable, Iterator, Mapping
from typing import Any, Literal  # noqa: F401

# function name -> tool name
TOOLS: dict[str, str] = {names}

_BOUND: dict[str, Callable[..., Any]] = {{}}
_DRY_RUN: contextvars.ContextVar[bool] = contextvars.ContextVar("p2p_dry_run", default=False)


def bind(source: Any = None, /, **functions: Callable[..., Any]) -> None:
    """Use these implementations of the tools from now on.

    ``source``: a mapping from tool (or function) name to callable, or a module or object whose
    attributes named like the functions (or the tools) are the implementations; keyword
    arguments name functions. A name that is no tool of this module is an error.
    """
    found: dict[str, Any] = {{}}
    if isinstance(source, Mapping):
        found.update(source)
    elif source is not None:
        for func, tool in TOOLS.items():
            impl = getattr(source, func, None) or getattr(source, tool, None)
            if callable(impl):
                found[tool] = impl
    found.update(functions)
    for name, impl in found.items():
        tool = TOOLS.get(name, name)
        if tool not in TOOLS.values():
            raise KeyError(f"no tool named {{name!r}} (tools: {{', '.join(TOOLS.values())}})")
        _BOUND[tool] = impl


@contextlib.contextmanager
def dry_run() -> Iterator[None]:
    """Inside it a function returns the call it would make (the tool's name and the arguments
    under its own parameter names) instead of making it."""
    token = _DRY_RUN.set(True)
    try:
        yield
    finally:
        _DRY_RUN.reset(token)


def _call(tool: str, arguments: dict[str, Any], required: tuple[str, ...]) -> Any:
    sent = {{k: v for k, v in arguments.items() if v is not None or k in required}}
    if _DRY_RUN.get():
        return {{"name": tool, "arguments": sent}}
    impl = _BOUND.get(tool)
    if impl is None:
        raise LookupError(f"{{tool}}: no implementation bound: call bind() with it first")
    return impl(**sent)
'''


def _names_literal(tools: Sequence[ExportTool]) -> str:
    pairs = [f"{identifier(t.name)!r}: {t.name!r}" for t in tools]
    one = "{" + ", ".join(pairs) + "}"
    if len(one) <= WIDTH - 24:
        return one
    return "{\n" + "".join(f"    {p},\n" for p in pairs) + "}"


class PythonExporter(Exporter):
    name = "python"
    suffix = ".py"
    media_type = "text/x-python"
    help = "typed Python functions that call the bound tools; the demos as doctests"

    def render(self, tools: Sequence[ExportTool], run: RunResult, options: ExportOptions) -> str:
        by_name = {t.name: t for t in tools}
        header = _HEADER.format(note=source_note(run, options), names=_names_literal(tools))
        return header + "".join(f"\n\n{function(t, by_name)}" for t in tools)
