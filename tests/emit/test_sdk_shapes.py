"""Every export against its consumer's real types: the file loads straight into the SDK.

OpenAI (chat and Responses), Anthropic and MCP through their SDK types and, for the ``tools=``
lists, a request the real client sends to a local server; simonw/llm through a chain of a
scripted ``llm.Model`` that calls an exported tool; the python export through
``python -m doctest`` and its ``bind()``.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer
from typing import Any

import pytest
from pydantic import TypeAdapter

from play2prompt.emit import ExportOptions, available_exporters, export_run, get_exporter
from play2prompt.results import load_run_result
from tests.conftest import EXAMPLES
from tests.emit.stored import make_stored_run
from tests.extras import need

JSON_FORMATS = ("openai", "openai-responses", "anthropic", "mcp")


@pytest.fixture
def run(tmp_path):
    return load_run_result(make_stored_run(tmp_path))


def _doc(run, fmt: str, **options: Any) -> Any:
    return json.loads(export_run(run, fmt, ExportOptions(**options)))


def _sidecar(run, fmt: str, **options: Any) -> Any:
    return json.loads(get_exporter(fmt).sidecar(run, ExportOptions(**options)))


def _strict(typed_dict: Any, value: dict[str, Any]) -> None:
    """``value`` validates as the SDK's TypedDict and has no key the TypedDict lacks."""
    TypeAdapter(typed_dict).validate_python(value)
    known = typed_dict.__required_keys__ | typed_dict.__optional_keys__
    assert set(value) <= known, set(value) - known


def _load(path, name: str) -> Any:
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def emit_file(run, fmt: str, tmp_path, **options: Any):
    path = tmp_path / f"p2p_{fmt.replace('-', '_')}{get_exporter(fmt).suffix}"
    path.write_text(export_run(run, fmt, ExportOptions(**options)))
    return path


@contextlib.contextmanager
def _server(reply: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    """A local HTTP server answering every POST with ``reply``; yields its base URL and what
    it received (``body``)."""
    seen: dict[str, Any] = {}

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802
            seen["body"] = json.loads(self.rfile.read(int(self.headers["content-length"])))
            data = json.dumps(reply).encode()
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args):
            pass

    server = HTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_port}", seen
    finally:
        server.shutdown()
        server.server_close()


def _empty_descriptions(value: Any) -> list[str]:
    """Paths of every ``"description": ""`` in a JSON value."""
    if isinstance(value, dict):
        found = [k for k, v in value.items() if k == "description" and v == ""]
        return found + [p for v in value.values() for p in _empty_descriptions(v)]
    if isinstance(value, list):
        return [p for v in value for p in _empty_descriptions(v)]
    return []


@pytest.mark.parametrize("fmt", JSON_FORMATS)
def test_no_export_adds_an_empty_description(run, fmt):
    # the stored run's convert_units.to_unit has no documentation (D0 and optimized)
    for options in ({}, {"original": True}):
        assert _empty_descriptions(_doc(run, fmt, **options)) == [], (fmt, options)


def test_module_exports_keep_no_empty_description(run, tmp_path):
    for fmt in ("dspy", "llm"):
        path = tmp_path / f"p2p_{fmt.replace('-', '_')}.py"
        path.write_text(export_run(run, fmt))
        module = _load(path, f"p2p_{fmt}_empty")
        assert _empty_descriptions(module.TOOLS) == [], fmt


def test_openai_responses_tools_are_function_tool_params(run):
    from openai import OpenAI
    from openai.types.responses import FunctionToolParam

    tools = _doc(run, "openai-responses")
    for tool in tools:
        _strict(FunctionToolParam, tool)
        assert tool["type"] == "function" and tool["strict"] is False
    assert [t["name"] for t in tools] == list(run.tools)
    instructions = _sidecar(run, "openai-responses")["instructions"]
    assert "Request: Will it rain in Paris tomorrow?" in instructions
    reply = {"id": "r1", "object": "response", "created_at": 0, "model": "m", "output": [],
             "status": "completed", "parallel_tool_calls": True, "tool_choice": "auto",
             "tools": []}
    with _server(reply) as (base, seen):
        client = OpenAI(base_url=f"{base}/v1", api_key="x", max_retries=0)
        client.responses.create(model="m", input="hi", tools=tools, instructions=instructions)
    assert seen["body"]["tools"] == tools and seen["body"]["instructions"] == instructions


def test_anthropic_tools_are_tool_params_the_client_sends(run):
    anthropic = need("anthropic", "dev")
    from anthropic.types import ToolParam

    tools = _doc(run, "anthropic")
    assert isinstance(tools, list)
    assert "input_examples" in ToolParam.__optional_keys__
    for tool in tools:
        _strict(ToolParam, tool)
    examples = {t["name"]: t.get("input_examples") for t in tools}
    demo_args = [c.arguments for d in run.tools["loan_payment"].demos for c in d.calls
                 if c.name == "loan_payment"]
    assert examples["loan_payment"] == demo_args and len(demo_args) == 2
    assert examples["convert_units"] is None          # no demo: no examples key
    system = _sidecar(run, "anthropic")["system"]
    reply = {"id": "m1", "type": "message", "role": "assistant", "model": "m",
             "content": [{"type": "text", "text": "ok"}], "stop_reason": "end_turn",
             "stop_sequence": None, "usage": {"input_tokens": 1, "output_tokens": 1}}
    with _server(reply) as (base, seen):
        client = anthropic.Anthropic(base_url=base, api_key="x", max_retries=0)
        answer = client.messages.create(model="m", max_tokens=16, tools=tools, system=system,
                                        messages=[{"role": "user", "content": "hi"}])
    assert answer.content[0].text == "ok"
    assert seen["body"]["tools"] == tools and seen["body"]["system"] == system


def test_mcp_export_round_trips_through_the_sdk_types(run):
    types = need("mcp_types", "mcp")
    doc = _doc(run, "mcp")
    listed = types.ListToolsResult.model_validate(doc)
    dumped = listed.model_dump(by_alias=True, exclude_none=True, mode="json")
    assert dumped["tools"] == doc["tools"] and dumped["_meta"] == doc["_meta"]


def test_llm_tools_run_in_a_chain(run, tmp_path):
    llm = need("llm", "dev")
    impl = _load(EXAMPLES / "tools.py", "p2p_example_tools")
    module = _load(emit_file(run, "llm", tmp_path), "p2p_llm_chain")
    functions = {"loan_payment": impl.loan_payment, "convert_units": impl.convert_units,
                 "get-forecast": lambda **kw: kw}
    tools = module.build_tools(functions)
    exported = {t["name"]: t for t in _doc(run, "openai-responses")}
    for tool in tools:
        assert isinstance(tool, llm.Tool)
        assert tool.input_schema == exported[tool.name]["parameters"]
        assert tool.description == exported[tool.name]["description"]
    seen = []

    class Scripted(llm.Model):
        model_id = "p2p-scripted"
        supports_tools = True

        def execute(self, prompt, stream, response, conversation):
            seen.append(prompt)
            if not prompt.tool_results:
                response.add_tool_call(llm.ToolCall(name="loan_payment", arguments={
                    "principal": 12000, "annual_rate": 4, "years": 5}))
                return
            yield "done"

    chain = Scripted().chain("q", tools=tools, system=module.SYSTEM)
    assert chain.text() == "done"
    assert seen[0].system == module.SYSTEM and "Request:" in module.SYSTEM
    assert json.loads(seen[1].tool_results[0].output) == impl.loan_payment(12000, 4, 5)
    with pytest.raises(LookupError, match="get-forecast"):
        module.build_tools(impl)
    box = module.build_toolbox(impl, partial=True)
    assert isinstance(box, llm.Toolbox)
    assert [t.name for t in box.tools()] == ["loan_payment", "convert_units"]


def test_python_export_passes_its_doctests(run, tmp_path):
    path = emit_file(run, "python", tmp_path)
    done = subprocess.run([sys.executable, "-m", "doctest", "-v", str(path)],
                          capture_output=True, text=True, cwd=tmp_path, timeout=60)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "3 passed and 0 failed" in done.stdout   # every demo call was checked


def test_python_export_calls_the_bound_tools(run, tmp_path):
    module = _load(emit_file(run, "python", tmp_path), "p2p_python_bound")
    impl = _load(EXAMPLES / "tools.py", "p2p_example_tools")
    with pytest.raises(LookupError, match="get-forecast: no implementation bound"):
        module.get_forecast(city="Paris")
    module.bind(impl)                                      # by function name
    got = module.loan_payment(principal=12000, annual_rate=4, years=5)
    assert got == impl.loan_payment(12000, 4, 5)
    calls = []
    module.bind({"get-forecast": lambda **kw: calls.append(kw) or "sunny"})   # by tool name
    assert module.get_forecast(city="Paris", class_="x") == "sunny"
    assert calls == [{"city": "Paris", "units": "c", "class": "x"}]   # the tool's own names
    with module.dry_run():
        assert module.convert_units(value=1, from_unit="mi", to_unit="km") == {
            "name": "convert_units", "arguments": {"value": 1, "from_unit": "mi",
                                                   "to_unit": "km"}}
    with pytest.raises(KeyError, match="no tool named 'nope'"):
        module.bind(nope=print)


def test_every_format_is_tested_here_or_in_test_formats():
    """(the gateway overrides are tested in test_overrides.py, the agent frameworks' modules
    in tests/integrations/test_framework_exports.py)"""
    covered = {"openai", "openai-responses", "anthropic", "mcp", "dspy", "python", "llm",
               "markdown", "toolhive-override", "toolhive-toolconfig", "ces-overrides",
               "openai-agents", "pydantic-ai", "langchain", "llamaindex"}
    assert set(available_exporters()) == covered
