"""One error of a tool, read into what it says about the tool's parameters, by code.

What it can say: the values a parameter accepts (a list, or the one value the tool calls
allowed), a rule in the tool's own words, a value it rejects, and (kind ``param``) that a
parameter exists, is required, takes a type, or does not exist. How the error is read:

- a structured error (pydantic, FastAPI, a JSON body, the TypeScript MCP SDK's list) names its
  parameter by where it points (``loc``, ``param``, ``field``, ...), so its message is about
  that parameter whatever other argument happens to share a value with it;
- in plain text a clause is about the parameters it names or whose value it echoes; a number
  is tied to the parameter the clause names, and a number that is a bound ("in [0.0, 1.0]",
  "1..12", "at least 3") is never an echo; in "A is outside 'B'" / "'A' does not match format
  'B'" the value before the verb is the one rejected, the one after is what it is measured by;
- Python's signature errors ("missing 1 required positional argument: 'b'", "unexpected
  keyword argument 'x'") and type errors ("unsupported operand type(s) for /: 'str' and 'int'")
  say which parameters exist and what type they take; what they say of Python itself is no
  fact;
- a call with one argument is what an error about no named thing is about.

The words looked for are in ``data/error_words.json`` (see :mod:`play2prompt.evidence.error_text`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from play2prompt.evidence.error_shapes import (
    MISSING,
    Issue,
    base_literal,
    issues,
    json_type,
    named_params,
    resolve,
    type_clues,
)
from play2prompt.evidence.error_text import (
    clauses,
    contains_value,
    echo_at,
    fragment,
    is_bare,
    is_constraint,
    is_internal,
    mention_at,
    mentions,
    offered,
    predicate_at,
    quotes_other,
    single_accepted,
    unwrap,
    value_list,
    without,
    words,
)
from play2prompt.numeric import is_number
from play2prompt.tools.model import Tool

_NUMERAL = re.compile(r"-?\d+(?:\.\d+)?")
ACCEPTS = "One of: "         # how a list of accepted values is stated
TYPE_WORDS = {"integer": "an integer", "number": "a number", "string": "a text",
              "boolean": "true or false", "array": "a list", "object": "an object"}


@dataclass(frozen=True)
class Reading:
    """One thing an error says: ``kind`` is accepts | rule | rejects | param."""

    param: str
    kind: str
    text: str
    values: tuple[str, ...] = ()


def read_error(tool: Tool, arguments: Mapping[str, Any], error: str,
               probed: str | None = None) -> list[Reading]:
    """What ``error`` (the tool's answer to a call with ``arguments``) says about the tool's
    parameters. ``probed``: the one argument a probe changed (blamed when the error is about
    it)."""
    text, cut = unwrap(error)
    if not text:
        return []
    reader = _Reader(tool, dict(arguments), probed)
    found = issues(text)
    if found is None:
        return reader.free(text, cut)
    out: list[Reading] = []
    for issue in found:
        out += reader.issue(issue)
    return list(dict.fromkeys(out))


def _scalar(value: Any) -> bool:
    return isinstance(value, (str, int, float)) and not isinstance(value, bool)


def _shown(value: Any) -> str:
    return value if isinstance(value, str) else repr(value)


class _Reader:
    def __init__(self, tool: Tool, arguments: dict[str, Any], probed: str | None) -> None:
        self.tool = tool
        self.args = arguments
        self.probed = probed
        self.params = list(dict.fromkeys([*tool.properties, *arguments]))
        self.listed: set[str] = set()      # the values this error lists as accepted

    # -- facts -----------------------------------------------------------------------------
    def rule(self, param: str, text: str) -> Reading:
        return Reading(param, "rule", text)

    def rejects(self, param: str, value: Any, reason: str) -> Reading:
        return Reading(param, "rejects", f"{_shown(value)!r} is rejected"
                       + (f" ({reason[0].lower() + reason[1:]})" if reason else ""),
                       (str(value),))

    def accepts(self, params: list[str], values: tuple[str, ...]) -> list[Reading]:
        return [Reading(p, "accepts", ACCEPTS + ", ".join(values) + ".", values)
                for p in params if self._is_text(p) or self._is_number(p, values)]

    def param(self, name: str, status: str, kind: str = "") -> list[Reading]:
        """A parameter fact, when it adds to the schema."""
        spec = self.tool.properties.get(name)
        known = spec is not None
        have = (spec or {}).get("type")
        kind = kind if kind and not (have == kind or (have == "integer" and kind == "number")
                                     or (isinstance(have, list) and kind in have)) else ""
        if status == "required" and known and name in self.tool.required and not kind:
            return []
        if status == "exists" and (not kind and known):
            return []
        said = TYPE_WORDS.get(kind, "")
        text = {"required": f"{name} is required" + (f", {said}" if said else "") + ".",
                "absent": f"The tool has no parameter {name!r}.",
                "exists": f"{name} takes {said or 'a value'}."}[status]
        values = (status, kind) if kind and status != "absent" else (status,)
        return [Reading(name, "param", text, values)]

    def _is_number(self, param: str, values: tuple[str, ...]) -> bool:
        """A number parameter with a listed set of numbers ("one of (1, 2, 4, 12)")."""
        kind = (self.tool.properties.get(param) or {}).get("type")
        return kind in ("integer", "number") and all(_NUMERAL.fullmatch(v) for v in values)

    def _is_text(self, param: str) -> bool:
        kind = (self.tool.properties.get(param) or {}).get("type", "string")
        return kind == "string" or (isinstance(kind, list) and "string" in kind)

    # -- structured issues -----------------------------------------------------------------
    def issue(self, issue: Issue) -> list[Reading]:
        name, inside = resolve(issue.loc, self.params)
        if name is None:   # a summary ("Validation Failed"): about the one argument never
            return self.free(issue.message, issue.cut, sole=False) if issue.message else []
        if inside:
            where = ".".join([name, *inside])
            return [self.rule(name, f"{where}: {issue.message or issue.code}")]
        codes = words()["codes"]
        told = issue.value is not MISSING            # the structure names the value it got
        value = issue.value if told else self.args.get(name, MISSING)
        given = (told or name in self.args) and value is not MISSING and _scalar(value)
        if issue.code in codes["required"]:
            return self.param(name, "required")
        if issue.code in codes["absent"]:
            return self.param(name, "absent")
        clue = re.search(r"expected (\w+), received (\w+)", issue.message, re.I)
        if clue and clue.group(2).lower() == "undefined":
            return self.param(name, "required", json_type(clue.group(1)) or "")
        kind = codes["types"].get(issue.code) or self._wanted(issue.message)
        if kind:
            return self.param(name, "exists", kind) + (
                [self.rejects(name, value, "")] if given else [])
        if not issue.message:
            return [self.rejects(name, value, issue.code.replace("_", " "))] \
                if given and issue.code in codes["rejected"] else []
        reject = given and (told or contains_value(issue.message, value))
        return self._about(name, issue.message, value if reject else MISSING, issue.cut)

    def _wanted(self, message: str) -> str:
        for entry in words()["types"]:
            m = re.search(entry["re"], message, re.I)
            if m and m.groupdict().get("want"):
                return json_type(m.group("want")) or ""
        return ""

    def _about(self, name: str, message: str, value: Any, cut: bool) -> list[Reading]:
        """A message a structure says is about ``name``."""
        listed = () if cut else value_list(message)
        if listed:
            return self.accepts([name], listed)
        echoed = value is not MISSING
        words_ = message if mentions(message, name) else self._subject(name, message)
        if echoed and fragment(message, value):     # "cannot convert 'm' to 'zzqx'"
            return [self.rejects(name, value, message)]
        said = without(words_, value) if echoed else words_
        return [self.rule(name, said)] + (
            [self.rejects(name, value, without(message, value))] if echoed else [])

    def _subject(self, name: str, message: str) -> str:
        generic = "|".join(words()["generic_subject"])
        text, n = re.subn(rf"^(?:{generic})\b", name, message, count=1, flags=re.I)
        return text if n else f"{name}: {message}"

    # -- plain text ------------------------------------------------------------------------
    def free(self, text: str, cut: bool = False, sole: bool = True) -> list[Reading]:
        out: list[Reading] = []
        for name, status in named_params(text):
            out += self.param(name, status)
        for name, kind in type_clues(text, self.args):
            # Python's type errors tell a type only where the schema gives none: a tool may
            # parse a text parameter into numbers itself
            if not (self.tool.properties.get(name) or {}).get("type"):
                out += self.param(name, "exists", kind)
        based = base_literal(text, self.args)
        if based:
            out.append(self.rejects(based[0], based[1], f"not a base-{based[2]} number"))
        signature = [re.compile(p, re.I) for ps in words()["signature"].values() for p in ps]
        parts = [c for c in clauses(text) if not is_internal(c)
                 and not any(p.search(c) for p in signature)]
        culprits = self._culprits(parts, sole)
        self.listed = {v.lower() for c in parts for v in value_list(c)}
        for i, clause in enumerate(parts):
            out += self._clause(clause, culprits, cut and i == len(parts) - 1)
        return list(dict.fromkeys(out))

    def _echoes(self, clause: str) -> dict[str, int]:
        """Where the clause echoes each argument's value. A number counts only for a
        parameter the clause names, when it names any."""
        named = [p for p in self.params if mentions(clause, p)]
        out = {}
        for p, v in self.args.items():
            if is_number(v) and named and p not in named:
                continue
            if offered(clause, v):
                continue
            at = echo_at(clause, v)
            if at >= 0:
                out[p] = at
        return out

    def _culprits(self, parts: list[str], sole: bool) -> list[str]:
        """Whom an unnamed clause is about: the probed argument when the error is about it,
        else the arguments echoed, else the parameters named, else the one argument."""
        echoed = list(dict.fromkeys(p for c in parts for p in self._echoes(c)))
        named = list(dict.fromkeys(p for c in parts for p in self.params if mentions(c, p)))
        if self.probed and (self.probed in echoed or self.probed in named):
            return [self.probed]
        if echoed or named:
            return echoed or named
        return list(self.args) if sole and len(self.args) == 1 else []

    def _listed(self) -> dict[str, Any]:
        """The arguments whose values the error lists as accepted."""
        return {p: v for p, v in self.args.items() if str(v).lower() in self.listed}

    def _clause(self, clause: str, culprits: list[str], cut: bool) -> list[Reading]:
        named = [p for p in self.params if mentions(clause, p)]
        echoed = self._echoes(clause)
        verb = predicate_at(clause)
        by_value = [p for p, at in echoed.items() if at < verb < len(clause)]
        subjects = list(dict.fromkeys([p for p in named if mention_at(clause, p) < verb]
                                      + by_value))
        listed = value_list(clause)
        targets = subjects or named or culprits
        if listed:
            if cut:
                return [self.rule(p, clause) for p in targets]
            said = {v.lower() for v in listed}    # a value the list holds is no rejection
            return self.accepts(targets, listed) + [
                self.rejects(p, self.args[p], "") for p in (by_value or list(echoed))
                if _scalar(self.args[p]) and str(self.args[p]).lower() not in said]
        # in "'A' is outside 'B'" only A is rejected; with no such subject every echo is, but
        # two values echoed alike are a pair ("no commits between main and feature") unless
        # the error lists what is accepted ("cannot convert 'miles' to 'km'; units: ...")
        rejected = by_value or list(echoed)
        if len(rejected) > 1 and not by_value:
            rejected = [p for p in rejected if self.listed
                        and str(self.args[p]).lower() not in self.listed]
            if not rejected:
                return []
        if not rejected and len(self.args) == 1 and not named and culprits:
            rejected = culprits            # the one argument, when nothing else is named
        single = single_accepted(clause)
        out = []
        if single and single not in map(str, self.args.values()):
            out += self.accepts(subjects or rejected or targets, (single,))
        listed = self._listed()
        broken = {p for p in rejected if _scalar(self.args[p])
                  and fragment(clause, self.args[p])}      # "cannot convert 'm' to 'x'"
        for p in rejected:
            value = self.args[p]
            if _scalar(value) and contains_value(clause, value):
                reason = without(clause, value)
                whole = p in broken or quotes_other(reason, listed, [p])
                out.append(self.rejects(p, value, clause if whole else reason))
            elif _scalar(value):
                out.append(self.rejects(p, value, clause))
            else:
                out.append(self.rule(p, clause))
        if rejected:
            cut = [p for p in rejected if _scalar(self.args[p])]
            # what is left once the rejected values are cut is a rule of theirs unless it is
            # a fragment ("cannot convert 'm' to") or quotes a value of another argument that
            # the error lists as accepted ("cannot convert to 'km'; units: ..., km, ...": a
            # statement about the pair, not a rule of one)
            if is_constraint(clause) and not single and not broken:
                text = clause
                for p in cut:
                    text = without(text, self.args[p])
                if not quotes_other(text, listed, cut):
                    out += [self.rule(p, text) for p in cut if not is_bare(text, [p])]
            return out
        if single or not targets or is_bare(clause, targets):
            return out
        return out + [self.rule(p, clause) for p in targets]
