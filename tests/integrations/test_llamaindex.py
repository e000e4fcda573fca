"""LlamaIndex: the run's tools as ``FunctionTool`` objects; LlamaIndex's own
``MockFunctionCallingLLM`` (no network) selects a tool call that ``predict_and_call`` runs: the
real function, with the optimized metadata."""

from __future__ import annotations

import asyncio

from tests.extras import need
from tests.integrations.framework_runs import (
    ARGS,
    DESCRIPTION,
    REQUEST,
    RESULT,
    TO_UNIT,
    example_run,
)

need("llama_index.core", "llamaindex")

from llama_index.core.base.llms.types import ChatMessage, ToolCallBlock  # noqa: E402
from llama_index.core.llms.mock import MockFunctionCallingLLM  # noqa: E402
from llama_index.core.tools import FunctionTool  # noqa: E402

from play2prompt.integrations.llamaindex import tools_from_run  # noqa: E402


def _llm(arguments: dict, seen: dict) -> MockFunctionCallingLLM:
    def respond(messages, **kwargs):
        seen["tools"] = {t.metadata.name: t.metadata.to_openai_tool()["function"]
                         for t in kwargs["tools"]}
        call = ToolCallBlock(tool_call_id="c1", tool_name="convert_units", tool_kwargs=arguments)
        return ChatMessage(role="assistant", blocks=[call])

    return MockFunctionCallingLLM(response_generator=respond)


def test_predict_and_call_runs_the_real_function_with_the_optimized_metadata(tmp_path):
    tools = tools_from_run(example_run(tmp_path), runs_dir=tmp_path)
    assert all(isinstance(t, FunctionTool) for t in tools)
    seen: dict = {}
    response = _llm(ARGS, seen).predict_and_call(tools, REQUEST)
    sent = seen["tools"]["convert_units"]                   # what an OpenAI LLM would send
    assert sent["description"].startswith(DESCRIPTION) and REQUEST in sent["description"]
    assert sent["parameters"]["properties"]["to_unit"]["description"] == TO_UNIT
    (output,) = response.sources
    assert output.raw_output == RESULT and not output.is_error
    assert asyncio.run(tools[0].acall(**ARGS)).raw_output == RESULT


def test_a_failed_call_is_an_error_output(tmp_path):
    tools = tools_from_run(example_run(tmp_path), runs_dir=tmp_path)
    response = _llm({**ARGS, "to_unit": "parsec"}, {}).predict_and_call(tools, REQUEST)
    (output,) = response.sources
    assert output.is_error and "cannot convert" in output.content


def test_the_sqlite_tool_runs_through_the_runtime(tmp_path):
    tools = {t.metadata.name: t for t in tools_from_run(example_run(tmp_path, with_sql=True),
                                                        runs_dir=tmp_path)}
    out = tools["cheap_items"].call(max_price=50)
    assert [row["name"] for row in out.raw_output] == ["board", "kettle"]
