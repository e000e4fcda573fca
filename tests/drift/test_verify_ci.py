"""``p2p verify`` as a CI gate: after ``p2p optimize FILE --tools loan_payment`` the file's six
other tools are "not optimized by this run" (exit 0 on the unchanged file), not drift or new
tools; exit 1 on drift, 2 on an error (bad input, or verify could not finish); a refresh leaves
the tools its run did not optimize out."""

from __future__ import annotations

import json

import pytest

from play2prompt.cli import main
from play2prompt.drift.recorded import open_recorded
from play2prompt.drift.refresh import refresh
from play2prompt.drift.simulate import simulate
from play2prompt.drift.verify import NEW, NOW_FAILS, OK, UNOPTIMIZED, verify_run
from play2prompt.lm.fake import FakeLM
from play2prompt.store.runs import read_meta
from play2prompt.tools.loading import load_tools
from tests.drift.runs import make_run
from tests.emit.stored import copy_tools_file

FILE = ["convert_units", "add_days", "search_products", "loan_payment", "convert_currency",
        "convert_timezone", "body_mass_index"]
OTHERS = [n for n in FILE if n != "loan_payment"]


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    """examples/tools.json copied, and a run that optimized only loan_payment (fake model)."""
    root = tmp_path_factory.mktemp("ci")
    tools_file = copy_tools_file(root / "project")
    runs = root / "runs"
    assert main(["optimize", str(tools_file), "--tools", "loan_payment", "--generator", "fake",
                 "--runs-dir", str(runs), "--run-id", "lp", "--quiet"]) == 0
    return root, tools_file, runs


def _verify(capsys, *args):
    code = main(["verify", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_the_unchanged_file_is_clean_and_the_others_not_optimized(project, capsys):
    root, tools_file, runs = project
    assert read_meta(runs / "lp").source_tools == {"names": FILE}
    code, out, _ = _verify(capsys, "lp", "--tools", str(tools_file), "--runs-dir", str(runs))
    assert code == 0
    assert "new tool" not in out and "drifted" not in out
    assert out.count("not optimized by this run") == 7          # six rows and the summary
    assert "no drift (6 tool(s) not optimized by this run)" in out
    code, out, _ = _verify(capsys, "lp", "--tools", str(tools_file), "--runs-dir", str(runs),
                           "--json")
    report = json.loads(out)
    assert code == 0 and report["exit_code"] == 0 and report["drifted"] == []
    assert report["not_optimized"] == OTHERS
    statuses = {t["name"]: (t["status"], t["drifted"]) for t in report["tools"]}
    assert statuses == {"loan_payment": (OK, False),
                        **{n: (UNOPTIMIZED, False) for n in OTHERS}}


def test_drift_of_the_optimized_tool_exits_1(project, capsys):
    root, tools_file, runs = project
    drifted = root / "drifted"
    simulate(tools_file, drifted, ["unit"], chosen={"unit": "loan_payment"})
    code, out, _ = _verify(capsys, "lp", "--tools", str(drifted / "tools.json"), "--runs-dir",
                           str(runs), "--json")
    report = json.loads(out)
    assert code == 1 and report["drifted"] == ["loan_payment"]
    assert report["not_optimized"] == OTHERS
    assert report["tools"][0]["status"] == NOW_FAILS


def test_a_tool_added_since_the_run_is_new(project, capsys):
    root, tools_file, runs = project
    data = json.loads(tools_file.read_text())
    extra = json.loads(json.dumps(data["tools"][0]))
    extra["function"]["name"] = "loan_payment_total"
    data["tools"].append(extra)
    grown = tools_file.with_name("grown.json")
    grown.write_text(json.dumps(data))
    with open_recorded(runs / "lp") as run:
        report = verify_run(run, load_tools(grown), base_dir=grown.parent)
    by_name = {t.name: t for t in report.tools}
    assert by_name["loan_payment_total"].status == NEW and report.exit_code == 1
    assert by_name["loan_payment_total"].note == "not in the file the run started from"
    assert report.drifted == ["loan_payment_total"] and report.unoptimized == OTHERS


def test_errors_exit_2(project, capsys, monkeypatch):
    root, tools_file, runs = project
    other = tools_file.with_name("other.json")           # beside tools.py
    other.write_text(json.dumps({"tools": [json.loads(tools_file.read_text())["tools"][1]]}))
    code, _, err = _verify(capsys, "lp", "--tools", str(other), "--runs-dir", str(runs))
    assert code == 2 and "none of its tools is in run 'lp'" in err
    broken = root / "broken.json"
    broken.write_text("{not json")
    assert _verify(capsys, "lp", "--tools", str(broken), "--runs-dir", str(runs))[0] == 2
    assert _verify(capsys, "nope", "--runs-dir", str(runs))[0] == 2
    assert _verify(capsys, "lp", "--runs-dir", str(runs), "--match", "fuzzy")[0] == 2

    def crash(*args, **kwargs):
        raise RuntimeError("a bug")

    monkeypatch.delenv("P2P_TRACEBACK", raising=False)
    monkeypatch.setattr("play2prompt.drift.verify.verify_run", crash)
    code, out, err = _verify(capsys, "lp", "--tools", str(tools_file), "--runs-dir", str(runs))
    assert code == 2 and "verify could not finish: RuntimeError: a bug" in err and out == ""


def test_a_run_that_did_not_record_its_file_reports_the_others_unoptimized(tmp_path):
    tools_file = copy_tools_file(tmp_path / "project")
    run_dir = make_run(tmp_path / "runs", ["loan_payment"], tools_file=tools_file)
    assert read_meta(run_dir).source_tools is None             # as runs made before
    with open_recorded(run_dir) as run:
        report = verify_run(run, load_tools(tools_file), base_dir=tools_file.parent)
    assert report.exit_code == 0 and report.unoptimized == OTHERS
    assert "did not record its file's tools" in report.tools[1].note


def test_refresh_leaves_the_unoptimized_tools_out(project):
    root, tools_file, runs = project
    drifted = root / "drifted-refresh"
    simulate(tools_file, drifted, ["unit"], chosen={"unit": "loan_payment"})
    outcome = refresh(runs / "lp", drifted / "tools.json", runs_dir=runs, run_id="lp2",
                      generator=FakeLM(fill_schema=True, model_id="fake"))
    plan = outcome.plan
    assert plan.redo == ("loan_payment",) and plan.reuse == ()
    assert plan.unoptimized == tuple(OTHERS)
    assert {plan.action(n) for n in OTHERS} == {"left out"}
    assert list(outcome.result.tools) == ["loan_payment"]         # no more than lp optimized
    assert read_meta(runs / "lp2").source_tools == {"names": FILE}
    assert read_meta(runs / "lp2").refreshed_from["not_optimized"] == OTHERS
