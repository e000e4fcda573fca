"""Whether a tool can run at all: N executions failing the same way, and none succeeding.

A tool whose every execution crashes, times out or cannot start in the same way (its command
is not found, its module cannot be imported, it dies at once) teaches nothing: each further try
only spends LLM calls. :class:`ToolHealth` watches a tool's real executions; after
:data:`FAIL_AFTER` identical failures of the environment in a row and no execution that ran,
:meth:`ToolHealth.check` raises :class:`ToolCannotRun`, a :class:`~play2prompt.errors.UserError`
whose one line names the cause and the fix. An execution that ran (an output, or the tool's own
error about the values) proves the tool runs: it is never stopped afterwards.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from play2prompt.errors import UserError
from play2prompt.tools.model import Observation

FAIL_AFTER = 3           # identical failures of the environment that stop a tool
# Failures that say the tool could not run (not that it rejected the values).
INFRA_TYPES = frozenset({"crash", "timeout", "unavailable"})

_FIXES: tuple[tuple[re.Pattern[str], str], ...] = tuple((re.compile(p, re.I), fix) for p, fix in (
    (r"command not found|no such file or directory|not found in path|errno 2\b|"
     r"filenotfounderror",
     "check the executor's command: give its full path (e.g. the interpreter `which python` "
     "names where the server's package is installed)"),
    (r"modulenotfounderror|importerror|no module named|cannot import",
     "install the module in the interpreter that runs the tool, or correct the executor's "
     "'module:function'"),
    (r"has no attribute|is not callable",
     "correct the function name in the executor's 'module:function'"),
    (r"no answer within|did not start within|timed out",
     "raise the executor's \"timeout\" (or --tool-timeout) or make the tool answer"),
    (r"permission denied", "make the command executable by this user"),
))


class ToolCannotRun(UserError):
    """A tool whose executions all failed the same way for want of something it needs."""


_VARYING = re.compile(r"0x[0-9a-f]+|\?[^\s)'\"]*|[0-9]+", re.I)


def _signature(obs: Observation) -> str:
    """What makes two failures the same: the type and the text without what varies from call
    to call (numbers such as pids and times, object addresses, a URL's query string)."""
    return f"{obs.error_type}:{_VARYING.sub('#', (obs.error or '')[:300])}"


def fix_for(obs: Observation) -> str:
    """The fix one line suggests for a failure that stops a tool."""
    text = f"{obs.error_type} {obs.error or ''}"
    for pattern, fix in _FIXES:
        if pattern.search(text):
            return fix
    return "run the tool by hand with these arguments to see why it fails"


@dataclass
class ToolHealth:
    """One tool's record of real executions (served-from-log answers are not counted)."""

    name: str
    ran: bool = False          # an execution ran (output, or the tool's own error)
    streak: int = 0            # identical environment failures in a row
    last: str | None = None

    def record(self, obs: Observation) -> None:
        if obs.ok or (obs.error_type or "") not in INFRA_TYPES:
            self.ran, self.streak, self.last = True, 0, None
            return
        sig = _signature(obs)
        self.streak = self.streak + 1 if sig == self.last else 1
        self.last = sig

    def check(self, obs: Observation, fail_after: int = FAIL_AFTER) -> None:
        """Raise :class:`ToolCannotRun` when ``obs`` makes ``fail_after`` identical failures of
        the environment in a row and nothing ever ran."""
        if self.ran or self.streak < fail_after:
            return
        why = " ".join(f"{obs.error_type}: {obs.error}".split())
        if len(why) > 240:
            why = why[:239] + "…"
        raise ToolCannotRun(f"cannot run tool {self.name!r}: {self.streak} executions failed "
                            f"the same way and none ran ({why}); fix: {fix_for(obs)}")
