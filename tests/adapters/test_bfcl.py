"""The BFCL executable adapter on a fake wheel built from small fixture files."""

import json
import subprocess
import zipfile
from pathlib import Path

import pytest

from play2prompt.adapters import load_benchmark
from play2prompt.adapters.bfcl.data import BFCLData, download, find_wheel, open_data
from play2prompt.adapters.bfcl.offline import network_functions
from play2prompt.adapters.bfcl.suite import load_suite, parse_categories
from play2prompt.errors import UserError
from play2prompt.evaluation.report import accuracy_table
from play2prompt.evaluation.runner import EvalSettings
from play2prompt.evaluation.session import EvalOptions, run_evaluation
from play2prompt.lm._base import Choice, ToolCall
from play2prompt.lm.fake import FakeLM

FIXTURES = Path(__file__).parent / "fixtures" / "bfcl"
EXEC_DIR = "bfcl/eval_checker/executable_eval"
MEMBERS = {
    **{f"bfcl/data/{n}": n for n in ("BFCL_v3_exec_simple.json", "BFCL_v3_exec_multiple.json",
                                     "BFCL_v3_exec_parallel.json", "BFCL_v3_rest.json",
                                     "BFCL_v3_exec_parallel_multiple.json")},
    f"{EXEC_DIR}/custom_exception.py": "custom_exception.py",
    f"{EXEC_DIR}/data/executable_python_function.py": "executable_python_function.py",
    f"{EXEC_DIR}/data/rest-eval-response_v5.jsonl": "rest-eval-response_v5.jsonl",
    f"{EXEC_DIR}/data/api_status_check_ground_truth_REST.json":
        "api_status_check_ground_truth_REST.json",
}


def make_wheel(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    wheel = folder / "nvidia_bfcl-26.3-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as zf:
        for member, name in MEMBERS.items():
            zf.write(FIXTURES / name, member)
        for pkg in ("bfcl", "bfcl/eval_checker", EXEC_DIR):
            zf.writestr(f"{pkg}/__init__.py", "")
        zf.writestr("nvidia_bfcl-26.3.dist-info/METADATA", "Name: nvidia-bfcl\n")
    return wheel


@pytest.fixture
def data_dir(tmp_path):
    make_wheel(tmp_path / "bfcl")
    return tmp_path / "bfcl"


def oracle(suite, *, swap=False, break_ids=()):
    """A fake task model answering every query with its ground truth (optionally reversed or
    with wrong arguments for some items)."""
    by_query = {i.query: i for i in suite.items}

    def reply(request, index):
        item = by_query[request.messages[-1]["content"]]
        calls = list(reversed(item.calls)) if swap else list(item.calls)
        if item.id in break_ids:
            calls = [type(c)(c.name, {k: (v + 1 if isinstance(v, int) and not isinstance(v, bool)
                                          else v) for k, v in c.arguments.items()})
                     for c in calls]
        return Choice("", tuple(ToolCall(c.name, dict(c.arguments)) for c in calls),
                      "tool_calls")

    return FakeLM(default=reply)


def test_network_functions_found_by_static_analysis():
    source = (FIXTURES / "executable_python_function.py").read_text()
    found = network_functions(source)
    assert set(found) == {"current_temperature", "movie_rating", "temperature_report"}
    assert "requests" in found["current_temperature"]
    assert "API key" in found["movie_rating"]
    assert found["temperature_report"].startswith("calls current_temperature")


def test_wheel_is_read_as_a_zip_and_the_functions_module_extracted(data_dir):
    data, root = open_data(data_dir)
    assert data.wheel.name.startswith("nvidia_bfcl-26.3")
    assert len(data.questions("simple")) == 4 and len(data.questions("rest")) == 1
    assert data.functions_module() == f"{EXEC_DIR.replace('/', '.')}.data." \
                                      "executable_python_function"
    assert (root / EXEC_DIR / "data" / "executable_python_function.py").is_file()
    assert (root / EXEC_DIR / "data" / "__init__.py").is_file()  # made when the wheel has none
    assert (root / EXEC_DIR / "custom_exception.py").is_file()
    assert data.rest_ground_truth()[0].startswith("requests.get(")


def test_offline_suite_skips_network_queries_and_says_why(data_dir):
    data, root = open_data(data_dir)
    suite = load_suite(data, root)
    assert [i.id for i in suite.items] == [
        "exec_simple_0", "exec_simple_1", "exec_simple_3", "exec_multiple_0",
        "exec_parallel_0", "exec_parallel_1", "exec_parallel_multiple_0"]
    reasons = {s.id: s.reason for s in suite.skipped}
    assert "current_temperature" in reasons["exec_simple_2"]
    assert "API key" in reasons["exec_multiple_1"]
    assert "temperature_report" in reasons["exec_parallel_multiple_1"]
    assert "REST" in reasons["rest_0"]
    assert "7 of 10 exec queries" in suite.notes[0] and "1 REST" in suite.notes[0]
    online = load_suite(data, root, online=True)
    assert len(online.items) == 11 and not online.skipped


def test_items_specs_and_ground_truth(data_dir):
    data, root = open_data(data_dir)
    items = {i.id: i for i in load_suite(data, root).items}
    growth = items["exec_simple_3"]
    assert growth.match == ("real_time",)
    assert growth.calls[0].arguments["rate"] == pytest.approx(1 / 6)  # "1 / 6" evaluated
    (spec,) = growth.specs
    assert spec.parameters["type"] == "object"
    assert spec.parameters["properties"]["amount"]["type"] == "number"
    dist = items["exec_parallel_1"]
    assert dist.specs[0].parameters["properties"]["a"]["type"] == "array"
    assert dist.calls[0].arguments["a"] == [0, 0]  # tuples become lists
    assert items["exec_parallel_multiple_0"].match == ("exact", "real_time")
    assert items["exec_multiple_0"].tools == ("triangle_area", "choose", "list_mean",
                                              "movie_rating")
    assert spec.executor["python"].endswith("executable_python_function:growth")


def test_categories_are_validated():
    assert parse_categories(["exec_simple,parallel-multiple"]) == ["simple",
                                                                    "parallel_multiple"]
    with pytest.raises(UserError, match="unknown BFCL category"):
        parse_categories(["live_simple"])


def test_oracle_scores_everything_and_wrong_calls_fail(data_dir, tmp_path):
    data, root = open_data(data_dir)
    suite = load_suite(data, root)
    result, out = run_evaluation(suite, EvalOptions(), EvalSettings(), lm=oracle(suite),
                                 out_dir=tmp_path / "perfect")
    assert all(r["correct"] and r["ast_ok"] for r in result.sides[0].records)
    swapped, _ = run_evaluation(suite, lm=oracle(suite, swap=True), out_dir=tmp_path / "swap")
    assert all(r["correct"] for r in swapped.sides[0].records)  # order does not matter
    broken, _ = run_evaluation(
        suite, lm=oracle(suite, break_ids={"exec_simple_0", "exec_parallel_0"}),
        out_dir=tmp_path / "broken")
    wrong = {r["id"] for r in broken.sides[0].records if not r["correct"]}
    assert wrong == {"exec_simple_0", "exec_parallel_0"}
    table = accuracy_table(broken).set_index("category")
    assert table.loc["simple", "baseline exec %"] == pytest.approx(66.7)
    assert table.loc["parallel", "baseline exec %"] == 50.0
    assert table.loc["plain average", "baseline exec %"] == pytest.approx(
        (66.7 + 100 + 50 + 100) / 4, abs=0.1)
    assert table.loc["weighted average", "baseline exec %"] == pytest.approx(500 / 7, abs=0.1)


def test_real_time_tolerance_on_bfcl_items(data_dir, tmp_path):
    data, root = open_data(data_dir)
    suite = load_suite(data, root, ["simple"])
    close = {"exec_simple_3": {"amount": 1000, "rate": 0.18, "years": 2}}  # 1392 vs 1361
    by_query = {i.query: i for i in suite.items}

    def reply(request, index):
        item = by_query[request.messages[-1]["content"]]
        args = close.get(item.id) or dict(item.calls[0].arguments)
        return Choice("", (ToolCall(item.calls[0].name, args),), "tool_calls")

    result, _ = run_evaluation(suite, lm=FakeLM(default=reply), out_dir=tmp_path / "rt")
    record = next(r for r in result.sides[0].records if r["id"] == "exec_simple_3")
    assert record["correct"] and not record["ast_ok"]


def test_offline_mode_refuses_network_functions(data_dir, tmp_path):
    data, root = open_data(data_dir)
    suite = load_suite(data, root, ["multiple"])
    (item,) = suite.items
    movie = next(t for t in item.specs if t.name == "movie_rating")
    assert movie.executor["python"].endswith("network:offline_refusal")
    lm = FakeLM(default=Choice("", (ToolCall("movie_rating", {"title": "Heat"}),)))
    result, _ = run_evaluation(suite, lm=lm, out_dir=tmp_path / "off")
    record = result.sides[0].records[0]
    assert not record["correct"] and "offline mode" in record["error"]
    online = load_suite(data, root, ["multiple"], online=True)
    assert online.items[0].specs[3].executor["python"].endswith(":movie_rating")


def test_online_rest_compares_structure_with_recorded_response(data_dir, tmp_path, monkeypatch):
    import requests

    sent = {}

    class Response:
        status_code = 200

        def json(self):
            return {"Zones": [{"TimezoneId": "Europe/Paris"}], "Safezone": 0.9}

    def fake_get(url, headers=None, params=None, **kw):
        sent.update(url=url, headers=headers, params=params)
        return Response()

    monkeypatch.setattr(requests, "get", fake_get)
    monkeypatch.setenv("RAPID_API_KEY", "k-123")
    data, root = open_data(data_dir)
    suite = load_suite(data, root, ["rest"], online=True)
    (item,) = suite.items
    assert item.tools == ("requests_get",) and item.match == ("rest",)
    prompting = FakeLM(default="[requests.get(url='https://tz.example.org/timezone', "
                               "headers={'X-Api-Key': 'YOUR-RAPID-API-KEY'}, "
                               "params={'lat': 48.8584, 'lon': 2.2945})]")
    result, _ = run_evaluation(suite, EvalOptions(), EvalSettings(mode="prompting"),
                               lm=prompting, out_dir=tmp_path / "rest")
    record = result.sides[0].records[0]
    assert record["correct"] and record["ast_ok"], record
    assert sent["headers"] == {"X-Api-Key": "k-123"}


def test_optimize_tools_is_the_union_of_offline_functions(data_dir):
    bench = load_benchmark("bfcl")
    loaded = bench.optimize_tools(data_dir=data_dir, subset=None, select=None, config=None)
    names = [t.name for t in loaded.tools]
    assert names == ["choose", "growth", "list_mean", "point_distance", "sort_numbers",
                     "triangle_area"]
    assert loaded.base_dir.is_dir()
    only = bench.optimize_tools(data_dir=data_dir, subset="parallel", select=["triangle_area"],
                                config=None)
    assert [t.name for t in only.tools] == ["triangle_area"]
    with pytest.raises(UserError, match="unknown BFCL tool"):
        bench.optimize_tools(data_dir=data_dir, subset=None, select=["nope"], config=None)


def test_optimize_tools_execute_from_the_extracted_module(data_dir, tmp_path):
    from play2prompt.tools.executors._base import ExecContext
    from play2prompt.tools.model import Invocation
    from play2prompt.tools.runtime import ToolRuntime

    loaded = load_benchmark("bfcl").optimize_tools(data_dir=data_dir, subset=None,
                                                   select=["choose"], config=None)
    runtime = ToolRuntime(loaded.tools, ExecContext(base_dir=loaded.base_dir))
    try:
        obs = runtime.run_sync(Invocation("choose", {"n": 5, "k": 2}))
    finally:
        runtime.close()
    assert obs.ok and obs.output == 10


def test_missing_data_and_download(tmp_path, monkeypatch):
    with pytest.raises(UserError, match="p2p data bfcl"):
        find_wheel(tmp_path)
    calls = []

    def fake_run(cmd, capture_output, text):
        calls.append(cmd)
        make_wheel(Path(cmd[cmd.index("-d") + 1]))
        return subprocess.CompletedProcess(cmd, 0, "", "")

    monkeypatch.setattr(subprocess, "run", fake_run)
    wheel = download(tmp_path / "cache")
    assert wheel.is_file()
    assert "--no-deps" in calls[0] and "nvidia-bfcl==26.3" in calls[0]
    monkeypatch.setattr(subprocess, "run", lambda cmd, capture_output, text:
                        subprocess.CompletedProcess(cmd, 1, "", "ERROR: No matching dist"))
    with pytest.raises(UserError, match="No matching dist"):
        download(tmp_path / "other")
    bad = tmp_path / "bad" / "nvidia_bfcl-26.3-py3-none-any.whl"
    bad.parent.mkdir()
    bad.write_text("not a zip")
    with pytest.raises(UserError, match="not a valid wheel"):
        BFCLData(bad).questions("simple")


def test_cli_eval_bfcl_end_to_end(data_dir, tmp_path, capsys):
    from play2prompt.cli import main

    out = tmp_path / "out"
    code = main(["eval", "bfcl", "--data-dir", str(data_dir), "--task-model", "fake",
                 "--categories", "simple,parallel", "-o", str(out), "-q"])
    text = capsys.readouterr()
    assert code == 0, text.err
    assert "weighted average" in text.out and "plain average" in text.out
    assert "exec queries" in text.err  # the offline note
    lines = (out / "queries.jsonl").read_text().splitlines()
    assert len(lines) == 5 and {"prompt", "raw", "parsed", "outcome"} <= set(json.loads(lines[0]))
    assert (out / "summary.csv").is_file() and (out / "summary.md").is_file()
    code = main(["eval", "bfcl", "--data-dir", str(tmp_path / "none"), "-q"])
    assert code == 2 and "p2p data bfcl" in capsys.readouterr().err
