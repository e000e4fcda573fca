"""Shared by the scale tests: a scripted generator that plays the example tools plausibly
(right and wrong calls, chosen by seed) and a jittery latency that shuffles completion order."""

from __future__ import annotations

import asyncio
import json
import os
import random
from pathlib import Path
from typing import Any

from play2prompt.lm._base import ChatRequest, Generation
from play2prompt.lm.fake import FakeLM, play_rules

# Candidate calls per example tool: some work, some fail with the tool's own error message.
EXAMPLE_CALLS: dict[str, list[dict[str, Any]]] = {
    "convert_units": [{"value": 5, "from_unit": "km", "to_unit": "mi"},
                      {"value": 12, "from_unit": "miles", "to_unit": "km"},
                      {"value": 2.5, "from_unit": "kg", "to_unit": "lb"},
                      {"value": 70, "from_unit": "f", "to_unit": "c"},
                      {"value": 3, "from_unit": "parsec", "to_unit": "m"}],
    "add_days": [{"date": "2025-03-14", "days": 10},
                 {"date": "14/03/2025", "days": 3},
                 {"date": "2024-12-30", "days": 5, "business_days": True},
                 {"date": "next monday", "days": 1}],
    "search_products": [{"query": "kettle", "category": "kitchen"},
                        {"query": "tent", "category": "Outdoor gear"},
                        {"query": "", "max_price": 3000, "sort_by": "price"},
                        {"query": "mouse", "sort_by": "popularity"}],
    "loan_payment": [{"principal": 20000, "annual_rate": 4.5, "years": 5},
                     {"principal": 8000, "annual_rate": 6, "years": 3},
                     {"principal": 150000, "annual_rate": 0.035, "years": 30},
                     {"principal": -5, "annual_rate": 5, "years": 2}],
    "convert_currency": [{"amount": 100, "from_currency": "USD", "to_currency": "EUR"},
                         {"amount": 50, "from_currency": "dollars", "to_currency": "yen"},
                         {"amount": 2500, "from_currency": "GBP", "to_currency": "JPY"}],
    "convert_timezone": [{"time": "09:30", "from_tz": "Europe/Paris", "to_tz": "Asia/Tokyo"},
                         {"time": "14:00", "from_tz": "EST", "to_tz": "PST"},
                         {"time": "18:15", "from_tz": "America/New_York",
                          "to_tz": "Europe/London", "date": "2025-07-01"}],
    "body_mass_index": [{"weight": 70, "height": 175},
                        {"weight": 95, "height": 188},
                        {"weight": 82, "height": 1.8},
                        {"weight": 55, "height": 160}],
}


class JitterLM(FakeLM):
    """A scripted player whose calls take a random time (so concurrent work finishes in a
    different order on every run)."""

    def __init__(self, max_latency: float = 0.004, rng_seed: int | None = None,
                 **options: Any) -> None:
        options.setdefault("fill_schema", True)
        options.setdefault("model_id", "fake-player")
        super().__init__(rules=play_rules(EXAMPLE_CALLS), **options)
        self.max_latency = max_latency
        self.rng = random.Random(rng_seed)
        self.in_flight = 0
        self.peak_in_flight = 0

    async def _generate(self, request: ChatRequest) -> Generation:
        self.in_flight += 1
        self.peak_in_flight = max(self.peak_in_flight, self.in_flight)
        try:
            await asyncio.sleep(self.rng.uniform(0.0, self.max_latency))
            return await super()._generate(request)
        finally:
            self.in_flight -= 1


def tools_part(run_dir: Path) -> dict[str, Any]:
    """What a run produced, per tool: the prompts (doc, demos), scores and search stats."""
    data = json.loads((Path(run_dir) / "result.json").read_text())
    return data["tools"]


class CrashOnce(JitterLM):
    """Kills its own process (a lost Ray worker) after ``after`` calls for ``tool``, once:
    the marker file says it already happened."""

    def __init__(self, tool: str, after: int, marker: Path, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.tool, self.after, self.marker = tool, after, str(marker)
        self.made = 0

    async def _generate(self, request: ChatRequest) -> Generation:
        if request.tag == self.tool:
            self.made += 1
            if self.made > self.after and not Path(self.marker).exists():
                Path(self.marker).write_text(str(self.after))
                os._exit(1)
        return await super()._generate(request)
