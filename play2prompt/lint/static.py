"""The static rules of ``p2p lint``: a tool set's documentation read, nothing executed, no LLM.

Each rule is a function of one :class:`~play2prompt.lint.findings.Target` (the siblings rule
of the whole set) returning findings; :data:`TOOL_RULES` lists them. What they look for in
names and texts (unit-suggesting names, unit words, names of closed sets, steering phrases,
write verbs) is data: ``data/lint_words.json``. The schema checks are the doc linter's
(:func:`play2prompt.tools.lint.lint_spec`), whose score optimize uses unchanged.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import cache
from importlib import resources
from typing import Any

from play2prompt.evidence.hygiene import REFUSAL, problems
from play2prompt.lint.findings import Finding, Target, make
from play2prompt.tools.lint import lint_spec
from play2prompt.tools.model import ToolDoc

MAX_TOKENS = 300          # default budget of one tool's documentation (description + params)
CHARS_PER_TOKEN = 4       # OpenAI's rule of thumb for English text
SIBLING_OVERLAP = 0.6     # Jaccard overlap of two descriptions' words that tells them apart not
MIN_SIBLING_WORDS = 3     # descriptions shorter than this are other rules' business
RESTATES_MAX_WORDS = 6    # a description longer than this says more than a name
_GENERIC = frozenset({"compute", "computes", "calculate", "calculates", "calculator",
                      "checker", "check", "checks", "get", "gets", "fetch", "fetches", "do",
                      "does", "tool", "function", "simple", "helper", "utility"})
_TYPED = ("type", "enum", "const", "anyOf", "oneOf", "allOf", "$ref")
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9]*")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


@cache
def words_data() -> dict[str, Any]:
    text = resources.files("play2prompt.lint").joinpath("data/lint_words.json").read_text(
        encoding="utf-8")
    return json.loads(text)


@cache
def _pattern(name: str) -> re.Pattern[str]:
    items = words_data()[name]
    return re.compile(r"(?<![\w])(?:" + "|".join(items) + r")(?![\w])", re.I)


def name_words(name: str) -> list[str]:
    """The words of an identifier, lower case: ``sortBy`` and ``sort_by`` give sort, by."""
    return [w.lower() for part in re.split(r"[\W_]+", name) for w in _CAMEL.split(part) if w]


def text_words(text: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(text or "")]


def _stem(word: str) -> str:
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") \
        else word


def tokens(text: str) -> int:
    """About how many tokens ``text`` costs (:data:`CHARS_PER_TOKEN` characters a token)."""
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def _props(tool: Any) -> Mapping[str, Any]:
    props = tool.parameters.get("properties") if isinstance(tool.parameters, Mapping) else None
    return props if isinstance(props, Mapping) else {}


def _field(pname: str, key: str = "") -> str:
    return f"parameters.properties.{pname}" + (f".{key}" if key else "")


# -- the tool's description ----------------------------------------------------------------
def schema_rule(t: Target, _: Any = None) -> list[Finding]:
    """The doc linter's errors: a schema the loaders would refuse."""
    return [make("P2P001", t.tool.name, i.field, i.message)
            for i in lint_spec(t.tool.name, t.tool.description, t.tool.parameters)
            if i.severity == "error"]


def description_rule(t: Target, _: Any = None) -> list[Finding]:
    """Empty, one word, or nothing beyond the tool's name."""
    text = (t.tool.description or "").strip()
    found = text_words(text)
    if not found:
        return [make("P2P101", t.tool.name, "description", "empty tool description")]
    if len(found) == 1:
        return [make("P2P102", t.tool.name, "description", f"one word: {text!r}")]
    name = "".join(name_words(t.tool.name))
    stop = set(words_data()["stop_words"]) | _GENERIC
    content = [w for w in found if w not in stop]
    if len(found) <= RESTATES_MAX_WORDS and all(_stem(w) in name for w in content):
        return [make("P2P103", t.tool.name, "description",
                     f"{text!r} says no more than the name {t.tool.name!r}")]
    return []


def budget_rule(t: Target, max_tokens: int = MAX_TOKENS) -> list[Finding]:
    """The description and the parameters' descriptions together over ``max_tokens``."""
    texts = [t.tool.description or ""] + [str((s or {}).get("description") or "")
                                          for s in _props(t.tool).values()
                                          if isinstance(s, Mapping)]
    cost = tokens(" ".join(texts))
    if cost <= max_tokens:
        return []
    return [make("P2P104", t.tool.name, "description",
                 f"about {cost} tokens of documentation (budget {max_tokens}), paid on every "
                 "request that offers the tool")]


def steering_rule(t: Target, _: Any = None) -> list[Finding]:
    """Injection-like or steering phrases in the tool's or a parameter's description."""
    texts = [("description", t.tool.description or "")] + [
        (_field(n, "description"), str((s or {}).get("description") or ""))
        for n, s in _props(t.tool).items() if isinstance(s, Mapping)]
    out = []
    for where, text in texts:
        hits = list(dict.fromkeys(m.group(0) for m in _pattern("steering").finditer(text)))
        if hits:
            out.append(make("P2P105", t.tool.name, where,
                            "steering text: " + "; ".join(repr(h) for h in hits[:3])))
    return out


def leftovers_rule(t: Target, _: Any = None) -> list[Finding]:
    """Text no reader can use (:mod:`play2prompt.evidence.hygiene`): a regular expression's
    fragment, Python's own message, the method's probe value, a sentence said twice, a doc's
    shape (:mod:`play2prompt.evidence.doc_shape`)."""
    params = {str(n): str((s or {}).get("description") or "")
              for n, s in _props(t.tool).items() if isinstance(s, Mapping)}
    doc = ToolDoc(t.tool.description or "", params)
    return [make("P2P108", t.tool.name, _field(p.field, "description") if p.field
                 else "description", f"{p.kind}: {p.sentence[:120]!r}")
            for p in problems(doc) if p.kind != REFUSAL]


def effects_rule(t: Target, _: Any = None) -> list[Finding]:
    """Whether the tool changes things is left to a guess: an MCP tool without
    ``readOnlyHint``, an HTTP tool without a method, or a tool named for a write
    (``delete_...``) whose source says nothing."""
    tool = t.tool
    spec = tool.executor or {}
    if "mcp" in spec:
        notes = ((tool.meta or {}).get("mcp") or {}).get("annotations")
        if not notes:
            return [make("P2P107", tool.name, "annotations", "the MCP server gives no "
                         "annotations: clients must take the tool as destructive")]
        if "readOnlyHint" not in notes:
            return [make("P2P107", tool.name, "annotations.readOnlyHint",
                         "the MCP annotations do not say whether the tool is read-only")]
        return []
    if "http" in spec and t.effects_declared:
        return []
    if "http" in spec and not (isinstance(spec["http"], Mapping) and "method" in spec["http"]):
        return [make("P2P107", tool.name, "executor.http.method",
                     "no HTTP method: GET (read-only) is assumed")]
    if not t.effects_declared and write_named(tool):
        return [make("P2P107", tool.name, "side_effects",
                     f"named for a write ({name_words(tool.name)[0]!r}) but its side effects "
                     "are not declared")]
    return []


def write_named(tool: Any) -> bool:
    """The tool's name starts with a verb that changes things (``delete_file``)."""
    first = (name_words(tool.name) or [""])[0]
    return first in set(words_data()["write_verbs"])


# -- its parameters --------------------------------------------------------------------------
def param_rule(t: Target, _: Any = None) -> list[Finding]:
    """Each parameter: described, typed, a measure with a unit, a closed set as an enum."""
    out: list[Finding] = []
    props = _props(t.tool)
    # a parameter that names the unit ("from_unit", "currency") gives the measures theirs
    unit_given = any({"unit", "units", "currency"} & set(name_words(str(p))) for p in props)
    for pname, schema in props.items():
        if isinstance(schema, Mapping):
            out += _param(t.tool.name, str(pname), schema, unit_given)
    return out


def _param(tool: str, pname: str, schema: Mapping[str, Any], unit_given: bool = False
           ) -> list[Finding]:
    out = []
    desc = str(schema.get("description") or "").strip()
    if not desc:
        out.append(make("P2P201", tool, _field(pname, "description"),
                        f"{pname!r} has no description"))
    if not any(k in schema for k in _TYPED):
        out.append(make("P2P202", tool, _field(pname, "type"), f"{pname!r} has no type"))
    kinds = _kinds(schema)
    closed = any(k in schema for k in ("enum", "const"))
    names = set(name_words(pname))
    if kinds & {"number", "integer"} and not closed and not unit_given and \
            names & set(words_data()["unit_names"]) and \
            not _pattern("unit_words").search(" ".join([*name_words(pname), desc])):
        measure = ", ".join(sorted(names & set(words_data()["unit_names"])))
        out.append(make("P2P203", tool, _field(pname, "description"),
                        f"{pname!r} is a measure ({measure}) and names no unit"))
    if kinds <= {"string"} and not closed and "pattern" not in schema:
        listed = _pattern("choice_phrases").search(desc)
        if listed:
            out.append(make("P2P205", tool, _field(pname, "enum"),
                            f"{pname!r} lists its values in prose ({listed.group(0)!r}) "
                            "but has no enum"))
        elif "string" in kinds and "format" not in schema and (
                names & set(words_data()["choice_names"])):
            said = ", ".join(sorted(names & set(words_data()["choice_names"])))
            out.append(make("P2P204", tool, _field(pname, "enum"),
                            f"{pname!r} is free text; its name says a closed set ({said})"))
    return out


def _kinds(schema: Mapping[str, Any]) -> set[str]:
    kind = schema.get("type")
    kinds = set(kind) if isinstance(kind, list) else {kind} if isinstance(kind, str) else set()
    for key in ("anyOf", "oneOf"):
        for sub in schema.get(key) or []:
            if isinstance(sub, Mapping):
                kinds |= _kinds(sub)
    return kinds - {"null"}


# -- the set -------------------------------------------------------------------------------
def siblings_rule(targets: Sequence[Target]) -> list[Finding]:
    """Pairs of tools whose descriptions share most of their words (Jaccard overlap of the
    content words at least :data:`SIBLING_OVERLAP`): a model cannot tell which to call."""
    stop = set(words_data()["stop_words"])
    bags = [(t.tool.name, {_stem(w) for w in text_words(t.tool.description) if w not in stop})
            for t in targets]
    out = []
    for i, (a, wa) in enumerate(bags):
        for b, wb in bags[i + 1:]:
            if min(len(wa), len(wb)) < MIN_SIBLING_WORDS:
                continue
            overlap = len(wa & wb) / len(wa | wb)
            if overlap >= SIBLING_OVERLAP:
                out.append(make("P2P106", a, "description",
                                f"its description shares {overlap:.0%} of its words with "
                                f"{b!r}'s: say when to use which"))
    return out


TOOL_RULES: tuple[Callable[[Target, Any], list[Finding]], ...] = (
    schema_rule, description_rule, steering_rule, leftovers_rule, effects_rule, param_rule)


def lint_targets(targets: Iterable[Target], max_tokens: int = MAX_TOKENS) -> list[Finding]:
    """Every static finding of the tool set, each at its tool's location."""
    targets = list(targets)
    out: list[Finding] = []
    where = {t.tool.name: t.location for t in targets}
    for t in targets:
        for rule in TOOL_RULES:
            out += rule(t, None)
        out += budget_rule(t, max_tokens)
    out += siblings_rule(targets)
    return [f.at(where.get(f.tool) or {}) for f in out]
