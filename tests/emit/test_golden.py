"""Every exporter's output for a small stored run equals its golden file.

Regenerate after an intended format change: ``P2P_UPDATE_GOLDEN=1 pytest tests/emit/test_golden.py``
(see golden/README.md), then review ``git diff tests/emit/golden``.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from play2prompt.emit import ExportOptions, export_run, get_exporter
from play2prompt.results import load_run_result
from tests.conftest import EXAMPLES
from tests.emit.stored import make_stored_run

GOLDEN = Path(__file__).parent / "golden"

CASES = {
    "openai": ("openai", ExportOptions()),
    "openai_inline_k1": ("openai", ExportOptions(demos=1, demos_inline=True)),
    "openai_responses": ("openai-responses", ExportOptions()),
    "anthropic": ("anthropic", ExportOptions()),
    "mcp": ("mcp", ExportOptions()),
    "dspy": ("dspy", ExportOptions()),
    "python": ("python", ExportOptions()),
    "llm": ("llm", ExportOptions()),
    "markdown": ("markdown", ExportOptions()),
    "markdown_original": ("markdown", ExportOptions(original=True)),
    "toolhive_override": ("toolhive-override", ExportOptions()),
    "toolhive_toolconfig": ("toolhive-toolconfig", ExportOptions()),
    "ces_overrides": ("ces-overrides", ExportOptions()),
}


def golden_path(case: str, fmt: str) -> Path:
    suffix = get_exporter(fmt).suffix
    return GOLDEN / (f"{case}{suffix}.txt" if suffix == ".py" else f"{case}{suffix}")


@pytest.mark.parametrize("case", sorted(CASES))
def test_export_matches_golden(case, tmp_path):
    fmt, options = CASES[case]
    run = load_run_result(make_stored_run(tmp_path))
    # a module carrying the folder the run started from (llm) names it machine-independently
    text = export_run(run, fmt, options).replace(str(EXAMPLES), "<EXAMPLES>")
    path = golden_path(case, fmt)
    if os.environ.get("P2P_UPDATE_GOLDEN") == "1":
        path.write_text(text, encoding="utf-8")
    assert path.is_file(), f"missing {path.name}: run with P2P_UPDATE_GOLDEN=1"
    assert text == path.read_text(encoding="utf-8")


SIDECARS = {"openai": "openai.meta.json", "openai-responses": "openai_responses.meta.json",
            "anthropic": "anthropic.meta.json", "toolhive-override": "toolhive_override.meta.json"}


@pytest.mark.parametrize("fmt", sorted(SIDECARS))
def test_sidecar_matches_golden(fmt, tmp_path):
    run = load_run_result(make_stored_run(tmp_path))
    text = get_exporter(fmt).sidecar(run, ExportOptions())
    path = GOLDEN / SIDECARS[fmt]
    if os.environ.get("P2P_UPDATE_GOLDEN") == "1":
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8")
