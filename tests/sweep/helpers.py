"""Fixtures shared by the sweep and report tests: a small query file, fake models."""

from __future__ import annotations

import json
from pathlib import Path

from play2prompt.config import preset
from play2prompt.lm.fake import FakeLM, play_rules, prompt_text, tool_call
from play2prompt.sweep.space import SweepSpace
from play2prompt.sweep.study import SweepSpec
from play2prompt.sweep.target import tools_target
from tests.conftest import EXAMPLES
from tests.scale_support import EXAMPLE_CALLS

LOAN = {"name": "loan_payment", "arguments": {"principal": 20000, "annual_rate": 4.5,
                                              "years": 5}}
BMI = {"name": "body_mass_index", "arguments": {"weight": 70, "height": 175}}
QUERIES = [
    {"id": "q1", "query": "Loan of 20000 at 4.5 percent for 5 years: monthly payment?",
     "calls": [LOAN], "category": "loan"},
    {"id": "q2", "query": "What is the BMI for 70 kg and 175 cm?", "calls": [BMI],
     "category": "bmi"},
]


class Killed(BaseException):
    """Stands in for SIGKILL / Ctrl-C in the middle of a sweep."""


class CountingLM(FakeLM):
    """A scripted player (plausible calls, schema-filled text) that records the sample keys
    it generates and can be killed after a number of them."""

    def __init__(self, kill_after: int | None = None) -> None:
        super().__init__(rules=play_rules(EXAMPLE_CALLS), fill_schema=True, model_id="fake-gen",
                         max_concurrency=1)
        self.kill_after = kill_after
        self.keys: list[str] = []

    async def _generate(self, request):  # noqa: ANN001, ANN201
        if self.kill_after is not None and len(self.keys) >= self.kill_after:
            raise Killed()
        self.keys.append(request.sample_key(self.model_id, 0))
        return await super()._generate(request)


def task_model() -> FakeLM:
    """Answers the evaluation queries right only when demonstrations are in the prompt (so
    full and demo-only beat baseline and desc-only); Step 1 and 2's requests as play_rules'
    doc-reading task model does."""

    def answer(call):  # noqa: ANN001, ANN202
        def reply(request, index):  # noqa: ANN001, ANN202
            args = dict(call["arguments"])
            if "Examples of requests" not in prompt_text(request):
                args = {k: v * 3 for k, v in args.items()}
            return tool_call(call["name"], args)
        return reply

    rules = [(q["query"], answer(q["calls"][0])) for q in QUERIES]
    # Step 1 and 2's own requests: right where the doc states what they leave open
    return FakeLM(rules=rules + play_rules(EXAMPLE_CALLS), fill_schema=True, model_id="fake-task")


def write_queries(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "queries.jsonl"
    path.write_text("\n".join(json.dumps(q) for q in QUERIES) + "\n")
    return path


def target(tmp_path: Path):  # noqa: ANN201
    return tools_target(EXAMPLES / "tools.json", write_queries(tmp_path))


def spec(name: str, variants: str, **kwargs) -> SweepSpec:  # noqa: ANN003
    space = SweepSpace.parse(kwargs.pop("space", []), variants)
    return SweepSpec(name, space, preset("quick", seed=3, choose_demo_count=False), **kwargs)
