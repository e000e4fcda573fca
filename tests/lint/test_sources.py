"""What p2p lint reads: tools.json (leniently, with lines), Python modules (from their source,
nothing imported), OpenAPI specs."""

from __future__ import annotations

import json

import pytest

from play2prompt.errors import UserError
from play2prompt.lint import lint
from play2prompt.lint.pyfuncs import module_targets
from play2prompt.lint.sources import load_targets, source_kind
from tests.conftest import EXAMPLES

MODULE = '''"""Tools."""
from typing import Annotated, Literal, Optional

from pydantic import Field

raise SystemExit("importing this module is a bug of the linter")

__all__ = ["quote", "refund_order"]


def quote(weight: float, service: Literal["STD", "EXP"] = "STD",
          destination: Optional[str] = None,
          note: Annotated[str, Field(description="printed on the label")] = "") -> dict:
    """Price of sending one parcel.

    Args:
        weight: parcel weight in grams
        destination: ISO country code, e.g. DE
    """


def refund_order(order_id, *, reason: str | None = None) -> dict:
    """Refund."""


def helper(x: int) -> int:
    return x
'''


def test_a_python_module_is_read_from_its_source(tmp_path):
    path = tmp_path / "shop.py"
    path.write_text(MODULE)
    targets = {t.tool.name: t for t in module_targets(str(path))}
    assert sorted(targets) == ["quote", "refund_order"]          # __all__; nothing imported
    quote = targets["quote"].tool
    assert quote.description == "Price of sending one parcel."
    assert quote.parameters == {"type": "object", "required": ["weight"], "properties": {
        "weight": {"type": "number", "description": "parcel weight in grams"},
        "service": {"type": "string", "enum": ["STD", "EXP"], "default": "STD"},
        "destination": {"type": ["string", "null"], "description": "ISO country code, e.g. DE"},
        "note": {"type": "string", "description": "printed on the label", "default": ""}}}
    assert quote.executor == {"python": f"{path}:quote"}
    assert targets["quote"].location == {"uri": str(path), "line": 11}
    refund = targets["refund_order"].tool
    assert refund.parameters["properties"] == {"order_id": {},
                                               "reason": {"type": ["string", "null"]}}
    found = {(f.rule, f.tool) for f in lint(list(targets.values())).findings}
    assert {("P2P102", "refund_order"), ("P2P202", "refund_order"),
            ("P2P107", "refund_order"), ("P2P201", "refund_order")} <= found
    assert not any(t == "quote" and r == "P2P203" for r, t in found)   # "in grams"


def test_a_tools_file_with_a_bad_schema_is_linted_not_refused(tmp_path):
    path = tmp_path / "tools.json"
    path.write_text(json.dumps({"tools": [
        {"type": "function", "function": {"name": "ok", "description": "Says hello to you.",
                                          "parameters": {"type": "object", "properties": {}}}},
        {"type": "function", "function": {"name": "bad", "description": "Broken schema here.",
                                          "parameters": {"type": "object", "properties": {},
                                                         "required": ["x"]}},
         "executer": {}}]}, indent=2))
    targets, found = load_targets(str(path))
    lines = path.read_text().splitlines()
    assert [lines[t.location["line"] - 1].strip() for t in targets] == [
        '"name": "ok",', '"name": "bad",']
    assert [(f.rule, f.field) for f in found] == [("P2P001", "fields")]
    assert "unknown field 'executer'" in found[0].message
    rules = {(f.rule, f.tool) for f in lint(targets, found=found).findings}
    assert ("P2P001", "bad") in rules and not any(t == "ok" for _, t in rules)


def test_the_example_tools_and_what_kind_a_source_is(tmp_path):
    targets, _ = load_targets(str(EXAMPLES / "tools.json"))
    assert len(targets) == 7 and all(t.location["uri"].endswith("tools.json") for t in targets)
    spec = tmp_path / "openapi.json"
    spec.write_text(json.dumps({"openapi": "3.0.0", "paths": {}}))
    assert source_kind(str(spec)) == "openapi"
    assert source_kind("pkg.module") == "python"
    with pytest.raises(UserError, match="not a tools.json"):
        source_kind(str(tmp_path / "notes.txt"))


def test_an_openapi_spec_is_linted(tmp_path):
    spec = tmp_path / "openapi.yaml"
    spec.write_text("""openapi: 3.0.0
info: {title: pets, version: "1"}
servers: [{url: "https://pets.example"}]
paths:
  /pets:
    get:
      operationId: listPets
      summary: List pets
      parameters:
        - {name: limit, in: query, schema: {type: integer}}
    post:
      operationId: createPet
      description: Add a pet to the store; its name must be unique.
      requestBody:
        content:
          application/json:
            schema:
              type: object
              properties: {name: {type: string, description: the pet's name}}
""")
    targets, _ = load_targets(str(spec))
    assert {t.tool.name: t.location.get("line") for t in targets} == {"listPets": 7,
                                                                      "createPet": 12}
    found = {(f.rule, f.tool) for f in lint(targets).findings}
    assert ("P2P201", "listPets") in found and ("P2P103", "listPets") in found
    assert not any(r == "P2P107" for r, _ in found)      # the method declares the effects
