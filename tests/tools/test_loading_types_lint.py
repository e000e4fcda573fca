from play2prompt.tools.lint import lint_score, lint_spec
from play2prompt.tools.loading import parse_tools
from play2prompt.tools.types import normalize_schema, normalize_type
from play2prompt.tools.validate import validation_errors


def test_bfcl_and_python_types_are_normalised():
    schema = normalize_schema({"type": "dict", "properties": {
        "a": {"type": "float", "default": "0.5"}, "b": {"type": "tuple", "items": {"type": "str"}},
        "c": {"type": "any"}, "d": {"type": "DATE (YYYY-MM-DD)"}, "e": {"type": "weird"}}})
    props = schema["properties"]
    assert schema["type"] == "object" and props["a"] == {"type": "number", "default": 0.5}
    assert props["b"] == {"type": "array", "items": {"type": "string"}}
    assert "type" not in props["c"] and props["d"]["type"] == "string"
    assert "type" not in props["e"]
    assert normalize_type("Integer") == "integer"


def test_linter_reports_errors_and_thin_docs():
    issues = lint_spec("f", "", {"type": "object", "properties": {
        "x": {"type": "strng", "description": ""}}, "required": ["x", "y"]})
    text = [str(i) for i in issues]
    assert any("unknown type 'strng'" in t for t in text)
    assert any("'y' is not in properties" in t for t in text)
    assert {i.severity for i in issues} == {"error", "warning"}


def test_lint_score_prefers_complete_docs():
    thin, full = parse_tools([
        {"name": "t", "description": "", "parameters": {"type": "object", "properties": {
            "x": {"type": "string"}}}},
        {"name": "u", "description": "Does u.", "parameters": {"type": "object", "properties": {
            "x": {"type": "string", "description": "The x."}}}}])
    assert lint_score(full) == 1.0 > lint_score(thin)


def test_validation_rejects_unknown_and_mistyped_arguments():
    params = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
    assert validation_errors(params, {"n": 3}) == []
    assert any("not of type 'integer'" in e for e in validation_errors(params, {"n": "3"}))
    assert any("Additional properties" in e for e in validation_errors(params, {"n": 1, "m": 2}))
    assert validation_errors(params, {}) == ["'n' is a required property"]
