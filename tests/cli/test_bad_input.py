"""The malformed-input corpus (tests/cli/bad_input/): every case gives its one expected line,
exit status 2, no traceback, and an optimize that cannot start leaves no run folder."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from play2prompt.cli import main
from play2prompt.store.db import DB_NAME, RunStore
from tests.conftest import EXAMPLES
from tests.emit.stored import make_stored_run

CORPUS = Path(__file__).parent / "bad_input"
CASES = json.loads((CORPUS / "cases.json").read_text())
HELPERS = ("cases.json", "README.md")   # and *.py: modules the cases' tools files name


def _case_id(case: dict) -> str:
    return f"{case['case'] or 'flags'}:{' '.join(case['argv'][:2])}"


def _prepare(case: str | None, tmp: Path) -> dict[str, str]:
    """The placeholders of a case's command, with its input in place."""
    runs = tmp / "runs"
    runs.mkdir()
    shutil.copy(EXAMPLES / "tools.py", tmp / "tools.py")
    shutil.copy(EXAMPLES / "tools.json", tmp / "tools.json")
    for module in CORPUS.glob("*.py"):
        shutil.copy(module, tmp / module.name)
    values = {"runs": str(runs), "tools": str(tmp / "tools.json"), "examples": str(EXAMPLES),
              "examples_run": str(make_stored_run(tmp / "finished"))}
    if case is None:
        return values
    source = CORPUS / case
    if case.endswith(".gen.json"):
        spec = json.loads(source.read_text())
        target = tmp / case.replace(".gen", "")
        padding = " " * (spec["bytes"] - len('{"tools": []}'))
        target.write_text('{"tools": []' + padding + "}")
        values["file"] = str(target)
    elif case.endswith(".gen.rundb"):
        run_dir = runs / case.split(".")[0]
        _damaged_store(run_dir / DB_NAME)
        values.update(run=str(run_dir), id=run_dir.name)
    elif case.endswith((".sql", ".rundb", ".result.json")):
        name = case.split(".")[0]
        run_dir = runs / name
        run_dir.mkdir()
        if case.endswith(".rundb"):
            shutil.copy(source, run_dir / DB_NAME)
        else:
            store = RunStore(run_dir / DB_NAME)
            if case.endswith(".sql"):
                store._conn.executescript(source.read_text())
            else:
                store.set_meta("run_id", name)
                store.set_meta("status", "done")
                shutil.copy(source, run_dir / "result.json")
            store.close()
        values.update(run=str(run_dir), id=name)
    else:
        shutil.copy(source, tmp / case)
        values["file"] = str(tmp / case)
    return values


def _damaged_store(path: Path) -> None:
    """A run store that looks finished, its meta table's page overwritten (a bit-flipped
    disk): opening works, reading the run does not."""
    store = RunStore(path)
    store.set_meta("run_id", path.parent.name)
    store.set_meta("status", "done")
    store.set_meta("config", {"seed": 0})
    store._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    page = store._conn.execute("SELECT rootpage FROM sqlite_master WHERE name = 'meta'"
                               ).fetchone()[0]
    size = store._conn.execute("PRAGMA page_size").fetchone()[0]
    store.close()
    data = bytearray(path.read_bytes())
    start = (page - 1) * size
    data[start:start + size] = b"\xff" * size
    path.write_bytes(bytes(data))


def test_every_case_has_its_file_and_every_file_a_case():
    named = {c["case"] for c in CASES if c["case"]}
    files = {p.name for p in CORPUS.iterdir() if p.name not in HELPERS and p.suffix != ".py"}
    assert named == files


@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_bad_input_is_one_line(case, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    values = _prepare(case["case"], tmp_path)
    argv = [arg.format(**values) for arg in case["argv"]]
    before = sorted(p.name for p in (tmp_path / "runs").iterdir())
    code = main(argv)
    err = capsys.readouterr().err.strip()
    expected = case.get("exit", 2)
    assert code == expected, err
    if expected == 0:
        return
    assert "Traceback" not in err and len(err.splitlines()) == 1, err
    assert err.startswith("error: ") and case["expect"] in err, err
    if argv[0] == "optimize":        # nothing left behind by a run that could not start
        assert sorted(p.name for p in (tmp_path / "runs").iterdir()) == before
