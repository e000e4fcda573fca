"""Calibrations kept across runs, keyed by the model's fingerprint, m2/m5 and the cases."""

from __future__ import annotations

import asyncio

from play2prompt.config import preset
from play2prompt.lm.fake import FakeLM
from play2prompt.method.calibration import Calibration, calibration_cases
from play2prompt.optimize import run_calibration
from play2prompt.store.calibrations import (
    calibration_key,
    load_calibration,
    save_calibration,
)


class Fingerprinted(FakeLM):
    @property
    def fingerprint(self) -> str | None:
        return "weights-sha256"


def test_key_needs_a_fingerprint():
    assert calibration_key(None, "m2", calibration_cases()) is None
    a = calibration_key("w1", "m2", calibration_cases())
    assert a and a != calibration_key("w2", "m2", calibration_cases())
    assert a != calibration_key("w1", "m2 changed", calibration_cases())


def test_save_and_load_round_trip(tmp_path):
    path = tmp_path / "c.json"
    cal = Calibration(True, False, 1.0, 0.75, 0.5, 0.5)
    save_calibration("k", cal.to_dict(), path)
    assert Calibration.from_dict(load_calibration("k", path)) == cal
    assert load_calibration("other", path) is None
    assert load_calibration(None, path) is None
    path.write_text("not json")
    assert load_calibration("k", path) is None   # a broken cache is a miss, not an error


def test_second_run_spends_no_call_on_calibration(tmp_path):
    config = preset("quick")
    first = Fingerprinted(fill_schema=True)
    from play2prompt.store.db import RunStore

    s1 = RunStore(tmp_path / "a" / "run.db")
    found = asyncio.run(run_calibration(s1, config, first, None))
    assert first.stats.calls > 0
    second = Fingerprinted(fill_schema=True)
    s2 = RunStore(tmp_path / "b" / "run.db")
    again = asyncio.run(run_calibration(s2, config, second, None))
    assert second.stats.calls == 0 and again == found
    # a model nobody can identify is calibrated every time
    plain = FakeLM(fill_schema=True)
    asyncio.run(run_calibration(RunStore(tmp_path / "c" / "run.db"), config, plain, None))
    assert plain.stats.calls > 0
    s1.close()
    s2.close()
