"""The generic LLM-simulated executor and the simulation helpers it shares with StableToolBench."""

import asyncio

import jsonschema

from play2prompt.lm.fake import FakeLM
from play2prompt.store.db import RunStore
from play2prompt.tools.executors._base import ExecContext
from play2prompt.tools.executors.simulated import (
    parse_template,
    response_schema,
    select_examples,
    template_schema,
)
from play2prompt.tools.model import Invocation, Tool
from play2prompt.tools.runtime import ToolRuntime

TEMPLATE = {"name": "str", "rank": "int", "score": "float", "live": "bool",
            "tags": ["list of str with length 8"],
            "events": [{"id": "str", "when": {"date": "str"}, "_list_length": 10}]}


def test_template_becomes_a_capped_schema():
    schema = template_schema(TEMPLATE)
    ok = {"name": "x", "rank": 1, "score": 2.5, "live": True, "tags": ["a"],
          "events": [{"id": "e1", "when": "2024-01-01"}]}  # deeper than the cap: text
    jsonschema.validate(ok, schema)
    assert schema["properties"]["events"]["maxItems"] == 2
    assert "_list_length" not in schema["properties"]["events"]["items"]["properties"]
    bad = dict(ok, rank="first")
    try:
        jsonschema.validate(bad, schema)
        raise AssertionError("a string rank must be rejected")
    except jsonschema.ValidationError:
        pass
    assert parse_template('{"a": "int"}') == {"a": "int"}
    assert parse_template("{'a': 'int'}") == {"a": "int"}
    assert response_schema(None)["properties"]["response"]["type"] == "string"
    assert response_schema('{"a": "int"}')["properties"]["response"]["properties"]["a"][
        "type"] == "integer"


def test_examples_shrink_to_fit():
    items = [(f"{{'q': {i}}}", "x" * 600) for i in range(8)]
    assert len(select_examples(items)) == 3  # 5 first, then fewer while over 2,048 chars
    assert len(select_examples(items[:2])) == 2
    assert len(select_examples([("k", "y" * 5000)])) == 1


def test_simulated_tool_answers_records_and_replays(tmp_path):
    tool = Tool("player_rank", "Rank of a tennis player.",
                {"type": "object", "properties": {"player": {"type": "string"}},
                 "required": ["player"]},
                {"simulated": {"template_response": {"rank": "int"},
                               "examples": [[{"player": "Nadal"}, {"rank": 2}]]}})
    store = RunStore(tmp_path / "run.db")
    lm = FakeLM(default={"response": {"rank": 7}})
    rt = ToolRuntime([tool], ExecContext(lm=lm, store=store), store)
    obs = asyncio.run(rt.run(Invocation("player_rank", {"player": "Sinner"})))
    assert obs.ok and obs.output == {"rank": 7}
    req = lm.requests[0]
    text = "\n".join(m["content"] for m in req.messages)
    assert "Rank of a tennis player." in text and "Nadal" in text and "Sinner" in text
    assert req.role == "simulator" and req.tag == "player_rank"
    assert req.json_schema["properties"]["response"]["properties"]["rank"]["type"] == "integer"
    rt.close()
    # a fresh runtime without the execution log still gets the recorded response
    rt2 = ToolRuntime([tool], ExecContext(lm=FakeLM(), store=store), None)
    again = asyncio.run(rt2.run(Invocation("player_rank", {"player": "Sinner"})))
    assert again.output == {"rank": 7}
    rt2.close()
    store.close()


def test_template_is_described_in_words_for_the_prompt():
    from play2prompt.tools.executors.simulated import describe_template

    text = describe_template(TEMPLATE)
    assert "- rank: whole number" in text and "- tags: list of text with length 8" in text
    assert "- events: a list of" in text and "      - date: text" in text
    assert '"str"' not in text and "_list_length" not in text
