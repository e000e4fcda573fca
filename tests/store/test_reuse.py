"""Identical LLM calls reused across runs (``--reuse-calls``): a rerun makes no call and gives
the same result, a changed setting makes fewer calls than from scratch and the same result,
another model or fingerprint reuses nothing, a killed seeded run resumes."""

import json

import pytest

from play2prompt.cli import main
from play2prompt.config import preset
from play2prompt.lm._base import ChatRequest, Choice, Usage
from play2prompt.lm.fake import FakeLM
from play2prompt.optimize import optimize
from play2prompt.store.db import RunStore
from tests.conftest import EXAMPLES
from tests.scale_support import tools_part


def _cli(tmp_path, run_id, *extra):
    code = main(["optimize", str(EXAMPLES / "tools.json"), "--tools", "loan_payment",
                 "--generator", "fake", "--preset", "quick", "--seed", "1",
                 "--runs-dir", str(tmp_path), "--run-id", run_id, "-q", *extra])
    assert code == 0
    return json.loads((tmp_path / run_id / "result.json").read_text())


def test_a_rerun_seeded_from_the_first_makes_no_call(tmp_path, capsys):
    first = _cli(tmp_path, "a")
    again = _cli(tmp_path, "b", "--reuse-calls", "a")
    assert again["stats"]["session"]["llm_calls"] == 0
    assert again["stats"]["session"]["cache_hits"] > 0
    reused = again["stats"]["reused_calls"]
    assert reused["runs"] == ["a"] and reused["seeded"] == first["stats"]["logged"]["samples"]
    assert 0 < reused["hit"] <= reused["seeded"]
    assert tools_part(tmp_path / "b") == tools_part(tmp_path / "a")
    assert "reused_calls" not in first["stats"]
    capsys.readouterr()
    assert main(["runs", "show", "b", "--runs-dir", str(tmp_path)]) == 0
    line = [x for x in capsys.readouterr().out.splitlines() if x.startswith("reused calls")]
    assert line == [f"reused calls: {reused['seeded']} samples seeded from run(s) a; "
                    f"{reused['hit']} of them answered this run"]


def test_a_changed_setting_makes_fewer_calls_and_the_same_result(tmp_path):
    _cli(tmp_path, "all")
    scratch = _cli(tmp_path, "scratch", "--no-probe")
    seeded = _cli(tmp_path, "seeded", "--no-probe", "--reuse-calls", "all")
    made, fresh = seeded["stats"]["session"]["llm_calls"], scratch["stats"]["session"]
    assert 0 < made < fresh["llm_calls"]
    assert tools_part(tmp_path / "seeded") == tools_part(tmp_path / "scratch")
    # the unused seeded samples are dropped: the log holds what the run used
    assert seeded["stats"]["logged"]["samples"] == scratch["stats"]["logged"]["samples"]


def _run(tmp_path, run_id, lm, reuse=()):
    tools = [t for t in _tools() if t.name == "loan_payment"]
    return optimize(tools, generator=lm, config=preset("quick"), runs_dir=tmp_path,
                    run_id=run_id, base_dir=EXAMPLES, reuse_calls=reuse)


def _tools():
    from play2prompt.tools.loading import load_tools

    return load_tools(EXAMPLES / "tools.json")


@pytest.mark.parametrize("model_id, fingerprint", [
    ("gen", "v2"),        # other weights under the same id
    ("gen", None),        # a model nothing identifies
    ("other", "v1"),      # another model
])
def test_another_model_or_fingerprint_reuses_nothing(tmp_path, model_id, fingerprint):
    _run(tmp_path, "first", FakeLM(fill_schema=True, model_id="gen", fingerprint="v1"))
    lm = FakeLM(fill_schema=True, model_id=model_id, fingerprint=fingerprint)
    second = _run(tmp_path, "second", lm, ["first"])
    assert second.stats["reused_calls"]["seeded"] == 0
    assert second.stats["session"]["cache_hits"] == 0 and len(lm.requests) > 0


def test_no_fingerprint_recorded_in_the_source_reuses_nothing(tmp_path):
    _run(tmp_path, "first", FakeLM(fill_schema=True, model_id="gen", fingerprint="v1"))
    store = RunStore(tmp_path / "first" / "run.db")
    store.set_meta("fingerprints", {})     # a run from before fingerprints were recorded
    store.close()
    lm = FakeLM(fill_schema=True, model_id="gen", fingerprint="v1")
    assert _run(tmp_path, "second", lm, ["first"]).stats["reused_calls"]["seeded"] == 0


class Killed(BaseException):
    """Stands in for a kill in the middle of a run."""


class KilledAfter(FakeLM):
    def __init__(self, after: int) -> None:
        super().__init__(fill_schema=True, model_id="gen", fingerprint="v1")
        self.after = after

    async def _generate(self, request):  # noqa: ANN001, ANN201
        if len(self.requests) >= self.after:
            raise Killed()
        return await super()._generate(request)


def test_a_killed_seeded_run_resumes(tmp_path):
    _run(tmp_path, "first", FakeLM(fill_schema=True, model_id="gen", fingerprint="v1"))
    tools = [t for t in _tools() if t.name == "loan_payment"]
    config = preset("quick", probe=False)
    kwargs = dict(config=config, runs_dir=tmp_path, base_dir=EXAMPLES)
    with pytest.raises(Killed):
        optimize(tools, generator=KilledAfter(3), run_id="killed", reuse_calls=["first"],
                 **kwargs)
    lm = FakeLM(fill_schema=True, model_id="gen", fingerprint="v1")
    resumed = optimize(generator=lm, resume="killed", runs_dir=tmp_path)
    scratch = optimize(tools, generator=FakeLM(fill_schema=True, model_id="gen"),
                       run_id="scratch", **kwargs)
    assert resumed.stats["reused_calls"]["hit"] > 0
    assert tools_part(tmp_path / "killed") == tools_part(tmp_path / "scratch")
    assert len(lm.requests) < scratch.stats["session"]["llm_calls"]


def test_an_unknown_run_to_reuse_is_one_line(tmp_path, capsys):
    code = main(["optimize", str(EXAMPLES / "tools.json"), "--generator", "fake",
                 "--runs-dir", str(tmp_path), "--run-id", "x", "-q", "--reuse-calls", "nope"])
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1 and "no run 'nope'" in err
    assert not (tmp_path / "x").exists()


def test_import_samples_is_one_fast_statement(tmp_path):
    src, dst = RunStore(tmp_path / "s" / "run.db"), RunStore(tmp_path / "d" / "run.db")
    with src.transaction():
        for i in range(10_000):
            src.put_sample(f"k{i}", model="m" if i % 2 else "n", role="generator", index=0,
                           request=ChatRequest(({"role": "user", "content": str(i)},)),
                           choice=Choice(str(i)), usage=Usage(1, 1), latency_s=0.0)
    dst.put_sample("k1", model="m", role="generator", index=0,
                   request=ChatRequest(({"role": "user", "content": "own"},)),
                   choice=Choice("own"), usage=Usage(), latency_s=0.0)
    assert dst.import_samples(src.path, ["m"], "s") == 4_999
    assert dst.get_sample("k1") == Choice("own") and dst.get_sample("k2") is None
    assert dst.get_sample("k3") == Choice("3") and dst.seeded_counts() == (4_999, 1)
    assert dst.prune_unused_seeds() == 4_998 and dst.call_stats()["total"]["samples"] == 2
    src.close()
    dst.close()
