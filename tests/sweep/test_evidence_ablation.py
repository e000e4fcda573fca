"""The evidence ablation table: each evidence value against the original docs and against
``all``, query by query, with its optimization's calls and a verdict (issue 30)."""

import pandas as pd

from play2prompt.cli import main
from play2prompt.evaluation.report import markdown_table
from play2prompt.store.db import RunStore
from play2prompt.sweep.ablation import (
    CAPTION,
    EARNS,
    NO_EFFECT,
    OFF_HELPS,
    REFERENCE,
    ablation_table,
    ablation_verdict,
    applies,
)
from play2prompt.sweep.runner import run_sweep
from tests.sweep.helpers import CountingLM, spec, target, task_model, write_queries

QUERIES = [f"q{i:02d}" for i in range(20)]


def test_the_verdict_rule():
    assert ablation_verdict(wins=0, losses=10) == EARNS
    assert ablation_verdict(wins=0, losses=1) == NO_EFFECT
    assert ablation_verdict(wins=1, losses=0) == NO_EFFECT
    assert ablation_verdict(wins=3, losses=3) == NO_EFFECT
    assert ablation_verdict(wins=10, losses=0) == OFF_HELPS
    assert "p vs all < 0.05" in CAPTION and EARNS in CAPTION and NO_EFFECT in CAPTION


def test_applies_only_with_all_and_another_value():
    assert applies({"evidence": ("all", "-probes")})
    assert not applies({"evidence": ("all",)})
    assert not applies({"evidence": ("none", "-probes")})
    assert not applies({"depth": (1, 2)})


def _trial(number: int, variant: str, evidence: str, right: int, **extra) -> dict:  # noqa: ANN003
    return {"trial": number, "variant": variant, "evidence": evidence,
            "accuracy": 100.0 * right / len(QUERIES), "wins": 0, "losses": 0,
            "run_id": f"run-{evidence}", "opt_status": "new", "opt_calls": 100 + number,
            "opt_new_calls": 50, "opt_reused_calls": 40, "eval_id": f"{variant}:{evidence}",
            **extra}


def _outcomes(wrong: int) -> dict[str, bool]:
    return {q: i >= wrong for i, q in enumerate(QUERIES)}


def test_synthetic_rows_get_their_verdicts_and_missing_rows_dashes():
    df = pd.DataFrame([_trial(0, "full", "all", 20), _trial(1, "full", "-probes", 10),
                       _trial(2, "full", "none", 19)])
    outcomes = {"full:all": _outcomes(0), "full:-probes": _outcomes(10),
                "full:none": _outcomes(1)}
    table = ablation_table(df, ["all", "-probes", "-reread", "none"], ["evidence"], outcomes)
    rows = {r["evidence"]: r for r in table.to_dict("records")}
    assert list(rows) == ["all", "-probes", "-reread", "none"]
    assert rows["all"]["verdict"] == REFERENCE and rows["all"]["wins vs all"] is None
    assert (rows["-probes"]["wins vs all"], rows["-probes"]["losses vs all"]) == (0, 10)
    assert rows["-probes"]["verdict"] == EARNS and float(rows["-probes"]["p vs all"]) < 0.05
    assert (rows["none"]["wins vs all"], rows["none"]["losses vs all"]) == (0, 1)
    assert rows["none"]["verdict"] == NO_EFFECT and rows["none"]["p vs all"] == "1.000"
    assert rows["-probes"]["opt calls"] == 101 and rows["-probes"]["reused calls"] == 40
    assert all(v is None for k, v in rows["-reread"].items() if k != "evidence")
    line = next(x for x in markdown_table(table).splitlines() if x.startswith("| -reread"))
    assert set(line.strip("| ").split(" | ")[1:]) == {"-"}


def test_blocks_per_other_setting_and_costs_from_the_run_itself():
    df = pd.DataFrame([_trial(0, "full", "all", 20), _trial(1, "full", "-probes", 10),
                       _trial(2, "demo-only", "all", 20, opt_status="shared",
                              opt_new_calls=0),
                       _trial(3, "demo-only", "-probes", 20, opt_status="shared"),
                       _trial(4, "baseline", "all", 5, run_id="")])
    outcomes = {"full:all": _outcomes(0), "full:-probes": _outcomes(10),
                "demo-only:all": _outcomes(0), "demo-only:-probes": _outcomes(0)}
    table = ablation_table(df, ["all", "-probes"], ["variant", "evidence"], outcomes)
    got = [(r["variant"], r["evidence"], r["verdict"]) for r in table.to_dict("records")]
    assert got == [("demo-only", "all", REFERENCE), ("demo-only", "-probes", NO_EFFECT),
                   ("full", "all", REFERENCE), ("full", "-probes", EARNS)]
    shared = table.to_dict("records")[0]    # demo-only shares full's run: its calls are those
    assert shared["new calls"] == 50 and shared["opt calls"] == 100


def test_a_sweep_writes_and_returns_the_table(tmp_path):
    result = run_sweep(spec("abl", "full", space=["evidence=all,none,-probes"]),
                       target(tmp_path), generator=CountingLM(), task_model=task_model(),
                       runs_dir=tmp_path / "runs", log=lambda _m: None)
    table = result.ablation.to_dict("records")
    assert [r["evidence"] for r in table] == ["all", "none", "-probes"]
    trials = {r["evidence"]: r for r in result.trials.to_dict("records")}
    store = RunStore(result.sweep_dir / "eval.db", read_only=True)
    try:
        stored = {e: store.eval_outcomes(t["eval_id"]) for e, t in trials.items()}
    finally:
        store.close()
    reference = stored["all"]
    for row in table:
        mine = stored[row["evidence"]]
        assert len(mine) == 2
        assert row["exec %"] == 100.0 * sum(mine.values()) / len(mine)
        assert row["wins vs docs"] == trials[row["evidence"]]["wins"]
        assert row["opt calls"] == trials[row["evidence"]]["opt_calls"] > 0
        if row["evidence"] == "all":
            assert row["wins vs all"] is None and row["verdict"] == REFERENCE
            continue
        assert row["wins vs all"] == sum(mine[q] and not reference[q] for q in mine)
        assert row["losses vs all"] == sum(reference[q] and not mine[q] for q in mine)
        assert row["verdict"] in (EARNS, NO_EFFECT, OFF_HELPS)
    summary = (result.sweep_dir / "summary.md").read_text()
    assert "## Evidence ablation" in summary and CAPTION in summary
    assert summary.index("## Evidence ablation") < summary.index("## Cost")
    assert (result.sweep_dir / "evidence_ablation.csv").is_file()


def test_no_table_without_an_evidence_axis(tmp_path):
    result = run_sweep(spec("plain", "full"), target(tmp_path), generator=CountingLM(),
                       task_model=task_model(), runs_dir=tmp_path / "runs", log=lambda _m: None)
    assert result.ablation.empty
    assert "Evidence ablation" not in (result.sweep_dir / "summary.md").read_text()


def test_the_cli_prints_the_table(tmp_path, capsys):
    from tests.conftest import EXAMPLES

    code = main(["sweep", str(EXAMPLES / "tools.json"), "--queries",
                 str(write_queries(tmp_path)), "--generator", "fake", "--space",
                 "evidence=all,-probes", "--name", "cli", "--runs-dir", str(tmp_path / "runs"),
                 "-q"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "evidence ablation" in out and "-probes" in out and "reference" in out
