"""What is done with an observation besides reading it: is it transient, and how big may it be.

:func:`is_transient` tells a failure that says nothing about the tool (a timeout, a crash, a
server that cannot be reached, a 5xx answer) from one that does (the tool rejected the values):
transient failures are never documentation and are not kept in the run's execution log (a
resumed run tries them again). :func:`cap` bounds what one execution may weigh: an output or an
error text longer than the limit is cut, the cut marked with the full size.
"""

from __future__ import annotations

import json
import re
from dataclasses import replace

from play2prompt.jsonutil import json_default
from play2prompt.scrub import bound
from play2prompt.tools.model import Observation

# Error types that name a failure of the environment, not of the call.
TRANSIENT_TYPES = frozenset({"timeout", "crash", "unavailable", "http_5xx"})
_TRANSIENT_TEXT = re.compile(
    r"connection (?:refused|reset|aborted|error)|newconnectionerror|max retries exceeded|"
    r"cannot reach|timed out|temporarily unavailable|service unavailable|bad gateway|"
    r"gateway time-?out|\bHTTP 5\d\d\b|name or service not known|network is unreachable",
    re.I)

DEFAULT_LIMIT = 100_000   # characters of one observation's output (as JSON) or error text


def is_transient(obs: Observation) -> bool:
    """A failure of the environment (timeout, crash, unreachable, 5xx), not of the call."""
    if obs.ok:
        return False
    if (obs.error_type or "") in TRANSIENT_TYPES:
        return True
    return bool(_TRANSIENT_TEXT.search(obs.error or ""))


def output_size(obs: Observation) -> int:
    """The size of the output as JSON text (characters)."""
    if obs.output is None:
        return 0
    if isinstance(obs.output, str):
        return len(obs.output)
    return len(json.dumps(obs.output, ensure_ascii=False, default=json_default))


def cap(obs: Observation, limit: int | None = DEFAULT_LIMIT) -> Observation:
    """``obs`` with its output and error text bounded by ``limit`` characters. An output over
    the limit becomes the start of its JSON text followed by ``...[truncated: N chars]``."""
    if limit is None:
        return obs
    if obs.error is not None and len(obs.error) > limit:
        obs = replace(obs, error=bound(obs.error, limit))
    if output_size(obs) <= limit:
        return obs
    text = obs.output if isinstance(obs.output, str) else json.dumps(
        obs.output, ensure_ascii=False, default=json_default)
    return replace(obs, output=bound(text, limit))
