"""The report's first screen in headless Chromium (bench/report_screenshot.py): the headline is
in the DOM, within the first 900 px, nothing overflows 1,400 px, the screenshot is not blank.
Skipped where /usr/bin/chromium is absent (``apt-get install chromium``)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from tests.report.fake_run import HEADLINE, RUN_ID, write_eval, write_run

SCRIPT = Path(__file__).resolve().parents[2] / "bench" / "report_screenshot.py"

pytestmark = pytest.mark.skipif(not Path("/usr/bin/chromium").exists(),
                                reason="needs /usr/bin/chromium")


def _script():  # noqa: ANN202
    spec = importlib.util.spec_from_file_location("report_screenshot", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_first_screen_in_chromium(tmp_path):
    write_run(tmp_path / "runs")
    write_eval(tmp_path / "runs" / "eval-tiny")
    summary = _script().screenshot(RUN_ID, tmp_path / "shot", tmp_path / "runs")
    assert summary["ok"] == {k: True for k in summary["ok"]}, summary
    assert summary["headline"] == f"helped {HEADLINE}"
    assert Path(summary["screenshot"]).read_bytes().startswith(b"\x89PNG")
