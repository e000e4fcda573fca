"""Per-tool statistics of an evaluation, from the records it already keeps: unasked optional
arguments and the tool confusion matrix, per side.

- **Unasked optional arguments**: a predicted call to one of the item's ground-truth tools that
  sets an argument the tool's schema does not require and no ground-truth call of that tool in
  the item sets (the request never asked for it). Counted per tool: the predicted calls of the
  tool, how many of them set at least one such argument, and how often each argument was set.
  A predicted call to a tool the ground truth does not call is not counted here (it is a
  confusion). ``required`` is read from the tools as the suite gives them, the same on every
  side.
- **Tool confusions**: rows are the ground-truth tool, columns the tool the task model called
  first (:data:`NO_CALL` when it called none or its answer did not parse). Only items whose
  ground-truth calls all name one tool count (parallel calls of one tool included); an item
  that expects several different tools is left out.

Both go into ``summary.json`` (``tool_stats``, by side) and, as a few lines, into
``summary.md`` and the text ``p2p eval`` prints (:func:`stats_lines`, which reads the JSON form,
so what is printed is what was scrubbed into the file).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

NO_CALL = "(no call)"
MAX_CONFUSION_LINES = 10

Rename = Callable[[str], str]


@dataclass(frozen=True)
class ToolCounts:
    """One tool's predicted calls on one side and those that set unasked optional arguments."""

    calls: int
    unasked: int
    arguments: Mapping[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        ordered = sorted(self.arguments.items(), key=lambda kv: (-kv[1], kv[0]))
        return {"calls": self.calls, "unasked": self.unasked, "arguments": dict(ordered)}


@dataclass(frozen=True)
class SideToolStats:
    """One side's unasked optional arguments by tool and its tool confusion matrix."""

    side: str
    unasked: Mapping[str, ToolCounts]
    confusion: Mapping[str, Mapping[str, int]]

    def to_dict(self) -> dict[str, Any]:
        return {"unasked_optional": {t: c.to_dict() for t, c in sorted(self.unasked.items())},
                "confusion": {gold: dict(sorted(row.items()))
                              for gold, row in sorted(self.confusion.items())}}


def unasked_arguments(call: Mapping[str, Any], gold: Sequence[Mapping[str, Any]],
                      required: Iterable[str]) -> list[str] | None:
    """The optional arguments ``call`` sets that no ground-truth call of its tool sets (sorted);
    None when the ground truth does not call its tool."""
    same = [g for g in gold if g.get("name") == call.get("name")]
    if not same:
        return None
    asked = set(required) | {k for g in same for k in (g.get("arguments") or {})}
    return sorted(k for k in (call.get("arguments") or {}) if k not in asked)


def expected_tool(gold: Sequence[Mapping[str, Any]]) -> str | None:
    """The one tool every ground-truth call names; None for none or several."""
    names = {str(g.get("name")) for g in gold}
    return names.pop() if len(names) == 1 else None


def first_tool(parsed: Sequence[Mapping[str, Any]]) -> str:
    return str(parsed[0].get("name")) if parsed else NO_CALL


def side_stats(side: str, records: Iterable[Mapping[str, Any]],
               required: Callable[[Mapping[str, Any]], Mapping[str, Sequence[str]]],
               rename: Rename = str) -> SideToolStats:
    """The statistics of one side's records; ``required(record)``: tool name -> its required
    arguments for that record's item; ``rename``: the name a tool is reported under."""
    calls: Counter[str] = Counter()
    unasked: Counter[str] = Counter()
    arguments: dict[str, Counter[str]] = {}
    confusion: dict[str, Counter[str]] = {}
    for record in records:
        gold, parsed = record.get("gold") or [], record.get("parsed") or []
        needed = required(record)
        for call in parsed:
            extra = unasked_arguments(call, gold, needed.get(str(call.get("name")), ()))
            if extra is None:
                continue
            tool = rename(str(call.get("name")))
            calls[tool] += 1
            if extra:
                unasked[tool] += 1
                arguments.setdefault(tool, Counter()).update(extra)
        expected = expected_tool(gold)
        if expected is not None:
            called = first_tool(parsed)
            column = called if called == NO_CALL else rename(called)
            confusion.setdefault(rename(expected), Counter())[column] += 1
    counts = {t: ToolCounts(n, unasked[t], dict(arguments.get(t, {}))) for t, n in calls.items()}
    return SideToolStats(side, counts, {g: dict(row) for g, row in confusion.items()})


def tool_stats(result: Any) -> dict[str, Any]:
    """``summary.json``'s ``tool_stats`` of an :class:`~.runner.EvalResult`: side -> its
    statistics. Under ``--opaque`` tools are reported under their real names."""
    suite = result.suite
    items = {item.id: item for item in suite.items}
    real = {shown: name for name, shown in suite.shown_names.items()}
    cache: dict[str, dict[str, list[str]]] = {}

    def required(record: Mapping[str, Any]) -> Mapping[str, Sequence[str]]:
        item_id = str(record.get("id"))
        if item_id not in cache:
            item = items.get(item_id)
            cache[item_id] = ({t.name: t.required for t in suite.item_tools(item)}
                              if item is not None else {})
        return cache[item_id]

    return {s.side.name: side_stats(s.side.name, s.records, required,
                                    lambda n: real.get(n, n)).to_dict()
            for s in result.sides}


# -- lines ---------------------------------------------------------------------------------------
def stats_lines(stats: Mapping[str, Any] | None) -> list[str]:
    """The text form of ``tool_stats`` (the JSON form): one line per tool whose calls set
    unasked optional arguments on some side, and the largest off-diagonal cells of the
    confusion matrices (at most :data:`MAX_CONFUSION_LINES`), each with its count per side."""
    if not stats:
        return []
    return [*_unasked_lines(stats), *_confusion_lines(stats)]


def _unasked_lines(stats: Mapping[str, Any]) -> list[str]:
    tools = sorted({t for s in stats.values() for t, c in s.get("unasked_optional", {}).items()
                    if c.get("unasked")})
    if not tools:
        return []
    lines = ["unasked optional arguments (calls that set one the request did not ask for):"]
    for tool in tools:
        parts = []
        for side, data in stats.items():
            c = data.get("unasked_optional", {}).get(tool)
            if c is None:
                continue
            args = ", ".join(f"{a} {n}" for a, n in (c.get("arguments") or {}).items())
            parts.append(f"{side} {c['unasked']}/{c['calls']}" + (f" ({args})" if args else ""))
        lines.append(f"  {tool}: {'; '.join(parts)}")
    return lines


def _confusion_lines(stats: Mapping[str, Any]) -> list[str]:
    cells: dict[tuple[str, str], dict[str, int]] = {}
    for side, data in stats.items():
        for gold, row in data.get("confusion", {}).items():
            for called, n in row.items():
                if called != gold and n:
                    cells.setdefault((gold, called), {})[side] = int(n)
    if not cells:
        return []
    order = sorted(cells, key=lambda k: (-max(cells[k].values()), -sum(cells[k].values()), k))
    lines = ["tool confusions (expected tool -> tool called first, items with one tool):"]
    for gold, called in order[:MAX_CONFUSION_LINES]:
        counts = ", ".join(f"{side} {cells[(gold, called)].get(side, 0)}" for side in stats)
        lines.append(f"  {gold} -> {called}: {counts}")
    if len(order) > MAX_CONFUSION_LINES:
        lines.append(f"  ... {len(order) - MAX_CONFUSION_LINES} more in summary.json")
    return lines
