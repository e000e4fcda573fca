"""The targets of Step 1b's fact tests (:mod:`play2prompt.evidence.fact_tests`): which value
of which verified example is said another way, in which form code made for it, and what a
request must do to say it (the form, or the value not as the tool takes it, or at least a
number)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from play2prompt.evidence.error_text import pattern
from play2prompt.evidence.everyday import Form, everyday_forms, typical_value
from play2prompt.evidence.facts import FactBook
from play2prompt.method.example_search import Example
from play2prompt.method.requests import says_as_given
from play2prompt.method.rewards import counts_per_year, value_in_text, whole_word
from play2prompt.scoring.checker import check_calls
from play2prompt.tools.model import Invocation, Tool

if TYPE_CHECKING:  # the runtime and play's results are passed in
    from play2prompt.method.play import PlayResult
    from play2prompt.tools.runtime import ToolRuntime

_DIGITS = re.compile(r"\d+(?:[.,]\d+)*")
MAX_SPARES = 4    # other calls of a parameter tried where a form does not separate its value
ALIKE_KINDS = ("position",)   # a call's values of these kinds are said alike in a request


@dataclass(frozen=True)
class FactTarget:
    """One value of a verified example to be said another way, and the fact about it."""

    example: Example
    param: str
    rule: str                        # what the tool takes, in the facts' sentences
    form: Form | None = None         # the form to say, where code made it beside the rule
    plain: bool = False              # the value may stand as written inside the phrase that
    #                                  says it ("lose weight" for "lose", the one text the
    #                                  tool acts on: an acted-value variant)
    phrase: str = ""                 # that phrase, where play's own texts hold one
    nth: int = 0                     # its place among its parameter's targets: which of the
    #                                  value's everyday forms it says (they take turns)
    about: str = ""                  # the parameter's name and description (what kind of
    #                                  code it takes: "destination country")
    spares: tuple[Example, ...] = ()  # the parameter's other queued examples, then play's
    #                                  worked calls, tried in turn where the form would not
    #                                  separate this one's value

    def code_form(self, value: Any) -> Form | None:
        """The target's own form, else the ``nth`` code makes for ``value`` (a share is said
        as a percentage and a ratio in turn); None when code makes none."""
        if self.form is not None:
            return self.form
        forms = everyday_forms(value, self.rule, self.about, self.param)
        return forms[self.nth % len(forms)] if forms else None


def plan_targets(tool: Tool, examples: Sequence[Example], book: FactBook,
                 budget: int) -> list[FactTarget]:
    """Up to ``budget`` (example, parameter) pairs: parameters with a fact that says another
    form (a unit, a scale, a format: :func:`~play2prompt.evidence.everyday.everyday_form`, or
    a list of accepted values), round-robin, each with the verified examples whose call sets
    it (to the value the test will take: :func:`~play2prompt.evidence.everyday.typical_value`,
    so ten-digit seconds where the tool takes milliseconds count), best first. A fact with no
    other form ("must be positive") tests nothing; a count a year (``compounding``) is said as
    how often with or without a fact."""
    rules = {p: " ".join(book.sentences(p, examples=False)) for p in tool.properties}
    # a count a year is said as how often without a fact about it
    rules = {p: r for p, r in rules.items() if r or counts_per_year(p)}
    about = {p: book.about(p, tool.doc.params.get(p, "")) for p in rules}

    def testable(p: str, ex: Example) -> bool:
        value = ex.invocation.arguments.get(p)
        typical = typical_value(value, rules[p])       # the value the test will take
        value = value if typical is None else typical
        return bool(book.accepted(p)) or bool(everyday_forms(value, rules[p], about[p], p))

    queues = {p: [ex for ex in examples if ex.verified and p in ex.invocation.arguments
                  and not ex.fact and testable(p, ex)] for p in rules}
    out: list[FactTarget] = []
    depth = max((len(q) for q in queues.values()), default=0)
    for i in range(depth):
        for p, queue in queues.items():
            if i < len(queue) and len(out) < budget:
                spares = tuple(queue[i + 1:i + 3])
                out.append(FactTarget(queue[i], p, rules[p], nth=i, about=about[p],
                                      spares=spares))
    return out


def with_played(target: FactTarget, plays: Sequence[PlayResult]) -> FactTarget:
    """``target`` with the calls that worked in ``plays`` that set its parameter as its last spares
    (up to :data:`MAX_SPARES` in all; a code form's request is written anew from the call
    alone): the kept examples may all be calls on which the fact shows nothing (run s72m:
    distance's two kept examples went from [0, 0] and from a point to itself)."""
    seen = {target.example.invocation.key(), *(s.invocation.key() for s in target.spares)}
    extra = []
    worked = [(a.invocation, a.observation) for p in plays for a in p.attempts
              if a.verdict == 0 and a.invocation is not None]
    for inv, obs in worked:
        if obs.ok and target.param in inv.arguments and inv.key() not in seen:
            seen.add(inv.key())
            extra.append(Example(inv.name, "", inv, obs, "", 0.0, 0.0, 0.0))
    return replace(target, spares=(*target.spares, *extra)[:MAX_SPARES])


def literal_value(form: Form, value: Any) -> Any:
    """The value a reader who ignores the fact writes for ``form``'s text: its numbers as
    said ("latitude 48.86, longitude 2.35" -> ``[48.86, 2.35]`` for ``[2.35, 48.86]``; "page
    3" -> 3 for 2; "12.5 dollars" -> 12.5 for 1250); None where the numbers do not stand for
    the value (a month's name, a unit word, a phrase)."""
    def like(number: float, as_: Any) -> Any:
        return int(number) if isinstance(as_, int) and float(number).is_integer() else number

    numbers = form.numbers
    if isinstance(value, list) and numbers and len(numbers) == len(value) and all(
            isinstance(v, (int, float)) and not isinstance(v, bool) for v in value):
        return [like(n, v) for n, v in zip(numbers, value)]
    if isinstance(value, (int, float)) and not isinstance(value, bool) and len(numbers) == 1:
        return like(numbers[0], value)
    return None


def says_a_number(value: Any, query: str, others: Invocation) -> bool:
    """A tested number is said somehow: the request has a number (digits or words) that is not
    one of the other values of the call. Without it the request leaves the value out, and a
    re-reading that guesses a usual value would pass it. Other values are not checked."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return True
    if pattern("number_words", "request_words.json").search(query):
        return True
    taken = [v for v in others.arguments.values() if isinstance(v, (int, float))]
    return any(not any(value_in_text(v, n) for v in taken) for n in _DIGITS.findall(query))


def form_problems(form: Form | None, value: Any, query: str, label: str,
                   others: Invocation, plain: bool = False) -> list[str]:
    """What is wrong with how ``query`` says the tested value: not in the code-made ``form``,
    or (without one, unless ``plain``) as the call has it, or not at all."""
    if form is not None and not form.said_in(query):
        return [f"it does not say {label} as {form.text}"]
    if form is not None and form.exact_code:
        if whole_word(str(value), case=True).search(query):
            return [f"it writes {value}, the code the tool takes; say it as {form.text}"]
    elif not plain and not (form is not None and form.as_given_ok) and \
            says_as_given(value, query):
        return [f"it writes {value} the way the tool takes it; say it the way people usually "
                f"say it"]
    if form is None and not says_a_number(value, query, others):
        return [f"it leaves out {label}; say it in another form"]
    return []


def everyday_phrase(value: str, texts: Sequence[str]) -> str:
    """The first of ``texts`` (play's and the probes', in order) that holds ``value`` as a
    word and says more ("lose weight" for "lose"): how people say the one text a tool acts
    on. "" when none does."""
    word = whole_word(value)
    return next((t for t in texts if word.search(t) and t.strip().lower() != value.lower()),
                "")


def alike_forms(target: FactTarget, form: Form, book: FactBook) -> dict[str, Form]:
    """The call's other values that code says in a form of ``form``'s kind under their own
    facts, where that kind is one a request says alike (:data:`ALIKE_KINDS`): a request names
    both points of a call or neither. Run s72q's drafts said "from -73.9922, 40.7128 to
    latitude 37.7749, longitude -122.4194", one point named and the other in the tool's
    order, as no person writes them."""
    if form.kind not in ALIKE_KINDS:
        return {}
    out = {}
    for p, v in target.example.invocation.arguments.items():
        if p == target.param:
            continue
        rule = " ".join(book.sentences(p, examples=False))
        if not rule:
            continue
        forms = everyday_forms(v, rule, "", p)
        if forms and forms[0].kind == form.kind:
            out[p] = forms[0]
    return out


async def separates(runtime: ToolRuntime, target: FactTarget, form: Form,
                    alike: dict[str, Form] | None = None) -> bool:
    """A reader who ignores the fact fails the test: the form's literal reading
    (:func:`literal_value`) is refused or answers otherwise than the call, executed. Where the
    form's numbers do not stand for the value, or are the value itself, it is not checked. On
    examples/silent (run s72m) the test of "`destination` is [longitude, latitude]" was written
    from a call whose origin was [0, 0], where the two orders give one distance: the original
    doc passed it, and the tool kept its doc with a test that tested nothing. Every argument
    with the tested value is read so (a request says them alike: run s72o's "the starting and
    ending locations specified by latitude -74.006 and longitude 40.7128", a point to itself),
    and so is each of the call's ``alike`` values in its own form."""
    inv = target.example.invocation
    value = inv.arguments[target.param]
    literal = literal_value(form, value)
    if literal is None or literal == value:
        return True
    same = {p: literal for p, v in inv.arguments.items() if v == value}   # said alike too
    for p, other in (alike or {}).items():
        read = literal_value(other, inv.arguments[p])
        same[p] = same.get(p, inv.arguments[p] if read is None else read)
    outcome = await check_calls([inv.with_args(same)], [inv], runtime,
                                expected_outputs=[target.example.observation.output])
    return not outcome.correct


def _forms(target: FactTarget) -> int:
    return len(everyday_forms(target.example.invocation.arguments.get(target.param),
                              target.rule, target.about, target.param))


Indexed = list[tuple[int, FactTarget]]


def split_waves(targets: Sequence[FactTarget]) -> tuple[Indexed, Indexed]:
    """The targets written at once, and those written after them, each with its place: a
    parameter whose value has several everyday forms (a share: "86 %", "43 out of 50") says
    each once first; its further targets wait for D0's verdicts (:func:`harder_forms`).
    Everything else at once."""
    first: Indexed = []
    later: Indexed = []
    for i, t in enumerate(targets):
        n = 0 if t.form is not None else _forms(t)
        (later if n > 1 and t.nth >= n else first).append((i, t))
    return first, later


def harder_forms(later: Sequence[FactTarget],
                 tested: Sequence[tuple[FactTarget, Example | None]]) -> list[FactTarget]:
    """``later`` targets, each set to say a form of its parameter that D0 failed in the first
    wave (R_e = 1: the paper's difficult examples), in turn; a parameter whose forms D0 all
    solved, or all failed, keeps the round-robin (one solved test is no verdict on a form)."""
    failed: dict[str, set[int]] = {}
    tried: dict[str, set[int]] = {}
    for target, ex in tested:
        if ex is None or target.form is not None or not target.rule:
            continue
        n = _forms(target) or 1
        tried.setdefault(target.param, set()).add(target.nth % n)
        if ex.r_e > 0:
            failed.setdefault(target.param, set()).add(target.nth % n)
    out, turn = [], dict.fromkeys(failed, 0)
    for t in later:
        hard = sorted(failed.get(t.param, ()))
        if not hard or set(hard) == tried.get(t.param):
            out.append(t)
            continue
        out.append(replace(t, nth=hard[turn[t.param] % len(hard)]))
        turn[t.param] += 1
    return out


__all__ = ["FactTarget", "alike_forms", "everyday_phrase", "form_problems", "harder_forms",
           "literal_value", "plan_targets", "says_a_number", "separates", "split_waves",
           "with_played"]
