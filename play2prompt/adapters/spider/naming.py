"""Function and parameter names: readable by default, obfuscated on request.

Readable names say what a function returns and from where (``get_name_of_singer_by_country``).
Obfuscated ones (``function_7`` with random parameter names) leave the documentation as the
only clue to what a tool does. Renaming rewrites the SQL's placeholders through ``sqlglot``.
"""

from __future__ import annotations

import random
import re
import string
from collections.abc import Mapping, Sequence

import sqlglot
from sqlglot import exp

from play2prompt.adapters.spider.decompose import FunctionDraft
from play2prompt.adapters.spider.literals import sanitize

MAX_NAME = 64


def _output_word(output: str) -> str:
    text = output.strip()
    if text == "*":
        return "rows"
    alias = re.search(r"\bAS\s+([\w\"]+)\s*$", text, re.I)
    if alias:
        return sanitize(alias.group(1))
    text = re.sub(r"\b[A-Za-z_]\w*\.", "", text)  # drop table qualifiers
    text = text.replace("(*)", "")
    return sanitize(text)


def readable_name(draft: FunctionDraft) -> str:
    outs = "_".join(dict.fromkeys(_output_word(o) for o in draft.outputs)) or "rows"
    tables = "_".join(sanitize(t) for t in draft.tables) or "list"
    by = "_".join(draft.param_names())
    name = f"get_{outs[:24].strip('_')}_of_{tables[:20].strip('_')}"
    if by:
        name = f"{name}_by_{by}"
    return name[:MAX_NAME].rstrip("_")


def unique_name(base: str, taken: set[str]) -> str:
    name, i = base, 1
    while name in taken:
        i += 1
        suffix = f"_{i}"
        name = base[: MAX_NAME - len(suffix)] + suffix
    taken.add(name)
    return name


def random_param_names(names: Sequence[str], rng: random.Random) -> dict[str, str]:
    out: dict[str, str] = {}
    used: set[str] = set()
    for name in names:
        while True:
            cand = "".join(rng.choice(string.ascii_lowercase) for _ in range(6))
            if cand not in used:
                break
        used.add(cand)
        out[name] = cand
    return out


def rename_placeholders(sql: str, mapping: Mapping[str, str]) -> str:
    """``sql`` with ``:old`` placeholders renamed to ``:new``."""
    if not mapping or all(k == v for k, v in mapping.items()):
        return sql
    tree = sqlglot.parse_one(sql, read="sqlite")
    for node in list(tree.find_all(exp.Placeholder)):
        if node.name in mapping:
            node.replace(exp.Placeholder(this=mapping[node.name]))
    return tree.sql(dialect="sqlite")


def assign_names(drafts: Sequence[FunctionDraft], obfuscate: bool, seed: int = 0
                 ) -> list[tuple[str, dict[str, str]]]:
    """(function name, {draft param name -> final name}) for each draft, in order."""
    rng = random.Random(seed)
    taken: set[str] = set()
    out = []
    for i, draft in enumerate(drafts, 1):
        if obfuscate:
            out.append((unique_name(f"function_{i}", taken),
                        random_param_names(draft.param_names(), rng)))
        else:
            out.append((unique_name(readable_name(draft), taken),
                        {n: n for n in draft.param_names()}))
    return out
