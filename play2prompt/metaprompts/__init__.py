"""Meta-prompts m1..m8 and the task-model prompts, one template file each.

A file has a ``[system]`` part and a ``[user]`` part; ``$name`` placeholders are filled with
:class:`string.Template` (so JSON braces need no escaping). The shared part of a prompt
(instructions and documentation) comes first, in the system message, so servers with prefix
caching reuse it. Users can point ``MetaPrompts(folder)`` at their own folder: a file there
replaces the built-in one of the same name. A name that is not built in is looked up in the
template registry (:data:`TEMPLATES`: name -> ``package:file``, a file without a suffix
being ``file.txt``): the entry points of ``play2prompt.templates`` (the built-in benchmarks'
templates are declared there, in pyproject.toml), then those added with
:func:`register_template` (a benchmark's ``templates``, added when it is loaded).
"""

from __future__ import annotations

import string
from collections.abc import Mapping
from importlib import resources
from pathlib import Path
from typing import Any

from play2prompt.errors import UserError
from play2prompt.plugins import Registry

NAMES = {
    "m1": "m1_invocation",   # G_E writes a call from the doc
    "m2": "m2_judge",        # G_E judges the executed output (err_code 0 / -1)
    "m3": "m3_query",        # G_E writes a user query for a valid call
    "m4": "m4_answer",       # G_E writes the answer from the real output
    "m5": "m5_grade",        # G_E grades the example 1-3 (R_q)
    "m6": "m6_reflect",      # G_E reflects to improve the next query
    "m7": "m7_rewrite",      # G_D rewrites the doc
    "m8": "m8_critique",     # G_D critiques the doc from the task model's errors
    "m6-easy": "m6_reflect_easy",  # m6 without difficulty pressure (P2P-Easy, lambda = 0)
    "m3-parts": "m3_parts",  # G_E writes a request a value at a time (request-parts)
    "m3-fact": "m3_fact",    # G_E writes a request saying one value another everyday way
    "reread": "reread",      # G_E re-derives a call from a request (the consistency check)
    "describe": "describe",  # G_E says what an undocumented tool does from its executed calls
    "describe-formula": "describe_formula",  # ... and a Python expression of it, to be checked
    "describe-retry": "describe_retry",      # ... again, told where the expression missed
    "units-formula": "units_formula",  # ... a formula of an output, whose fit rescales a unit
    "units-retry": "units_retry",      # ... again, told where its formulas missed
    "value-probe": "value_probe",  # G_E lists values a text parameter the tool ignored may take
}

TEMPLATES = Registry({}, "play2prompt.templates")


def register_template(name: str, target: str) -> None:
    """Make template ``name`` (``package:file``) known, unless the name is taken."""
    TEMPLATES.add(name, target)


class MetaPrompts:
    def __init__(self, folder: str | Path | None = None) -> None:
        self.folder = Path(folder) if folder else None
        if self.folder is not None and not self.folder.is_dir():
            raise UserError(f"meta-prompt folder not found: {self.folder}")
        self._cache: dict[str, tuple[str, str]] = {}

    def _load(self, name: str) -> tuple[str, str]:
        name = NAMES.get(name, name)
        if name not in self._cache:
            text = None
            if self.folder is not None and (self.folder / f"{name}.txt").is_file():
                text = (self.folder / f"{name}.txt").read_text(encoding="utf-8")
            if text is None:
                text = _packaged(name)
            self._cache[name] = _split(text, name)
        return self._cache[name]

    def template(self, name: str) -> tuple[str, str]:
        """The raw (system, user) text of template ``name``."""
        return self._load(name)

    def render(self, name: str, **values: Any) -> list[dict[str, str]]:
        """The chat messages of template ``name`` with ``values`` filled in."""
        system, user = self._load(name)
        fill = {k: "" if v is None else str(v) for k, v in values.items()}
        messages = []
        sys_text = _fill(system, fill, name).strip()
        if sys_text:
            messages.append({"role": "system", "content": sys_text})
        messages.append({"role": "user", "content": _fill(user, fill, name).strip()})
        return messages

    def openings(self) -> dict[str, str]:
        """Each template's fixed opening, by name (a built-in's file name, a registered one's
        name): the words of its first message before the first placeholder (its system part,
        else its user part), spaces normalised. A logged call is told apart by it
        (:func:`opened_by`)."""
        names = [e.name[:-4] for e in resources.files(__package__).iterdir()
                 if e.name.endswith(".txt")]
        out = {}
        for name in [*names, *TEMPLATES.targets()]:   # the benchmarks' registered ones too
            try:
                system, user = self._load(name)
            except (UserError, OSError, ModuleNotFoundError):
                continue                              # a registered file that is not there
            first = system if system.strip() else user
            words = " ".join(first.split("$", 1)[0].split())
            if len(words) >= MIN_OPENING:
                out[name] = words
        return out


MIN_OPENING = 20   # characters of fixed text a template's first message needs to be told apart


def opened_by(text: str, openings: Mapping[str, str]) -> str:
    """The template whose opening ``text`` (a call's first message) starts with, the longest
    such; "other" for none. A conversation's later turns count under its first template."""
    text = " ".join(text.split())
    if not text:
        return "other"
    found = [(len(o), name) for name, o in openings.items()
             if text.startswith(o) or o.startswith(text)]   # the store keeps a message's start
    return max(found)[1] if found else "other"


def _packaged(name: str) -> str:
    """A built-in template, else a registered one."""
    try:
        return resources.files(__package__).joinpath(f"{name}.txt").read_text(encoding="utf-8")
    except FileNotFoundError:
        pass
    where = TEMPLATES.find(name)
    if where is None:
        raise UserError(f"unknown meta-prompt {name!r}")
    package, _, path = where.partition(":")
    path = path if Path(path).suffix else f"{path}.txt"
    return resources.files(package).joinpath(path).read_text(encoding="utf-8")


def _split(text: str, name: str) -> tuple[str, str]:
    if "[user]" not in text:
        raise UserError(f"meta-prompt {name!r} has no [user] section")
    head, user = text.split("[user]", 1)
    system = head.split("[system]", 1)[1] if "[system]" in head else head
    return system, user


def _fill(template: str, values: Mapping[str, str], name: str) -> str:
    try:
        text = string.Template(template).substitute(values)
    except KeyError as exc:
        raise UserError(f"meta-prompt {name!r} needs a value for ${exc.args[0]}") from exc
    # Drop lines left empty by optional blocks, keep paragraph breaks.
    lines = [ln.rstrip() for ln in text.splitlines()]
    out: list[str] = []
    for ln in lines:
        if ln or (out and out[-1]):
            out.append(ln)
    return "\n".join(out)
