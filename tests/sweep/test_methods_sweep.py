"""``p2p sweep`` with the baselines and the oracle: one row per method, in the paper's order,
with what its optimization cost and its paired test against the original docs."""

from __future__ import annotations

import json

import pytest

from play2prompt.cli import main
from play2prompt.config import preset
from play2prompt.errors import UserError
from play2prompt.lm.fake import FakeLM, prompt_text, tool_call
from play2prompt.sweep.runner import run_sweep
from play2prompt.sweep.space import SweepSpace
from play2prompt.sweep.study import SweepSpec
from play2prompt.sweep.tables import verdicts
from tests.baselines.fakes import baseline_lm
from tests.conftest import EXAMPLES
from tests.sweep.helpers import QUERIES, target

ORACLE_FILE = EXAMPLES / "tools.oracle.json"


def informed_task_model() -> FakeLM:
    """Right only when the tool's doc is EasyTool's or the oracle's; wrong values otherwise."""
    oracle = [t["function"]["description"].split(".")[0] for t in
              json.loads(ORACLE_FILE.read_text())["tools"]]

    def answer(call):  # noqa: ANN001, ANN202
        def reply(request, index):  # noqa: ANN001, ANN202
            text = prompt_text(request)
            right = "EasyTool doc" in text or any(d in text for d in oracle)
            args = {k: v if right else v * 3 for k, v in call["arguments"].items()}
            return tool_call(call["name"], args)
        return reply

    return FakeLM(rules=[(q["query"], answer(q["calls"][0])) for q in QUERIES],
                  fill_schema=True, model_id="fake-informed")


def _spec(name: str, variants: str, **kwargs) -> SweepSpec:  # noqa: ANN003
    return SweepSpec(name, SweepSpace.parse([], variants),
                     preset("quick", seed=3, draft_rounds=2), **kwargs)


def test_methods_side_by_side_with_cost_and_paired_test(tmp_path):
    tgt = target(tmp_path).with_oracle(ORACLE_FILE)
    result = run_sweep(_spec("methods", "full,easytool,baseline,draft,desc-only"), tgt,
                       generator=baseline_lm(), task_model=informed_task_model(),
                       runs_dir=tmp_path / "runs", log=lambda _m: None)
    rows = {r["variant"]: r for r in result.trials.to_dict("records")}
    assert set(rows) == {"full", "easytool", "baseline", "draft", "desc-only", "oracle"}
    assert rows["baseline"]["run_id"] == "" and rows["oracle"]["run_id"] == ""
    assert rows["easytool"]["opt_calls"] == 2                 # one rewrite per tool
    assert rows["draft"]["opt_calls"] == 2 * 2 * 3            # tools x rounds x 3 steps
    assert rows["full"]["run_id"] == rows["desc-only"]["run_id"]
    assert rows["full"]["opt_calls"] > rows["draft"]["opt_calls"]
    summary = result.summary.set_index("method")
    assert list(summary.index) == ["baseline", "EasyTool", "DRAFT", "P2P-Desc", "P2P",
                                   "oracle"]
    assert summary.loc["baseline", "opt calls"] == 0
    assert summary.loc["EasyTool", "opt calls"] == 2
    assert summary.loc["EasyTool", "opt tokens"] > 0
    assert summary.loc["EasyTool", "overall"] == summary.loc["oracle", "overall"] == 100.0
    assert summary.loc["baseline", "overall"] == summary.loc["DRAFT", "overall"] == 0.0
    assert (summary.loc["EasyTool", "wins"], summary.loc["EasyTool", "losses"]) == (2, 0)
    assert summary.loc["EasyTool", "McNemar p"] == "0.500"
    assert summary.loc["DRAFT", "McNemar p"] == "1.000"
    assert summary.loc["EasyTool", "headroom %"] == 100.0
    assert summary.loc["DRAFT", "headroom %"] == 0.0
    lines = verdicts(result.summary)
    assert lines[0].startswith("EasyTool: ahead of (within noise) the baseline, +2 -0")
    assert any(line.startswith("DRAFT: level with the baseline") for line in lines)
    text = (result.sweep_dir / "summary.md").read_text()
    assert "McNemar p" in text and "EasyTool: ahead of" in text
    assert result.cost["optimization_runs"] == 3


def test_the_oracle_variant_needs_the_oracle_docs(tmp_path):
    with pytest.raises(UserError, match="--oracle FILE"):
        run_sweep(_spec("o", "oracle"), target(tmp_path), generator=baseline_lm(),
                  task_model=informed_task_model(), runs_dir=tmp_path / "runs",
                  log=lambda _m: None)


def test_cli_sweep_prints_a_row_per_method(tmp_path, capsys):
    from tests.sweep.helpers import write_queries

    queries = write_queries(tmp_path)
    code = main(["sweep", str(EXAMPLES / "tools.json"), "--queries", str(queries),
                 "--variants", "baseline,easytool", "--oracle", str(ORACLE_FILE),
                 "--generator", "fake", "--runs-dir", str(tmp_path / "runs"), "-q"])
    out = capsys.readouterr().out
    assert code in (0, None)
    assert "EasyTool" in out and "oracle" in out and "McNemar" in out


def test_cli_packaged_oracle_is_bfcl_only(tmp_path, capsys):
    from tests.sweep.helpers import write_queries

    code = main(["sweep", str(EXAMPLES / "tools.json"), "--queries",
                 str(write_queries(tmp_path)), "--oracle", "packaged", "--generator", "fake",
                 "--runs-dir", str(tmp_path / "runs"), "-q"])
    assert code == 2 and "only --benchmark bfcl ships oracle docs" in capsys.readouterr().err
