"""The simonw/llm plugin and the ``llm`` export with the real ``llm`` package: llm loads the
plugin through its entry point, ``llm --tool NAME`` and ``llm --functions FILE`` offer the
run's tools (optimized descriptions and parameter docs, nothing else), and a scripted model's
tool call runs the real function (examples/tools.py) or the runtime (a sqlite tool). No
network: the model is registered through llm's plugin manager (tests/integrations/llm_cli.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path

from play2prompt.emit import ExportOptions, export_run
from play2prompt.results import load_run_result
from tests.conftest import ROOT
from tests.extras import need
from tests.integrations.framework_runs import (
    ARGS,
    DESCRIPTION,
    REQUEST,
    RESULT,
    TO_UNIT,
    example_run,
)

llm = need("llm", "dev")

LLM_CLI = Path(__file__).parent / "llm_cli.py"


def _llm(tmp_path, call, *args, **env):
    """``llm ARGS`` with the scripted model asking for ``call``: (stdout, offered tools)."""
    full = {**os.environ, "LLM_USER_PATH": str(tmp_path / "llm-home"),
            "LLM_LOAD_PLUGINS": "play2prompt",  # this distribution's llm plugins only
            "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""), **env}
    done = subprocess.run([sys.executable, str(LLM_CLI), json.dumps(call), *args],
                          capture_output=True, text=True, env=full, cwd=tmp_path, timeout=120)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    lines = [json.loads(line) for line in done.stderr.splitlines() if line.startswith("{")]
    return done.stdout, lines[0]["offered"] if lines else None


def test_llm_finds_the_plugin_by_its_entry_point():
    from play2prompt.integrations import llm_plugin

    found = [ep for ep in entry_points(group="llm") if ep.name == "play2prompt"]
    assert [ep.value for ep in found] == ["play2prompt.integrations.llm_plugin"]
    assert found[0].load() is llm_plugin


def test_llm_tool_runs_the_real_function_with_the_optimized_doc(tmp_path):
    run = example_run(tmp_path, with_sql=True)
    env = {"P2P_LLM_RUN": run, "P2P_RUNS_DIR": str(tmp_path)}
    listed, _ = _llm(tmp_path, {}, "tools", "list", "--json", **env)
    names = {t["name"]: t for t in json.loads(listed)["tools"]}
    assert {n for n, t in names.items() if t.get("plugin") == "play2prompt"} == {
        "convert_units", "add_days", "cheap_items"}
    out, offered = _llm(tmp_path, {"name": "convert_units", "arguments": ARGS}, "prompt",
                        "-m", "p2p-scripted", "--tool", "convert_units", REQUEST, **env)
    assert json.loads(out.removeprefix("RESULT ")) == RESULT           # the real function
    tool = offered["convert_units"]
    assert tool["plugin"] == "play2prompt" and tool["description"].startswith(DESCRIPTION)
    assert REQUEST in tool["description"]                               # the verified demo
    assert tool["input_schema"]["properties"]["to_unit"]["description"] == TO_UNIT
    out, _ = _llm(tmp_path, {"name": "cheap_items", "arguments": {"max_price": 50}}, "prompt",
                  "-m", "p2p-scripted", "-T", "cheap_items", "cheap things?", **env)
    assert json.loads(out.removeprefix("RESULT ")) == [{"name": "board"}, {"name": "kettle"}]


def test_without_a_run_the_plugin_registers_nothing_and_a_bad_run_says_so(tmp_path, capsys):
    from play2prompt.integrations.llm_plugin import PluginSettings, tools_from_env

    assert PluginSettings.from_env({}) is None
    assert PluginSettings.from_env({"P2P_RUNS_DIR": "x"}) is None
    settings = PluginSettings.from_env({"P2P_LLM_RUN": "nope", "P2P_RUNS_DIR": str(tmp_path)})
    assert settings == PluginSettings("nope", tmp_path)
    assert tools_from_env(settings) == []
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("play2prompt llm plugin (P2P_LLM_RUN=nope): ")
    listed, _ = _llm(tmp_path, {}, "tools", "list", "--json", P2P_LLM_RUN="")
    assert not [t for t in json.loads(listed)["tools"] if t.get("plugin") == "play2prompt"]


def test_the_plugin_functions_are_signed_and_documented_like_the_tools(tmp_path):
    import inspect

    from play2prompt.integrations.llm_plugin import PluginSettings, llm_tools, tools_from_env

    run = example_run(tmp_path)
    tools = {t.name: t for t in llm_tools(tools_from_env(PluginSettings(run, tmp_path)))}
    convert = tools["convert_units"].implementation
    assert convert.__name__ == "convert_units" and convert.__doc__.startswith(DESCRIPTION)
    assert str(inspect.signature(convert)) == \
        "(*, value: 'float', from_unit: 'str', to_unit: 'str') -> 'Any'"
    assert convert(**ARGS) == RESULT
    add_days = inspect.signature(tools["add_days"].implementation)
    assert str(add_days.parameters["business_days"]) == "business_days: 'bool | None' = None"


def test_llm_functions_offers_the_exported_tools_only_and_runs_them(tmp_path):
    run = example_run(tmp_path, with_sql=True)
    module = tmp_path / "p2p_llm.py"
    module.write_text(export_run(load_run_result(run, tmp_path), "llm",
                                 ExportOptions()))
    out, offered = _llm(tmp_path, {"name": "cheap_items", "arguments": {"max_price": 50}},
                        "prompt", "-m", "p2p-scripted", "--functions", str(module), "q",
                        LLM_LOAD_PLUGINS="")
    assert sorted(offered) == ["add_days", "cheap_items", "convert_units"]  # no helper leaks
    assert json.loads(out.removeprefix("RESULT ")) == [{"name": "board"}, {"name": "kettle"}]
    convert = offered["convert_units"]
    assert convert["description"].startswith(DESCRIPTION) and REQUEST in convert["description"]
    assert TO_UNIT in convert["description"]                               # the Args section
    assert convert["input_schema"]["required"] == ["value", "from_unit", "to_unit"]
