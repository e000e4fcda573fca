"""Calls play never made: what the tool accepted beyond the generator's habits, as facts and as
the calls of fact tests (Step 1b, :mod:`play2prompt.evidence.fact_tests`).

Play's calls follow the generator's habits. On the opaque example tools every ``add_days`` call
of the 1.5B set ``business_days``, and none went back in time, so no verified example asked for
a plain date sum or a date before another, and the doc that the task model needed for them ("left
out, counts calendar days"; "negative to go back") could not win. Two kinds of call the tool
accepted, each checked by executing it, fill that gap:

- **left out**: a verified call without one of its optional yes/no or number arguments. When it
  runs and gives the same output, and the call with the flag flipped (a number one step either
  side, ``coats`` 1 and 3 around 2, or the values the tool listed around it) gives another, the
  value in that call is its default. A
  request written for the
  call without it says nothing of the option, as people leave it unsaid; the task model that
  sets the option anyway fails it (R_e = 1). Fact: ``Optional; defaults to false (...)``.
- **other sign**: a probe (:mod:`play2prompt.evidence.probes`) that flipped a number's sign and
  ran, where every verified call had the other sign (``days=-7`` where play always added).
  Its request says the number the way people do, by its size and a word of the other way
  ("7 days before": :func:`~play2prompt.evidence.everyday.sign_form`, checked by code), never
  as the call has it. In run opq-var0 the 1.5B, asked to say ``days: -7`` another way with no
  form given, wrote no usable request in 3 drafts ("How many days to add to the start date? -7").
  Fact: ``days may be negative (e.g. days=-7).``
- **acted value**: a value probe's call (:mod:`play2prompt.evidence.values`) with a text the
  tool acts on (``goal="lose"``, where ``"weight loss"`` and ``"lose weight"`` give the output
  of an unknown word), where no verified call of that argument has one: play's calls all set
  texts the tool ignores, so every verified example, and every demo, teaches a value that does
  nothing. Its request says the value the way people do ("I want to lose weight"); the task
  model reading the doc as given writes the phrase, not the word, and fails it (R_e = 1). Fact:
  the value probe's own ("Only 'lose' changes the result; ...").

- **unasked** (component ``unasked-tests``, off by default): a verified call without an optional
  argument of any type that every verified call set (``resting_hr``, which play's generator
  always filled in), when that call runs, whatever its output. Its request says nothing of the
  argument, written and verified as a left-out call is; a task model that fills the argument
  in unasked (the 1.5B wrote ``resting_hr=60`` for "I'm 35, zone 2" on examples/fresh) fails
  it. Fact: ``Optional; leave it out when the request does not give it (...)``. No default is
  claimed: the output may differ.

Only executions decide: a left-out call that fails or gives another output, or a probe that did
not run, is no variant.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from play2prompt.evidence.candidates import default_candidates, is_option, neighbours
from play2prompt.evidence.everyday import typical_value
from play2prompt.evidence.facts import Fact, FactBook, evidence_of
from play2prompt.evidence.names import UNASKED_TESTS
from play2prompt.evidence.observed import run_seen, seen
from play2prompt.evidence.option_effects import with_effects
from play2prompt.evidence.text_defaults import text_default, text_options
from play2prompt.jsonutil import canonical
from play2prompt.method.example import Example
from play2prompt.method.play import code_verdict
from play2prompt.numeric import is_number
from play2prompt.scrub import Scrubber
from play2prompt.tools.model import Invocation, Observation, Tool

if TYPE_CHECKING:  # the engine is passed in; the method needs only its type
    from play2prompt.engine import Engine

LEFT_OUT, OTHER_SIGN, ACTED, UNASKED = "left out", "other sign", "acted value", "unasked"
TRIES_PER_PARAM = 3      # verified calls tried without one optional argument, per argument


@dataclass(frozen=True)
class Variant:
    """A call the tool accepted that play never made, what it shows, and the example it
    varies (for a left-out argument; a probe's own call otherwise)."""

    param: str
    kind: str                      # LEFT_OUT | OTHER_SIGN | ACTED | UNASKED
    invocation: Invocation
    observation: Observation
    fact: Fact


def without(inv: Invocation, param: str) -> Invocation:
    """``inv`` with ``param`` left out (:meth:`Invocation.without`)."""
    return inv.without(param)


def left_out_calls(tool: Tool, examples: Sequence[Example]) -> list[tuple[str, Example]]:
    """(optional yes/no or number argument, verified example whose call sets it), up to
    ``TRIES_PER_PARAM`` examples per argument, in the examples' order; fact tests are not
    varied again. No text options: a filter left out can match what one value of it matched by
    chance (a search for "charger" without ``category`` finds what ``category="electronics"``
    found; seen in run opq-var), and a text has no neighbour to rule that out; a flag has one
    other value, a number one either side (:func:`neighbours`)."""
    required = set(tool.required)
    out: list[tuple[str, Example]] = []
    for param in tool.properties:
        if param in required:
            continue
        found = [ex for ex in examples if ex.verified and not ex.fact
                 and is_option(ex.invocation.arguments.get(param))]
        out.extend((param, ex) for ex in found[:TRIES_PER_PARAM])
    return out


def _shows_default(given: str, left: Observation, flips: Sequence[Observation],
                   scrubber: Scrubber) -> bool:
    """The call left out ran with the output ``given``, and every neighbour that ran gave
    another output (at least one ran; an empty result is an output: ``in_stock_only=True``
    finding nothing shows the flag matters)."""
    if code_verdict(left)[0] != 0 or canonical(left.output) != given:
        return False
    ran = [canonical(seen(f, scrubber).output) for f in flips if f.ok]
    return bool(ran) and given not in ran


def other_sign_probes(examples: Sequence[Example],
                      probed: Sequence[tuple[str, Invocation, Observation]]
                      ) -> list[tuple[str, Invocation, Observation]]:
    """Probes that ran with a number of the sign no verified call of that argument has (a
    negative ``days`` where every call added days), one per argument, in probing order."""
    signs: dict[str, set[bool]] = {}
    for ex in examples:
        if ex.verified:
            for name, value in ex.invocation.arguments.items():
                if is_number(value) and value != 0:
                    signs.setdefault(name, set()).add(value < 0)
    out: dict[str, tuple[str, Invocation, Observation]] = {}
    for param, inv, obs in probed:
        value = inv.arguments.get(param)
        if param in out or not is_number(value) or value == 0 or param not in signs \
                or (value < 0) in signs[param] or code_verdict(obs)[0] != 0:
            continue
        out[param] = (param, inv, obs)
    return list(out.values())


def acted_calls(examples: Sequence[Example],
                probed: Sequence[tuple[str, Invocation, Observation]],
                book: FactBook) -> list[Variant]:
    """The value probes' calls that ran with a text the tool acts on that no verified call
    sets (a verified call with it already shows it), one per argument, in probing order."""
    out: dict[str, Variant] = {}
    for param, inv, obs in probed:
        acted = book.acted_on(param)
        value = inv.arguments.get(param)
        if param in out or value not in acted or code_verdict(obs)[0] != 0 or any(
                ex.verified and ex.invocation.arguments.get(param) == value for ex in examples):
            continue
        fact = book.acted_fact(param)
        assert fact is not None       # ``acted`` came from it
        out[param] = Variant(param, ACTED, inv, obs, fact)
    return list(out.values())


def unasked_calls(tool: Tool, examples: Sequence[Example]) -> list[tuple[str, Example]]:
    """(optional argument, the first verified example that sets it) for each optional
    argument every verified example (fact tests aside) sets: no example shows it left out."""
    verified = [ex for ex in examples if ex.verified and not ex.fact]
    return [(param, verified[0]) for param in tool.properties
            if param not in set(tool.required) and verified
            and all(param in ex.invocation.arguments for ex in verified)]


def unasked_fact(param: str, call: Invocation, obs: Observation) -> Fact:
    return Fact(param, "rule", "Optional; leave it out when the request does not give it (a "
                "call without it ran).", ("unasked",), evidence_of(call, obs), call.key())


async def _unasked(tool: Tool, engine: Engine, examples: Sequence[Example],
                   skip: set[str]) -> list[Variant]:
    """The unasked variants: each :func:`unasked_calls` call run without its argument, kept
    when it runs (parameters in ``skip`` have a variant already)."""
    tries = [(p, ex) for p, ex in unasked_calls(tool, examples) if p not in skip]
    calls = [without(ex.invocation, param) for param, ex in tries]
    raw = await asyncio.gather(*(engine.runtime.run(c) for c in calls))
    out = []
    for (param, _), call, obs in zip(tries, calls, raw):
        obs = seen(obs, engine.scrubber)
        if code_verdict(obs)[0] == 0:
            out.append(Variant(param, UNASKED, call, obs, unasked_fact(param, call, obs)))
    return out


def default_fact(param: str, value: Any, call: Invocation, obs: Observation) -> Fact:
    shown = json.dumps(value, ensure_ascii=False)
    return Fact(param, "rule", f"Optional; defaults to {shown} (a call without it gave the "
                f"same result as {param}={shown}).", ("default", shown),
                evidence_of(call, obs), call.key())


def flag_effect(param: str, base: Invocation, shown: Observation, flipped: Observation,
                limit: int = 40) -> str:
    """What the flag's other value does, said on the call (" dayfirst=true changes it:
    arg="04/03/2024" gives "2024-03-04T00:00:00", not "2024-04-03T00:00:00"."), where the
    call has at most two other arguments and each value and output fits in ``limit``
    characters; "" otherwise. A default alone leaves a reader guessing when to set it (the
    1.5B left ``dayfirst`` false for a British date on examples/silent)."""
    other = json.dumps(not base.arguments[param])
    said = [f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in base.arguments.items()
            if k != param]
    outs = [json.dumps(o.output, ensure_ascii=False, default=str) for o in (flipped, shown)]
    if len(said) > 2 or any(len(t) > limit for t in (*said, *outs)) or outs[0] == outs[1]:
        return ""
    return f" {param}={other} changes it: {', '.join(said)} gives {outs[0]}, not {outs[1]}."


def sign_fact(param: str, value: Any, call: Invocation, obs: Observation) -> Fact:
    word = "negative" if value < 0 else "positive"
    return Fact(param, "rule", f"{param} may be {word} (e.g. {param}={value}).",
                ("sign", str(value)), evidence_of(call, obs),
                call.key())


def typical_call(inv: Invocation, param: str, book: FactBook | None) -> Invocation:
    """``inv`` with each number but ``param`` made typical where the facts show it is not
    (:func:`~play2prompt.evidence.everyday.typical_value`: a height of 7 is 700 where the tool
    takes centimetres): play's tiny room gives 0.01 litres for 2 coats and for 3, so a left-out
    ``coats`` shows no default there; the same room at its everyday size does."""
    if book is None:
        return inv
    args = dict(inv.arguments)
    for name, value in inv.arguments.items():
        rules = book.rules(name)
        typical = None if name == param or not is_number(value) else typical_value(
            value, rules)
        if typical is not None:
            args[name] = typical
    return inv if args == dict(inv.arguments) else Invocation(inv.name, args)


async def _given(engine: Engine, ex: Example, base: Invocation) -> Observation | None:
    """What ``base`` gives: the example's own output where it is the example's call, else
    ``base`` run (None where it fails)."""
    if base is ex.invocation:
        return ex.observation
    obs = seen(await engine.runtime.run(base), engine.scrubber)
    return obs if code_verdict(obs)[0] == 0 else None


async def _left_out(tool: Tool, engine: Engine, examples: Sequence[Example],
                    book: FactBook | None) -> dict[str, Variant]:
    """The left-out variants, one per argument: the first :func:`left_out_calls` call that,
    made typical (:func:`typical_call`) and run without its argument, shows the argument's
    default (:func:`_shows_default`; the neighbours from ``book``'s accepted values where it
    has them); where none does, the one other value the first such call ran like
    (:func:`_default_elsewhere`)."""
    tries = left_out_calls(tool, examples)
    bases = [typical_call(ex.invocation, param, book) for param, ex in tries]
    given = await asyncio.gather(*(_given(engine, ex, b) for (_, ex), b in zip(tries, bases)))
    calls = [without(b, param) for (param, _), b in zip(tries, bases)]
    flips = [[b.with_args({param: v})
              for v in neighbours(b.arguments[param],
                                  book.accepted(param) if book is not None else ())]
             for (param, _), b in zip(tries, bases)]
    raw = await asyncio.gather(*(engine.runtime.run(c)
                                 for c in [*calls, *(f for fs in flips for f in fs)]))
    ran = iter(raw[len(calls):])
    out: dict[str, Variant] = {}
    elsewhere: list[tuple[str, Invocation, Invocation, Observation]] = []
    for (param, _), base, shown, call, obs, fs in zip(tries, bases, given, calls, raw, flips):
        got = [next(ran) for _ in fs]
        obs = seen(obs, engine.scrubber)
        if param in out or shown is None or not _shows_default(
                canonical(shown.output), obs, got, engine.scrubber):
            if shown is not None and code_verdict(obs)[0] == 0 and param not in {
                    e[0] for e in elsewhere}:
                elsewhere.append((param, base, call, obs))
            continue     # left out, it does not do as the call did, or the value did nothing
        value = base.arguments[param]
        fact = default_fact(param, value, base, shown)
        if isinstance(value, bool) and got and got[0].ok:
            fact = replace(fact, text=fact.text + flag_effect(
                param, base, seen(shown, engine.scrubber), seen(got[0], engine.scrubber)))
        out[param] = Variant(param, LEFT_OUT, call, obs, fact)
    for param, base, call, obs in elsewhere:
        if param not in out and (found := await _default_elsewhere(
                engine, base, param, obs, book)) is not None:
            out[param] = Variant(param, LEFT_OUT, call, obs, default_fact(param, *found))
    return out


async def _text_defaults(tool: Tool, engine: Engine, examples: Sequence[Example],
                         book: FactBook | None, skip: set[str]) -> dict[str, Variant]:
    """The left-out variants of text options whose default the executions single out
    (:func:`~play2prompt.evidence.text_defaults.text_default`)."""
    out: dict[str, Variant] = {}
    for param in text_options(tool):
        if param not in skip and (found := await text_default(
                engine, tool, param, examples, book)) is not None:
            value, call, obs, left, left_obs = found
            out[param] = Variant(param, LEFT_OUT, left, left_obs,
                                 default_fact(param, value, call, obs))
    return out


async def _default_elsewhere(engine: Engine, base: Invocation, param: str, left: Observation,
                             book: FactBook | None) -> tuple[Any, Invocation, Observation] | None:
    """The one :func:`default_candidates` value whose call gives the left-out output ``left``,
    where its neighbours give another (:func:`_shows_default`), with that call and output;
    None where none or two do."""
    accepted = book.accepted(param) if book is not None else ()
    tries = [base.with_args({param: v})
             for v in default_candidates(base.arguments[param], accepted)]
    ran = await run_seen(engine, tries)
    same = [(c, o) for c, o in zip(tries, ran)
            if o.ok and canonical(o.output) == canonical(left.output)]
    if len(same) != 1:
        return None
    call, obs = same[0]
    value = call.arguments[param]
    flips = [base.with_args({param: v})
             for v in neighbours(value, accepted)]
    got = await asyncio.gather(*(engine.runtime.run(f) for f in flips))
    if not _shows_default(canonical(obs.output), left, got, engine.scrubber):
        return None
    return value, call, obs


async def find_variants(tool: Tool, engine: Engine, examples: Sequence[Example],
                        probed: Sequence[tuple[str, Invocation, Observation]],
                        limit: int, book: FactBook | None = None,
                        unasked: bool = False, effects: bool = False) -> list[Variant]:
    """Up to ``limit`` variants of ``tool``'s verified ``examples``: the value probes' calls
    with a text the tool acts on (with ``book``, the facts); for each optional argument, the
    first left-out call that runs with the same output (with ``unasked``, a text option's too:
    :mod:`~play2prompt.evidence.text_defaults`); then the probes of the other sign; then, with
    ``unasked``, the unasked calls; with ``effects``, a default's fact names what it and
    another value compute (component ``option-effects``). The left-out and unasked calls are
    executed here."""
    out = await _left_out(tool, engine, examples, book)
    if unasked:
        out.update(await _text_defaults(tool, engine, examples, book, set(out)))
    if effects:
        out = await with_effects(tool, engine, examples, out, book)
    variants = [*(acted_calls(examples, probed, book) if book is not None else []),
                *out.values()]
    for param, inv, obs in other_sign_probes(examples, probed):
        variants.append(Variant(param, OTHER_SIGN, inv, obs,
                                sign_fact(param, inv.arguments[param], inv, obs)))
    if unasked and len(variants) < limit:
        variants += await _unasked(tool, engine, examples, set(out))
    kept = variants[:limit]
    engine.uses[UNASKED_TESTS] += sum(v.kind == UNASKED for v in kept)
    return kept


__all__ = ["ACTED", "LEFT_OUT", "OTHER_SIGN", "UNASKED", "Variant", "acted_calls",
           "default_candidates", "default_fact", "find_variants", "flag_effect", "left_out_calls",
           "neighbours", "other_sign_probes", "sign_fact", "typical_call", "unasked_calls",
           "unasked_fact", "without"]
