"""Python sources edited through a concrete syntax tree (libcst), so formatting and comments
survive: a function's docstring (its description, its ``Args:`` entries), an MCP tool
decorator's ``description=`` (``@mcp.tool(description=...)``, FastMCP and the MCP SDK's
server), and a parameter's ``Field(description=...)`` (pydantic, as FastMCP reads it).

A tool is found by its decorator's ``name=`` or, without one, by its function's name (the
function of a ``python`` executor, else the tool's name). Demos are not written: a docstring
has no place a reader of the tools takes them from.
"""

from __future__ import annotations

import inspect
from collections.abc import Sequence

import libcst as cst
import libcst.matchers as m

from play2prompt.apply.changes import DocChange, Edited
from play2prompt.apply.docstrings import WIDTH, read_docstring, with_docs
from play2prompt.errors import UserError


def edit_python(text: str, changes: Sequence[DocChange], source: str) -> Edited:
    try:
        module = cst.parse_module(text)
    except cst.ParserSyntaxError as exc:
        raise UserError(f"{source}: not Python that parses ({exc.message}, line "
                        f"{exc.raw_line})") from exc
    editor = _Editor(changes, module.default_indent)
    new = module.visit(editor)
    return Edited(new.code, tuple(editor.written), tuple(editor.notes))


def _tool_decorator(fn: cst.FunctionDef) -> cst.Call | None:
    """``@x.tool(...)`` / ``@tool(...)`` (a call), or None (a bare ``@x.tool`` counts too,
    returned as a call with no arguments)."""
    for dec in fn.decorators:
        expr = dec.decorator
        if _is_tool(expr):
            return expr if isinstance(expr, cst.Call) else cst.Call(func=expr)
    return None


def _is_tool(expr: cst.BaseExpression) -> bool:
    target = expr.func if isinstance(expr, cst.Call) else expr
    return m.matches(target, m.Attribute(attr=m.Name("tool")) | m.Name("tool"))


def _kwarg(call: cst.Call | None, name: str) -> cst.Arg | None:
    if call is None:
        return None
    return next((a for a in call.args if a.keyword is not None and a.keyword.value == name),
                None)


def _literal(node: cst.BaseExpression) -> str | None:
    if isinstance(node, (cst.SimpleString, cst.ConcatenatedString)):
        value = node.evaluated_value
        return value if isinstance(value, str) else None
    return None


class _Editor(cst.CSTTransformer):
    def __init__(self, changes: Sequence[DocChange], default_indent: str) -> None:
        self.by_tool = {c.tool: c for c in changes}
        self.by_function = {c.function: c for c in changes if c.function}
        self.indents: list[str] = []
        self.default_indent = default_indent
        self.written: list[str] = []
        self.notes: list[str] = []

    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:  # noqa: N802
        self.indents.append(node.indent if node.indent is not None else self.default_indent)

    def leave_IndentedBlock(self, original: cst.IndentedBlock,  # noqa: N802
                            updated: cst.IndentedBlock) -> cst.IndentedBlock:
        self.indents.pop()
        return updated

    def _change(self, fn: cst.FunctionDef, call: cst.Call | None) -> DocChange | None:
        named = _kwarg(call, "name")
        if named is not None and _literal(named.value) is not None:
            return self.by_tool.get(_literal(named.value) or "")
        return self.by_function.get(fn.name.value) or self.by_tool.get(fn.name.value)

    def leave_FunctionDef(self, original: cst.FunctionDef,  # noqa: N802
                          updated: cst.FunctionDef) -> cst.FunctionDef:
        call = _tool_decorator(original)
        change = self._change(original, call)
        if change is None or change.tool in self.written:
            return updated
        described = _kwarg(call, "description")
        change, said = change.against(*_source_texts(original, described))
        self.notes += said
        if change.empty:
            return updated
        self.written.append(change.tool)
        params = dict(change.params)
        updated = _with_fields(updated, params)
        doc_description = change.description
        if described is not None and change.description is not None:
            updated = updated.with_changes(decorators=[
                _described(d, change.description) for d in updated.decorators])
            doc_description = None
        if doc_description is None and not params:
            return updated
        indent = "".join(self.indents) + (updated.body.indent if isinstance(
            updated.body, cst.IndentedBlock) and updated.body.indent is not None
            else self.default_indent)
        return _with_docstring(updated, doc_description, params, indent)


def _source_texts(fn: cst.FunctionDef, described: cst.Arg | None
                  ) -> tuple[str, dict[str, str]]:
    """What the source says now: the description (the decorator's ``description=``, else the
    docstring's text before its sections) and each parameter's text (``Field(description=)``,
    else its docstring entry)."""
    old = _docstring_node(fn)
    said, params = read_docstring(inspect.cleandoc(str(old.evaluated_value))
                                  if old is not None else "")
    description = _literal(described.value) if described is not None else None
    if description is None:
        description = said
    for param in fn.params.params:
        for call in _field_calls(param):
            arg = _kwarg(call, "description")
            text = _literal(arg.value) if arg is not None else None
            if text is not None:
                params[param.name.value] = text
    return description, params


def _described(dec: cst.Decorator, text: str) -> cst.Decorator:
    """A tool decorator with its ``description=`` replaced (others as they are)."""
    call = dec.decorator
    if not isinstance(call, cst.Call) or not _is_tool(call):
        return dec
    return dec.with_changes(decorator=call.with_changes(args=[
        a.with_changes(value=_string(text, a.value))
        if a.keyword is not None and a.keyword.value == "description" else a
        for a in call.args]))


def _with_fields(fn: cst.FunctionDef, params: dict[str, str]) -> cst.FunctionDef:
    """``Field(description=...)`` of the parameters in ``params`` replaced (and those taken
    out of ``params``)."""
    new_params = []
    for param in fn.params.params:
        name = param.name.value
        if name in params:
            found = [n for n in _field_calls(param) if _kwarg(n, "description") is not None]
            if found:
                text = params.pop(name)
                param = param.deep_replace(found[0], found[0].with_changes(args=[
                    a.with_changes(value=_string(text, a.value))
                    if a.keyword is not None and a.keyword.value == "description" else a
                    for a in found[0].args]))
        new_params.append(param)
    return fn.with_changes(params=fn.params.with_changes(params=new_params))


def _field_calls(param: cst.Param) -> list[cst.Call]:
    field = m.Call(func=m.Name("Field") | m.Attribute(attr=m.Name("Field")))
    found: list[cst.Call] = []
    for part in (param.annotation, param.default):
        if part is not None:
            found.extend(m.findall(part, field))  # type: ignore[arg-type]
    return found


def _string(text: str, old: cst.BaseExpression) -> cst.SimpleString:
    """``text`` as a one-line string literal in the quote the old one used."""
    quote = "'" if isinstance(old, cst.SimpleString) and old.quote == "'" else '"'
    body = text.replace("\\", "\\\\").replace(quote, "\\" + quote).replace("\n", "\\n")
    return cst.SimpleString(quote + body + quote)


def _docstring_node(fn: cst.FunctionDef) -> cst.SimpleString | None:
    body = fn.body.body if isinstance(fn.body, cst.IndentedBlock) else []
    if body and m.matches(body[0], m.SimpleStatementLine(body=[m.Expr(m.SimpleString())])):
        return body[0].body[0].value  # type: ignore[attr-defined,return-value]
    return None


def _with_docstring(fn: cst.FunctionDef, description: str | None, params: dict[str, str],
                    indent: str) -> cst.FunctionDef:
    old = _docstring_node(fn)
    doc = inspect.cleandoc(old.evaluated_value) if old is not None else ""  # type: ignore[arg-type]
    new = with_docs(doc, description, params, WIDTH - len(indent))
    literal = _docstring_literal(new, old, indent)
    if old is not None:
        return fn.deep_replace(old, literal)  # type: ignore[return-value]
    line = cst.SimpleStatementLine(body=[cst.Expr(literal)])
    body = fn.body
    return fn.with_changes(body=body.with_changes(body=[line, *body.body]))


def _docstring_literal(text: str, old: cst.SimpleString | None, indent: str) -> cst.SimpleString:
    prefix = "".join(ch for ch in (old.prefix if old is not None else "") if ch in "uU")
    quote = "'''" if old is not None and old.quote == "'''" else '"""'
    body = text.replace("\\", "\\\\").replace(quote, "\\" + quote)
    lines = body.splitlines() or [""]
    if len(lines) == 1:
        return cst.SimpleString(f"{prefix}{quote}{lines[0]}{quote}")
    rest = "".join("\n" + (indent + line if line.strip() else "") for line in lines[1:])
    return cst.SimpleString(f"{prefix}{quote}{lines[0]}{rest}\n{indent}{quote}")
