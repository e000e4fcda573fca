"""``p2p optimize --generator anthropic:stub-model --task-model anthropic:stub-model`` end to
end against the stub of Anthropic's Messages API, the stub answering as the scripted tool
player does (:func:`~play2prompt.lm.fake.play_rules`): the generator's structured outputs go out
as forced tools, the task model's steps as offered tools, calls are played and verified, and
every call and token is accounted."""

import json

from play2prompt.cli import main
from play2prompt.lm.fake import FakeLM, play_rules
from tests.conftest import EXAMPLES
from tests.extras import need
from tests.lm.stub_servers import StubServer, played_messages
from tests.scale_support import EXAMPLE_CALLS

need("anthropic", "anthropic")


def test_optimize_with_anthropic_models_against_the_stub(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-stub")
    player = FakeLM(rules=play_rules(EXAMPLE_CALLS), fill_schema=True)
    with StubServer(played_messages(player)) as server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
        code = main(["optimize", str(EXAMPLES / "tools.json"), "--tools", "convert_units",
                     "--preset", "quick", "--generator", "anthropic:stub-model",
                     "--task-model", "anthropic:stub-model", "--runs-dir", str(tmp_path),
                     "--run-id", "claude", "-q"])
    assert code == 0, capsys.readouterr().err
    forced = [r for r in server.requests if r.get("tool_choice", {}).get("type") == "tool"]
    offered = [r for r in server.requests if r.get("tool_choice", {}).get("type") == "auto"]
    assert forced and offered                   # the generator's JSON and the task model's steps
    assert all(r["model"] == "stub-model" for r in server.requests)
    assert any(t["name"] == "convert_units" for r in offered for t in r["tools"])
    result = json.loads((tmp_path / "claude" / "result.json").read_text())
    session = result["stats"]["session"]
    assert session["llm_calls"] == len(server.requests) and session["failures"] == 0
    assert session["completion_tokens"] == 7 * len(server.requests)   # the stub's usage
    assert "anthropic:stub-model" in result["stats"]["speed"]
    stats = result["tools"]["convert_units"]["stats"]
    assert stats["valid_invocations"] > 1 and stats["verified_examples"] > 0   # played through
    (tool,) = json.loads((tmp_path / "claude" / "tools.optimized.json").read_text())["tools"]
    assert tool["function"]["name"] == "convert_units" and tool["function"]["description"]
