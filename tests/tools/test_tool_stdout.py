"""A tool that runs in this process prints to standard error, never to standard output (issue
71, part 5): a thread-isolated python tool at import and at call, a ``callable`` at call
(async too); what the rest of the process prints meanwhile stays on standard output."""

from __future__ import annotations

import sys
import threading

from play2prompt.tools.executors._base import make_executor
from play2prompt.tools.executors._stdout import ThreadRoutedStdout, tool_prints_to_stderr
from play2prompt.tools.model import Tool
from tests.conftest import module_context

CHATTY = '''
import sys
print("module says hello")

def chatty(x: int = 1):
    print("tool says", x)
    sys.stdout.write("tool writes\\n")
    return x * 2
'''


def _tool(name, executor):
    return Tool(name, "", {"type": "object", "properties": {}}, executor)


def test_a_thread_isolated_tool_prints_to_stderr_at_import_and_at_call(tmp_path, capsys):
    with module_context(tmp_path, "chatty.py", CHATTY) as ctx:
        tool = make_executor(_tool("chatty", {"python": "chatty.py:chatty",
                                              "isolation": "thread"}), ctx)
        print("the run says")
        assert tool.execute({"x": 2}).output == 4
        assert tool.execute({"x": 3}).output == 6
        print("the run again")
    out, err = capsys.readouterr()
    assert out == "the run says\nthe run again\n"
    assert err == ("module says hello\ntool says 2\ntool writes\ntool says 3\n"
                   "tool writes\n")


def test_a_callable_prints_to_stderr_sync_or_async(tmp_path, capsys):
    def shout(x: int) -> int:
        print("shouting", x)
        return x

    async def later(x: int) -> int:
        print("later", x)
        return x + 1

    with module_context(tmp_path, "none.py", "") as ctx:
        ctx.callables.update(shout=shout, later=later)
        assert make_executor(_tool("shout", {"callable": "shout"}), ctx).execute(
            {"x": 1}).output == 1
        assert make_executor(_tool("later", {"callable": "later"}), ctx).execute(
            {"x": 1}).output == 2
    out, err = capsys.readouterr()
    assert out == "" and err == "shouting 1\nlater 1\n"


def test_only_the_tools_thread_is_routed(capsys):
    other_may_print, tool_printed = threading.Event(), threading.Event()

    def other() -> None:
        other_may_print.wait(10)
        print("someone else")       # while a tool's call is under way in another thread
        tool_printed.set()

    thread = threading.Thread(target=other)
    thread.start()
    with tool_prints_to_stderr():
        assert isinstance(sys.stdout, ThreadRoutedStdout)
        print("the tool")
        other_may_print.set()
        tool_printed.wait(10)
    thread.join(10)
    print("after")
    out, err = capsys.readouterr()
    assert out == "someone else\nafter\n" and err == "the tool\n"
