"""Sibling contrast (component ``sibling-contrast``, issue 72): where the tool-set check sees
a tool's requests go to another tool, each of the two docs says what sets them apart, and the
set keeps the two sentences only where it then gets more of its examples right.

On examples/silent the 1.5B sent 7 of 8 ``format_timestamp`` requests ("What time is
1717245000000 in UTC?") to ``utc_timestamp``, with the docs as given and with every doc the
run wrote: neither doc says which one takes the timestamp. The sentences are written by code
from the parameters the two tools do not share and from the wronged example's own call
("Use it for a request that gives timestamp (e.g. timestamp=1717245000000); `utc_timestamp`
takes year, month, day."; on the other: "For a request that gives timestamp, use
`format_timestamp`."), never by a model, and are decided like a proposal: one trial round of
the check's examples, all counted, the wronged ones first; they stay where the set gets more
right with them (:func:`contrast_round`).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from play2prompt.evidence.names import SIBLING_CONTRAST
from play2prompt.method.set_rounds import SetAnswer, SetCase, SetEntry, ask_trial
from play2prompt.tools.model import Invocation, Tool, ToolDoc

if TYPE_CHECKING:  # the engine is passed in; the method needs only its type
    from play2prompt.engine import Engine

MAX_SHOWN = 2        # parameters of the wronged call shown with their values


@dataclass(frozen=True)
class Contrast:
    """The sentences the check added (tool -> sentence) and the set's examples right before
    and with them (``kept``: they stayed)."""

    sentences: Mapping[str, str]
    before: int
    with_them: int
    kept: bool
    asked: int = 0          # examples the trial round asked

    def to_dict(self) -> dict[str, object]:
        return {"sentences": dict(self.sentences), "before": self.before,
                "with": self.with_them, "kept": self.kept, "asked": self.asked}


def confusions(cases: Sequence[SetCase], answers: Sequence[SetAnswer]
               ) -> dict[str, Counter[str]]:
    """Per tool, the other tools its cases were answered with (wrong answers only)."""
    out: dict[str, Counter[str]] = {}
    for case, answer in zip(cases, answers):
        others = [n for n in answer.called if n != case.owner]
        if not answer.correct and others:
            out.setdefault(case.owner, Counter())[others[0]] += 1
    return out


def sentences(tool: Tool, other: Tool, call: Invocation) -> tuple[str, str] | None:
    """(for ``tool``, for ``other``): what ``tool`` takes that ``other`` does not, shown on
    ``call``; None where the call sets no parameter ``other`` lacks."""
    own = [p for p in tool.properties if p not in other.properties and p in call.arguments]
    if not own:
        return None
    theirs = [p for p in (other.required or other.properties) if p not in tool.properties]
    shown = ", ".join(f"{p}={json.dumps(call.arguments[p], ensure_ascii=False)}"
                      for p in own[:MAX_SHOWN])
    names = ", ".join(own)
    mine = f"Use it for a request that gives {names} (e.g. {shown})" + (
        f"; `{other.name}` takes {', '.join(theirs)}." if theirs else ".")
    return mine, f"For a request that gives {names}, use `{tool.name}`."


def with_sentence(doc: ToolDoc, sentence: str) -> ToolDoc:
    """``doc`` with ``sentence`` after its description (what the round tries, and what a
    kept round ships: :func:`~play2prompt.set_check_run.contrasted_results`)."""
    return replace(doc, description=f"{doc.description.rstrip()} {sentence}".strip())


def added(tool: Tool, sentence: str) -> Tool:
    """``tool`` with ``sentence`` after its description."""
    return tool.with_doc(with_sentence(tool.doc, sentence))


def contrast_entries(current: Sequence[SetEntry], cases: Sequence[SetCase],
                     answers: Sequence[SetAnswer]) -> dict[str, str]:
    """Tool -> the sentences it gets: for each tool whose cases went to another, its own
    sentence and the other's pointer back, from its first such case's call."""
    shown = {e.name: e.shown for e in current}
    out: dict[str, list[str]] = {}
    for owner, went in confusions(cases, answers).items():
        other = went.most_common(1)[0][0]
        if other not in shown:
            continue
        case = next(c for c, a in zip(cases, answers)
                    if c.owner == owner and not a.correct and other in a.called)
        said = sentences(shown[owner], shown[other], case.example.invocation)
        if said is not None:
            out.setdefault(owner, []).append(said[0])
            out.setdefault(other, []).append(said[1])
    return {n: " ".join(dict.fromkeys(s)) for n, s in out.items()}


async def contrast_round(engine: Engine, current: list[SetEntry], cases: Sequence[SetCase],
                         answers: list[SetAnswer]
                         ) -> tuple[list[SetEntry], list[SetAnswer], Contrast | None]:
    """The contrast sentences tried in one trial round (see the module's docstring); the
    entries and answers after it, and what it tried (None: no tool's cases went elsewhere)."""
    said = contrast_entries(current, cases, answers)
    if not said:
        return current, answers, None
    trial = [replace(e, shown=added(e.shown, said[e.name])) if e.name in said else e
             for e in current]
    right = sum(a.correct for a in answers)
    wrong = [i for i, (c, a) in enumerate(zip(cases, answers))
             if not a.correct and c.owner in said]
    asked = await ask_trial(engine, trial, cases, range(len(cases)), right + 1, answers,
                            wrong, 1)
    engine.uses[SIBLING_CONTRAST] += 1
    kept = asked.gate is None and asked.right > right
    result = Contrast(said, right, asked.right if kept else asked.at_most, kept,
                      sum(a is not None for a in asked.answers))
    return (trial, asked.full(), result) if kept else (current, answers, result)


__all__ = ["Contrast", "added", "confusions", "contrast_entries", "contrast_round",
           "sentences", "with_sentence"]
