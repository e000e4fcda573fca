"""``p2p --version``, and help on every option of every command."""

from __future__ import annotations

import typer

from play2prompt.cli import app, main


def test_version(capsys):
    from play2prompt import __version__

    assert main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"p2p (play2prompt) {__version__}"


def _options_without_help(command, path: str, ctx) -> list[str]:
    missing = [f"{path} {'/'.join(p.opts)}" for p in command.params
               if getattr(p, "param_type_name", "") == "option"
               and not (getattr(p, "help", None) or "").strip()]
    for name in getattr(command, "list_commands", lambda _ctx: [])(ctx):
        sub = command.get_command(ctx, name)
        if sub is not None:
            sub_ctx = sub.context_class(sub, info_name=name, parent=ctx)
            missing += _options_without_help(sub, f"{path} {name}", sub_ctx)
    return missing


def test_every_option_of_every_command_has_help():
    root = typer.main.get_command(app)
    commands = root.list_commands(root.context_class(root, info_name="p2p"))
    assert {"optimize", "export", "runs", "eval", "sweep"} <= set(commands)
    assert _options_without_help(root, "p2p", root.context_class(root, info_name="p2p")) == []
