"""``p2p export --format openai-agents | pydantic-ai | langchain | llamaindex``: the module it
writes imports, and its ``build_tools()`` makes the framework's own tools, with the run's
docs and demos, that run the real functions (each format where its package is installed)."""

from __future__ import annotations

import importlib.util
import json

import pytest

from play2prompt.cli import main
from tests.extras import need
from tests.integrations.framework_runs import ARGS, DESCRIPTION, REQUEST, RESULT, example_run

FORMATS = {"openai-agents": ("agents", "agents"), "pydantic-ai": ("pydantic_ai", "pydantic-ai"),
           "langchain": ("langchain_core", "langchain"),
           "llamaindex": ("llama_index.core", "llamaindex")}


def _exported(tmp_path, fmt: str, *options: str):
    run = example_run(tmp_path / "runs")
    path = tmp_path / f"p2p_{fmt.replace('-', '_')}.py"
    assert main(["export", run, "--runs-dir", str(tmp_path / "runs"), "--format", fmt,
                 "-o", str(path), *options]) == 0
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _described_and_called(fmt: str, tool) -> tuple[str, object]:
    """What the framework's tool object says and returns for ARGS, read its own way."""
    import asyncio

    if fmt == "openai-agents":
        out = asyncio.run(tool.on_invoke_tool(None, json.dumps(ARGS)))
        return tool.description, out if out == "mine" else json.loads(out)  # a text as is
    if fmt == "pydantic-ai":
        return tool.description, asyncio.run(tool.function(**ARGS))
    if fmt == "langchain":
        return tool.description, tool.invoke(ARGS)
    return tool.metadata.description, tool.call(**ARGS).raw_output


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_the_exported_module_builds_working_tools(fmt, tmp_path):
    need(*FORMATS[fmt])
    module = _exported(tmp_path, fmt)
    assert "convert_units" in module.RUN["tools"]
    tools = module.build_tools()
    assert len(tools) == 2
    description, output = _described_and_called(fmt, tools[0])
    assert description.startswith(DESCRIPTION) and REQUEST in description
    assert output == RESULT
    plain, _ = _described_and_called(fmt, module.build_tools(demos=False)[0])
    assert plain == DESCRIPTION


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_original_and_no_demos_exports(fmt, tmp_path):
    need(*FORMATS[fmt])
    original = _exported(tmp_path / "a", fmt, "--original")
    assert original.RUN["tools"]["convert_units"]["doc"]["description"] == "Converts units."
    bare = _exported(tmp_path / "b", fmt, "--demos", "0")
    assert bare.RUN["tools"]["convert_units"]["demos"] == []
    calls = []
    tools = bare.build_tools({"convert_units": lambda **kw: calls.append(kw) or "mine"})
    _, output = _described_and_called(fmt, tools[0])
    assert output == "mine" and calls == [ARGS]
