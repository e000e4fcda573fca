"""The doc-decision check the embedded end-to-end test uses, on a scripted run: it holds for
a doc that earned its place (loan_payment: the doc-reading fake needs the rate's percentage;
convert_units) and for an original kept on a tie."""

from __future__ import annotations

import json

from play2prompt.config import preset
from play2prompt.lm.fake import FakeLM, play_rules
from play2prompt.optimize import optimize
from play2prompt.store.runs import open_run
from play2prompt.tools.loading import load_tools
from tests.conftest import EXAMPLES
from tests.doc_decision import check_doc_decision
from tests.scale_support import EXAMPLE_CALLS

TOOLS = ("loan_payment", "convert_units", "body_mass_index")


def test_the_check_holds_on_a_working_run(tmp_path):
    tools = [t for t in load_tools(EXAMPLES / "tools.json") if t.name in TOOLS]
    optimize(tools, generator=FakeLM(rules=play_rules(EXAMPLE_CALLS), fill_schema=True),
             config=preset("quick"), runs_dir=tmp_path, run_id="r", base_dir=EXAMPLES)
    results = json.loads((tmp_path / "r" / "result.json").read_text())["tools"]
    # a rewrite rejected before scoring (as the embedded model's runs log): it has no kind
    writable = open_run("r", tmp_path)
    writable.put_candidate("doc-loan_payment-x-rejected0", tool="loan_payment", stage="doc",
                           iteration=-1, parent=None, state="invalid", reward=None,
                           payload={"doc": {"description": "x", "params": {}},
                                    "critique": "", "problems": ["too short"]})
    writable.close()
    store = open_run("r", tmp_path, read_only=True)
    check_doc_decision(results["loan_payment"], store, "loan_payment", "percentage")
    assert results["loan_payment"]["doc_changed"]
    for name in TOOLS[1:]:
        check_doc_decision(results[name], store, name)
    # convert_units earns its facts doc from Step 1b's tests (a unit code said by its name, a
    # value of the other sign: D0 fails them); body_mass_index keeps its original on a tie
    assert results["convert_units"]["doc_changed"]
    assert not results["body_mass_index"]["doc_changed"]
    assert "not above the original's" in results["body_mass_index"]["doc_reason"]
