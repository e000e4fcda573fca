"""What an undocumented tool does, learned from its outputs on varied inputs (issue 27).

A tool whose original description is blank or one word (opaque BFCL's ``function_3``, say; two
words such as "Converts units." already say what it does) gives the generator nothing to write
requests from. Once per tool, when play has executed at least one call that ran, the generator
is shown the tool's name, its parameters as play knows them (discovered ones included) and up
to :data:`MAX_CALLS` executed calls with their outputs (and up to :data:`MAX_ERRORS` errors),
scrubbed, and says in one or two sentences what the tool computes and returns and what each
parameter means (structured output). The answer becomes facts of kind ``describes``
(:data:`~play2prompt.method.discovery.DESCRIBES`): they fill D0's blanks in the doc play reads,
the request writer's labels and the facts doc, never the task model's D0 (R_e and the original
side of honest selection). A tool with a real description gets no call.

With the ``describe-check`` component (:mod:`play2prompt.evidence.formula`) the description is
then verified, once the tool has given :data:`MIN_CHECKED` comparable outputs (the probes vary
its calls): the generator guesses :data:`GUESSES` operations, each a Python expression; each is
run on the arguments of up to :data:`MAX_CHECKED` calls that ran and must give their outputs.
Told where it missed, the generator tries again (:data:`SAMPLES` answers sampled),
:data:`TRIES` times in all. A guess whose expression holds replaces the first description
("Computed as: math.gcd(a, b)."); when none holds the first description stays. (The check's
first form gave, where no guess held, what the tool returned on a few calls instead, and
described nothing before it could check: on opaque BFCL (a) the task model copied those
values and lost the questions the first description had won, run bfcl-a-chk3, 2026-11-26.)
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from play2prompt.evidence import formula
from play2prompt.evidence.facts import Fact
from play2prompt.jsonutil import derive_seed
from play2prompt.lm.structured import chat_json, object_schema
from play2prompt.method.discovery import DESCRIBES
from play2prompt.tools.model import Invocation, Observation, Tool

if TYPE_CHECKING:
    from play2prompt.scrub import Scrubber

MIN_WORDS = 2        # a description with fewer words says nothing of what the tool does
MAX_CALLS = 6        # executed calls that ran shown to the generator
MAX_ERRORS = 2       # calls that failed shown beside them
OUTPUT_LIMIT = 300   # characters of one output shown
EVIDENCE = "the generator's reading of executed calls"
TRIES = 3            # expressions the generator writes before its description is given up
MAX_CHECKED = 12     # calls that ran an expression is checked on
MIN_CHECKED = 2      # comparable outputs needed for the check to decide
GUESSES = 3          # different operations one answer guesses (describe-check)
# answers sampled on each try after the first, at RETRY_TEMPERATURE (2 until 2026-11-27: on
# opaque BFCL, run bfcl-a-acted, the second samples were 38 of 131 describe-check samples and
# 10,385 generated tokens, and no guess of theirs held where the first sample's did not)
SAMPLES = 1
RETRY_TEMPERATURE = 0.8


def needs_description(tool: Tool) -> bool:
    """The tool's original description says nothing (blank or under :data:`MIN_WORDS`)."""
    return len((tool.description or "").split()) < MIN_WORDS


@dataclass(frozen=True)
class Description:
    """What the generator said the tool does and what its parameters mean."""

    text: str
    params: tuple[tuple[str, str], ...] = ()
    check: formula.Check | None = None     # the expression's check (describe-check only)

    def facts(self) -> list[Fact]:
        source = EVIDENCE if self.check is None else (
            f"{EVIDENCE}, its expression run on {self.check.checked} of them "
            f"({self.check.matched} matched)")
        out = [Fact("", DESCRIBES, self.text, (), source)] if self.text else []
        return out + [Fact(n, DESCRIBES, m, (), source) for n, m in self.params if m]


def describe_schema(params: Sequence[str], expression: bool = False) -> dict[str, Any]:
    """{"description": text, "parameters": {name: meaning}} for the parameters ``params``;
    with ``expression``, {"guesses": [{"operation", "python", "description"}] x
    :data:`GUESSES`, "parameters": ...} (each guess's expression before its description)."""
    meanings = object_schema({n: {"type": "string", "maxLength": 120} for n in params})
    said = {"type": "string", "minLength": 8, "maxLength": 300}
    if expression:
        guess = object_schema({"operation": {"type": "string", "maxLength": 80},
                               "python": {"type": "string", "minLength": 1, "maxLength": 240},
                               "description": said})
        return object_schema({"guesses": {"type": "array", "items": guess,
                                          "minItems": GUESSES, "maxItems": GUESSES},
                              "parameters": meanings})
    return object_schema({"description": said, "parameters": meanings})


def _type(spec: Mapping[str, Any]) -> str:
    kind = spec.get("type") if isinstance(spec, Mapping) else None
    return str(kind) if kind else "any"


def _shown(calls: Sequence[tuple[Invocation, Observation]],
           scrubber: Scrubber) -> tuple[str, str]:
    """The calls that ran and a few that failed, one line each, scrubbed."""
    def line(inv: Invocation, obs: Observation) -> str:
        return scrubber.text(f"- {inv.to_python()[:200]} -> {obs.render(OUTPUT_LIMIT)}")

    ran = list(dict.fromkeys(line(i, o) for i, o in calls if o.ok))[:MAX_CALLS]
    failed = list(dict.fromkeys(line(i, o) for i, o in calls if not o.ok))[:MAX_ERRORS]
    errors = "Calls that failed:\n" + "\n".join(failed) if failed else ""
    return "\n".join(ran), errors


async def describe_tool(tool: Tool, engine: Any,
                        calls: Sequence[tuple[Invocation, Observation]]) -> Description | None:
    """What ``tool`` (as play knows it) does, from ``calls`` (executed, in a fixed order): one
    generator call, unchecked. None when the answer is unusable."""
    answers = await _ask(tool, engine, calls_messages(tool, engine, calls, "describe"), 0)
    return _description(answers[0], dict(tool.properties)) if answers else None


def calls_messages(tool: Tool, engine: Any, calls: Sequence[tuple[Invocation, Observation]],
                   template: str, **extra: str) -> list[dict[str, str]]:
    """``template`` filled with the tool's name, its parameters with their types, the calls
    that ran and a few that failed (scrubbed), and ``extra``: what the generator reads of a
    tool's executions (describe, describe-formula, units-formula)."""
    ran, errors = _shown(calls, engine.scrubber)
    params = ", ".join(f"{n} ({_type(s)})" for n, s in tool.properties.items()) or "(none)"
    return engine.prompts.render(template, tool=tool.name, params=params, calls=ran,
                                 errors=errors, **extra)


async def _ask(tool: Tool, engine: Any, messages: list[dict[str, str]],
               attempt: int, expression: bool = False) -> list[Mapping[str, Any]]:
    """The usable answers of try ``attempt``: one at temperature 0 first, then
    :data:`SAMPLES` sampled (a small model told it missed often repeats itself)."""
    answers, _ = await chat_json(engine.generator, messages,
                                 describe_schema(list(tool.properties), expression),
                                 role="generator", n=SAMPLES if attempt else 1,
                                 seed=derive_seed(tool.name, "describe", str(attempt)
                                                  if attempt else ""),
                                 temperature=RETRY_TEMPERATURE if attempt else 0.0,
                                 max_tokens=400)
    out = []
    for answer in answers:
        if not isinstance(answer, Mapping):
            continue
        for guess in answer.get("guesses") or [answer]:
            if isinstance(guess, Mapping) and str(guess.get("description", "")).strip():
                out.append({**guess, "parameters": answer.get("parameters") or {}})
    return out


def _description(answer: Mapping[str, Any], props: Mapping[str, Any], suffix: str = "",
                 check: formula.Check | None = None) -> Description:
    said = answer.get("parameters") or {}
    text = whole_sentences(str(answer["description"]), 300)
    return Description(f"{text} {suffix}".strip(),
                       tuple((n, whole_sentences(str(said.get(n, "")), 120)) for n in props),
                       check)


def checked_calls(calls: Sequence[tuple[Invocation, Observation]]
                   ) -> list[tuple[str, Mapping[str, Any], Any]]:
    """The distinct calls that ran with an output an expression's value can be compared
    with, as (the call as Python, its arguments, its output), at most :data:`MAX_CHECKED`."""
    out: dict[str, tuple[str, Mapping[str, Any], Any]] = {}
    for inv, obs in calls:
        if obs.ok and formula.checkable(obs.output):
            text = inv.to_python()[:200]
            out.setdefault(text, (text, dict(inv.arguments), obs.output))
    return list(out.values())[:MAX_CHECKED]


def computed(result: formula.Check) -> str:
    """"Computed as: EXPR." (with how many calls it gave when not all)."""
    if result.matched == result.checked:
        return f"Computed as: {result.expression}."
    return (f"Computed as: {result.expression} (as the tool gave on {result.matched} of "
            f"{result.checked} calls tried).")


def _tried(answer: Mapping[str, Any], props: Mapping[str, Any],
           cases: Sequence[tuple[str, Mapping[str, Any], Any]]) -> formula.Check:
    expression = formula.expression_of(str(answer.get("python", "")))
    if not formula.names_any(expression, props):
        return formula.Check(expression, len(cases), 0, ("it uses no parameter",))
    return formula.check(expression, cases)


def can_check(calls: Sequence[tuple[Invocation, Observation]]) -> bool:
    """Whether ``calls`` have enough comparable outputs (:data:`MIN_CHECKED`) for an
    expression's check to decide."""
    return len(checked_calls(calls)) >= MIN_CHECKED


async def verified_description(tool: Tool, engine: Any,
                               calls: Sequence[tuple[Invocation, Observation]],
                               tries: int = TRIES) -> Description | None:
    """Ask for expressions and a description until an expression gives every output of
    ``calls`` (told where the best one missed each time), ``tries`` times at most: the
    description with its expression when one holds; None when none holds or the calls have
    fewer than :data:`MIN_CHECKED` comparable outputs (no generator call then)."""
    props = dict(tool.properties)
    cases = checked_calls(calls)
    if len(cases) < MIN_CHECKED:
        return None
    messages = calls_messages(tool, engine, calls, "describe-formula")
    for attempt in range(tries):
        answers = await _ask(tool, engine, messages, attempt, expression=True)
        if not answers:
            continue
        # every check runs on the same cases, so the guess that matched most holds if any does
        answer, best = max(((answer, _tried(answer, props, cases)) for answer in answers),
                           key=lambda t: t[1].matched)
        if best.holds:
            return _description(answer, props, computed(best), best)
        messages = [*messages, {"role": "assistant", "content": json.dumps(answer)},
                    *engine.prompts.render("describe-retry", matched=best.matched,
                                           checked=best.checked, misses="\n".join(best.misses))]
    return None


def whole_sentences(text: str, limit: int) -> str:
    """``text`` on one line, without a last sentence the length bound (``limit``, the schema's
    maxLength) cut off: "Whether to count weekends. If True, weekends are included; if False,
    weekends" keeps its first sentence. A text with no full sentence before the cut is kept."""
    text = " ".join(text.split())
    if len(text) < limit - 1 or text.endswith((".", "!", "?")):
        return text
    end = max(text.rfind(". "), text.rfind("! "), text.rfind("? "))
    return text[:end + 1] if end > 0 else text
