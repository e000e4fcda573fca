"""A catalogue model's file on this machine: found in its package, or assembled from parts.

A model split into part packages is concatenated, on first use, into the model directory (the
user cache directory, or ``$P2P_MODEL_DIR``): streamed part by part (never the whole file in
memory) into a temporary file in that directory, checked against the pinned size and sha256,
then renamed into place, so a file under the final name is always complete and verified. A
stamp beside it records the verified hash with the file's size and modification time; later
uses compare those instead of hashing a gigabyte again. One assembly at a time per model (a
lock file); temporary files left by a killed assembly are removed by the next one.

Parts are found with :func:`importlib.util.find_spec`, never imported.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import importlib.util
import json
import os
import shutil
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, BinaryIO

from filelock import FileLock

from play2prompt.errors import LMError
from play2prompt.lm.models import ModelRecord, Part

MODEL_DIR_ENV = "P2P_MODEL_DIR"
CHUNK = 8 << 20
TEMP_SUFFIX = ".partial"
_NO_SPACE = {errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC)}


def model_dir() -> Path:
    """Where assembled models live: ``$P2P_MODEL_DIR``, else the user cache directory."""
    env = os.environ.get(MODEL_DIR_ENV)
    if env:
        return Path(env).expanduser()
    import platformdirs

    return platformdirs.user_cache_path("play2prompt") / "models"


def find_part(part: Part) -> Path | None:
    """The installed file of ``part``, or None (the package is not imported)."""
    try:
        spec = importlib.util.find_spec(part.module)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    for location in spec.submodule_search_locations:
        path = Path(location) / part.path
        if path.is_file():
            return path
    return None


def find_parts(record: ModelRecord) -> tuple[list[Path], tuple[Part, ...]]:
    """The installed part files in order, and the parts that are missing."""
    found: list[Path] = []
    missing: list[Part] = []
    for part in record.parts:
        path = find_part(part)
        if path is None:
            missing.append(part)
        else:
            found.append(path)
    return found, tuple(missing)


def assembled_path(record: ModelRecord, directory: Path | None = None) -> Path:
    return (directory or model_dir()) / (record.file_name or f"{record.name}.gguf")


def stamp_path(path: Path) -> Path:
    return path.with_name(path.name + ".verified")


def is_verified(record: ModelRecord, path: Path) -> bool:
    """Cheap check of an assembled file: its stamp names the pinned hash and the file still
    has the size and modification time it had when that hash was computed."""
    try:
        stat = path.stat()
        stamp = json.loads(stamp_path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return (isinstance(stamp, dict) and stamp.get("sha256") == record.sha256
            and stat.st_size == record.size == stamp.get("size")
            and stat.st_mtime_ns == stamp.get("mtime_ns"))


def model_file(record: ModelRecord, directory: Path | None = None,
               progress: bool = True) -> Path:
    """The model's file, ready to load: in its package, or assembled (first use) and verified.

    ``progress``: show a progress bar on stderr while assembling or verifying."""
    if record.in_place:
        return _in_place(record)
    target = assembled_path(record, directory)
    if is_verified(record, target):
        return target
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise LMError(f"model {record.name}: cannot create {target.parent} ({exc.strerror}); "
                      f"set {MODEL_DIR_ENV} to a writable directory") from exc
    with _locked(target):
        if is_verified(record, target):       # another process finished it meanwhile
            return target
        _remove_stale(target)
        if target.is_file() and _verify_existing(record, target, progress):
            return target
        return _assemble(record, target, progress)


def _in_place(record: ModelRecord) -> Path:
    part = record.parts[0]
    path = find_part(part)
    if path is None:
        raise LMError(f"model {record.name} is not installed: {record.install_hint()}")
    size = path.stat().st_size
    if size != record.size:
        raise LMError(f"model {record.name}: {path} has {size:,} bytes, expected "
                      f"{record.size:,}: {record.install_hint('--force-reinstall')}")
    return path


@contextlib.contextmanager
def _locked(target: Path) -> Iterator[None]:
    """Hold an exclusive lock for assembling ``target``, waiting for another assembly to end
    (``filelock``: ``flock`` on POSIX, ``LockFileEx`` on Windows)."""
    with FileLock(target.with_name(f".{target.name}.lock")):
        yield


def temp_files(target: Path) -> list[Path]:
    """Temporary files of assemblies of ``target`` (complete or not, never verified)."""
    return sorted(target.parent.glob(f".{target.name}.*{TEMP_SUFFIX}"))


def _remove_stale(target: Path) -> None:
    """Under the lock no assembly is running: any temporary file is a killed one's."""
    for path in temp_files(target):
        with contextlib.suppress(OSError):
            path.unlink()


def _verify_existing(record: ModelRecord, target: Path, show: bool) -> bool:
    """A file under the final name without a valid stamp (the stamp was lost, or the file was
    copied there): hash it once. A wrong file is removed and assembled again."""
    if target.stat().st_size == record.size:
        digest = hashlib.sha256()
        with _bar(show, f"verifying {record.name}", record.size) as advance, \
                open(target, "rb") as src:
            while chunk := src.read(CHUNK):
                digest.update(chunk)
                advance(len(chunk))
        if digest.hexdigest() == record.sha256:
            _write_stamp(record, target)
            return True
    target.unlink()
    return False


def _assemble(record: ModelRecord, target: Path, show: bool) -> Path:
    parts, missing = find_parts(record)
    if missing:
        names = ", ".join(p.package for p in missing[:3]) + (" ..." if len(missing) > 3 else "")
        raise LMError(f"model {record.name} is not installed (missing {names}): "
                      f"{record.install_hint()}")
    total = sum(p.stat().st_size for p in parts)
    if total != record.size:
        raise LMError(f"model {record.name}: its parts hold {total:,} bytes, expected "
                      f"{record.size:,} (a damaged install): "
                      f"{record.install_hint('--force-reinstall')}")
    free = shutil.disk_usage(target.parent).free
    if free < record.size:
        raise LMError(_no_space(record, target))
    fd, name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.",
                                suffix=TEMP_SUFFIX)
    temp = Path(name)
    try:
        with os.fdopen(fd, "wb") as out:
            digest = _concatenate(parts, out, _bar(show, f"assembling {record.name}", total))
            out.flush()
            os.fsync(out.fileno())
        if digest != record.sha256:
            raise LMError(f"model {record.name}: the assembled file's sha256 is {digest[:12]}..., "
                          f"expected {record.sha256[:12]}... (damaged or wrong parts): "
                          f"{record.install_hint('--force-reinstall')}")
        os.chmod(temp, 0o644)              # mkstemp's 0600 would hide it from other users
        os.replace(temp, target)
    except OSError as exc:
        with contextlib.suppress(OSError):
            temp.unlink()
        if exc.errno in _NO_SPACE:
            raise LMError(_no_space(record, target)) from exc
        raise LMError(f"model {record.name}: cannot write {target} ({exc.strerror or exc}); "
                      f"set {MODEL_DIR_ENV} to a writable directory") from exc
    except BaseException:
        with contextlib.suppress(OSError):
            temp.unlink()
        raise
    _write_stamp(record, target)
    return target


def _no_space(record: ModelRecord, target: Path) -> str:
    return (f"model {record.name}: not enough free space in {target.parent} for its "
            f"{record.size / 1e6:,.0f} MB file; free some, or set {MODEL_DIR_ENV} to another "
            f"disk")


def _concatenate(parts: Sequence[Path], out: BinaryIO, bar: Any) -> str:
    digest = hashlib.sha256()
    with bar as advance:
        for path in parts:
            with open(path, "rb") as src:
                while chunk := src.read(CHUNK):
                    out.write(chunk)
                    digest.update(chunk)
                    advance(len(chunk))
    return digest.hexdigest()


def _write_stamp(record: ModelRecord, target: Path) -> None:
    stat = target.stat()
    stamp = stamp_path(target)
    temp = stamp.with_name(f".{stamp.name}{TEMP_SUFFIX}")
    temp.write_text(json.dumps({"sha256": record.sha256, "size": stat.st_size,
                                "mtime_ns": stat.st_mtime_ns}), encoding="utf-8")
    os.replace(temp, stamp)


@contextlib.contextmanager
def _bar(show: bool, label: str, total: int) -> Iterator[Any]:
    """A byte progress bar on stderr; yields ``advance(n)``."""
    if not show:
        yield lambda n: None
        return
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        DownloadColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
        TransferSpeedColumn,
    )

    with Progress(TextColumn("{task.description}", markup=False), BarColumn(),
                  DownloadColumn(), TransferSpeedColumn(), TimeRemainingColumn(),
                  console=Console(stderr=True, markup=False, emoji=False),
                  transient=False) as prog:
        task = prog.add_task(label, total=total)
        yield lambda n: prog.advance(task, n)
