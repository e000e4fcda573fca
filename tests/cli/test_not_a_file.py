"""What is named as a file but is none (a folder, a device, a named pipe) says so on one line,
never "no such file" and never a hang; what ``--resume`` is given must be the run's own; a
sqlite tool's SQL is compiled against its database before play."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3

import pytest

from play2prompt.cli import main
from tests.conftest import EXAMPLES

OPT = ["--generator", "fake", "--preset", "quick", "--no-docs", "-q"]


@pytest.fixture
def specials(tmp_path):
    folder = tmp_path / "a_folder"
    folder.mkdir()
    fifo = tmp_path / "a_fifo"
    os.mkfifo(fifo)
    return {"folder": (folder, "a folder, not a"), "device": ("/dev/null", "a device, not a"),
            "fifo": (fifo, "a named pipe, not a")}


def _one_line(capsys, argv: list[str], untrue: str = "no such") -> str:
    code = main([str(a) for a in argv])
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1 and err.startswith("error: "), err
    assert untrue not in err, err
    return err


@pytest.mark.parametrize("kind", ["folder", "device", "fifo"])
def test_a_tools_file_that_is_no_file_says_what_it_is(kind, specials, tmp_path, capsys):
    path, says = specials[kind]
    runs = ["--runs-dir", tmp_path / "runs"]
    assert says in _one_line(capsys, ["optimize", path, *OPT, *runs])
    assert says in _one_line(capsys, ["eval", path, "--queries", EXAMPLES / "queries.jsonl",
                                      "--task-model", "fake", *runs])
    assert says in _one_line(capsys, ["eval", EXAMPLES / "tools.json", "--queries", path,
                                      "--task-model", "fake", *runs])
    assert not (tmp_path / "runs").exists()


@pytest.fixture
def finished(tmp_path, capsys):
    shutil.copy(EXAMPLES / "tools.json", tmp_path / "tools.json")
    shutil.copy(EXAMPLES / "tools.py", tmp_path / "tools.py")
    runs = tmp_path / "runs"
    assert main(["optimize", str(tmp_path / "tools.json"), "--tools", "convert_units",
                 *OPT, "--run-id", "r", "--runs-dir", str(runs)]) == 0
    capsys.readouterr()
    return tmp_path


def test_resume_refuses_another_tools_file_or_preset(finished, capsys):
    other = finished / "other.json"
    doc = json.loads((finished / "tools.json").read_text())
    doc["tools"] = [t for t in doc["tools"] if t["function"]["name"] != "convert_units"]
    other.write_text(json.dumps(doc))
    runs = ["--runs-dir", finished / "runs", "--generator", "fake", "-q"]
    err = _one_line(capsys, ["optimize", other, "--resume", "r", "--preset", "default", *runs])
    assert "other.json: not the tools run r was started with (tool 'convert_units' is not " \
           "in it)" in err
    err = _one_line(capsys, ["optimize", "--resume", "r", "--preset", "default", *runs])
    assert "run r was started with other settings (examples: width 2, expand 2, depth 1, " \
           "not width 3, expand 2, depth 2)" in err
    err = _one_line(capsys, ["optimize", "--resume", "r", "--lambda", "0", *runs])
    assert "(lam: 1.0, not 0.0)" in err
    # the run's own file, preset and settings: resumed (nothing left to do)
    assert main(["optimize", str(finished / "tools.json"), "--resume", "r", "--preset",
                 "quick", "--no-docs", *map(str, runs)]) == 0


def test_a_sqlite_tool_whose_table_is_missing_cannot_start(tmp_path, capsys):
    with sqlite3.connect(tmp_path / "shop.sqlite") as db:
        db.execute("CREATE TABLE items (id INTEGER, name TEXT, price REAL)")
    spec = {"type": "function", "function": {
        "name": "cheaper", "description": "Items under a price.",
        "parameters": {"type": "object", "properties": {"price": {"type": "number"}},
                       "required": ["price"]}},
        "executor": {"sqlite": {"database": "shop.sqlite", "params": {"price": "float"},
                                "sql": "SELECT name FROM item WHERE price < :price"}}}
    (tmp_path / "tools.json").write_text(json.dumps({"tools": [spec]}))
    err = _one_line(capsys, ["optimize", tmp_path / "tools.json", *OPT,
                             "--runs-dir", tmp_path / "runs"], untrue="Traceback")
    assert "cannot run tool 'cheaper': its SQL does not compile against shop.sqlite (no such " \
           "table: item); fix: correct the executor's 'sql'" in err
