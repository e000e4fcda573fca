"""``p2p report RUN RUN ...`` / ``--sweep NAME``: each method's docs of a tool side by side."""

from __future__ import annotations

import pytest

from play2prompt.cli import main
from play2prompt.config import preset
from play2prompt.errors import UserError
from play2prompt.optimize import optimize
from play2prompt.report import build_comparison
from play2prompt.sweep.runner import run_sweep
from play2prompt.sweep.space import SweepSpace
from play2prompt.sweep.study import SweepSpec
from play2prompt.tools.loading import load_tools
from tests.baselines.fakes import baseline_lm
from tests.conftest import EXAMPLES
from tests.report.test_report import Structure
from tests.sweep.helpers import target, task_model

ORACLE_FILE = EXAMPLES / "tools.oracle.json"


@pytest.fixture
def runs(tmp_path):
    tools = [t for t in load_tools(EXAMPLES / "tools.json")
             if t.name in ("convert_units", "loan_payment")]
    for method in ("easytool", "draft"):
        optimize(tools, generator=baseline_lm(), config=preset("quick", draft_rounds=1),
                 method=method, runs_dir=tmp_path / "runs", run_id=method, base_dir=EXAMPLES)
    return tmp_path / "runs"


def test_runs_side_by_side_with_the_oracle(runs, tmp_path):
    files = build_comparison(["easytool", "draft"], runs_dir=runs, oracle=ORACLE_FILE,
                             out_dir=tmp_path / "cmp")
    page = files.html.read_text()
    parser = Structure()
    parser.feed(page)
    assert parser.errors == [] and parser.stack == []
    assert {"tool-convert_units", "tool-loan_payment"} <= parser.ids
    for text in ("EasyTool (easytool)", "DRAFT (draft)", "EasyTool doc", "DRAFT doc",
                 "Converts units.", "oracle", "Monthly payment of an amortised"):
        assert text in page, text
    md = files.markdown.read_text()
    assert md.count("| field | original | EasyTool (easytool) | DRAFT (draft) | oracle |") == 2
    assert "| param principal |" in md
    assert "| DRAFT (draft) | 3 |" in md            # explore, analyse, rewrite: 3 samples


def test_one_tool_and_bad_requests(runs, tmp_path):
    files = build_comparison(["easytool", "draft"], runs_dir=runs, tools=["loan_payment"],
                             out_dir=tmp_path / "one")
    md = files.markdown.read_text()
    assert "## loan_payment" in md and "convert_units" not in md
    with pytest.raises(UserError, match="no tool 'nope'"):
        build_comparison(["easytool", "draft"], runs_dir=runs, tools=["nope"])
    with pytest.raises(UserError, match="no finished trial"):
        build_comparison(sweep="missing", runs_dir=runs)


def test_a_sweep_side_by_side(tmp_path):
    spec = SweepSpec("cmp", SweepSpace.parse([], "easytool,draft,full"),
                     preset("quick", seed=3, draft_rounds=1))
    run_sweep(spec, target(tmp_path).with_oracle(ORACLE_FILE), generator=baseline_lm(),
              task_model=task_model(), runs_dir=tmp_path / "runs", log=lambda _m: None)
    files = build_comparison(sweep="cmp", runs_dir=tmp_path / "runs")
    assert files.html.parent == tmp_path / "runs" / "sweeps" / "cmp" / "report"
    md = files.markdown.read_text()
    header = next(ln for ln in md.splitlines() if ln.startswith("| field |"))
    assert [c.split(" (")[0] for c in header.strip("| ").split(" | ")] == [
        "field", "original", "EasyTool", "DRAFT", "P2P", "oracle"]


def test_cli(runs, capsys):
    code = main(["report", "easytool", "draft", "--runs-dir", str(runs), "--tool",
                 "loan_payment"])
    assert code in (0, None) and "compare.html" in capsys.readouterr().out
    assert main(["report", "--runs-dir", str(runs)]) == 2
    assert "give a run" in capsys.readouterr().err
    assert main(["report", "easytool", "--tool", "x", "--runs-dir", str(runs)]) == 2
