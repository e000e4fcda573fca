"""End to end on the real embedded model (no key, no network): one example tool, quick preset."""

import json

import pytest

from play2prompt.cli import main
from play2prompt.store.runs import open_run
from tests.conftest import EXAMPLES

pytestmark = [pytest.mark.embedded, pytest.mark.slow]


def test_optimize_one_tool_with_the_embedded_model(tmp_path, capsys):
    code = main(["optimize", str(EXAMPLES / "tools.json"), "--tools", "loan_payment",
                 "--preset", "quick", "--runs-dir", str(tmp_path), "--run-id", "e2e", "-q"])
    out = capsys.readouterr()
    assert code == 0, out.err
    assert "loan_payment" in out.out and "LLM calls" in out.out
    result = json.loads((tmp_path / "e2e" / "result.json").read_text())["tools"]["loan_payment"]
    assert result["stats"]["valid_invocations"] >= 1
    # the probes found the tool's own rule about the rate, whatever the model wrote
    assert any("percentage" in f["text"] for f in result["stats"]["facts"])
    # a doc ships only when it beats the original on held-out examples; either way, why
    assert result["doc_reason"] and (result["doc_changed"] or
                                     result["doc_reason"].startswith("kept the original"))
    # Every demo's call was executed for real and succeeded: check it against the store.
    store = open_run("e2e", tmp_path, read_only=True)
    from play2prompt.tools.model import Invocation

    for demo in result["demos"]:
        call = Invocation.from_dict(demo["calls"][0])
        obs = store.get_execution(call.key())
        assert obs is not None and obs.ok and "monthly_payment" in obs.output
    models = store.get_meta("models")
    assert models == {"generator": "embedded", "task_model": "embedded"}
