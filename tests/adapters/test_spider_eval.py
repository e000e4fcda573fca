import asyncio
import csv
import json

import pytest

from play2prompt.adapters.spider.build import build_spider
from play2prompt.adapters.spider.env import FaultInjector, SpiderEnv, unavailable_message
from play2prompt.adapters.spider.evaluate import EvalConfig, evaluate
from play2prompt.adapters.spider.problems import read_problems
from play2prompt.adapters.spider.report import accuracy_ci, drop_ci, summarize
from play2prompt.adapters.spider.retrieval import ToolIndex
from play2prompt.adapters.spider.scoring import answer_matches
from play2prompt.cli import main
from play2prompt.evaluation.items import PromptSide
from play2prompt.lm.fake import FakeLM, tool_call
from play2prompt.store.db import RunStore
from play2prompt.tools.executors._base import ExecContext
from play2prompt.tools.loading import load_tools
from play2prompt.tools.model import Invocation, Tool
from play2prompt.tools.runtime import ToolRuntime
from tests.adapters.spider_fixture import build_tiny_spider

STADIUMS_Q = "What are the names of the stadiums without any concerts?"
DIRECT = "get_name_of_stadium_concert"
PART = "get_stadium_id_of_concert"
OUTER = "get_name_of_stadium_by_excluded_stadium_id_values"


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    root = tmp_path_factory.mktemp("spider")
    build_tiny_spider(root / "src")
    build_spider(root / "src", root / "out", generator=None)
    return root / "out"


@pytest.fixture
def world(data):
    tools = load_tools(data / "tools.json")
    problems = {p.question: p for p in read_problems(data / "problems.jsonl")}
    rt = ToolRuntime(tools, ExecContext(base_dir=data))
    yield {t.name: t for t in tools}, problems, rt
    rt.close()


def test_fault_disables_the_first_solution_function_once_per_problem(world):
    library, problems, rt = world
    problem = problems[STADIUMS_Q]
    env = SpiderEnv(problem, library, rt, world="closed", setting="fault")
    assert {t.name for t in env.tools()} == {DIRECT, PART, OUTER}

    def call(name, **args):
        return asyncio.run(env.execute(Invocation(name, args)))

    first = call(DIRECT)
    assert not first.ok and first.error == unavailable_message(DIRECT) == (
        f"{DIRECT} is currently unavailable. Please try a different function.")
    part = call(PART)
    outer = call(OUTER, excluded_stadium_id_values=part.output)
    assert part.ok and outer.ok and outer.output == [{"name": "Glebe Park"}]
    assert env.faults.injected == DIRECT and env.faults.fault_messages == 1
    assert not call(DIRECT).ok  # stays disabled for the rest of the problem
    # the next problem starts afresh: its first solution call fails, the backup works
    env2 = SpiderEnv(problem, library, rt, world="closed", setting="fault")
    assert not asyncio.run(env2.execute(Invocation(PART, {}))).ok
    assert asyncio.run(env2.execute(Invocation(DIRECT, {}))).ok
    assert env2.faults.injected == PART and env2.faults.fault_messages == 1
    # no fault: everything works; give-up setting: every solution is down
    none = SpiderEnv(problem, library, rt, world="closed", setting="none")
    assert asyncio.run(none.execute(Invocation(DIRECT, {}))).ok
    inj = FaultInjector("giveup", problem.solution_functions)
    assert all(inj.check(n) is not None for n in (DIRECT, PART, OUTER))
    assert inj.check("unrelated") is None


def test_scoring_is_lenient_on_shape_but_not_on_content():
    one = [{"count(*)": 3}]
    assert answer_matches(3, one) and answer_matches("3", one) and answer_matches(3.0, one)
    assert answer_matches([3], one) and answer_matches({"count": 3}, one)
    assert answer_matches([{"n": 3}], one) and answer_matches('[{"COUNT(*)": 3}]', one)
    assert not answer_matches(4, one) and not answer_matches(None, one)
    names = [{"name": "Joe Sharp"}, {"name": "Rose White"}]
    assert answer_matches(["rose white", "Joe Sharp"], names)   # order and case ignored
    assert answer_matches("Joe Sharp, Rose White", names)
    assert answer_matches([{"name": "Rose White"}, {"name": "Joe Sharp"}], names)
    assert not answer_matches(["Joe Sharp"], names)
    assert not answer_matches("Joe Sharp", names)
    pairs = [{"name": "A", "age": 30}, {"name": "B", "age": 41}]
    assert answer_matches([["B", 41], ["A", 30]], pairs)
    assert answer_matches([{"age": 30.0, "name": "a"}, {"age": 41, "name": "b"}], pairs)
    assert not answer_matches([["A", 41], ["B", 30]], pairs)
    assert answer_matches(37.0, [{"AVG(age)": 37.0}]) and answer_matches("37", [{"a": 37.0}])


def test_bm25_finds_the_right_function_among_distractors(world):
    library, problems, _ = world
    distractors = [Tool(f"get_{w}_of_planet", f"Returns the {w} of planets in the solar system.",
                        {}) for w in ("mass", "radius", "moons", "orbit", "name")]
    target = library["get_count_of_singer_by_country"]
    index = ToolIndex([*distractors, *library.values()])
    found = index.search("how many singers come from a given country", k=3)
    assert found[0].name == target.name
    env = SpiderEnv(problems[STADIUMS_Q], library, None, world="open", setting="none",
                    index=ToolIndex(list(library.values())))
    assert [t.name for t in env.tools()] == ["search_tools", "get_info"]
    res = asyncio.run(env.execute(Invocation("search_tools", {"query": "stadium names",
                                                              "k": 20})))
    assert res.ok and 1 <= len(res.output) <= 9 and all("description" in r for r in res.output)
    assert res.output[0]["name"].startswith("get_name_of_stadium")
    info = asyncio.run(env.execute(Invocation("get_info", {"name": OUTER})))
    assert info.ok and "excluded_stadium_id_values" in info.output
    assert OUTER in [t.name for t in env.tools()]  # found tools become callable


def test_evaluation_runs_faults_and_reports_the_drop(world, tmp_path):
    library, problems, rt = world
    problem = problems[STADIUMS_Q]

    def script(request, index):
        seen = [m["content"] for m in request.messages if m.get("role") == "tool"]
        if not seen:
            return tool_call(DIRECT)
        last = seen[-1]
        if last.startswith("Error"):
            return tool_call(PART) if len(seen) == 1 else tool_call("give_up", {"reason": last})
        if len(seen) == 2 and seen[0].startswith("Error"):
            return tool_call(OUTER, {"excluded_stadium_id_values": json.loads(last)})
        return tool_call("final_answer", {"answer": json.loads(last)})

    lm = FakeLM(default=script)
    store = RunStore(tmp_path / "run" / "run.db")
    cfg = EvalConfig(settings=("none", "fault", "giveup"), distractors=2)
    results = asyncio.run(evaluate(lm, [problem], [PromptSide("original")], library, cfg, rt,
                                   store=store))
    by = {r.setting: r for r in results}
    assert by["none"].correct and by["none"].turns == 2
    assert by["fault"].correct and by["fault"].fault_tool == DIRECT and by["fault"].turns == 4
    assert not by["giveup"].correct and by["giveup"].gave_up and by["giveup"].turns == 3
    rows = {r["setting"]: r for r in summarize(results, bootstrap=50)}
    assert rows["none"]["accuracy"] == 1.0 and rows["fault"]["relative_drop"] == 0.0
    assert rows["giveup"]["relative_drop"] == 1.0 and rows["giveup"]["give_up_rate"] == 1.0
    # stored episodes are read back, not rerun
    calls = len(lm.requests)
    again = asyncio.run(evaluate(lm, [problem], [PromptSide("original")], library, cfg, rt,
                                 store=store))
    assert len(lm.requests) == calls and [r.correct for r in again] == [True, True, False]
    store.close()


def test_cli_end_to_end_with_the_fake_model(tmp_path):
    build_tiny_spider(tmp_path / "src")
    out, runs = tmp_path / "out", tmp_path / "runs"
    assert main(["data", "spider", "--spider-dir", str(tmp_path / "src"), "-o", str(out),
                 "--generator", "fake", "--limit", "5", "-q"]) == 0
    assert (out / "tools.json").is_file() and (out / "manifest.json").is_file()
    assert len(read_problems(out / "problems.jsonl")) == 5
    code = main(["eval", "spider", "--data", str(out), "--task-model", "fake", "--runs-dir",
                 str(runs), "--run-id", "ev", "--settings", "none,fault", "--bootstrap", "20",
                 "--max-turns", "2", "-q"])
    assert code == 0
    rows = list(csv.DictReader((runs / "ev" / "summary.csv").open()))
    assert [(r["variant"], r["setting"]) for r in rows] == [("original", "none"),
                                                            ("original", "fault")]
    lines = (runs / "ev" / "trajectories.jsonl").read_text().splitlines()
    assert len(lines) == 2 * 2  # two problems with a backup plan, two settings
    assert main(["eval", "spider", "--data", str(tmp_path / "nope")]) == 2
    assert main(["eval", "spider", "--data", str(out), "--settings", "storm"]) == 2


def test_cli_compares_original_and_optimized_prompts(tmp_path):
    from play2prompt.config import preset
    from play2prompt.optimize import optimize

    build_tiny_spider(tmp_path / "src")
    out, runs = tmp_path / "out", tmp_path / "runs"
    build_spider(tmp_path / "src", out, generator=None)
    tools = load_tools(out / "tools.json", select=[DIRECT, PART, OUTER])
    cfg = preset("quick", width=1, expand=1, depth=0, n_e=1, max_tries=2, optimize_docs=False)
    run = optimize(tools, generator=FakeLM(fill_schema=True), config=cfg, runs_dir=runs,
                   run_id="opt", base_dir=out)
    assert set(run.tools) == {DIRECT, PART, OUTER}
    code = main(["eval", "spider", "--data", str(out), "--task-model", "fake", "--runs-dir",
                 str(runs), "--run-id", "ev", "--prompts", "opt", "--only-optimized",
                 "--bootstrap", "10", "--max-turns", "2", "-q"])
    assert code == 0
    rows = list(csv.DictReader((runs / "ev" / "summary.csv").open()))
    assert {(r["variant"], r["setting"], r["n"]) for r in rows} == {
        ("original", "none", "1"), ("original", "fault", "1"),
        ("optimized", "none", "1"), ("optimized", "fault", "1")}
    assert main(["eval", "spider", "--data", str(out), "--only-optimized"]) == 2


def test_bootstrap_intervals_are_seeded_and_skip_undefined_resamples():
    """scipy's bootstrap resamples; a resample whose drop is undefined (no base success) is left
    out rather than making the interval NaN; one problem gives a point interval."""
    correct = [1, 0, 1, 1, 0, 1, 0, 1, 1, 1] * 4
    lo, hi = accuracy_ci(correct, 500, 3)
    assert 0.5 <= lo < 0.7 < hi <= 0.9 and (lo, hi) == accuracy_ci(correct, 500, 3)
    assert drop_ci([1] + [0] * 9, [0] * 10, 500, 0) == (1.0, 1.0)
    assert drop_ci([0] * 5, [0] * 5, 100, 0) == (None, None)
    assert accuracy_ci([1], 100, 0) == (1.0, 1.0) and accuracy_ci([], 100, 0) == (None, None)
