"""The async API: ``optimize_async`` and ``evaluate_async`` inside a running event loop (a
Jupyter cell, an ``async def`` web handler), and the sync forms called from one."""

from __future__ import annotations

import asyncio
import json

import pytest

import play2prompt
from play2prompt.aio import run_sync
from play2prompt.config import preset
from play2prompt.evaluation.items import EvalItem, EvalSuite
from play2prompt.lm._base import Choice, ToolCall
from play2prompt.lm.fake import FakeLM, play_rules
from play2prompt.store.db import RunStore
from play2prompt.store.meta import Meta
from play2prompt.tools.model import Invocation
from tests.conftest import EXAMPLES
from tests.scale_support import EXAMPLE_CALLS

BMI = Invocation("body_mass_index", {"weight": 70, "height": 175})


def _player() -> FakeLM:
    return FakeLM(rules=play_rules(EXAMPLE_CALLS), fill_schema=True, model_id="fake-player")


def _bmi(example_tools):
    return [t for t in example_tools if t.name == "body_mass_index"]


def test_optimize_async_runs_inside_a_running_event_loop(tmp_path, example_tools):
    checked = {}

    def prepare(store: RunStore) -> None:     # a sync hook that runs its own event loop
        checked["loop"] = asyncio.run(asyncio.sleep(0, "own loop"))
        store.set_meta(Meta.SEED_FACTS, {})

    async def handler():
        asyncio.get_running_loop()             # as in Jupyter or FastAPI: a loop is running
        return await play2prompt.optimize_async(
            _bmi(example_tools), generator=_player(),
            config=preset("quick", seed=3, choose_demo_count=False), runs_dir=tmp_path,
            run_id="in-loop", base_dir=EXAMPLES, prepare=prepare)

    result = asyncio.run(handler())
    assert set(result.tools) == {"body_mass_index"} and result.tools["body_mass_index"].demos
    assert checked == {"loop": "own loop"}
    written = json.loads((tmp_path / "in-loop" / "result.json").read_text(encoding="utf-8"))
    assert set(written["tools"]) == {"body_mass_index"}
    assert result.stats["session"]["llm_calls"] > 0


def test_sync_optimize_called_from_a_running_loop_waits_for_a_worker_thread(tmp_path,
                                                                           example_tools):
    async def cell():
        return play2prompt.optimize(_bmi(example_tools), generator=_player(),
                                    config=preset("quick", seed=3, choose_demo_count=False),
                                    runs_dir=tmp_path, run_id="cell", base_dir=EXAMPLES)

    assert set(asyncio.run(cell()).tools) == {"body_mass_index"}


def test_evaluate_async_inside_a_running_event_loop(tmp_path, example_tools):
    suite = EvalSuite("unit", [EvalItem("q1", "BMI for 70 kg and 1.75 m?", (BMI,), ("exact",),
                                        "bmi", ("body_mass_index",))],
                      {t.name: t for t in example_tools}, base_dir=EXAMPLES)
    lm = FakeLM(default=Choice("", (ToolCall(BMI.name, dict(BMI.arguments)),)))

    async def handler():
        return await play2prompt.evaluate_async(suite, lm=lm, out_dir=tmp_path / "eval")

    result, out = asyncio.run(handler())
    assert out == tmp_path / "eval" and (out / "summary.json").is_file()
    (side,) = result.sides
    assert [r["correct"] for r in side.records] == [True]


def test_run_sync_inside_a_loop_returns_and_raises_in_the_callers_thread():
    async def answer(value):
        await asyncio.sleep(0)
        return value

    async def fails():
        raise ValueError("boom")

    async def caller():
        assert run_sync(answer(7)) == 7
        with pytest.raises(ValueError, match="boom"):
            run_sync(fails())
        return "done"

    assert run_sync(answer(3)) == 3 and asyncio.run(caller()) == "done"


def test_the_package_keeps_its_entry_points_once_their_modules_are_imported():
    import play2prompt.optimize  # noqa: F401 - the submodule of the same name as the function

    assert play2prompt.optimize.__name__ == "optimize" and callable(play2prompt.optimize)
    assert play2prompt.optimize_async.__name__ == "optimize_async"
    assert play2prompt.run_evaluation.__name__ == "run_evaluation"
