"""The DSPy integration against the installed DSPy: tool specs from signatures and docstrings,
a DSPy LM as a play2prompt model (DSPy's own DummyLM), a play2prompt model as a DSPy LM, the
results written back where ``dspy.ReAct`` reads them, and the exported module rebuilding the
same tools."""

from __future__ import annotations

import asyncio
import importlib.util
import json
import re
import time

import pytest

from play2prompt.config import preset
from play2prompt.emit import write_export
from play2prompt.errors import LMError, UserError
from play2prompt.lm._base import ChatRequest
from play2prompt.lm.fake import FakeLM, play_rules
from play2prompt.lm.structured import chat_json
from play2prompt.store.runs import open_run
from tests.extras import need

dspy = need("dspy", "dspy")

from play2prompt.integrations.dspy import (  # noqa: E402
    DspyLM,
    collect_tools,
    constrain_outputs,
    dspy_lm,
    optimize_program,
    parse_docstring,
    tool_spec,
)


@pytest.fixture(autouse=True)
def _no_dspy_disk_cache():
    dspy.configure_cache(enable_disk_cache=False, enable_memory_cache=False)


def loan_payment(principal: float, annual_rate: float, years: int = 30) -> dict:
    """Loan calculator.

    Args:
        principal: the loan amount
        annual_rate (float): interest rate,
            yearly
    """
    if not 0 <= annual_rate < 100:
        raise ValueError("annual_rate is a percentage between 0 and 100")
    months, r = years * 12, annual_rate / 1200
    pay = principal / months if r == 0 else principal * r / (1 - (1 + r) ** -months)
    return {"monthly_payment": round(pay, 2)}


def slow_lookup(code: str) -> str:
    """Look a code up."""
    if code == "hang":
        time.sleep(30)
    return code.upper()


def test_docstring_styles():
    google = parse_docstring(loan_payment.__doc__)
    assert google == ("Loan calculator.", {"principal": "the loan amount",
                                           "annual_rate": "interest rate, yearly"})
    numpy = ("Convert.\n\nParameters\n----------\nvalue : float\n    the value\n\n"
             "Returns\n-------\nx")
    assert parse_docstring(numpy) == ("Convert.", {"value": "the value"})
    sphinx = "Search.\n\n:param query: words\n    more\n:param int limit: at most\n:returns: x"
    assert parse_docstring(sphinx) == ("Search.", {"query": "words more", "limit": "at most"})
    assert parse_docstring("Only text.") == ("Only text.", {})


def test_tool_specs_from_signatures_docstrings_and_arg_desc():
    found = collect_tools([loan_payment, dspy.Tool(slow_lookup, arg_desc={"code": "a code"})])
    loan, lookup = (tool_spec(t) for t in found.tools)
    assert loan.name == "loan_payment" and loan.description == "Loan calculator."
    assert loan.properties["principal"] == {"type": "number", "description": "the loan amount"}
    assert loan.properties["years"]["type"] == "integer" and loan.required == ["principal",
                                                                               "annual_rate"]
    assert loan.executor == {"callable": "loan_payment"}
    assert lookup.properties["code"]["description"] == "a code"
    agent = dspy.ReAct("question -> answer", tools=[loan_payment, slow_lookup])
    assert [t.name for t in collect_tools(agent).tools] == ["loan_payment", "slow_lookup"]
    with pytest.raises(UserError, match="no dspy.ReAct"):
        collect_tools(dspy.Predict("question -> answer"))


def test_a_dspy_dummy_lm_serves_as_a_play2prompt_model():
    """JSON answers and (emulated) function calls through DSPy's own DummyLM."""
    dummy = dspy.utils.DummyLM([{"city": "Oslo", "days": 3},
                                {"name": "loan_payment", "arguments": {"principal": 5}}],
                               adapter=dspy.JSONAdapter())
    lm = DspyLM(dummy)
    assert lm.model_id == "dspy:dummy" and not lm.supports_tools
    schema = {"type": "object", "properties": {"city": {"type": "string"}}}
    (value,), _ = asyncio.run(chat_json(lm, [{"role": "user", "content": "Plan a trip."}],
                                        schema, role="generator"))
    assert value == {"city": "Oslo", "days": 3}
    tool = {"type": "function", "function": {"name": "loan_payment", "parameters": {
        "type": "object", "properties": {"principal": {"type": "number"}}}}}
    reply = asyncio.run(lm.chat(ChatRequest(({"role": "user", "content": "Borrow 5."},),
                                            tools=(tool,))))
    assert [(c.name, c.arguments) for c in reply.choices[0].tool_calls] == [
        ("loan_payment", {"principal": 5})]
    sent = [h["request"] for h in dummy.history]       # what DSPy's LM received
    assert sent[0].config.response_format == {"type": "json_schema", "name": "answer",
                                              "schema": schema}
    assert "loan_payment" in sent[1].system and sent[1].config.response_format["schema"]


def test_dspy_model_spec_and_errors():
    from play2prompt.lm.registry import make_lm

    lm = make_lm("dspy:openai/some-model")      # built only, never called
    assert isinstance(lm, DspyLM) and lm.model_id == "dspy:openai/some-model"
    with pytest.raises(LMError, match="needs a DSPy model name"):
        make_lm("dspy:")

    class Broken(dspy.BaseLM):
        async def acall(self, *args, **kwargs):
            raise RuntimeError("no route")

    with pytest.raises(LMError, match="dspy:broken: RuntimeError: no route"):
        asyncio.run(DspyLM(Broken("broken")).chat(ChatRequest(({"role": "user",
                                                                 "content": "hi"},))))


def _agent():
    tools = [dspy.Tool(loan_payment, desc="Loan calculator."), dspy.Tool(slow_lookup)]
    return dspy.ReAct("question -> answer", tools=tools, max_iters=2)


def _player():
    return FakeLM(rules=play_rules({
        "loan_payment": [{"principal": 1000, "annual_rate": 5, "years": 2},
                         {"principal": 2000, "annual_rate": 4, "years": 3},
                         {"principal": 1500, "annual_rate": 6, "years": 5},
                         {"principal": 1000, "annual_rate": 500, "years": 2}],
        "slow_lookup": [{"code": "ab"}, {"code": "hang"}]}), fill_schema=True)


class _ReadsTheDoc(dspy.utils.DummyLM):
    """DSPy's DummyLM as a task model that gets the rate right only when the prompt says it
    is a percentage (the tool's own error says so; the original docstring does not)."""

    def forward(self, prompt=None, messages=None, **kwargs):
        text = json.dumps([prompt, messages])
        asked = messages[-1]["content"] if messages else str(prompt)
        numbers = [float(n) for n in re.findall(r"\d+(?:\.\d+)?", asked)]
        principal, rate, years = (numbers + [0, 0, 0])[:3]
        if "percentage" not in text:
            rate = rate / 100                      # read as a fraction, as small models do
        self.answers = {"": {"name": "loan_payment", "arguments": {
            "principal": principal, "annual_rate": rate, "years": int(years)}}}
        return super().forward(prompt=prompt, messages=messages, **kwargs)


def test_optimize_program_writes_back_where_react_reads(tmp_path):
    agent = _agent()
    task = _ReadsTheDoc({}, adapter=dspy.JSONAdapter())
    # every run ships its k demos here (the held-out choice of 0, 1 or k is tested elsewhere)
    config = preset("quick", seed=3, tool_timeout=0.5, choose_demo_count=False)
    result = optimize_program(agent, generator=_player(), task_model=task, config=config,
                              runs_dir=tmp_path, run_id="dspy", demos_per_tool=2)
    run = result.run
    assert set(run.tools) == {"loan_payment", "slow_lookup"}
    loan = agent.tools["loan_payment"]
    assert loan.desc == run.tools["loan_payment"].doc.description != "Loan calculator."
    assert run.tools["loan_payment"].doc_reason.startswith("facts from tool play")
    assert "percentage" in json.dumps(run.tools["loan_payment"].doc.to_dict())
    # The tools really ran, in process: a raising call and a hanging one are observations.
    store = open_run("dspy", tmp_path, read_only=True)
    outcomes = {(r[0], r[1]) for r in store._query(
        "SELECT json_extract(observation, '$.error_type'), ok FROM executions")}
    assert (None, 1) in outcomes and ("exception", 0) in outcomes and ("timeout", 0) in outcomes
    store.close()
    # ReAct's step predictor: the tool lines of its instructions and its demos.
    instructions = agent.react.signature.instructions
    assert str(loan) in instructions and "<desc>Loan calculator.</desc>" not in instructions
    assert result.instructions_updated == {"self": ("loan_payment", "slow_lookup")}
    demos = agent.react.demos
    assert demos and demos == list(result.demos["self"])
    first = demos[0]
    assert first.next_tool_name in run.tools and first.trajectory == ""
    assert first.question == next(d.query for d in run.tools[first.next_tool_name].demos)
    # Running the agent with DSPy's DummyLM: the prompt it sends carries both.
    runner = dspy.utils.DummyLM([{"next_thought": "t", "next_tool_name": "finish",
                                  "next_tool_args": {}}, {"reasoning": "r", "answer": "a"}])
    with dspy.context(lm=runner):
        assert agent(question="What do I pay?").answer == "a"
    sent = json.dumps(runner.history[0]["messages"])
    assert json.dumps(loan.desc)[1:-1] in sent and json.dumps(first.question)[1:-1] in sent


def test_the_exported_module_rebuilds_the_written_back_tools(tmp_path):
    agent = _agent()
    result = optimize_program(agent, generator=_player(), config=preset("quick", seed=3,
                              tool_timeout=0.5), runs_dir=tmp_path, run_id="x")
    path = write_export(result.run, "dspy", tmp_path / "p2p_tools.py")
    spec = importlib.util.spec_from_file_location("p2p_tools_rebuilt", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    rebuilt = module.build_tools({"loan_payment": loan_payment, "slow_lookup": slow_lookup})
    assert [str(t) for t in rebuilt] == [str(agent.tools[t.name]) for t in rebuilt]
    assert rebuilt[0](principal=1000, annual_rate=5, years=2) == {"monthly_payment": 43.87}
    again = module.build_react({"loan_payment": loan_payment, "slow_lookup": slow_lookup},
                               max_iters=2)
    assert again.react.signature.instructions == agent.react.signature.instructions
    assert [d.toDict() for d in again.react.demos] == [d.toDict() for d in agent.react.demos]


def test_a_play2prompt_model_serves_dspy_with_a_schema_per_predictor():
    fake = FakeLM(rules=[("`next_thought`, then", {"next_thought": "go",
                  "next_tool_name": "loan_payment", "next_tool_args": {"principal": 9,
                                                                        "annual_rate": 1}})],
                  default={"reasoning": "done", "answer": "9"})
    lm = dspy_lm(fake)
    agent = dspy.ReAct("question -> answer", tools=[loan_payment], max_iters=1)
    assert set(constrain_outputs(agent)) == {"react", "extract.predict"}
    with dspy.context(lm=lm, adapter=dspy.JSONAdapter()):
        pred = agent(question="Borrow 9 at 1 %.")
    assert pred.answer == "9" and pred.trajectory["observation_0"]["monthly_payment"] > 0
    loan, finish = fake.requests[0].json_schema["anyOf"]     # one option per tool
    assert loan["properties"]["next_tool_name"] == {"const": "loan_payment"}
    assert loan["properties"]["next_tool_args"]["required"] == ["principal", "annual_rate"]
    assert finish["properties"]["next_tool_name"] == {"const": "finish"}
    assert fake.requests[-1].json_schema["required"] == ["reasoning", "answer"]


def test_p2p_optimizer_compiles_a_react_program_like_a_dspy_teleprompter(tmp_path):
    from play2prompt.integrations.dspy import P2POptimizer

    agent = _agent()
    original = str(agent.tools["loan_payment"])
    config = preset("quick", seed=3, tool_timeout=0.5, choose_demo_count=False)
    optimizer = P2POptimizer(generator=_player(), task_model=_ReadsTheDoc(
        {}, adapter=dspy.JSONAdapter()), config=config, runs_dir=tmp_path)
    assert isinstance(optimizer, dspy.teleprompt.Teleprompter)
    compiled = optimizer.compile(agent, trainset=[], run_id="compiled")
    # the student is untouched; the compiled copy carries the docs and the demos
    assert compiled is not agent and compiled._compiled and not agent.react.demos
    assert str(agent.tools["loan_payment"]) == original
    run = optimizer.last_result.run
    assert run.run_dir == tmp_path / "compiled" and optimizer.get_params()["demos_per_tool"] == 1
    loan = compiled.tools["loan_payment"]
    assert loan.desc == run.tools["loan_payment"].doc.description != "Loan calculator."
    assert str(loan) in compiled.react.signature.instructions
    assert compiled.react.demos == list(optimizer.last_result.demos["self"])
    runner = dspy.utils.DummyLM([{"next_thought": "t", "next_tool_name": "finish",
                                  "next_tool_args": {}}, {"reasoning": "r", "answer": "a"}])
    with dspy.context(lm=runner):
        assert compiled(question="What do I pay?").answer == "a"
    assert json.dumps(loan.desc)[1:-1] in json.dumps(runner.history[0]["messages"])
    # inplace: the student itself, from the stored run (every call logged: nothing redone)
    again = P2POptimizer(generator=_player(), config=config, runs_dir=tmp_path)
    assert again.compile(agent, inplace=True, resume="compiled") is agent
    assert agent.tools["loan_payment"].desc == loan.desc
