"""OpenAI Agents SDK: the run's tools as ``agents.FunctionTool`` objects; ``Runner.run`` with
a tiny implementation of the SDK's ``Model`` interface (no network, tracing off) makes one tool
call, which runs the real function, and the model reads its output."""

from __future__ import annotations

import asyncio
import json

from tests.extras import need
from tests.integrations.framework_runs import (
    ARGS,
    DESCRIPTION,
    REQUEST,
    RESULT,
    TO_UNIT,
    example_run,
)

need("agents", "agents")

from agents import Agent, FunctionTool, ModelResponse, RunConfig, Runner, Usage  # noqa: E402
from agents.models.interface import Model  # noqa: E402
from openai.types.responses import (  # noqa: E402
    ResponseFunctionToolCall,
    ResponseOutputMessage,
    ResponseOutputText,
)

from play2prompt.integrations.openai_agents import tools_from_run  # noqa: E402


class ScriptedModel(Model):
    """Calls ``convert_units`` with ``arguments`` first, then answers the tool's output."""

    def __init__(self, arguments: dict) -> None:
        self.arguments = arguments
        self.tools: list = []
        self.outputs: list[str] = []

    async def get_response(self, system_instructions, input, model_settings, tools,
                           output_schema, handoffs, tracing, **kwargs) -> ModelResponse:
        self.tools = list(tools)
        items = input if isinstance(input, list) else []
        self.outputs = [i["output"] for i in items
                        if isinstance(i, dict) and i.get("type") == "function_call_output"]
        if not self.outputs:
            call = ResponseFunctionToolCall(type="function_call", call_id="call-1",
                                            name="convert_units", id="fc-1",
                                            arguments=json.dumps(self.arguments))
            return ModelResponse(output=[call], usage=Usage(), response_id=None)
        text = ResponseOutputText(type="output_text", text=self.outputs[-1], annotations=[])
        message = ResponseOutputMessage(type="message", id="m-1", role="assistant",
                                        status="completed", content=[text])
        return ModelResponse(output=[message], usage=Usage(), response_id=None)

    def stream_response(self, *args, **kwargs):
        raise NotImplementedError


def _run(tools: list, arguments: dict) -> tuple[ScriptedModel, str]:
    model = ScriptedModel(arguments)
    agent = Agent(name="units", instructions="Use the tools.", tools=tools, model=model)
    result = asyncio.run(Runner.run(agent, REQUEST,
                                    run_config=RunConfig(tracing_disabled=True)))
    return model, result.final_output


def test_runner_calls_the_real_function_with_the_optimized_definition(tmp_path):
    tools = tools_from_run(example_run(tmp_path), runs_dir=tmp_path)
    assert all(isinstance(t, FunctionTool) for t in tools)
    model, answer = _run(tools, ARGS)
    seen = {t.name: t for t in model.tools}["convert_units"]
    assert seen.description.startswith(DESCRIPTION) and REQUEST in seen.description
    assert seen.params_json_schema["properties"]["to_unit"]["description"] == TO_UNIT
    assert seen.strict_json_schema is False
    assert json.loads(answer) == RESULT


def test_a_failed_call_answers_the_reason(tmp_path):
    tools = tools_from_run(example_run(tmp_path), runs_dir=tmp_path)
    _, answer = _run(tools, {**ARGS, "to_unit": "parsec"})
    assert answer.startswith("exception: ValueError: cannot convert")
    _, answer = _run(tools, {"value": 5})
    assert answer.startswith("schema:") and "from_unit" in answer


def test_the_sqlite_tool_runs_through_the_runtime(tmp_path):
    tools = {t.name: t for t in tools_from_run(example_run(tmp_path, with_sql=True),
                                               runs_dir=tmp_path)}
    out = asyncio.run(tools["cheap_items"].on_invoke_tool(None, '{"max_price": 50}'))
    assert [row["name"] for row in json.loads(out)] == ["board", "kettle"]
