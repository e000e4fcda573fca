"""The example files a user runs first: every gold call of examples/queries.jsonl executes, and
examples/tools.oracle.json (and examples/fresh's) differs from tools.json only in its
documentation."""

import copy
import json
from pathlib import Path

import pytest

from play2prompt.evaluation.queries import load_queries
from play2prompt.tools.loading import load_tools

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def tools_module(folder: Path = EXAMPLES):
    """``folder``'s tools.py, imported as a module of its own."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(f"p2p_tools_{folder.name}", folder / "tools.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_gold_call_runs_and_the_set_is_large_enough():
    tools = load_tools(EXAMPLES / "tools.json")
    parsed = load_queries(EXAMPLES / "queries.jsonl", tools)
    assert not parsed.bad and len(parsed.items) >= 100
    module = tools_module()
    per_tool: dict[str, int] = {}
    for item in parsed.items:
        for call in item.calls:
            out = getattr(module, call.name)(**call.arguments)   # raises on a wrong gold call
            if call.name == "search_products":
                assert out["count"] > 0, item.id
            per_tool[call.name] = per_tool.get(call.name, 0) + 1
    assert set(per_tool) == {t.name for t in tools} and min(per_tool.values()) >= 10


def _without_docs(entry):
    fn = copy.deepcopy(entry["function"])
    fn.pop("description", None)
    for spec in fn["parameters"]["properties"].values():
        spec.pop("description", None)
    return {**entry, "function": fn}


@pytest.mark.parametrize("folder", [EXAMPLES, EXAMPLES / "fresh"], ids=["examples", "fresh"])
def test_oracle_docs_change_only_the_documentation(folder):
    thin = json.loads((folder / "tools.json").read_text())["tools"]
    oracle = json.loads((folder / "tools.oracle.json").read_text())["tools"]
    assert [_without_docs(e) for e in thin] == [_without_docs(e) for e in oracle]
    assert load_tools(folder / "tools.oracle.json")
    for entry in oracle:
        fn = entry["function"]
        assert fn["description"] and all(p["description"]
                                         for p in fn["parameters"]["properties"].values())
