"""The report opens with the answer: did the run help? (a small run written by hand)."""

from __future__ import annotations

import re

import pytest

from play2prompt.cli import main
from play2prompt.errors import UserError
from play2prompt.report import build_report
from play2prompt.report.data import collect
from play2prompt.report.evals import SideScore, eval_views, primary
from play2prompt.report.summary import (
    HELPED,
    HURT,
    UNCLEAR,
    cost_items,
    first_screen,
    p_text,
    verdict,
)
from tests.report.fake_run import HEADLINE, RUN_ID, eval_summary, write_eval, write_run
from tests.report.test_report import Structure


@pytest.fixture
def runs(tmp_path):
    write_run(tmp_path / "runs")
    write_eval(tmp_path / "runs" / "eval-tiny")
    return tmp_path / "runs"


def _first_screen_html(page: str) -> str:
    return page[page.index('<header id="first-screen">'):page.index("</header>")]


def _text(fragment: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", fragment))


def test_the_first_screen_answers(runs):
    screen = first_screen(collect(RUN_ID, runs))
    assert screen.headline == HEADLINE and screen.verdict == HELPED
    assert [(s.label, s.accuracy, s.wins, s.losses) for s in screen.sides] == [
        ("original", 20.0, None, None), ("optimized", 60.0, 13, 1), ("oracle", 76.7, 17, 0)]
    assert [(t.name, t.changed, t.demos, t.accuracy) for t in screen.tools] == [
        ("convert_units", True, 0, (10.0, 70.0, 80.0)),
        ("add_days", False, 2, (50.0, 60.0, 60.0)),
        ("loan_payment", True, 0, (0.0, 50.0, 90.0))]
    assert "30 queries, task model fake-task" in screen.detail


def test_first_screen_html(runs, tmp_path):
    files = build_report(RUN_ID, runs, tmp_path / "out")
    page = files.html.read_text()
    parser = Structure()
    parser.feed(page)
    assert parser.errors == [] and parser.stack == []
    top = _first_screen_html(page)
    text = _text(top)
    assert "helped" in text and HEADLINE.replace(">", "&gt;") in top
    for needle in ("original docs 20.0 %", "optimized docs 60.0 %", "oracle docs 76.7 %",
                   "+13 / -1 queries vs original, p=0.002"):
        assert needle in text, needle
    # one row per tool: doc changed or kept, the reason (escaped), demos, its accuracy
    rows = re.findall(r"<tr><td class=\"name\">.*?</tr>", top, re.S)
    assert len(rows) == 3
    assert re.search(r"add_days.*kept.*kept the original: it already solves all 4 verified "
                     r"examples &lt;no search&gt;.*>2<.*50.0 %.*60.0 %.*60.0 %", rows[1], re.S)
    assert "changed" in rows[0] and "70.0 %" in rows[0]
    assert "<no search>" not in page       # autoescaped
    # the evaluation once: one section, its comparison only at the top
    assert page.count("<h3>tools: task model fake-task") == 1
    assert page.count("+13 / -1") == 1 and "wins vs original" not in page
    assert files.sentence == f"Helped: {HEADLINE}"


def test_cost_in_words(runs, tmp_path):
    page = build_report(RUN_ID, runs, tmp_path / "out").html.read_text()
    cost = page[page.index('id="cost"'):page.index('id="evaluations"')]
    assert "wall time" in cost and "28 min 16 s" in cost and "tool executions reused" in cost
    assert not re.search(r"\b[a-z]+_[a-z_]+\b", _text(cost))     # no raw key like wall_s
    assert dict(cost_items({"prompt_tokens": 123455, "wall_s": 12.34})) == {
        "prompt tokens": "123,455", "wall time": "12.3 s"}


def test_a_short_run_draws_what_it_has(runs, tmp_path):
    files = build_report(RUN_ID, runs, tmp_path / "out")
    # the run's play and examples, and each tool's two-iteration reward curve; a doc score
    # of one iteration is a value in words
    assert list(files.charts.run) == ["play-and-examples"]
    assert {t: list(c) for t, c in files.charts.tools.items()} == {
        t: ["rewards"] for t in ("convert_units", "add_days", "loan_payment")}
    assert files.html.read_text().count("<img") == files.charts.count == 4
    md = files.markdown.read_text()
    assert md.count("doc score: 0.50, one iteration scored: no curve") == 3
    assert "](plots/play-and-examples.png)" in md and "](plots/add_days-example-reward.png)" in md


def test_not_evaluated(tmp_path):
    write_run(tmp_path / "runs")
    files = build_report(RUN_ID, tmp_path / "runs", tmp_path / "out")
    assert files.verdict is None
    assert files.headline == "2 of 3 docs changed, 2 demos shipped; not evaluated"
    page = files.html.read_text()
    top = _first_screen_html(page)
    assert "p2p eval tools" in top and 'class="scores"' not in top
    assert "<th class=\"num\">original</th>" not in top and 'id="evaluations"' not in page


def test_an_eval_folder_given(tmp_path):
    write_run(tmp_path / "runs")
    write_eval(tmp_path / "elsewhere" / "ev")
    files = build_report(RUN_ID, tmp_path / "runs", tmp_path / "out",
                         [tmp_path / "elsewhere" / "ev"])
    assert files.headline == HEADLINE
    write_eval(tmp_path / "other", prompts="another-run")
    with pytest.raises(UserError, match="prompts of another-run, not of run tiny"):
        build_report(RUN_ID, tmp_path / "runs", tmp_path / "out", [tmp_path / "other"])


def test_cli_prints_the_answer(runs, tmp_path, capsys):
    code = main(["report", RUN_ID, "--runs-dir", str(runs), "-o", str(tmp_path / "o")])
    assert code in (0, None)
    assert f"Helped: {HEADLINE}" in capsys.readouterr().out.replace("\n", " ")
    assert main(["report", RUN_ID, "other", "--eval", str(tmp_path), "--runs-dir",
                 str(runs)]) == 2


def test_one_view_per_evaluation():
    cfg = {"suite": "s", "task_model": "m", "prompts": "r", "variant": "full"}
    summary = eval_summary(with_oracle=False)
    same = [{"id": f"s:{side}", "config": cfg, "summary": summary, "source": "f", "created": 1}
            for side in ("baseline", "full")]
    sweep = [{"id": f"sweep:x:{i}", "config": {**cfg, "seed": i}, "summary": summary,
              "source": "run", "created": 2 + i} for i in range(2)]
    views = eval_views([*same, *sweep])
    assert [v.id for v in views] == ["s", "sweep:x:0", "sweep:x:1"]
    assert primary(views) is views[-1]
    assert [s.label for s in views[0].scores()] == ["original", "optimized"]


@pytest.mark.parametrize(("wins", "losses", "p", "expected"), [
    (13, 1, 0.002, HELPED), (1, 13, 0.002, HURT), (3, 1, 0.62, UNCLEAR), (None, None, None, None)])
def test_verdict(wins, losses, p, expected):
    assert verdict(SideScore("full", "optimized", 50.0, wins, losses, p)) == expected


def test_p_text():
    assert [p_text(p) for p in (0.0, 0.0004, 0.002, 0.05, 0.5, None)] == [
        "p<0.001", "p<0.001", "p=0.002", "p=0.05", "p=0.50", "-"]
