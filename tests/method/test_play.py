"""Tool play: rejection sampling with reflection and a try budget."""

import asyncio

from play2prompt.lm.fake import FakeLM
from play2prompt.method.play import ToolPlayer, code_verdict
from play2prompt.tools.model import Invocation, Observation

M1 = "Write the arguments for a new call to loan_payment"


def _tool(example_tools):
    return next(t for t in example_tools if t.name == "loan_payment")


def test_schema_violation_and_tool_error_lead_to_retries(example_tools, make_engine):
    gen = FakeLM(replies=[
        {"principal": "lots", "annual_rate": 5, "years": 1},      # schema: not a number
        {"principal": -5, "annual_rate": 5, "years": 1},          # tool raises ValueError
        {"principal": 20000, "annual_rate": 4.5, "years": 5},     # works
        {"principal": 1, "annual_rate": 1, "years": 1},           # never asked for
    ])
    tool = _tool(example_tools)
    engine = make_engine([tool], gen, max_tries=5)
    result = asyncio.run(ToolPlayer(tool, engine).play("seed"))
    kinds = [a.observation.error_type for a in result.attempts]
    assert kinds == ["schema", "exception", None]
    assert result.ok and result.invocation.arguments["principal"] == 20000
    assert result.observation.output["monthly_payment"] > 0
    # The schema rejection never ran the tool; the reflection reached the next prompt.
    assert engine.runtime.executions == 2
    prompts = [r.messages[-1]["content"] for r in gen.requests]
    assert "The last call failed" not in prompts[0]
    assert "principal" in prompts[1] and "schema error" in prompts[1]
    assert "ValueError" in prompts[2]
    assert len(gen.queue) == 1


def test_try_budget_is_respected(example_tools, make_engine):
    gen = FakeLM(default={"principal": -1, "annual_rate": 5, "years": 1})
    tool = _tool(example_tools)
    engine = make_engine([tool], gen, max_tries=3)
    result = asyncio.run(ToolPlayer(tool, engine).play("seed"))
    assert not result.ok and len(result.attempts) == 3 and len(gen.requests) == 3
    assert all(a.verdict == -1 for a in result.attempts)
    # Retries sample hotter, so a stuck model is pushed to vary its call.
    temps = [r.temperature for r in gen.requests]
    assert temps == sorted(temps) and temps[0] < temps[-1]


def test_explored_calls_are_not_executed_again(example_tools, make_engine):
    args = {"principal": 1000, "annual_rate": 5, "years": 2}
    gen = FakeLM(replies=[args, {"principal": 900, "annual_rate": 5, "years": 2}])
    tool = _tool(example_tools)
    engine = make_engine([tool], gen)
    explored = {Invocation("loan_payment", args).key()}
    result = asyncio.run(ToolPlayer(tool, engine).play("s", explored=explored))
    assert result.attempts[0].observation.error_type == "duplicate"
    assert result.ok and engine.runtime.executions == 1


def test_code_verdict_flags_errors_and_empty_outputs():
    assert code_verdict(Observation.success({"x": 1}))[0] == 0
    assert code_verdict(Observation.success([]))[0] == -1
    assert code_verdict(Observation.success({"error": "bad key"}))[0] == -1
    assert code_verdict(Observation.success("Error: nope"))[0] == -1
    assert code_verdict(Observation.failure("timeout", "slow"))[0] == -1


def test_a_call_that_failed_is_never_executed_again(example_tools, make_engine):
    bad = {"principal": -5, "annual_rate": 5, "years": 1}
    gen = FakeLM(replies=[bad, bad, {"principal": 500, "annual_rate": 5, "years": 1}])
    tool = _tool(example_tools)
    engine = make_engine([tool], gen, max_tries=3)
    failed_before = {Invocation("loan_payment", {"principal": -1, "annual_rate": 5,
                                                 "years": 1}).key(): "ValueError: positive"}
    result = asyncio.run(ToolPlayer(tool, engine).play("s", failed=failed_before))
    kinds = [a.observation.error_type for a in result.attempts]
    assert kinds == ["exception", "repeat", None] and engine.runtime.executions == 2
    assert "failed before" in gen.requests[2].messages[-1]["content"]
    assert result.failed_calls() == {Invocation("loan_payment", bad).key(): result.attempts[0]
                                     .analysis}


def test_accepted_values_the_tool_listed_constrain_the_next_try(example_tools, make_engine):
    units = next(t for t in example_tools if t.name == "convert_units")
    gen = FakeLM(replies=[{"value": 3, "from_unit": "miles", "to_unit": "km"},
                          {"value": 3, "from_unit": "mi", "to_unit": "km"}])
    engine = make_engine([units], gen, max_tries=2)
    result = asyncio.run(ToolPlayer(units, engine).play("s"))
    assert result.ok
    first, second = gen.requests[0].json_schema, gen.requests[1].json_schema
    assert "enum" not in first["properties"]["from_unit"]
    assert "mi" in second["properties"]["from_unit"]["enum"]
    assert "One of: c, cm" in gen.requests[1].messages[0]["content"]    # the doc it reads


def test_a_search_that_found_nothing_is_no_valid_call():
    assert code_verdict(Observation.success({"count": 0, "products": []}))[0] == -1
    assert code_verdict(Observation.success({"count": 1, "products": [{"a": 1}]}))[0] == 0
    assert code_verdict(Observation.success({"value": 0.0, "unit": "c"}))[0] == 0
    assert code_verdict(Observation.success({"warnings": [], "value": 5}))[0] == 0


def test_the_judge_is_asked_the_verdict_alone_and_the_reason_only_for_a_failure(
        example_tools, make_engine):
    """m2 at temperature 0 writes its verdict first: asked for the verdict alone, it writes the
    same one, and the reason, which play reads only for a failure, is asked only then."""
    from play2prompt.method.calibration import Calibration

    def judge(request, index):
        wrong = "principal=20000" in request.messages[-1]["content"]
        return {"err_code": -1 if wrong else 0, "analysis": "a payment of 0 is not usable"}

    gen = FakeLM(rules=[("Did this call work", judge)], replies=[
        {"principal": 20000, "annual_rate": 4.5, "years": 5},     # runs; the judge says no
        {"principal": 30000, "annual_rate": 4.5, "years": 5},     # runs; the judge says yes
    ])
    tool = _tool(example_tools)
    engine = make_engine([tool], gen, max_tries=5)
    engine.calibration = Calibration.fixed(True)
    result = asyncio.run(ToolPlayer(tool, engine).play("seed"))
    assert [a.verdict for a in result.attempts] == [-1, 0]
    assert result.attempts[0].analysis == "a payment of 0 is not usable"
    judged = [r for r in gen.requests if "Did this call work" in r.messages[-1]["content"]]
    asked = [sorted(r.json_schema["properties"]) for r in judged]
    assert asked == [["err_code"], ["analysis", "err_code"], ["err_code"]]
    assert judged[0].messages == judged[1].messages and judged[0].max_tokens < 20
    nxt = [r.messages[-1]["content"] for r in gen.requests if M1 in r.messages[-1]["content"]]
    assert "a payment of 0 is not usable" in nxt[1]


def test_a_negative_value_of_a_kind_that_cannot_be_negative_marks_the_call_wrong():
    from play2prompt.method.play import code_verdict, negative_kind
    from play2prompt.tools.model import Observation

    assert negative_kind({"distance_km": -3.2}) == "distance_km"
    assert negative_kind({"trip": {"duration_s": -1}}) == "duration_s"
    assert negative_kind({"balance": -5, "delta_days": -2, "ok": True}) == ""
    verdict, why = code_verdict(Observation(True, {"item_count": -1}))
    assert verdict == -1 and "item_count is negative" in why
    assert code_verdict(Observation(True, {"distance_km": 0.0}))[0] == 0
