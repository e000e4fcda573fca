"""The tool-set check (``config.set_check``): once every tool is done, its verified examples are
asked with all tools shown as they would ship, and a change the set does no worse without is
undone; 0 (the default) is the paper: no check."""

import asyncio
import json

import pytest

from play2prompt.config import preset
from play2prompt.errors import UserError
from play2prompt.lm.fake import FakeLM, tool_call
from play2prompt.method.tool_set_check import (
    SetCase,
    SetEntry,
    check_tool_set,
    pick_cases,
)
from play2prompt.optimize import optimize
from play2prompt.store.db import RunStore
from play2prompt.tools.model import ToolDoc
from tests.conftest import EXAMPLES
from tests.method.support import loan_examples
from tests.scale_support import JitterLM


@pytest.fixture
def tools(example_tools):
    by_name = {t.name: t for t in example_tools}
    return by_name["loan_payment"], by_name["convert_units"]


def _entry(tool, marker=None, demos=()):
    if marker is None:
        return SetEntry(tool, tool, tuple(demos))
    return SetEntry(tool, tool.with_doc(ToolDoc(f"{marker} {tool.doc.description}",
                                                tool.doc.params)), tuple(demos))


def _task(rule):
    """A task model answering each request by ``rule(shown docs, query) -> call or None``
    (None: the expected loan call, read from the query)."""
    def reply(request, i):
        docs = json.dumps([dict(t) for t in request.tools])
        query = request.messages[-1]["content"]
        called = rule(docs, query)
        if called is not None:
            return tool_call(called, {"value": 1, "from_unit": "km", "to_unit": "mi"})
        k = int(query.split()[2]) // 1000
        return tool_call("loan_payment", {"principal": 1000 * k, "annual_rate": 5, "years": k})
    return FakeLM(default=reply)


def _cases(engine, n=4, held=(0,)):
    return [SetCase("loan_payment", ex, i in held)
            for i, ex in enumerate(loan_examples(engine, n))]


def test_a_change_that_draws_another_tools_requests_is_undone(tools, make_engine):
    loan, units = tools
    engine = make_engine([loan, units], FakeLM())
    cases = _cases(engine)
    # the rewritten convert_units draws every loan request; loan's own rewrite is harmless
    engine.task_model = _task(lambda docs, q: "convert_units" if "GREEDY" in docs else None)
    entries = [_entry(loan, "CLEAR"), _entry(units, "GREEDY")]
    check = asyncio.run(check_tool_set(engine, entries, cases))
    assert check.before == 0.0 and check.after == 1.0
    assert check.undone == ("convert_units",)
    (decision,) = check.decisions    # loan is no longer implicated once units is undone
    assert (decision.tool, decision.with_change, decision.without) == ("convert_units", 0, 4)
    assert decision.counted == 4 and "kept the original: the tool-set check" in decision.reason()
    shown = [json.dumps([dict(t) for t in r.tools]) for r in engine.task_model.requests]
    assert len(shown) == 8 and all('"loan_payment"' in s and '"convert_units"' in s
                                   for s in shown)          # every tool shown every time


def test_a_change_the_set_needs_is_kept_and_a_clean_set_costs_one_round(tools, make_engine):
    loan, units = tools
    engine = make_engine([loan, units], FakeLM())
    cases = _cases(engine)
    # without loan's rewrite, its requests go to convert_units: the change earns its place
    engine.task_model = _task(lambda docs, q: None if "CLEAR" in docs else "convert_units")
    check = asyncio.run(check_tool_set(engine, [_entry(loan, "CLEAR"), _entry(units)], cases))
    assert check.before == check.after == 1.0 and check.decisions == ()
    assert len(engine.task_model.requests) == len(cases)     # nothing implicated: no retry
    # one request stays wrong whatever the docs: loan is implicated, tried, and kept
    engine.task_model = _task(lambda docs, q: "convert_units"
                              if "CLEAR" not in docs or q.startswith("I borrow 4000") else None)
    check = asyncio.run(check_tool_set(engine, [_entry(loan, "CLEAR"), _entry(units)], cases))
    (decision,) = check.decisions
    assert decision.counted == 1     # its held-out example: its training ones chose it
    assert (decision.with_change, decision.without, decision.undone) == (1, 0, False)
    assert check.undone == () and check.after == 0.75


def test_a_tools_own_training_examples_do_not_count_for_its_change(tools, make_engine):
    """Right only with the change on the examples its doc was chosen on, wrong on its held-out
    one either way: no better than without it, so it is undone."""
    loan, units = tools
    engine = make_engine([loan, units], FakeLM())
    cases = _cases(engine, held=(3,))
    train_queries = {c.example.query for c in cases if not c.held_out}
    engine.task_model = _task(lambda docs, q: None if "CLEAR" in docs and q in train_queries
                              else "convert_units")
    check = asyncio.run(check_tool_set(engine, [_entry(loan, "CLEAR"), _entry(units)], cases))
    (decision,) = check.decisions
    assert decision.counted == 1 and (decision.with_change, decision.without) == (0, 0)
    assert check.undone == ("loan_payment",) and check.before == 0.75 and check.after == 0.0


def test_cases_are_picked_per_tool_held_out_first(tools, make_engine):
    loan, _ = tools
    engine = make_engine([loan], FakeLM())
    cases = _cases(engine, n=6, held=(4, 5))
    other = [SetCase("convert_units", c.example, False) for c in cases[:3]]
    picked = pick_cases([*cases, *other], 3)
    assert [c.example.query for c in picked[:3]] == [cases[4].example.query,
                                                     cases[5].example.query,
                                                     cases[0].example.query]
    assert [c.owner for c in picked] == ["loan_payment"] * 3 + ["convert_units"] * 3
    assert pick_cases(cases, 0) == []


def test_the_setting_is_checked_a_sweep_axis_and_keeps_earlier_sweep_keys():
    from play2prompt.sweep.space import SweepSpace, plan_trial

    base = preset("quick")
    plans = [plan_trial(p, base, base.demos_per_tool)
             for p in SweepSpace.parse(["set_check=0,6"]).grid()]
    assert [p.config.set_check for p in plans] == [0, 6]
    plain = plan_trial({"variant": "full"}, base, base.demos_per_tool)
    assert plans[0].opt_key("t") == plain.opt_key("t") != plans[1].opt_key("t")
    assert preset("quick", set_check=6).set_check == 6
    for bad in (-1, True, 1.5):
        with pytest.raises(UserError, match="set_check"):
            preset("quick", set_check=bad)


class _WrongInASet(FakeLM):
    """Right-shaped calls for one tool at a time (schema-filled); with several tools shown,
    always a call to the last one: every change is implicated and none helps."""

    def __init__(self):
        super().__init__(fill_schema=True, model_id="fake-task")

    def _resolve(self, request, index):
        if len(request.tools) > 1:
            self.default = tool_call(request.tools[-1]["function"]["name"], {})
        else:
            self.default = None
        return super()._resolve(request, index)


def test_a_run_checks_its_tool_set_once_and_stores_what_it_undid(tmp_path, example_tools):
    tools = example_tools[:3]
    config = preset("quick", seed=3, set_check=4, choose_demo_count=False)   # demos ship
    task = _WrongInASet()
    result = optimize(tools, generator=JitterLM(rng_seed=1, max_concurrency=1),
                      task_model=task, config=config, runs_dir=tmp_path, run_id="sc",
                      base_dir=EXAMPLES)
    store = RunStore(tmp_path / "sc" / "run.db")
    check = store.get_meta("set_check")
    split = store.candidates(stage="split")
    assert split and {r["state"] for r in split} <= {"train", "held-out"}
    assert check is not None and check["cases"] == sum(
        min(4, sum(r["tool"] == t.name for r in split)) for t in tools)
    assert check["undone"] and result.stats["set_check"] == check
    for name in check["undone"]:
        tool = result.tools[name]
        assert not tool.doc_changed and tool.demos == ()
        assert tool.doc == tool.original.doc
        assert tool.doc_reason.startswith("kept the original: the tool-set check")
        assert tool.stats["set_check"]["undone"] is True
    saved = json.loads((tmp_path / "sc" / "result.json").read_text())
    assert set(check["undone"]) <= {n for n, t in saved["tools"].items() if not t["demos"]}
    asked = len([r for r in task.requests if len(r.tools) > 1])
    assert asked == check["cases"] * (1 + len(check["decisions"]))   # one round per decision
    # resumed: the stored outcome stands, no task-model request is made again
    again = _WrongInASet()
    optimize(generator=JitterLM(rng_seed=1), task_model=again, runs_dir=tmp_path, resume="sc")
    assert again.requests == []
    assert RunStore(tmp_path / "sc" / "run.db").get_meta("set_check") == check
