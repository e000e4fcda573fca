"""Can the generator judge? A short calibration at the start of a run decides, by measurement,
whether the output-plausibility judge (m2) and the request grade (m5) are asked of it.

The generator judges a few known-good and known-bad cases on made-up tools (a tip calculator, a
speed calculator, a word counter: none of them a tool a user optimizes, so the calibration does
not tune to anyone's tools). A judgement is used only when the generator gets at least
``THRESHOLD`` of the good cases and of the bad cases right (a model that calls everything fine
is not a judge). The outcome is stored in the run, so a resumed run judges the same way.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

from play2prompt.jsonutil import derive_seed
from play2prompt.lm.structured import chat_json, object_schema

THRESHOLD = 0.75
JUDGE_SCHEMA = object_schema({
    "err_code": {"type": "integer", "enum": [0, -1]},
    "analysis": {"type": "string", "maxLength": 300},
})
# The verdict alone: JUDGE_SCHEMA's first field. Greedy decoding writes the same err_code with
# or without the analysis after it, so the analysis is asked only where it is read (a failure).
VERDICT_SCHEMA = object_schema({"err_code": JUDGE_SCHEMA["properties"]["err_code"]})
VERDICT_TOKENS = 16
GRADE_SCHEMA = object_schema({"score": {"type": "integer", "enum": [1, 2, 3]},
                              "reason": {"type": "string", "maxLength": 300}})

_TIP = ("Tool: tip_calculator\nDescription: Tip and total of a restaurant bill.\nParameters:\n"
        "  - bill (number, required): the bill amount\n"
        "  - tip_percent (number, required): tip as a percentage, 15 means 15 %")
_SPEED = ("Tool: average_speed\nDescription: Average speed of a trip.\nParameters:\n"
          "  - distance_km (number, required): distance in kilometres\n"
          "  - hours (number, required): duration in hours")
_WORDS = ("Tool: word_count\nDescription: Counts the words of a text.\nParameters:\n"
          "  - text (string, required): the text")

# (doc, call, output, the output is right)
JUDGE_CASES: tuple[tuple[str, str, str, bool], ...] = (
    (_TIP, "tip_calculator(bill=80, tip_percent=15)", '{"tip": 12.0, "total": 92.0}', True),
    (_TIP, "tip_calculator(bill=80, tip_percent=15)", '{"tip": 1200.0, "total": 1280.0}',
     False),
    (_SPEED, "average_speed(distance_km=120, hours=2)", '{"kmh": 60.0}', True),
    (_SPEED, "average_speed(distance_km=120, hours=2)", '{"kmh": 0.0167}', False),
    (_WORDS, "word_count(text='the cat sat down')", '{"count": 4}', True),
    (_WORDS, "word_count(text='the cat sat down')", '{"count": 0}', False),
    (_TIP, "tip_calculator(bill=40, tip_percent=10)", '{"tip": 4.0, "total": 44.0}', True),
    (_SPEED, "average_speed(distance_km=300, hours=3)", '{"error": "hours out of range"}',
     False),
)
# (doc, request, call, output, the example is good)
GRADE_CASES: tuple[tuple[str, str, str, str, bool], ...] = (
    (_TIP, "Our dinner came to 80 dollars and I want to leave 15 percent. What's the tip?",
     "tip_calculator(bill=80, tip_percent=15)", '{"tip": 12.0, "total": 92.0}', True),
    (_TIP, "tip_calculator bill=80 tip_percent=15",
     "tip_calculator(bill=80, tip_percent=15)", '{"tip": 12.0, "total": 92.0}', False),
    (_SPEED, "I drove 120 km in 2 hours. How fast was I going on average?",
     "average_speed(distance_km=120, hours=2)", '{"kmh": 60.0}', True),
    (_SPEED, "I drove 300 km in 5 hours. What was my average speed?",
     "average_speed(distance_km=120, hours=2)", '{"kmh": 60.0}', False),
    (_WORDS, "How many words are in the sentence 'the cat sat down'?",
     "word_count(text='the cat sat down')", '{"count": 4}', True),
    (_WORDS, "What is the weather in Paris tomorrow?",
     "word_count(text='the cat sat down')", '{"count": 4}', False),
)


@dataclass(frozen=True)
class Calibration:
    judge: bool                  # ask m2 whether an output is plausible
    grade: bool                  # ask m5 to grade requests
    judge_good: float = 0.0      # share of right judgements on good / bad cases
    judge_bad: float = 0.0
    grade_good: float = 0.0
    grade_bad: float = 0.0
    forced: bool = False         # set by the user, not measured

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Calibration:
        return cls(**{k: data[k] for k in cls.__dataclass_fields__ if k in data})

    @classmethod
    def fixed(cls, on: bool) -> Calibration:
        return cls(on, on, forced=True)


def _share(results: list[tuple[bool, bool]], good: bool) -> float:
    wanted = [ok for expected, ok in results if expected is good]
    return sum(wanted) / len(wanted) if wanted else 0.0


def calibration_cases() -> tuple[Any, ...]:
    """What a calibration asks (its cases and threshold): part of its cache key."""
    return (THRESHOLD, JUDGE_CASES, GRADE_CASES)


async def calibrate(generator: Any, prompts: Any) -> Calibration:
    """Ask the generator the calibration cases (temperature 0) and decide."""
    async def judge(i: int, case: tuple[str, str, str, bool]) -> tuple[bool, bool]:
        doc, call, output, right = case
        (out,), _ = await chat_json(generator, prompts.render("m2", doc=doc, call=call,
                                                              output=output),
                                    VERDICT_SCHEMA, role="generator",
                                    seed=derive_seed("calibration", "m2", i), temperature=0.0,
                                    max_tokens=VERDICT_TOKENS)
        said_right = isinstance(out, Mapping) and out.get("err_code") == 0
        return right, said_right == right

    async def grade(i: int, case: tuple[str, str, str, str, bool]) -> tuple[bool, bool]:
        doc, query, call, output, good = case
        (out,), _ = await chat_json(generator, prompts.render("m5", doc=doc, query=query,
                                                              call=call, output=output),
                                    GRADE_SCHEMA, role="generator",
                                    seed=derive_seed("calibration", "m5", i), temperature=0.0,
                                    max_tokens=200)
        score = out.get("score") if isinstance(out, Mapping) else None
        return good, (score == 3) if good else (score is not None and score <= 2)

    judged, graded = await asyncio.gather(
        asyncio.gather(*(judge(i, c) for i, c in enumerate(JUDGE_CASES))),
        asyncio.gather(*(grade(i, c) for i, c in enumerate(GRADE_CASES))))
    jg, jb = _share(list(judged), True), _share(list(judged), False)
    gg, gb = _share(list(graded), True), _share(list(graded), False)
    return Calibration(jg >= THRESHOLD and jb >= THRESHOLD, gg >= THRESHOLD and gb >= THRESHOLD,
                       round(jg, 3), round(jb, 3), round(gg, 3), round(gb, 3))
