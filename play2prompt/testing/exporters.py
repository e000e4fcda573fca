"""The contract every exporter keeps, as a reusable test suite.

Subclass :class:`ExporterContract` and give it fixtures ``exporter`` (an
:class:`~play2prompt.emit._base.Exporter`) and ``run`` (a finished
:class:`~play2prompt.results.RunResult` with at least one tool that has demos).
"""

from __future__ import annotations

import json
from pathlib import Path

from play2prompt.emit import ExportOptions, JsonExporter, available_exporters, write_export
from play2prompt.emit._base import Exporter
from play2prompt.results import RunResult


class ExporterContract:
    """What every export format guarantees."""

    def test_it_is_registered_and_described(self, exporter: Exporter) -> None:
        assert isinstance(exporter, Exporter)
        assert exporter.name in available_exporters()
        assert exporter.suffix.startswith(".") and "/" in exporter.media_type

    def test_it_exports_every_tool_as_text(self, exporter: Exporter, run: RunResult) -> None:
        """Every tool the format carries (all, but in an override file: at least each tool
        whose doc the run changed) is in the text."""
        text = exporter.export(run, ExportOptions())
        assert isinstance(text, str) and text.strip()
        names = exporter.exported_names(run, ExportOptions())
        assert set(names) <= set(run.tools)
        assert {n for n, r in run.tools.items() if r.doc_changed} <= set(names)
        for name in names:
            assert name in text, name
        if isinstance(exporter, JsonExporter):
            assert json.loads(text) == exporter.document(run, ExportOptions())

    def test_the_same_run_gives_the_same_text(self, exporter: Exporter, run: RunResult) -> None:
        assert exporter.export(run, ExportOptions()) == exporter.export(run, ExportOptions())

    def test_optimized_and_original_docs_differ_where_the_run_changed_them(
            self, exporter: Exporter, run: RunResult) -> None:
        changed = [r for r in run.tools.values() if r.doc_changed]
        optimized = exporter.export(run, ExportOptions())
        original = exporter.export(run, ExportOptions(original=True))
        if changed:
            assert optimized != original

    def test_demos_can_be_left_out(self, exporter: Exporter, run: RunResult) -> None:
        queries = [d.query for r in run.tools.values() for d in r.demos]
        assert queries, "the contract needs a run with demos"
        none = exporter.export(run, ExportOptions(demos=0))
        assert not any(q in none for q in queries)
        inline = exporter.export(run, ExportOptions(demos_inline=True))
        assert any(q in inline for q in queries)

    def test_it_writes_a_file(self, exporter: Exporter, run: RunResult, tmp_path: Path) -> None:
        path = write_export(run, exporter.name, tmp_path / f"out{exporter.suffix}")
        assert path.read_text(encoding="utf-8") == exporter.export(run, ExportOptions())
