"""Runtime calls in detached threads: an interrupted command does not wait for them."""

import asyncio
import subprocess
import sys
import textwrap
import threading

import pytest

from play2prompt.lm.detached import busy, run_detached


def test_result_and_exception_reach_the_awaiting_task():
    async def both():
        ok = await run_detached(lambda a, b: a + b, 2, 3)
        with pytest.raises(ValueError, match="bad"):
            await run_detached(_raise, "bad")
        return ok

    assert asyncio.run(both()) == 5


def _raise(message):
    raise ValueError(message)


def test_a_cancelled_await_leaves_the_call_running_and_asyncio_run_does_not_wait():
    release = threading.Event()
    started = threading.Event()

    def blocking():
        started.set()
        release.wait(60)
        return "late"

    async def interrupted():
        task = asyncio.ensure_future(run_detached(blocking))
        await asyncio.to_thread(started.wait, 60)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    try:
        asyncio.run(interrupted())       # returns although the call is still running
        assert busy()
    finally:
        release.set()


def test_an_interrupted_command_ends_without_waiting_for_a_busy_runtime():
    # a call that never returns: the process must still end, with the command's code
    script = textwrap.dedent("""
        import asyncio, threading
        from play2prompt.cli import _exit_if_runtime_busy
        from play2prompt.lm.detached import run_detached

        async def main():
            task = asyncio.ensure_future(run_detached(threading.Event().wait))
            await asyncio.sleep(0.05)
            task.cancel()
        asyncio.run(main())
        print("cleanup done", flush=True)
        _exit_if_runtime_busy(130)
        print("not reached")
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 130, done.stderr
    assert done.stdout.splitlines() == ["cleanup done"]
    assert "Traceback" not in done.stderr
