"""Per-tool statistics of an evaluation: unasked optional arguments and tool confusions."""

import json
from dataclasses import replace

from play2prompt.cli._common import console
from play2prompt.cli._eval_common import print_result
from play2prompt.evaluation.items import EvalItem, EvalSuite, PromptSide
from play2prompt.evaluation.runner import EvalResult, SideResult
from play2prompt.evaluation.session import run_evaluation
from play2prompt.evaluation.tool_stats import (
    MAX_CONFUSION_LINES,
    NO_CALL,
    side_stats,
    stats_lines,
    tool_stats,
)
from play2prompt.lm._base import Choice, ToolCall
from play2prompt.lm.fake import FakeLM
from play2prompt.tools.model import Invocation
from tests.conftest import EXAMPLES

REQUIRED = {"add_days": ["date", "days"], "convert_units": ["value", "from_unit", "to_unit"]}


def call(name, **arguments):
    return {"name": name, "arguments": arguments}


def record(item_id, gold, parsed):
    return {"id": item_id, "gold": gold, "parsed": parsed}


def stats_of(records):
    return side_stats("baseline", records, lambda r: REQUIRED).to_dict()


def test_unasked_optional_argument_counts_only_when_the_gold_does_not_set_it():
    plain = call("add_days", date="2024-01-01", days=3)
    business = call("add_days", date="2024-01-01", days=3, business_days=True)
    stats = stats_of([
        record("q1", [plain], [business]),                  # unasked: counted
        record("q2", [business], [business]),               # the gold sets it: not counted
        record("q3", [plain], [plain]),                     # nothing optional
        record("q4", [plain], [call("convert_units", value=1, from_unit="m", to_unit="ft",
                                    precision=2)]),         # another tool: not counted here
    ])
    assert stats["unasked_optional"] == {
        "add_days": {"calls": 3, "unasked": 1, "arguments": {"business_days": 1}}}


def test_confusion_matrix_rows_are_the_expected_tool_columns_the_first_call():
    units = call("convert_units", value=1, from_unit="m", to_unit="ft")
    days = call("add_days", date="2024-01-01", days=3)
    stats = stats_of([
        record("q1", [units], [units]),
        record("q2", [units], [days, units]),               # the first call decides
        record("q3", [units], []),                          # no call (or no parse)
        record("q4", [days, units], [days]),                # two expected tools: left out
        record("q5", [days, days], [days]),                 # parallel calls of one tool count
    ])
    assert stats["confusion"] == {"add_days": {"add_days": 1},
                                  "convert_units": {NO_CALL: 1, "add_days": 1,
                                                    "convert_units": 1}}


def test_lines_show_non_zero_tools_and_off_diagonal_cells_by_count():
    stats = {
        "baseline": {"unasked_optional": {"add_days": {"calls": 8, "unasked": 6,
                                                       "arguments": {"business_days": 6}},
                                          "loan_payment": {"calls": 4, "unasked": 0,
                                                           "arguments": {}}},
                     "confusion": {"a": {"a": 5, "b": 1, NO_CALL: 3}}},
        "full": {"unasked_optional": {"add_days": {"calls": 8, "unasked": 0, "arguments": {}}},
                 "confusion": {"a": {"a": 9}}},
    }
    lines = stats_lines(stats)
    assert lines[1] == "  add_days: baseline 6/8 (business_days 6); full 0/8"
    assert not any("loan_payment" in line for line in lines)
    assert lines[3:] == [f"  a -> {NO_CALL}: baseline 3, full 0", "  a -> b: baseline 1, full 0"]
    many = {"s": {"confusion": {"g": {f"t{i:02d}": i + 1 for i in range(12)}}}}
    shown = stats_lines(many)
    assert len(shown) == 1 + MAX_CONFUSION_LINES + 1 and shown[1] == "  g -> t11: s 12"
    assert shown[-1] == "  ... 2 more in summary.json"
    assert stats_lines({"s": {"unasked_optional": {}, "confusion": {"g": {"g": 3}}}}) == []


def test_evaluation_writes_and_prints_the_statistics(tmp_path, example_tools):
    days = Invocation("add_days", {"date": "2024-03-01", "days": 10})
    business = Invocation("add_days", {"date": "2024-03-01", "days": 10, "business_days": True})
    units = Invocation("convert_units", {"value": 5, "from_unit": "km", "to_unit": "mi"})
    currency = Invocation("convert_currency", {"amount": 5, "from_currency": "USD",
                                               "to_currency": "EUR"})
    names = ("add_days", "convert_units", "convert_currency")
    items = [EvalItem("q1", "Ten days after March 1?", (days,), ("exact",), "d", names),
             EvalItem("q2", "Ten business days after March 1?", (business,), ("exact",), "d",
                      names),
             EvalItem("q3", "5 km in miles?", (units,), ("exact",), "u", names),
             EvalItem("q4", "5 km in feet?", (units,), ("exact",), "u", names)]
    answers = {"Ten days": [business], "Ten business": [business], "in miles": [currency]}

    def reply(request, index):
        text = request.messages[-1]["content"]
        found = next((calls for key, calls in answers.items() if key in text), None)
        if found is None:
            return Choice("I cannot help with that.")
        return Choice("", tuple(ToolCall(c.name, dict(c.arguments)) for c in found))

    suite = EvalSuite("unit", items, {t.name: t for t in example_tools}, base_dir=EXAMPLES)
    result, out = run_evaluation(suite, lm=FakeLM(default=reply), out_dir=tmp_path / "eval")
    stats = json.loads((out / "summary.json").read_text())["tool_stats"]["baseline"]
    assert stats["unasked_optional"]["add_days"] == {
        "calls": 2, "unasked": 1, "arguments": {"business_days": 1}}
    assert stats["confusion"]["convert_units"] == {"convert_currency": 1, NO_CALL: 1}
    assert "convert_units -> convert_currency: baseline 1" in (out / "summary.md").read_text()
    with console.capture() as captured:
        print_result(result, out)
    printed = captured.get()
    assert "add_days: baseline 1/2 (business_days 1)" in printed
    assert f"convert_units -> {NO_CALL}: baseline 1" in printed


def test_opaque_tools_are_reported_under_their_real_names(example_tools):
    shown = {"add_days": "function_1", "convert_units": "function_2"}
    tools = {shown[t.name]: replace(t, name=shown[t.name]) for t in example_tools
             if t.name in shown}
    gold = Invocation("function_1", {"date": "2024-03-01", "days": 1})
    suite = EvalSuite("opaque", [EvalItem("q1", "A day after March 1?", (gold,), ("exact",),
                                          tools=tuple(tools))], tools, shown_names=shown)
    records = [record("q1", [gold.to_dict()],
                      [call("function_2", value=1, from_unit="m", to_unit="ft"),
                       call("function_1", date="2024-03-01", days=1, business_days=False)])]
    stats = tool_stats(EvalResult(suite, [SideResult(PromptSide("baseline"), records)]))
    assert stats["baseline"] == {
        "unasked_optional": {"add_days": {"calls": 1, "unasked": 1,
                                          "arguments": {"business_days": 1}}},
        "confusion": {"add_days": {"convert_units": 1}}}
