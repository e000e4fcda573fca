"""``--executor ray``: each tool is a Ray task with its own models and store; results and logs
come back into the one run store, identical to a single-process run; a lost worker's tool is
rerun from what it logged. The Ray tests run on a local instance when Ray is installed."""

import json
import os
import sys

import pytest

from play2prompt.config import preset
from play2prompt.distributed import ToolJob, run_tool_job, worker_store_path
from play2prompt.errors import LMError, MissingExtraError
from play2prompt.optimize import optimize
from play2prompt.store.db import RunStore
from play2prompt.store.runs import open_run
from tests.conftest import EXAMPLES, ROOT
from tests.extras import need
from tests.scale_support import CrashOnce, JitterLM, tools_part
from tests.test_concurrency import DeadFor

# A generous tool timeout: the tools answer in milliseconds, but a busy host can take seconds
# to start a tool process, and a timeout would make the two runs differ.
CONFIG = preset("quick", seed=5, tool_timeout=60.0,
                choose_demo_count=False)  # every run ships its k demos


def _run(tools, lm, tmp_path, run_id, **kwargs):
    return optimize(tools, generator=lm, config=CONFIG, runs_dir=tmp_path, run_id=run_id,
                    base_dir=EXAMPLES, **kwargs)


KEEP = {"llm_calls": ("key", "status", "response"), "executions": ("key", "ok", "observation"),
        "blobs": ("key", "value"),
        "candidates": ("id", "tool", "stage", "iteration", "parent", "state", "reward",
                       "payload"),
        "seeded_calls": ("key", "source", "hit")}


def _timeless(value):
    if isinstance(value, dict):
        return {k: _timeless(v) for k, v in value.items() if k not in ("latency", "latency_s")}
    if isinstance(value, list):
        return [_timeless(v) for v in value]
    return value


def _rows(run_dir):
    """What a run logged, without timings."""
    store = open_run(run_dir, read_only=True)
    out = {}
    for table, part in store.export_rows().items():
        idx = [part["columns"].index(c) for c in KEEP[table]]
        out[table] = sorted(
            json.dumps([_timeless(json.loads(r[i])) if isinstance(r[i], str) and
                        r[i][:1] in "{[" else r[i] for i in idx], sort_keys=True)
            for r in part["rows"])
    store.close()
    return out


def test_a_worker_job_runs_in_process_and_returns_its_rows(tmp_path, example_tools):
    tool = next(t for t in example_tools if t.name == "loan_payment")
    job = ToolJob(config=CONFIG.to_dict(), models={"generator": JitterLM(rng_seed=1)},
                  max_concurrency=4, base_dir=str(EXAMPLES), run_dir=str(tmp_path),
                  tool_timeout=5.0, tool=tool.to_dict())
    out = run_tool_job(job)
    assert out["result"]["name"] == "loan_payment" and out["result"]["demos"]
    assert out["stats"]["llm_calls"] > 10 and out["stats"]["tool_executions"] > 0
    assert worker_store_path(tmp_path, "loan_payment").is_file()
    # The rows merge into an empty store as they are; a second merge adds nothing.
    store = RunStore(tmp_path / "merged" / "run.db")
    added = store.import_rows(out["rows"])
    assert added == sum(len(p["rows"]) for p in out["rows"].values())
    assert store.import_rows(out["rows"]) == 0
    # Seeded with them, a rerun of the job makes no LLM call at all.
    again = run_tool_job(ToolJob(**{**job.__dict__, "run_dir": str(tmp_path / "other"),
                                    "seed_rows": store.export_rows("loan_payment")}))
    assert again["stats"]["llm_calls"] == 0 and again["result"] == out["result"]
    store.close()


def test_ray_executor_without_ray_names_the_extra(tmp_path, example_tools, monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)
    with pytest.raises(MissingExtraError, match=r"play2prompt\[ray\]"):
        _run(example_tools[:1], JitterLM(), tmp_path, "noray", executor="ray")


@pytest.fixture(scope="module")
def ray_cluster():
    ray = need("ray", "ray")
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)
    options = dict(num_cpus=2, include_dashboard=False, log_to_driver=False,
                   configure_logging=False, runtime_env={"env_vars": {"PYTHONPATH": path}})
    try:
        ray.init(**options)
    except Exception as exc:  # noqa: BLE001 - a raylet that starts too slowly on a busy host
        if "timed out during startup" not in str(exc):
            raise
        ray.shutdown()
        ray.init(**options)        # once more; a second failure fails the tests
    yield ray
    ray.shutdown()


def test_a_workers_answers_from_seeded_samples_are_counted_on_the_driver(tmp_path,
                                                                          example_tools):
    """``--reuse-calls`` with the Ray runner: the samples a worker is answered from are marked
    used in the run store when its rows merge (not only those the driver itself asked)."""
    tool = next(t for t in example_tools if t.name == "loan_payment")
    job = ToolJob(config=CONFIG.to_dict(), models={"generator": JitterLM(rng_seed=1)},
                  max_concurrency=4, base_dir=str(EXAMPLES), run_dir=str(tmp_path / "w1"),
                  tool_timeout=5.0, tool=tool.to_dict())
    first = run_tool_job(job)
    earlier = RunStore(tmp_path / "earlier" / "run.db")
    earlier.import_rows(first["rows"])
    models = sorted({r[first["rows"]["llm_calls"]["columns"].index("model")]
                     for r in first["rows"]["llm_calls"]["rows"]})
    earlier.close()
    run = RunStore(tmp_path / "run" / "run.db")
    seeded = run.import_samples(tmp_path / "earlier" / "run.db", models, "earlier")
    assert seeded > 0 and run.seeded_counts() == (seeded, 0)
    again = run_tool_job(ToolJob(**{**job.__dict__, "run_dir": str(tmp_path / "w2"),
                                    "seed_rows": run.export_rows("loan_payment")}))
    assert again["stats"]["llm_calls"] == 0
    run.import_rows(again["rows"])
    assert run.seeded_counts() == (seeded, seeded)          # every one answered a request
    assert run.prune_unused_seeds() == 0
    run.close()


def test_ray_run_matches_the_single_process_run(ray_cluster, tmp_path, example_tools):
    local = _run(example_tools, JitterLM(rng_seed=1), tmp_path, "local")
    dist = _run(example_tools, JitterLM(rng_seed=2), tmp_path, "ray", executor="ray")
    assert tools_part(dist.run_dir) == tools_part(local.run_dir)
    assert _rows(dist.run_dir) == _rows(local.run_dir)     # the logs came back, all of them
    assert dist.stats["session"]["llm_calls"] == local.stats["session"]["llm_calls"]
    assert len(dist.stats["workers"]) == len(example_tools)
    assert not (dist.run_dir / "workers").exists()        # merged, then removed
    # Redoing every tool on the cluster from the run's log: the workers are seeded with the
    # logged rows, so no LLM call and no tool execution is made, and the result is the same.
    again = optimize(generator=JitterLM(), resume="ray", runs_dir=tmp_path, executor="ray",
                     recompute=True)
    assert len(again.stats["workers"]) == len(example_tools)
    assert again.stats["session"]["llm_calls"] == 0 and again.stats["tool_executions"] == 0
    assert tools_part(again.run_dir) == tools_part(local.run_dir)


def test_a_lost_worker_is_rerun_from_what_it_logged(ray_cluster, tmp_path, example_tools):
    tools = example_tools[:3]
    victim = tools[0].name
    marker = tmp_path / "crashed"
    local = _run(tools, JitterLM(rng_seed=3), tmp_path, "local")
    lm = CrashOnce(victim, after=8, marker=marker, rng_seed=4)
    dist = _run(tools, lm, tmp_path, "crash", executor="ray")
    assert marker.exists()                                   # a worker really died
    assert tools_part(dist.run_dir) == tools_part(local.run_dir)
    rerun = next(w for w in dist.stats["workers"]
                 if w["worker_store"].endswith(f"{victim}.db"))
    assert rerun["cache_hits"] >= 8                          # the lost attempt's calls replayed


def test_a_failing_tool_on_ray_keeps_its_log_and_the_others(ray_cluster, tmp_path,
                                                            example_tools):
    tools = example_tools[:3]
    victim = tools[2].name
    with pytest.raises(LMError, match=rf"tool '{victim}'.*timed out"):
        _run(tools, DeadFor(victim, rng_seed=5), tmp_path, "dead", executor="ray")
    store = open_run("dead", tmp_path, read_only=True)
    assert set(store.results()) == {t.name for t in tools} - {victim}
    failed = store._query("SELECT tag FROM llm_calls WHERE status = 'error'")
    assert failed and {r[0] for r in failed} == {victim}
    store.close()
