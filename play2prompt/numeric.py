"""Number comparisons that stay correct for integers beyond the range of a float.

Tools return such integers (a factorial, the 4181st Fibonacci number); ``float()`` of them
raises ``OverflowError``, so every tolerance check on values a tool or a model wrote goes
through here. Within float range the result is :func:`math.isclose`'s; beyond it the
comparison is exact, in rationals. :func:`in_digits` reads the numbers a text spells out in
English ("seven days"), so that a request states a number in words as well as in digits.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from fractions import Fraction
from functools import lru_cache
from typing import Any

from text_to_num import alpha2digit

Number = int | float


def is_number(value: Any) -> bool:
    """An int or a float, not a bool."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def plain_number(value: Number) -> str:
    """``value`` in digits as written, every digit kept and no exponent: "-122.4194", "2" for
    2.0, "0.00001" (``:g`` keeps six significant digits: "-122.419")."""
    if isinstance(value, int) or float(value).is_integer():
        return str(int(value))
    text = repr(float(value))
    return text if "e" not in text else f"{value:.{_decimals(text)}f}"


def _decimals(text: str) -> int:
    mantissa, exponent = text.split("e")
    digits = len(mantissa.split(".")[1]) if "." in mantissa else 0
    return max(0, digits - int(exponent))


def close(a: Number, b: Number, *, rel_tol: float = 1e-9, abs_tol: float = 1e-12) -> bool:
    """``math.isclose(a, b)``, also for integers too large for a float."""
    try:
        return math.isclose(float(a), float(b), rel_tol=rel_tol, abs_tol=abs_tol)
    except OverflowError:
        pass
    fa, fb = _fraction(a), _fraction(b)
    if fa is None or fb is None:
        return False
    diff = abs(fa - fb)
    return diff <= max(Fraction(rel_tol) * max(abs(fa), abs(fb)), Fraction(abs_tol))


def within(a: Number, b: Number, rel: float) -> bool:
    """``|a - b| <= rel * |b|`` (``b == 0`` asks for ``|a| <= 1e-9``), for any size."""
    if b == 0:
        return abs(a) <= 1e-9
    try:
        return abs(float(a) - float(b)) <= rel * abs(float(b))
    except OverflowError:
        pass
    fa, fb = _fraction(a), _fraction(b)
    if fa is None or fb is None:
        return False
    return abs(fa - fb) <= Fraction(rel) * abs(fb)


def parse_number(token: str) -> Number | None:
    """A number written in text ("1,250", "-3.5", a 900-digit integer); None if it is not one.

    Digits without a decimal point are read as an exact integer."""
    text = token.replace(",", "").strip()
    try:
        return int(text)
    except ValueError:
        pass
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


_SPELLED = re.compile(r"[A-Za-z]{3,}")


@lru_cache(maxsize=4096)
def in_digits(text: str) -> str:
    """``text`` with the numbers it spells out in English written in digits ("Add seven days"
    -> "Add 7 days", "two thousand five hundred grams" -> "2500 grams"; a lone "one" of "the
    one with" is left as it is): text2num's ``alpha2digit``."""
    return alpha2digit(text, "en") if _SPELLED.search(text) else text


def any_is(tokens: Iterable[str], value: Number) -> bool:
    """One of the numbers written as ``tokens`` is ``value`` (to 1e-9, relative or absolute)."""
    return any(num is not None and close(num, value, abs_tol=1e-9)
               for num in map(parse_number, tokens))


def _fraction(value: Number) -> Fraction | None:
    try:
        return Fraction(value)
    except (OverflowError, ValueError):  # inf, nan
        return None
