"""The ``schema-facts`` component: what code proved and JSON Schema can hold goes into the
doc's constraints, and from there into the schema every consumer of the optimized tool reads
(the task model decodes against it); the original schema's own keywords are never replaced."""

from __future__ import annotations

from play2prompt.evidence.facts import Fact, FactBook
from play2prompt.evidence.schema_facts import constrained, schema_constraints
from play2prompt.tools.model import Tool, ToolDoc

TOOL = Tool("pace", "Pace.", {"type": "object", "properties": {
    "unit": {"type": "string"}, "rate": {"type": "number"}, "laps": {"type": "integer"},
    "mode": {"type": "string", "enum": ["a", "b"]}, "zone": {"type": "integer", "minimum": 1}},
    "required": ["unit"]})


def _book() -> FactBook:
    return FactBook(TOOL, [
        Fact("unit", "accepts", "Accepted values: km, mi.", ("km", "mi")),
        Fact("rate", "rule", "rate must be between 0 and 100.",
             ("range", "0.0", "1", "100.0", "1")),
        Fact("laps", "rule", "laps must be greater than 0 and at most 50.",
             ("range", "0.0", "0", "50.0", "1")),
        Fact("laps", "rule", "Optional; defaults to 4.", ("default", "4")),
        Fact("mode", "accepts", "Accepted values: a, b, c.", ("a", "b", "c")),
        Fact("zone", "rule", "zone must be between 1 and 5.", ("range", "1.0", "1", "5.0", "1")),
    ])


def test_proved_facts_become_keywords_the_schema_lacks():
    found = schema_constraints(TOOL, _book())
    assert found == {"unit": {"enum": ["km", "mi"]},
                     "rate": {"maximum": 100.0, "minimum": 0.0},
                     "laps": {"default": 4, "exclusiveMinimum": 0, "maximum": 50}}


def test_the_doc_carries_them_into_the_published_schema():
    doc = constrained(ToolDoc("Pace.", {"unit": "distance unit"}), TOOL, _book())
    tool = TOOL.with_doc(doc)
    props = tool.parameters["properties"]
    assert props["unit"] == {"type": "string", "enum": ["km", "mi"],
                             "description": "distance unit"}
    assert props["mode"]["enum"] == ["a", "b"] and props["zone"] == {"type": "integer",
                                                                      "minimum": 1}
    assert tool.to_openai()["function"]["parameters"]["properties"]["laps"]["default"] == 4
    again = ToolDoc.from_dict(doc.to_dict())
    assert again == doc and "one of \"km\", \"mi\"" in doc.render("pace", TOOL.parameters)
    assert "constraints" not in ToolDoc("x").to_dict()
    assert TOOL.with_doc(ToolDoc("Pace.")).parameters == TOOL.parameters


def test_an_index_base_bounds_the_index_and_a_month_to_twelve_values():
    tool = Tool("stamp", "", {"type": "object", "properties": {
        "month": {"type": "integer"}, "page": {"type": "integer"}}, "required": []})
    book = FactBook(tool, [
        Fact("month", "rule", "`month` counts from 0: 0 is January, 11 is December.",
             ("convention", "index", "0")),
        Fact("page", "rule", "`page` counts from 1: 1 is the first page, 2 the second.",
             ("convention", "index", "1"))])
    assert schema_constraints(tool, book) == {"month": {"maximum": 11, "minimum": 0},
                                              "page": {"minimum": 1}}
