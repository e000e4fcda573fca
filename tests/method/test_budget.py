"""The analytic bound on LLM requests per tool holds for real runs (fake models)."""

import pytest

from play2prompt.config import preset
from play2prompt.lm.fake import FakeLM
from play2prompt.method.budget import call_bound
from play2prompt.optimize import optimize
from tests.conftest import EXAMPLES
from tests.scale_support import JitterLM


def test_bound_grows_with_the_presets():
    quick, default, paper = (call_bound(preset(p)).total for p in ("quick", "default", "paper"))
    assert quick < default < paper
    graded = call_bound(preset("default"), llm_grading=True)
    assert graded.total > call_bound(preset("default")).total
    assert call_bound(preset("quick", optimize_docs=False)).doc_calls == 0


@pytest.mark.parametrize("name, lm", [("quick", JitterLM(max_latency=0)),
                                      ("default", JitterLM(max_latency=0)),
                                      ("quick", FakeLM(fill_schema=True, model_id="fake"))])
def test_measured_calls_per_tool_stay_under_the_bound(tmp_path, example_tools, name, lm):
    config = preset(name, seed=4)
    result = optimize(example_tools, generator=lm, config=config, runs_dir=tmp_path,
                      base_dir=EXAMPLES)
    bound = call_bound(config).total
    for tool in result.tools.values():
        assert 0 < tool.stats["llm_samples"] <= bound, tool.name
