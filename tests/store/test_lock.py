"""One process per run: the run folder's OS lock, runs left by a dead process, run ids that are
names, and no folder for a run that cannot start (issue 15)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time

import pytest

from play2prompt.cli import main
from play2prompt.config import preset
from play2prompt.lm.fake import FakeLM
from play2prompt.optimize import optimize
from play2prompt.store.db import RunStore
from play2prompt.store.lock import RunBusyError, RunLock, lock_owner
from play2prompt.store.runs import list_runs
from tests.conftest import EXAMPLES, ROOT

CLI = "import sys; from play2prompt.cli import main; sys.exit(main(sys.argv[1:]))"


def _cli(capsys, *args):
    code = main([str(a) for a in args])
    return code, capsys.readouterr()


def test_the_lock_names_its_owner_and_dies_with_it(tmp_path):
    lock = RunLock.acquire(tmp_path / "r")
    assert lock_owner(tmp_path / "r") == os.getpid()
    with pytest.raises(RunBusyError, match=rf"run 'r' is in use by process {os.getpid()}"):
        RunLock.acquire(tmp_path / "r", wait=0.1)
    lock.release()
    assert lock_owner(tmp_path / "r") is None
    with RunLock.acquire(tmp_path / "r", wait=0.1):
        assert lock_owner(tmp_path / "r") == os.getpid()
    assert lock_owner(tmp_path / "nowhere") is None



HOLD = ("import sys, time; from play2prompt.store.lock import RunLock; "
        "lock = RunLock.acquire(sys.argv[1]); print('held', flush=True); time.sleep(60)")


def test_another_process_is_refused_and_the_lock_dies_with_it(tmp_path):
    """The lock holds across processes (not only across file handles of one), names the
    owner's pid, and is free again as soon as the owner is killed."""
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    proc = subprocess.Popen([sys.executable, "-c", HOLD, str(tmp_path / "r")], env=env,
                            stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "held"
        assert lock_owner(tmp_path / "r") == proc.pid
        with pytest.raises(RunBusyError, match=rf"run 'r' is in use by process {proc.pid} "):
            RunLock.acquire(tmp_path / "r", wait=0.2)
    finally:
        proc.kill()
        proc.wait(30)
    assert lock_owner(tmp_path / "r") is None
    with RunLock.acquire(tmp_path / "r", wait=0.1):
        assert lock_owner(tmp_path / "r") == os.getpid()

def _wait_for_status(db, status, timeout=60.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if db.is_file():
            try:
                store = RunStore(db, read_only=True)
                try:
                    if store.get_meta("status") == status:
                        return
                finally:
                    store.close()
            except Exception:  # noqa: BLE001 - being created
                pass
        time.sleep(0.05)
    raise AssertionError(f"{db} never reached {status!r}")


def test_a_second_process_on_the_same_run_is_refused(tmp_path, capsys, example_tools):
    slow = FakeLM(fill_schema=True, latency=0.4)
    tools = [t for t in example_tools if t.name == "loan_payment"]
    outcome = {}

    def first():
        outcome["result"] = optimize(tools, generator=slow, config=preset("quick"),
                                     runs_dir=tmp_path, run_id="busy", base_dir=EXAMPLES)

    thread = threading.Thread(target=first)
    thread.start()
    _wait_for_status(tmp_path / "busy" / "run.db", "running")
    with pytest.raises(RunBusyError, match=rf"in use by process {os.getpid()}"):
        optimize(generator=FakeLM(fill_schema=True), resume="busy", runs_dir=tmp_path)
    code, out = _cli(capsys, "optimize", "--resume", "busy", "--runs-dir", tmp_path, "-q")
    assert code == 2 and f"in use by process {os.getpid()}" in out.err
    assert len(out.err.strip().splitlines()) == 1
    code, out = _cli(capsys, "optimize", EXAMPLES / "tools.json", "--run-id", "busy",
                     "--generator", "fake", "--runs-dir", tmp_path, "-q")
    assert code == 2 and "in use by process" in out.err
    assert [r.status for r in list_runs(tmp_path)] == ["running"]
    thread.join(120)
    assert outcome["result"].tools and lock_owner(tmp_path / "busy") is None
    assert [r.status for r in list_runs(tmp_path)] == ["done"]


def test_a_killed_run_shows_interrupted_and_resumes(tmp_path, capsys):
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    proc = subprocess.Popen(
        [sys.executable, "-c", CLI, "optimize", str(EXAMPLES / "tools.json"), "--tools",
         "loan_payment", "--generator", "fake:0.3", "--preset", "quick", "--run-id", "killed",
         "--runs-dir", str(tmp_path), "-q"], env=env, cwd=tmp_path,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        _wait_for_status(tmp_path / "killed" / "run.db", "running")
        assert lock_owner(tmp_path / "killed") == proc.pid
        code, out = _cli(capsys, "optimize", "--resume", "killed", "--runs-dir", tmp_path, "-q")
        assert code == 2 and f"in use by process {proc.pid}" in out.err
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(30)
    assert [r.status for r in list_runs(tmp_path)] == ["interrupted"]
    code, out = _cli(capsys, "runs", "list", "--runs-dir", tmp_path)
    assert code == 0 and "interrupted" in out.out
    code, out = _cli(capsys, "optimize", "--resume", "killed", "--generator", "fake",
                     "--runs-dir", tmp_path, "-q")
    assert code == 0, out.err
    assert [r.status for r in list_runs(tmp_path)] == ["done"]


@pytest.mark.parametrize("run_id", ["../../x", "/tmp/abs", "a/b", "..", ".hidden", "x" * 200])
def test_run_ids_are_names(tmp_path, capsys, run_id):
    runs = tmp_path / "deep" / "runs"
    code, out = _cli(capsys, "optimize", EXAMPLES / "tools.json", "--generator", "fake",
                     "--run-id", run_id, "--runs-dir", runs, "-q")
    assert code == 2 and "must be a name" in out.err and len(out.err.strip().splitlines()) == 1
    assert not (tmp_path / "deep").exists()


def test_a_run_that_cannot_start_leaves_no_folder(tmp_path, capsys):
    code, out = _cli(capsys, "optimize", EXAMPLES / "tools.json", "--generator", "gpt5",
                     "--run-id", "nope", "--runs-dir", tmp_path / "runs", "-q")
    assert code == 2 and "unknown model spec 'gpt5'" in out.err
    assert not (tmp_path / "runs").exists()


def test_a_folder_left_by_a_failed_start_can_be_started_again(tmp_path, capsys):
    store = RunStore(tmp_path / "half" / "run.db")     # what an old failed start left
    store.set_meta("run_id", "half")
    store.close()
    code, out = _cli(capsys, "optimize", "--resume", "half", "--runs-dir", tmp_path, "-q")
    assert code == 2 and "never started" in out.err and "--run-id half" in out.err
    assert [r.status for r in list_runs(tmp_path)] == ["never started"]
    code, out = _cli(capsys, "optimize", EXAMPLES / "tools.json", "--tools", "loan_payment",
                     "--generator", "fake", "--preset", "quick", "--run-id", "half",
                     "--runs-dir", tmp_path, "-q")
    assert code == 0, out.err
    assert [r.status for r in list_runs(tmp_path)] == ["done"]
