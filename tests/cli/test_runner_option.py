"""``--runner`` names how the tools are run (a tool's executor is another thing); the old
``--executor`` still works as its alias."""

import pytest

from play2prompt.cli import main
from tests.conftest import EXAMPLES


@pytest.mark.parametrize("flag", ["--runner", "--executor"])
def test_an_unknown_runner_is_one_line_under_either_name(flag, tmp_path, capsys):
    code = main(["optimize", str(EXAMPLES / "tools.json"), flag, "nope", "--generator", "fake",
                 "--runs-dir", str(tmp_path), "-q"])
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1
    assert "--runner must be local or ray, got 'nope'" in err


@pytest.mark.parametrize("flag", ["--runner", "--executor"])
def test_the_local_runner_under_either_name(flag, tmp_path, capsys):
    code = main(["optimize", str(EXAMPLES / "tools.json"), "--tools", "loan_payment", flag,
                 "local", "--generator", "fake", "--preset", "quick", "--no-docs",
                 "--runs-dir", str(tmp_path), "-q"])
    assert code == 0, capsys.readouterr().err
