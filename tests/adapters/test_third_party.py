"""A benchmark registered by entry point gets ``p2p data NAME``, ``p2p eval NAME`` and
``p2p optimize --benchmark NAME``; its executor kinds and templates are found by the core's
registries, which never name it."""

from importlib.metadata import EntryPoint

import pytest

from play2prompt import benchmarks, plugins
from play2prompt.cli import main
from play2prompt.metaprompts import TEMPLATES, MetaPrompts
from play2prompt.tools.executors._base import (
    EXECUTORS,
    ExecContext,
    available_executors,
    make_executor,
)

from .tiny_benchmark import TOOL


@pytest.fixture
def tiny_registered(monkeypatch):
    real = plugins.entry_points
    point = EntryPoint("tiny", "tests.adapters.tiny_benchmark:BENCHMARK",
                       benchmarks.ENTRY_POINT_GROUP)

    def fake(*, group):
        return [point] if group == benchmarks.ENTRY_POINT_GROUP else real(group=group)

    monkeypatch.setattr(plugins, "entry_points", fake)
    # what loading it registers is forgotten after the test
    monkeypatch.setattr(EXECUTORS, "added", dict(EXECUTORS.added))
    monkeypatch.setattr(TEMPLATES, "added", dict(TEMPLATES.added))


def test_registered_benchmark_is_found(tiny_registered):
    assert "tiny" in benchmarks.available_benchmarks()
    bench = benchmarks.load_benchmark("tiny")
    assert isinstance(bench, benchmarks.Benchmark)
    assert available_executors()["tiny_exec"].endswith(":DoubleExecutor")
    obs = make_executor(TOOL, ExecContext()).execute({"x": 4})
    assert obs.ok and obs.output == 8
    assert MetaPrompts().render("tiny_prompt", n=3)[-1]["content"] == "Is 3 tiny?"


def test_unregistered_it_is_unknown():
    assert "tiny" not in benchmarks.available_benchmarks()
    assert "tiny_exec" not in available_executors()


def test_its_kinds_are_known_once_it_is_loaded_not_before(tiny_registered):
    """The executor and template registries never ask the benchmark registry: a benchmark
    adds to them when it is loaded."""
    assert "tiny_exec" not in available_executors() and "tiny_prompt" not in TEMPLATES.targets()
    benchmarks.load_benchmark("tiny")
    assert "tiny_exec" in available_executors() and "tiny_prompt" in TEMPLATES.targets()


def test_the_builtin_benchmarks_kinds_are_found_without_loading_them():
    """Declared as entry points (pyproject.toml) with the targets the benchmarks name."""
    executors = plugins.registered({}, EXECUTORS.group)
    templates = plugins.registered({}, TEMPLATES.group)
    for name in benchmarks.BUILTIN_BENCHMARKS:
        bench = plugins.load_target(benchmarks.BUILTIN_BENCHMARKS[name], "BENCHMARK")
        for kind, target in bench.executors.items():
            assert executors[kind] == target
        for template, target in bench.templates.items():
            package, _, path = target.partition(":")
            expected = f"{package}.{path.removesuffix('.txt').replace('/', '.')}"
            assert templates[template].replace(":", ".") == expected


def test_p2p_data_and_eval(tiny_registered, tmp_path, capsys):
    assert main(["data", "tiny", "--size", "3"]) == 0
    out = capsys.readouterr()
    assert "tiny data" in out.out and "tiny: done" in out.out and "a note" in out.err
    assert main(["eval", "tiny", "-o", str(tmp_path / "e")]) == 0
    out = capsys.readouterr().out
    assert "tiny: exec accuracy" in out and (tmp_path / "e" / "summary.md").is_file()
    assert main(["eval", "--help"]) == 0 and "tiny" in capsys.readouterr().out


def test_p2p_optimize_with_the_benchmark(tiny_registered, tmp_path, capsys):
    code = main(["optimize", "--benchmark", "tiny", "--generator", "fake", "--preset", "quick",
                 "--no-docs", "--runs-dir", str(tmp_path), "-q"])
    assert code == 0, capsys.readouterr().err
    assert "double" in capsys.readouterr().out
