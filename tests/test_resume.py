"""A run killed after N LLM calls resumes without repeating a call and ends identical."""

import json

import pytest

from play2prompt.config import preset
from play2prompt.lm.fake import FakeLM
from play2prompt.method.calibration import GRADE_CASES, JUDGE_CASES
from play2prompt.optimize import optimize
from tests.conftest import EXAMPLES


class Killed(BaseException):
    """Stands in for SIGKILL / Ctrl-C in the middle of a run."""


class CountingLM(FakeLM):
    def __init__(self, kill_after=None):
        super().__init__(fill_schema=True, model_id="fake", max_concurrency=1)
        self.kill_after = kill_after
        self.keys = []

    async def _generate(self, request):
        if self.kill_after is not None and len(self.keys) >= self.kill_after:
            raise Killed()
        self.keys.append(request.sample_key(self.model_id, 0))
        return await super()._generate(request)


def _tools(example_tools):
    return [t for t in example_tools if t.name in ("loan_payment", "body_mass_index")]


def _prompts(run_dir):
    data = json.loads((run_dir / "result.json").read_text())
    return {n: (t["doc"], t["demos"]) for n, t in data["tools"].items()}


def test_killed_run_resumes_without_repeating_calls(tmp_path, example_tools):
    cfg = preset("quick", seed=7)
    full_lm = CountingLM()
    full = optimize(_tools(example_tools), generator=full_lm, config=cfg,
                    runs_dir=tmp_path, run_id="full", base_dir=EXAMPLES)
    total = len(full_lm.keys)
    assert total > 20

    first = CountingLM(kill_after=total // 2)
    with pytest.raises(Killed):
        optimize(_tools(example_tools), generator=first, config=cfg, runs_dir=tmp_path,
                 run_id="killed", base_dir=EXAMPLES)
    second = CountingLM()
    resumed = optimize(generator=second, resume="killed", runs_dir=tmp_path)

    assert set(first.keys).isdisjoint(second.keys)           # no call made twice
    assert len(first.keys) + len(second.keys) == total       # nothing missing either
    assert set(first.keys) | set(second.keys) == set(full_lm.keys)
    assert _prompts(resumed.run_dir) == _prompts(full.run_dir)
    # Everything the killed run asked is replayed from its log, but the calibration, which
    # the killed run stored and the resumed one reads back.
    calibration = len(JUDGE_CASES) + len(GRADE_CASES)
    assert resumed.stats["session"]["cache_hits"] >= len(first.keys) - calibration

    # Resuming a finished run makes no call at all.
    third = CountingLM()
    optimize(generator=third, resume="killed", runs_dir=tmp_path)
    assert third.keys == []


def test_a_run_whose_tools_folder_is_gone_resumes_from_the_one_given(tmp_path, example_tools):
    import shutil

    from play2prompt.errors import UserError

    moved = tmp_path / "project"
    shutil.copytree(EXAMPLES, moved)
    tools = [t for t in example_tools if t.name == "body_mass_index"]
    cfg = preset("quick", seed=7)
    with pytest.raises(Killed):
        optimize(tools, generator=CountingLM(kill_after=5), config=cfg, runs_dir=tmp_path,
                 run_id="r", base_dir=moved)
    shutil.rmtree(moved)
    with pytest.raises(UserError, match=r"run r: the folder its tools ran from .*project.* is "
                                        r"gone; resume with the tools file"):
        optimize(generator=CountingLM(), resume="r", runs_dir=tmp_path)
    resumed = optimize(generator=CountingLM(), resume="r", runs_dir=tmp_path, base_dir=EXAMPLES)
    (result,) = json.loads((resumed.run_dir / "result.json").read_text())["tools"].values()
    assert result["stats"]["valid_invocations"] > 0     # its calls ran, from the given folder
