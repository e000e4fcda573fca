"""Probes: calls that vary one argument of a call that ran, so the tool states what it accepts.

A text argument gets an unknown word and the examples the doc itself gives; a number gets its
negative, a hundred times it and a hundredth of it. A search that found nothing is also run
without each optional argument. What a probe shows is read by :class:`FactBook` like any other
execution; a probe that finds results where its call found nothing is a fact of its own.
"""

from __future__ import annotations

import re
from typing import Any

from play2prompt.method.facts import PROBE_WORD, Fact
from play2prompt.tools.model import Invocation, Observation, Tool


def probes(tool: Tool, inv: Invocation) -> list[tuple[str, Invocation]]:
    """Calls that vary one argument of the valid call ``inv`` to make the tool state its
    accepted values, units and ranges: (the parameter varied, the call)."""
    out: list[tuple[str, Invocation]] = []
    absent = {n: PROBE_WORD for n, s in tool.properties.items()
              if n not in inv.arguments and (s or {}).get("type") == "string"}
    for name, value in {**inv.arguments, **absent}.items():
        spec = tool.properties.get(name) or {}
        if "enum" in spec:
            continue
        kind = spec.get("type")
        variants: list[Any] = []
        if kind == "string" and isinstance(value, str):
            # an unknown word, and the examples the doc itself gives ("e.g. miles"): a doc's
            # example the tool rejects is a statement play refutes
            variants = [PROBE_WORD, *doc_examples(str(spec.get("description") or ""))]
        elif kind in ("number", "integer") and isinstance(value, (int, float)) \
                and not isinstance(value, bool):
            base = value if value else 1
            variants = [-abs(base), base * 100]
            if kind == "number":
                variants.append(round(base / 100, 6))
            if kind == "integer":
                variants = [int(v) for v in variants]
        for v in dict.fromkeys(variants):
            if v != inv.arguments.get(name):
                out.append((name, Invocation(inv.name, {**inv.arguments, name: v})))
    return out


_DOC_EXAMPLE = re.compile(r"\b(?:e\.g\.|for example|such as|like)\s*[:,]?\s*['\"]?"
                          r"([A-Za-z0-9][\w/+.:-]{0,30})", re.I)


def doc_examples(text: str) -> list[str]:
    """The example values a doc text gives ("unit name, e.g. miles" gives "miles")."""
    return list(dict.fromkeys(m.group(1).rstrip(".,;:") for m in _DOC_EXAMPLE.finditer(text)))


def without_optional(tool: Tool, inv: Invocation) -> list[tuple[str, Invocation]]:
    """The call ``inv`` without each of its optional arguments in turn (for a search that
    found nothing: which argument narrowed it to nothing)."""
    required = set(tool.required)
    return [(name, Invocation(inv.name, {k: v for k, v in inv.arguments.items() if k != name}))
            for name in inv.arguments if name not in required]


def found_with(param: str, start: Invocation, probe: Invocation, obs: Observation) -> Fact:
    """What a probe shows when the call it varies found nothing and the probe found results
    (a price in cents searched with dollars finds nothing; a hundred times it finds some)."""
    before = start.arguments.get(param)
    after = (f"with {param}={probe.arguments[param]!r}" if param in probe.arguments
             else f"without {param}")
    text = f"With {param}={before!r} the tool found nothing; {after} it found results."
    return Fact(param, "rule", text, (), f"{probe.to_python()[:200]} -> {obs.render(200)}",
                probe.key())

