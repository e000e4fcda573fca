"""BFCL's oracle side: the packaged hand-written docs (play2prompt/adapters/bfcl/
oracle_docs.json) against the real offline specs, and ``p2p eval bfcl --oracle`` on the fake
wheel of test_bfcl.py."""

import json
import os
from pathlib import Path

import pytest

from play2prompt.adapters.bfcl.data import default_data_dir, download, find_wheel, open_data
from play2prompt.adapters.bfcl.suite import load_suite, oracle_docs_path
from play2prompt.cli import main
from play2prompt.errors import UserError
from play2prompt.evaluation.items import EvalItem, EvalSuite, side_for
from play2prompt.evaluation.runner import EvalSettings
from play2prompt.evaluation.session import EvalOptions, load_oracle, run_evaluation
from play2prompt.lm._base import Choice, ToolCall
from play2prompt.lm.fake import FakeLM
from play2prompt.tools.model import Invocation, Tool
from play2prompt.tools.types import normalize_schema
from tests.adapters.bfcl_skeleton import FIXTURE_NAME, offline_skeleton, without_texts
from tests.adapters.test_bfcl import FIXTURES, make_wheel

SKELETON = json.loads((FIXTURES / FIXTURE_NAME).read_text())
FUNCTIONS = SKELETON["functions"]
BFCL_TEXT = "BFCL's own text"


@pytest.fixture
def data_dir(tmp_path):
    make_wheel(tmp_path / "bfcl")
    return tmp_path / "bfcl"


def packaged() -> dict:
    return json.loads(oracle_docs_path().read_text(encoding="utf-8"))


def canonical(function: dict) -> dict:
    """The parameters most questions that call the function give it (most questions that
    show it, for a function no ground truth calls)."""
    return max(function["variants"], key=lambda v: (len(v["ground_truth_questions"]),
                                                    len(v["questions"])))["parameters"]


def with_bfcl_texts(schema):
    """A question's spec as the task model would see it: BFCL's texts at every level."""
    if isinstance(schema, dict):
        out = {k: with_bfcl_texts(v) for k, v in schema.items()}
        if "type" in schema and schema.get("type") not in ("dict", "object"):
            out["description"] = BFCL_TEXT
        return out
    if isinstance(schema, list):
        return [with_bfcl_texts(v) for v in schema]
    return schema


def question_tools() -> list[Tool]:
    """One tool per distinct spec of every function of the offline subset."""
    return [Tool(name, BFCL_TEXT, normalize_schema(with_bfcl_texts(v["parameters"])))
            for name, f in FUNCTIONS.items() for v in f["variants"]]


def test_every_offline_function_with_source_has_an_oracle_doc():
    doc = packaged()
    tools = {t["function"]["name"]: t for t in doc["tools"]}
    with_source = {n for n, f in FUNCTIONS.items() if f["has_source"]}
    called = {n for n, f in FUNCTIONS.items() if any(v["ground_truth_questions"]
                                                     for v in f["variants"])}
    assert SKELETON["offline_questions"] == 134 and len(called) == 32
    assert called <= with_source and len(with_source) == 43
    assert set(tools) == with_source
    # functions BFCL's questions show but its module does not define are listed, with why
    assert set(doc["meta"]["not_documented"]) == set(FUNCTIONS) - with_source
    assert "Apache" in doc["meta"]["license"] and "Berkeley" in doc["meta"]["attribution"]


@pytest.mark.parametrize("name", sorted(n for n, f in FUNCTIONS.items() if f["has_source"]))
def test_oracle_doc_keeps_bfcl_names_and_types_and_documents_every_parameter(name):
    entry = next(t for t in packaged()["tools"] if t["function"]["name"] == name)
    fn = entry["function"]
    function = FUNCTIONS[name]
    # names, parameter names, types, required and defaults exactly as BFCL's spec
    assert without_texts(fn["parameters"]) == canonical(function)
    assert len(fn["description"]) > 40
    for pname, schema in fn["parameters"]["properties"].items():
        assert len(schema["description"]) > 10, pname
        assert without_texts(schema) == {k: v for k, v in schema.items()
                                         if k != "description"}  # texts at the top only
    if function["network"]:
        assert "network" in fn["description"]
    if len(function["variants"]) > 1:
        note = entry["meta"]["spec_note"]
        for variant in function["variants"]:
            for extra in set(variant["parameters"]["properties"]) - set(
                    fn["parameters"]["properties"]):
                assert extra in note  # a parameter only some questions declare is explained


def test_oracle_docs_apply_to_every_question_spec_texts_only():
    tools = question_tools()
    suite = EvalSuite("bfcl", [EvalItem(f"q{i}", "query", (), (), tools=(t.name,), specs=(t,))
                               for i, t in enumerate(tools)],
                      oracle_covers_benchmark=True)
    oracle = {t.name: t.doc for t in load_oracle(oracle_docs_path(), suite)}
    oracle_side = side_for("oracle", None, 0, oracle=load_oracle(oracle_docs_path(), suite))
    for tool in tools:
        (base,) = side_for("baseline", None, 0).tools_for([tool])
        (side,) = oracle_side.tools_for([tool])
        assert base == tool
        assert without_texts(dict(side.parameters)) == without_texts(dict(tool.parameters))
        if tool.name not in oracle:
            assert side == tool
            continue
        doc = oracle[tool.name]
        assert side.description == doc.description != tool.description
        for pname, schema in side.properties.items():
            assert schema["description"] == doc.params.get(pname, BFCL_TEXT)


def test_a_benchmark_wide_oracle_file_is_checked_against_the_suite():
    tools = question_tools()
    gcd = next(t for t in tools if t.name == "math_gcd")
    item = EvalItem("q", "query", (), (), tools=("math_gcd",), specs=(gcd,))
    assert len(load_oracle(oracle_docs_path(), EvalSuite("bfcl", [item],
                                                         oracle_covers_benchmark=True))) == 43
    with pytest.raises(UserError, match="not in the evaluated tools: add_binary_numbers"):
        load_oracle(oracle_docs_path(), EvalSuite("mine", [item]))
    other = Tool("teleport", "x", {"type": "object", "properties": {}})
    stray = EvalItem("q", "query", (), (), tools=("teleport",), specs=(other,))
    with pytest.raises(UserError, match="documents none of the evaluated tools"):
        load_oracle(oracle_docs_path(), EvalSuite("bfcl", [stray],
                                                  oracle_covers_benchmark=True))


GROWTH_DOC = "Compound growth: amount * (1 + rate) ** years."
RATE_DOC = "Yearly rate as a fraction, not a percentage: one sixth is 1/6, 5 % is 0.05."


def fake_oracle_file(path: Path) -> Path:
    """Docs only (no executors) for two of the fake wheel's functions; ``choose`` is used by
    the multiple category only."""
    path.write_text(json.dumps({"tools": [
        {"type": "function", "function": {
            "name": "growth", "description": GROWTH_DOC,
            "parameters": {"type": "dict", "properties": {
                "amount": {"type": "float", "description": "Start amount in dollars."},
                "rate": {"type": "float", "description": RATE_DOC},
                "years": {"type": "integer", "description": "Whole years."}},
                "required": ["amount", "rate", "years"]}}},
        {"type": "function", "function": {
            "name": "choose", "description": "Binomial coefficient n over k.",
            "parameters": {"type": "dict", "properties": {
                "n": {"type": "integer", "description": "Items."},
                "k": {"type": "integer", "description": "Chosen."}}}}},
    ]}))
    return path


def doc_reader(suite):
    """A fake task model that answers with the ground truth, except that it writes the
    growth rate as a percentage unless the rate's doc says it is a fraction."""
    by_query = {i.query: i for i in suite.items}

    def reply(request, index):
        item = by_query[request.messages[-1]["content"]]
        calls = list(item.calls)
        if item.id == "exec_simple_3":
            growth = next(t["function"] for t in request.tools
                          if t["function"]["name"] == "growth")
            if "fraction" not in growth["parameters"]["properties"]["rate"]["description"]:
                calls = [Invocation("growth", {**calls[0].arguments, "rate": 100 / 6})]
        return Choice("", tuple(ToolCall(c.name, dict(c.arguments)) for c in calls),
                      "tool_calls")

    return FakeLM(default=reply)


def tools_in_prompt(record):
    return {t["function"]["name"]: t["function"] for t in record["prompt"]["tools"]}


def test_oracle_side_rewrites_the_item_specs_and_is_scored(data_dir, tmp_path):
    data, root = open_data(data_dir)
    suite = load_suite(data, root, ["simple", "parallel"])
    oracle = fake_oracle_file(tmp_path / "oracle.json")
    result, out = run_evaluation(suite, EvalOptions(oracle=oracle), EvalSettings(),
                                 lm=doc_reader(suite), out_dir=tmp_path / "out")
    sides = {s.side.name: {r["id"]: r for r in s.records} for s in result.sides}
    assert list(sides) == ["baseline", "oracle"]
    base, orc = sides["baseline"]["exec_simple_3"], sides["oracle"]["exec_simple_3"]
    assert not base["correct"] and orc["correct"]
    assert tools_in_prompt(base)["growth"]["description"] == "Compound growth."
    growth = tools_in_prompt(orc)["growth"]
    assert growth["description"] == GROWTH_DOC
    assert growth["parameters"]["properties"]["rate"]["description"] == RATE_DOC
    assert growth["parameters"] == {**tools_in_prompt(base)["growth"]["parameters"],
                                    "properties": growth["parameters"]["properties"]}
    # items whose functions the file does not document get the same prompt on both sides
    assert sides["oracle"]["exec_simple_0"]["prompt"] == sides["baseline"]["exec_simple_0"][
        "prompt"]
    summary = json.loads((out / "summary.json").read_text())
    paired = {p["side"]: p for p in summary["paired"]}
    assert paired["oracle"]["wins"] == ["exec_simple_3"] and paired["oracle"]["losses"] == []


def test_cli_oracle_file_and_packaged_oracle(data_dir, tmp_path, capsys):
    oracle = fake_oracle_file(tmp_path / "oracle.json")
    out = tmp_path / "out"
    code = main(["eval", "bfcl", "--data-dir", str(data_dir), "--task-model", "fake",
                 "--categories", "simple", "--oracle-file", str(oracle), "-o", str(out), "-q"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    records = [json.loads(line) for line in (out / "queries.jsonl").read_text().splitlines()]
    assert {r["side"] for r in records} == {"baseline", "oracle"}
    growth = next(r for r in records if r["side"] == "oracle" and r["id"] == "exec_simple_3")
    assert tools_in_prompt(growth)["growth"]["description"] == GROWTH_DOC
    assert "oracle" in captured.out
    # --oracle alone: the packaged BFCL docs, which name none of the fake wheel's functions
    code = main(["eval", "bfcl", "--data-dir", str(data_dir), "--task-model", "fake",
                 "--categories", "simple", "--oracle", "-o", str(tmp_path / "p"), "-q"])
    err = capsys.readouterr().err
    assert code == 2 and "oracle_docs.json" in err and "documents none" in err
    assert oracle_docs_path().is_file()


@pytest.mark.remote
def test_offline_specs_fixture_and_oracle_match_the_real_wheel():
    """Re-derives the offline specs fixture from the real wheel (downloaded with pip when
    missing; P2P_BFCL_DATA points at another folder) and applies the oracle to every item."""
    where = Path(os.environ.get("P2P_BFCL_DATA") or default_data_dir())
    try:
        find_wheel(where)
    except UserError:
        download(where)
    data, root = open_data(where)
    assert offline_skeleton(data) == SKELETON
    suite = load_suite(data, root)
    assert len(suite.items) == 134
    oracle_side = side_for("oracle", None, 0, oracle=load_oracle(oracle_docs_path(), suite))
    documented = {t["function"]["name"] for t in packaged()["tools"]}
    for item in suite.items:
        for tool in oracle_side.tools_for(suite.item_tools(item)):
            assert (tool.name in documented) == (tool.description != next(
                s for s in item.specs if s.name == tool.name).description)
