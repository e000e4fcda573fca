"""A finished run made without a model, for the drift tests: the example tools really executed
(logged in the run store as a run logs them), a demo and a verified example per tool, probes
and the facts they showed, ``result.json`` written as a run writes it."""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from pathlib import Path

from play2prompt.agent.prompt import Demo
from play2prompt.config import preset
from play2prompt.evidence.facts import FactBook
from play2prompt.evidence.observed import seen
from play2prompt.method.example_search import Example
from play2prompt.results import RunResult, ToolResult
from play2prompt.scrub import for_tools
from play2prompt.store.meta import Meta, Status
from play2prompt.store.runs import create_run
from play2prompt.tools.executors._base import ExecContext
from play2prompt.tools.loading import load_tools
from play2prompt.tools.model import Invocation, Tool, ToolDoc
from play2prompt.tools.runtime import ToolRuntime
from tests.conftest import EXAMPLES

# tool -> (the calls that worked, (probed parameter, probe call))
CALLS = {
    "loan_payment": ([{"principal": 10000, "annual_rate": 5, "years": 2},
                      {"principal": 250000, "annual_rate": 6.5, "years": 30}],
                     ("annual_rate", {"principal": 10000, "annual_rate": 500, "years": 2})),
    "convert_units": ([{"value": 10, "from_unit": "km", "to_unit": "mi"},
                       {"value": 100, "from_unit": "c", "to_unit": "f"}],
                      ("from_unit", {"value": 10, "from_unit": "zzqx", "to_unit": "mi"})),
    "add_days": ([{"date": "2025-01-01", "days": 10}, {"date": "2024-12-25", "days": -14}],
                 ("date", {"date": "zzqx", "days": 10})),
    "convert_currency": ([{"amount": 100, "from_currency": "USD", "to_currency": "EUR"},
                          {"amount": 50, "from_currency": "GBP", "to_currency": "JPY"}],
                         ("from_currency", {"amount": 100, "from_currency": "zzqx",
                                            "to_currency": "EUR"})),
    "search_products": ([{"category": "kitchen", "max_price": 5000},
                         {"category": "toys", "max_price": 2000}],
                        ("category", {"category": "zzqx"})),
    "body_mass_index": ([{"weight": 70, "height": 175}, {"weight": 90, "height": 185}],
                        ("height", {"weight": 70, "height": 1.75})),
}


def subset_tools_file(folder: Path, names: Sequence[str]) -> Path:
    """examples/tools.json with only ``names`` (and tools.py next to it) in ``folder``."""
    import json

    folder.mkdir(parents=True, exist_ok=True)
    shutil.copy(EXAMPLES / "tools.py", folder / "tools.py")
    data = json.loads((EXAMPLES / "tools.json").read_text())
    data["tools"] = [t for t in data["tools"] if t["function"]["name"] in names]
    path = folder / "tools.json"
    path.write_text(json.dumps(data, indent=2))
    return path


def make_run(runs_dir: Path, names: Sequence[str], run_id: str = "base",
             tools_file: Path = EXAMPLES / "tools.json") -> Path:
    """A finished run of ``names`` (see the module docstring); returns its folder."""
    tools = [t for t in load_tools(tools_file) if t.name in names]
    store = create_run(runs_dir, run_id=run_id)
    store.set_meta(Meta.CONFIG, preset("quick", seed=3, llm_grading=False).to_dict())
    store.set_meta(Meta.TOOLS, {"tools": [t.to_dict() for t in tools]})
    store.set_meta(Meta.MODELS, {"generator": "fake", "task_model": "fake"})
    store.set_meta(Meta.BASE_DIR, str(tools_file.parent.resolve()))
    ctx = ExecContext(base_dir=tools_file.parent, store=store, scrubber=for_tools(tools))
    runtime = ToolRuntime(tools, ctx, store)
    try:
        results = {t.name: _tool_result(t, runtime, store) for t in tools}
    finally:
        runtime.close()
    store.set_meta(Meta.STATUS, Status.DONE)
    RunResult(run_id, store.run_dir, results, {}, {}).write(for_tools(tools))
    store.close()
    return runs_dir / run_id


def _tool_result(tool: Tool, runtime: ToolRuntime, store) -> ToolResult:
    good, (param, probe) = CALLS[tool.name]
    book = FactBook(tool)
    calls = [Invocation(tool.name, args) for args in good]
    for i, inv in enumerate(calls):
        obs = runtime.run_sync(inv)
        assert obs.ok, obs
        book.observe(inv, seen(obs, runtime.scrubber))
        example = Example(tool.name, f"request {i} for {tool.name}", inv, obs, "", 1.0, 0.0, 1.0)
        store.put_candidate(f"ex-{tool.name}-{i}", tool=tool.name, stage="example",
                            iteration=0, parent=None, state="kept", reward=1.0,
                            payload=example.to_dict())
    inv = Invocation(tool.name, probe)
    obs = runtime.run_sync(inv)
    book.observe(inv, seen(obs, runtime.scrubber), probed=param)
    store.put_candidate(f"probe-{tool.name}-1", tool=tool.name, stage="probe", iteration=0,
                        parent=None, state="valid", reward=None,
                        payload={"from": calls[0].to_dict(), "probes": [
                            {"param": param, "invocation": inv.to_dict(),
                             "observation": obs.to_dict()}], "facts": book.to_list()})
    doc = ToolDoc(f"{tool.description} Optimized.", dict(tool.doc.params))
    result = ToolResult(tool.name, tool, doc, (Demo(f"request 0 for {tool.name}",
                                                    (calls[0],)),),
                        True, "better on held-out", {},
                        {"facts": book.to_list(), "llm_samples": 7, "prompt_tokens": 70,
                         "completion_tokens": 7})
    store.put_result(tool.name, result.to_dict())
    return result
