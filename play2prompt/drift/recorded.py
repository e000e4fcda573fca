"""What a finished run recorded that can be checked again against the tools as they are now.

A run's verified demos and examples are executable specifications: a call and the output the
tool gave. :class:`RecordedRun` reads them from the run store (the raw outputs, as the tools
returned them; nothing read here is published unscrubbed): the tools as optimized, the calls
that worked (demos first, then the verified examples, then the other calls the log holds that
worked), the facts tool play established and which of their calls were probes, and the names
of every tool of the file the run was started from (:func:`record_source`), so that a tool the
run was not asked to optimize is not taken for a new one.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from play2prompt.errors import UserError
from play2prompt.evidence.facts import Fact
from play2prompt.results import RESULT_FILE
from play2prompt.store.db import DB_NAME, RunStore
from play2prompt.store.meta import EVAL_KIND, Meta, RunMeta
from play2prompt.store.runs import resolve_run, unfinished_hint
from play2prompt.tools.loading import parse_tools
from play2prompt.tools.model import Invocation, Tool

SOURCES = ("demo", "example", "logged")   # where a recorded call comes from, most telling first


@dataclass(frozen=True)
class RecordedCall:
    """A call that worked when the run was made, and the output it gave then (raw)."""

    source: str                 # demo | example | logged
    invocation: Invocation
    output: Any


class RecordedRun:
    """A finished run, read-only (a context manager: the store is closed on exit)."""

    def __init__(self, run_dir: Path, store: RunStore, meta: RunMeta) -> None:
        self.run_dir = run_dir
        self.store = store
        self.meta = meta
        self.run_id = meta.run_id or run_dir.name
        # the store's results (raw); a run folder without them has its published file
        self.results: dict[str, dict[str, Any]] = store.results() or dict(
            json.loads((run_dir / RESULT_FILE).read_text(encoding="utf-8")).get("tools") or {})
        entries = (meta.tools or {}).get("tools") or [r["original"] for r in
                                                      self.results.values()]
        self.tools: dict[str, Tool] = {
            t.name: t for t in parse_tools({"tools": entries}, source=f"run {self.run_id}")}
        self.base_dir = Path(meta.base_dir or run_dir)

    def __enter__(self) -> RecordedRun:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.store.close()

    def result(self, tool: str) -> dict[str, Any] | None:
        """The tool's stored result (raw: the run store's, not the published file)."""
        return self.results.get(tool)

    def calls(self, tool: str, limit: int | None = None) -> list[RecordedCall]:
        """The calls of ``tool`` that worked, each once: demos, verified examples, then the
        other logged calls that worked, oldest first; at most ``limit``."""
        out: dict[str, RecordedCall] = {}
        for source, inv in self._candidates(tool):
            key = inv.key()
            if key in out:
                continue
            obs = self.store.get_execution(key)
            if obs is not None and obs.ok:
                out[key] = RecordedCall(source, inv, obs.output)
                if limit is not None and len(out) >= limit:
                    break
        return list(out.values())

    def _candidates(self, tool: str) -> Iterator[tuple[str, Invocation]]:
        for demo in (self.result(tool) or {}).get("demos") or []:
            for call in demo.get("calls") or []:
                yield "demo", Invocation.from_dict(call)
        examples = [c["payload"] for c in self.store.candidates(tool, "example")]
        verified = [e for e in examples if _verified(e)]
        verified.sort(key=lambda e: -float(e.get("reward") or 0.0))
        for ex in verified:
            yield "example", Invocation.from_dict(ex["invocation"])
        for arguments, obs in self.store.executions(tool):
            if obs.ok:
                yield "logged", Invocation(tool, arguments)

    @property
    def source_names(self) -> frozenset[str] | None:
        """Every tool of the file the run was started from, optimized or not (``p2p optimize
        FILE --tools A`` optimizes A only); None where the run did not record them."""
        names = (self.meta.source_tools or {}).get("names")
        return frozenset(str(n) for n in names) if isinstance(names, list) else None

    def facts(self, tool: str) -> list[Fact]:
        """The facts tool play established about ``tool`` (none for a method without play)."""
        stats = (self.result(tool) or {}).get("stats") or {}
        return [Fact.from_dict(f) for f in stats.get("facts") or []]

    def probe_params(self, tool: str) -> dict[str, str]:
        """Call key -> the one argument a probe varied, for the probes of ``tool``."""
        out: dict[str, str] = {}
        for cand in self.store.candidates(tool, "probe"):
            for probe in cand["payload"].get("probes") or []:
                out[Invocation.from_dict(probe["invocation"]).key()] = str(probe["param"])
        return out


def _verified(example: Mapping[str, Any]) -> bool:
    """A Step-1 example that executed and passed every gate (``Example.verified``)."""
    obs = example.get("observation") or {}
    return bool(obs.get("ok")) and bool(example.get("query")) and not example.get("problems")


def record_source(store: RunStore, names: Sequence[str]) -> None:
    """Record in a new run the names of every tool of the file it starts from."""
    store.set_meta(Meta.SOURCE_TOOLS, {"names": list(dict.fromkeys(names))})


def source_recorder(tools_file: Path, module: str | None = None) -> Callable[[RunStore], None]:
    """The ``prepare`` hook of a run started from ``tools_file`` (:func:`record_source` with
    every tool the file has, the ones the run optimizes or not)."""
    def prepare(store: RunStore) -> None:
        from play2prompt.tools.loading import load_tools

        every = load_tools(tools_file, module=module, check_executors=False)
        record_source(store, [t.name for t in every])

    return prepare


def open_recorded(ref: str | Path, runs_dir: Path | None = None) -> RecordedRun:
    """The finished run ``ref`` (id or folder), or one line saying why it cannot be read."""
    run_dir = resolve_run(ref, runs_dir)
    store = RunStore(run_dir / DB_NAME, read_only=True)
    try:
        meta = store.run_meta()
        if meta.kind == EVAL_KIND:
            raise UserError(f"{run_dir.name!r} is an evaluation's folder, not an optimization "
                            "run")
        if not (run_dir / RESULT_FILE).is_file():
            raise UserError(f"{unfinished_hint(run_dir)} (no {RESULT_FILE} yet)")
        return RecordedRun(run_dir, store, meta)
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        store.close()
        raise UserError(f"{run_dir}: not a run play2prompt can read ({type(exc).__name__}: "
                        f"{exc})") from exc
    except BaseException:
        store.close()
        raise


def call_of(key: str) -> Invocation:
    """The invocation an invocation key names (the key is its canonical JSON)."""
    return Invocation.from_dict(json.loads(key))
