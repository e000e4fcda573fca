"""Optimization methods are a registry by name, open to entry points, checked on one line."""

from __future__ import annotations

from importlib.metadata import EntryPoint

import pytest

from play2prompt import optimizers, plugins
from play2prompt.cli import main
from play2prompt.config import preset
from play2prompt.errors import UserError
from play2prompt.optimize import optimize
from play2prompt.tools.loading import load_tools
from tests.baselines.fakes import baseline_lm
from tests.conftest import EXAMPLES


def test_builtin_methods_load_lazily_and_satisfy_the_interface():
    assert list(optimizers.available_optimizers())[:3] == ["play2prompt", "easytool", "draft"]
    for name in ("play2prompt", "easytool", "draft"):
        method = optimizers.load_optimizer(name)
        assert method.tool_budget(preset("quick")) >= 1
    assert optimizers.load_optimizer("draft").tool_budget(preset("quick", draft_rounds=4)) == 12
    with pytest.raises(UserError, match="unknown method 'x' \\(one of play2prompt, easytool"):
        optimizers.load_optimizer("x")


def test_an_entry_point_method_runs(tmp_path, monkeypatch):
    ep = EntryPoint("mine", "tests.baselines.plugin_method", optimizers.ENTRY_POINT_GROUP)
    monkeypatch.setattr(plugins, "entry_points",
                        lambda group: [ep] if group == optimizers.ENTRY_POINT_GROUP else [])
    tools = load_tools(EXAMPLES / "tools.json")[:2]
    result = optimize(tools, generator=baseline_lm(), method="mine", runs_dir=tmp_path,
                      base_dir=EXAMPLES)
    assert {r.doc_reason for r in result.tools.values()} == {"plugin: kept D0"}
    assert result.config["method"] == "mine"


def test_cli_unknown_method_is_one_line(tmp_path, capsys):
    code = main(["optimize", str(EXAMPLES / "tools.json"), "--method", "nope", "--runs-dir",
                 str(tmp_path), "-q"])
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1 and "unknown method 'nope'" in err
