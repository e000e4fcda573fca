"""Real, runnable example tools for `p2p optimize examples/tools.json`.

Their documentation in tools.json is deliberately thin or partly wrong, as tools found in the
wild often are: units left unsaid, formats not given, accepted values not listed. Tool play is
how play2prompt finds out what they really accept.
"""

from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

# -- unit converter ---------------------------------------------------------------------------
_LENGTH_M = {"mm": 0.001, "cm": 0.01, "m": 1.0, "km": 1000.0, "in": 0.0254, "ft": 0.3048,
             "yd": 0.9144, "mi": 1609.344}
_MASS_KG = {"g": 0.001, "kg": 1.0, "lb": 0.45359237, "oz": 0.028349523125, "t": 1000.0}
_VOLUME_L = {"ml": 0.001, "l": 1.0, "gal": 3.785411784, "qt": 0.946352946, "cup": 0.2365882365}
_TEMPS = {"c", "f", "k"}


def convert_units(value: float, from_unit: str, to_unit: str) -> dict:
    """Convert between length, mass, volume and temperature units (abbreviations only)."""
    src, dst = from_unit.strip().lower(), to_unit.strip().lower()
    if src in _TEMPS and dst in _TEMPS:
        kelvin = {"c": value + 273.15, "f": (value - 32) * 5 / 9 + 273.15, "k": value}[src]
        if kelvin < 0:
            raise ValueError("temperature below absolute zero")
        out = {"c": kelvin - 273.15, "f": (kelvin - 273.15) * 9 / 5 + 32, "k": kelvin}[dst]
        return {"value": round(out, 4), "unit": dst}
    for table in (_LENGTH_M, _MASS_KG, _VOLUME_L):
        if src in table and dst in table:
            return {"value": round(value * table[src] / table[dst], 4), "unit": dst}
    known = sorted(set(_LENGTH_M) | set(_MASS_KG) | set(_VOLUME_L) | _TEMPS)
    raise ValueError(f"cannot convert {from_unit!r} to {to_unit!r}; units: {', '.join(known)}")


# -- date calculator --------------------------------------------------------------------------
def add_days(date: str, days: int, business_days: bool = False) -> dict:
    """Add (or subtract) days to an ISO date (YYYY-MM-DD); optionally count only weekdays."""
    start = dt.date.fromisoformat(date)
    if not business_days:
        result = start + dt.timedelta(days=days)
    else:
        step = 1 if days >= 0 else -1
        result, left = start, abs(days)
        while left:
            result += dt.timedelta(days=step)
            if result.weekday() < 5:
                left -= 1
    return {"date": result.isoformat(), "weekday": result.strftime("%A")}


# -- product catalogue ------------------------------------------------------------------------
_CATALOGUE = [
    # (sku, name, category, price in cents, rating, in stock)
    ("EL-100", "USB-C charger 65W", "electronics", 3499, 4.6, True),
    ("EL-101", "Noise-cancelling headphones", "electronics", 19900, 4.4, True),
    ("EL-102", "Bluetooth speaker", "electronics", 5999, 4.1, False),
    ("EL-103", "4K monitor 27 inch", "electronics", 32900, 4.5, True),
    ("EL-104", "Wireless mouse", "electronics", 2499, 4.2, True),
    ("KT-200", "Chef's knife 8 inch", "kitchen", 7900, 4.8, True),
    ("KT-201", "Cast iron skillet", "kitchen", 3900, 4.7, True),
    ("KT-202", "Electric kettle", "kitchen", 4599, 4.3, True),
    ("KT-203", "Espresso machine", "kitchen", 24900, 4.0, False),
    ("KT-204", "Bamboo cutting board", "kitchen", 1999, 4.5, True),
    ("OD-300", "Two-person tent", "outdoor", 14900, 4.3, True),
    ("OD-301", "Sleeping bag -5C", "outdoor", 8900, 4.1, True),
    ("OD-302", "Trekking poles", "outdoor", 4900, 4.4, False),
    ("OD-303", "Headlamp 400 lumen", "outdoor", 2999, 4.6, True),
    ("BK-400", "Python cookbook", "books", 3999, 4.7, True),
    ("BK-401", "Mountain hiking guide", "books", 2499, 4.2, True),
    ("BK-402", "Espresso at home", "books", 1899, 3.9, True),
    ("TY-500", "Wooden train set", "toys", 5499, 4.8, True),
    ("TY-501", "Puzzle 1000 pieces", "toys", 1799, 4.5, True),
    ("TY-502", "Remote control car", "toys", 6999, 3.8, False),
]
_SORTS = {"price": lambda p: p[3], "rating": lambda p: -p[4], "name": lambda p: p[1].lower()}


def search_products(query: str = "", category: str | None = None,
                    max_price: int | None = None, in_stock_only: bool = False,
                    sort_by: str = "rating", limit: int = 5) -> dict:
    """Search the catalogue. max_price is in cents; category is one of the lower-case names."""
    if category is not None and category not in {p[2] for p in _CATALOGUE}:
        cats = sorted({p[2] for p in _CATALOGUE})
        raise ValueError(f"unknown category {category!r}; categories: {', '.join(cats)}")
    if sort_by not in _SORTS:
        raise ValueError(f"sort_by must be one of {', '.join(_SORTS)}")
    words = [w for w in query.lower().split() if w]
    hits = [p for p in _CATALOGUE
            if all(w in p[1].lower() for w in words)
            and (category is None or p[2] == category)
            and (max_price is None or p[3] <= max_price)
            and (p[5] or not in_stock_only)]
    hits.sort(key=_SORTS[sort_by])
    return {
        "count": len(hits),
        "products": [{"sku": p[0], "name": p[1], "category": p[2], "price_cents": p[3],
                      "rating": p[4], "in_stock": p[5]} for p in hits[: max(1, limit)]],
    }


# -- loan calculator --------------------------------------------------------------------------
def loan_payment(principal: float, annual_rate: float, years: int) -> dict:
    """Monthly payment of an amortised loan. annual_rate is a percentage (5.5 means 5.5 %)."""
    if principal <= 0 or years <= 0:
        raise ValueError("principal and years must be positive")
    if not 0 <= annual_rate < 100:
        raise ValueError("annual_rate is a percentage between 0 and 100")
    months = years * 12
    r = annual_rate / 100 / 12
    payment = principal / months if r == 0 else principal * r / (1 - (1 + r) ** -months)
    total = payment * months
    return {"monthly_payment": round(payment, 2), "total_paid": round(total, 2),
            "total_interest": round(total - principal, 2)}


# -- currency converter (fixed reference rates, EUR base) ------------------------------------
_EUR_RATES = {"EUR": 1.0, "USD": 1.08, "GBP": 0.85, "JPY": 162.5, "CHF": 0.95, "CAD": 1.47,
              "AUD": 1.64, "CNY": 7.8, "INR": 90.1, "SEK": 11.4}


def convert_currency(amount: float, from_currency: str, to_currency: str) -> dict:
    """Convert with fixed reference rates; currencies are ISO 4217 codes (USD, EUR, ...)."""
    src, dst = from_currency.strip().upper(), to_currency.strip().upper()
    for code in (src, dst):
        if code not in _EUR_RATES:
            raise ValueError(f"unknown currency {code!r}; known: {', '.join(sorted(_EUR_RATES))}")
    value = amount / _EUR_RATES[src] * _EUR_RATES[dst]
    return {"amount": round(value, 2), "currency": dst, "rate": round(_EUR_RATES[dst] /
                                                                       _EUR_RATES[src], 6)}


# -- time zone converter ----------------------------------------------------------------------
def convert_timezone(time: str, from_tz: str, to_tz: str, date: str | None = None) -> dict:
    """Convert a wall-clock time 'HH:MM' between IANA zones (e.g. 'Europe/Paris')."""
    try:
        src, dst = ZoneInfo(from_tz), ZoneInfo(to_tz)
    except (ZoneInfoNotFoundError, ValueError) as exc:
        raise ValueError(f"unknown time zone: {exc}; use IANA names like 'America/New_York'"
                         ) from exc
    day = dt.date.fromisoformat(date) if date else dt.date(2025, 1, 15)
    hour, minute = (int(x) for x in time.split(":"))
    moment = dt.datetime(day.year, day.month, day.day, hour, minute, tzinfo=src).astimezone(dst)
    return {"time": moment.strftime("%H:%M"), "date": moment.date().isoformat(), "zone": to_tz}


# -- body mass index --------------------------------------------------------------------------
def body_mass_index(weight: float, height: float) -> dict:
    """BMI from weight in kilograms and height in centimetres."""
    if weight <= 0 or height <= 0:
        raise ValueError("weight and height must be positive")
    if height < 3:
        raise ValueError(f"height {height} looks like metres; height is in centimetres")
    bmi = weight / (height / 100) ** 2
    band = ("underweight" if bmi < 18.5 else "normal" if bmi < 25 else "overweight"
            if bmi < 30 else "obese")
    return {"bmi": round(bmi, 1), "category": band}

