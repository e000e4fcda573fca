"""Python: typed function stubs with Google-style docstrings (Args / Returns / Examples).

Code-writing agents plan best with signatures they can read: each tool becomes a keyword-only
function whose annotations come from its JSON Schema, whose docstring is the exported
documentation and whose examples are the run's verified demos. Bodies raise
``NotImplementedError``: bind them to the real tools (or let the agent emit calls to them).
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


def annotation(schema: Mapping[str, Any] | None) -> str:
    """A Python type annotation for a JSON Schema."""
    if not isinstance(schema, Mapping):
        return "Any"
    enum = schema.get("enum")
    if isinstance(enum, list) and enum and all(isinstance(v, (str, int, bool)) for v in enum):
        return "Literal[" + ", ".join(repr(v) for v in enum) + "]"
    for key in ("anyOf", "oneOf"):
        if isinstance(schema.get(key), list):
            return _union([annotation(s) for s in schema[key]])
    kind = schema.get("type")
    if isinstance(kind, list):
        return _union([annotation({**schema, "type": k}) for k in kind])
    if kind == "array":
        items = schema.get("items")
        return f"list[{annotation(items) if items else 'Any'}]"
    return _SIMPLE.get(kind, "Any") if isinstance(kind, str) else "Any"


def _union(parts: Sequence[str]) -> str:
    unique = list(dict.fromkeys(parts))
    return "Any" if "Any" in unique else " | ".join(unique)


def _parameter(name: str, schema: Mapping[str, Any], required: bool) -> str:
    ann = annotation(schema)
    if required:
        return f"{identifier(name)}: {ann}"
    if "default" in schema and isinstance(schema["default"], (str, int, float, bool, type(None))):
        return f"{identifier(name)}: {ann} = {schema['default']!r}"
    optional = ann if ann == "Any" or "None" in ann.split(" | ") else f"{ann} | None"
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


def _example_lines(tool: ExportTool) -> list[str]:
    lines: list[str] = []
    for demo in tool.demos:
        lines.extend(_wrap(demo.query, " " * 8))
        for call in demo.calls:
            args = {identifier(k): v for k, v in call.arguments.items()}
            lines.append(" " * 8 + ">>> " + Invocation(identifier(call.name), args).to_python())
    return lines


def _docstring(tool: ExportTool) -> list[str]:
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
        body += ["", "    Examples:"] + _example_lines(tool)
    lines = [_escape(line) for line in body]
    lines[0] = '    """' + lines[0].lstrip()
    return lines + ['    """']


def stub(tool: ExportTool) -> str:
    t = tool.tool
    required = set(t.required)
    params = [_parameter(n, s if isinstance(s, Mapping) else {}, n in required)
              for n, s in t.properties.items()]
    signature = f"def {identifier(t.name)}(" + (f"*, {', '.join(params)}" if params else "")
    signature += ") -> Any:"
    if len(signature) > WIDTH:
        signature = (f"def {identifier(t.name)}(\n    *,\n" +
                     "".join(f"    {p},\n" for p in params) + ") -> Any:")
    body = "\n".join(_docstring(tool))
    message = f"{t.name}: bind this stub to the real tool"
    raise_line = f"    raise NotImplementedError({message!r})"
    return f"{signature}\n{body}\n{raise_line}\n"


class PythonExporter(Exporter):
    name = "python"
    suffix = ".py"
    media_type = "text/x-python"
    help = "typed Python stubs with docstrings (Args/Returns/Examples)"

    def render(self, tools: Sequence[ExportTool], run: RunResult, options: ExportOptions) -> str:
        header = (f'"""Tool stubs generated by {source_note(run, options)}.\n\n'
                  'Signatures follow the tools\' JSON Schemas; the examples are the run\'s '
                  'demonstrations.\n"""\n\n'
                  "from __future__ import annotations\n\n"
                  "from typing import Any, Literal  # noqa: F401\n")
        return header + "".join(f"\n\n{stub(t)}" for t in tools)
