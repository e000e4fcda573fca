"""Which texts a tool acts on, where it takes any text without a word (component
``value-probes``, issue 27: what a tool does, learned from its outputs on varied inputs).

Many tools take a text, act on a few values and treat every other text alike. BFCL's
``calculate_nutritional_needs`` takes 500 calories off for goal ``"lose"``, adds 500 for
``"gain"`` and does neither for any other text, so ``goal="weight loss"`` runs, says nothing
and gives the wrong answer. No error will ever show it; the outputs do.

The probes already run each text argument of a call that worked with an unknown word
(:data:`~play2prompt.evidence.facts.PROBE_WORD`). Where that probe gives the very output of the
call itself, the tool did not act on the call's text (:func:`unacted`). For each such parameter
(at most :data:`MAX_PARAMS` a tool) the texts play's other calls gave it are tried (up to
:data:`MAX_PLAYED`: a call that failed for another reason may hold the value the tool acts on,
"male" beside "female") and the generator lists up to :data:`MAX_VALUES` short values the
parameter may take (one call, single words or codes); each is run in place of the text and its
output compared with the unknown word's. (On opaque BFCL (a), run bfcl-a-val, the 1.5B listed
for goal "weight loss", "lose weight", "weight reduction", repeated, and never "lose": hence
single words, and play's own texts first.) A value that gives another output is one the tool
acts on. When some are and some are not, a fact says so, with the others tried: "Only 'lose' or
'gain' change the result; other texts, such as 'weight loss' or 'maintain', give the same
result as an unknown word." It reaches the facts doc and the re-reading of requests like any
fact, and the doc's examples of the parameter become the values acted on
(:meth:`FactBook.sentences`). When none changes the output nothing is said: the tool may ignore
the parameter, or the values it acts on are beyond the generator's guesses. An error a proposed
value draws is read like any probe's (it may list the accepted values).

The single words of those texts follow (up to :data:`MAX_WORDS`: "lose" of a call's "lose
weight"; in run bfcl-a-len the 1.5B, held to single words, still wrote "weight_loss").

The tool runs only as play and the probes run it (a tool with side effects only with the
user's consent), at most :data:`MAX_PLAYED` + :data:`MAX_VALUES` + :data:`MAX_WORDS` more calls
a parameter.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from play2prompt.evidence.facts import PROBE_WORD, Fact, FactBook, evidence_of
from play2prompt.evidence.observed import seen
from play2prompt.evidence.refuted import ACTS_ON
from play2prompt.evidence.registry import evidence_for
from play2prompt.jsonutil import canonical, derive_seed
from play2prompt.lm.structured import chat_json, object_schema
from play2prompt.method.play import code_verdict
from play2prompt.tools.model import Invocation, Observation, Tool

if TYPE_CHECKING:  # the engine is passed in; the method needs only its type
    from play2prompt.engine import Engine

MAX_VALUES = 6       # values the generator proposes for one parameter (each run once)
MAX_PLAYED = 4       # texts other calls of play gave the parameter, tried first
MAX_WORDS = 4        # single words of those texts and the proposals ("lose" of "lose weight")
MAX_PARAMS = 2       # text parameters examined per tool
MAX_SAID = 3         # values not acted on named in the fact
VALUE_LIMIT = 40     # characters of one proposed value
WORD = "^[^ ]+$"     # one word or code: no spaces (llama.cpp's grammar takes no \S escape)


@dataclass(frozen=True)
class ValueProbe:
    """One text parameter's values tried: those that changed the output and those that gave
    the unknown word's (the call's own value first)."""

    param: str
    acted: tuple[str, ...]
    alike: tuple[str, ...]
    tried: tuple[tuple[Invocation, Observation], ...]

    def fact(self) -> Fact | None:
        """What the tool showed, when some values changed its output and some did not."""
        if not self.acted or not self.alike:
            return None
        verb = "changes" if len(self.acted) == 1 else "change"
        text = (f"Only {_listed(self.acted, 'or')} {verb} the result; other texts, such as "
                f"{_listed(self.alike[:MAX_SAID], 'or')}, give the same result as an unknown "
                f"word.")
        inv, obs = next((i, o) for i, o in self.tried if i.arguments[self.param] == self.acted[0])
        return Fact(self.param, "rule", text, (ACTS_ON, *self.acted),
                    evidence_of(inv, obs), inv.key())


def _listed(values: Sequence[str], word: str) -> str:
    quoted = [repr(v) for v in values]
    return quoted[0] if len(quoted) == 1 else f"{', '.join(quoted[:-1])} {word} {quoted[-1]}"


def _same(a: Any, b: Any) -> bool:
    return canonical({"v": a}) == canonical({"v": b})


def unacted(start: Invocation, start_obs: Observation,
            probed: Sequence[tuple[str, Invocation, Observation]]) -> list[str]:
    """The text parameters of ``start`` (a call that worked, its output ``start_obs``) whose
    unknown-word probe gave that same output: the tool did not act on the call's text."""
    out: list[str] = []
    for param, inv, obs in probed:
        value = start.arguments.get(param)
        if not (param and isinstance(value, str) and inv.arguments.get(param) == PROBE_WORD):
            continue
        rest_same = all(inv.arguments.get(k) == v for k, v in start.arguments.items()
                        if k != param)
        if rest_same and obs.ok and _same(obs.output, start_obs.output):
            out.append(param)
    return list(dict.fromkeys(out))[:MAX_PARAMS]


def values_schema() -> dict[str, Any]:
    """Single words or codes (no spaces: a 1.5B otherwise paraphrases the ignored value,
    "lose weight" for "weight loss"; play's other calls bring the phrases)."""
    item = {"type": "string", "minLength": 1, "maxLength": VALUE_LIMIT, "pattern": WORD}
    return object_schema({"values": {"type": "array", "items": item, "minItems": 1,
                                     "maxItems": MAX_VALUES}})


async def proposed_values(tool: Tool, engine: Engine, start: Invocation, param: str
                          ) -> list[str]:
    """Up to :data:`MAX_VALUES` values the generator says ``param`` may take (one call),
    other than the call's own and the unknown word."""
    spec = tool.properties.get(param) or {}
    said = str(spec.get("description") or "").strip()
    messages = engine.prompts.render(
        "value-probe", tool=tool.name, description=tool.description or "(none)",
        call=engine.scrubber.text(start.to_python()[:300]), param=param,
        param_doc=said or "(none)", value=repr(start.arguments[param]), count=MAX_VALUES)
    (answer,), _ = await chat_json(engine.generator, messages, values_schema(),
                                   role="generator",
                                   seed=derive_seed(tool.name, "value-probe", param),
                                   temperature=0.0, max_tokens=160)
    values = answer.get("values") if isinstance(answer, dict) else None
    return _new([v for v in values or [] if isinstance(v, str)], start, param, MAX_VALUES)


_WORD_PART = re.compile(r"[^\W\d_]{3,}")


def words_of(texts: Sequence[str]) -> list[str]:
    """The single words (3 letters or more, lower case) of the texts of several words, in
    order: "lose" and "weight" of "lose weight", "weight" and "gain" of "weight_gain"."""
    out = [w.lower() for t in texts if len(_WORD_PART.findall(t)) > 1
           for w in _WORD_PART.findall(t)]
    return list(dict.fromkeys(out))


def _new(values: Sequence[str], start: Invocation, param: str, limit: int) -> list[str]:
    """``values`` stripped, once each, without the call's own value and the unknown word."""
    own = {str(start.arguments[param]).strip().lower(), PROBE_WORD}
    out = dict.fromkeys(v.strip() for v in values)
    return [v for v in out if v and v.lower() not in own][:limit]


async def probe_values(tool: Tool, engine: Engine, book: FactBook, start: Invocation,
                       start_obs: Observation, param: str, played: Sequence[str] = ()
                       ) -> ValueProbe:
    """Run ``param``'s values in place of ``start``'s, the texts other calls of play gave it
    (``played``, up to :data:`MAX_PLAYED`) and the generator's proposals, and compare each
    output with the unknown word's (``start_obs``'s, which it equals); the fact, if any, joins
    ``book``."""
    others = _new(played, start, param, MAX_PLAYED)
    proposed = await proposed_values(tool, engine, start, param)
    texts = [str(start.arguments[param]), *others, *proposed]
    values = list(dict.fromkeys([*others, *proposed]))
    values += _new([w for w in words_of(texts) if w not in values], start, param, MAX_WORDS)
    calls = [start.with_args({param: v}) for v in values]
    raw = await asyncio.gather(*(engine.runtime.run(inv) for inv in calls))
    tried = tuple((inv, seen(obs, engine.scrubber)) for inv, obs in zip(calls, raw))
    reader = evidence_for(engine).fact_reader
    acted, alike = [], [str(start.arguments[param])]
    for inv, obs in tried:
        reader.observe(book, inv, obs, param)
        if not obs.ok or code_verdict(obs)[0] != 0:
            continue
        value = str(inv.arguments[param])
        (alike if _same(obs.output, start_obs.output) else acted).append(value)
    probe = ValueProbe(param, tuple(acted), tuple(alike), tried)
    fact = probe.fact()
    if fact is not None:
        book.add(fact)
    return probe


__all__ = ["MAX_PARAMS", "MAX_VALUES", "MAX_WORDS", "ValueProbe", "probe_values",
           "proposed_values", "unacted", "values_schema", "words_of"]
