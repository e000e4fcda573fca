"""Every registered benchmark keeps the benchmark contract (play2prompt.testing.benchmarks);
a benchmark without data for the contract here fails the registration test."""

from importlib.metadata import EntryPoint

import pytest

from play2prompt import benchmarks, plugins
from play2prompt.benchmarks import BUILTIN_BENCHMARKS, available_benchmarks, load_benchmark
from play2prompt.metaprompts import TEMPLATES
from play2prompt.testing.benchmarks import BenchmarkContract
from play2prompt.tools.executors._base import EXECUTORS
from tests.adapters.spider_fixture import build_tiny_spider
from tests.adapters.test_bfcl import make_wheel


def _bfcl(tmp_path):
    make_wheel(tmp_path / "bfcl")
    return tmp_path / "bfcl"


def _spider(tmp_path):
    from play2prompt.adapters.spider.build import build_spider

    build_spider(build_tiny_spider(tmp_path / "spider"), tmp_path / "out", generator=None)
    return tmp_path / "out"


# How to get data for each benchmark in a test (None: the benchmark finds its own; here
# StableToolBench's slice, through P2P_STB_DIR set by tests/adapters/conftest.py).
DATA = {"bfcl": _bfcl, "stabletoolbench": lambda _tmp: None, "spider": _spider,
        "tiny": lambda _tmp: None}


@pytest.fixture
def with_tiny(monkeypatch):
    """The tiny third-party benchmark, registered by entry point."""
    real = plugins.entry_points
    point = EntryPoint("tiny", "tests.adapters.tiny_benchmark:BENCHMARK",
                       benchmarks.ENTRY_POINT_GROUP)
    monkeypatch.setattr(plugins, "entry_points", lambda *, group: [point] if group ==
                        benchmarks.ENTRY_POINT_GROUP else real(group=group))
    # what loading it registers is forgotten after the test
    monkeypatch.setattr(EXECUTORS, "added", dict(EXECUTORS.added))
    monkeypatch.setattr(TEMPLATES, "added", dict(TEMPLATES.added))


@pytest.fixture(params=[*BUILTIN_BENCHMARKS, "tiny"])
def benchmark(request, with_tiny):
    return load_benchmark(request.param)


@pytest.fixture
def data_dir(benchmark, tmp_path):
    return DATA[benchmark.name](tmp_path)


class TestEveryBenchmark(BenchmarkContract):
    pass


def test_every_registered_benchmark_has_contract_data(with_tiny):
    assert set(available_benchmarks()) <= set(DATA)
