"""The values an optional argument's default is told apart from (:mod:`play2prompt.evidence.
variants`) and the values it may default to: shared by the left-out variants and the component
``option-effects`` (:mod:`play2prompt.evidence.option_effects`), which sets them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from play2prompt.numeric import is_number, parse_number


def is_option(value: Any) -> bool:
    """Whether ``value`` is a flag or a number: an argument left out shows its default against
    its neighbours (:func:`neighbours`) only then."""
    return isinstance(value, bool) or is_number(value)


def neighbours(value: Any, accepted: Sequence[str] = ()) -> list[Any]:
    """The values a default must differ from: the flag flipped; a number's neighbours in the
    values the tool accepts, where it listed them and the value is one (``compounding`` 4 and
    52 around 12, of 1, 2, 4, 12, 52, 365); else a whole number 1 either side, any other number
    10 % either side (0.1 around 0). A value whose neighbours give its own output is no default
    shown: a ``limit`` of 5 on 3 matches, a ``max_price`` above them all."""
    if isinstance(value, bool):
        return [not value]
    listed = sorted({n for n in map(parse_number, accepted) if n is not None})
    if value in listed and len(listed) > 1:
        at = listed.index(value)
        return [type(value)(n) if n == int(n) else n
                for n in listed[max(at - 1, 0):at + 2] if n != value]
    if isinstance(value, int):
        return [value - 1, value + 1]
    step = abs(value) * 0.1 or 0.1
    return [value - step, value + step]


def default_candidates(value: Any, accepted: Sequence[str] = ()) -> list[Any]:
    """What an argument left out may default to where the call's own value did not give the
    left-out output: a flag's other value; 0, 1, the values the tool lists and the call's
    value's neighbours (a tip of 0.15 left out split the bill as a tip of 0 does; 3 coats
    left out painted as 2 do)."""
    if isinstance(value, bool):
        return [not value]
    out: list[Any] = []
    listed = [m for m in map(parse_number, accepted) if m is not None]
    for n in (0, 1, *listed, *neighbours(value, accepted)):
        n = int(n) if n == int(n) and isinstance(value, int) else float(n)   # 0.0 runs as 0.0
        if n != value and n not in out:
            out.append(n)
    return out


__all__ = ["default_candidates", "is_option", "neighbours"]
