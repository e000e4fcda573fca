"""Calibrations kept across runs: whether a generator can judge never changes for the same
model weights, the same meta-prompts m2 and m5 and the same calibration cases, so a run on a
model calibrated before (on this machine) spends no LLM call on it.

The key is the model's ``fingerprint`` (:attr:`play2prompt.lm._base.LM.fingerprint`: the
weights' sha256 for an embedded catalogue model; None for a backend whose weights cannot be
identified, which is never cached), the text of m2 and m5 and the calibration cases. The file
lives in the user cache folder; ``P2P_CALIBRATION_CACHE`` names another file, or ``off``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from play2prompt.jsonutil import stable_hash

FILE_NAME = "calibrations.json"


def cache_file() -> Path | None:
    """The cache file, or None when caching is off."""
    env = os.environ.get("P2P_CALIBRATION_CACHE", "")
    if env.lower() == "off":
        return None
    if env:
        return Path(env)
    import platformdirs

    return Path(platformdirs.user_cache_dir("play2prompt")) / FILE_NAME


def calibration_key(fingerprint: str | None, templates: Any, cases: Any) -> str | None:
    """The cache key of a calibration, or None when the model cannot be identified."""
    return None if not fingerprint else stable_hash(fingerprint, templates, cases)


def load_calibration(key: str | None, path: Path | None = None) -> dict[str, Any] | None:
    path = path or cache_file()
    if key is None or path is None:
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    found = data.get(key) if isinstance(data, Mapping) else None
    return dict(found) if isinstance(found, Mapping) else None


def save_calibration(key: str | None, calibration: Mapping[str, Any],
                     path: Path | None = None) -> None:
    """Record a calibration (best effort: a cache that cannot be written is no error)."""
    path = path or cache_file()
    if key is None or path is None:
        return
    try:
        data = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
        data = dict(data) if isinstance(data, Mapping) else {}
        data[key] = dict(calibration)
        path.parent.mkdir(parents=True, exist_ok=True)
        temp = path.with_name(f".{path.name}.{os.getpid()}.partial")
        temp.write_text(json.dumps(data, indent=1, sort_keys=True), encoding="utf-8")
        temp.replace(path)
    except (OSError, ValueError):
        return
