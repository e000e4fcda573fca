"""From a real (FakeLM) optimization run of examples/tools.json, every format exports and
carries the run's chosen docs and demos."""

from __future__ import annotations

import json

import pytest

from play2prompt.config import preset
from play2prompt.emit import ExportOptions, available_exporters, export_run
from play2prompt.lm.fake import FakeLM, play_rules
from play2prompt.optimize import optimize
from play2prompt.results import load_run_result
from tests.conftest import EXAMPLES
from tests.scale_support import EXAMPLE_CALLS


@pytest.fixture(scope="module")
def fake_run(tmp_path_factory):
    from play2prompt.tools.loading import load_tools

    tools = [t for t in load_tools(EXAMPLES / "tools.json")
             if t.name in ("loan_payment", "body_mass_index")]
    runs = tmp_path_factory.mktemp("runs")
    optimize(tools, generator=FakeLM(rules=play_rules(EXAMPLE_CALLS), fill_schema=True,
                                      model_id="fake-player"),
             config=preset("quick", seed=3, choose_demo_count=False), runs_dir=runs,
             run_id="fake", base_dir=EXAMPLES)
    return load_run_result("fake", runs)


def test_every_format_exports_the_stored_run(fake_run):
    for fmt in available_exporters():
        text = export_run(fake_run, fmt)
        assert text.strip(), fmt
        if fmt in ("python", "dspy"):
            compile(text, f"<{fmt}>", "exec")
    doc = json.loads(export_run(fake_run, "openai"))
    for entry in doc:
        result = fake_run.tools[entry["function"]["name"]]
        assert entry["function"]["description"] == result.doc.description
    assert any(r.demos for r in fake_run.tools.values())
    mcp = json.loads(export_run(fake_run, "mcp", ExportOptions(demos=1)))
    demos = {t["name"]: t["_meta"]["play2prompt/demos"] for t in mcp["tools"] if "_meta" in t}
    assert demos
    for name, found in demos.items():
        assert len(found) == 1
        assert found[0]["query"] == fake_run.tools[name].demos[0].query
