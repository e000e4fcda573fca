"""``p2p report``: a stored run's report has every tool, a plot per chart, valid HTML."""

from html.parser import HTMLParser

from play2prompt.report import build_report
from play2prompt.report.data import best_per_iteration
from play2prompt.report.diff import diff_html, diff_markdown, word_ops
from play2prompt.store.db import RunStore
from play2prompt.sweep.runner import run_sweep
from tests.sweep.helpers import CountingLM, spec, target, task_model

VOID = {"meta", "img", "br", "hr", "link", "input"}


class Structure(HTMLParser):
    """Checks that every element is closed in order and counts tags and ids."""

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[str] = []
        self.errors: list[str] = []
        self.counts: dict[str, int] = {}
        self.ids: set[str] = set()
        self.img_sources: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.counts[tag] = self.counts.get(tag, 0) + 1
        attrs = dict(attrs)
        if "id" in attrs:
            self.ids.add(attrs["id"])
        if tag == "img":
            self.img_sources.append(attrs.get("src", ""))
        if tag not in VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag):
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"unexpected </{tag}> (open: {self.stack[-3:]})")
        else:
            self.stack.pop()


def test_word_diff():
    ops = word_ops("Monthly payment of a loan.", "Monthly payment of a loan in percent.")
    assert ops == [("=", "Monthly payment of a loan"), ("+", " in percent"), ("=", ".")]
    assert word_ops("the value", "the value.") == [("=", "the value"), ("+", ".")]
    old, new = "Rate (percent), e.g. 5.", "Rate as a fraction, e.g. 0.05!"
    pieces = word_ops(old, new)     # the pieces join back into both texts
    assert "".join(t for op, t in pieces if op != "+") == old
    assert "".join(t for op, t in pieces if op != "-") == new
    assert diff_html("a <b>", "a c") == "a <del>&lt;b&gt;</del><ins>c</ins>"
    assert diff_markdown("x y", "x z") == "x ~~y~~**z**"
    assert diff_markdown("the value", "the value.") == "the value**.**"
    assert diff_markdown("a b", "a c d") == "a ~~b~~**c d**"


def test_best_per_iteration_ignores_rejected_candidates():
    rows = [{"iteration": 0, "reward": 1.0}, {"iteration": 0, "reward": 2.0},
            {"iteration": 2, "reward": 1.5}, {"iteration": -1, "reward": None}]
    assert best_per_iteration(rows) == (2.0, None, 1.5)


def test_report_from_a_stored_run(tmp_path):
    result = run_sweep(spec("rep", "full"), target(tmp_path), generator=CountingLM(),
                       task_model=task_model(), runs_dir=tmp_path / "runs", log=lambda _m: None)
    run_id = result.trials.iloc[0]["run_id"]
    files = build_report(run_id, tmp_path / "runs")
    store = RunStore(tmp_path / "runs" / run_id / "run.db", read_only=True)
    tools = list(store.results())
    assert len(store.sessions()) == 1
    store.close()
    assert sorted(tools) == ["body_mass_index", "loan_payment"]
    html = files.html.read_text()
    parser = Structure()
    parser.feed(html)
    parser.close()
    assert html.startswith("<!DOCTYPE html>")
    assert parser.errors == [] and parser.stack == []
    assert parser.counts["html"] == parser.counts["body"] == 1
    assert {f"tool-{t}" for t in tools} <= parser.ids
    # A quick run: the run's play and examples; a curve where a search has two iterations
    assert "play-and-examples" in files.charts.run
    assert len(parser.img_sources) == files.charts.count
    for needle in ("invocation success rate", "executed output", "<ins>", "wall time",
                   "LLM calls answered from the cache", "Evaluations", "original exec %",
                   'id="headline"', 'id="search"'):
        assert needle in html, needle
    # the sweep recorded its comparison in the run's store: the first screen shows it
    assert "(+2/-0, p=0.50)" in files.headline and files.verdict == "no clear difference"
    md = files.markdown.read_text()
    for tool in tools:
        assert f"## {tool}" in md
    assert "](plots/play-and-examples.png)" in md
