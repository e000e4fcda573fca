"""The unit a number parameter takes, learned from the tool's outputs (component
``output-units``, issue 27).

Some facts are in no error message: a tool that takes a rate in percent accepts 0.05 and
returns a tiny interest; one that takes centimetres accepts 10 and returns 0.04 m2. Play runs
such calls without a complaint, and a thin doc leaves the task model writing 0.05 for 5 % and
metres for a room (examples/fresh: 0 of 8 savings requests right with the doc as given). A
1.5B cannot check those outputs in its head; code can check a formula.

Once per tool, when play has run calls with number outputs, the generator writes the textbook
formula of one output field (:data:`GUESSES` guesses, a Python expression each) and the unit
it takes each number parameter in ("fraction", "metres"); told where its formulas missed, it
tries again (:data:`TRIES` answers in all, the later ones sampled). Code runs each expression
on the calls that ran (the sandbox of :mod:`play2prompt.evidence.formula`) with every
parameter left as called or multiplied by one of :data:`SCALES`. A formula that holds only
once some of its parameters are rescaled, with one smallest such rescaling, says each of
those parameters is in another unit of the unit the generator named: 0.01 times a fraction is
a percentage, 0.01 times a metre a centimetre (the unit families and sizes are the fact
reader's data). A formula that holds as written says a unit only where it converts a
parameter itself (``annual_rate / 100``). Those become rule facts ("`annual_rate` is a
percentage."), which the facts doc states and Step 1b's fact tests say the everyday way
("5 %", "3.5 metres").

Guards, since a wrong unit would make its own tests: a rescaling (or a conversion in the
formula) that only moves the output's scale (outputs in one power-of-ten ratio to the
formula's: the unit could be the output's) counts only where the output field names its unit
(``wall_area_m2``); the fit must hold on at least :data:`MIN_CASES` calls that ran, with one
smallest rescaling; a unit the generator named that no family has says nothing.

Measured (examples/fresh, runs fresh3 and fresh4, 2026-11-27): the 1.5B's formulas fit none
of the 8 tools (compound growth without the periods in the exponent, a volume for a wall
area, the same again on both retries), so it is off by default.
"""

from __future__ import annotations

import ast
import itertools
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from play2prompt.evidence import formula
from play2prompt.evidence.describe import calls_messages, checked_calls
from play2prompt.evidence.error_text import words
from play2prompt.evidence.everyday import everyday_unit, tool_unit, unit_scales
from play2prompt.evidence.facts import Fact
from play2prompt.jsonutil import derive_seed
from play2prompt.lm.structured import chat_json, object_schema
from play2prompt.numeric import close, is_number
from play2prompt.tools.model import Invocation, Observation, Tool

SCALES = (0.01, 0.001, 100.0, 1000.0)   # tool value x scale = the formula's value
GUESSES = 2            # formulas one answer gives
TRIES = 3              # answers asked, each after the first told where the formulas missed
RETRY_TEMPERATURE = 0.8
MIN_CASES = 3          # calls that ran a fit must hold on
MAX_PARAMS = 4         # rescaled together at most (5 ** 4 assignments)
CHUNK = 256            # assignments evaluated by one sandboxed child
FORMS = "everyday_forms.json"
EVIDENCE = "the tool's outputs on calls that ran, checked against the formula"
# a unit named in an output field's name: "_m2", "_kg", "_pct" (the output's scale is known)
_FIELD_UNIT = re.compile(r"(?:^|_)(?:m2|m3|sq_?m|mm|cm|m|km|g|kg|lb|s|ms|min|h|pct|percent)$")


@dataclass(frozen=True)
class Fit:
    """A formula that gives an output field once ``scales`` (parameter, factor) are applied."""

    field: str
    expression: str
    units: tuple[tuple[str, str], ...]     # the unit the formula takes each parameter in
    scales: tuple[tuple[str, float], ...]
    check: formula.Check
    own: bool = False      # the formula converts the parameters itself (holds as written)

    def facts(self) -> list[Fact]:
        said = dict(self.units)
        out = []
        for param, factor in self.scales:
            unit = unit_after(said.get(param, ""), factor)
            if unit is None and self.own:    # the unit named may be the tool's, not the formula's
                named = canonical_unit(said.get(param, ""))
                unit = named if named is not None and named == unit_after(
                    _base(named), factor) else None
            if unit is not None:
                out.append(Fact(param, "rule", unit_sentence(param, unit), (),
                                f"{EVIDENCE}: {self.field or 'the output'} = "
                                f"{self.expression} on {self.check.matched} calls, "
                                f"{'which takes' if self.own else 'with'} {param} x "
                                f"{factor:g}"[:300]))
        return out


def number_params(tool: Tool) -> list[str]:
    """The tool's number parameters (those a formula can take)."""
    return [n for n, s in tool.properties.items()
            if isinstance(s, Mapping) and s.get("type") in ("number", "integer")
            and n.isidentifier()]


def unknown_units(tool: Tool, ruled: Mapping[str, str]) -> list[str]:
    """The number parameters whose unit no fact says yet (``ruled``: each parameter's rule
    sentences): the ones a fit may give a fact. The others are rescaled too (a formula may
    take a rate the tool takes in percent as a fraction) but keep their facts."""
    return [n for n in number_params(tool) if tool_unit(ruled.get(n, "")) is None]


def number_fields(output: Any) -> list[str]:
    """"" for an output that is a number; else the keys of its number fields."""
    if is_number(output):
        return [""]
    if isinstance(output, Mapping):
        return [str(k) for k, v in output.items() if is_number(v) and str(k).isidentifier()]
    return []


def _field_cases(cases: Sequence[tuple[str, Mapping[str, Any], Any]], field: str
                 ) -> list[tuple[str, Mapping[str, Any], Any]]:
    out = []
    for text, args, output in cases:
        value = output if not field else (output.get(field) if isinstance(output, Mapping)
                                          else None)
        if is_number(value):
            out.append((text, args, value))
    return out


def _named(expression: str, params: Sequence[str]) -> list[str]:
    try:
        tree = ast.parse(expression, mode="eval")
    except SyntaxError:
        return []
    used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    return [p for p in params if p in used][:MAX_PARAMS]


def _scale_only(values: Sequence[Any], outputs: Sequence[Any], field: str) -> bool:
    """The tool's outputs are the formula's (as written) times one power of ten, and the
    field names no unit: a rescaled input explains them no better than an output in another
    unit (cm2 for m2, g for kg)."""
    if len(values) < 2 or not all(is_number(v) for v in values) \
            or _FIELD_UNIT.search(field.lower()):
        return False
    return any(all(formula.same(v * 10.0 ** k, o) for v, o in zip(values, outputs))
               for k in range(-6, 7) if k)


def fit(expression: str, field: str, cases: Sequence[tuple[str, Mapping[str, Any], Any]],
        params: Sequence[str], units: Mapping[str, str]) -> Fit | None:
    """The one smallest rescaling of ``params`` under which ``expression`` gives the field
    on ``cases`` (see the module for the guards), or None."""
    used = _named(expression, params)
    if len(cases) < MIN_CASES or not used:
        return None
    grid = sorted(itertools.product((1.0, *SCALES), repeat=len(used)),
                  key=lambda a: sum(f != 1.0 for f in a))
    n = len(cases)
    rows = []
    for start in range(0, len(grid), CHUNK):   # a child each: bounded by formula.TIMEOUT_S
        rows += formula.evaluate_many([expression], [
            {**args, **{p: args[p] * f for p, f in zip(used, a) if is_number(args.get(p))}}
            for a in grid[start:start + CHUNK] for _, args, _ in cases])[0]
    held = []
    for i, assignment in enumerate(grid):
        check = formula.checked(expression, cases, _rows(rows, i, n))
        if check.holds and check.matched >= MIN_CASES:
            held.append((assignment, check))
    if not held:
        return None
    outputs = [o for _, _, o in cases]
    if all(f == 1.0 for f in held[0][0]):   # it holds as written: a unit only where it converts
        own = own_scales(expression, used)
        undone = tuple(1 / own[p] if p in own else 1.0 for p in used)   # as if it did not
        if not own or undone not in grid or _scale_only(
                [r.get("value") for r in _rows(rows, grid.index(undone), n)], outputs, field):
            return None
        return Fit(field, expression, tuple((p, str(units.get(p, ""))) for p in used),
                   tuple(own.items()), held[0][1], own=True)
    fewest = sum(f != 1.0 for f in held[0][0])
    if sum(sum(f != 1.0 for f in a) == fewest for a, _ in held) > 1:
        return None              # two rescalings explain the outputs equally
    assignment, check = held[0]
    scaled = tuple((p, f) for p, f in zip(used, assignment) if f != 1.0)
    plain = _rows(rows, 0, n)    # the identity assignment comes first
    if _scale_only([r.get("value") for r in plain], outputs, field):
        return None              # the output's unit could explain it as well
    return Fit(field, expression, tuple((p, str(units.get(p, ""))) for p in used), scaled,
               check)


_CONVERTS = {100: 0.01, 1000: 0.001}     # a parameter divided by these, or times the values


def own_scales(expression: str, params: Sequence[str]) -> dict[str, float]:
    """The parameters ``expression`` converts itself, with the factor it applies:
    ``annual_rate / 100`` is annual_rate x 0.01; ``grams * 0.001`` grams x 0.001. A parameter
    converted two ways is left out."""
    try:
        tree = ast.parse(expression, mode="eval")
    except SyntaxError:
        return {}
    found: dict[str, set[float]] = {}
    for node in ast.walk(tree):
        if not isinstance(node, ast.BinOp):
            continue
        pairs = [(node.left, node.right)]
        if isinstance(node.op, ast.Mult):
            pairs.append((node.right, node.left))
        for name, const in pairs:
            if not (isinstance(name, ast.Name) and name.id in params
                    and isinstance(const, ast.Constant) and is_number(const.value)):
                continue
            value = float(const.value)
            if isinstance(node.op, ast.Div) and value in _CONVERTS:
                found.setdefault(name.id, set()).add(_CONVERTS[value])
            elif isinstance(node.op, ast.Mult) and value in (*_CONVERTS.values(), *_CONVERTS):
                found.setdefault(name.id, set()).add(value)
    return {p: next(iter(k)) for p, k in found.items() if len(k) == 1}


def _base(unit: str) -> str:
    """The unit of size 1 in ``unit``'s family (the fraction for percent)."""
    if unit in ("percent", "fraction"):
        return "fraction"
    scales = words(FORMS)["scales"]
    family = next((f for f in words()["unit_families"] if unit in f), {})
    return next((u for u in family if scales.get(u) == 1), unit)


def _rows(rows: Sequence[Any], i: int, n: int) -> Sequence[Any]:
    return rows[i * n:(i + 1) * n]


def canonical_unit(said: str) -> str | None:
    """The fact reader's canonical unit for a unit the generator named ("metres": m,
    "decimal": fraction), or None."""
    text = said.strip().lower()
    for family in words()["unit_families"]:
        for unit, pattern in family.items():
            if re.fullmatch(rf"(?:{pattern})", text, re.I):
                return unit
    return None


def unit_after(said: str, factor: float) -> str | None:
    """The unit the tool takes where the formula takes ``said`` and the tool's value times
    ``factor`` is the formula's: fraction x 0.01 is percent, metres x 0.01 centimetres."""
    unit = canonical_unit(said)
    if unit is None:
        return None
    if unit in ("fraction", "percent"):
        return {("fraction", 0.01): "percent", ("percent", 100.0): "fraction"}.get(
            (unit, factor))
    scales = words(FORMS)["scales"]
    if unit not in scales:
        return None
    family = next(f for f in words()["unit_families"] if unit in f)
    size = scales[unit] * factor
    return next((u for u in family if u in scales and close(scales[u], size, rel_tol=1e-9)),
                None)


def unit_sentence(param: str, unit: str) -> str:
    """The rule that ``param`` is in ``unit``, with one conversion from the unit people say
    (``everyday_forms.json``): "`length` is in centimetres (2.5 metres is 250)." A unit named
    alone left the 1.5B writing 4 for "4 m" (fresh19s)."""
    if unit == "percent":
        return f"`{param}` is a percentage (5 means 5 %)."
    if unit == "fraction":
        return f"`{param}` is a fraction (0.05 means 5 %)."
    names = words(FORMS)["names"]
    other = everyday_unit(unit)
    if other is None:
        return f"`{param}` is in {names.get(unit, unit)}."
    scales = unit_scales()
    ratio = scales[other] / scales[unit]
    said = 2.5 if ratio > 1 else 2.5 / ratio
    return (f"`{param}` is in {names.get(unit, unit)} ({said:g} {names.get(other, other)} is "
            f"{said * ratio:g}).")


def units_schema(fields: Sequence[str], params: Sequence[str]) -> dict[str, Any]:
    guess = object_schema({
        "output": {"type": "string", "enum": list(fields)},
        "python": {"type": "string", "minLength": 1, "maxLength": 240},
        "units": object_schema({p: {"type": "string", "maxLength": 30} for p in params})})
    return object_schema({"guesses": {"type": "array", "items": guess,
                                      "minItems": GUESSES, "maxItems": GUESSES}})


async def output_units(tool: Tool, engine: Any,
                       calls: Sequence[tuple[Invocation, Observation]],
                       ruled: Mapping[str, str]) -> list[Fact] | None:
    """The unit facts the outputs of ``calls`` show, [] when no formula fits in
    :data:`TRIES` generator calls (each after the first told where the formulas missed, and
    sampled); None when the tool gives no chance yet (too few number outputs, no number
    parameter of unknown unit: no call)."""
    cases = checked_calls(calls)
    params, unknown = number_params(tool), unknown_units(tool, ruled)
    fields = list(dict.fromkeys(f for _, _, out in cases for f in number_fields(out)))
    if len(cases) < MIN_CASES or not unknown or not fields:
        return None
    messages = calls_messages(tool, engine, calls, "units-formula",
                              description=tool.description or "",
                              fields=", ".join(f or "(the number returned)" for f in fields))
    for attempt in range(TRIES):
        answers, _ = await chat_json(
            engine.generator, messages, units_schema(fields, params), role="generator",
            seed=derive_seed(tool.name, "units", str(attempt) if attempt else ""),
            temperature=RETRY_TEMPERATURE if attempt else 0.0, max_tokens=400)
        answer = answers[0] if answers and isinstance(answers[0], Mapping) else {}
        guesses = [g for g in answer.get("guesses") or [] if isinstance(g, Mapping)]
        fits = [f for f in (_fit_guess(g, cases, params, fields) for g in guesses) if f]
        out: list[Fact] = []
        for fact in (fact for found in fits for fact in found.facts()):
            if fact.param in unknown and fact.param not in {o.param for o in out}:
                out.append(fact)
        if fits or not guesses:         # a formula that fits is the answer, facts or not
            return out
        misses = [m for g in guesses for m in _as_written(g, cases, fields)]
        messages = [*messages, {"role": "assistant", "content": json.dumps(answer)},
                    *engine.prompts.render("units-retry", misses="\n".join(misses[:4]))]
    return []


def _as_written(guess: Mapping[str, Any], cases: Sequence[tuple[str, Mapping[str, Any], Any]],
                fields: Sequence[str]) -> tuple[str, ...]:
    """Where ``guess`` missed as written (two calls), for the generator's next try."""
    field = str(guess.get("output", ""))
    if field not in fields:
        return ()
    expression = formula.expression_of(str(guess.get("python", "")))
    return formula.check(expression, _field_cases(cases, field), shown=2).misses


def _fit_guess(guess: Mapping[str, Any], cases: Sequence[tuple[str, Mapping[str, Any], Any]],
               params: Sequence[str], fields: Sequence[str]) -> Fit | None:
    if guess.get("output") not in fields:
        return None
    field = str(guess["output"])
    expression = formula.expression_of(str(guess.get("python", "")))
    units = guess.get("units") if isinstance(guess.get("units"), Mapping) else {}
    return fit(expression, field, _field_cases(cases, field), params, units)


__all__ = ["Fit", "canonical_unit", "fit", "number_fields", "number_params", "output_units",
           "unit_after", "unit_sentence", "units_schema", "unknown_units"]
