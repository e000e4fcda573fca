"""p2p tools from-openapi: an OpenAPI 3 spec's operations as http tools, run for real against a
loopback stub of the spec's API (tests/tools/openapi)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from play2prompt.cli import main
from play2prompt.errors import ToolsFileError
from play2prompt.tools.executors._base import ExecContext
from play2prompt.tools.lint import lint_spec
from play2prompt.tools.loading import load_tools
from play2prompt.tools.model import Invocation
from play2prompt.tools.openapi import load_openapi, tool_name
from play2prompt.tools.runtime import ToolRuntime
from tests.tools.openapi.stub import serve

SPEC = Path(__file__).parent / "openapi" / "petshop.yaml"


def _by_name(base_url: str | None = None) -> dict:
    return {t.name: t for t in load_openapi(SPEC, base_url)}


def test_operations_become_tools_with_their_docs_and_places():
    tools = _by_name()
    assert list(tools) == ["listPets", "createPet", "searchPets", "getPet", "deletePet",
                           "set_pet_tags", "get_categories_tree"]
    listing = tools["listPets"]
    assert listing.description == "List pets"                  # summary, no description
    assert tools["getPet"].description == "Info for a pet."    # description over summary
    assert listing.properties["limit"] == {"type": "integer", "maximum": 100, "examples": [10],
                                           "description": "how many"}   # via $ref
    assert listing.properties["status"]["enum"] == ["available", "sold"]
    assert "session" not in listing.properties                # cookies are left out
    assert listing.meta["openapi"]["skipped"] == ["cookie parameter 'session'"]
    http = listing.executor["http"]
    assert http["url"] == "http://127.0.0.1:8080/v1/pets"     # the server's variable default
    assert http["params"]["X-Request-Id"] == "header"
    create = tools["createPet"]
    assert set(create.properties) == {"name", "tag", "category"}   # readOnly id left out
    assert create.required == ["name"]
    assert create.properties["category"] == {"$ref": "#/$defs/Category"}
    assert create.parameters["$defs"]["Category"]["properties"]["children"]["items"] == \
        {"$ref": "#/$defs/Category"}
    assert not [i for i in lint_spec("createPet", create.description, create.parameters)
                if i.severity == "error"]
    tags = tools["set_pet_tags"]
    assert tags.required == ["petId"] and tags.properties["body"]["type"] == "array"
    assert tags.executor["http"]["params"] == {"body": "request_body"}
    assert tools["get_categories_tree"].properties["depth"]["type"] == ["integer", "null"]


def test_methods_decide_side_effects_unless_the_operation_says():
    tools = _by_name()
    assert not tools["listPets"].side_effects and not tools["getPet"].side_effects
    assert tools["createPet"].side_effects and tools["deletePet"].side_effects
    assert tools["set_pet_tags"].side_effects
    assert tools["searchPets"].side_effects is False            # x-side-effects: false


def test_meta_points_at_where_each_doc_lives():
    tools = _by_name()
    assert tools["listPets"].meta["openapi"]["operation"] == "/paths/~1pets/get"
    params = tools["listPets"].meta["openapi"]["params"]
    assert params["limit"] == "/components/parameters/limit"
    assert tools["createPet"].meta["openapi"]["params"]["name"] == \
        "/components/schemas/NewPet/properties/name"
    assert "petId" not in tools["set_pet_tags"].meta["openapi"]["params"]  # not in the spec


def test_names_are_made_to_fit():
    assert tool_name("set pet tags", "put", "/x") == "set_pet_tags"
    assert tool_name(None, "get", "/categories/{id}/tree") == "get_categories_id_tree"
    assert len(tool_name("x" * 80, "get", "/")) == 64


def test_the_tools_call_the_api(tmp_path):
    with serve() as (base, shop):
        out = tmp_path / "tools.json"
        assert main(["tools", "from-openapi", str(SPEC), "--base-url", base, "-o",
                     str(out)]) == 0
        tools = load_tools(out)
        runtime = ToolRuntime(tools, ExecContext(base_dir=tmp_path))
        try:
            listed = runtime.run_sync(Invocation("listPets", {
                "limit": 1, "status": "sold", "X-Request-Id": "r-1"}))
            created = runtime.run_sync(Invocation("createPet", {"name": "Kit", "tag": "cat"}))
            tagged = runtime.run_sync(Invocation("set_pet_tags", {"petId": "1",
                                                                  "body": ["dog", "old"]}))
            missing = runtime.run_sync(Invocation("getPet", {"petId": 99}))
        finally:
            runtime.close()
    assert listed.ok and listed.output == [shop.pets[2]]
    assert created.ok and created.output["name"] == "Kit"
    assert tagged.ok and tagged.output["tags"] == ["dog", "old"]
    assert not missing.ok and missing.error_type == "http" and "404" in missing.error
    first = shop.log[0]
    assert first["query"] == {"limit": ["1"], "status": ["sold"]} and \
        first["request_id"] == "r-1"
    assert shop.log[1]["body"] == {"name": "Kit", "tag": "cat"}
    assert shop.log[2]["body"] == ["dog", "old"] and shop.log[2]["path"] == "/v1/pets/1/tags"


def test_optimize_with_the_fake_model_runs_the_real_calls(tmp_path, capsys):
    with serve() as (base, shop):
        out = tmp_path / "tools.json"
        assert main(["tools", "from-openapi", str(SPEC), "--base-url", base, "-o",
                     str(out)]) == 0
        code = main(["optimize", str(out), "--generator", "fake", "--preset", "quick",
                     "--tools", "listPets,getPet,searchPets", "--runs-dir",
                     str(tmp_path / "runs"), "--run-id", "api", "-q"])
    assert code == 0
    seen = {(e["method"], e["path"].rsplit("/", 1)[0] if e["path"][-1].isdigit() else e["path"])
            for e in shop.log}
    assert {("GET", "/v1/pets"), ("POST", "/v1/pets/search")} <= seen
    result = json.loads((tmp_path / "runs" / "api" / "result.json").read_text())
    assert sorted(result["tools"]) == ["getPet", "listPets", "searchPets"]
    optimized = load_tools(tmp_path / "runs" / "api" / "tools.optimized.json")
    assert {t.name for t in optimized} == {"getPet", "listPets", "searchPets"}
    assert optimized[0].executor["http"]["url"].startswith(base)


@pytest.mark.parametrize(("text", "says"), [
    ("swagger: '2.0'\npaths: {}\n", "not an OpenAPI 3 document"),
    ("openapi: 3.0.0\npaths: {}\n", "no 'paths'"),
    ("openapi: 3.0.0\npaths:\n  /a:\n    get:\n      parameters:\n"
     "        - $ref: 'other.yaml#/p'\n", "only references inside the spec"),
    ("openapi: 3.0.0\npaths:\n  /a:\n    get:\n      parameters:\n"
     "        - $ref: '#/components/parameters/nope'\n", "points nowhere"),
    ("openapi: [3.0\n", "not a YAML or JSON document"),
])
def test_a_bad_spec_is_one_line(tmp_path, text, says):
    path = tmp_path / "spec.yaml"
    path.write_text(text)
    with pytest.raises(ToolsFileError, match=says):
        load_openapi(path)


def test_the_cli_wants_an_absolute_url(tmp_path, capsys):
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps({"openapi": "3.1.0", "servers": [{"url": "/api/v3"}],
                                "paths": {"/pets": {"get": {"operationId": "list"}}}}))
    assert main(["tools", "from-openapi", str(spec)]) == 2
    assert "pass --base-url URL" in capsys.readouterr().err
    assert main(["tools", "from-openapi", str(spec), "--base-url", "http://h/api/v3/"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["tools"][0]["executor"]["http"]["url"] == "http://h/api/v3/pets"


def test_a_bad_place_in_an_http_spec_is_one_line():
    from play2prompt.tools.executors.http import parse_params

    assert parse_params({"a": "query", "b": {"in": "header", "name": "X-B"}}, "t") == \
        {"a": ("query", "a"), "b": ("header", "X-B")}
    with pytest.raises(ToolsFileError, match="'in' must be one of path, query, header"):
        parse_params({"a": "cookie"}, "t")
