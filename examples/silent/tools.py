"""Five tools that follow the conventions of real public APIs, used with five library functions
(numpy, pandas) as a held-out tool set whose conventions are silent (see README.md).

A wrong form is accepted and answers something else: an amount read in cents, a page counted
from 0, a timestamp read in milliseconds, a month counted from 0, a point read as
[longitude, latitude]. Deterministic, no network. tools.json documents them thinly, the way a
user's tools often are; tools.oracle.json holds the full documentation.
"""

from __future__ import annotations

import math
from datetime import datetime, timedelta, timezone

import pycountry

# -- create_charge (Stripe's conventions) -----------------------------------------------------
# Amounts are integers in the currency's smallest unit: cents for USD, whole yen for JPY
# (Stripe's zero-decimal currencies), thousandths for the three-decimal ones.
_ZERO_DECIMAL = frozenset({"BIF", "CLP", "DJF", "GNF", "JPY", "KMF", "KRW", "MGA", "PYG",
                           "RWF", "UGX", "VND", "VUV", "XAF", "XOF", "XPF"})
_THREE_DECIMAL = frozenset({"BHD", "JOD", "KWD", "OMR", "TND"})
_FEE_PER_MILLE = 29           # 2.9 % of the amount ...
_FIXED_FEE_MAJOR = 0.30       # ... plus 0.30 in the currency's main unit (none below one unit)


def _exponent(code: str) -> int:
    if code in _ZERO_DECIMAL:
        return 0
    return 3 if code in _THREE_DECIMAL else 2


def create_charge(amount: int, currency: str, description: str | None = None) -> dict:
    """Charge a card (simulated): amount in the smallest currency unit, ISO 4217 currency."""
    code = str(currency).strip().upper()
    if pycountry.currencies.get(alpha_3=code) is None:
        raise ValueError(f"invalid currency: {currency!r}")
    if isinstance(amount, bool) or not isinstance(amount, int) or amount < 1:
        raise ValueError("amount must be a positive integer")
    exponent = _exponent(code)
    fixed = round(_FIXED_FEE_MAJOR * 10 ** exponent)
    fee = (amount * _FEE_PER_MILLE + 500) // 1000 + fixed
    display = f"{amount / 10 ** exponent:,.{exponent}f} {code}"
    return {"status": "succeeded", "amount": amount, "currency": code.lower(),
            "amount_display": display, "fee": fee, "net": amount - fee,
            "description": description}


# -- list_orders (a 0-based page index, as Spring Data's Pageable and Algolia count) ----------
_FIRST_ORDER, _LAST_ORDER = 1001, 1057
_STATUSES = ("paid", "pending", "refunded")


def _order(number: int) -> dict:
    status = "refunded" if number % 7 == 0 else "pending" if number % 5 == 0 else "paid"
    total = round(12.5 + (number * 37) % 180 + (number % 4) * 0.25, 2)
    placed = datetime(2024, 1, 1, tzinfo=timezone.utc) + timedelta(days=(number - _FIRST_ORDER) * 3)
    return {"id": f"ORD-{number}", "status": status, "total": total,
            "placed": placed.date().isoformat()}


def list_orders(page: int = 0, per_page: int = 20, status: str | None = None) -> dict:
    """Orders, newest first, one page at a time; page 0 is the first page."""
    if page < 0:
        raise ValueError("page must be >= 0")
    if not 1 <= per_page <= 100:
        raise ValueError("per_page must be between 1 and 100")
    wanted = None if status is None else str(status).strip().lower()
    if wanted is not None and wanted not in _STATUSES:
        raise ValueError(f"invalid status {status!r}")
    orders = [_order(n) for n in range(_LAST_ORDER, _FIRST_ORDER - 1, -1)]
    if wanted is not None:
        orders = [o for o in orders if o["status"] == wanted]
    start = page * per_page
    return {"page": page, "per_page": per_page, "total": len(orders),
            "orders": orders[start:start + per_page]}


# -- format_timestamp / utc_timestamp (JavaScript's Date: milliseconds, months from 0) ---------
_WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")


def format_timestamp(timestamp: int, utc_offset: int = 0) -> dict:
    """The local date and time of a Unix timestamp in milliseconds, at an offset from UTC given
    in minutes east of Greenwich (India is 330, New York in winter -300)."""
    if not -720 <= utc_offset <= 840:
        raise ValueError("utc_offset out of range")
    zone = timezone(timedelta(minutes=utc_offset))
    moment = datetime.fromtimestamp(timestamp / 1000, tz=zone)
    sign = "+" if utc_offset >= 0 else "-"
    hours, minutes = divmod(abs(utc_offset), 60)
    return {"local_time": moment.strftime("%Y-%m-%d %H:%M:%S"),
            "weekday": _WEEKDAYS[moment.weekday()],
            "utc_offset": f"{sign}{hours:02d}:{minutes:02d}"}


def utc_timestamp(year: int, month: int, day: int, hour: int = 0, minute: int = 0) -> int:
    """Milliseconds since the Unix epoch of a UTC date and time, as JavaScript's Date.UTC
    counts: month 0 is January, and values past their range carry over (month 12 is January
    of the next year, day 0 the last day of the month before)."""
    carry_years, month_index = divmod(month, 12)
    start = datetime(year + carry_years, month_index + 1, 1, tzinfo=timezone.utc)
    moment = start + timedelta(days=day - 1, hours=hour, minutes=minute)
    return int((moment - datetime(1970, 1, 1, tzinfo=timezone.utc)).total_seconds()) * 1000


# -- distance (Turf.js: GeoJSON positions [longitude, latitude]) --------------------------------
_EARTH_RADIUS_M = 6_371_008.8
_METRES_PER_UNIT = {"kilometers": 1000.0, "miles": 1609.344, "meters": 1.0,
                    "nauticalmiles": 1852.0}


def _position(point: list, name: str) -> tuple[float, float]:
    if not isinstance(point, list) or len(point) != 2:
        raise ValueError(f"{name} must be a position [x, y]")
    lon, lat = (float(v) for v in point)
    if not (-180 <= lon <= 180 and -90 <= lat <= 90):
        raise ValueError(f"{name}: invalid position {point}")
    return math.radians(lon), math.radians(lat)


def distance(origin: list, destination: list, units: str = "kilometers") -> float:
    """Great-circle (haversine) distance between two GeoJSON positions [longitude, latitude],
    rounded to 3 decimals, in ``units``."""
    if units not in _METRES_PER_UNIT:
        raise ValueError(f"units must be one of {', '.join(_METRES_PER_UNIT)}")
    lon1, lat1 = _position(origin, "origin")
    lon2, lat2 = _position(destination, "destination")
    h = (math.sin((lat2 - lat1) / 2) ** 2
         + math.cos(lat1) * math.cos(lat2) * math.sin((lon2 - lon1) / 2) ** 2)
    metres = 2 * _EARTH_RADIUS_M * math.asin(math.sqrt(h))
    return round(metres / _METRES_PER_UNIT[units], 3)
