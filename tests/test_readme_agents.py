"""The README's path from an optimized run to four agents, followed as written.

The commands of README.md's "Optimize, export, serve" block run as they are, the model swapped
for a stub of Anthropic's Messages API (the scripted tool player behind it) and one tool kept
for time; then its Python block runs unchanged, with a LangChain chat model and the question
given, in the folder the commands ran in. Each agent then makes a tool call through its own
framework (the Agents SDK and pydantic-ai with their test models, LangChain's tool-call path,
Claude through the stub), and the call runs the real function of examples/tools.py. No file
p2p wrote is edited on the way.
"""

from __future__ import annotations

import asyncio
import json
import re
import shlex
import shutil
from pathlib import Path

import pytest

from play2prompt.cli import main
from play2prompt.lm.fake import FakeLM, play_rules
from tests.extras import need
from tests.lm.stub_servers import StubServer, played_messages
from tests.scale_support import EXAMPLE_CALLS

for _module, _extra in (("agents", "agents"), ("pydantic_ai", "pydantic-ai"),
                        ("langchain_core", "langchain"), ("anthropic", "anthropic")):
    need(_module, _extra)

from langchain_core.language_models import GenericFakeChatModel  # noqa: E402
from langchain_core.messages import AIMessage  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
ASK = "How many miles is 5 km?"
ARGS = {"value": 5, "from_unit": "km", "to_unit": "mi"}
RESULT = {"value": 3.1069, "unit": "mi"}        # what examples/tools.py's convert_units answers


def _blocks(language: str) -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    return re.findall(rf"^```{language}\n(.*?)^```", text, re.M | re.S)


def _commands() -> list[list[str]]:
    """The p2p commands of the README's block that optimizes and exports (not the servers)."""
    block = next(b for b in _blocks("bash") if "p2p optimize" in b and "p2p export" in b)
    joined = re.sub(r"\\\n\s*", " ", block)
    lines = [line.split("#", 1)[0].strip() for line in joined.splitlines()]
    return [shlex.split(line)[1:] for line in lines
            if line.startswith(("p2p optimize", "p2p export"))]


class BindingChat(GenericFakeChatModel):
    """LangChain's fake chat model that takes tools as a real one does and keeps them."""

    bound: list = []

    def bind_tools(self, tools, **kwargs):
        self.bound = list(tools)
        return self


@pytest.fixture
def project(tmp_path, monkeypatch):
    """A user's folder: the example tools copied in, the README's commands run there."""
    shutil.copy(ROOT / "examples" / "tools.json", tmp_path)
    shutil.copy(ROOT / "examples" / "tools.py", tmp_path)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-stub")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-stub")      # pydantic-ai builds its model eagerly
    monkeypatch.delenv("P2P_RUNS_DIR", raising=False)
    return tmp_path


def test_the_readme_takes_a_run_into_four_agents(project, monkeypatch, capsys):
    player = FakeLM(rules=play_rules(EXAMPLE_CALLS), fill_schema=True)
    with StubServer(played_messages(player)) as server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
        for argv in _commands():
            argv = [a.replace("examples/tools.json", "tools.json") for a in argv]
            if argv[0] == "optimize":
                spec = argv.index("--generator") + 1
                argv[spec] = "anthropic:stub-model"
                argv += ["--tools", "convert_units", "-q"]
            assert main(argv) == 0, capsys.readouterr().err
        written = {p: p.read_bytes() for p in project.rglob("*")
                   if p.is_file() and not p.name.startswith("run.db")}   # the store moves on
        chat_model = BindingChat(messages=iter([AIMessage(content="", tool_calls=[
            {"name": "convert_units", "args": ARGS, "id": "call-1"}])]))
        (code,) = [b for b in _blocks("python") if "tools_from_run" in b]
        names = {"chat_model": chat_model, "ask": ASK}
        exec(compile(code, "README.md", "exec"), names)          # noqa: S102 - the README's own
        claude_request = server.requests[-1]

    optimized = json.loads((project / "runs" / "first" / "tools.optimized.json").read_text())
    doc = optimized["tools"][0]["function"]["description"]     # what the run wrote
    original = json.loads((project / "tools.json").read_text())["tools"]
    assert doc not in [t["function"]["description"] for t in original]   # the run changed it
    seen = [_agents_sdk(names["assistant"]), _pydantic_ai(names["agent"]),
            _langchain(names["chat"], chat_model.bound), _claude(claude_request, names["reply"])]
    assert all(description.startswith(doc) for description in seen), (doc, seen)
    assert {p: p.read_bytes() for p in written} == written      # nothing p2p wrote was edited


def _agents_sdk(assistant) -> str:
    from agents import RunConfig, Runner

    from tests.integrations.test_openai_agents import ScriptedModel

    model = ScriptedModel(ARGS)
    result = asyncio.run(Runner.run(assistant, ASK, run_config=RunConfig(
        model=model, tracing_disabled=True)))
    assert json.loads(result.final_output) == RESULT
    return {t.name: t for t in model.tools}["convert_units"].description


def _pydantic_ai(agent) -> str:
    from tests.integrations.test_pydantic_ai import _scripted

    seen: dict = {}
    agent.run_sync(ASK, model=_scripted([ARGS], seen))
    assert seen["returns"][-1].content == RESULT
    return seen["tools"]["convert_units"].description


def _langchain(chat, bound: list) -> str:
    tools = {t.name: t for t in bound}
    (call,) = chat.invoke(ASK).tool_calls
    assert json.loads(tools[call["name"]].invoke(call).content) == RESULT
    return tools["convert_units"].description


def _claude(request: dict, reply) -> str:
    (tool,) = request["tools"]
    exported = json.loads(Path("tools.anthropic.json").read_text())
    assert tool == exported[0] and tool["name"] == "convert_units"
    assert request["messages"] == [{"role": "user", "content": ASK}]
    assert reply.content                                          # the stub answered
    return tool["description"]
