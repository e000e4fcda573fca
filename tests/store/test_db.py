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
