"""The meta table's keys are named once and read back as one typed record."""

from play2prompt.config import preset
from play2prompt.lm.fake import FakeLM
from play2prompt.optimize import optimize
from play2prompt.store.meta import Meta, RunMeta, Status
from play2prompt.store.runs import open_run
from tests.conftest import EXAMPLES


def test_every_key_is_a_field_of_the_record():
    keys = {v for k, v in vars(Meta).items() if k.isupper()}
    assert keys == set(RunMeta.__dataclass_fields__)


def test_a_finished_run_reads_back_typed(tmp_path, example_tools):
    result = optimize(example_tools[:1], generator=FakeLM(fill_schema=True),
                      config=preset("quick", optimize_docs=False), runs_dir=tmp_path,
                      base_dir=EXAMPLES)
    store = open_run(result.run_id, tmp_path, read_only=True)
    meta = store.run_meta()
    store.close()
    assert meta.run_id == result.run_id and meta.status == Status.DONE
    assert meta.models["generator"] == "fake" and meta.tools["tools"][0]["function"]["name"]
    assert meta.base_dir == str(EXAMPLES.resolve()) and meta.kind is None
    assert meta.config == result.config


def test_unknown_and_missing_keys():
    meta = RunMeta.from_dict({"status": "running", "something_else": 1})
    assert meta.status == "running" and meta.models == {} and meta.run_id is None
