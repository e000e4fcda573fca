"""Eight small everyday utilities, used as a held-out tool set (see README.md).

Plain Python, standard library only, deterministic. Their documentation in tools.json is thin,
the way many internal tools are documented; tools.oracle.json holds the full documentation.
"""

from __future__ import annotations

import math
import re

# -- savings growth ---------------------------------------------------------------------------
_PERIODS = (1, 2, 4, 12, 52, 365)


def savings_growth(principal: float, annual_rate: float, years: float,
                   compounding: int = 12) -> dict:
    """Future value of a one-off deposit. annual_rate is in percent, compounding is the
    number of compounding periods per year."""
    if principal < 0:
        raise ValueError("principal cannot be negative")
    if years <= 0:
        raise ValueError("years must be > 0")
    if not 0 <= annual_rate <= 100:
        raise ValueError(f"annual_rate out of range: {annual_rate}")
    if compounding not in _PERIODS:
        raise ValueError(f"compounding must be one of {_PERIODS}, got {compounding!r}")
    balance = principal * (1 + annual_rate / 100 / compounding) ** (compounding * years)
    return {"balance": round(balance, 2), "interest": round(balance - principal, 2)}


# -- wall paint estimate ----------------------------------------------------------------------
_COVERAGE_M2_PER_LITRE = 10.0
_TIN_LITRES = 2.5


def paint_needed(length: float, width: float, height: float, coats: int = 2) -> dict:
    """Paint for the four walls of a rectangular room; dimensions in cm."""
    if min(length, width, height) <= 0:
        raise ValueError("dimensions must be positive")
    if coats not in (1, 2, 3, 4):
        raise ValueError("coats: 1 to 4")
    area_m2 = 2 * (length + width) * height / 10_000
    litres = area_m2 * coats / _COVERAGE_M2_PER_LITRE
    return {"wall_area_m2": round(area_m2, 2), "litres": round(litres, 2),
            "tins": math.ceil(round(litres / _TIN_LITRES, 6))}


# -- shipping quote (from the UK, prices in GBP) ----------------------------------------------
_ZONES = {"GB": 0, "IE": 1, "FR": 1, "DE": 1, "NL": 1, "BE": 1, "ES": 1, "IT": 1,
          "US": 2, "CA": 2, "AU": 2, "JP": 2}
# service -> (base price per zone, price per started kg per zone, delivery days per zone)
_SERVICES = {
    "STD": ((3.20, 8.50, 14.00), (0.80, 2.10, 4.50), (3, 5, 8)),
    "EXP": ((6.90, 16.00, 29.00), (1.20, 3.40, 7.20), (1, 2, 4)),
    "NXT": ((11.50, None, None), (1.50, None, None), (1, None, None)),
}
_MAX_GRAMS = 30_000


def shipping_quote(weight: int, service: str, destination: str) -> dict:
    """Price of sending one parcel. Weight in grams, service code, ISO country code."""
    if service not in _SERVICES:
        raise ValueError(f"unknown service {service!r}; use STD, EXP or NXT")
    country = destination.strip().upper()
    if country not in _ZONES:
        raise ValueError(f"no rates for destination {destination!r}")
    if not isinstance(weight, int) or isinstance(weight, bool):
        raise TypeError("weight must be an integer")
    if weight <= 0 or weight > _MAX_GRAMS:
        raise ValueError("parcel weight out of range")
    zone = _ZONES[country]
    base, per_kg, days = (table[zone] for table in _SERVICES[service])
    if base is None:
        raise ValueError(f"{service} is domestic only")
    kilos = math.ceil(weight / 1000)
    return {"price": round(base + per_kg * kilos, 2), "currency": "GBP",
            "delivery_days": days}


# -- heart-rate training zones ----------------------------------------------------------------
def heart_rate_zone(age: int, zone: int, resting_hr: int | None = None) -> dict:
    """Target heart-rate range for zone 1-5 (50-60 % ... 90-100 % of max HR).

    With resting_hr the Karvonen (heart-rate reserve) method is used."""
    if zone not in (1, 2, 3, 4, 5):
        raise ValueError("zone must be 1-5")
    if not 10 <= age <= 100:
        raise ValueError("age out of range")
    max_hr = 220 - age
    low_pct, high_pct = (40 + 10 * zone) / 100, (50 + 10 * zone) / 100
    if resting_hr is None:
        low, high = max_hr * low_pct, max_hr * high_pct
    else:
        if not 30 <= resting_hr < max_hr:
            raise ValueError(f"implausible resting heart rate: {resting_hr}")
        reserve = max_hr - resting_hr
        low, high = resting_hr + reserve * low_pct, resting_hr + reserve * high_pct
    return {"low_bpm": round(low), "high_bpm": round(high), "max_hr": max_hr}


# -- running pace -----------------------------------------------------------------------------
_TIME = re.compile(r"^(?:(\d+):([0-5]\d)|(\d+):([0-5]\d):([0-5]\d))$")


def _seconds(text: str) -> int:
    match = _TIME.match(text.strip())
    if not match:
        raise ValueError(f"bad time {text!r}")
    if match.group(1) is not None:
        return int(match.group(1)) * 60 + int(match.group(2))
    h, m, s = match.group(3, 4, 5)
    return int(h) * 3600 + int(m) * 60 + int(s)


def running_pace(distance: float, time: str) -> dict:
    """Average pace per km and speed for a run of `distance` km in `time` (mm:ss / h:mm:ss)."""
    if not isinstance(time, str):
        raise TypeError("time must be a string")
    if distance <= 0:
        raise ValueError("distance must be positive")
    total = _seconds(time)
    if total == 0:
        raise ValueError("time is zero")
    per_km = round(total / distance)
    return {"pace_per_km": f"{per_km // 60}:{per_km % 60:02d}",
            "speed_kmh": round(distance / (total / 3600), 2)}


# -- colour contrast (WCAG 2) -----------------------------------------------------------------
_HEX = re.compile(r"^#[0-9a-fA-F]{6}$")


def _luminance(colour: str) -> float:
    if not isinstance(colour, str) or not _HEX.match(colour):
        raise ValueError(f"expected a hex colour like '#1a2b3c', got {colour!r}")
    channels = [int(colour[i:i + 2], 16) / 255 for i in (1, 3, 5)]
    lin = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def contrast_ratio(foreground: str, background: str) -> dict:
    """WCAG contrast ratio of two '#RRGGBB' colours, with the AA / AAA verdicts."""
    a, b = _luminance(foreground), _luminance(background)
    ratio = round((max(a, b) + 0.05) / (min(a, b) + 0.05), 2)
    return {"ratio": ratio, "aa_normal": ratio >= 4.5, "aa_large": ratio >= 3.0,
            "aaa_normal": ratio >= 7.0}


# -- bill splitter ----------------------------------------------------------------------------
def split_bill(total: float, people: int, tip: float = 0.0) -> dict:
    """Split a bill evenly. tip is a fraction of the total (0.15 = 15 %)."""
    if people < 1:
        raise ValueError("people must be at least 1")
    if total < 0:
        raise ValueError("negative total")
    if not 0 <= tip <= 1:
        raise ValueError("tip must be between 0 and 1")
    tip_amount = total * tip
    grand = total + tip_amount
    return {"per_person": round(grand / people, 2), "tip_amount": round(tip_amount, 2),
            "grand_total": round(grand, 2)}


# -- letter grades ----------------------------------------------------------------------------
_POINTS = {"A+": 4.0, "A": 4.0, "A-": 3.7, "B+": 3.3, "B": 3.0, "B-": 2.7, "C+": 2.3,
           "C": 2.0, "C-": 1.7, "D+": 1.3, "D": 1.0, "D-": 0.7, "F": 0.0}


def letter_grade(score: float, plus_minus: bool = False) -> dict:
    """US letter grade and 4.0-scale grade points for a percentage score."""
    if not 0 <= score <= 100:
        raise ValueError("score must be between 0 and 100")
    if score < 60:
        return {"letter": "F", "grade_points": 0.0}
    band = min(int(score // 10), 9)             # 6..9, 100 counts as the A band
    letter = {9: "A", 8: "B", 7: "C", 6: "D"}[band]
    if plus_minus:
        within = score - band * 10
        if within >= 7:
            letter += "+"
        elif within < 3:
            letter += "-"
    return {"letter": letter, "grade_points": _POINTS[letter]}
