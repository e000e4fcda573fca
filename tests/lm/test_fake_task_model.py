"""The scripted fake's task model reads the doc: what it writes depends on what the doc says
of each parameter (a unit, a range, a value's form), not on a phrase only the facts doc has."""

from __future__ import annotations

import asyncio
from typing import Any

from play2prompt.agent.prompt import Demo, TaskPrompter
from play2prompt.lm.fake import FakeLM, play_rules
from play2prompt.tools.model import Invocation, Tool

LOAN = {"principal": 20000, "annual_rate": 4.5, "years": 5}
ZONES = {"time": "09:30", "from_tz": "Europe/Paris", "to_tz": "Asia/Tokyo"}
REQUEST = {"loan_payment": "Please help me with 20000 and 4.5 and 5 for my plans.",
           "convert_timezone": "Please help me with 09:30 and Europe Paris and Asia Tokyo."}


def _tool(name: str, description: str, params: dict[str, str]) -> Tool:
    kinds = {"principal": "number", "annual_rate": "number", "years": "integer"}
    properties = {k: {"type": kinds.get(k, "string"), "description": v}
                  for k, v in params.items()}
    return Tool(name, description, {"type": "object", "properties": properties})


def _call(tool: Tool, demos: tuple[Demo, ...] = ()) -> dict[str, Any]:
    lm = FakeLM(rules=play_rules({"loan_payment": [LOAN], "convert_timezone": [ZONES]}))
    attempt = asyncio.run(TaskPrompter().attempt(lm, [tool], REQUEST[tool.name], demos))
    assert len(attempt.calls) == 1 and attempt.calls[0].name == tool.name
    return dict(attempt.calls[0].arguments)


def test_a_number_is_taken_as_stated_only_where_the_doc_gives_its_unit_or_range():
    bare = _tool("loan_payment", "Loan calculator.",
                 {"principal": "loan amount", "annual_rate": "interest rate", "years": ""})
    assert _call(bare) == {"principal": 200.0, "annual_rate": 0.045, "years": 0.05}
    told = _tool("loan_payment", "Loan calculator. Returns an object with monthly_payment.",
                 {"principal": "loan amount in dollars",
                  "annual_rate": "a percentage between 0 and 100",
                  "years": "Principal and years must be positive."})
    assert _call(told) == LOAN
    # the output's description is no key: a doc that only adds it is read like the bare one
    only_output = _tool("loan_payment", "Loan calculator. Returns an object with "
                        "monthly_payment, total_paid.", {"principal": "loan amount",
                                                         "annual_rate": "interest rate",
                                                         "years": ""})
    assert _call(only_output) == _call(bare)


def test_a_value_said_another_way_is_written_in_the_form_the_doc_shows():
    bare = _tool("convert_timezone", "Time zones.",
                 {"time": "the time", "from_tz": "zone, e.g. EST", "to_tz": ""})
    assert _call(bare) == {"time": "09:30", "from_tz": "Europe Paris", "to_tz": "Asia Tokyo"}
    shown = _tool("convert_timezone", "Time zones.",
                  {"time": "the time", "from_tz": "Use IANA names like 'America/New_York'.",
                   "to_tz": "One of: Asia/Tokyo, Europe/London."})
    assert _call(shown) == ZONES


def test_demos_show_how_calls_are_written():
    bare = _tool("loan_payment", "Loan calculator.",
                 {"principal": "loan amount", "annual_rate": "interest rate", "years": ""})
    demo = Demo("What do I pay on 8000 at 6 for 3 years?",
                (Invocation("loan_payment", {"principal": 8000, "annual_rate": 6, "years": 3}),))
    assert _call(bare, (demo,)) == LOAN
