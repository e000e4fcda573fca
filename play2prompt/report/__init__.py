"""``p2p report runs/<id>``: a run's report as a self-contained HTML file and as Markdown.

- :mod:`~play2prompt.report.data`: what the report shows, read from the run's folder;
- :mod:`~play2prompt.report.evals`: the evaluations of the run's prompts, each once;
- :mod:`~play2prompt.report.summary`: the first screen, did the run help (headline, per tool);
- :mod:`~play2prompt.report.diff`: word diffs of the docs;
- :mod:`~play2prompt.report.plots`: the charts (the run's play and examples per tool, each
  tool's search curves from two iterations on), or one line saying why there is none;
- :mod:`~play2prompt.report.compare`: several methods' docs side by side (runs or a sweep);
- :mod:`~play2prompt.report.render`: HTML (Jinja2 templates in ``templates/``);
- :mod:`~play2prompt.report.markdown`: Markdown.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from play2prompt.report.plots import Charts


@dataclass(frozen=True)
class ReportFiles:
    html: Path
    markdown: Path
    charts: Charts = field(default_factory=Charts)
    headline: str = ""            # the report's first line: what changed, what it gained
    verdict: str | None = None    # helped, hurt, no clear difference (None: not compared)

    @property
    def sentence(self) -> str:
        return f"{self.verdict.capitalize()}: {self.headline}" if self.verdict else \
            self.headline


def build_report(ref: str | Path, runs_dir: Path | None = None,
                 out_dir: Path | None = None, eval_dirs: Sequence[Path] = ()) -> ReportFiles:
    """Write ``report.html``, ``report.md`` and ``plots/*.png`` (default: ``<run>/report/``).
    ``eval_dirs``: evaluation folders of the run's prompts outside ``runs_dir`` (those in it
    are found)."""
    from play2prompt.report.data import collect
    from play2prompt.report.markdown import render_markdown
    from play2prompt.report.plots import write_charts
    from play2prompt.report.render import render_html
    from play2prompt.report.summary import first_screen

    report = collect(ref, runs_dir, eval_dirs)
    out = Path(out_dir or report.run_dir / "report")
    out.mkdir(parents=True, exist_ok=True)
    charts = write_charts(report, out / "plots")
    html_path, md_path = out / "report.html", out / "report.md"
    html_path.write_text(render_html(report, charts), encoding="utf-8")
    md_path.write_text(render_markdown(report, charts, out), encoding="utf-8")
    screen = first_screen(report)
    return ReportFiles(html_path, md_path, charts, screen.headline, screen.verdict)


def build_comparison(refs: Sequence[str | Path] = (), *, sweep: str | None = None,
                     runs_dir: Path | None = None, out_dir: Path | None = None,
                     tools: Sequence[str] | None = None, oracle: Path | None = None
                     ) -> ReportFiles:
    """Write ``compare.html`` and ``compare.md``: the docs of several runs (``refs``) or of a
    sweep's runs side by side, per tool (default folder: the sweep's ``report/``, or
    ``runs/compare-<hash>/``)."""
    from play2prompt.report.compare import default_folder, from_runs, from_sweep
    from play2prompt.report.markdown import render_compare_markdown
    from play2prompt.report.render import render_compare_html
    from play2prompt.store.runs import default_runs_dir

    runs_dir = Path(runs_dir or default_runs_dir())
    if sweep:
        from play2prompt.sweep.runner import sweep_folder

        comparison = from_sweep(sweep, runs_dir, tools)
        out = Path(out_dir or sweep_folder(sweep, runs_dir) / "report")
    else:
        comparison = from_runs(refs, runs_dir, oracle, tools)
        out = Path(out_dir or default_folder(comparison, runs_dir))
    out.mkdir(parents=True, exist_ok=True)
    html_path, md_path = out / "compare.html", out / "compare.md"
    html_path.write_text(render_compare_html(comparison), encoding="utf-8")
    md_path.write_text(render_compare_markdown(comparison), encoding="utf-8")
    return ReportFiles(html_path, md_path)
