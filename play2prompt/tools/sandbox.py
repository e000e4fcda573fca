"""Folder sandboxes: ``"sandbox": {"copy": "repo/"}`` next to a tool's executor kind.

A tool that acts on a folder (a git repository, a notes directory) works, wherever consent is
asked (play, probes, re-reading, evaluation, ``p2p verify``), on a copy of that folder made
once per run and shared by every tool of the run naming the same folder: a tool that writes
sees what the run's earlier calls wrote, as it would in real use, and a repository is copied
once, not once per call. The copy lives in the run folder (``runs/<id>/sandbox/<hash>/<name>``,
kept after the run so you can see what play did; ``--resume`` continues on it), or in a
temporary folder removed at the end when there is no run folder (or the run folder lies inside
the copied one).

The tool never sees the original path: wherever it appears in the executor spec (an MCP
server's ``--repository`` argument, its ``cwd``, a Python tool's ``env``) or in a call's
arguments (a path pinned by an enum), the copy's path takes its place: an absolute path
anywhere in a text, the path as the tools file writes it (``repo``, ``./repo/x``) when a text is
that path or starts with it. What the tool answers says the original path again, so facts,
demos and docs never name the copy. ``p2p mcp`` (no consent gate: its client's own calls) runs
on the original folder.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from play2prompt.tools.effects import COPY
from play2prompt.tools.executors._base import ExecContext, Executor, make_executor
from play2prompt.tools.model import Observation, Tool

_PATH_CHAR = r"[\w.~-]"


def copy_target(executor: Mapping[str, Any] | None) -> str | None:
    """The folder a ``{"copy": ...}`` sandbox names, or None."""
    value = (executor or {}).get("sandbox")
    if isinstance(value, Mapping) and isinstance(value.get(COPY), str):
        return str(value[COPY])
    return None


class FolderCopy:
    """One folder's copy for a run, and the path translation both ways."""

    def __init__(self, written: str, base_dir: Path, home: Path | None) -> None:
        absolute = Path(os.path.abspath(Path(base_dir) / written))
        self.original = absolute.resolve()
        digest = hashlib.sha256(str(self.original).encode()).hexdigest()[:10]
        self._temp: Path | None = None
        if home is None or Path(home).resolve().is_relative_to(self.original):
            self._temp = Path(tempfile.mkdtemp(prefix="p2p-sandbox-"))
            home = self._temp
        self.path = Path(home) / digest / self.original.name
        if not self.path.is_dir():
            _copy_tree(self.original, self.path)
        self._to_copy = _Translation([str(self.original), str(absolute)],
                                     _relative_forms(written), str(self.path))
        copy_forms = {str(self.path), str(self.path.resolve())}
        self._to_original = _Translation(sorted(copy_forms), [], str(self.original))

    def to_copy(self, value: Any) -> Any:
        return self._to_copy.value(value)

    def to_original(self, value: Any) -> Any:
        return self._to_original.value(value)

    def restore(self, obs: Observation) -> Observation:
        """``obs`` saying the original path where the tool said the copy's."""
        return replace(obs, output=self.to_original(obs.output),
                       error=self.to_original(obs.error))

    def close(self) -> None:
        if self._temp is not None:
            shutil.rmtree(self._temp, ignore_errors=True)
            self._temp = None


def _copy_tree(source: Path, target: Path) -> None:
    """Copy ``source`` to ``target`` through a sibling folder renamed at the end (a copy cut
    short is never taken for a finished one)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(f".{target.name}.partial")
    shutil.rmtree(partial, ignore_errors=True)
    shutil.copytree(source, partial, symlinks=True)
    partial.rename(target)


def _relative_forms(written: str) -> list[str]:
    bare = written.strip().rstrip("/\\") or "."
    if os.path.isabs(bare):
        return []            # an absolute path is found anywhere
    forms = {bare, bare.removeprefix("./")}
    forms |= {f"./{f}" for f in list(forms)}
    return sorted((f for f in forms if f not in (".", "./", "")), key=len, reverse=True)


class _Translation:
    """Replace absolute forms anywhere in a text (bounded by non-path characters) and
    relative forms where a text is, or starts with, that path."""

    def __init__(self, absolute: list[str], relative: list[str], target: str) -> None:
        forms = sorted(set(absolute), key=len, reverse=True)
        alternatives = "|".join(re.escape(f) for f in forms)
        self.pattern = re.compile(rf"(?<!{_PATH_CHAR})(?:{alternatives})"
                                  rf"(?![\w~-]|\.[\w~-])")
        self.relative = relative
        self.target = target

    def text(self, text: str) -> str:
        for form in self.relative:
            if text == form or text.startswith(form + "/"):
                text = self.target + text[len(form):]
                break
        return self.pattern.sub(lambda _: self.target, text)

    def value(self, value: Any) -> Any:
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, Mapping):
            return {k: self.value(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [self.value(v) for v in value]
        return value


def folder_copy(ctx: ExecContext, written: str) -> FolderCopy:
    """The run's copy of folder ``written`` (one per folder, closed with ``ctx``)."""
    key = f"sandbox-copy:{os.path.abspath(Path(ctx.base_dir) / written)}"
    copy = ctx.resources.get(key)
    if copy is None:
        run_dir = getattr(ctx.store, "run_dir", None)
        home = Path(run_dir) / "sandbox" if run_dir is not None else None
        copy = ctx.resources.setdefault(key, FolderCopy(written, Path(ctx.base_dir), home))
    return copy


class CopySandbox(Executor):
    """An executor working on the run's copy of a folder: the spec and every call's
    arguments name the copy, its answers the original."""

    def __init__(self, tool: Tool, ctx: ExecContext,
                 make: Callable[[Tool], Executor]) -> None:
        super().__init__(tool, tool.executor or {}, ctx)
        self.copy = folder_copy(ctx, copy_target(tool.executor) or ".")
        spec = {k: (v if k == "sandbox" else self.copy.to_copy(v))
                for k, v in (tool.executor or {}).items()}
        self.inner = make(replace(tool, executor=spec))
        self.needs_lm = self.inner.needs_lm

    def _call(self, arguments: dict[str, Any], timeout: float) -> Any:
        output = self.inner._call(self.copy.to_copy(arguments), timeout)
        return self.copy.to_original(output)

    def execute(self, arguments: Mapping[str, Any], timeout: float | None = None) -> Observation:
        return self.copy.restore(self.inner.execute(self.copy.to_copy(dict(arguments)),
                                                    timeout))

    async def aexecute(self, arguments: Mapping[str, Any],
                       timeout: float | None = None) -> Observation:
        obs = await self.inner.aexecute(self.copy.to_copy(dict(arguments)), timeout)
        return self.copy.restore(obs)

    def close(self) -> None:
        self.inner.close()


def executor_for(tool: Tool, ctx: ExecContext) -> Executor:
    """The executor of ``tool``; where consent is asked (``ctx.allow_side_effects`` set), a
    tool with a ``{"copy": ...}`` sandbox works on the run's copy of its folder."""
    sandbox = (tool.executor or {}).get("sandbox")
    if isinstance(sandbox, Mapping) and ctx.allow_side_effects is not None:
        return CopySandbox(tool, ctx, lambda t: make_executor(t, ctx))
    return make_executor(tool, ctx)
