"""Bad input gets one clear line and exit code 2, never a traceback."""

import json
import re

import pytest

from play2prompt.cli import main
from tests.conftest import EXAMPLES


def run(capsys, *args):
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.err.strip()


def _write(tmp_path, data, name="tools.json"):
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


SPEC = {"type": "function", "function": {"name": "f", "description": "d",
                                         "parameters": {"type": "object", "properties": {}}}}


@pytest.mark.parametrize("content, expected", [
    ('{"tools": [', "not valid JSON (line 1"),
    ({"tools": [SPEC]}, "tool 'f': no executor"),
    ({"tools": [{**SPEC, "executor": {"python": "no_such_module_xyz:f"}}]},
     "cannot load 'no_such_module_xyz:f'"),
    ({"tools": [{**SPEC, "executor": {"smoke": "x"}}]}, "unknown executor 'smoke'"),
    ({"tools": [{"type": "function", "function": {"name": "f", "parameters": {
        "type": "object", "properties": {}, "required": ["x"]}}, "executor": {"python": "a:b"}}]},
     "field 'parameters.required': required parameter 'x' is not in properties"),
    ({"tools": [{"type": "function", "function": {"description": "no name"}}]},
     "tool #0: field 'name' is missing"),
])
def test_bad_tools_file(tmp_path, capsys, content, expected):
    path = _write(tmp_path, content)
    code, err = run(capsys, "optimize", str(path), "--generator", "fake", "--runs-dir",
                    str(tmp_path / "runs"), "-q")
    assert code == 2
    assert expected in err and len(err.splitlines()) == 1 and "Traceback" not in err


def test_missing_file_and_unknown_tool(tmp_path, capsys):
    code, err = run(capsys, "optimize", str(tmp_path / "nope.json"), "-q")
    assert code == 2 and "no such file" in err
    code, err = run(capsys, "optimize", str(EXAMPLES / "tools.json"), "--tools", "nope",
                    "--generator", "fake", "-q")
    assert code == 2 and "unknown tool(s) nope" in err


def test_unknown_model_spec_and_missing_key(tmp_path, capsys, monkeypatch):
    args = ["optimize", str(EXAMPLES / "tools.json"), "--runs-dir", str(tmp_path), "-q"]
    code, err = run(capsys, *args, "--generator", "gpt5")
    assert code == 2 and "unknown model spec 'gpt5'" in err
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    code, err = run(capsys, *args, "--generator", "openai:gpt-4o-mini")
    assert code == 2 and "OPENAI_API_KEY is not set" in err


def test_unreachable_endpoint(tmp_path, capsys):
    code, err = run(capsys, "optimize", str(EXAMPLES / "tools.json"), "--tools", "loan_payment",
                    "--generator", "openai-compat:http://127.0.0.1:9/v1#some-model",
                    "--runs-dir", str(tmp_path), "-q")
    assert code == 2
    assert "cannot reach http://127.0.0.1:9/v1" in err and len(err.splitlines()) == 1


def test_bare_list_with_module(tmp_path, capsys):
    specs = json.loads((EXAMPLES / "tools.json").read_text())["tools"]
    bare = [{"type": "function", "function": s["function"]} for s in specs
            if s["function"]["name"] == "loan_payment"]
    path = _write(tmp_path, bare)
    code, err = run(capsys, "optimize", str(path), "--module", str(EXAMPLES / "tools.py"),
                    "--generator", "fake", "--preset", "quick", "--runs-dir",
                    str(tmp_path / "runs"), "-q")
    assert code == 0, err
    result = json.loads(next((tmp_path / "runs").glob("*/result.json")).read_text())
    assert result["tools"]["loan_payment"]["stats"]["valid_invocations"] > 0


@pytest.mark.parametrize("value", ["0", "-1", "nan"])
def test_tool_timeout_must_be_positive(tmp_path, capsys, value):
    code, err = run(capsys, "optimize", str(EXAMPLES / "tools.json"), "--generator", "fake",
                    "--tool-timeout", value, "--runs-dir", str(tmp_path / "runs"), "-q")
    assert code == 2 and "tool_timeout (--tool-timeout) must be a number above 0" in err
    assert len(err.splitlines()) == 1 and not (tmp_path / "runs").exists()


def test_a_failure_in_one_line_user_errors_as_they_are_bugs_with_type_and_place():
    from play2prompt.errors import UserError, describe_failure

    assert describe_failure(UserError("tools.json: not JSON")) == "tools.json: not JSON"
    try:
        from play2prompt.numeric import parse_number
        parse_number(None)  # type: ignore[arg-type]
    except AttributeError as exc:
        exc.add_note("while optimizing tool 'x'")
        line = describe_failure(exc)
    assert line.startswith("AttributeError: 'NoneType' object has no attribute 'replace'")
    assert re.search(r" at numeric\.py:\d+; while optimizing tool 'x'$", line)
