"""LangChain: the run's tools as ``StructuredTool`` objects, called through LangChain's own
tool-call path from a fake chat model's ``AIMessage.tool_calls`` (no network)."""

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

need("langchain_core", "langchain")

from langchain_core.language_models import GenericFakeChatModel  # noqa: E402
from langchain_core.messages import AIMessage, ToolMessage  # noqa: E402
from langchain_core.tools import StructuredTool  # noqa: E402
from langchain_core.utils.function_calling import convert_to_openai_tool  # noqa: E402

from play2prompt.integrations.langchain import tools_from_run  # noqa: E402


def _model(*calls: dict) -> GenericFakeChatModel:
    return GenericFakeChatModel(messages=iter([AIMessage(content="", tool_calls=list(calls))]))


def test_a_fake_models_tool_call_runs_the_real_function(tmp_path):
    tools = {t.name: t for t in tools_from_run(example_run(tmp_path), runs_dir=tmp_path)}
    convert = tools["convert_units"]
    assert isinstance(convert, StructuredTool)
    sent = convert_to_openai_tool(convert)["function"]      # what bind_tools sends
    assert sent["description"].startswith(DESCRIPTION) and REQUEST in sent["description"]
    assert sent["parameters"]["properties"]["to_unit"]["description"] == TO_UNIT
    assert sent["parameters"]["required"] == ["value", "from_unit", "to_unit"]
    ai = _model({"name": "convert_units", "args": ARGS, "id": "call-1"}).invoke(REQUEST)
    (call,) = ai.tool_calls
    message = tools[call["name"]].invoke(call)               # LangChain's tool-call path
    assert isinstance(message, ToolMessage) and message.tool_call_id == "call-1"
    assert json.loads(message.content) == RESULT
    assert asyncio.run(convert.ainvoke(ARGS)) == RESULT
    assert convert.metadata["play2prompt"]["examples"] == [ARGS]


def test_a_failed_call_is_a_message_the_model_reads(tmp_path):
    convert = tools_from_run(example_run(tmp_path), runs_dir=tmp_path)[0]
    ai = _model({"name": "convert_units", "id": "c2",
                 "args": {**ARGS, "to_unit": "parsec"}}).invoke(REQUEST)
    message = convert.invoke(ai.tool_calls[0])
    assert message.status == "error" and "cannot convert" in message.content


def test_a_sqlite_tool_runs_through_the_runtime(tmp_path):
    tools = {t.name: t for t in tools_from_run(example_run(tmp_path, with_sql=True),
                                               runs_dir=tmp_path)}
    out = tools["cheap_items"].invoke({"max_price": 50})
    assert [row["name"] for row in out] == ["board", "kettle"]
