"""p2p lint --exec: the tools run by code, their enum values, defaults and error messages
checked; tools that may change things never run without consent."""

from __future__ import annotations

import json

from play2prompt.evidence.facts import FactBook
from play2prompt.lint import lint
from play2prompt.lint.messages import NAMES, NOTHING, TEACHES, judge, proposal
from play2prompt.lint.sources import load_targets
from play2prompt.lint.starts import repaired, start_call
from play2prompt.tools.model import Invocation, Tool
from tests.conftest import EXAMPLES

MODULE = '''
def report(kind: str, size: int = 10, fmt: str = "json") -> dict:
    if kind not in ("daily", "weekly"):
        raise ValueError("bad input")
    if not 1 <= size <= 50:
        raise ValueError("size out of range")
    return {"kind": kind, "size": size, "fmt": fmt, "rows": list(range(min(size, 3)))}


def purge_reports(kind: str) -> dict:
    raise RuntimeError("must never run in a test")
'''

TOOLS = {"tools": [
    {"type": "function", "function": {
        "name": "report", "description": "A report of the shop's sales, as rows.",
        "parameters": {"type": "object", "required": ["kind"], "properties": {
            "kind": {"type": "string", "enum": ["daily", "weekly", "monthly"],
                     "description": "report period"},
            "size": {"type": "integer", "default": 5, "description": "rows at most"}}}},
     "executor": {"python": "reports.py:report"}},
    {"type": "function", "function": {
        "name": "purge_reports", "description": "Delete every stored report of a kind.",
        "parameters": {"type": "object", "required": ["kind"], "properties": {
            "kind": {"type": "string", "description": "report period"}}}},
     "executor": {"python": "reports.py:purge_reports"}}]}


def _exec(path, **options):
    targets, found = load_targets(str(path))
    return lint(targets, execute=True, base_dir=path.parent, found=found, **options)


def test_enum_values_defaults_and_errors_checked_writers_never_run(tmp_path):
    (tmp_path / "reports.py").write_text(MODULE)
    (tmp_path / "tools.json").write_text(json.dumps(TOOLS))
    result = _exec(tmp_path / "tools.json")
    found = {f.rule: f for f in result.findings if f.rule.startswith("P2P3")}
    assert "'monthly' is refused" in found["P2P301"].message
    assert "size left out does not act as the documented default 5" in \
        found["P2P302"].message
    assert found["P2P303"].field == "error.kind" and "bad input" in found["P2P303"].message
    # the enum less the value the tool refused
    assert found["P2P303"].proposal == "kind: 'monthly' is not accepted. One of: daily, weekly."
    assert found["P2P304"].field == "error.size"
    assert found["P2P304"].proposal == "size: -5 is not accepted. size must be between 1 " \
        "and 50."      # the range search's fact
    assert result.notes == ("tool 'purge_reports' may change things (named for a write and its "
                            "side effects are not declared); not executed: pass "
                            "--allow-side-effects purge_reports",)
    assert result.calls > 5


def test_the_example_tools_error_that_teaches_nothing_gets_a_better_message():
    """The done-when of issue 73: add_days says "Invalid isoformat string: 'zzqx'"; the
    better message is built from what the tool showed (a date that worked)."""
    result = _exec(EXAMPLES / "tools.json", timeout=30.0)
    bad = [f for f in result.findings if f.rule == "P2P303" and f.tool == "add_days"]
    assert [f.field for f in bad] == ["error.date"]
    assert bad[0].proposal == "date: 'zzqx' is not accepted. Format: YYYY-MM-DD."
    assert "add_days(date='zzqx', days=1)" in bad[0].evidence


def test_an_error_is_judged_by_what_it_says():
    tool = Tool("t", "x", {"type": "object", "properties": {
        "weight": {"type": "integer"}, "unit": {"type": "string"}}})
    call = Invocation("t", {"weight": -1, "unit": "zzqx"})
    assert judge(tool, call, "ValueError: parcel weight out of range") == NAMES
    assert judge(tool, call, "weight must be between 1 and 30000") == TEACHES
    assert judge(tool, call, "weight is in grams") == TEACHES
    assert judge(tool, call, "unknown unit 'zzqx'; use 'kg' or 'lb'") == TEACHES
    assert judge(tool, call, "Invalid isoformat string: 'zzqx'") == NOTHING
    assert judge(tool, call, "invalid literal for int() with base 10: 'zzqx'") == NOTHING
    assert judge(tool, call, "bad request") == NOTHING
    book = FactBook(tool)
    book.observe(Invocation("t", {"weight": 5, "unit": "zzqx"}),
                 __import__("play2prompt.tools.model", fromlist=["Observation"]).Observation
                 .failure("exception", "unknown unit 'zzqx'; units: kg, lb, g"))
    assert proposal(tool, book, "unit", call, "bad request") == \
        "unit: 'zzqx' is not accepted. One of: kg, lb, g."


def test_the_start_call_and_its_repair():
    tool = Tool("t", "x", {"type": "object", "required": ["when", "n", "code", "flag"],
                           "properties": {
        "when": {"type": "string", "format": "date"},
        "n": {"type": "integer", "minimum": 5},
        "code": {"type": "string", "description": "service code, e.g. STD"},
        "flag": {"type": "boolean"}, "skip": {"type": "string"}}})
    start = start_call(tool)
    assert start.arguments == {"when": "2025-01-15", "n": 5, "code": "STD", "flag": False}
    assert repaired(tool, start, FactBook(tool), "n out of range").arguments["n"] == 10
    assert repaired(tool, start, FactBook(tool), "something else") is None


def test_the_error_is_blamed_on_the_argument_whose_value_it_echoes():
    from play2prompt.lint.messages import blamed

    tool = Tool("t", "x", {"type": "object", "properties": {
        "source_timezone": {"type": "string"}, "time": {"type": "string"}}})
    call = Invocation("t", {"source_timezone": "zzqx", "time": "12:00"})
    said = "Invalid timezone: 'No time zone found with key zzqx'"   # "time" is a word of it
    assert blamed(tool, call, said, "source_timezone") == "source_timezone"
    assert blamed(tool, call, "time must be HH:MM", "source_timezone") == "time"
    assert blamed(tool, call, said, None) == "source_timezone"


def test_a_proposal_says_a_refusal_once():
    from play2prompt.tools.model import Observation

    tool = Tool("git_diff", "x", {"type": "object", "properties": {"target": {"type": "string"}}})
    call = Invocation("git_diff", {"target": "test"})
    book = FactBook(tool)
    book.observe(call, Observation.failure("exception", "Ref 'test' did not resolve to an object"))
    said = proposal(tool, book, "target", call, "Ref 'test' did not resolve to an object")
    assert said.startswith("target: 'test' is not accepted") and said.count("'test'") == 1, said
