"""ReAct: robust parsing of text steps, malformed actions as error observations, JSON steps."""

import asyncio
import json

import jsonschema
import pytest

from play2prompt.adapters.stabletoolbench.data import query_tools
from play2prompt.agent.prompt import Demo
from play2prompt.agent.react import (
    FINISH,
    GIVE_UP,
    ReactAgent,
    parse_json_step,
    parse_react,
    step_schema,
)
from play2prompt.lm.fake import FakeLM
from play2prompt.store.db import RunStore
from play2prompt.tools.executors._base import ExecContext
from play2prompt.tools.model import Invocation
from play2prompt.tools.runtime import ToolRuntime
from tests.adapters.stb_fixtures import react_text, slice_queries, slice_source

NAMES = ["transfermarkt_search_for_theclique", "transfermarkt_details_for_theclique"]


def test_parses_a_well_formed_step_and_decorations():
    step = parse_react(react_text(NAMES[0], {"name": "messi"}, "find him"), NAMES)
    assert (step.thought, step.action, step.arguments, step.error) == (
        "find him", NAMES[0], {"name": "messi"}, None)
    fancy = ("**Thought:** look up\n**Action:** `Transfermarkt_Search_for_theclique`\n"
             "**Action Input:**\n```json\n{\"name\": \"messi\"}\n```")
    step = parse_react(fancy, NAMES)
    assert step.action == NAMES[0] and step.arguments == {"name": "messi"}
    call = parse_react("Thought: x\nAction: transfermarkt_search_for_theclique({'name': 'a'})",
                       NAMES)
    assert call.arguments == {"name": "a"} and call.error is None
    python_dict = parse_react("Action: search_for_theclique\nAction Input: {'name': 'b'}",
                              ["search_for_theclique"])
    assert python_dict.arguments == {"name": "b"}


def test_hallucinated_observation_is_cut_off():
    text = (react_text(NAMES[0], {"name": "messi"}) + "\nObservation: {\"made\": \"up\"}\n"
            + react_text(NAMES[1], {"id": "1"}))
    step = parse_react(text, NAMES)
    assert step.action == NAMES[0] and step.arguments == {"name": "messi"}


@pytest.mark.parametrize("text, error", [
    ("I think I should look this up.", "no 'Action:' line"),
    ("Thought: hm\nAction: google_search\nAction Input: {}", "no function named"),
    ("Thought: hm\nAction: transfermarkt_search_for_theclique\nAction Input: {name: messi",
     "not a JSON object"),
    ("Thought: hm\nAction: transfermarkt_search_for_theclique\nAction Input: [1, 2]",
     "not a JSON object"),
    ("", "no 'Action:' line"),
])
def test_malformed_steps_come_back_with_an_error(text, error):
    step = parse_react(text, NAMES)
    assert step.error is not None and error in step.error and not step.is_finish


def test_finish_variants():
    done = parse_react('Action: Finish\nAction Input: {"return_type": "give_answer", '
                       '"final_answer": "Messi played for Barcelona."}', NAMES)
    assert done.is_finish and done.arguments["final_answer"] == "Messi played for Barcelona."
    plain = parse_react("Thought: done\nAction: finish\nAction Input: He played for PSG.", NAMES)
    assert plain.is_finish and plain.arguments == {"return_type": "give_answer",
                                                   "final_answer": "He played for PSG."}
    up = parse_react('Action: Finish\nAction Input: {"return_type": "give_up_and_restart"}',
                     NAMES)
    assert up.is_finish and up.arguments["return_type"] == GIVE_UP


def test_json_steps_and_their_schema():
    source = slice_source()
    tools = query_tools(slice_queries()[0], source)
    schema = step_schema(tools)
    ok = {"thought": "t", "action": NAMES[0], "action_input": {"name": "messi"}}
    jsonschema.validate(ok, schema)
    fin = {"thought": "t", "action": FINISH,
           "action_input": {"return_type": "give_answer", "final_answer": "x"}}
    jsonschema.validate(fin, schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({**ok, "action": "nope"}, schema)
    with pytest.raises(jsonschema.ValidationError):  # capped so a loop ends in budget
        jsonschema.validate({**ok, "action_input": {"name": "m" * 500}}, schema)
    assert parse_json_step(ok, [t.name for t in tools]).arguments == {"name": "messi"}
    assert parse_json_step(fin, [t.name for t in tools]).is_finish
    assert parse_json_step("garbage", NAMES).error
    assert parse_json_step({"action": "nope"}, NAMES).error


def _agent(tmp_path, lm, fmt="text", max_steps=4):
    source = slice_source()
    query = slice_queries()[0]
    tools = query_tools(query, source)
    store = RunStore(tmp_path / "run.db")
    sim = FakeLM(default={"response": {"Players": [{"name": "Lionel Messi", "id": "28003"}]}})
    runtime = ToolRuntime(tools, ExecContext(lm=sim, store=store), store)
    return ReactAgent(lm, runtime, fmt=fmt, max_steps=max_steps), query, tools, store


def test_malformed_action_becomes_an_error_observation_and_the_run_goes_on(tmp_path):
    replies = ["I am not sure what to do.",
               "Thought: t\nAction: no_such_tool\nAction Input: {}",
               react_text(NAMES[0], {"name": "messi"}),
               'Thought: done\nAction: Finish\nAction Input: {"return_type": "give_answer", '
               '"final_answer": "Lionel Messi, id 28003."}']
    lm = FakeLM(replies=replies)
    agent, query, tools, store = _agent(tmp_path, lm)
    traj = asyncio.run(agent.run(query.query_id, query.query, tools))
    assert traj.stop_reason == "finish" and traj.final_answer == "Lionel Messi, id 28003."
    assert [s.error is not None for s in traj.steps] == [True, True, False, False]
    assert "no 'Action:' line" in json.loads(traj.steps[0].observation)["error"]
    assert "no function named 'no_such_tool'" in traj.steps[1].observation
    assert [s.ok for s in traj.steps] == [False, False, True, False]
    obs = json.loads(traj.steps[2].observation)
    assert obs == {"error": "", "response": {"Players": [{"name": "Lionel Messi",
                                                          "id": "28003"}]}}
    # the model saw each observation as the next user turn
    last = lm.requests[-1].messages
    assert last[-1]["role"] == "user" and last[-1]["content"].startswith("Observation:")
    assert lm.requests[0].stop == ("\nObservation:",)
    assert json.loads(json.dumps(traj.to_dict()))["steps"][2]["action"] == NAMES[0]
    agent.runtime.close()
    store.close()


def test_step_limit_and_schema_errors(tmp_path):
    lm = FakeLM(default=react_text(NAMES[0], {"name": 7}))  # wrong type: schema rejection
    agent, query, tools, store = _agent(tmp_path, lm, max_steps=3)
    traj = asyncio.run(agent.run(query.query_id, query.query, tools))
    assert traj.stop_reason == "max_steps" and traj.finish is None and len(traj.steps) == 3
    assert "schema" in json.loads(traj.steps[0].observation)["error"]
    agent.runtime.close()
    store.close()


def test_json_mode_sends_the_step_schema_and_demos(tmp_path):
    steps = [{"thought": "look", "action": NAMES[0], "action_input": {"name": "messi"}},
             {"thought": "ok", "action": FINISH,
              "action_input": {"return_type": "give_answer", "final_answer": "found"}}]
    lm = FakeLM(replies=steps)
    agent, query, tools, store = _agent(tmp_path, lm, fmt="json")
    demo = Demo("Who is Messi?", (Invocation(NAMES[0], {"name": "messi"}),), "A footballer.")
    traj = asyncio.run(agent.run(query.query_id, query.query, tools, [demo]))
    assert traj.final_answer == "found" and len(traj.steps) == 2
    assert lm.requests[0].json_schema == step_schema(tools)
    system = lm.requests[0].messages[0]["content"]
    assert "Who is Messi?" in system and '"action": "' + NAMES[0] in system
    agent.runtime.close()
    store.close()


def test_a_repeated_identical_call_gets_a_note_in_the_next_observation(tmp_path):
    call = {"thought": "look", "action": NAMES[0], "action_input": {"name": "messi"}}
    done = {"thought": "ok", "action": FINISH,
            "action_input": {"return_type": "give_answer", "final_answer": "found"}}
    lm = FakeLM(replies=[call, call, done])
    agent, query, tools, store = _agent(tmp_path, lm, fmt="json")
    traj = asyncio.run(agent.run(query.query_id, query.query, tools))
    assert traj.final_answer == "found" and [s.ok for s in traj.steps] == [True, True, False]
    first, second = (m["content"] for m in lm.requests[2].messages[-3::2])
    assert "already made this exact call" not in first
    assert "already made this exact call" in second
    assert json.loads(traj.steps[1].observation)["response"]   # the record stays the raw result
    agent.runtime.close()
    store.close()
