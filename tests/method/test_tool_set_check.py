"""The tool-set check (``config.set_check``): once every tool is done, its verified examples are
asked with all tools shown as they would ship, and a change the set does better without is
undone; 0 (the default) is the paper: no check."""

import asyncio
import json

import pytest

from play2prompt.config import preset
from play2prompt.errors import UserError
from play2prompt.lm.fake import FakeLM, tool_call
from play2prompt.method.tool_set_check import (
    UNDO_MARGIN,
    Gate,
    SetCase,
    SetEntry,
    check_tool_set,
    pick_cases,
)
from play2prompt.optimize import optimize
from play2prompt.results import ToolResult
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
    # the one answer wrong on loan's account is a training example's, not counted: its gate
    # has none of the two an undo needs to go right, so the trial asks nothing
    assert (decision.with_change, decision.without, decision.undone) == (1, 1, False)
    assert decision.gate == Gate(cases=0, need=UNDO_MARGIN, asked=0, fixed=0)
    assert check.to_dict()["decisions"][0]["gate"]["asked"] == 0
    assert "nothing asked" in decision.reason()
    assert len(engine.task_model.requests) == len(cases)
    assert check.undone == () and check.after == 0.75


def test_a_trial_stops_at_its_gate_once_too_few_of_its_own_cases_can_go_right(
        tools, make_engine):
    """Loan's change gets 4 of its 6 (held-out) examples right; undone it would need two more
    (:data:`UNDO_MARGIN`), so at least two of the two laid to it. The first asked is wrong
    again, and decides the trial: one request instead of six."""
    assert UNDO_MARGIN == 2
    loan, units = tools
    engine = make_engine([loan, units], FakeLM())
    cases = _cases(engine, n=6, held=range(6))
    hard = {cases[3].example.query, cases[4].example.query}
    task = _task(lambda docs, q: None if "CLEAR" in docs and q not in hard else "convert_units")
    task.max_concurrency = 1
    engine.task_model = task
    check = asyncio.run(check_tool_set(engine, [_entry(loan, "CLEAR"), _entry(units)], cases))
    (decision,) = check.decisions
    assert (decision.counted, decision.with_change, decision.undone) == (6, 4, False)
    assert decision.gate == Gate(cases=2, need=2, asked=1, fixed=0)
    assert decision.without == 4 and decision.inexact == ""    # the rest counted as now
    assert "asked 1 of the 2 wrong answer(s) laid to it" in decision.reason()
    trial = task.requests[len(cases):]
    assert [r.messages[-1]["content"] for r in trial] == [cases[3].example.query]
    assert check.before == check.after == 4 / 6


def test_a_trial_past_its_gate_stops_once_it_cannot_win(tools, make_engine):
    """Units' rewrite draws two of loan's requests; undone, those two go right (its gate
    passes) but two others go wrong. The trial then asks the set's other cases until it can
    no longer get two more right: the first of them, wrong, decides it (three requests, not
    six), and its count is an upper bound."""
    loan, units = tools
    engine = make_engine([loan, units], FakeLM())
    cases = _cases(engine, n=6, held=range(6))
    drawn = {c.example.query for c in cases[:2]}
    broken = {c.example.query for c in cases[2:4]}

    def rule(docs, q):
        if "GREEDY" in docs:
            return "convert_units" if q in drawn else None
        return "convert_units" if q in broken else None
    task = _task(rule)
    task.max_concurrency = 1
    engine.task_model = task
    check = asyncio.run(check_tool_set(engine, [_entry(loan), _entry(units, "GREEDY")], cases))
    (decision,) = check.decisions
    assert decision.gate is None and not decision.undone
    assert (decision.with_change, decision.without, decision.inexact) == (4, 5, "without")
    trial = [r.messages[-1]["content"] for r in task.requests[len(cases):]]
    assert trial == [cases[0].example.query, cases[1].example.query, cases[2].example.query]


def test_a_change_is_undone_only_when_the_set_gets_two_more_right_without_it(
        tools, make_engine):
    """Units' rewrite draws some of loan's held-out requests: one drawn is a one-example
    difference and keeps the change (noise, as for a demo more); two drawn undo it."""
    loan, units = tools
    engine = make_engine([loan, units], FakeLM())
    cases = _cases(engine, n=6, held=range(6))
    for drawn, undone in ((1, False), (2, True)):
        lost = {c.example.query for c in cases[:drawn]}
        engine.task_model = _task(lambda docs, q, lost=lost:
                                  "convert_units" if "GREEDY" in docs and q in lost else None)
        check = asyncio.run(check_tool_set(engine, [_entry(loan), _entry(units, "GREEDY")],
                                           cases))
        (decision,) = check.decisions
        # one drawn: fewer cases laid to units than an undo needs, so its trial asks nothing
        asked = len(engine.task_model.requests) - len(cases)
        assert (decision.gate is None) is undone and asked == (0 if drawn == 1 else 6)
        assert (decision.with_change, decision.without) == (6 - drawn, 6 if undone else 5)
        assert decision.undone is undone and check.undone == (("convert_units",) if undone
                                                              else ())
        assert check.after == (1.0 if undone else 5 / 6)


def test_a_tools_own_training_examples_do_not_count(tools, make_engine):
    """Right only with the change on the examples its doc was chosen on, wrong on its two
    held-out ones either way: only those two count, the first asked is wrong again, and the
    trial stops (it can no longer get two more right): the change is kept."""
    loan, units = tools
    engine = make_engine([loan, units], FakeLM())
    cases = _cases(engine, held=(2, 3))
    train_queries = {c.example.query for c in cases if not c.held_out}
    engine.task_model = _task(lambda docs, q: None if "CLEAR" in docs and q in train_queries
                              else "convert_units")
    check = asyncio.run(check_tool_set(engine, [_entry(loan, "CLEAR"), _entry(units)], cases))
    (decision,) = check.decisions
    assert decision.counted == 2 and (decision.with_change, decision.without) == (0, 0)
    assert decision.gate == Gate(cases=2, need=2, asked=1, fixed=0)   # one asked, wrong
    assert not decision.undone and check.undone == () and check.before == check.after == 0.5


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


def _key_config(plan):
    from dataclasses import replace

    from play2prompt.jsonutil import stable_hash

    cfg = replace(plan.config, max_concurrency=None).to_dict()
    for name in ("set_check", "sibling_pick"):
        cfg.pop(name)
    assert stable_hash(cfg, "t", length=12) == plan.opt_key("t")
    return cfg


def test_the_setting_is_checked_a_sweep_axis_and_keeps_earlier_sweep_keys():
    from play2prompt.sweep.space import SweepSpace, plan_trial

    base = preset("quick")
    plans = [plan_trial(p, base, base.demos_per_tool)
             for p in SweepSpace.parse(["set_check=0,6"]).grid()]
    assert [p.config.set_check for p in plans] == [0, 6]
    plain = plan_trial({"variant": "full"}, base, base.demos_per_tool)   # on by default
    assert plans[1].opt_key("t") == plain.opt_key("t") != plans[0].opt_key("t")
    # a run before the setting (no set-check, no count) keeps its key; so does one whose
    # count is set while the component is off
    before = plan_trial({"variant": "full", "evidence": "-set-check"}, base, 3)
    zero = plan_trial({"variant": "full", "evidence": "-set-check", "set_check": 0}, base, 3)
    assert before.opt_key("t") == zero.opt_key("t")
    assert "set_check" not in _key_config(zero) and "set_check" not in _key_config(before)
    assert preset("quick").set_check == 6 and preset("paper").set_check == 6
    for bad in (-1, True, 1.5):
        with pytest.raises(UserError, match="set_check"):
            preset("quick", set_check=bad)


class _WrongInASet(FakeLM):
    """Right-shaped calls for one tool at a time (schema-filled); with several tools shown,
    always a call to the last one: every change is implicated, and no undoing helps."""

    def __init__(self):
        super().__init__(fill_schema=True, model_id="fake-task")

    def _resolve(self, request, index):
        if len(request.tools) > 1:
            self.default = tool_call(request.tools[-1]["function"]["name"], {})
        else:
            self.default = None
        return super()._resolve(request, index)


def test_a_run_checks_its_tool_set_once(tmp_path, example_tools):
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
    changed = [n for n, r in result.tools.items() if r.demos or r.doc_changed]
    undo = [d["tool"] for d in check["decisions"] if not d["adopt"]]
    assert changed and sorted(undo) == sorted(changed)
    assert check["adopted"] == []   # always a call to the last tool: no proposal helps
    assert check["undone"] == [] and result.stats["set_check"] == check   # ties: kept
    asked = len([r for r in task.requests if len(r.tools) > 1])
    # one full round, then each trial asks the counted cases laid to its tool until too few
    # can go right for an undo (every answer wrong: all but the last one; none with fewer
    # than UNDO_MARGIN), and no other case (the trial lost at its gate)
    gates = [d["gate"] for d in check["decisions"]]
    assert all(g["asked"] == max(0, g["cases"] - UNDO_MARGIN + 1) for g in gates)
    # then the sibling contrast round: every answer calls the last tool, so the others'
    # requests went to it; the sentences change nothing here, and the round is not kept
    contrast = check["contrast"]
    assert contrast is not None and not contrast["kept"]
    assert asked == check["cases"] + sum(g["asked"] for g in gates) + contrast["asked"]
    assert any(g["asked"] for g in gates)
    assert all(d["counted"] < check["cases"] for d in check["decisions"])
    # resumed: the stored outcome stands, no task-model request is made again
    again = _WrongInASet()
    optimize(generator=JitterLM(rng_seed=1), task_model=again, runs_dir=tmp_path, resume="sc")
    assert again.requests == []
    assert RunStore(tmp_path / "sc" / "run.db").get_meta("set_check") == check


def test_finish_run_stores_the_changes_it_undid(tools, make_engine):
    from play2prompt.results import ToolResult
    from play2prompt.set_check_run import finish_run

    loan, units = tools
    engine = make_engine([loan, units], FakeLM(), set_check=6)
    for i, case in enumerate(_cases(engine)):
        engine.store.put_candidate(f"split-loan-{i}", tool="loan_payment", stage="split",
                                   iteration=0, parent=None,
                                   state="held-out" if case.held_out else "train",
                                   reward=1.0, payload=case.example.to_dict())
    greedy = ToolDoc("GREEDY " + units.doc.description, units.doc.params)
    results = {"loan_payment": ToolResult("loan_payment", loan, loan.doc),
               "convert_units": ToolResult("convert_units", units, greedy, (), True,
                                           "rewrite: 0.50 -> 0.75", {"d0_all": 0.5})}
    engine.task_model = _task(lambda docs, q: "convert_units" if "GREEDY" in docs else None)
    out = asyncio.run(finish_run(results, engine))
    undone = out["convert_units"]
    assert undone.doc == units.doc and not undone.doc_changed and undone.demos == ()
    assert undone.doc_reason.startswith("kept the original: the tool-set check")
    assert undone.stats["set_check"] == {"undone": True, "was": "rewrite: 0.50 -> 0.75",
                                         "was_demos": 0}
    assert engine.store.get_result("convert_units") == undone.to_dict()
    assert out["loan_payment"] == results["loan_payment"]
    meta = engine.store.get_meta("set_check")
    assert meta["undone"] == ["convert_units"] and meta["cases"] == 4
    asked = len(engine.task_model.requests)
    assert asyncio.run(finish_run(results, engine)) == results     # checked once per run
    assert len(engine.task_model.requests) == asked


def test_the_check_is_a_named_component_that_evidence_none_turns_off():
    from play2prompt.evidence.names import DEFAULT_EVIDENCE, SET_CHECK, active, chosen

    assert SET_CHECK in DEFAULT_EVIDENCE and SET_CHECK in active(preset("quick"))
    assert SET_CHECK not in active(preset("quick", evidence=()))      # the paper's method
    assert SET_CHECK not in active(preset("quick", set_check=0))
    assert SET_CHECK not in chosen(None, set_check=0)
    assert SET_CHECK in chosen("none", set_check=3) and chosen("fact-reader") == (
        "fact-reader",)


def test_without_the_component_a_run_asks_no_tool_set(tmp_path, example_tools):
    config = preset("quick", seed=3, evidence=(), choose_demo_count=False)
    task = _WrongInASet()
    optimize(example_tools[:2], generator=JitterLM(rng_seed=1, max_concurrency=1),
             task_model=task, config=config, runs_dir=tmp_path, run_id="off",
             base_dir=EXAMPLES)
    assert all(len(r.tools) <= 1 for r in task.requests)
    assert RunStore(tmp_path / "off" / "run.db").get_meta("set_check") is None


def _proposing(tool, marker):
    return SetEntry(tool, tool, (), tool.with_doc(ToolDoc(f"{marker} {tool.doc.description}",
                                                            tool.doc.params)))


def test_an_unchanged_tool_whose_requests_go_elsewhere_ships_its_proposal(tools, make_engine):
    """Loan, kept as given, loses its requests to convert_units's new doc (which earns its
    place); shown with its facts doc it gets them back, so the check adopts that doc."""
    loan, units = tools
    engine = make_engine([loan, units], FakeLM())
    cases = _cases(engine)
    engine.task_model = _task(lambda docs, q: None if "PROPOSED" in docs else "convert_units")
    check = asyncio.run(check_tool_set(
        engine, [_proposing(loan, "PROPOSED"), _entry(units, "CLEAR")], cases))
    assert check.adopted == ("loan_payment",) and check.undone == ()
    assert (check.before, check.after) == (0.0, 1.0)
    undo, adopt = check.decisions          # convert_units implicated and kept (a tie: 0 - 0)
    assert (undo.tool, undo.adopt, undo.undone) == ("convert_units", False, False)
    assert (adopt.tool, adopt.implicated, adopt.counted) == ("loan_payment", 4, 4)
    assert (adopt.with_change, adopt.without, adopt.adopted) == (4, 0, True)
    assert adopt.reason().startswith("facts from tool play: the tool-set check")
    assert check.to_dict()["adopted"] == ["loan_payment"]


def test_a_proposal_that_gets_no_more_right_is_not_shipped(tools, make_engine):
    loan, units = tools
    engine = make_engine([loan, units], FakeLM())
    cases = _cases(engine)
    engine.task_model = _task(lambda docs, q: "convert_units")      # wrong whatever is shown
    check = asyncio.run(check_tool_set(
        engine, [_proposing(loan, "PROPOSED"), _entry(units)], cases))
    (decision,) = check.decisions         # units is unchanged and proposes nothing
    assert decision.adopt and not decision.adopted and check.adopted == ()
    # its gate: loan's 4 wrong answers asked with the proposal, none went right (1 needed)
    assert decision.gate == Gate(cases=4, need=1, asked=4, fixed=0)
    assert decision.reason().startswith("kept the original: the tool-set check asked 4")
    assert len(engine.task_model.requests) == 2 * len(cases)    # tried once, not again
    # a proposal the same as the original doc is no proposal: nothing tried
    engine.task_model = _task(lambda docs, q: "convert_units")
    same = SetEntry(loan, loan, (), loan)
    assert not same.can_propose
    check = asyncio.run(check_tool_set(engine, [same, _entry(units, "CLEAR")], cases))
    assert [d.adopt for d in check.decisions] == [False]


def test_finish_run_ships_an_unchanged_tools_facts_doc_the_set_needs(tools, make_engine):
    from play2prompt.evidence.facts import Fact
    from play2prompt.set_check_run import finish_run

    loan, units = tools
    engine = make_engine([loan, units], FakeLM(), set_check=6)
    for i, case in enumerate(_cases(engine)):
        engine.store.put_candidate(f"split-loan-{i}", tool="loan_payment", stage="split",
                                   iteration=0, parent=None,
                                   state="held-out" if case.held_out else "train",
                                   reward=1.0, payload=case.example.to_dict())
    fact = Fact("annual_rate", "rule", "A percentage such as 5 for 5 %.", call="c1")
    ranged = Fact("annual_rate", "rule", "annual_rate must be between 0 and 100.",
                  ("range", "0", "1", "100", "1"), call="c2")
    kept = ToolResult("loan_payment", loan, loan.doc, (), False,
                      "kept the original: it already solves all 4 verified examples",
                      {}, {"facts": [fact.to_dict(), ranged.to_dict()]})
    results = {"loan_payment": kept, "convert_units": ToolResult(
        "convert_units", units, ToolDoc("CLEAR " + units.doc.description, units.doc.params),
        (), True, "rewrite: 0.50 -> 0.75")}
    engine.task_model = _task(lambda docs, q: None if "5 for 5 %" in docs else "convert_units")
    out = asyncio.run(finish_run(results, engine))
    shipped = out["loan_payment"]
    assert shipped.doc_changed and "A percentage such as 5 for 5 %." in (
        shipped.doc.params["annual_rate"])
    assert shipped.doc_reason.startswith("facts from tool play: the tool-set check")
    assert shipped.stats["set_check"] == {"adopted": True, "was": kept.doc_reason}
    # with the schema keywords its facts prove (the schema-facts component is on)
    assert shipped.doc.constraints == {"annual_rate": {"maximum": 100.0, "minimum": 0.0}}
    assert shipped.stats["schema_constraints"] == {"annual_rate": ["maximum", "minimum"]}
    assert engine.store.get_result("loan_payment") == shipped.to_dict()
    assert out["convert_units"] == results["convert_units"]
    assert engine.store.get_meta("set_check")["adopted"] == ["loan_payment"]
    # with the facts doc off, an unchanged tool proposes nothing
    from play2prompt.set_check_run import set_entry
    assert set_entry(kept, propose=False).proposal is None
    assert set_entry(kept, propose=True).can_propose
    # a fact the schema holds goes into the proposal's schema, as in the doc search's facts doc
    from play2prompt.evidence.registry import evidence_for
    schema = evidence_for(engine).schema
    proposal = set_entry(kept, propose=True, schema=schema).proposal
    rate = {"minimum": 0.0, "maximum": 100.0}
    assert {k: proposal.properties["annual_rate"].get(k) for k in rate} == rate
    assert "minimum" not in set_entry(kept, propose=True).proposal.properties["annual_rate"]
    # and the adopted doc ships them (its ToolDoc's constraints), nothing else added
    from play2prompt.set_check_run import shipped_doc
    doc = shipped_doc(proposal, loan)
    assert doc.constraints == {"annual_rate": rate}
    assert doc.params["annual_rate"].endswith("annual_rate must be between 0 and 100.")


def test_several_wronged_tools_are_tried_together_then_each_implicated_one_alone(
        tools, make_engine, example_tools):
    """Loan and BMI, both kept as given, lose their requests to convert_units; both proposals
    together get them back in one round. BMI's proposal also draws one loan request, so it is
    tried without: the set does no worse, and only loan's proposal ships."""
    loan, units = tools
    bmi = next(t for t in example_tools if t.name == "body_mass_index")
    engine = make_engine([loan, units, bmi], FakeLM())
    cases = _cases(engine)

    def rule(docs, q):
        if "LOANDOC" not in docs:
            return "convert_units"
        return "body_mass_index" if "BMIDOC" in docs and q.startswith("I borrow 4000") else None
    engine.task_model = _task(rule)
    entries = [_proposing(loan, "LOANDOC"), _entry(units, "CLEAR"), _proposing(bmi, "BMIDOC")]
    # BMI has no case of its own here: only loan is wronged, so loan is tried alone
    check = asyncio.run(check_tool_set(engine, entries, cases))
    assert check.adopted == ("loan_payment",)
    both = [*cases, *(SetCase("body_mass_index", c.example, False) for c in cases[:1])]
    engine.task_model = _task(rule)
    check = asyncio.run(check_tool_set(engine, entries, both))
    adopts = {d.tool: d for d in check.decisions if d.adopt}
    assert set(adopts) == {"loan_payment", "body_mass_index"}
    assert check.adopted == ("loan_payment",) and check.after > check.before
    assert adopts["body_mass_index"].without >= adopts["body_mass_index"].with_change
    # BMI (tried first: a tie on blame, by name) is dropped: the set gets 4 right without it, 3
    # with; loan, tried without its proposal, loses its first two answers and so the trial
    # (at most 3 of 5 could be right, 4 needed): stopped there
    assert (adopts["body_mass_index"].with_change, adopts["body_mass_index"].without) == (3, 4)
    assert (adopts["loan_payment"].with_change, adopts["loan_payment"].without) == (4, 3)
    assert adopts["loan_payment"].inexact == "without"
    assert (check.before, check.after) == (0.0, 0.8)


class _Slotted:
    """A task model (``inner``) whose requests take a moment, counting how many are in flight;
    ``prefix_per_slot`` as given."""

    def __init__(self, inner, prefix_per_slot):
        self.inner, self.prefix_per_slot = inner, prefix_per_slot
        self.in_flight = self.peak = 0

    async def chat(self, request):
        self.in_flight += 1
        self.peak = max(self.peak, self.in_flight)
        try:
            await asyncio.sleep(0.002)
            return await self.inner.chat(request)
        finally:
            self.in_flight -= 1

    def __getattr__(self, name):
        return getattr(self.inner, name)


@pytest.mark.parametrize("per_slot, peak", [(True, 1), (False, 4)])
def test_a_model_whose_slots_cache_their_own_prefix_is_asked_one_request_at_a_time(
        tools, make_engine, per_slot, peak):
    """All tools shown are a prefix each round changes; where each slot would compute it for
    itself (the embedded model) the set's requests go one at a time, with the same
    decisions."""
    loan, units = tools
    engine = make_engine([loan, units], FakeLM())
    cases = _cases(engine)
    task = _task(lambda docs, q: "convert_units" if "GREEDY" in docs else None)
    engine.task_model = _Slotted(task, per_slot)
    check = asyncio.run(check_tool_set(engine, [_entry(loan, "CLEAR"), _entry(units, "GREEDY")],
                                       cases))
    assert engine.task_model.peak == peak
    assert check.undone == ("convert_units",) and len(task.requests) == 8


def test_the_embedded_model_says_its_slots_cache_their_own_prefix():
    from play2prompt.lm.embedded import EmbeddedLM

    assert EmbeddedLM.prefix_per_slot and not FakeLM.prefix_per_slot
