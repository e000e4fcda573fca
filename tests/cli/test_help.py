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


def _commands(command, path: tuple[str, ...], ctx):
    """Every command under ``command`` (itself included) with its path and context."""
    yield command, path, ctx
    for name in getattr(command, "list_commands", lambda _ctx: [])(ctx):
        sub = command.get_command(ctx, name)
        if sub is not None:
            yield from _commands(sub, (*path, name),
                                 sub.context_class(sub, info_name=name, parent=ctx))


def _every_help(monkeypatch):
    from typer.testing import CliRunner

    monkeypatch.setenv("COLUMNS", "80")
    root = typer.main.get_command(app)
    runner = CliRunner()
    for command, path, _ctx in _commands(root, (), root.context_class(root, info_name="p2p")):
        result = runner.invoke(app, [*path, "-h"])
        assert result.exit_code == 0, (path, result.output)
        yield command, path, result.output


def test_every_command_takes_h_and_never_cuts_an_option_name(monkeypatch):
    """``-h`` everywhere; piped (the runner is no terminal) in 80 columns every option's
    names are whole in its help, with no "…" and no ``<bool>`` metavar on a flag."""
    seen = 0
    for command, path, text in _every_help(monkeypatch):
        assert text.startswith("Usage: ") and "…" not in text and "<bool>" not in text \
            and "<list[" not in text, path
        words = set(text.replace(",", " ").replace("/", " ").split())
        for param in command.params:
            for name in [*param.opts, *param.secondary_opts]:
                if name.startswith("-"):
                    assert name in words, (path, name)
        assert max(map(len, text.splitlines())) <= 80, path
        seen += 1
    assert seen > 20


def test_optimize_help_in_groups_in_plain_words(monkeypatch):
    """``p2p optimize -h``: the options in named groups, the paper's symbols only in brackets
    after plain words."""
    import re

    from typer.testing import CliRunner

    monkeypatch.setenv("COLUMNS", "80")
    text = CliRunner().invoke(app, ["optimize", "-h"]).output
    groups = [line[:-1] for line in text.splitlines() if re.fullmatch(r"[A-Z][^:]*:", line)]
    assert {"Tools", "Models", "Example search (step 1)", "Doc search (step 2)",
            "Run and output"} <= set(groups), groups
    assert text.index("Models:") < text.index("  --task-model") < text.index("Example search")
    outside = re.sub(r"\(paper: [^)]*\)", "", " ".join(text.split()))
    for symbol in ("G_E", "G_D", "M_T", "N_E", "D0", "m2", "m5"):
        assert not re.search(rf"\b{symbol}\b", outside), symbol
    assert "(paper: M_T)" in " ".join(text.split())
