"""The tool-set check in a run (Play2Prompt's ``finish_run`` hook, re-exported by
:mod:`play2prompt.pipeline`): once every tool is optimized, the run's results as the check sees
them, the check itself (:mod:`play2prompt.method.tool_set_check`), and the results it changed
stored in the run store with its outcome in the run's meta."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from play2prompt.engine import Engine
from play2prompt.evidence.facts import Fact, FactBook, facts_doc
from play2prompt.evidence.names import FACTS_DOC, SET_CHECK, SIBLING_CONTRAST, active
from play2prompt.evidence.registry import SchemaConstraints, evidence_for
from play2prompt.method.contrast import with_sentence
from play2prompt.method.example import Example
from play2prompt.method.tool_set_check import (
    SetCase,
    SetCheck,
    SetEntry,
    adopt_map,
    check_tool_set,
    pick_cases,
    undo_map,
)
from play2prompt.results import ToolResult
from play2prompt.store.meta import Meta
from play2prompt.tools.model import Tool, ToolDoc

SET_CHECK_TAG = "tool-set check"


async def finish_run(results: Mapping[str, ToolResult], engine: Engine) -> dict[str, ToolResult]:
    """Once every tool is optimized: the tool-set check (``config.set_check`` examples per
    tool; 0: off; :mod:`play2prompt.method.tool_set_check`), the changes it undoes stored as
    the tools' results and its outcome in the run's meta (a resumed run does not check
    again)."""
    out = dict(results)
    per_tool = engine.config.set_check
    if (SET_CHECK not in active(engine.config)
            or engine.store.get_meta(Meta.SET_CHECK) is not None):
        return out
    schema = evidence_for(engine).schema
    entries = [set_entry(r, FACTS_DOC in active(engine.config), schema)
               for r in results.values()]
    cases = pick_cases(stored_cases(engine, results), per_tool)
    if len(entries) < 2 or not cases or not any(e.changed or e.can_propose for e in entries):
        return out
    eng = engine.for_tool(SET_CHECK_TAG, count_calls=True)
    trials = sum(e.changed or e.can_propose for e in entries)
    eng.reporter.start(SET_CHECK_TAG, len(cases) * (1 + trials))
    check = await check_tool_set(eng, entries, cases,
                                 SIBLING_CONTRAST in active(engine.config))
    out.update(checked_results(out, entries, check))
    out.update(contrasted_results(out, check))
    for name in dict.fromkeys((*check.undone, *check.adopted, *check.contrasted)):
        engine.store.put_result(name, out[name].to_dict())
    engine.store.set_meta(Meta.SET_CHECK, check.to_dict())
    eng.reporter.done(SET_CHECK_TAG, f"{len(cases)} examples with all tools shown: "
                      f"{check.before:.2f} -> {check.after:.2f}, undone: "
                      f"{', '.join(check.undone) or 'none'}, adopted: "
                      f"{', '.join(check.adopted) or 'none'}, contrasted: "
                      f"{', '.join(check.contrasted) or 'none'}")
    return out


def checked_results(results: Mapping[str, ToolResult], entries: Sequence[SetEntry],
                    check: SetCheck) -> dict[str, ToolResult]:
    """The results the tool-set check changed: a change undone (the original, no demos) or a
    proposal adopted (its doc, no demos)."""
    out: dict[str, ToolResult] = {}
    for name, decision in undo_map(check).items():
        was = results[name]
        out[name] = ToolResult(
            name, was.original, was.original.doc, (), False, decision.reason(),
            dict(was.scores), {**was.stats, "demos": 0,
                               "set_check": {"undone": True, "was": was.doc_reason,
                                             "was_demos": len(was.demos)}})
    proposals = {e.name: e.proposal for e in entries if e.proposal is not None}
    for name, decision in adopt_map(check).items():
        was = results[name]
        doc = shipped_doc(proposals[name], was.original)
        out[name] = ToolResult(name, was.original, doc, (), True,
                               decision.reason(), dict(was.scores),
                               {**was.stats, "demos": 0,
                                "schema_constraints": {p: sorted(c) for p, c in
                                                       doc.constraints.items()},
                                "set_check": {"adopted": True, "was": was.doc_reason}})
    return out


def shipped_doc(shown: Tool, original: Tool) -> ToolDoc:
    """The doc ``shown`` ships over ``original``: its texts, and the schema keywords it adds
    (a proposal's facts doc carries its constraints in its schema: ``Tool.with_doc``)."""
    added = {p: {k: v for k, v in spec.items()
                 if k != "description" and k not in original.properties.get(p, {})}
             for p, spec in shown.properties.items() if isinstance(spec, Mapping)}
    return shown.doc.with_constraints(added)


def contrasted_results(results: Mapping[str, ToolResult], check: SetCheck
                       ) -> dict[str, ToolResult]:
    """The results the contrast round changed: the sentence added to the doc each ships."""
    out: dict[str, ToolResult] = {}
    for name, sentence in check.contrasted.items():
        assert check.contrast is not None        # a sentence comes from a kept round
        was = results[name]
        doc = with_sentence(was.doc, sentence)
        reason = (f"{was.doc_reason}; the tool-set check added what sets it apart from a tool "
                  f"its requests went to ({check.contrast.before} -> "
                  f"{check.contrast.with_them} of {check.cases} examples right)")
        out[name] = replace(was, doc=doc, doc_changed=True, doc_reason=reason,
                            stats={**was.stats, "set_check": {
                                **dict(was.stats.get("set_check") or {}),
                                "contrast": sentence}})
    return out


def set_entry(result: ToolResult, propose: bool,
              schema: SchemaConstraints | None = None) -> SetEntry:
    """A tool's result as the tool-set check sees it; with ``propose`` (the facts-doc
    component on), an unchanged tool proposes its facts doc, written by code from the facts
    its play established (none: no proposal), with what ``schema`` (the run's schema
    component: :class:`~play2prompt.evidence.components.SchemaFacts` or its twin) puts in its
    schema, as the doc search's facts doc has it."""
    entry = SetEntry(result.original, result.optimized, tuple(result.demos))
    facts = result.stats.get("facts") or []
    if not propose or entry.changed or not facts:
        return entry
    tool = result.original
    book = FactBook(tool, [Fact.from_dict(f) for f in facts])
    doc = facts_doc(tool, book)
    doc = doc if schema is None else schema.constrain(doc, tool, book)
    return replace(entry, proposal=tool.with_doc(doc))


def stored_cases(engine: Engine, results: Mapping[str, ToolResult]) -> list[SetCase]:
    """The verified examples of the run's tools, as :func:`log_split` stored them, tool by
    tool in the run's order (not the order the tools finished in, which depends on
    concurrency: a trial that stops early asks its first cases only)."""
    order = {name: i for i, name in enumerate(results)}
    rows = [r for r in engine.store.candidates(stage="split") if r["tool"] in order]
    return [SetCase(row["tool"], Example.from_dict(row["payload"]), row["state"] == "held-out")
            for row in sorted(rows, key=lambda r: order[r["tool"]])]
