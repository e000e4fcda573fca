"""Exporters: documented shapes (OpenAI, Anthropic, MCP), options, and the generated Python."""

from __future__ import annotations

import ast
import importlib.util
import inspect
import json
import re
import sys
from types import SimpleNamespace

import jsonschema
import pytest
from pydantic import TypeAdapter

import play2prompt.emit as emit
import play2prompt.plugins as plugins
from play2prompt.emit import ExportOptions, export_run, get_exporter
from play2prompt.emit._base import Exporter
from play2prompt.errors import UserError
from play2prompt.results import load_run_result
from tests.emit.stored import make_stored_run
from tests.extras import need

NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")

# Anthropic Messages API, "tools" parameter (client tools): name, description, input_schema.
ANTHROPIC_TOOL = {
    "type": "object",
    "required": ["name", "input_schema"],
    "additionalProperties": False,
    "properties": {
        "name": {"type": "string", "pattern": NAME.pattern},
        "description": {"type": "string"},
        "input_schema": {"type": "object", "required": ["type"],
                         "properties": {"type": {"const": "object"},
                                        "properties": {"type": "object"},
                                        "required": {"type": "array",
                                                     "items": {"type": "string"}}}},
        "input_examples": {"type": "array", "minItems": 1, "items": {"type": "object"}},
    },
}


@pytest.fixture
def run(tmp_path):
    return load_run_result(make_stored_run(tmp_path))


def _doc(run, fmt, **options):
    return json.loads(export_run(run, fmt, ExportOptions(**options)))


def _sidecar(run, fmt, **options):
    return json.loads(get_exporter(fmt).sidecar(run, ExportOptions(**options)))


def test_openai_tools_and_messages_have_the_sdk_shapes(run):
    from openai.types.chat import ChatCompletionMessageParam, ChatCompletionToolParam

    doc = _doc(run, "openai")
    tools = TypeAdapter(list[ChatCompletionToolParam]).validate_python(doc)
    assert [t["function"]["name"] for t in tools] == list(run.tools)
    for entry in doc:
        assert entry["type"] == "function" and NAME.match(entry["function"]["name"])
        jsonschema.Draft202012Validator.check_schema(entry["function"]["parameters"])
    meta = _sidecar(run, "openai")
    TypeAdapter(list[ChatCompletionMessageParam]).validate_python(meta["messages"])
    assert meta["messages"][0]["role"] == "system"
    assert "Request: Will it rain in Paris tomorrow?" in meta["messages"][0]["content"]
    assert meta["play2prompt"] == {"run_id": "golden", "docs": "optimized"}


def test_the_openai_export_goes_to_tools_as_it_is(run, tmp_path):
    """The exported file, loaded, is what ``client.chat.completions.create(tools=...)`` takes:
    the real SDK sends it to a (local) server unchanged."""
    import threading
    from http.server import BaseHTTPRequestHandler, HTTPServer

    from openai import OpenAI

    seen = {}

    class Chat(BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802
            seen["body"] = json.loads(self.rfile.read(int(self.headers["content-length"])))
            body = json.dumps({"id": "c1", "object": "chat.completion", "created": 0,
                               "model": "m", "choices": [{"index": 0, "finish_reason": "stop",
                               "message": {"role": "assistant", "content": "ok"}}]}).encode()
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = HTTPServer(("127.0.0.1", 0), Chat)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        path = tmp_path / "tools.openai.json"
        emit.write_export(run, "openai", path)
        tools = json.loads(path.read_text())
        client = OpenAI(base_url=f"http://127.0.0.1:{server.server_port}/v1", api_key="x",
                        max_retries=0)
        reply = client.chat.completions.create(
            model="m", tools=tools, messages=[*_sidecar(run, "openai")["messages"],
                                              {"role": "user", "content": "hi"}])
    finally:
        server.shutdown()
    assert reply.choices[0].message.content == "ok"
    assert seen["body"]["tools"] == tools and seen["body"]["messages"][0]["role"] == "system"


def test_openai_carries_the_optimized_doc_and_keeps_the_schema(run):
    doc = {"tools": _doc(run, "openai")}
    loan = doc["tools"][0]["function"]
    result = run.tools["loan_payment"]
    assert loan["description"] == result.doc.description
    for pname, text in result.doc.params.items():
        assert loan["parameters"]["properties"][pname]["description"] == text
    forecast = doc["tools"][2]["function"]["parameters"]
    original = run.tools["get-forecast"].original.parameters
    assert forecast["properties"]["units"]["enum"] == ["c", "f"]
    assert forecast["required"] == original["required"]
    strip = {k: {kk: vv for kk, vv in v.items() if kk != "description"}
             for k, v in forecast["properties"].items()}
    assert strip == {k: {kk: vv for kk, vv in v.items() if kk != "description"}
                     for k, v in original["properties"].items()}


def test_anthropic_tools_validate_and_the_sidecar_has_the_demos(run):
    doc = _doc(run, "anthropic")
    for tool in doc:
        jsonschema.validate(tool, ANTHROPIC_TOOL)
    assert doc[0]["description"] == run.tools["loan_payment"].doc.description
    system = _sidecar(run, "anthropic")["system"]
    assert "loan_payment" in system and "get-forecast" in system


def test_mcp_is_a_tools_list_result_with_the_demos_in_meta(run):
    types = need("mcp_types", "mcp")
    doc = _doc(run, "mcp")
    listed = types.ListToolsResult.model_validate(doc)
    assert [t.name for t in listed.tools] == list(run.tools)
    assert all(t.input_schema["type"] == "object" for t in listed.tools)
    demos = {t.name: t.meta["play2prompt/demos"] for t in listed.tools if t.meta}
    assert set(demos) == {"loan_payment", "get-forecast"}
    assert demos["loan_payment"][0]["calls"][0]["arguments"]["years"] == 30
    assert listed.meta == {"play2prompt/run": {"run_id": "golden", "docs": "optimized"}}
    assert get_exporter("mcp").sidecar(run) is None


def test_demos_inline_k_and_original(run):
    inline = _doc(run, "anthropic", demos=1, demos_inline=True)
    assert _sidecar(run, "anthropic", demos=1, demos_inline=True)["system"] == ""
    loan = inline[0]["description"]
    assert loan.startswith(run.tools["loan_payment"].doc.description)
    assert loan.count("Request:") == 1 and "250000" in loan
    assert inline[1]["description"] == "Converts units."   # no demos: unchanged
    assert "_meta" not in _doc(run, "mcp", demos_inline=True)["tools"][0]

    none = _sidecar(run, "openai", demos=0)
    assert none["messages"] == []

    original = _sidecar(run, "openai", original=True)
    assert original["play2prompt"]["docs"] == "original"
    assert _doc(run, "openai", original=True)[0]["function"]["description"] == "Loan calculator."
    assert original["messages"] == []
    md = export_run(run, "markdown", ExportOptions(original=True))
    assert "Monthly payment" not in md and "Demonstrations" not in md


def _load_module(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_python_functions_are_typed_and_documented(run, tmp_path):
    path = tmp_path / "stubs.py"
    emit.write_export(run, "python", path)
    ast.parse(path.read_text())
    stubs = _load_module(path, "p2p_stubs_test")
    sig = inspect.signature(stubs.loan_payment)
    assert list(sig.parameters) == ["principal", "annual_rate", "years"]
    assert all(p.kind is p.KEYWORD_ONLY for p in sig.parameters.values())
    assert sig.parameters["years"].annotation == "int"
    doc = inspect.getdoc(stubs.loan_payment)
    assert doc.startswith("Monthly payment of a fixed-rate loan.")
    assert "annual_rate: yearly interest rate in percent" in doc
    assert "...     loan_payment(principal=250000, annual_rate=6.5, years=30)" in doc
    forecast = inspect.signature(stubs.get_forecast).parameters
    assert forecast["units"].default == "c" and forecast["class_"].default is None
    assert "a \"quoted\" | piped \\ text" in inspect.getdoc(stubs.get_forecast)
    with pytest.raises(LookupError, match="loan_payment: no implementation bound"):
        stubs.loan_payment(principal=1, annual_rate=1, years=1)


def test_dspy_module_needs_no_dspy_to_write_or_read(run, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "dspy", None)   # importing dspy would fail
    path = emit.write_export(run, "dspy", tmp_path / "p2p_dspy_tools.py")
    module = _load_module(path, "p2p_dspy_tools_nodspy")
    assert [t["name"] for t in module.TOOLS] == list(run.tools)
    assert module.TOOLS[0]["description"] == run.tools["loan_payment"].doc.description
    assert [d["tool"] for d in module.DEMOS] == ["loan_payment", "loan_payment", "get-forecast"]
    with pytest.raises(ImportError):
        module.build_tools()


def test_dspy_module_builds_dspy_objects(run, tmp_path):
    dspy = need("dspy", "dspy")
    module = _load_module(emit.write_export(run, "dspy", tmp_path / "m.py"), "p2p_dspy_real")
    tools = module.build_tools({"loan_payment": lambda **kw: kw["principal"]})
    assert [t.name for t in tools] == list(run.tools)
    assert isinstance(tools[0], dspy.Tool) and tools[0].desc.startswith("Monthly payment")
    assert tools[0](principal=5, annual_rate=1, years=2) == 5
    forecast = tools[2]        # an optional argument gets a default: DSPy's "not required"
    assert forecast.args["units"]["default"] == "c" and forecast.args["class"]["default"] is None
    assert "default" not in forecast.args["city"]
    assert forecast.format_as_litellm_function_call()["function"]["parameters"]["required"] == [
        "city"]
    demos = module.build_demos("question")
    assert demos[0].question.startswith("What is the monthly payment")
    assert demos[0].next_tool_name == "loan_payment" and demos[0].next_tool_args["years"] == 30
    assert set(demos[0].inputs().keys()) == {"question", "trajectory"}
    agent = module.build_react({"loan_payment": lambda **kw: kw["principal"]})
    assert agent.react.demos == demos and str(tools[0]) in agent.react.signature.instructions


class ShoutExporter(Exporter):
    name = "shout"
    suffix = ".txt"

    def render(self, tools, run, options):
        return " ".join(t.name.upper() for t in tools)


def test_registry_unknown_name_and_entry_points(run, monkeypatch):
    with pytest.raises(UserError, match="unknown export format 'nope'.*openai"):
        get_exporter("nope")
    fake = [SimpleNamespace(name="shout", value="tests.emit.test_formats:ShoutExporter")]
    monkeypatch.setattr(plugins, "entry_points", lambda group: fake if
                        group == emit.ENTRY_POINT_GROUP else [])
    assert "shout" in emit.available_exporters()
    assert export_run(run, "shout") == "LOAN_PAYMENT CONVERT_UNITS GET-FORECAST"
