"""Observations as the method may read them: a tool's output scrubbed, its error scrubbed and
bounded (the run store keeps the raw observation; nothing the method writes comes from it)."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from play2prompt.scrub import Scrubber
from play2prompt.tools.model import Invocation, Observation

ERROR_TEXT_LIMIT = 1000      # characters of one error message read for facts (a pydantic
                             # or JSON error with a few issues; prompts cut it again)


def seen(obs: Observation, scrubber: Scrubber) -> Observation:
    """``obs`` as the method may read it: error text scrubbed and bounded, output scrubbed
    (the run store keeps the raw observation; nothing the method writes comes from it)."""
    if obs.ok:
        return replace(obs, output=scrubber.value(obs.output))
    return replace(obs, error=scrubber.text(obs.error or "", ERROR_TEXT_LIMIT))


async def run_seen(engine: Any, calls: Sequence[Invocation]) -> list[Observation]:
    """``calls`` run together, each observation as the method may read it (:func:`seen`)."""
    raw = await asyncio.gather(*(engine.runtime.run(c) for c in calls))
    return [seen(o, engine.scrubber) for o in raw]


__all__ = ["ERROR_TEXT_LIMIT", "run_seen", "seen"]
