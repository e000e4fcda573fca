"""Whether the generator judges and grades is measured at the start of a run, not assumed."""

import asyncio
import json

from play2prompt.config import preset
from play2prompt.lm.fake import FakeLM
from play2prompt.metaprompts import MetaPrompts
from play2prompt.method.calibration import GRADE_CASES, JUDGE_CASES, Calibration, calibrate
from play2prompt.optimize import optimize
from tests.conftest import EXAMPLES


def _judge(request, index):
    """A judge that is right: an output is wrong when it is far off or an error."""
    text = request.messages[-1]["content"]
    wrong = any(bad in text for bad in ('"tip": 1200.0', '"kmh": 0.0167', '"count": 0',
                                        '"error"'))
    return {"err_code": -1 if wrong else 0, "analysis": "checked"}


def _grader(request, index):
    text = request.messages[-1]["content"]
    bad = ("tip_calculator bill" in text or "300 km" in text or "weather" in text)
    return {"score": 1 if bad else 3, "reason": "checked"}


def test_a_judge_that_says_yes_to_everything_is_not_used():
    yes = FakeLM(rules=[("Did this call work", {"err_code": 0, "analysis": "fine"}),
                        ("Grade this example", {"score": 3, "reason": "fine"})])
    cal = asyncio.run(calibrate(yes, MetaPrompts()))
    assert cal == Calibration(False, False, 1.0, 0.0, 1.0, 0.0)
    assert len(yes.requests) == len(JUDGE_CASES) + len(GRADE_CASES)


def test_a_good_judge_is_used_and_the_run_stores_the_measurement(tmp_path, example_tools):
    good = FakeLM(rules=[("Did this call work", _judge), ("Grade this example", _grader)],
                  fill_schema=True)
    cal = asyncio.run(calibrate(good, MetaPrompts()))
    assert cal.judge and cal.grade and cal.judge_bad == 1.0 and cal.grade_bad == 1.0
    tools = [t for t in example_tools if t.name == "body_mass_index"]
    result = optimize(tools, generator=good, config=preset("quick", seed=1, depth=0),
                      runs_dir=tmp_path, run_id="r", base_dir=EXAMPLES)
    meta = json.loads((tmp_path / "r" / "result.json").read_text())
    assert result.run_id == "r" and meta
    from play2prompt.store.runs import open_run

    store = open_run("r", tmp_path, read_only=True)
    assert store.get_meta("calibration")["judge"] is True
    store.close()
    judged = [r for r in good.requests if "Did this call work" in r.messages[-1]["content"]
              and "tip_calculator" not in r.messages[0]["content"]
              and "average_speed" not in r.messages[0]["content"]
              and "word_count" not in r.messages[0]["content"]]
    assert judged                                   # m2 was asked about the tool's outputs


def test_the_user_setting_wins_over_the_measurement(tmp_path, example_tools):
    lm = FakeLM(fill_schema=True)
    tools = [t for t in example_tools if t.name == "body_mass_index"]
    optimize(tools, generator=lm, config=preset("quick", seed=1, depth=0, llm_grading=False),
             runs_dir=tmp_path, run_id="r", base_dir=EXAMPLES)
    assert not any("tip_calculator" in r.messages[0]["content"] for r in lm.requests)
