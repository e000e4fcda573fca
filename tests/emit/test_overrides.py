"""Gateway overrides (ToolHive's tools override file and MCPToolConfig, Google CES's
``mcpToolset.toolOverrides``): the documented shapes, only the tools whose doc the run changed,
keyed by the server's tool name, and applied as the gateway applies them they list the
optimized docs while every kept tool is listed as its server lists it."""

from __future__ import annotations

import json
import re
from dataclasses import replace

import jsonschema
import pytest

from play2prompt.emit import ExportOptions, export_run, get_exporter
from play2prompt.emit._base import prepare
from play2prompt.emit.overrides import (
    overrides,
    resource_name,
    server_name,
)
from play2prompt.results import ToolResult, load_run_result
from play2prompt.tools.model import Tool, ToolDoc
from tests.emit.stored import make_stored_run

# ToolHive's tools override file as documented (docs/cli/thv_run.md --tools-override, its
# runner.ToolOverride): a map from the server's tool name to a new name and/or description,
# not both empty.
TOOLHIVE_OVERRIDE = {
    "type": "object", "required": ["toolsOverride"], "additionalProperties": False,
    "properties": {"toolsOverride": {
        "type": "object", "propertyNames": {"minLength": 1},
        "additionalProperties": {
            "type": "object", "additionalProperties": False, "minProperties": 1,
            "properties": {"name": {"type": "string", "minLength": 1},
                           "description": {"type": "string", "minLength": 1}}}}},
}
# Google CES v1 Toolset (the part a patch with updateMask=mcpToolset.toolOverrides sends):
# McpToolOverride is {tool (required), nameOverride, descriptionOverride}, in JSON camelCase.
CES_TOOLSET = {
    "type": "object", "required": ["mcpToolset"], "additionalProperties": False,
    "properties": {"mcpToolset": {
        "type": "object", "required": ["toolOverrides"], "additionalProperties": False,
        "properties": {"toolOverrides": {"type": "array", "items": {
            "type": "object", "required": ["tool"], "additionalProperties": False,
            "properties": {"tool": {"type": "string", "minLength": 1},
                           "nameOverride": {"type": "string"},
                           "descriptionOverride": {"type": "string", "minLength": 1}}}}}}},
}
DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")


@pytest.fixture
def run(tmp_path):
    return load_run_result(make_stored_run(tmp_path))


def _doc(run, fmt, **options):
    return json.loads(export_run(run, fmt, ExportOptions(**options)))


def toolhive_listing(listed: list[dict], table: dict[str, dict]) -> list[dict]:
    """A ``tools/list`` as ToolHive's tool filter middleware rewrites it: an override's
    non-empty name and description replace the server's."""
    out = []
    for tool in listed:
        entry = table.get(tool["name"], {})
        out.append({**tool, "name": entry.get("name") or tool["name"],
                    "description": entry.get("description") or tool["description"]})
    return out


def test_toolhive_override_holds_only_the_changed_tools(run):
    doc = _doc(run, "toolhive-override")
    jsonschema.validate(doc, TOOLHIVE_OVERRIDE)
    changed = [n for n, r in run.tools.items() if r.doc_changed]
    assert list(doc["toolsOverride"]) == changed == ["loan_payment", "get-forecast"]
    assert "convert_units" not in json.dumps(doc)                       # kept: not overridden
    loan = doc["toolsOverride"]["loan_payment"]["description"]
    assert loan.startswith(run.tools["loan_payment"].doc.description)
    assert "- annual_rate: yearly interest rate in percent" in loan     # the param docs too
    forecast = doc["toolsOverride"]["get-forecast"]["description"]
    assert "- units: temperature unit" in forecast and "- class:" not in forecast  # unchanged


def test_applied_as_toolhive_applies_it_the_server_lists_the_run_docs(run):
    original = _doc(run, "mcp", original=True)["tools"]
    table = _doc(run, "toolhive-override")["toolsOverride"]
    served = {t["name"]: t for t in toolhive_listing(original, table)}
    by_name = {t["name"]: t for t in original}
    assert set(served) == set(by_name)                                   # no tool renamed
    assert served["convert_units"] == by_name["convert_units"]           # kept as listed
    for name in ("loan_payment", "get-forecast"):
        assert served[name]["inputSchema"] == by_name[name]["inputSchema"]
        assert served[name]["description"].startswith(run.tools[name].doc.description)


def test_toolhive_toolconfig_is_an_mcptoolconfig_resource(run):
    doc = _doc(run, "toolhive-toolconfig")
    assert doc["apiVersion"] == "toolhive.stacklok.dev/v1beta1"
    assert doc["kind"] == "MCPToolConfig" and DNS_LABEL.match(doc["metadata"]["name"])
    assert set(doc["spec"]) == {"toolsOverride"}
    jsonschema.validate({"toolsOverride": doc["spec"]["toolsOverride"]}, TOOLHIVE_OVERRIDE)
    assert doc["spec"]["toolsOverride"] == _doc(run, "toolhive-override")["toolsOverride"]
    for run_id in ("Run_2026.01.05", "--x--", "A" * 80, "__"):
        name = resource_name(run_id)
        assert DNS_LABEL.match(name) and len(name) <= 63, run_id


def test_ces_overrides_are_a_toolset_patch(run):
    doc = _doc(run, "ces-overrides")
    jsonschema.validate(doc, CES_TOOLSET)
    found = {o["tool"]: o["descriptionOverride"] for o in doc["mcpToolset"]["toolOverrides"]}
    assert found == {k: v["description"]
                     for k, v in _doc(run, "toolhive-override")["toolsOverride"].items()}


@pytest.mark.parametrize("fmt", ["toolhive-override", "toolhive-toolconfig", "ces-overrides"])
def test_the_original_docs_override_nothing_and_demos_stay_out(run, fmt):
    exporter = get_exporter(fmt)
    assert exporter.exported_names(run, ExportOptions(original=True)) == []
    assert "Request:" not in export_run(run, fmt)
    assert exporter.demos_outside(run) == 3                     # in the sidecar's messages
    side = json.loads(exporter.sidecar(run, ExportOptions()))
    assert side["overridden"] == ["loan_payment", "get-forecast"]
    assert side["kept"] == ["convert_units"] and "Request:" in side["messages"][0]["content"]


def test_demos_inline_go_into_the_override(run):
    table = _doc(run, "toolhive-override", demos_inline=True)["toolsOverride"]
    assert table["loan_payment"]["description"].count("Request:") == 2
    assert "convert_units" not in table                         # no demo, doc kept


def test_a_parameter_doc_alone_makes_an_override(run):
    kept = run.tools["convert_units"]
    params = {**kept.original.doc.params, "value": "the quantity, e.g. 26.2"}
    run.tools["convert_units"] = replace(kept, doc=ToolDoc(kept.original.description, params),
                                         doc_changed=True)
    found = {o.tool: o.description for o in overrides(prepare(run, ExportOptions()),
                                                      ExportOptions())}
    assert found["convert_units"] == (f"{kept.original.description}\n\nParameters:\n"
                                      "- value: the quantity, e.g. 26.2")
    run.tools["convert_units"] = replace(kept, doc=ToolDoc("", kept.original.doc.params),
                                         doc_changed=True)        # emptied: nothing to say
    assert "convert_units" not in get_exporter("toolhive-override").exported_names(run)


def test_the_key_is_the_tool_name_on_its_server(run):
    """A tools file from ``p2p tools from-mcp --prefix notes_`` names the tool locally
    ``notes_recent``; the gateway knows it as ``recent``."""
    local = Tool("notes_recent", "Recent notes.", {"type": "object", "properties": {}},
                 executor={"mcp": {"command": "srv", "tool": "recent"}},
                 meta={"mcp": {"tool": "recent"}})
    assert server_name(local) == "recent"
    assert server_name(replace(local, executor=None)) == "recent"
    assert server_name(replace(local, executor=None, meta={})) == "notes_recent"
    result = ToolResult("notes_recent", local, ToolDoc("The latest notes, newest first."),
                        doc_changed=True)
    run.tools = {"notes_recent": result}
    assert _doc(run, "toolhive-override") == {
        "toolsOverride": {"recent": {"description": "The latest notes, newest first."}}}
    assert get_exporter("ces-overrides").exported_names(run) == ["notes_recent"]
