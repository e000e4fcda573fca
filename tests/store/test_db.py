from play2prompt.lm._base import ChatRequest, Choice, Usage
from play2prompt.store.db import RunStore
from play2prompt.store.migrations import MIGRATIONS
from play2prompt.store.runs import create_run, list_runs, resolve_run
from play2prompt.tools.model import Invocation, Observation


def test_migrations_are_named_and_idempotent(tmp_path):
    store = RunStore(tmp_path / "r" / "run.db")
    assert store.applied_migrations() == [name for name, _ in MIGRATIONS]
    assert store.migrate() == []
    store.close()
    again = RunStore(tmp_path / "r" / "run.db")
    assert again.migrate() == []


def test_executions_candidates_results(store):
    inv = Invocation("t", {"a": 1})
    store.put_execution(inv.key(), inv, Observation.success({"x": 1}))
    assert store.get_execution(inv.key()).output == {"x": 1}
    store.put_candidate("c1", tool="t", stage="example", iteration=0, parent=None,
                        state="kept", reward=2.5, payload={"q": "hi"})
    assert store.candidates("t", "example")[0]["payload"] == {"q": "hi"}
    store.put_result("t", {"name": "t"})
    assert store.results() == {"t": {"name": "t"}}


def test_runs_folder(tmp_path):
    s = create_run(tmp_path, label="my tools", run_id="r1")
    s.set_meta("status", "done")
    s.close()
    assert resolve_run("r1", tmp_path) == tmp_path / "r1"
    assert [r.run_id for r in list_runs(tmp_path)] == ["r1"]


def _old_store(path):
    """A run store as written before migration 0006 (no per-sample cached-token count)."""
    import sqlite3

    store = RunStore(path)
    store.put_sample("k1", model="m", role="generator", index=0,
                     request=ChatRequest(({"role": "user", "content": "hi"},)),
                     choice=Choice("yes"), usage=Usage(30, 2, 20), latency_s=1.0)
    store.close()
    conn = sqlite3.connect(path)
    conn.executescript("ALTER TABLE llm_calls DROP COLUMN cached_tokens; "
                       "DELETE FROM migrations WHERE name = '0006_cached_tokens';")
    conn.close()


def test_each_sample_logs_the_prompt_tokens_served_from_cache(tmp_path):
    """Where prompt processing goes (issue 28): a sample's cached tokens are logged with it, so
    a run's table can say what each prompt made the model compute."""
    store = RunStore(tmp_path / "r" / "run.db")
    for i, cached in enumerate((20, 0)):
        store.put_sample(f"k{i}", model="m", role="generator", index=0,
                         request=ChatRequest(({"role": "system", "content": "same"},
                                              {"role": "user", "content": str(i)})),
                         choice=Choice("x"), usage=Usage(30, 2, cached), latency_s=1.0)
    (row,) = store.samples_by_opening()
    assert row[2:4] == (2, 60) and row[6] == 20
    store.close()


def test_a_store_from_before_the_cached_count_still_reads_and_migrates(tmp_path):
    path = tmp_path / "old" / "run.db"
    _old_store(path)
    old = RunStore(path, read_only=True)              # `p2p runs show` of an old run
    assert not old.has_cached_tokens() and old.samples_by_opening()[0][6] is None
    old.close()
    new = RunStore(tmp_path / "new" / "run.db")       # --reuse-calls from it
    assert new.import_samples(path, ["m"], "old") == 1 and new.get_sample("k1") == Choice("yes")
    new.close()
    again = RunStore(path)                            # opened to write: migrated
    assert again.has_cached_tokens() and again.samples_by_opening()[0][6] == 0
    again.close()
