"""Shared fixtures. Tests never need a network or a key; the fake LM stands in for models."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from play2prompt.lm.fake import FakeLM
from play2prompt.store.db import RunStore
from play2prompt.tools.executors._base import ExecContext
from play2prompt.tools.loading import load_tools

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
SHARED_DATA = ROOT.parent / "shared" / "data"


@contextmanager
def module_context(folder: Path, filename: str, source: str,
                   **options: Any) -> Iterator[ExecContext]:
    """An execution context over ``folder`` holding the module ``filename`` written from
    ``source`` (tools a test defines for itself), closed afterwards."""
    (folder / filename).write_text(source)
    ctx = ExecContext(base_dir=folder, **options)
    try:
        yield ctx
    finally:
        ctx.close()


def pytest_configure(config):
    # DSPy imports LiteLLM, which otherwise fetches a model-cost map over the network on import
    # (and warns on stderr when it cannot): tests never reach for the network.
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")


def pytest_collection_modifyitems(config, items):
    if os.environ.get("P2P_REMOTE_TESTS") == "1":
        return
    skip = pytest.mark.skip(reason="needs a remote endpoint; set P2P_REMOTE_TESTS=1")
    for item in items:
        if "remote" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(autouse=True)
def _calibration_cache(tmp_path_factory, monkeypatch):
    """Each test has its own calibration cache: a test never reuses another's calibration."""
    path = tmp_path_factory.mktemp("calibrations") / "calibrations.json"
    monkeypatch.setenv("P2P_CALIBRATION_CACHE", str(path))


@pytest.fixture
def store(tmp_path: Path) -> RunStore:
    s = RunStore(tmp_path / "run" / "run.db")
    yield s
    s.close()


@pytest.fixture
def fake_lm() -> FakeLM:
    return FakeLM(fill_schema=True)


@pytest.fixture
def example_tools():
    return load_tools(EXAMPLES / "tools.json")


@pytest.fixture
def exec_ctx(tmp_path: Path) -> ExecContext:
    # generous: tools answer in milliseconds, but a busy host can take seconds to start one
    ctx = ExecContext(base_dir=EXAMPLES, default_timeout=30.0)
    yield ctx
    ctx.close()


@pytest.fixture
def engine_over(store):
    """Build an Engine over ``tools`` whose code lies in ``base_dir`` (a tools.json's folder),
    fakes as its models; each build's executors are closed after the test."""
    from play2prompt.config import preset
    from play2prompt.engine import build_engine

    contexts: list[ExecContext] = []

    def build(tools, base_dir):
        contexts.append(ExecContext(base_dir=base_dir, default_timeout=30.0))
        return build_engine(list(tools), store, preset("quick"), generator=FakeLM(),
                            task_model=FakeLM(), exec_ctx=contexts[-1])

    yield build
    for ctx in contexts:
        ctx.close()


@pytest.fixture
def make_engine(store, exec_ctx):
    """Build an Engine over ``tools`` with the given generator / task model (fakes)."""
    from play2prompt.config import preset
    from play2prompt.engine import build_engine

    engines = []

    def build(tools, generator, task_model=None, **overrides):
        config = preset("quick", **overrides)
        engine = build_engine(tools, store, config, generator=generator.with_log(store),
                              task_model=(task_model or generator).with_log(store),
                              exec_ctx=exec_ctx)
        engines.append(engine)
        return engine

    yield build
    for engine in engines:
        engine.runtime.close()
