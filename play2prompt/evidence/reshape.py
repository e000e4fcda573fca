"""Reshaped calls: a call that failed with a Python type error about a value's shape, tried
again with its values reshaped, so the tool shows which parameters take a list, a text or a
number.

A generator that does not know a parameter's type (the schema lost it) writes ``x=10`` where
the function takes a list, and all it gets back is "object of type 'int' has no len()" or
"'int' object is not subscriptable", which names no argument. Code tries what such an error
points at (:func:`reshaped`): each scalar wrapped in a list, all of them together (lists of
equal length), a dict given as the list of its values and, when the error speaks of text
against numbers, a numeric text as a number or a number as text, one argument at a time; the
arguments the error names first, a few executions per failing call (:data:`MAX_RESHAPES`).
A text the function split into more parts than it unpacks ("too many values to unpack
(expected 2)" for ``time="12:34:56"``) is tried with its first parts only, for each separator
it has (``"12:34"``: :func:`unpacked`), ahead of the rest; one that runs gives a ``rule`` fact
saying how many parts the text takes. The errors that count are data
(``data/error_words.json``, ``type_shape``).

A reshaped call that runs is a repaired call (:class:`~play2prompt.evidence.probes.Prober`
keeps it) and shows the type of what it changed: a ``param`` fact of status ``ran``
(:func:`type_fact`), which :mod:`play2prompt.method.discovery` puts in the schema ahead of
what errors implied (``{"type": "array", "items": {"type": "number"}}``). One that gets past
the type error to another error of the tool's own ("division by zero") shows the type too,
and is no repaired call.
"""

from __future__ import annotations

import ast
import asyncio
import re
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any

from play2prompt.evidence.error_text import mentions, words
from play2prompt.evidence.facts import Fact, FactBook, evidence_of
from play2prompt.evidence.lengths import MAX, index_error, largest, length_fact, resized
from play2prompt.evidence.observed import seen
from play2prompt.evidence.registry import evidence_for
from play2prompt.method.play import PlayResult, code_verdict
from play2prompt.numeric import parse_number
from play2prompt.tools.model import Invocation, Observation, Tool

if TYPE_CHECKING:  # the engine is passed in; the method needs only its type
    from play2prompt.engine import Engine

MAX_RESHAPES = 6    # executions per failing call
MAX_CALLS = 3       # failing calls reshaped per probing
SEPARATORS = (":", "-", "/", ",", ";", "|", ".", " ", "x")   # a text's parts, as unpacked
# what a text the tool evaluates as Python is tried as: a function of one value, of any
# number of values, a number (the next error says which the tool wanted)
CODE_FORMS = ("lambda x: x", "lambda *args: 0", "0")
RAN = "ran"         # a param fact's status: a call with a value of this type ran

_ITEMS = {"number": "numbers", "integer": "integers", "string": "texts",
          "boolean": "true or false values", "object": "objects", "array": "lists"}


@cache
def _patterns(kind: str) -> tuple[re.Pattern[str], ...]:
    return tuple(re.compile(p, re.I) for p in words()["type_shape"][kind])


def type_shape(error: str) -> tuple[bool, bool]:
    """Whether ``error`` is a type error about a value's shape (or an unpacking of too many
    parts: :func:`unpack_expected`), and whether it speaks of text against numbers ("can only
    concatenate str (not "int") to str")."""
    shape = any(p.search(error) for p in _patterns("shape")) or bool(unpack_expected(error))
    return shape, shape and any(p.search(error) for p in _patterns("text_number"))


def unpack_expected(error: str) -> int:
    """How many parts the function unpacked where it got more ("too many values to unpack
    (expected 2)"): 2; 0 when ``error`` says no such thing."""
    for pattern in _patterns("unpack"):
        found = pattern.search(error)
        if found:
            return int(found.group(1))
    return 0


def evaluated(inv: Invocation, error: str) -> list[str]:
    """The text arguments of ``inv`` the tool evaluated as Python code, by what ``error``
    says: an undefined name that the text holds ("name 'zzqx' is not defined" for
    ``f='zzqx'``); a syntax error in a compiled text ("(<string>, line 1)": the texts that are
    no Python expression, as :func:`ast.parse` says without running them); a value called that
    is no function ("'int' object is not callable": the texts that are a Python expression
    with an operator, ``f='3*x**2 + 1'``)."""
    texts = {p: v for p, v in inv.arguments.items() if isinstance(v, str) and v.strip()}
    names = {m.group(1) for p in _patterns("undefined") for m in p.finditer(error)}
    if names:
        return [p for p, v in texts.items()
                if any(re.search(rf"(?<!\w){re.escape(n)}(?!\w)", v) for n in names)]
    if any(p.search(error) for p in _patterns("compiled")):
        return [p for p, v in texts.items() if _expression(v) is None]
    if any(p.search(error) for p in _patterns("called")):
        return [p for p, v in texts.items()
                if isinstance(_expression(v), (ast.BinOp, ast.UnaryOp, ast.Constant))]
    return []


def _expression(text: str) -> ast.expr | None:
    """``text`` parsed as a Python expression (never run); None when it is none."""
    if len(text) > 2000:
        return None
    try:
        return ast.parse(text.strip(), mode="eval").body
    except (SyntaxError, ValueError):
        return None


def unpacked(inv: Invocation, expected: int) -> list[tuple[tuple[str, ...], Invocation]]:
    """``inv`` with one text argument cut to its first ``expected`` parts, for each argument
    and separator that split it into more ("12:34:56" -> "12:34")."""
    out = []
    for name, value in inv.arguments.items():
        if not isinstance(value, str):
            continue
        for sep in SEPARATORS:
            parts = value.split(sep)
            if len(parts) > expected and all(p.strip() for p in parts):
                cut = sep.join(parts[:expected])
                out.append(((name,), inv.with_args({name: cut})))
    return out


def _scalar(value: Any) -> bool:
    return isinstance(value, (str, int, float)) and not isinstance(value, bool)


def _converted(value: Any) -> Any:
    """A numeric text as its number, a number as its text; None when neither."""
    if isinstance(value, str):
        return parse_number(value.strip()) if value.strip() else None
    if _scalar(value):
        return str(value)
    return None


def reshaped(inv: Invocation, error: str) -> list[tuple[tuple[str, ...], Invocation]]:
    """The reshaped variants of ``inv`` (which failed with ``error``), best first, at most
    :data:`MAX_RESHAPES` before deduplication by the caller: (the arguments changed, the
    call). A text the tool evaluated as Python (:func:`evaluated`) is tried as each of
    :data:`CODE_FORMS`. None when the error is neither."""
    shape, text_number = type_shape(error)
    if not shape:
        return [((param,), inv.with_args({param: form}))
                for param in evaluated(inv, error) for form in CODE_FORMS
                if inv.arguments[param] != form]
    expected = unpack_expected(error)
    first = unpacked(inv, expected) if expected else []
    args = inv.arguments
    named = [p for p in args if mentions(error, p)]
    scalars = [p for p, v in args.items() if _scalar(v)]

    def one(name: str) -> list[tuple[str, ...]]:
        value = args[name]
        out = []
        if _scalar(value):
            out.append(("wrap", name))
        if isinstance(value, dict) and value:
            out.append(("values", name))
        if text_number and _converted(value) is not None:
            out.append(("convert", name))
        return out

    plan: list[tuple[str, ...]] = [step for p in named for step in one(p)]
    if len(scalars) > 1:
        plan.append(("wrap", *scalars))
    plan += [("wrap", p) for p in scalars]
    plan += [("values", p) for p, v in args.items() if isinstance(v, dict) and v]
    if text_number:
        plan += [("convert", p) for p in args if _converted(args[p]) is not None]
    out: dict[str, tuple[tuple[str, ...], Invocation]] = {
        call.key(): (names, call) for names, call in first}
    for how, *names in dict.fromkeys(plan):
        changed = {n: _changed(how, args[n]) for n in names}
        call = Invocation(inv.name, {**args, **changed})
        out.setdefault(call.key(), (tuple(names), call))
    return list(out.values())


def _changed(how: str, value: Any) -> Any:
    if how == "wrap":
        return [value]
    if how == "values":
        return list(value.values())
    return _converted(value)


def json_kind(value: Any) -> str:
    """The JSON Schema type of ``value`` (a whole number counts as a number)."""
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    return {str: "string", list: "array", dict: "object"}.get(type(value), "")


def type_fact(param: str, value: Any, inv: Invocation, obs: Observation) -> Fact | None:
    """That ``param`` takes what ``value`` is (a call with it ran, or got past the type
    error): ``(ran, type)``, or ``(ran, "array", items' type)`` for a list of one type."""
    kind = json_kind(value)
    if not kind:
        return None
    items = {json_kind(v) for v in value} if isinstance(value, list) else set()
    item = next(iter(items)) if len(items) == 1 and "" not in items else ""
    said = {"array": "a list", "string": "a text", "number": "a number",
            "boolean": "true or false", "object": "an object"}[kind]
    if item:
        said += f" of {_ITEMS[item]}"
    return Fact(param, "param", f"{param} takes {said}.",
                (RAN, kind, item) if item else (RAN, kind),
                evidence_of(inv, obs), inv.key())


@dataclass(frozen=True)
class Reshaped:
    """One reshaped call executed: what it changed, the call, what the tool said, whether it
    ran (a repaired call)."""

    start: Invocation         # the call that failed
    params: tuple[str, ...]
    invocation: Invocation
    observation: Observation
    works: bool

    @property
    def param(self) -> str:
        return ", ".join(self.params)


def failing(calls: Iterable[tuple[Invocation | None, Observation]],
            done: Collection[str]) -> list[Invocation]:
    """The executed ``calls`` that failed with a type-shape error, on a text evaluated as
    code or with an index error (:mod:`.lengths`), not yet reshaped (``done``: call keys),
    first seen first."""
    out: dict[str, Invocation] = {}
    for inv, obs in calls:
        error = obs.error or ""
        if inv is not None and not obs.ok and obs.error_type in (None, "exception") \
                and inv.key() not in done and (type_shape(error)[0] or index_error(error)
                                               or evaluated(inv, error)):
            out.setdefault(inv.key(), inv)
    return list(out.values())


async def reshape(tool: Tool, engine: Engine, book: FactBook, plays: Sequence[PlayResult],
                  tried: Collection[str], done: set[str],
                  probed: Sequence[tuple[Invocation, Observation]] = ()) -> list[Reshaped]:
    """Reshape up to :data:`MAX_CALLS` failing calls of ``plays`` (then those of ``probed``,
    the probes run so far, that failed on a text the tool evaluates) not in ``done`` (which
    gains them), never running a call in ``tried`` (call keys) again; facts go to
    ``book``."""
    calls = [(a.invocation, a.observation) for p in plays for a in p.attempts
             if a.invocation is not None]
    calls += [(inv, obs) for inv, obs in probed if evaluated(inv, obs.error or "")]
    observed = {inv.key(): obs for inv, obs in calls if inv is not None}
    seen_keys = set(tried)
    out: list[Reshaped] = []
    for inv in failing(calls, done)[:MAX_CALLS]:
        done.add(inv.key())
        error = observed[inv.key()].error or ""
        index = bool(index_error(error)) and not type_shape(error)[0]
        variants = [(names, call) for names, call in (resized(inv) if index
                                                      else reshaped(inv, error))
                    if call.key() not in seen_keys][:MAX_RESHAPES]
        seen_keys.update(call.key() for _, call in variants)
        if index:
            out += await _resize(engine, book, inv,
                                 seen(observed[inv.key()], engine.scrubber), variants)
        else:
            out += await _execute(engine, book, inv, variants)
    return out


async def _run_all(engine: Engine, book: FactBook, start: Invocation,
                   calls: Sequence[tuple[tuple[str, ...], Invocation]]) -> list[Reshaped]:
    """Run ``calls`` (through the runtime, so consent holds) together, then read each, in
    order: a call that failed, changed in one argument, is read as a probe of it."""
    raw = await asyncio.gather(*(engine.runtime.run(call) for _, call in calls))
    out = []
    for (names, call), got in zip(calls, raw):
        obs = seen(got, engine.scrubber)
        works = code_verdict(obs)[0] == 0
        probed = None if works or len(names) != 1 else names[0]
        evidence_for(engine).fact_reader.observe(book, call, obs, probed)
        out.append(Reshaped(start, names, call, obs, works))
    return out


async def _resize(engine: Engine, book: FactBook, start: Invocation, failed: Observation,
                  calls: Sequence[tuple[tuple[str, ...], Invocation]]) -> list[Reshaped]:
    """Run the resized calls of ``start``, which failed with an index error (``failed``,
    scrubbed): the lengths they show are facts; a number set to 1 that ran where no list
    explains the error is halved towards the value that failed, to the largest that runs
    (:mod:`.lengths`)."""
    out = await _run_all(engine, book, start, calls)
    facts = list({(f.param, f.values): f for r in reversed(out) if r.works
                  for f in length_fact(start, failed.error or "", r.invocation,
                                       r.observation)}.values())
    have = {(f.param, f.values) for f in book.facts if f.kind == "rule"}
    for fact in facts:      # one fact a bound: a second failing call shows it again
        if (fact.param, fact.values) not in have:
            book.add(fact)
    halved = {f.param for f in book.facts if f.kind == "rule" and f.values[:1] == (MAX,)}
    for r in list(out) if not facts else ():
        if len(r.params) != 1 or r.params[0] in halved or not r.works:
            continue
        param = r.params[0]
        if r.invocation.arguments.get(param) == 1 != start.arguments.get(param):
            halved.add(param)

            async def run(call: Invocation, p: str = param) -> tuple[Observation, bool]:
                (one,) = await _run_all(engine, book, start, [((p,), call)])
                return one.observation, one.works

            done, fact = await largest(run, start, failed, param)
            out += [Reshaped(start, (param,), c, o, code_verdict(o)[0] == 0) for c, o in done]
            if fact is not None:
                book.add(fact)
    return out


async def _execute(engine: Engine, book: FactBook, start: Invocation,
                   calls: Sequence[tuple[tuple[str, ...], Invocation]]) -> list[Reshaped]:
    """Run the reshaped calls of ``start`` (through the runtime, so consent holds), read
    them, and record the type each shows."""
    out = await _run_all(engine, book, start, calls)
    coded: set[str] = set()    # one code fact a parameter: the first form that ran
    for r in _showing(out):
        for name in r.params:
            if _as_code(name, r):
                fact = None if name in coded else code_fact(name, r)
                coded.add(name)
            else:
                fact = parts_fact(name, r) or type_fact(name, r.invocation.arguments[name],
                                                        r.invocation, r.observation)
            if fact is not None:
                book.add(fact)
    return out


def parts_fact(param: str, r: Reshaped) -> Fact | None:
    """That ``param`` takes a text of fewer parts, when ``r`` cut it (:func:`unpacked`) and
    ran: "time takes a text of 2 parts separated by ':', like '14:30' (not '14:30:00')",
    valued ``("parts", ":", "2")`` (the next tries are decoded against it as a pattern)."""
    before, after = r.start.arguments.get(param), r.invocation.arguments.get(param)
    if not (r.works and isinstance(before, str) and isinstance(after, str)
            and before != after and before.startswith(after)):
        return None
    sep = before[len(after)]
    count = len(after.split(sep))
    text = (f"{param} takes a text of {count} parts separated by {sep!r}, like {after!r} "
            f"(not {before!r}).")
    shown = evidence_of(r.invocation, r.observation)
    return Fact(param, "rule", text, ("parts", sep, str(count)), shown, r.invocation.key())


def _as_code(param: str, r: Reshaped) -> bool:
    """Whether ``r`` tried ``param``'s text as code (a number converted to the text "0" is a
    text-number reshape, not code)."""
    return isinstance(r.start.arguments.get(param), str) and \
        r.invocation.arguments.get(param) in CODE_FORMS


def code_fact(param: str, r: Reshaped) -> Fact | None:
    """That ``param`` takes Python code the tool evaluates, when a call with one of
    :data:`CODE_FORMS` there ran: "f takes Python code that the tool evaluates, such as
    'lambda x: x'.", valued ``("code", form)``."""
    after = r.invocation.arguments.get(param)
    if not (r.works and _as_code(param, r)):
        return None
    shown = evidence_of(r.invocation, r.observation)
    return Fact(param, "rule", f"{param} takes Python code that the tool evaluates, such as "
                f"{after!r}.", ("code", after), shown, r.invocation.key())


def _showing(done: Sequence[Reshaped]) -> list[Reshaped]:
    """The reshaped calls whose types are facts: those that ran, else those that got past
    the type error to an error of the tool's own; of them, those that changed the fewest
    arguments (wrapping x alone worked: y need not be a list)."""
    past = [r for r in done if not r.observation.ok and r.observation.error_type == "exception"
            and not type_shape(r.observation.error or "")[0]]
    chosen = [r for r in done if r.works] or past
    fewest = min((len(r.params) for r in chosen), default=0)
    return [r for r in chosen if len(r.params) == fewest]


__all__ = ["CODE_FORMS", "MAX_CALLS", "MAX_RESHAPES", "RAN", "Reshaped", "code_fact", "evaluated",
           "failing", "json_kind", "parts_fact",
           "reshape", "reshaped", "type_fact", "type_shape", "unpack_expected", "unpacked"]
