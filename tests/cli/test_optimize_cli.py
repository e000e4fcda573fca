"""p2p optimize / runs list / runs show through the CLI, on the fake LM."""

import json

from play2prompt.cli import main
from tests.conftest import EXAMPLES


def test_optimize_then_list_and_show(tmp_path, capsys):
    runs = str(tmp_path)
    code = main(["optimize", str(EXAMPLES / "tools.json"), "--generator", "fake",
                 "--preset", "quick", "--width", "3", "--n-e", "2", "--demos-per-tool", "2",
                 "--seed", "3", "--runs-dir", runs, "--run-id", "r1", "-q"])
    out = capsys.readouterr().out
    assert code == 0
    for name in ("convert_units", "loan_payment", "body_mass_index"):
        assert name in out
    assert "LLM calls" in out and "tools.optimized.json" in out
    assert "None" not in out and "->-" not in out   # a missing score is "-", not a repr
    result = json.loads((tmp_path / "r1" / "result.json").read_text())
    assert result["config"]["examples"]["width"] == 3 and result["config"]["n_e"] == 2
    assert all(len(t["demos"]) <= 2 for t in result["tools"].values())
    optimized = json.loads((tmp_path / "r1" / "tools.optimized.json").read_text())
    assert len(optimized["tools"]) == 7 and optimized["tools"][0]["executor"]

    assert main(["runs", "list", "--runs-dir", runs]) == 0
    assert "r1" in capsys.readouterr().out
    assert main(["runs", "show", "r1", "--runs-dir", runs]) == 0
    shown = capsys.readouterr().out
    assert "loan_payment" in shown and "done" in shown
    # what each evidence component did, summed over the tools (each tool's stats hold its own)
    used = {}
    for t in result["tools"].values():
        for name, n in t["stats"]["evidence_calls"].items():
            used[name] = used.get(name, 0) + n
    assert used["fact-reader"] > 0 and used["probes"] > 0
    line = next(x for x in shown.splitlines() if x.startswith("evidence components' calls"))
    assert f"fact-reader {used['fact-reader']}" in line and "doc-completion" not in line
    # where the model's time went, by the template that opened each call
    assert "LLM samples by prompt" in shown and "m1_invocation" in shown
    assert main(["runs", "show", "r1", "--runs-dir", runs, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    rows = data["llm_calls_by_prompt"]
    assert sum(r["samples"] for r in rows) == data["llm_calls"]["samples"]
    assert {"m1_invocation", "m3_query"} <= {r["prompt"] for r in rows}
    assert "other" not in {r["prompt"] for r in rows}    # every call the method made is told apart
    assert all(0 <= r["processed"] <= r["prompt_tokens"] for r in rows)   # cache hits logged
    assert main(["runs", "show", "nope", "--runs-dir", runs]) == 2


def test_import_has_no_side_effects():
    import subprocess
    import sys

    code = ("import sys, play2prompt; assert 'play2prompt.optimize' not in sys.modules; "
            "assert callable(play2prompt.optimize) and play2prompt.__version__")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_resume_through_the_cli_rebuilds_models_and_makes_no_call(tmp_path, capsys):
    args = ["--runs-dir", str(tmp_path), "-q"]
    assert main(["optimize", str(EXAMPLES / "tools.json"), "--tools", "loan_payment",
                 "--generator", "fake", "--preset", "quick", "--run-id", "r2", *args]) == 0
    capsys.readouterr()
    assert main(["optimize", "--resume", "r2", *args]) == 0
    assert "LLM calls 0 " in capsys.readouterr().out


def test_tools_takes_a_comma_list(tmp_path, capsys):
    import json

    assert main(["optimize", str(EXAMPLES / "tools.json"), "--tools",
                 "loan_payment,body_mass_index", "--generator", "fake", "--preset", "quick",
                 "--run-id", "two", "--runs-dir", str(tmp_path), "-q", "--no-docs"]) == 0
    result = json.loads((tmp_path / "two" / "result.json").read_text())
    assert sorted(result["tools"]) == ["body_mass_index", "loan_payment"]
