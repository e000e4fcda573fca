"""Rewards of Step 1: R_q (example quality) and R_e (difficulty), R = R_q + lambda * R_e.

The parts of R_q that code can check are checked by code: the query states every argument
value, names no function or parameter, is short, is in the first person, and the answer does
not report an error. They map onto the paper's 1-3 scale; an LLM grade (m5) is averaged in only
when the generator is capable enough to grade (a flag).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from play2prompt.tools.model import Invocation

MAX_QUERY_WORDS = 60
_FIRST_PERSON = re.compile(r"\b(i|i'm|i've|i'd|me|my|mine|we|our|us)\b", re.I)
_ERROR_WORDS = re.compile(
    r"\b(error|failed|failure|unable|cannot|can't|could not|couldn't|sorry|invalid|exception)\b",
    re.I)
_NUMBER = re.compile(r"-?\d+(?:[.,]\d+)*(?:\.\d+)?")


@dataclass(frozen=True)
class QueryChecks:
    values_present: float   # fraction of argument values stated in the query
    no_names: bool          # no function / parameter identifiers in the query
    short: bool
    first_person: bool
    answer_ok: bool         # the answer does not report an error
    missing_values: tuple[str, ...] = ()

    def score(self) -> float:
        """The code-checked R_q on the 1-3 scale."""
        parts = [self.values_present, float(self.no_names), float(self.short),
                 float(self.first_person), float(self.answer_ok)]
        weights = [3.0, 1.0, 0.5, 0.5, 1.0]
        frac = sum(p * w for p, w in zip(parts, weights)) / sum(weights)
        return 1.0 + 2.0 * frac

    def to_dict(self) -> dict[str, Any]:
        return {"values_present": round(self.values_present, 3), "no_names": self.no_names,
                "short": self.short, "first_person": self.first_person,
                "answer_ok": self.answer_ok, "missing_values": list(self.missing_values)}

    def describe(self) -> str:
        notes = []
        if self.missing_values:
            notes.append("the request does not state: " + ", ".join(self.missing_values))
        if not self.no_names:
            notes.append("the request names the tool or a parameter")
        if not self.short:
            notes.append("the request is too long")
        if not self.first_person:
            notes.append("the request is not in the first person")
        if not self.answer_ok:
            notes.append("the answer reports an error")
        return "; ".join(notes) or "all checks passed"


def leaf_values(value: Any) -> Iterable[Any]:
    if isinstance(value, Mapping):
        for v in value.values():
            yield from leaf_values(v)
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from leaf_values(v)
    else:
        yield value


def value_in_text(value: Any, text: str) -> bool:
    """Whether ``text`` states ``value`` (numbers by value, strings case-insensitively)."""
    if isinstance(value, bool) or value is None:
        return True  # flags are usually implied by wording; not checkable by string search
    low = text.lower()
    if isinstance(value, (int, float)):
        for tok in _NUMBER.findall(text):
            try:
                if abs(float(tok.replace(",", "")) - float(value)) <= 1e-9 * max(1, abs(value)):
                    return True
            except ValueError:
                continue
        return False
    s = str(value).strip().lower()
    if not s:
        return True
    if s in low:
        return True
    # Separators written differently: "new_york" vs "new york", "2024-01-05" vs "2024/01/05".
    norm = re.sub(r"[\s_\-/]+", " ", s)
    return norm in re.sub(r"[\s_\-/]+", " ", low)


def looks_like_identifier(name: str) -> bool:
    return "_" in name or bool(re.search(r"[a-z][A-Z]", name))


def check_query(query: str, invocation: Invocation, param_names: Iterable[str],
                answer: str = "") -> QueryChecks:
    values = list(leaf_values(dict(invocation.arguments)))
    checkable = [v for v in values if not isinstance(v, bool) and v is not None]
    missing = tuple(str(v) for v in checkable if not value_in_text(v, query))
    present = 1.0 if not checkable else 1.0 - len(missing) / len(checkable)
    names = [invocation.name] + [p for p in param_names if looks_like_identifier(p)]
    low = query.lower()
    no_names = not any(n.lower() in low for n in names)
    words = len(query.split())
    return QueryChecks(
        values_present=present,
        no_names=no_names,
        short=3 <= words <= MAX_QUERY_WORDS,
        first_person=bool(_FIRST_PERSON.search(query)),
        answer_ok=bool(answer.strip()) and not _ERROR_WORDS.search(answer),
        missing_values=missing,
    )


def quality_reward(checks: QueryChecks, llm_grade: float | None = None) -> float:
    """R_q in [1, 3]."""
    code = checks.score()
    return code if llm_grade is None else (code + float(llm_grade)) / 2.0


def total_reward(r_q: float, r_e: float, lam: float) -> float:
    return r_q + lam * r_e
