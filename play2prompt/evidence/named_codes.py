"""Standard codes a tool takes, said by the names people use (Step 1b's everyday forms).

A tool that takes "DE", "EUR" or "America/New_York" is asked for Germany, euros or New York
time; a model reading a thin doc passes the name on, and the tool refuses it. Where a value of
a verified call is such a code, code makes its name (the request must say the name, and not
the code) and the test's conversion is checked by the standard itself, not by a re-reading:

- an IANA time zone (a region and a place, ``zoneinfo``): the place ("New York");
- an ISO 3166-1 country code (``pycountry``): the country's common name ("Germany");
- an ISO 4217 currency code (``pycountry``): the currency's name ("Euro");
- a hex colour: its CSS basic keyword ("white" for #FFFFFF, CSS Color Level 3's sixteen) and
  its ``rgb()`` notation ("rgb(255, 255, 255)").

A country or currency code is also a word or another code ("CA" is California's, "ALL"
a word), so it is taken for one only where the facts say which: the parameter's name, its
description or its facts name the kind ("destination country"), or they quote a name of that
kind ("'Canada' is rejected"), two other codes of it (the tool took 'GB' and 'DE' too), or
every other value they list or quote is a code of it. The standards are the maintained ones
(the stdlib's tz database, pycountry's ISO tables), not a list kept here; the colour keywords
are CSS's sixteen basic ones (data), not CSS4's 148, which people do not say ("whitesmoke").
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from play2prompt.evidence.error_text import words

FORMS = "everyday_forms.json"   # the basic colour keywords
_HEX = re.compile(r"#([0-9A-Fa-f]{6}|[0-9A-Fa-f]{3})")
_QUOTED = re.compile(r"""['"]([^'"\n]{2,40})['"]""")
_LISTED = re.compile(r"One of:\s*([^.]*)")
STANDARDS = {"zone": "an IANA time zone name ('Region/City'), not a city or an abbreviation",
             "country": "a two-letter country code (ISO 3166-1), not the country's name",
             "currency": "a three-letter currency code (ISO 4217), not the currency's name",
             "colour": "a hex colour ('#RRGGBB'), not a colour's name or rgb()"}
_KIND_WORDS = {"country": r"\b(?:countr|nation)", "currency": r"\b(?:currenc|money)"}
_CODE = {"country": re.compile(r"[A-Z]{2}"), "currency": re.compile(r"[A-Z]{3}")}


@dataclass(frozen=True)
class Named:
    """The name of a code: its ``kind`` ("country"), the ``name`` to say and the ``mark`` (a
    regular expression, case-insensitive) a request that says it matches."""

    kind: str
    name: str
    mark: str

    @property
    def standard(self) -> str:
        """What the code is, as a doc says it ("a two-letter country code (ISO 3166-1), not
        the country's name")."""
        return STANDARDS[self.kind]


@lru_cache(maxsize=1)
def _zones() -> frozenset[str]:
    import zoneinfo
    return frozenset(zoneinfo.available_timezones())


def zone_name(value: str) -> Named | None:
    """An IANA zone ("America/New_York") by its place: "New York time"."""
    if value.count("/") < 1 or value not in _zones() or value.startswith("Etc/"):
        return None
    place = value.rsplit("/", 1)[1].replace("_", " ")
    return Named("zone", f"{place} time", rf"\b{re.escape(place)}\b")


def _record(kind: str, text: str, names_only: bool = False) -> Any:
    """The country or currency ``text`` names or codes in pycountry's table (``names_only``:
    names, not codes); no currency fund, metal or test code (X..)."""
    import pycountry
    if names_only and re.fullmatch(r"[A-Z]{2,3}|\d{3}", text):
        return None
    table = pycountry.countries if kind == "country" else pycountry.currencies
    try:
        found = table.lookup(text)
    except LookupError:
        return None
    return None if kind == "currency" and found.alpha_3.startswith("X") else found


def _code(kind: str, record: Any) -> str:
    """The code a country or currency record is written as: alpha-2, alpha-3."""
    return record.alpha_2 if kind == "country" else record.alpha_3


def codes_of(text: str) -> list[tuple[str, str]]:
    """The standard codes a name (or another code) stands for, as (format, code): "Canada" ->
    ("country", "CA"), "USA" -> ("country", "US"), "Euro" -> ("currency", "EUR"), "New York"
    -> ("zone", "America/New_York"). The same meaning in the standard's form: what a refused
    text is tried as first (:mod:`play2prompt.evidence.formats`). Nothing for a code written as
    its standard has it ("CA") or a text no table names."""
    text = text.strip()
    out = []
    for kind in ("country", "currency"):
        found = _record(kind, text) if len(text) > 1 else None
        code = None if found is None else _code(kind, found)
        if code is not None and code != text:
            out.append((kind, code))
    place = re.sub(r"\s+", "_", text).lower()
    zones = sorted(z for z in _zones() if "/" in z and not z.startswith("Etc/")
                   and z.rsplit("/", 1)[1].lower() == place)
    return out + [("zone", zones[0])] if zones else out


def _code_of(kind: str, value: str) -> Any:
    """The standard's record of ``value`` when it is written as that kind's code."""
    if not _CODE[kind].fullmatch(value):
        return None
    found = _record(kind, value)
    if found is None:
        return None
    return found if _code(kind, found) == value else None


def _name(kind: str, record: Any) -> str | None:
    """The name people use: a country's common name where the standard has one ("South
    Korea"), its short name otherwise; a name with a comma is a catalogue's, not people's."""
    name = getattr(record, "common_name", None) or record.name
    return None if "," in name or "(" in name else name


def kind_shown(kind: str, value: str, about: str) -> bool:
    """The facts say ``value`` is of ``kind``: they name the kind, quote a name of it, or
    two other codes of it, or every other value they list or quote is a code of it."""
    if re.search(_KIND_WORDS[kind], about, re.I):
        return True
    quoted = {m.strip() for m in _QUOTED.findall(about)}
    for listing in _LISTED.findall(about):
        quoted |= {v.strip() for v in listing.split(",")}
    quoted.discard(value)
    if any(_record(kind, q, names_only=True) is not None for q in quoted):
        return True
    codes = sum(_code_of(kind, q) is not None for q in quoted)
    return codes >= 2 or bool(quoted) and codes == len(quoted)


def colour_names(value: str) -> list[Named]:
    """A hex colour ("#FFFF00", "#ff0") by its CSS basic keyword where it is one ("yellow")
    and in CSS's functional notation ("rgb(255, 255, 0)"): the forms people and design tools
    say. No fact is needed: "#" and six hex digits is a colour."""
    found = _HEX.fullmatch(value)
    if found is None:
        return []
    digits = found.group(1).upper()
    digits = "".join(c * 2 for c in digits) if len(digits) == 3 else digits
    rgb = tuple(int(digits[i:i + 2], 16) for i in (0, 2, 4))
    names = {h.upper(): n for n, h in words(FORMS)["basic_colours"].items()}
    out = []
    if (name := names.get(f"#{digits}")) is not None:
        out.append(Named("colour", name, rf"\b{name}\b"))
    shown, mark = ", ".join(str(c) for c in rgb), r"\s*,\s*".join(str(c) for c in rgb)
    out.append(Named("colour", f"rgb({shown})", rf"\brgb\s*\(\s*{mark}\s*\)"))
    return out


def code_names(value: Any, about: str) -> list[Named]:
    """Every name people say for the code ``value``: :func:`code_name`'s, or a hex colour's
    (:func:`colour_names`)."""
    if not isinstance(value, str):
        return []
    single = code_name(value, about)
    return [single] if single is not None else colour_names(value.strip())


def code_name(value: Any, about: str) -> Named | None:
    """The name people say for the code ``value`` (a zone, a country, a currency), where the
    facts in ``about`` (the parameter's name, description and facts) show the kind; None for
    any other value."""
    if not isinstance(value, str) or not value.strip():
        return None
    text = value.strip()
    if (zone := zone_name(text)) is not None:
        return zone
    for kind in ("country", "currency"):
        record = _code_of(kind, text)
        if record is None or not kind_shown(kind, text, about):
            continue
        name = _name(kind, record)
        if name:
            plural = "s?" if kind == "currency" else ""
            return Named(kind, name, rf"\b{re.escape(name)}{plural}\b")
    return None


def standard_shown(worked: Sequence[str], rejected: Iterable[str], about: str) -> str | None:
    """The standard a text parameter takes, where play showed it: every value that worked is a
    code of one kind (:func:`code_name`: a country, a currency or a time zone, the kind shown
    by ``about``) and the tool refused a name of that kind or another of its forms ("Canada"
    and "USA" refused, "CA" and "US" taken): that kind's :data:`STANDARDS` ("a two-letter
    country code (ISO 3166-1), not the country's name"). None otherwise."""
    named = [code_name(v, about) for v in worked]
    kinds = {n.kind for n in named if n is not None}
    if not named or None in named or len(kinds) != 1:
        return None
    (kind,) = kinds
    refused = any(kind in {k for k, _ in codes_of(r)} for r in rejected)
    return STANDARDS[kind] if refused else None


def said_by_name(value: Any, about: str, query: str) -> bool:
    """``query`` says the code ``value`` by a name people use for it (:func:`code_names`:
    "Canada" for "CA" where ``about`` shows a country)."""
    return any(re.search(n.mark, query, re.I) for n in code_names(value, about))


__all__ = ["STANDARDS", "Named", "code_name", "code_names", "colour_names", "kind_shown",
           "said_by_name", "standard_shown", "zone_name"]
