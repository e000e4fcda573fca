"""The method's steps tell their candidates to a trace and never touch the run store or the
progress reporter: the pipeline alone persists and reports."""

import ast
import asyncio
import dataclasses
from pathlib import Path

from play2prompt.lm.fake import FakeLM
from play2prompt.method.example_search import search_examples
from play2prompt.method.trace import NullTrace

METHOD = Path(__file__).resolve().parents[2] / "play2prompt" / "method"


def test_no_step_reaches_the_store_or_the_reporter():
    found = []
    for path in sorted(METHOD.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Attribute) and node.attr in ("store", "reporter"):
                found.append(f"{path.name}:{node.lineno} .{node.attr}")
    assert found == []


class Collect(NullTrace):
    def __init__(self):
        self.kinds, self.ended = [], []

    def candidate(self, kind, tool, id, **fields):
        self.kinds.append(kind)

    def iteration_ended(self, kind, tool, iteration):
        self.ended.append((kind, iteration))


def test_example_search_tells_its_candidates_to_the_trace(make_engine, example_tools, store):
    tool = next(t for t in example_tools if t.name == "loan_payment")
    engine = make_engine([tool], FakeLM(fill_schema=True), depth=2, fact_tests=0)
    trace = Collect()
    asyncio.run(search_examples(tool, dataclasses.replace(engine, trace=trace)))
    assert {"play", "example", "probe"} <= set(trace.kinds)
    assert trace.ended == [("example", i) for i in range(3)]
    assert store.candidates(tool="loan_payment") == []   # nothing persisted but by the trace
