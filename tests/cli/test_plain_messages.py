"""Messages print what they hold (issue 71, part 6): no console reads markup or emoji codes in
them, so ``--generator fake:-1`` and ``fake:abc`` are not a thumbs-down and a letters sign, and
``[bold]`` in a name is printed, not applied."""

from __future__ import annotations

import pytest

from play2prompt.cli import main
from play2prompt.cli._common import console, console_err
from play2prompt.errors import UserError
from play2prompt.progress import progress_bars
from tests.conftest import EXAMPLES

LITERAL = "tool [bold]x[/bold] says :abc: and :-1: and :thumbs_up:"


@pytest.mark.parametrize(("spec", "says"), [
    ("fake:-1", "error: fake:-1: the latency must be"),
    ("fake:abc", "error: fake:abc: the fake model takes a latency"),
    ("fake:[bold]x", "error: fake:[bold]x: the fake model takes a latency")])
def test_a_bad_generator_is_named_as_it_was_given(tmp_path, capsys, spec, says):
    code = main(["optimize", str(EXAMPLES / "tools.json"), "--generator", spec, "--runs-dir",
                 str(tmp_path), "-q"])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith(says), err


def test_the_consoles_print_markup_and_emoji_codes_literally(capsys):
    console.print(LITERAL)
    console_err.print(LITERAL)
    out, err = capsys.readouterr()
    assert out == err == LITERAL + "\n"


def test_an_error_and_a_failure_keep_their_brackets_and_colons(capsys, monkeypatch):
    from play2prompt.cli import optimize as optimize_cli

    def fails(*args, **kwargs):
        raise UserError(LITERAL)

    monkeypatch.setattr(optimize_cli, "_check_flags", fails)
    assert main(["optimize", str(EXAMPLES / "tools.json"), "-q"]) == 2
    assert capsys.readouterr().err == f"error: {LITERAL}\n"


def test_the_progress_bars_show_a_tools_name_as_it_is(capsys):
    with progress_bars() as prog:
        prog.add_task(LITERAL, total=1)
    assert LITERAL in capsys.readouterr().err
