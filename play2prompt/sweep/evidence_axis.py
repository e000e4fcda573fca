"""The ``evidence`` axis of a sweep (``--space evidence=all,none,-probes,fact-reader+facts-doc``):
which evidence components (:data:`play2prompt.evidence.names.EVIDENCE`) a trial's optimization
turns on, written so that a table shows it readably.

A value is ``all``, ``none``, ``-NAME`` (every component but NAME; ``-a+b``: but a and b) or
``NAME+NAME`` (only those). ``ablation`` stands for the whole ablation: all, each component off
in turn, none. A value sets the config's ``evidence`` tuple only: the older switches of the
base config (``--no-probe``, ``--fact-tests 0``) still remove their component.
"""

from __future__ import annotations

from collections.abc import Iterable

from play2prompt.errors import UserError
from play2prompt.evidence.names import EVIDENCE

ALL, NONE, ABLATION = "all", "none", "ablation"


def ablation() -> tuple[str, ...]:
    """All, each component off in turn, none (``len(EVIDENCE) + 2`` values)."""
    return (ALL, *(f"-{name}" for name in EVIDENCE), NONE)


def expand(values: Iterable[str]) -> list[str]:
    """The values with ``ablation`` spelled out."""
    return [v for value in values for v in (ablation() if value == ABLATION else (value,))]


def _names(value: str, part: str) -> set[str]:
    names = {n.strip() for n in part.split("+")}
    unknown = sorted(n for n in names if n not in EVIDENCE)
    if unknown or not part:
        raise UserError(f"sweep parameter evidence: {value!r} names no component "
                        f"{', '.join(unknown) or '(empty)'}; takes all, none, ablation, -NAME "
                        f"or NAME+NAME of {', '.join(EVIDENCE)}")
    return names


def evidence_of(value: str) -> tuple[str, ...]:
    """The components ``value`` turns on, in :data:`EVIDENCE`'s order."""
    if value == ALL:
        return EVIDENCE
    if value == NONE:
        return ()
    if value.startswith("-"):
        off = _names(value, value[1:])
        return tuple(n for n in EVIDENCE if n not in off)
    on = _names(value, value)
    return tuple(n for n in EVIDENCE if n in on)
