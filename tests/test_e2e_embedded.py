"""End to end on the real embedded model (no key, no network): one example tool, quick preset.

About 280 s on two cores (marked ``slow`` as well as ``embedded``). The doc decision is
checked against the rule and the scores it rests on (tests/doc_decision.py): shipping a doc
that did not earn it or keeping one that did fails it (shown by hand with a broken
``choose_doc`` on the scripted run of tests/test_doc_decision.py).
"""

import json

import pytest

from play2prompt.cli import main
from play2prompt.store.runs import open_run
from tests.conftest import EXAMPLES
from tests.doc_decision import check_doc_decision

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
    # Every demo's call was executed for real and succeeded: check it against the store.
    store = open_run("e2e", tmp_path, read_only=True)
    # the doc decision follows the rule and the scores it rests on (the facts doc's text is
    # not pinned: a fact shown only by a held-out call is left out of it, by design)
    check_doc_decision(result, store, "loan_payment")
    from play2prompt.tools.model import Invocation

    for demo in result["demos"]:
        call = Invocation.from_dict(demo["calls"][0])
        obs = store.get_execution(call.key())
        assert obs is not None and obs.ok and "monthly_payment" in obs.output
    models = store.get_meta("models")
    assert models == {"generator": "embedded", "task_model": "embedded"}
