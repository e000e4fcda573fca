"""pydantic-ai: the run's tools as ``pydantic_ai.Tool`` objects in an ``Agent`` driven by
pydantic-ai's own ``FunctionModel`` (no network): the model sees the optimized tool
definitions, its tool call runs the real function, a bad call is retried."""

from __future__ import annotations

import json

from tests.extras import need
from tests.integrations.framework_runs import (
    ARGS,
    DESCRIPTION,
    REQUEST,
    RESULT,
    SQL_DESCRIPTION,
    TO_UNIT,
    example_run,
)

need("pydantic_ai", "pydantic-ai")

from pydantic_ai import Agent  # noqa: E402
from pydantic_ai.messages import (  # noqa: E402
    ModelResponse,
    RetryPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)
from pydantic_ai.models.function import FunctionModel  # noqa: E402
from pydantic_ai.models.test import TestModel  # noqa: E402

from play2prompt.integrations.pydantic_ai import tools_from_run  # noqa: E402


def _scripted(calls: list[dict], seen: dict):
    """A FunctionModel that makes ``calls`` in turn, then answers what the tool returned."""

    def respond(messages, info):
        seen.setdefault("tools", {t.name: t for t in info.function_tools})
        parts = [p for m in messages for p in getattr(m, "parts", [])]
        retried = [p for p in parts if isinstance(p, RetryPromptPart)
                   or getattr(p, "outcome", None) == "retried"]   # the form differs by version
        seen["returns"] = [p for p in parts if isinstance(p, ToolReturnPart) and p not in retried]
        seen["retries"] = retried
        step = len(seen["returns"]) + len(seen["retries"])
        if step < len(calls):
            return ModelResponse(parts=[ToolCallPart("convert_units", calls[step])])
        return ModelResponse(parts=[TextPart(str(seen["returns"][-1].content))])

    return FunctionModel(respond)


def test_the_agent_calls_the_real_function_with_the_optimized_definition(tmp_path):
    tools = tools_from_run(example_run(tmp_path), runs_dir=tmp_path)
    seen: dict = {}
    result = Agent(_scripted([ARGS], seen), tools=tools).run_sync(REQUEST)
    definition = seen["tools"]["convert_units"]
    assert definition.description.startswith(DESCRIPTION) and REQUEST in definition.description
    assert definition.parameters_json_schema["properties"]["to_unit"]["description"] == TO_UNIT
    assert seen["returns"][0].content == RESULT
    assert result.output == str(RESULT)


def test_a_bad_call_is_sent_back_for_a_retry(tmp_path):
    tools = tools_from_run(example_run(tmp_path), runs_dir=tmp_path)
    seen: dict = {}
    Agent(_scripted([{**ARGS, "to_unit": "parsec"}, ARGS], seen), tools=tools).run_sync(REQUEST)
    assert "cannot convert" in str(seen["retries"][0].content)
    assert seen["returns"][0].content == RESULT


def test_test_model_runs_the_sqlite_tool_through_the_runtime(tmp_path):
    tools = tools_from_run(example_run(tmp_path, with_sql=True), runs_dir=tmp_path,
                           demos=False)
    model = TestModel(call_tools=["cheap_items"])
    result = Agent(model, tools=tools).run_sync("cheap things?")
    definitions = {t.name: t for t in model.last_model_request_parameters.function_tools}
    assert definitions["add_days"].description == "Date calculator."
    assert definitions["convert_units"].description == DESCRIPTION      # no demos
    assert definitions["cheap_items"].description == SQL_DESCRIPTION
    assert json.loads(result.output) == {"cheap_items": []}  # TestModel's max_price is 0
