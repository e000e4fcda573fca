"""p2p apply: a run's changed docs written back into the four kinds of source, as a diff that
git applies, every other line byte-identical, and the sources' readers reading the new docs."""

from __future__ import annotations

import importlib.util
import inspect
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from play2prompt.cli import main
from play2prompt.tools.loading import load_tools
from play2prompt.tools.model import Tool
from play2prompt.tools.openapi import load_openapi
from tests.apply.runs import make_run
from tests.conftest import EXAMPLES

HERE = Path(__file__).parent
PETSHOP = HERE.parent / "tools" / "openapi" / "petshop.yaml"
NEW_CONVERT = ("Convert a value between units of length, mass, volume or temperature; units "
               "are abbreviations (km, mi, kg, lb, l, gal, c, f, k).")
EXAMPLES_DOCS = {
    "convert_units": {"description": NEW_CONVERT,
                      "params": {"to_unit": "target unit abbreviation, e.g. mi"},
                      "demos": [("10 km in miles?", {"value": 10, "from_unit": "km",
                                                     "to_unit": "mi"})]},
    "loan_payment": {"params": {"annual_rate": "percent per year (5 means 5 %)"}},
    # the run kept this one: a different doc that must not be written
    "add_days": {"description": "SHOULD NOT APPEAR", "changed": False},
}


def _apply(capsys, *args: str) -> tuple[int, str, str]:
    code = main(["apply", *args])
    out = capsys.readouterr()
    return code, out.out, out.err


def _changed_lines(diff: str) -> tuple[list[str], list[str]]:
    body = [ln for ln in diff.splitlines() if not ln.startswith(("---", "+++"))]
    return ([ln[1:] for ln in body if ln.startswith("-")],
            [ln[1:] for ln in body if ln.startswith("+")])


def _git_apply_check(folder: Path, diff: str) -> None:
    (folder / "change.diff").write_text(diff)
    subprocess.run(["git", "apply", "--check", "change.diff"], cwd=folder, check=True)


def _same_elsewhere(before: str, after: str, removed: list[str]) -> None:
    """Every line of ``before`` not removed by the diff is in ``after``, in order, as is."""
    kept = [ln for ln in before.splitlines() if ln not in removed]
    it = iter(after.splitlines())
    assert all(any(ln == other for other in it) for ln in kept)


@pytest.fixture
def examples(tmp_path, monkeypatch):
    folder = tmp_path / "src"
    folder.mkdir()
    for name in ("tools.json", "tools.py"):
        shutil.copy(EXAMPLES / name, folder / name)
    monkeypatch.chdir(folder)
    run = make_run(tmp_path / "runs", load_tools(folder / "tools.json"), EXAMPLES_DOCS)
    return folder, ["--runs-dir", str(tmp_path / "runs"), run]


def test_tools_json(examples, capsys):
    folder, run = examples
    before = (folder / "tools.json").read_text()
    code, diff, err = _apply(capsys, *run[2:], *run[:2], "--to", "tools.json")
    assert code == 0 and diff.startswith("--- a/tools.json\n+++ b/tools.json\n")
    _git_apply_check(folder, diff)
    removed, added = _changed_lines(diff)
    assert len(removed) == len(added) == 3          # one line per text: nothing else moved
    assert "SHOULD NOT APPEAR" not in diff
    assert "demos left out: a tools.json has no field for them" in err
    assert (folder / "tools.json").read_text() == before        # no --write: untouched
    assert _apply(capsys, *run[2:], *run[:2], "--to", "tools.json", "--write")[0] == 0
    after = (folder / "tools.json").read_text()
    _same_elsewhere(before, after, removed)
    tools = {t.name: t for t in load_tools(folder / "tools.json")}
    assert tools["convert_units"].description == NEW_CONVERT
    assert tools["convert_units"].properties["to_unit"]["description"] == \
        "target unit abbreviation, e.g. mi"
    assert tools["loan_payment"].properties["annual_rate"]["description"] == \
        "percent per year (5 means 5 %)"
    assert tools["loan_payment"].description == "Loan calculator."
    assert tools["add_days"].description == "Date calculator."
    assert _apply(capsys, *run[2:], *run[:2], "--to", "tools.json")[1] == ""  # nothing left


def test_a_text_the_run_never_read_is_left_with_a_note(examples, capsys):
    """The run started from tools.json's "Converts units."; tools.py's docstring says more.
    Without --force that docstring stays and a note says why; a parameter the docstring has
    no text for still gets the run's."""
    folder, run = examples
    code, diff, err = _apply(capsys, *run[2:], *run[:2], "--to", "tools.py")
    assert code == 0 and "tools.py (python): convert_units, loan_payment" in err
    assert ("convert_units: the source's description is not the one the run started from; "
            "left as it is (--force replaces it)") in err
    _, added = _changed_lines(diff)
    assert "Convert a value between units" not in diff
    assert '    """Convert between length, mass, volume and temperature units (abbreviations ' \
        'only).' in added
    assert any("to_unit: target unit abbreviation" in line for line in added)
    assert any("annual_rate: percent per year" in line for line in added)


def test_python_module_docstrings(examples, capsys):
    folder, run = examples
    before = (folder / "tools.py").read_text()
    code, diff, err = _apply(capsys, *run[2:], *run[:2], "--to", "tools.py", "--force")
    assert code == 0 and "tools.py (python): convert_units, loan_payment" in err
    _git_apply_check(folder, diff)
    removed, _ = _changed_lines(diff)
    assert len(removed) == 2 and removed[0] == (    # the one-line docstrings become blocks
        '    """Convert between length, mass, volume and temperature units '
        '(abbreviations only)."""') and removed[1].startswith('    """Monthly payment')
    assert "SHOULD NOT APPEAR" not in diff
    assert _apply(capsys, *run[2:], *run[:2], "--to", "tools.py", "--write", "--force")[0] == 0
    after = (folder / "tools.py").read_text()
    _same_elsewhere(before, after, removed)
    spec = importlib.util.spec_from_file_location("applied_tools", folder / "tools.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)                       # still imports
    doc = inspect.getdoc(module.convert_units)
    assert " ".join(doc.split("Args:")[0].split()) == NEW_CONVERT
    assert "to_unit: target unit abbreviation, e.g. mi" in doc
    assert "annual_rate: percent per year (5 means 5 %)" in inspect.getdoc(module.loan_payment)
    assert module.add_days.__doc__.startswith("Add (or subtract) days")   # kept
    assert module.convert_units(10, "km", "mi")["unit"] == "mi"


def test_mcp_server_decorators_and_docstrings(tmp_path, monkeypatch, capsys):
    pytest.importorskip("mcp")
    monkeypatch.chdir(tmp_path)
    shutil.copy(HERE / "mcp_server.py", tmp_path / "server.py")
    before = (tmp_path / "server.py").read_text()
    tools = [Tool("loan", "Loan calculator.", {"type": "object", "properties": {
                 "principal": {"type": "number", "description": "loan amount"},
                 "annual_rate": {"type": "number"}, "years": {"type": "integer"}}}),
             Tool("add_days", "Date calculator.", {"type": "object", "properties": {
                 "date": {"type": "string"}, "days": {"type": "integer"}}})]
    run = make_run(tmp_path / "runs", tools, {
        "loan": {"description": "Monthly payment of a loan, in dollars.",
                 "params": {"principal": "amount borrowed, in dollars"}},
        "add_days": {"description": "Add days to an ISO date (YYYY-MM-DD); negative days go "
                                    "back."}})
    args = [run, "--runs-dir", str(tmp_path / "runs"), "--to", "server.py"]
    code, diff, _ = _apply(capsys, *args)
    assert code == 0
    _git_apply_check(tmp_path, diff)
    removed, added = _changed_lines(diff)
    assert len(removed) == len(added) == 3
    assert any("# the author's comment" in ln and 'description="Monthly payment' in ln
               for ln in added)
    assert any("# dollars" in ln and "amount borrowed, in dollars" in ln for ln in added)
    assert _apply(capsys, *args, "--write")[0] == 0
    _same_elsewhere(before, (tmp_path / "server.py").read_text(), removed)
    out = tmp_path / "imported.json"
    assert main(["tools", "from-mcp", "-o", str(out), "--", sys.executable, "server.py"]) == 0
    served = {t.name: t for t in load_tools(out, check_executors=False)}
    assert served["loan"].description == "Monthly payment of a loan, in dollars."
    assert served["loan"].properties["principal"]["description"] == \
        "amount borrowed, in dollars"
    assert served["add_days"].description.strip() == \
        "Add days to an ISO date (YYYY-MM-DD); negative days go back."


def test_openapi_yaml_keeps_comments_and_order(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    shutil.copy(PETSHOP, tmp_path / "petshop.yaml")
    before = (tmp_path / "petshop.yaml").read_text()
    run = make_run(tmp_path / "runs", load_openapi(tmp_path / "petshop.yaml"), {
        "listPets": {"description": "List the shop's pets, at most `limit`.\n\nFilter by "
                                    "status: available or sold.",
                     "params": {"status": "available or sold"},
                     "demos": [("3 sold pets", {"status": "sold", "limit": 3})]},
        "createPet": {"params": {"name": "the pet's name, e.g. Rex", "tag": "one tag"},
                      "demos": [("add Rex", {"name": "Rex"})]},
        "getPet": {"description": "One pet: its id, name, status and tags.",
                   "changed": False}})
    args = [run, "--runs-dir", str(tmp_path / "runs"), "--to", "petshop.yaml"]
    code, diff, _ = _apply(capsys, *args)
    assert code == 0
    _git_apply_check(tmp_path, diff)
    removed, _ = _changed_lines(diff)
    assert removed == ["          description: status",
                       "        name: {type: string, description: the name}",
                       "        tag: {type: string}"]
    assert _apply(capsys, *args, "--write")[0] == 0
    after = (tmp_path / "petshop.yaml").read_text()
    _same_elsewhere(before, after, removed)
    assert "# an enum, documented in one word" in after and "x-side-effects: false     #" in after
    tools = {t.name: t for t in load_openapi(tmp_path / "petshop.yaml")}
    assert tools["listPets"].description.startswith("List the shop's pets, at most `limit`.")
    assert tools["listPets"].properties["status"]["description"] == "available or sold"
    assert tools["createPet"].properties["name"]["description"] == "the pet's name, e.g. Rex"
    assert tools["getPet"].description == "Info for a pet."           # kept by the run
    from ruamel.yaml import YAML

    spec = YAML(typ="safe").load(after)
    status = spec["paths"]["/pets"]["get"]["parameters"][1]
    assert status["examples"] == {"p2p-1": {"summary": "3 sold pets", "value": "sold"}}
    body = spec["paths"]["/pets"]["post"]["requestBody"]["content"]["application/json"]
    assert body["examples"]["p2p-1"]["value"] == {"name": "Rex"}


def test_openapi_json_keeps_its_indent(tmp_path):
    from play2prompt.apply.changes import DocChange
    from play2prompt.apply.openapi_doc import edit_openapi_json

    spec = {"openapi": "3.1.0", "paths": {"/t": {"get": {
        "operationId": "t", "summary": "T", "parameters": [
            {"name": "q", "in": "query", "schema": {"type": "string"}}]}}}}
    text = json.dumps(spec, indent=3) + "\n"
    edited = edit_openapi_json(text, [DocChange("t", "Time now.", {"q": "a zone"})], "s.json")
    assert json.loads(edited.text)["paths"]["/t"]["get"]["description"] == "Time now."
    assert '\n                  "description": "a zone",\n' in edited.text
    assert edited.text.count("\n") == text.count("\n") + 2     # a line for each, indented alike


def test_a_source_of_no_known_kind_is_one_line(examples, capsys):
    folder, run = examples
    (folder / "notes.txt").write_text("x")
    code, _, err = _apply(capsys, *run[2:], *run[:2], "--to", "notes.txt")
    assert code == 2 and "not a source p2p apply edits" in err


def test_only_the_texts_the_run_read_are_replaced():
    from play2prompt.apply.changes import DocChange
    from play2prompt.apply.sources import edit_tools_json

    change = DocChange("t", "New text.", {"a": "new a", "b": "new b", "c": "new c"},
                       before=("Old  text.", {"a": "old a", "b": ""}))
    same, notes = change.against("Old text.\n", {"a": "old   a", "b": "", "c": ""})
    assert same == change and notes == ()               # spacing aside, blanks filled
    kept, notes = change.against("Edited since.", {"a": "edited a", "b": "", "c": "c"})
    assert kept.description is None and dict(kept.params) == {"b": "new b"}
    assert [n.split(":")[0] for n in notes] == ["t", "t.a", "t.c"]
    forced = DocChange("t", "New text.", {"a": "new a"})             # --force: before=None
    assert forced.against("Edited since.", {"a": "edited a"}) == (forced, ())
    text = json.dumps([{"type": "function", "function": {
        "name": "t", "description": "Edited since.", "parameters": {
            "type": "object", "properties": {"b": {"type": "string"}}}}}])
    edited = edit_tools_json(text, [change], "tools.json")
    tool = json.loads(edited.text)[0]["function"]
    assert tool["description"] == "Edited since." and edited.written == ("t",)
    assert tool["parameters"]["properties"]["b"]["description"] == "new b"
    assert any("left as it is" in n for n in edited.notes)
