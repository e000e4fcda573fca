"""Parameter discovery: a tool whose schema lost its parameters tells them in its errors. The
errors here are produced by really calling Python functions wrongly (as the python executor
reports them) and by an MCP server of the official SDK validating with pydantic."""

from __future__ import annotations

import asyncio

import pytest

from play2prompt.evidence.facts import FactBook
from play2prompt.method.discovery import discovered_parameters, with_discovered
from play2prompt.tools.model import Invocation, Observation, Tool

BARE = {"type": "object", "properties": {}}


def _python_error(fn, **kwargs) -> str:
    """What the python executor reports for ``fn(**kwargs)``: ``"<Type>: <message>"``."""
    try:
        fn(**kwargs)
    except Exception as exc:  # noqa: BLE001 - the exception is the observation
        return f"{type(exc).__name__}: {exc}"
    raise AssertionError("the call did not fail")


def triangle_area(base, height):
    return base * height / 2


def _observe(book: FactBook, name: str, args: dict, error: str) -> None:
    book.observe(Invocation(name, args), Observation.failure("exception", error))


def test_missing_and_unexpected_arguments_of_a_real_typeerror():
    book = FactBook(Tool("triangle_area", "", BARE))
    _observe(book, "triangle_area", {}, _python_error(triangle_area))
    _observe(book, "triangle_area", {"base": 3, "height": 4, "unit": "cm"},
             _python_error(triangle_area, base=3, height=4, unit="cm"))
    assert book.discovered_parameters() == {
        "properties": {"base": {}, "height": {}}, "required": ["base", "height"]}
    assert book.absent_parameters() == ["unit"]
    schema = book.with_discovered()
    assert schema["properties"] == {"base": {}, "height": {}}
    assert schema["required"] == ["base", "height"]
    assert "The tool has no parameter 'unit'." in book.sentences("")
    assert "- height: height is required." in book.render()


def test_a_type_error_gives_the_type_only_where_the_schema_gives_none():
    untyped = Tool("triangle_area", "", {"type": "object", "properties": {"base": {},
                                                                          "height": {}}})
    error = _python_error(triangle_area, base="3", height=4)   # "'str' and 'int'" for /
    assert "unsupported operand" in error
    book = FactBook(untyped)
    _observe(book, "triangle_area", {"base": "3", "height": 4}, error)
    assert book.discovered_parameters() == {"properties": {"base": {"type": "number"}},
                                            "required": []}
    typed = Tool("triangle_area", "", {"type": "object", "properties": {
        "base": {"type": "string"}, "height": {"type": "integer"}}})
    book = FactBook(typed)           # a tool may parse a text itself: no fact from Python
    _observe(book, "triangle_area", {"base": "3", "height": 4}, error)
    assert book.facts == []


def test_discovery_from_a_real_mcp_validation_error():
    pytest.importorskip("mcp")
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError

    server = MCPServer("discovery")

    @server.tool()
    def scale(value: float, factor: int, label: str = "") -> str:
        return f"{label}{value * factor}"

    async def error(args: dict) -> str:
        try:
            await server.call_tool("scale", args)
        except ToolError as exc:  # what the client gets back as the isError text
            return str(exc)
        raise AssertionError("the call did not fail")

    book = FactBook(Tool("scale", "", BARE))
    for args in ({}, {"value": 2.5, "factor": "two"}):
        text = asyncio.run(error(args))
        assert "validation error" in text
        _observe(book, "scale", args, text)
    assert book.discovered_parameters() == {
        "properties": {"factor": {"type": "integer"}, "value": {}},
        "required": ["factor", "value"]}
    assert book.rejected("factor") == {"two"}


def test_discovery_from_a_pydantic_error_on_one_line_and_a_json_body():
    pydantic = pytest.importorskip("pydantic")

    class Fetch(pydantic.BaseModel):
        url: str
        max_length: int = 5000

    try:
        Fetch.model_validate({"max_length": "many"})
    except pydantic.ValidationError as exc:
        line = " ".join(f"MCP error -32602: {exc}".split())     # as the mcp executor has it
    book = FactBook(Tool("fetch", "", BARE))
    _observe(book, "fetch", {"max_length": "many"}, line)
    book.observe(Invocation("search", {"q": "x"}), Observation.failure(
        "http", 'HTTP 422 from http://h/search: {"detail":[{"type":"missing","loc":["query",'
                '"limit"],"msg":"Field required","input":null}]}'))
    found = book.discovered_parameters()
    assert found["properties"] == {"limit": {}, "max_length": {"type": "integer"}, "url": {}}
    assert found["required"] == ["limit", "url"]


def test_discovered_parameters_is_pure_and_adds_only_what_the_schema_lacks():
    schema = {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "integer"},
                                               "c": {}}, "required": ["a"]}
    book = FactBook(Tool("f", "", schema))
    _observe(book, "f", {"a": 1, "b": "x", "c": 1, "d": 2},
             "TypeError: f() got an unexpected keyword argument 'd'")
    _observe(book, "f", {"b": 1}, "TypeError: f() missing 2 required positional arguments: "
                                  "'a' and 'c'")
    found = discovered_parameters(book.facts, schema)
    assert found == {"properties": {}, "required": ["c"]}        # a is required already
    assert with_discovered(schema, found, ["d"])["required"] == ["a", "c"]
    assert schema["required"] == ["a"]                            # not changed in place
