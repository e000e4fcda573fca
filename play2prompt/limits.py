"""The range of every number a user gives ``p2p`` (and the form of an address to bind), in
one place.

A flag's value and a setting's (:class:`~play2prompt.config.OptimizeConfig`, an evaluation's
options, a server's port) is checked where it is read against its :class:`Limit` here: a
number that is not finite, outside its range, or a fraction where a count is meant is one
line (:class:`~play2prompt.errors.UserError`), never a traceback or a run that cannot end.
The upper bounds are where the work (search candidates, requests, rows kept) still fits in
memory and time; they are far above any setting that measured anything.
"""

from __future__ import annotations

import ipaddress
import math
import re
from dataclasses import dataclass
from typing import Any

from play2prompt.errors import UserError


@dataclass(frozen=True)
class Limit:
    """A number's range: ``low`` to ``high`` (``low`` itself excluded when ``open_low``),
    a whole number when ``integer``."""

    low: float
    high: float
    integer: bool = True
    open_low: bool = False

    def describe(self) -> str:
        kind = "a whole number" if self.integer else "a number"
        low = f"{self.low:g}" if not self.integer else str(int(self.low))
        high = f"{self.high:g}" if not self.integer else str(int(self.high))
        if self.open_low:
            return f"{kind} above {low} and at most {high}"
        return f"{kind} from {low} to {high}"

    def holds(self, value: Any) -> bool:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return False
        if self.integer and not isinstance(value, int):
            return False
        if not math.isfinite(value) or value > self.high:
            return False
        return value > self.low if self.open_low else value >= self.low

    def check(self, value: Any, label: str) -> Any:
        """``value``, or one line naming ``label`` (a flag or a setting) and the range."""
        if not self.holds(value):
            shown = f"{value:g}" if isinstance(value, float) else repr(value)
            raise UserError(f"{label} must be {self.describe()}, got {shown}")
        return value

    def option(self) -> dict[str, float]:
        """``typer.Option`` keywords for a flag with this range (a closed one)."""
        return {"min": self.low, "max": self.high}


HOUR, DAY = 3600.0, 86400.0

PORT = Limit(1, 65535)
SEED = Limit(0, 2**32 - 1)                      # numpy's seeds
MAX_CONCURRENCY = Limit(1, 1024)                # LLM requests in flight
TEMPERATURE = Limit(0.0, 2.0, integer=False)    # OpenAI's and most servers' range
SECONDS = Limit(0.0, DAY, integer=False, open_low=True)   # a timeout
SHARE = Limit(0.0, 1.0, integer=False)          # a probability
QUERY_LIMIT = Limit(1, 10**9)                   # first N queries of each category
DEMOS = Limit(0, 1000)                          # demonstrations shown per tool
TRIALS = Limit(1, 100_000)                      # a sampler sweep's trials

# p2p optimize's settings (OptimizeConfig; config.validate)
WIDTH = Limit(1, 1000)                          # W: candidates kept per iteration
EXPAND = Limit(1, 100)                          # L: children per kept candidate
DEPTH = Limit(0, 100)                           # T: expansion rounds
SEARCH_BUDGET = 100_000                         # candidates of one search, at most
LAMBDA = Limit(0.0, 100.0, integer=False)       # weight of the difficulty reward
N_E = Limit(1, 100)
MAX_TRIES = Limit(1, 1000)
DOC_BATCH = Limit(1, 10_000)
COUNT = Limit(0, 10_000)                        # demos kept, fact tests, siblings, set check
PATIENCE = Limit(1, 1000)
DRAFT_ROUNDS = Limit(1, 100)
OBSERVATION_LIMIT = Limit(100, 16 * 2**20)      # characters kept of one tool output


_HOST_NAME = re.compile(r"(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
                        r"(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?")


def is_host(host: str) -> bool:
    """Whether ``host`` is an IP address or a host name."""
    try:
        ipaddress.ip_address(host)
        return True
    except ValueError:
        return _HOST_NAME.fullmatch(host) is not None


def check_host(host: str, label: str = "--host") -> str:
    """``host`` when it is an IP address or a host name (what a server can bind), else one
    line; an empty one would bind every interface."""
    if not is_host(host):
        raise UserError(f"{label} must be an IP address or a host name, got {host!r}")
    return host
