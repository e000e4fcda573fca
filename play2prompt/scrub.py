"""The scrubber: what a tool said, made fit to publish.

Everything play2prompt publishes (``result.json``, ``tools.optimized.json``, every export, the
report, the answers of ``p2p serve`` and ``p2p mcp``) and every tool output or error text that
enters a doc or a demo goes through a :class:`Scrubber`. It replaces

- the run's own secrets, exactly: the values of the environment variables the tools file
  references as ``${NAME}``, the values given to executors in ``env`` mappings or with
  ``--env``, literal ``Authorization`` / API-key header values, passwords in URLs;
- anything shaped like a secret: bearer and basic credentials, ``sk-``/``ghp_``-style keys,
  AWS access keys, JSON web tokens, private-key blocks, ``password=...``-style assignments,
  credentials in URLs, and long hex or base64 tokens,

with :data:`REDACTED`, and bounds the length of a text (:meth:`Scrubber.text` with a limit).
The functions are pure: a scrubber holds its secrets and nothing else, so it can be built once
per run (:func:`for_tools`) and handed to whatever publishes.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

REDACTED = "[redacted]"
MIN_SECRET = 4          # shorter values are not treated as secrets (they would eat the text)

_ENV_REF = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
_SECRET_HEADER = re.compile(r"authorization|api[-_]?key|token|secret|password|cookie|auth",
                            re.I)
_AUTH_SCHEME = re.compile(r"^\s*(bearer|basic|token|digest|apikey)\s+", re.I)

_URL_CREDENTIALS = re.compile(r"\b([a-z][a-z0-9+.-]*://)([^\s/:@]+):([^\s/@]+)@", re.I)

# (pattern, replacement): the replacement keeps what names the secret, drops its value.
_PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----[A-Za-z0-9+/=\s\\]*"
                r"(?:-----END [A-Z ]*PRIVATE KEY-----)?"), REDACTED),
    (_URL_CREDENTIALS, rf"\1\2:{REDACTED}@"),
    (re.compile(r"\b(bearer)(\s+)[A-Za-z0-9._~+/=-]{8,}", re.I), rf"\1\2{REDACTED}"),
    (re.compile(r"\b(basic|token|digest)(\s+)(?=[A-Za-z0-9._~+/-]*[0-9=])[A-Za-z0-9._~+/=-]{8,}",
                re.I), rf"\1\2{REDACTED}"),
    (re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{4,}"), REDACTED),
    (re.compile(r"\b(?:sk|pk|rk)[-_](?:live[-_]|test[-_]|proj[-_]|ant[-_])?[A-Za-z0-9_-]{16,}"),
     REDACTED),
    (re.compile(r"\b(?:gh[pousr]_|github_pat_|glpat-|xox[abprs]-|hf_|AIza)[A-Za-z0-9_-]{16,}"),
     REDACTED),
    (re.compile(r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA)[0-9A-Z]{16}\b"), REDACTED),
    (re.compile(r"\b((?i:(?:[a-z0-9]+[_-])*(?:api[_-]?key|apikey|secret|passw(?:or)?d|pwd|"
                r"token|auth|access[_-]?token|auth[_-]?token|refresh[_-]?token|"
                r"client[_-]?secret|session[_-]?id|private[_-]?key|credentials?))"
                r"\b[\"']?\s*[:=]\s*[\"']?)"
                r"(?=[^\s\"',;&}]*[0-9])([^\s\"',;&}]{6,})"), rf"\1{REDACTED}"),
    (re.compile(r"\b[0-9a-fA-F]{32,}\b"), REDACTED),
)
_TOKENISH = re.compile(r"(?<![A-Za-z0-9_=-])[A-Za-z0-9_=-]{32,}(?![A-Za-z0-9_=-])")
_WORDISH = re.compile(r"[a-z]{7,}|[A-Z]?[a-z]{3,}[A-Z][a-z]{3,}")


def _looks_random(token: str) -> bool:
    """A long run of letters and digits that reads like a key, not like a word or a name."""
    if _WORDISH.search(token):
        return False
    classes = sum(bool(re.search(p, token)) for p in ("[a-z]", "[A-Z]", "[0-9]"))
    digits = sum(c.isdigit() for c in token)
    if classes < 3 and not (classes == 2 and digits >= 6 and not re.search("[A-Z]", token)):
        return False
    counts: dict[str, int] = {}
    for c in token:
        counts[c] = counts.get(c, 0) + 1
    entropy = -sum(n / len(token) * math.log2(n / len(token)) for n in counts.values())
    return entropy >= 4.0 and digits >= 3


def _tokens(text: str) -> str:
    return _TOKENISH.sub(lambda m: REDACTED if _looks_random(m.group(0)) else m.group(0), text)


@dataclass(frozen=True)
class Scrubber:
    """Replaces ``secrets`` (exact values) and secret-shaped text with :data:`REDACTED`."""

    secrets: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        forms = {f for s in self.secrets if len(s.strip()) >= MIN_SECRET
                 for f in (s.strip(), quote(s.strip(), safe=""))}
        # longest first, so a secret that contains another is replaced whole
        object.__setattr__(self, "secrets", tuple(sorted(forms, key=lambda s: (-len(s), s))))

    def text(self, s: str, limit: int | None = None) -> str:
        """``s`` without secrets, at most ``limit`` characters (then marked with its size)."""
        out = str(s)
        for secret in self.secrets:
            out = out.replace(secret, REDACTED)
        for pattern, replacement in _PATTERNS:
            out = pattern.sub(replacement, out)
        out = _tokens(out)
        return bound(out, limit)

    def value(self, obj: Any, limit: int | None = None) -> Any:
        """A JSON-like value with every string (keys included) scrubbed; ``limit`` bounds
        each string."""
        if isinstance(obj, str):
            return self.text(obj, limit)
        if isinstance(obj, Mapping):
            return {self.text(str(k)): self.value(v, limit) for k, v in obj.items()}
        if isinstance(obj, (list, tuple)):
            return [self.value(v, limit) for v in obj]
        return obj

    def merged(self, other: Scrubber | Iterable[str]) -> Scrubber:
        """A scrubber that knows both sets of secrets."""
        extra = other.secrets if isinstance(other, Scrubber) else tuple(other)
        return Scrubber((*self.secrets, *extra))


def bound(text: str, limit: int | None) -> str:
    """``text`` cut to ``limit`` characters, the cut marked with the full size."""
    if limit is None or len(text) <= limit:
        return text
    marker = f" ...[truncated: {len(text)} chars]"
    return text[:max(0, limit - len(marker))] + marker


def env_refs(obj: Any) -> list[str]:
    """The names of the environment variables an executor spec lets a tool see: referenced as
    ``${NAME}`` anywhere, or listed by name in an ``env`` list (a Python executor's)."""
    found: list[str] = []
    if isinstance(obj, str):
        found.extend(_ENV_REF.findall(obj))
    elif isinstance(obj, Mapping):
        for k, v in obj.items():
            if k == "env" and isinstance(v, (list, tuple)):
                found.extend(str(n) for n in v if isinstance(n, str))
            found.extend(env_refs(k))
            found.extend(env_refs(v))
    elif isinstance(obj, (list, tuple)):
        for v in obj:
            found.extend(env_refs(v))
    return list(dict.fromkeys(found))


def spec_secrets(spec: Any) -> list[str]:
    """Secrets written literally in an executor spec: header values that authenticate, values
    of ``env`` mappings, passwords in URLs (``${NAME}`` references are names, not secrets)."""
    found: list[str] = []
    if isinstance(spec, Mapping):
        for key, value in spec.items():
            if key == "headers" and isinstance(value, Mapping):
                found.extend(_header_value(v) for k, v in value.items()
                             if _SECRET_HEADER.search(str(k)) and isinstance(v, str))
            elif key == "env" and isinstance(value, Mapping):
                found.extend(str(v) for v in value.values() if isinstance(v, (str, int)))
            else:
                found.extend(spec_secrets(value))
    elif isinstance(spec, (list, tuple)):
        for v in spec:
            found.extend(spec_secrets(v))
    elif isinstance(spec, str):
        found.extend(m.group(3) for m in _URL_CREDENTIALS.finditer(spec))
    return [s for s in found if s and not _ENV_REF.fullmatch(s.strip())]


def _header_value(value: str) -> str:
    return _AUTH_SCHEME.sub("", _ENV_REF.sub("", value)).strip()


def for_specs(specs: Sequence[Any], environ: Mapping[str, str] | None = None,
              extra: Iterable[str] = ()) -> Scrubber:
    """The scrubber of a run whose tools have these executor specs: the values of the
    variables they reference (read from ``environ``, default the process environment), the
    secrets they hold literally, and ``extra`` values (e.g. ``--env``)."""
    env = os.environ if environ is None else environ
    values = [env[name] for name in env_refs(list(specs)) if env.get(name)]
    return Scrubber((*values, *spec_secrets(list(specs)), *extra))


def for_tools(tools: Iterable[Any], environ: Mapping[str, str] | None = None,
              extra: Iterable[str] = ()) -> Scrubber:
    """:func:`for_specs` over the executors of ``tools`` (:class:`~play2prompt.tools.Tool`)."""
    return for_specs([t.executor for t in tools if t.executor], environ, extra)
