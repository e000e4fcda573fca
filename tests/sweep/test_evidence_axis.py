"""The sweep's evidence axis: parsing (all, none, -NAME, a+b, ablation), its run keys, and a
sweep whose trials seed their call logs from the earlier ones."""

import pytest

from play2prompt.config import preset
from play2prompt.errors import UserError
from play2prompt.evidence.names import EVIDENCE, FACT_READER, FACTS_DOC, PROBES
from play2prompt.sweep.evidence_axis import evidence_of
from play2prompt.sweep.runner import run_sweep
from play2prompt.sweep.space import SweepSpace, plan_trial
from tests.sweep.helpers import CountingLM, spec, target, task_model


def test_values_map_to_the_components():
    space = SweepSpace.parse(["evidence=all,none,-probes,fact-reader+facts-doc"])
    assert space.values["evidence"] == ("all", "none", "-probes", "fact-reader+facts-doc")
    plans = [plan_trial(p, preset("quick"), 3) for p in space.grid()]
    assert [p.config.evidence for p in plans] == [
        EVIDENCE, (), tuple(n for n in EVIDENCE if n != PROBES), (FACT_READER, FACTS_DOC)]
    assert evidence_of("-probes+facts-doc") == tuple(
        n for n in EVIDENCE if n not in (PROBES, FACTS_DOC))


def test_ablation_is_all_each_off_and_none():
    values = SweepSpace.parse(["evidence=ablation"]).values["evidence"]
    assert values == ("all", *(f"-{n}" for n in EVIDENCE), "none") and len(values) == 27


@pytest.mark.parametrize("bad", ["-probe", "probes+colour", "+", "-", "everything"])
def test_a_bad_name_is_one_line(bad):
    with pytest.raises(UserError) as err:
        SweepSpace.parse([f"evidence={bad}"])
    assert "\n" not in str(err.value) and "evidence" in str(err.value)


def test_the_run_key_differs_by_evidence():
    default = ("-doc-completion+value-probes+request-parts+known-operations"
               "+output-units+reread+relabel+levels")
    space = SweepSpace.parse([f"evidence=all,-probes,none,{default}"])
    keys = [plan_trial(p, preset("quick"), 3).opt_key("tools") for p in space.grid()]
    assert len(set(keys)) == 4
    plain = plan_trial({"variant": "full"}, preset("quick"), 3).opt_key("tools")
    assert keys[3] == plain      # the default: all but eight (evidence/names.py)


class FingerprintedLM(CountingLM):
    @property
    def fingerprint(self):  # noqa: ANN201
        return "counting-v1"


def test_a_sweep_seeds_later_trials_from_earlier_ones(tmp_path):
    gen = FingerprintedLM()
    result = run_sweep(spec("abl", "full", space=["evidence=all,-probes"]), target(tmp_path),
                       generator=gen, task_model=task_model(), runs_dir=tmp_path / "runs",
                       log=lambda _m: None)
    rows = result.trials.to_dict("records")
    assert [r["evidence"] for r in rows] == ["all", "-probes"]
    assert rows[0]["run_id"] != rows[1]["run_id"]
    assert rows[0]["opt_reused_calls"] == 0 < rows[1]["opt_reused_calls"]
    assert rows[1]["opt_new_calls"] < rows[0]["opt_new_calls"]
    assert {"wins", "losses"} <= set(rows[1])
    summary = result.summary.to_dict("records")   # a block per value, shown as written
    assert [(r["method"], r["evidence"]) for r in summary] == [
        ("baseline", "-probes"), ("P2P", "-probes"), ("baseline", "all"), ("P2P", "all")]
    alone = CountingLM()
    solo = run_sweep(spec("solo", "full", space=["evidence=-probes"]), target(tmp_path / "b"),
                     generator=alone, task_model=task_model(), runs_dir=tmp_path / "b" / "runs",
                     log=lambda _m: None)
    solo_row = solo.trials.to_dict("records")[0]
    assert solo_row["accuracy"] == rows[1]["accuracy"]       # same answers, fewer calls
    assert rows[1]["opt_new_calls"] < solo_row["opt_new_calls"]


def test_a_sweep_reuses_the_calls_of_a_run_outside_it(tmp_path):
    gen = FingerprintedLM()
    first = run_sweep(spec("one", "full", space=["evidence=all"]), target(tmp_path),
                      generator=gen, task_model=task_model(), runs_dir=tmp_path / "runs",
                      log=lambda _m: None)
    outside = first.trials.to_dict("records")[0]["run_id"]
    again = run_sweep(spec("two", "full", space=["evidence=all"], reuse_calls=(outside,)),
                      target(tmp_path), generator=gen, task_model=task_model(),
                      runs_dir=tmp_path / "runs", log=lambda _m: None)
    row = again.trials.to_dict("records")[0]
    assert row["run_id"] != outside
    before = first.trials.to_dict("records")[0]
    assert row["opt_reused_calls"] > 0            # the generator's calls (fingerprinted)
    assert row["opt_new_calls"] < before["opt_new_calls"]
    assert row["accuracy"] == before["accuracy"]
