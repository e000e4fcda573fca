"""``p2p export``: files, standard output, --format all, and one-line errors."""

from __future__ import annotations

import json

from play2prompt.cli import main
from tests.emit.stored import make_stored_run


def test_export_to_file_and_stdout(tmp_path, capsys):
    run_dir = make_stored_run(tmp_path / "runs")
    out = tmp_path / "out" / "tools.json"
    assert main(["export", str(run_dir), "--format", "anthropic", "-o", str(out),
                 "--demos", "1", "--demos-inline"]) == 0
    doc = json.loads(out.read_text())
    assert doc[0]["input_schema"]["required"] == ["principal", "annual_rate", "years"]
    assert doc[0]["description"].count("Request:") == 1
    assert json.loads((out.parent / "tools.meta.json").read_text())["system"] == ""
    capsys.readouterr()
    # by id, from the runs folder
    assert main(["export", "golden", "-f", "markdown", "--runs-dir", str(tmp_path / "runs")]) == 0
    assert capsys.readouterr().out.startswith("# Tool documentation (golden)")


def test_export_all_formats_to_a_folder(tmp_path):
    run_dir = make_stored_run(tmp_path / "runs")
    assert main(["export", str(run_dir), "--format", "all", "-o", str(tmp_path / "all")]) == 0
    names = sorted(p.name for p in (tmp_path / "all").iterdir())
    assert names == ["p2p_anthropic.json", "p2p_anthropic.meta.json", "p2p_ces-overrides.json",
                     "p2p_ces-overrides.meta.json", "p2p_dspy.py", "p2p_langchain.py",
                     "p2p_llamaindex.py", "p2p_llm.py", "p2p_markdown.md", "p2p_mcp.json",
                     "p2p_openai-responses.json",
                     "p2p_openai-responses.meta.json", "p2p_openai.json",
                     "p2p_openai.meta.json", "p2p_openai_agents.py", "p2p_pydantic_ai.py",
                     "p2p_python.py", "p2p_toolhive-override.json",
                     "p2p_toolhive-override.meta.json", "p2p_toolhive-toolconfig.json",
                     "p2p_toolhive-toolconfig.meta.json"]
    assert isinstance(json.loads((tmp_path / "all" / "p2p_openai.json").read_text()), list)
    meta = json.loads((tmp_path / "all" / "p2p_openai.meta.json").read_text())
    assert set(meta) == {"play2prompt", "messages"}


def test_stdout_names_where_the_demos_went(tmp_path, capsys):
    """On stdout a tools= list has no place for the demos: a warning says how to get them."""
    run_dir = make_stored_run(tmp_path / "runs")
    for fmt in ("openai", "openai-responses", "anthropic"):
        assert main(["export", str(run_dir), "-f", fmt]) == 0
        out, err = capsys.readouterr()
        assert isinstance(json.loads(out), list)
        assert "warning: 3 demo(s) are not in this output" in err, fmt
        assert "--sidecar" in err and "-o FILE" in err and "--demos-inline" in err
    for options in (["--demos-inline"], ["--demos", "0"], ["--original"], ["-f", "mcp"],
                    ["-f", "python"]):
        assert main(["export", str(run_dir), *options]) == 0
        assert capsys.readouterr().err == "", options
    assert main(["export", str(run_dir), "-f", "anthropic", "--sidecar"]) == 0
    meta = json.loads(capsys.readouterr().out)
    assert meta["play2prompt"]["run_id"] == "golden" and "Request:" in meta["system"]
    assert main(["export", str(run_dir), "-f", "mcp", "--sidecar"]) == 2
    assert "has no sidecar" in capsys.readouterr().err


def test_export_errors_are_one_line(tmp_path, capsys):
    run_dir = make_stored_run(tmp_path / "runs")
    assert main(["export", str(run_dir), "-f", "yaml"]) == 2
    assert "unknown export format 'yaml'" in capsys.readouterr().err
    assert main(["export", str(tmp_path / "nope"), "-f", "openai"]) == 2
    assert "no run" in capsys.readouterr().err
    assert main(["export", str(run_dir), "-f", "all"]) == 2
    assert "-o DIR" in capsys.readouterr().err
    (run_dir / "result.json").unlink()
    assert main(["export", str(run_dir)]) == 2
    assert "(no result.json yet)" in capsys.readouterr().err


def test_an_override_file_says_how_many_tools_it_overrides(tmp_path, capsys):
    run_dir = make_stored_run(tmp_path / "runs")
    out = tmp_path / "overrides.json"
    assert main(["export", str(run_dir), "-f", "toolhive-override", "-o", str(out)]) == 0
    assert "(toolhive-override, 2 of 3 tools overridden)" in capsys.readouterr().err
    assert list(json.loads(out.read_text())["toolsOverride"]) == ["loan_payment", "get-forecast"]
    assert json.loads((tmp_path / "overrides.meta.json").read_text())["kept"] == ["convert_units"]
    assert main(["export", str(run_dir), "-f", "toolhive-override", "-o", str(out),
                 "--original"]) == 0
    assert "(toolhive-override, 0 of 3 tools overridden)" in capsys.readouterr().err
    assert json.loads(out.read_text()) == {"toolsOverride": {}}
