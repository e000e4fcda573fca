"""The tool-set context (``config.siblings``): the task model sees each tool beside K other tools
of the run, with their original docs; a call to one of them is wrong and is never executed;
0 (the default) is the paper's prompt, the tool alone."""

import asyncio
import json
from dataclasses import replace

import pytest

from play2prompt.cli import main
from play2prompt.config import OptimizeConfig, preset
from play2prompt.errors import UserError
from play2prompt.evidence.facts import FactBook
from play2prompt.lm.fake import FakeLM, tool_call
from play2prompt.method.accuracy import Request, task_accuracy, task_try
from play2prompt.method.doc_choice import search_doc
from play2prompt.method.doc_search import split_examples
from play2prompt.method.siblings import (
    shape_similarity,
    shape_words,
    sibling_call,
    siblings_of,
    tool_set,
)
from play2prompt.optimize import optimize
from play2prompt.set_check_run import SET_CHECK_TAG
from play2prompt.tools.model import Invocation, Tool, ToolDoc
from tests.conftest import EXAMPLES
from tests.method.support import loan_examples
from tests.scale_support import JitterLM


def _names(tools):
    return [t.name for t in tools]


def _shown(request):
    return [t.get("function", t)["name"] for t in request.tools]


@pytest.fixture
def loan(example_tools):
    return next(t for t in example_tools if t.name == "loan_payment")


def test_siblings_are_deterministic_exclude_the_tool_and_respect_k(example_tools, loan):
    assert len(example_tools) == 7
    picked = siblings_of(loan, example_tools, 2, seed=3)
    assert len(picked) == 2 and loan.name not in _names(picked)
    assert picked == siblings_of(loan, list(reversed(example_tools)), 2, seed=3)  # no order
    assert _names(picked) == sorted(_names(picked))
    assert siblings_of(loan, example_tools, 0, seed=3) == ()
    everyone = siblings_of(loan, example_tools, 6, seed=3)   # 6 others: all of them
    assert sorted(_names(everyone)) == sorted(n for n in _names(example_tools) if n != loan.name)
    assert siblings_of(loan, example_tools, 50, seed=3) == everyone
    assert siblings_of(loan, [loan], 2, seed=3) == ()
    # the draw depends on the seed and the tool's name (over seeds, not always the same two)
    assert len({tuple(_names(siblings_of(loan, example_tools, 2, seed=s))) for s in range(20)}) > 1
    # the tools as given: a candidate doc of another tool is never what a sibling shows
    other = next(t for t in example_tools if t.name != loan.name)
    assert tool_set(loan, (other,)) == [other, loan] and tool_set(loan, ()) == [loan]


def test_a_call_to_a_sibling_is_wrong_and_never_executed(example_tools, loan, make_engine):
    engine = make_engine(example_tools, FakeLM(), seed=3, siblings=2)
    siblings = siblings_of(loan, example_tools, engine.config.siblings, engine.config.seed)
    inv = Invocation("loan_payment", {"principal": 1000, "annual_rate": 5, "years": 2})
    case = Request("I borrow 1000 at 5 percent for 2 years",
                   inv, asyncio.run(engine.runtime.run(inv)))
    ran = []
    real_run = engine.runtime.run

    async def run(call, *args, **kwargs):
        ran.append(call.name)
        return await real_run(call, *args, **kwargs)

    engine.runtime.run = run
    sibling = siblings[0]
    engine.task_model = FakeLM(default=tool_call(sibling.name, {"value": 1}))
    tried = asyncio.run(task_try(engine, loan, case, siblings=siblings))
    (request,) = engine.task_model.requests
    assert _shown(request) == [*_names(siblings), "loan_payment"]     # 3 tools, the tool last
    assert not tried.correct and tried.parsed
    assert tried.error == f"called {sibling.name} instead of loan_payment"
    assert tried.failure(case)["error"] == tried.error
    assert ran == []                                                  # nothing was executed
    # the right tool among them is checked by execution as before
    engine.task_model = FakeLM(default=tool_call("loan_payment", dict(inv.arguments)))
    assert asyncio.run(task_try(engine, loan, case, siblings=siblings)).correct
    assert ran == ["loan_payment"]
    # the tool and a sibling at once: wrong, the sibling not run
    ran.clear()
    assert sibling_call([inv, Invocation(sibling.name, {})], loan, siblings)
    assert sibling_call([inv], loan, siblings) is None and sibling_call([inv], loan, ()) is None
    ev = asyncio.run(task_accuracy(engine, loan, [case], siblings=siblings))
    assert ev.accuracy == 1.0 and _shown(engine.task_model.requests[-1])[-1] == "loan_payment"


def test_without_siblings_the_request_is_the_tool_alone(example_tools, loan, make_engine):
    engine = make_engine(example_tools, FakeLM())
    inv = Invocation("loan_payment", {"principal": 1000, "annual_rate": 5, "years": 2})
    case = Request("I borrow 1000 at 5 percent for 2 years",
                   inv, asyncio.run(engine.runtime.run(inv)))
    engine.task_model = FakeLM(default=tool_call("convert_units", {"value": 1}))
    tried = asyncio.run(task_try(engine, loan, case))
    (request,) = engine.task_model.requests
    assert _shown(request) == ["loan_payment"] and not tried.correct
    assert "instead of" not in tried.error          # the checker's own verdict, as before


def test_a_doc_that_says_what_the_tool_does_wins_beside_siblings(example_tools, loan,
                                                                make_engine):
    """The task model picks a sibling with the blank original and the tool with the rewrite:
    the rewrite is scored higher, and the critique reads which function was called."""
    blank = loan.with_doc(ToolDoc("", dict.fromkeys(loan.properties, "")))
    rewrite = {"description": "REWRITTEN: the monthly payment of a loan.",
               "params": {"principal": "The loan amount in dollars.",
                          "annual_rate": "The yearly rate as a percentage.",
                          "years": "The loan term in whole years."}}
    generator = FakeLM(rules=[("What should change", {"critique": "Say what it computes."}),
                              ("Write the improved documentation", rewrite)])
    engine = make_engine(example_tools, generator, FakeLM(), evidence_notes=False, siblings=2)
    siblings = siblings_of(loan, example_tools, 2, engine.config.seed)
    examples = loan_examples(engine)
    by_query = {e.query: e.invocation for e in examples}

    def reply(request, i):
        inv = by_query[request.messages[-1]["content"]]
        if "REWRITTEN" in json.dumps(request.tools):
            return tool_call(inv.name, dict(inv.arguments))
        return tool_call(siblings[0].name, {"value": 1})

    engine.task_model = FakeLM(default=reply)
    train, hold = split_examples(examples, engine.config.holdout,
                                 (engine.config.seed, loan.name, "split"))
    out = asyncio.run(search_doc(blank, engine, train, hold, FactBook(blank), siblings))
    assert out.changed and out.doc.description.startswith("REWRITTEN")
    assert all(len(r.tools) == 3 for r in engine.task_model.requests)
    critique = [r for r in generator.requests if "What should change" in
                json.dumps(r.messages)]
    assert critique and f"called {siblings[0].name} instead of loan_payment" in json.dumps(
        critique[0].messages)


def test_config_validates_and_records_siblings():
    assert OptimizeConfig().siblings == 0
    assert preset("quick", siblings=3).siblings == 3
    for bad in (-1, 1.5, True):
        with pytest.raises(UserError, match="siblings"):
            preset("quick", siblings=bad)
    cfg = preset("quick", siblings=2)
    assert cfg.to_dict()["siblings"] == 2
    assert OptimizeConfig.from_dict(cfg.to_dict()) == cfg
    old = {k: v for k, v in cfg.to_dict().items() if k != "siblings"}   # a run before it
    assert OptimizeConfig.from_dict(old).siblings == 0


def test_cli_flag_reaches_the_config(tmp_path, capsys):
    args = [str(EXAMPLES / "tools.json"), "--tools", "loan_payment,body_mass_index",
            "--generator", "fake", "--preset", "quick", "--runs-dir", str(tmp_path), "-q",
            "--no-docs"]
    assert main(["optimize", *args, "--run-id", "s1", "--siblings", "1",
                 "--sibling-pick", "similar"]) == 0
    result = json.loads((tmp_path / "s1" / "result.json").read_text())
    assert result["config"]["siblings"] == 1 and result["config"]["sibling_pick"] == "similar"
    assert main(["optimize", *args, "--run-id", "s2", "--siblings", "-1"]) == 2
    assert "siblings" in capsys.readouterr().err
    assert main(["optimize", *args, "--run-id", "s3", "--siblings", "1",
                 "--sibling-pick", "nearest"]) == 2
    err = capsys.readouterr().err
    assert "sibling_pick" in err and len(err.strip().splitlines()) == 1


def _task_requests(tmp_path, run_id, tools, **settings):
    task = FakeLM(fill_schema=True, model_id="fake-task")
    optimize(tools, generator=JitterLM(rng_seed=1, max_concurrency=1), task_model=task,
             config=preset("quick", seed=3, **settings), runs_dir=tmp_path, run_id=run_id,
             base_dir=EXAMPLES)
    # the tool-set check, once every tool is done, shows them all (tests/method/test_tool_set_check)
    return [r for r in task.requests if r.tools and r.tag != SET_CHECK_TAG]


def test_a_run_shows_each_tool_beside_the_same_siblings(tmp_path, example_tools):
    tools = example_tools[:4]
    alone = _task_requests(tmp_path, "k0", tools)
    assert alone and all(len(r.tools) == 1 for r in alone)
    beside = _task_requests(tmp_path, "k2", tools, siblings=2)
    assert beside and all(len(r.tools) == 3 for r in beside)
    by_tool = {}
    for r in beside:
        *others, name = _shown(r)
        by_tool.setdefault(name, set()).add(tuple(others))
    for name, shown in by_tool.items():
        tool = next(t for t in tools if t.name == name)
        assert shown == {tuple(_names(siblings_of(tool, tools, 2, 3)))}   # once per tool
    # the siblings carry their original docs, never a candidate doc of theirs
    originals = {t.name: t.to_openai() for t in tools}
    for r in beside:
        for spec in r.tools[:-1]:
            assert dict(spec) == originals[spec["function"]["name"]]


def test_siblings_zero_is_the_default_prompt(tmp_path, example_tools):
    """siblings=0 asks exactly what a run without the setting asks (the paper's prompt)."""
    tools = example_tools[:3]
    base = _task_requests(tmp_path, "d", tools)
    zero = _task_requests(tmp_path, "z", tools, siblings=0)

    def key(r):
        return json.dumps([r.messages, [dict(t) for t in r.tools], r.seed], sort_keys=True,
                          default=str)

    assert sorted(map(key, base)) == sorted(map(key, zero))
    assert replace(preset("quick"), siblings=0) == preset("quick")


def test_siblings_is_a_sweep_axis():
    from play2prompt.sweep.space import SweepSpace, plan_trial

    base = preset("quick")
    space = SweepSpace.parse(["siblings=0,2"])
    plans = [plan_trial(p, base, base.demos_per_tool) for p in space.grid()]
    assert [p.config.siblings for p in plans] == [0, 2]
    assert plans[0].opt_key("tools") != plans[1].opt_key("tools")
    with pytest.raises(UserError, match="siblings"):
        plan_trial({"siblings": -1}, base, 3)


def test_a_ray_worker_gets_its_tools_siblings(tmp_path, example_tools):
    """The Ray runner's worker has only its tool's runtime: the job carries the siblings chosen
    on the driver, and the worker's result is the one-process run's."""
    from play2prompt.distributed import ToolJob, run_tool_job

    tools = example_tools[:3]
    config = preset("quick", seed=5, siblings=1, choose_demo_count=False)
    local = optimize(tools, generator=JitterLM(rng_seed=1), config=config, runs_dir=tmp_path,
                     run_id="local", base_dir=EXAMPLES)
    tool = tools[0]
    shown = siblings_of(tool, tools, 1, 5)
    job = ToolJob(config=config.to_dict(), models={"generator": JitterLM(rng_seed=2)},
                  max_concurrency=4, base_dir=str(EXAMPLES), run_dir=str(tmp_path / "w"),
                  tool_timeout=config.tool_timeout, tool=tool.to_dict(),
                  siblings=tuple(s.to_dict() for s in shown))
    out = run_tool_job(job)
    assert out["result"] == json.loads((local.run_dir / "result.json").read_text())[
        "tools"][tool.name]


def _opaque(name, **params):
    """A tool as opaque BFCL shows it: a numbered name, no description, typed parameters."""
    props = {p: {"type": t} for p, t in params.items()}
    return Tool(name, "", {"type": "object", "properties": props, "required": list(props)})


def test_similar_siblings_are_the_tools_most_alike_in_shape():
    """``sibling_pick="similar"``: the K tools sharing most of the shape (parameter names and
    types, words of names), the ones a model confuses with the tool; the
    choice is deterministic and does not depend on the order the tools come in."""
    distance = _opaque("function_1", point_a="array", point_b="array")
    cosine = _opaque("function_2", vector_a="array", vector_b="array")
    euclid = _opaque("function_3", point_a="array", point_b="array", rounding="integer")
    density = _opaque("function_4", mass="number", volume="number")
    interest = _opaque("function_5", principal="number", rate="number", years="integer")
    tools = [distance, cosine, euclid, density, interest]
    picked = siblings_of(distance, tools, 2, seed=3, pick="similar")
    assert _names(picked) == ["function_2", "function_3"]
    assert picked == siblings_of(distance, list(reversed(tools)), 2, seed=3, pick="similar")
    assert _names(siblings_of(density, tools, 1, seed=0, pick="similar")) == ["function_5"]
    # over seeds a random pick of 2 of the 4 others is not always the two alike
    assert len({_names(siblings_of(distance, tools, 2, seed=s)).__str__()
                for s in range(20)}) > 1
    alike = shape_similarity(shape_words(distance), shape_words(euclid))
    assert alike > shape_similarity(shape_words(distance), shape_words(density)) > 0.0
    assert shape_words(distance) == {"function", "point", "a", "b", "type:array"}
    with pytest.raises(ValueError, match="sibling pick"):
        siblings_of(distance, tools, 2, seed=3, pick="nearest")


def test_sibling_pick_is_validated_a_sweep_axis_and_keeps_earlier_sweep_keys():
    from play2prompt.config import validate
    from play2prompt.sweep.space import SweepSpace, plan_trial

    with pytest.raises(UserError, match="sibling_pick"):
        validate(replace(preset("quick"), sibling_pick="nearest"))
    base = preset("quick")
    plans = [plan_trial(p, base, base.demos_per_tool)
             for p in SweepSpace.parse(["sibling_pick=random,similar"]).grid()]
    assert [p.config.sibling_pick for p in plans] == ["random", "similar"]
    assert plans[0].opt_key("tools") != plans[1].opt_key("tools")
    # at its default the setting is left out of the key: a sweep begun before it keeps its runs
    plain = plan_trial({"variant": "full"}, base, base.demos_per_tool)
    assert plans[0].opt_key("tools") == plain.opt_key("tools")
    cfg = replace(plain.config, max_concurrency=None).to_dict()
    cfg.pop("sibling_pick")   # at the value runs had before it (set_check's is 0, not 6)
    from play2prompt.jsonutil import stable_hash
    assert plain.opt_key("tools") == stable_hash(cfg, "tools", length=12)
