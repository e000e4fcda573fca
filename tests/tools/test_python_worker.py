"""The Python tool workers: started with ``python -m`` (a script without a main guard runs
once), one pool per tool (a hanging tool holds only its own worker), a minimal environment,
and crashes that say how the process died (issue 15)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from play2prompt.errors import ToolsFileError
from play2prompt.tools.executors._base import ExecContext, make_executor
from play2prompt.tools.loading import check_tool_executors
from play2prompt.tools.model import Tool
from tests.conftest import EXAMPLES, ROOT, module_context

TOOLS = '''
import os, signal, time
def nap(seconds: float = 5):
    time.sleep(seconds)
    return "rested"
def env():
    return sorted(os.environ)
def get(name: str):
    return os.environ.get(name)
def killed():
    os.kill(os.getpid(), signal.SIGKILL)
def noisy():
    print("this is not the protocol")
    os.write(1, b"nor is this\\n")
    return 42
def bye():
    import sys
    sys.stderr.write("leaving now\\n")
    sys.exit(7)
'''


@pytest.fixture
def ctx(tmp_path):
    with module_context(tmp_path, "w_tools.py", TOOLS, default_timeout=10.0) as c:
        yield c


def _ex(ctx, name, fn=None, **conf):
    ref = f"w_tools.py:{fn or name}"
    target = {"function": ref, **conf} if conf else ref
    return make_executor(Tool(name, "", {"type": "object", "properties": {}},
                              {"python": target}), ctx)


def test_a_hanging_tool_does_not_hold_the_others(ctx):
    nap, noisy = _ex(ctx, "nap"), _ex(ctx, "noisy")
    assert noisy.execute({}).output == 42                    # both workers warm
    assert nap.execute({"seconds": 0}).output == "rested"
    started = threading.Event()

    def hang():
        started.set()
        nap.execute({"seconds": 30}, timeout=4)

    thread = threading.Thread(target=hang)
    thread.start()
    started.wait()
    time.sleep(0.3)
    t0 = time.perf_counter()
    assert noisy.execute({}).output == 42                    # stdout noise is not the answer
    assert time.perf_counter() - t0 < 2.0
    thread.join()


def test_a_pool_runs_calls_of_one_tool_side_by_side(ctx):
    nap = _ex(ctx, "nap2", "nap", workers=2)
    t0 = time.perf_counter()
    threads = [threading.Thread(target=nap.execute, args=({"seconds": 1.5},)) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert time.perf_counter() - t0 < 2.9


def test_crashes_say_how_the_process_died(ctx):
    obs = _ex(ctx, "killed").execute({})
    assert obs.error_type == "crash" and obs.error == "tool process died (killed by signal SIGKILL)"
    obs = _ex(ctx, "bye").execute({})
    assert obs.error_type == "crash"
    assert obs.error == "tool process died (exit code 7): leaving now"
    assert _ex(ctx, "bye2", "noisy").execute({}).output == 42


def test_tools_see_a_minimal_environment(ctx, monkeypatch):
    monkeypatch.setenv("P2P_WORKER_SECRET", "s3cret-value")
    monkeypatch.setenv("P2P_WORKER_OTHER", "other")
    seen = _ex(ctx, "env").execute({}).output
    assert "P2P_WORKER_SECRET" not in seen and "PATH" in seen
    assert "OPENAI_API_KEY" not in seen
    listed = _ex(ctx, "listed", "get", env=["P2P_WORKER_SECRET"])
    assert listed.execute({"name": "P2P_WORKER_SECRET"}).output == "s3cret-value"
    assert listed.execute({"name": "P2P_WORKER_OTHER"}).output is None
    mapped = _ex(ctx, "mapped", "get", env={"KEY": "${P2P_WORKER_OTHER}-x", "FIXED": "1"})
    assert mapped.execute({"name": "KEY"}).output == "other-x"
    assert mapped.execute({"name": "FIXED"}).output == "1"


@pytest.mark.parametrize("conf, message", [
    ({"function": "w_tools.py:env", "envv": []}, "unknown field(s) envv"),
    ({"function": "w_tools.py:env", "env": "PATH"}, "'env' must be a list of variable names"),
    ({"function": "w_tools.py:env", "workers": 0}, "'workers' must be an integer from 1 to 32"),
    ({"env": []}, "field 'function' is missing"),
])
def test_bad_python_executor_specs_are_one_line(tmp_path, conf, message):
    (tmp_path / "w_tools.py").write_text(TOOLS)
    tool = Tool("t", "", {"type": "object", "properties": {}}, {"python": conf})
    with pytest.raises(ToolsFileError, match=re.escape(message)):
        check_tool_executors([tool], tmp_path)


def _library_snippet() -> str:
    readme = (ROOT / "README.md").read_text()
    section = readme[readme.index("## Library"):]
    code = section[section.index("```python") + len("```python"):]
    return code[:code.index("```")]


def test_the_readme_library_snippet_runs_once_without_a_main_guard(tmp_path):
    code = _library_snippet()
    assert "__main__" not in code and re.search(r'generator="embedded[:\w.-]*"', code)
    # the fake model instead of the embedded one (same code path, no model to load), the
    # examples where they are; everything else as the README has it
    code = (re.sub(r'generator="embedded[:\w.-]*"', 'generator="fake"', code)
                .replace('"examples/tools.json"', repr(str(EXAMPLES / "tools.json")))
                .replace('base_dir="examples"', f"base_dir={str(EXAMPLES)!r}"))
    script = tmp_path / "snippet.py"
    script.write_text("print('snippet started', flush=True)\n" + code)
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    done = subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.count("snippet started") == 1
    runs = list((tmp_path / "runs").iterdir())
    assert len(runs) == 1
    result = json.loads((runs[0] / "result.json").read_text())
    valid = {n: t["stats"]["valid_invocations"] for n, t in result["tools"].items()}
    crashed = [n for n, t in result["tools"].items() if "tool process died" in json.dumps(t)]
    assert sum(valid.values()) > 0 and not crashed, valid
    assert done.stdout.count("\n") == 1 + len(valid)          # one line per tool, once


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_what_a_tool_started_ends_with_the_run(tmp_path):
    """Issue 29: a worker runs in a process group of its own and is closed with it, so a
    tool's children do not outlive a normal end of the run."""
    (tmp_path / "forks.py").write_text(
        "import subprocess, sys\n"
        "def spawn():\n"
        "    return subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])"
        ".pid\n")
    ctx = ExecContext(base_dir=tmp_path, default_timeout=10.0)
    ex = make_executor(Tool("spawn", "", {"type": "object", "properties": {}},
                            {"python": "forks.py:spawn"}), ctx)
    child = ex.execute({}).output
    assert isinstance(child, int) and os.getpgid(child) != os.getpgid(0)
    ctx.close()
    deadline = time.monotonic() + 5
    while Path(f"/proc/{child}").exists() and \
            Path(f"/proc/{child}/stat").read_text().split()[2] != "Z":
        assert time.monotonic() < deadline, "the tool's child outlived the run"
        time.sleep(0.05)
