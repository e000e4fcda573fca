"""The generic evaluation core: sides and prompts, scoring, resume, order, cost, outputs."""

import json
import random
from dataclasses import replace

import pytest

from play2prompt.agent.prompt import Demo
from play2prompt.errors import LMError
from play2prompt.evaluation.items import EvalItem, EvalSuite, side_for
from play2prompt.evaluation.report import accuracy_table, cost_table
from play2prompt.evaluation.runner import EvalSettings, Evaluator
from play2prompt.evaluation.session import EvalOptions, run_evaluation
from play2prompt.lm._base import Choice, ToolCall
from play2prompt.lm.fake import FakeLM, prompt_text
from play2prompt.results import RunResult, ToolResult
from play2prompt.store.db import RunStore
from play2prompt.tools.model import Invocation, ToolDoc
from tests.conftest import EXAMPLES

LOAN = Invocation("loan_payment", {"principal": 20000, "annual_rate": 4.5, "years": 5})
BMI = Invocation("body_mass_index", {"weight": 70, "height": 175})
OPT_DOC = ToolDoc("Monthly payment of a loan. annual_rate is a percentage (4.5 means 4.5 %).",
                  {"principal": "amount borrowed", "annual_rate": "percent per year, e.g. 4.5",
                   "years": "duration in years"})
DEMO = Demo("Monthly cost of 1000 over 1 year at 5 percent?",
            (Invocation("loan_payment", {"principal": 1000, "annual_rate": 5, "years": 1}),))


def make_suite(example_tools, items=None):
    items = items or [
        EvalItem("q1", "Loan of 20000 at 4.5 percent for 5 years: monthly payment?", (LOAN,),
                 ("exact",), "loan", ("loan_payment", "body_mass_index")),
        EvalItem("q2", "BMI for 70 kg and 1.75 m?", (BMI,), ("exact",), "bmi",
                 ("loan_payment", "body_mass_index")),
        EvalItem("q3", "Two loans: 20000 at 4.5% for 5 years and the BMI of 70 kg, 175 cm",
                 (LOAN, BMI), ("exact", "exact"), "both", ("loan_payment", "body_mass_index")),
    ]
    return EvalSuite("unit", items, {t.name: t for t in example_tools}, base_dir=EXAMPLES)


def make_run(tmp_path, example_tools):
    tools = {t.name: t for t in example_tools}
    results = {"loan_payment": ToolResult("loan_payment", tools["loan_payment"], OPT_DOC,
                                          (DEMO,), True)}
    run = RunResult("opt-run", tmp_path / "runs" / "opt-run", results)
    run.write()
    RunStore(run.run_dir / "run.db").close()
    return run


def answer_with(calls_by_query, default=None):
    """A fake task model: the calls to answer each query with (by a substring of it)."""

    def reply(request, index):
        text = request.messages[-1]["content"]
        for key, calls in calls_by_query.items():
            if key in text:
                return Choice("", tuple(ToolCall(c.name, dict(c.arguments)) for c in calls))
        if default is not None:
            return default
        raise LMError(f"no answer for {text!r}")

    return reply


GOOD = {"Loan of": [LOAN], "BMI for": [BMI], "Two loans": [BMI, LOAN]}


def test_sides_build_the_right_prompts(tmp_path, example_tools, store, exec_ctx):
    run = make_run(tmp_path, example_tools)
    suite = make_suite(example_tools)
    item = suite.items[0]
    ev = Evaluator(suite, FakeLM(), store, EvalSettings(), exec_ctx)

    def seen(variant):
        request = ev.request(item, side_for(variant, run, k=5))
        loan = next(t for t in request.tools if t["function"]["name"] == "loan_payment")
        return loan["function"]["description"], prompt_text(request)

    base_doc, base_text = seen("baseline")
    assert base_doc == "Loan calculator." and DEMO.query not in base_text
    full_doc, full_text = seen("full")
    assert full_doc == OPT_DOC.description and DEMO.query in full_text
    desc_doc, desc_text = seen("desc-only")
    assert desc_doc == OPT_DOC.description and DEMO.query not in desc_text
    demo_doc, demo_text = seen("demo-only")
    assert demo_doc == "Loan calculator." and DEMO.query in demo_text
    assert ev.request(suite.items[2], side_for("full", run)).parallel_tool_calls
    assert side_for("full", run, k=0).demos_for(suite.item_tools(item)) == []
    with pytest.raises(Exception, match="unknown variant"):
        side_for("best")


def test_param_description_dropout_applies_to_both_sides(tmp_path, example_tools, store,
                                                         exec_ctx):
    run = make_run(tmp_path, example_tools)
    suite = make_suite(example_tools)
    ev = Evaluator(suite, FakeLM(), store, EvalSettings(), exec_ctx)

    def side(variant):
        return side_for(variant, run, k=5, drop_param_desc=1.0, seed=3)

    base = ev.request(suite.items[1], side("baseline"))
    bmi = base.tools[1]["function"]["parameters"]["properties"]
    assert bmi["weight"]["description"] == "" and bmi["height"]["description"] == ""
    demo_only = ev.request(suite.items[0], side("demo-only"))
    loan = demo_only.tools[0]["function"]["parameters"]["properties"]
    assert loan["principal"]["description"] == ""
    full = ev.request(suite.items[0], side("full"))
    assert full.tools[0]["function"]["parameters"]["properties"]["principal"][
        "description"] == "amount borrowed"  # the optimized doc replaces the dropped one


def test_baseline_vs_optimized_scores_and_outputs(tmp_path, example_tools):
    run = make_run(tmp_path, example_tools)
    wrong_rate = Invocation("loan_payment", {"principal": 20000, "annual_rate": 0.045,
                                             "years": 5})

    def reply(request, index):  # right only when the optimized doc says "percentage"
        optimized = "percentage" in json.dumps(request.tools)
        calls = {"Loan of": [LOAN if optimized else wrong_rate], "BMI for": [BMI],
                 "Two loans": [BMI, LOAN]}
        return answer_with(calls)(request, index)

    result, out = run_evaluation(make_suite(example_tools),
                                 EvalOptions(prompts=str(run.run_dir), variant="full"),
                                 lm=FakeLM(default=reply), out_dir=tmp_path / "eval")
    table = accuracy_table(result).set_index("category")
    assert table.loc["loan", "baseline exec %"] == 0.0
    assert table.loc["loan", "full exec %"] == 100.0
    assert table.loc["loan", "Δ exec"] == 100.0
    assert table.loc["weighted average", "baseline exec %"] == pytest.approx(66.7)
    cost = cost_table(result).set_index("side")
    assert cost.loc["baseline", "requests"] == 3 and cost.loc["full", "requests"] == 3
    assert cost.loc["full", "prompt tok"] > cost.loc["baseline", "prompt tok"]  # demos
    records = [json.loads(line) for line in (out / "queries.jsonl").read_text().splitlines()]
    assert len(records) == 6
    wrong = next(r for r in records if r["side"] == "baseline" and r["id"] == "q1")
    assert wrong["error"] and wrong["parsed"][0]["arguments"]["annual_rate"] == 0.045
    assert wrong["prompt"]["messages"] and wrong["prompt"]["tools"]
    assert "| category |" in (out / "summary.md").read_text()
    store = RunStore(out / "run.db", read_only=True)
    assert {e["id"] for e in store.evals()} == {"unit:baseline", "unit:full"}
    assert set(store.samples_by_tag()) == {"eval:baseline", "eval:full"}


def test_identical_prompts_are_paid_once(tmp_path, example_tools):
    run = make_run(tmp_path, example_tools)
    suite = make_suite(example_tools)  # only loan_payment has an optimized doc
    result, _ = run_evaluation(suite, EvalOptions(prompts=str(run.run_dir),
                                                  variant="desc-only"),
                               lm=FakeLM(default=answer_with(GOOD)), out_dir=tmp_path / "e")
    cost = cost_table(result).set_index("side")
    assert cost.loc["baseline", "backend calls"] == 3
    # q2 offers loan_payment too, so every prompt differs: nothing served from the log
    assert cost.loc["desc-only", "backend calls"] == 3
    bmi_only = replace(suite, items=[replace(suite.items[1], tools=("body_mass_index",))])
    again, _ = run_evaluation(bmi_only, EvalOptions(prompts=str(run.run_dir),
                                                    variant="desc-only"),
                              lm=FakeLM(default=answer_with(GOOD)), out_dir=tmp_path / "f")
    cost = cost_table(again).set_index("side")
    assert cost.loc["desc-only", "cache hits"] == 1 and cost.loc["desc-only", "prompt tok"] == 0


def test_killed_evaluation_resumes_without_redoing_finished_items(tmp_path, example_tools):
    suite = make_suite(example_tools)
    partial = {k: v for k, v in GOOD.items() if k != "Two loans"}
    with pytest.raises(LMError):
        run_evaluation(suite, lm=FakeLM(default=answer_with(partial)), out_dir=tmp_path / "e")
    lm = FakeLM(default=answer_with(GOOD))
    result, _ = run_evaluation(suite, lm=lm, out_dir=tmp_path / "e")
    assert len(lm.requests) == 1 and "Two loans" in prompt_text(lm.requests[0])
    side = result.sides[0]
    assert side.resumed == 2 and all(r["correct"] for r in side.records)
    edited = replace(suite, items=[replace(suite.items[0], query="Loan of 20000 at 4.5%, 5y?"),
                                   *suite.items[1:]])
    lm = FakeLM(default=answer_with(GOOD))
    run_evaluation(edited, lm=lm, out_dir=tmp_path / "e")
    assert len(lm.requests) == 1  # only the edited query runs again


def test_results_do_not_depend_on_item_order(tmp_path, example_tools):
    suite = make_suite(example_tools)
    flaky = answer_with({"Loan of": [LOAN], "Two loans": [LOAN]}, default="no idea")
    first, _ = run_evaluation(suite, lm=FakeLM(default=flaky), out_dir=tmp_path / "a")
    items = list(suite.items)
    random.Random(1).shuffle(items)
    second, _ = run_evaluation(replace(suite, items=items), lm=FakeLM(default=flaky),
                               out_dir=tmp_path / "b")
    key = lambda res: sorted((r["id"], r["correct"], r["ast_ok"], r["raw"])  # noqa: E731
                             for r in res.sides[0].records)
    assert key(first) == key(second)
    assert accuracy_table(first).set_index("category").loc["weighted average"].equals(
        accuracy_table(second).set_index("category").loc["weighted average"])
    unparsed = next(r for r in first.sides[0].records if r["id"] == "q2")
    assert unparsed["error"].startswith("unparseable output")


def test_failing_ground_truth_is_skipped_with_its_reason(tmp_path, example_tools):
    bad = EvalItem("q9", "BMI at height 1.75?", (Invocation("body_mass_index",
                                                            {"weight": 70, "height": 1.75}),),
                   ("exact",), "bmi", ("body_mass_index",))
    suite = make_suite(example_tools)
    suite = replace(suite, items=[*suite.items, bad])
    result, _ = run_evaluation(suite, lm=FakeLM(default=answer_with(GOOD)),
                               out_dir=tmp_path / "e")
    assert [s.id for s in result.skipped] == ["q9"]
    assert "looks like metres" in result.skipped[0].reason
    assert len(result.sides[0].records) == 3


def test_items_validate_their_match_types():
    with pytest.raises(ValueError, match="match types"):
        EvalItem("x", "q", (LOAN,), ("exact", "exact"))
    with pytest.raises(ValueError, match="unknown match type"):
        EvalItem("x", "q", (LOAN,), ("fuzzy",))


@pytest.mark.embedded
def test_embedded_model_answers_are_parsed_and_scored(tmp_path, example_tools):
    suite = make_suite(example_tools)
    suite = replace(suite, items=suite.items[:2])
    result, _ = run_evaluation(suite, EvalOptions(task_model="embedded"),
                               out_dir=tmp_path / "e")
    for record in result.sides[0].records:
        assert record["parsed"], record["raw"]  # schema-constrained decoding gives a call
        assert record["parsed"][0]["name"] in ("loan_payment", "body_mass_index")
        assert record["usage"]["completion_tokens"] > 0
