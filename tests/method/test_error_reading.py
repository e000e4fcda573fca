"""The reader's rules on the messages that showed them wrong (issue 29): a number is tied to
the parameter the error names, a quoted value the tool calls allowed is accepted, two quoted
choices are a list, a structured error names its parameter by where it points."""

from __future__ import annotations

import difflib

from play2prompt.evidence.error_reading import read_error
from play2prompt.evidence.error_text import numbers, unwrap, value_list, without, words
from play2prompt.evidence.facts import FactBook
from play2prompt.tools.model import Invocation, Observation, Tool


def _tool(name: str, **types: str) -> Tool:
    return Tool(name, "", {"type": "object", "properties": {k: {"type": t}
                                                            for k, t in types.items()}})


def _book(tool: Tool, args: dict, error: str) -> FactBook:
    book = FactBook(tool)
    book.observe(Invocation(tool.name, args), Observation.failure("exception", error))
    return book


def test_a_number_belongs_to_the_parameter_the_error_names():
    args = {"word": "appel", "possibilities": ["apple"], "n": 1, "cutoff": 1.08}
    try:
        difflib.get_close_matches(**args)
    except ValueError as exc:
        error = f"ValueError: {exc}"
    assert error == "ValueError: cutoff must be in [0.0, 1.0]: 1.08"
    tool = _tool("get_close_matches", word="string", possibilities="array", n="integer",
                 cutoff="number")
    book = _book(tool, args, error)
    assert book.of("n") == []
    assert [f.text for f in book.of("cutoff") if f.kind == "rule"] == [
        "Cutoff must be in [0.0, 1.0]."]
    assert book.rejected("cutoff") == {"1.08"}


def test_bounds_are_not_echoes_and_stripping_a_value_keeps_other_numbers():
    assert numbers("cutoff must be in [0.0, 1.0]: 1.08") == ["1.08"]
    assert numbers("month must be in 1..12, not 13") == ["13"]
    assert numbers("3 is greater than the maximum of 2") == ["3"]
    assert without("n must be > 0: 0", 0) == "n must be > 0"
    assert without("cutoff must be in [0.0, 1.0]: 1", 1) == "cutoff must be in [0.0, 1.0]"


def test_the_one_allowed_value_is_accepted():
    tool = _tool("git_status", repo_path="string")
    book = _book(tool, {"repo_path": "/home/me/other"},
                 "Repository path '/home/me/other' is outside the allowed repository "
                 "'/tmp/repo'")
    assert book.accepted("repo_path") == ("/tmp/repo",)
    assert book.rejected("repo_path") == {"/home/me/other"}
    assert book.narrowed_schema(tool.parameters)["properties"]["repo_path"]["enum"] == [
        "/tmp/repo"]


def test_two_choices_are_a_list_when_offered_as_choices():
    assert value_list("order must be 'asc' or 'desc'") == ("asc", "desc")
    assert value_list('Invalid option: expected one of "asc"|"desc"') == ("asc", "desc")
    assert value_list("must be 'green', 'red' or 'blue'") == ("green", "red", "blue")
    assert value_list("weight must be positive or zero") == ()
    assert value_list("sort_by must be one of price, rating, name") == (
        "price", "rating", "name")


def test_a_list_in_brackets_or_after_use_is_accepted_and_a_number_set_too():
    """Python's repr of a tuple, list or dict_keys after a list's intro, an advice that lists
    ("use STD, EXP or NXT"), quoted names that open a longer list; a number parameter's listed
    numbers are its accepted values, the call's own number rejected."""
    assert value_list("must be one of (1, 2, 4, 12), got 5") == ("1", "2", "4", "12")
    assert value_list("Use one of: dict_keys(['a', 'b', 'c'])") == ("a", "b", "c")
    assert value_list("use STD, EXP or NXT") == ("STD", "EXP", "NXT")
    assert value_list("either 'x', 'y', or a callable, 'z' was supplied") == ("x", "y")
    assert value_list("use a positive number") == ()
    tool = _tool("savings", compounding="integer")
    book = _book(tool, {"compounding": -12},
                 "ValueError: compounding must be one of (1, 2, 4, 12, 52, 365), got -12")
    assert book.accepted("compounding") == ("1", "2", "4", "12", "52", "365")
    assert book.rejected("compounding") == {"-12"}
    ranged = _book(_tool("zone", zone="integer"), {"zone": 9}, "ValueError: zone must be 1-5")
    assert ranged.accepted("zone") == ()          # a range is no list
    ship = _book(_tool("ship", service="string"), {"service": "express"},
                 "ValueError: unknown service 'express'; use STD, EXP or NXT")
    assert ship.accepted("service") == ("STD", "EXP", "NXT")
    assert ship.rejected("service") == {"express"}


def test_a_structured_error_names_its_parameter_by_loc():
    tool = _tool("search", q="string", order="string", limit="integer")
    body = ('{"detail":[{"type":"literal_error","loc":["query","order"],"msg":"Input should '
            'be \'asc\' or \'desc\'","input":"up"},{"type":"greater_than_equal","loc":["query",'
            '"limit"],"msg":"Input should be greater than or equal to 1","input":"0"}]}')
    said = read_error(tool, {"q": "up", "order": "up", "limit": 0},
                      f"HTTP 422 from http://h/search: {body}")
    got = {(r.param, r.kind, r.values) for r in said}
    assert got == {("order", "accepts", ("asc", "desc")), ("limit", "rule", ()),
                   ("limit", "rejects", ("0",))}          # q shares order's value: not blamed


def test_a_pair_of_values_is_not_two_rejections():
    tool = _tool("create_pull", head="string", base="string")
    assert read_error(tool, {"head": "feature", "base": "main"},
                      "No commits between main and feature") == []


def test_wrappers_are_not_the_tools_words_and_the_word_lists_are_data():
    assert unwrap("MCP error -32602: Error executing tool add: x must be positive") == (
        "x must be positive", False)
    assert unwrap("HTTP 400 from https://api/x/octo: {}")[0] == "{}"
    assert unwrap("ValueError: a ...[truncated: 900 chars]") == ("a", True)
    assert {"wrappers", "internal", "constraint", "codes", "signature"} <= set(words())


def test_access_and_limits_are_not_about_the_arguments():
    tool = _tool("get_user", username="string")
    for error in ("HTTP 401 from https://api/users/ada: Unauthorized",
                  "HTTP 429 from https://api/users/ada: rate limit exceeded, try again later",
                  "HTTP 403 from https://api/users/ada: API key not valid"):
        assert read_error(tool, {"username": "ada"}, error) == []
    said = read_error(tool, {"username": "ada"}, "HTTP 404 from https://api/users/ada: no "
                                                 "user named 'ada'")
    assert [(r.param, r.kind) for r in said] == [("username", "rejects")]


def test_a_value_the_list_holds_in_another_case_is_not_rejected():
    """convert_currency's "unknown currency 'YEN'; known: AUD, ..., GBP, ..." with
    to_currency='gbp': the tool upper-cases its codes, and the list holds GBP."""
    tool = _tool("convert_currency", from_currency="string", to_currency="string")
    book = _book(tool, {"from_currency": "yen", "to_currency": "gbp"},
                 "ValueError: unknown currency 'YEN'; known: AUD, CAD, EUR, GBP, USD")
    assert book.rejected("from_currency") == {"yen"}
    assert book.rejected("to_currency") == set()


def test_a_value_cut_from_the_end_of_a_clause_leaves_a_rule_only_when_the_clause_is_whole():
    colour = _tool("contrast", foreground="string", background="string")
    got = read_error(colour, {"foreground": "lightblue", "background": "#ffffff"},
                     "ValueError: expected a hex colour like '#1a2b3c', got 'lightblue'")
    assert {(r.kind, r.text) for r in got} == {
        ("rule", "expected a hex colour like '#1a2b3c'"),
        ("rejects", "'lightblue' is rejected (expected a hex colour like '#1a2b3c')")}
    assert without("expected int but got 'abc'", "abc") == "expected int"


def test_a_clause_about_a_pair_of_values_is_no_rule_of_either():
    units = _tool("convert", value="number", from_unit="string", to_unit="string")
    error = "ValueError: cannot convert {!r} to {!r}; units: c, cm, km, m"
    to_bad = read_error(units, {"value": 8, "from_unit": "m", "to_unit": "zzqx"},
                        error.format("m", "zzqx"))
    from_bad = read_error(units, {"value": 8, "from_unit": "zzqx", "to_unit": "km"},
                          error.format("zzqx", "km"))
    # "cannot convert 'm' to" and "cannot convert to 'km'" would tell a reader that m or km
    # is refused; what is true is the rejection and the list
    assert [r for r in to_bad + from_bad if r.kind == "rule"] == []
    assert {r.text for r in to_bad if r.kind == "rejects"} == {
        "'zzqx' is rejected (cannot convert 'm' to 'zzqx')"}
    assert {r.text for r in from_bad if r.kind == "rejects"} == {
        "'zzqx' is rejected (cannot convert 'zzqx' to 'km')"}
    assert {r.values for r in to_bad if r.kind == "accepts"} == {("c", "cm", "km", "m")}


def test_python_s_own_messages_are_no_facts():
    """The opaque set's shipped doc said "int() argument must be a string, a bytes-like object
    or a real number, not 'complex'" (issue 72): Python's words about int(), not the tool's."""
    tool = _tool("f", x="number")
    for error in ["TypeError: int() argument must be a string, a bytes-like object or a real "
                  "number, not 'complex'", "ufunc 'add' did not contain a loop with signature "
                  "matching types"]:
        assert read_error(tool, {"x": "1+2j"}, error) == []
    assert read_error(tool, {"x": "a"}, "x must be a real number, not 'str'")   # the tool's
