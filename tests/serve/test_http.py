"""The read-only HTTP API (FastAPI test client): formats, tool details, runs, JSON errors."""

from __future__ import annotations

import json

import pytest
from fastapi.testclient import TestClient

from play2prompt.emit import ExportOptions, get_exporter
from play2prompt.results import load_run_result
from play2prompt.serve.http import create_app
from tests.emit.stored import make_stored_run


@pytest.fixture
def runs(tmp_path):
    first = load_run_result(make_stored_run(tmp_path, "first"))
    second = load_run_result(make_stored_run(tmp_path, "second", drop=("get-forecast",)))
    return first, second


@pytest.fixture
def client(runs):
    with TestClient(create_app(list(runs))) as c:
        yield c


def test_health_and_runs(client):
    assert client.get("/health").json() == {"status": "ok", "runs": ["first", "second"]}
    summary = client.get("/v1/runs/second").json()
    assert summary["run_id"] == "second" and set(summary["tools"]) == {"loan_payment",
                                                                       "convert_units"}
    assert summary["tools"]["loan_payment"] == {
        "doc_changed": True, "doc_reason": "rewrite: held-out accuracy 0.40 -> 0.80",
        "demos": 2, "scores": {"d0_train": 0.5, "best_train": 1.0, "d0_holdout": 0.4,
                               "best_holdout": 0.8}}
    assert [r["run_id"] for r in client.get("/v1/runs").json()["runs"]] == ["first", "second"]


@pytest.mark.parametrize("fmt", ["openai", "anthropic", "mcp"])
def test_tools_in_each_json_format_equal_the_exporter(client, runs, fmt):
    reply = client.get("/v1/tools", params={"format": fmt})
    assert reply.status_code == 200 and reply.headers["content-type"] == "application/json"
    assert reply.json() == get_exporter(fmt).document(runs[0])
    options = {"format": fmt, "run": "second", "demos": 1, "demos_inline": "true"}
    reply = client.get("/v1/tools", params=options)
    expected = get_exporter(fmt).document(runs[1], ExportOptions(demos=1, demos_inline=True))
    tools = expected if isinstance(expected, list) else expected["tools"]
    assert reply.json() == expected and len(tools) == 2


def test_default_format_is_openai_and_text_formats_are_text(client, runs):
    assert client.get("/v1/tools").json()[0]["type"] == "function"
    meta = client.get("/v1/tools", params={"sidecar": "true"}).json()
    assert meta == get_exporter("openai").sidecar_document(runs[0])
    assert meta["messages"][0]["role"] == "system"
    assert client.get("/v1/tools", params={"format": "mcp", "sidecar": "true"}).status_code == 400
    reply = client.get("/v1/tools", params={"format": "markdown", "original": "true"})
    assert reply.headers["content-type"].startswith("text/markdown")
    assert reply.text == get_exporter("markdown").export(runs[0], ExportOptions(original=True))


def test_tool_detail(client, runs):
    detail = client.get("/v1/tools/get-forecast").json()
    result = runs[0].tools["get-forecast"]
    assert detail["doc"] == result.doc.to_dict()
    assert detail["demos"] == [d.to_dict() for d in result.demos]
    assert detail["scores"]["best_train"] == 1.0 and detail["doc_changed"] is True
    assert detail["original"]["function"]["description"] == "Weather."
    assert detail["tool"]["function"]["description"].startswith("Daily weather forecast")


@pytest.mark.parametrize("path, params, status, message", [
    ("/v1/tools/nope", {}, 404, "no tool 'nope' in run 'first'"),
    ("/v1/tools/get-forecast", {"run": "second"}, 404, "no tool 'get-forecast' in run 'second'"),
    ("/v1/tools", {"run": "third"}, 404, "no run 'third' (mounted: first, second)"),
    ("/v1/runs/third", {}, 404, "no run 'third'"),
    ("/v1/tools", {"format": "yaml"}, 400, "unknown format 'yaml'"),
    ("/v1/tools", {"demos": -1}, 422, "demos:"),
    ("/v2/anything", {}, 404, "Not Found"),
])
def test_errors_are_json(client, path, params, status, message):
    reply = client.get(path, params=params)
    assert reply.status_code == status
    assert message in reply.json()["error"]


def test_read_only(client):
    assert client.post("/v1/tools", json={}).status_code == 405
    assert client.delete("/v1/runs/first").status_code == 405


def _declared(openapi, template, status, media_type):
    """The body schema the OpenAPI document declares (its components alongside, for $ref)."""
    responses = openapi["paths"][template]["get"]["responses"]
    assert str(status) in responses, f"{template}: {status} not declared ({list(responses)})"
    content = responses[str(status)]["content"]
    assert media_type in content, f"{template} {status}: {media_type} not in {list(content)}"
    return {**content[media_type]["schema"], "components": openapi["components"]}


@pytest.mark.parametrize("template, path, params, status", [
    ("/health", "/health", {}, 200),
    ("/v1/runs", "/v1/runs", {}, 200),
    ("/v1/runs/{run_id}", "/v1/runs/second", {}, 200),
    ("/v1/runs/{run_id}", "/v1/runs/third", {}, 404),
    ("/v1/tools", "/v1/tools", {}, 200),
    ("/v1/tools", "/v1/tools", {"format": "mcp", "demos": 1}, 200),
    ("/v1/tools", "/v1/tools", {"sidecar": "true"}, 200),
    ("/v1/tools", "/v1/tools", {"format": "markdown"}, 200),
    ("/v1/tools", "/v1/tools", {"format": "python"}, 200),
    ("/v1/tools", "/v1/tools", {"format": "yaml"}, 400),
    ("/v1/tools", "/v1/tools", {"format": "mcp", "sidecar": "true"}, 400),
    ("/v1/tools", "/v1/tools", {"run": "third"}, 404),
    ("/v1/tools", "/v1/tools", {"demos": -1}, 422),
    ("/v1/tools", "/v1/tools", {"demos": "many"}, 422),
    ("/v1/tools/{name}", "/v1/tools/get-forecast", {}, 200),
    ("/v1/tools/{name}", "/v1/tools/nope", {}, 404),
    ("/v1/tools/{name}", "/v1/tools/loan_payment", {"run": "third"}, 404),
])
def test_every_answer_matches_the_openapi_document(client, template, path, params, status):
    jsonschema = pytest.importorskip("jsonschema")
    openapi = client.app.openapi()
    reply = client.get(path, params=params)
    assert reply.status_code == status
    media_type = reply.headers["content-type"].split(";")[0]
    schema = _declared(openapi, template, status, media_type)
    body = reply.json() if media_type == "application/json" else reply.text
    jsonschema.validate(body, schema)


def test_the_openapi_document_declares_its_own_error_shape_only(client):
    openapi = client.app.openapi()
    assert "HTTPValidationError" not in json.dumps(openapi)
    for template, item in openapi["paths"].items():
        for status, response in item["get"]["responses"].items():
            if status.startswith(("4", "5")):
                schema = response["content"]["application/json"]["schema"]
                assert schema == {"$ref": "#/components/schemas/ErrorBody"}, (template, status)
    assert openapi["components"]["schemas"]["ErrorBody"]["required"] == ["error"]


def test_an_internal_error_is_json_as_declared(runs, monkeypatch):
    jsonschema = pytest.importorskip("jsonschema")

    def broken(run):
        raise RuntimeError("secret detail")

    monkeypatch.setattr("play2prompt.serve.http.run_summary", broken)
    with TestClient(create_app(list(runs)), raise_server_exceptions=False) as c:
        reply = c.get("/v1/runs/first")
        schema = _declared(c.app.openapi(), "/v1/runs/{run_id}", 500, "application/json")
    assert reply.status_code == 500 and "secret" not in reply.text
    jsonschema.validate(reply.json(), schema)
