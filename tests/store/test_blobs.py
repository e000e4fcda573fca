"""A store grows with the distinct data, not with repeats (issue 29, item 9): identical large
outputs and error texts are kept once, under the hash of their content."""

from __future__ import annotations

from play2prompt.store.db import RunStore
from play2prompt.tools.model import Invocation, Observation

MB = 2**20


def _size(store: RunStore) -> int:
    store._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return store.path.stat().st_size


def test_fifteen_identical_one_mb_error_texts_cost_one_mb(tmp_path):
    store = RunStore(tmp_path / "run.db")
    before = _size(store)
    error = "ValueError: " + "the same long complaint " * (MB // 24)
    for i in range(15):
        obs = Observation.failure("exception", error)
        store.put_execution(f"k{i}", Invocation("t", {"i": i}), obs)
        store.put_candidate(f"c{i}", tool="t", stage="play", iteration=0, parent=None,
                            state="done", reward=None, payload={"observation": obs.to_dict()})
    grown = _size(store) - before
    assert 0.9 * MB < grown < 1.5 * MB, grown
    assert store.get_execution("k7").error == error
    assert store.candidates("t")[3]["payload"]["observation"]["error"] == error
    assert store.executions("t")[14][1].error == error
    store.close()


def test_identical_outputs_are_stored_once_and_small_ones_inline(tmp_path):
    store = RunStore(tmp_path / "run.db")
    big = {"rows": ["x" * 100] * 2000}
    for i in range(5):
        store.put_execution(f"k{i}", Invocation("t", {"i": i}), Observation.success(big))
    store.put_execution("small", Invocation("t", {"i": 9}), Observation.failure("schema", "no"))
    assert store._conn.execute("SELECT COUNT(*) FROM blobs").fetchone()[0] == 1
    assert store.get_execution("k4").output == big
    assert store.get_execution("small").error == "no"
    store.close()
