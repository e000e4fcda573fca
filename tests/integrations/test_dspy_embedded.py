"""End to end with the embedded model (no key, no network): the example's ReAct agent over one
tool, evaluated with ``dspy.Evaluate``, optimized through the DSPy LM itself (the ``dspy.LM`` ->
play2prompt adapter over the play2prompt -> DSPy engine), evaluated again."""

from __future__ import annotations

import importlib.util

import pytest

from play2prompt.config import preset
from play2prompt.store.runs import open_run
from play2prompt.tools.model import Invocation
from tests.conftest import EXAMPLES
from tests.extras import need

# The heaviest embedded test (an optimization and two agent episodes): room on a busy host.
pytestmark = [pytest.mark.embedded, pytest.mark.slow, pytest.mark.timeout(1200)]

dspy = need("dspy", "dspy")

from play2prompt.integrations.dspy import (  # noqa: E402
    constrain_outputs,
    dspy_lm,
    optimize_program,
)

# The quick preset, smaller still: one beam candidate per step (a few minutes on two cores).
SMALL = preset("quick", width=1, expand=1, depth=1, doc_width=1, doc_expand=1, doc_depth=1,
               doc_batch=3)


def _example():
    spec = importlib.util.spec_from_file_location("p2p_dspy_example",
                                                  EXAMPLES / "dspy" / "react_agent.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_example_agent_on_the_embedded_model(tmp_path):
    example = _example()
    dspy.configure_cache(enable_disk_cache=False, enable_memory_cache=False)
    lm = dspy_lm("embedded", max_tokens=300)
    agent = example.make_agent(("loan_payment",), max_iters=2)
    constrain_outputs(agent, max_text=160)
    evaluate = dspy.Evaluate(devset=example.devset(("loan_payment",), limit=1),
                             metric=example.called_right, num_threads=1,
                             display_progress=False)
    with dspy.context(lm=lm, adapter=dspy.JSONAdapter()):
        before = evaluate(agent)
        result = optimize_program(agent, generator=lm, config=SMALL, runs_dir=tmp_path,
                                  run_id="dspy-e2e")
        after = evaluate(agent)
    # The agent really acted: schema-constrained steps, each naming a tool, with observations.
    steps = [p.trajectory for _, p, _ in before.results + after.results if "trajectory" in p]
    assert len(steps) == 2
    assert all(s["tool_name_0"] in ("loan_payment", "finish") and "observation_0" in s
               for s in steps)
    assert 0 <= before.score <= 100 and 0 <= after.score <= 100
    # The run went through the DSPy LM (the adapter), with the embedded model's code checks.
    store = open_run("dspy-e2e", tmp_path, read_only=True)
    assert store.get_meta("models")["generator"].startswith("dspy:play2prompt/embedded")
    tool = result.run.tools["loan_payment"]
    assert tool.stats["valid_invocations"] >= 1
    loan = agent.tools["loan_payment"]
    assert loan.desc == tool.doc.description and str(loan) in agent.react.signature.instructions
    # Demos: verified calls (executed, successful) attached to ReAct's step predictor.
    assert len(agent.react.demos) == min(1, len(tool.demos))
    for demo in agent.react.demos:
        call = Invocation("loan_payment", demo.next_tool_args)
        obs = store.get_execution(call.key())
        assert obs is not None and obs.ok and "monthly_payment" in obs.output
    store.close()
