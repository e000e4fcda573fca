"""Docs in the accepted form: text a doc must not carry, found and taken out by code.

A doc says what a tool takes, in plain sentences, each once. Four kinds of sentence are the
method's or the interpreter's leftovers, never documentation (issue 72: the opaque set's shipped
docs carried "semi-?annually", "int() argument must be a string, a bytes-like object or a real
number, not 'complex'" and a sentence said twice):

- ``regex``: a fragment of a regular expression (``(?:``, ``\\d``, ``[^``, ``.*``, a letter made
  optional, ``(a|b)``), outside quotes and in a text that does not speak of patterns;
- ``internal``: Python's or a library's own words (``error_words.json``'s ``internal``: "int()
  argument must be", "object is not subscriptable", a private module path);
- ``probe``: a value the method's probes send (``doc_words.json``'s ``probe_values``: the
  probe word, :data:`~play2prompt.evidence.facts.PROBE_WORD`, and reshape's code form);
- ``repeated``: a sentence said again (case and spacing aside) in the same text, or in the
  description and a parameter's text.

A fifth, ``refused-text``: a quoted text the tool refused ("'end' is rejected"): a small model
copies a value a doc quotes, refused or not (busday_offset's ``roll='end'`` in 6 of 8 calls on
examples/silent, run s72f), so it is taken out (a refused number, "'1.75' is rejected (height
looks like metres)", stays: it says the scale). Another, ``unasked-example``: quoted example
texts in a text that says to leave the argument out unasked ("Optional; leave it out when the
request does not give it ... For example: 'Additional charge for order #5678'"): the 1.5B
copied the example into 6 of 8 calls that should have left it out (run s72h), so they are taken
out. One more is reported, not taken out:
``refusal-only``, a text that says what a value is not
("'mean' is rejected", "Negative values work too (e.g. principal=-1000)") and nowhere what it
is (in its other sentences, or, given the tool, its schema's enum, range, pattern or format).
Where the text lists the accepted values, the refusal says nothing more and is taken out.

:func:`problems` finds them; :func:`cleaned` takes them out, a leftover held in parentheses
with them only ("(years=20 with 3 items failed (list index out of range))" keeps "years=20
with 3 items failed"). The facts doc and every doc the search scores are cleaned, D0's own
sentences kept; ``p2p lint`` reports the first four as P2P108. A doc's shape (a parameter
listing in the description, a type alone, a stray script: :mod:`~play2prompt.evidence.
doc_shape`) is reported too, not taken out: a rewrite with one is drawn again. The words are data:
``data/doc_words.json`` and ``data/error_words.json``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from functools import cache
from typing import Any

from play2prompt.evidence.doc_shape import shape_problems
from play2prompt.evidence.error_text import pattern, words
from play2prompt.numeric import parse_number

REGEX, INTERNAL, PROBE, REPEATED, REFUSAL, QUOTED = ("regex", "internal", "probe", "repeated",
                                                     "refusal-only", "refused-text")
UNASKED_EXAMPLE = "unasked-example"
DOC_WORDS = "doc_words.json"
MIN_WORDS = 2                 # a shorter sentence ("Required.") may well be said twice
SCHEMA_STATES = ("enum", "const", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
                 "pattern", "format", "examples", "default")

_END = re.compile(r"[.!?]+[\"')\]]*\s+")
_QUOTED = re.compile(r"(?<!\w)(['\"`])(.+?)\1(?!\w)")
_URL = re.compile(r"\S*(?:://|\?\S*=)\S*")


@dataclass(frozen=True)
class Problem:
    """One sentence of a doc that should not be there (or, ``refusal-only``, not alone):
    ``field`` is "" for the description, else the parameter's name."""

    kind: str
    field: str
    sentence: str

    def __str__(self) -> str:
        return f"{self.field or 'description'}: {self.kind}: {self.sentence!r}"


@cache
def _doc_pattern(name: str) -> re.Pattern[str]:
    return pattern(name, DOC_WORDS)


@cache
def _fragments() -> tuple[re.Pattern[str], ...]:
    return tuple(re.compile(p) for p in words(DOC_WORDS)["regex_fragments"])


@cache
def _probe() -> re.Pattern[str]:
    """The values the method's probes send, each as a whole word."""
    said = [rf"(?<![^\W_]){re.escape(v)}(?![^\W_])" for v in words(DOC_WORDS)["probe_values"]]
    return re.compile("|".join(said), re.I)


@cache
def _abbreviation() -> re.Pattern[str]:
    """An abbreviation at the end of a text ("e.g"): its period ends no sentence."""
    listed = "|".join(words(DOC_WORDS)["abbreviations"])
    return re.compile(rf"(?:^|[\s(])(?:{listed})$", re.I)


def split_sentences(text: str) -> list[str]:
    """``text``'s sentences: a period, ``!`` or ``?`` and a space end one, not inside
    parentheses nor after an abbreviation ("e.g.")."""
    out, start = [], 0
    for m in _END.finditer(text):
        piece = text[start:m.end()]
        if piece.count("(") > piece.count(")") or _abbreviation().search(text[start:m.start()]):
            continue
        out.append(piece.strip())
        start = m.end()
    rest = text[start:].strip()
    return [*out, rest] if rest else out


def _key(sentence: str) -> str:
    return " ".join(sentence.lower().split()).rstrip(".!? ")


def _counts(sentence: str) -> bool:
    """Long enough that saying it twice is a repetition."""
    return len(_key(sentence).split()) >= MIN_WORDS


def leftover(sentence: str, patterns_ok: bool = False) -> str | None:
    """The kind of leftover ``sentence`` is (probe, internal, regex), or None;
    ``patterns_ok``: its text speaks of patterns, so a regex fragment is documentation."""
    if _probe().search(sentence):
        return PROBE
    if pattern("internal").search(sentence):
        return INTERNAL
    if not patterns_ok:
        bare = _URL.sub(" ", _QUOTED.sub(" ", sentence))
        if any(p.search(bare) for p in _fragments()):
            return REGEX
    return None


def _refusal(sentence: str) -> bool:
    return bool(_doc_pattern("refusals").search(sentence)
                or _doc_pattern("odd_values").search(sentence))


def _says(name: str, sentences: list[str]) -> bool:
    """A sentence other than a refusal matches the word list ``name``."""
    return any(not _refusal(s) and _doc_pattern(name).search(s.rstrip(".!? "))
               for s in sentences)


@dataclass(frozen=True)
class _Said:
    """One sentence of a text, its leftover kind (None: none) and, for a leftover held in
    parentheses, the sentence without them (``fixed``: "a year (2 for semi-?annually)" says
    "a year"; None: it goes whole)."""

    text: str
    kind: str | None = None
    fixed: str | None = None


_PARENS = re.compile(r"\s*\([^()]*\)")
_CALL = re.compile(r"(?<=\w)\(\)")


def repaired(sentence: str, patterns_ok: bool = False) -> str | None:
    """``sentence`` without the parentheses that hold its leftovers, innermost first, when
    what is left is none; None when a leftover lies outside them."""
    text = sentence
    while leftover(text, patterns_ok) is not None:
        calls = _CALL.sub("\0\0", text)    # "int()" opens no parentheses
        held = next((m for m in _PARENS.finditer(calls)
                     if leftover(text[m.start():m.end()], patterns_ok) is not None), None)
        if held is None:
            return None
        text = text[:held.start()] + text[held.end():]
    return text if _key(text) else None


def _read(text: str, own: frozenset[str] = frozenset()) -> list[_Said]:
    """Each sentence of ``text`` with its leftover kind (a repeat of an earlier one:
    ``repeated``); a sentence whose key is in ``own`` (the original doc's) is no leftover."""
    patterns_ok = bool(_doc_pattern("regex_topics").search(text))
    out: list[_Said] = []
    seen: set[str] = set()
    for sentence in split_sentences(text):
        kind = None if _key(sentence) in own else leftover(sentence, patterns_ok)
        fixed = repaired(sentence, patterns_ok) if kind is not None else None
        if fixed is not None and _key(fixed) in seen:
            fixed = None    # what is left was said already
        if kind is None and _key(sentence) in seen and _counts(sentence):
            kind = REPEATED
        seen.add(_key(fixed or sentence))
        out.append(_Said(sentence, kind, fixed))
    return out


def _fields(doc: Any) -> dict[str, str]:
    return {"": doc.description or "", **{n: t or "" for n, t in doc.params.items()}}


def _stated_in_schema(tool: Any, field: str) -> bool:
    spec = (tool.properties.get(field) if tool is not None and field else None) or {}
    return isinstance(spec, Mapping) and any(k in spec for k in SCHEMA_STATES)


def problems(doc: Any, tool: Any = None) -> list[Problem]:
    """Every problem of ``doc`` (a :class:`~play2prompt.tools.model.ToolDoc`), by field and
    sentence; ``tool``: its schema may state what a parameter takes (an enum, a range)."""
    read = {f: _read(text) for f, text in _fields(doc).items()}
    strings = text_params(tool)
    in_params = {_key(x.text) for f, said in read.items() if f for x in said}
    out = []
    for field, said in read.items():
        for x in said:
            kind = x.kind
            if kind is None and not field and _key(x.text) in in_params and _counts(x.text):
                kind = REPEATED
            if kind is not None:
                out.append(Problem(kind, field, x.text))
        clean = [x.text for x in said if x.kind is None]
        out += [Problem(QUOTED, field, s) for s in clean if refused_text(s, field in strings)]
        out += [Problem(UNASKED_EXAMPLE, field, s) for s in unasked_examples(clean)]
        if not (_says("accepted_statements", clean) or _stated_in_schema(tool, field)):
            out += [Problem(REFUSAL, field, s) for s in clean if _refusal(s)
                    and not refused_text(s, field in strings)]
    return out + [Problem(*p) for p in shape_problems(doc.description or "", dict(doc.params))]


_QUOTED_REFUSAL = re.compile(
    r"(['\"`])(.+?)\1 (?:is|are|was|were) (?:rejected|refused|not accepted)")


def refused_text(sentence: str, text: bool = False) -> bool:
    """``sentence`` says a quoted text (not a number; any value where ``text``: the parameter
    takes a string, "'00011111111' is rejected" for a weekmask, run s72h) is refused ("'end'
    is rejected"): the 1.5B copies a value a doc quotes, refused or not (busday_offset's
    roll='end' in 6 of 8 calls of examples/silent, run s72f; 'Canada' on examples/fresh,
    fresh17)."""
    m = _QUOTED_REFUSAL.search(sentence)
    return m is not None and (text or parse_number(m.group(2)) is None)


def text_params(tool: Any) -> frozenset[str]:
    """The parameters of ``tool`` (None: none) whose schema type is string."""
    props = getattr(tool, "properties", None) or {}
    return frozenset(n for n, s in props.items() if isinstance(s, Mapping)
                     and s.get("type") == "string")


_LEAVE_OUT = re.compile(r"\bleave it out\b", re.I)
_TEXT_EXAMPLE = re.compile(r"^(?:for example|e\.g\.)[:,]?\s*['\"`]", re.I)


def unasked_examples(sentences: list[str]) -> list[str]:
    """The sentences of one text that quote example texts where another says to leave the
    argument out unasked: the 1.5B copies the example in ("For example: 'Additional charge
    for order #5678'" after "Optional; leave it out when the request does not give it":
    `description` set unasked in 6 of 8 create_charge calls of examples/silent, run s72h)."""
    if not any(_LEAVE_OUT.search(s) for s in sentences):
        return []
    return [s for s in sentences if _TEXT_EXAMPLE.search(s)]


def _kept(said: list[_Said], own: frozenset[str], text: bool = False) -> list[str]:
    """The sentences kept: no leftover (one held in parentheses goes with them), and no
    refusal (but ``own``'s) where the accepted values are listed."""
    kept = [x.text if x.kind is None else x.fixed for x in said
            if x.kind is None or x.fixed is not None]
    kept = [k for k in kept if not k or _key(k) in own or not refused_text(k, text)]
    copied = set(unasked_examples([k for k in kept if k]))
    kept = [k for k in kept if k not in copied or _key(k) in own]
    if _says("accepted_lists", [k for k in kept if k]):
        kept = [k for k in kept if not _refusal(k) or _key(k) in own]
    return [k for k in kept if k]


def cleaned(doc: Any, original: Any = None, tool: Any = None) -> Any:
    """``doc`` without its leftovers (regex, internal, probe and repeated sentences; one held
    in parentheses goes with them, the sentence stays; a description's sentence that a
    parameter's text says too goes from the description) and without refusals where the text
    lists the accepted values; a text with none of them is kept as written (the same object
    when nothing changed). What ``original`` (D0) says in a field is kept there but for
    repeats: a hand-written "unit (kg|lb)" is its author's, and the method keeps D0's
    statements (:mod:`play2prompt.evidence.completion`); ``tool``: its string parameters'
    refused values are texts (:func:`refused_text`)."""
    fields = _fields(doc)
    said_first = _fields(original) if original is not None else {}
    own = {f: frozenset(map(_key, split_sentences(said_first.get(f, "")))) for f in fields}
    read = {f: _read(text, own[f]) for f, text in fields.items()}
    strings = text_params(tool)
    kept = {f: _kept(said, own[f], f in strings) for f, said in read.items()}
    in_params = {_key(s) for f, said in kept.items() if f for s in said}
    kept[""] = [s for s in kept[""] if not (_key(s) in in_params and _counts(s))]
    texts = {f: fields[f] if kept[f] == [x.text for x in read[f]] else " ".join(kept[f])
             for f in fields}
    if texts == fields:
        return doc
    return replace(doc, description=texts[""], params={n: texts[n] for n in doc.params})
