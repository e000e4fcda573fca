"""The scrubber: what a tool said, made fit to publish, and otherwise left as it was.

Everything play2prompt publishes (``result.json``, ``tools.optimized.json``, every export, the
report, the answers of ``p2p serve`` and ``p2p mcp``) and every tool output or error text that
enters a doc or a demo goes through a :class:`Scrubber`. It replaces with :data:`REDACTED` what
is known to be secret:

- the run's own secrets: the values of the environment variables the tools file references as
  ``${NAME}``, the values given to executors in ``env`` mappings or with ``--env``, literal
  ``Authorization`` / API-key header values, passwords in URLs; each in any letter case,
  URL-quoted and base64-encoded too;
- credentials by their place: ``Authorization`` values, bearer/basic credentials, the password
  of a URL (``@`` in it included), ``password=``/``secret=``/``aws_secret_access_key=``-style
  assignments (``:`` needs a value that is not a plain word, so prose survives), private-key
  blocks (PEM, OpenSSH, PGP);
- keys by their format: a known prefix (``sk-``, ``sk-ant-``, ``sk_live_``, ``ghp_``,
  ``github_pat_``, ``glpat-`` and GitLab's other tokens, ``xoxb-``, ``AKIA``, ``AIza``,
  ``ya29.``, ``hf_``, ``npm_``, ``pypi-``, ``SG.``, ...), JSON web tokens, Discord bot tokens,
  Slack webhooks; and a lone long token that reads as random (three character classes, high
  entropy). detect-secrets' format plugins were the checklist (docs/design.md says which of its
  rules are left out, and why).

Data is left intact: hexadecimal strings (git commits, sha256 digests, MD5s), UUIDs, ids, and
base64 that decodes to text (unless that text holds a secret). :meth:`Scrubber.text` with a
limit also bounds the length of a text. The functions are pure: a scrubber holds its secrets and
nothing else, so it can be built once per run (:func:`for_tools`) and handed to whatever
publishes.
"""

from __future__ import annotations

import base64
import binascii
import math
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

REDACTED = "[redacted]"
MIN_SECRET = 4          # shorter values are not treated as secrets (they would eat the text)

_ENV_REF = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
_SECRET_HEADER = re.compile(r"authorization|api[-_]?key|token|secret|password|cookie|auth",
                            re.I)
_AUTH_SCHEME = re.compile(r"^\s*(bearer|basic|token|digest|apikey)\s+", re.I)

# scheme://user:password@host: the password runs to the last "@" before the path, so a
# password holding "@" is caught whole
_URL_CREDENTIALS = re.compile(r"\b([a-z][a-z0-9+.-]*://)([^\s/:@]+):([^\s/]+)@(?=[^\s@/]+)",
                              re.I)

# names whose value is a secret whatever it looks like (after "=" or in quotes)
_STRONG = (r"passw(?:or)?d|pwd|passphrase|secret(?:[_-]?(?:access[_-]?)?key)?|"
           r"client[_-]?secret|private[_-]?key|api[_-]?key|apikey|access[_-]?key|"
           r"account[_-]?key|authorization|auth[_-]?token|access[_-]?token|refresh[_-]?token|"
           r"credentials?")
# names whose value is a secret when it does not read as a word
_WEAK = r"token|auth|session[_-]?id|sessionid|cookie"
_KEY = r"\b((?i:(?:[a-z0-9]+[_-])*(?:{names}))\b[\"']?\s*{sep}\s*{quote})"
_PLACEHOLDER = re.compile(r"(?i)none|null|nil|true|false|undefined|required|optional|string|"
                          r"str|\*+|x+|\.\.\.|<[^>]*>|\$\{[^}]*\}|\[redacted\]")
_UNQUOTED = r"[^\s\"',;&}<>)\]]"


def _assignment(names: str, sep: str, value: str, quote: str = "") -> re.Pattern[str]:
    return re.compile(_KEY.format(names=names, sep=sep, quote=quote) + value)


# group 1: the name and what follows it, kept; group 2: the value, redacted
_ASSIGNMENTS: tuple[re.Pattern[str], ...] = (
    _assignment(_STRONG, "[:=]", r"([^\"\n]{4,})(?=\")", '"'),       # "password": "value"
    _assignment(_STRONG, "[:=]", r"([^'\n]{4,})(?=')", "'"),
    _assignment(_STRONG, "=", rf"({_UNQUOTED}{{4,}})"),              # password=value
    _assignment(_STRONG + "|" + _WEAK, "[:=]",                        # token: v4lue
                rf"(?={_UNQUOTED}*[0-9])({_UNQUOTED}{{6,}})", "[\"']?"),
)

_KEY_PREFIXES = (
    r"sk-ant-(?:api|admin)\d\d-[A-Za-z0-9_-]{20,}",
    r"(?:sk|pk|rk)[-_](?:live[-_]|test[-_]|proj[-_]|svcacct[-_]|None[-_])?[A-Za-z0-9_-]{16,}",
    r"gh[pousr]_[A-Za-z0-9]{20,}", r"github_pat_[A-Za-z0-9_]{20,}",
    r"gl(?:pat|dt|ft|soat|rt|cbt|imt|ptt|agent|oas)-[A-Za-z0-9_-]{16,}",
    r"GR1348941[A-Za-z0-9_-]{20,}",
    r"xox[abposr]-[A-Za-z0-9-]{10,}", r"xapp-[0-9]-[A-Za-z0-9-]{10,}",
    r"(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA|ABIA|ACCA|A3T[A-Z0-9])[0-9A-Z]{16}",
    r"AIza[0-9A-Za-z_-]{35}", r"ya29\.[0-9A-Za-z_-]{20,}", r"hf_[A-Za-z0-9]{20,}",
    r"npm_[A-Za-z0-9]{36}", r"pypi-[A-Za-z0-9_-]{50,}",
    r"SG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}",
    r"SK[0-9a-fA-F]{32}", r"[0-9a-f]{32}-us[0-9]{1,2}", r"dop_v1_[a-f0-9]{64}",
    r"shp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}", r"sq0(?:atp|csp)-[0-9A-Za-z_-]{22,}",
    r"[0-9]{8,10}:AA[0-9A-Za-z_-]{33}",
    r"[MNO][A-Za-z0-9_-]{23,25}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,38}",   # Discord bot
    r"eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{4,}",
)

# (pattern, replacement): the replacement keeps what names the secret, drops its value.
_PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"-----BEGIN ([A-Z0-9 ]*)PRIVATE KEY( BLOCK)?-----[\s\S]*?"
                r"(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|\Z)"), REDACTED),
    (_URL_CREDENTIALS, rf"\1\2:{REDACTED}@"),
    (re.compile(r"https://hooks\.slack\.com/services/[A-Za-z0-9/_-]+"), REDACTED),
    (re.compile(r"\b(bearer)(\s+)[A-Za-z0-9._~+/=-]{8,}", re.I), rf"\1\2{REDACTED}"),
    (re.compile(r"\b(basic|token|digest)(\s+)(?=[A-Za-z0-9._~+/-]*[0-9=])[A-Za-z0-9._~+/=-]{8,}",
                re.I), rf"\1\2{REDACTED}"),
    (re.compile(r"(?<![A-Za-z0-9_-])(?:" + "|".join(_KEY_PREFIXES) + r")(?![A-Za-z0-9_-])"),
     REDACTED),
)

_CANDIDATE = re.compile(r"(?<![A-Za-z0-9_+/-])[A-Za-z0-9_+/-]{32,}={0,2}(?![A-Za-z0-9_+/=-])")
_WORDISH = re.compile(r"[a-z]{7,}|[A-Z]?[a-z]{3,}[A-Z][a-z]{3,}")
_HEXISH = re.compile(r"[0-9a-fA-F-]+")           # hashes, UUIDs: data
_DIGEST_LABEL = re.compile(r"(?i)(?:sha(?:1|224|256|384|512)|md5|blake2[bs]?)[-:=]")
_LABEL_BEFORE = re.compile(_DIGEST_LABEL.pattern + "$")
PAYLOAD = 200            # a base64 run longer than this is a payload, not a key


def _entropy(token: str) -> float:
    counts: dict[str, int] = {}
    for c in token:
        counts[c] = counts.get(c, 0) + 1
    return -sum(n / len(token) * math.log2(n / len(token)) for n in counts.values())


def _looks_random(token: str) -> bool:
    """A long run of letters and digits that reads like a key, not like a word, a name, a
    hash or a UUID."""
    if _HEXISH.fullmatch(token) or _WORDISH.search(token):
        return False
    classes = sum(bool(re.search(p, token)) for p in ("[a-z]", "[A-Z]", "[0-9]"))
    digits = sum(c.isdigit() for c in token)
    if classes < 3 and not (classes == 2 and digits >= 6 and not re.search("[A-Z]", token)):
        return False
    return _entropy(token) >= 4.0 and digits >= 3


def _decoded_text(token: str) -> str | None:
    """The text a base64 token encodes, or None when it encodes no text."""
    body = token.rstrip("=")
    if len(body) % 4 == 1:
        return None
    padded = body + "=" * (-len(body) % 4)
    try:
        raw = base64.urlsafe_b64decode(padded) if re.search("[-_]", body) else \
            base64.b64decode(padded, validate=True)
        text = raw.decode("utf-8")
    except (binascii.Error, ValueError):
        return None
    printable = sum(c.isprintable() or c in "\n\r\t" for c in text)
    return text if text and printable >= 0.95 * len(text) else None


def _secret_forms(secret: str) -> set[str]:
    """The forms a secret may take in text: as is (any case), URL-quoted, base64 (standard
    and URL-safe, padded or not)."""
    forms = {secret, quote(secret, safe="")}
    for enc in (base64.b64encode, base64.urlsafe_b64encode):
        b64 = enc(secret.encode()).decode()
        forms.update({b64, b64.rstrip("=")})
    return forms


@dataclass(frozen=True)
class Scrubber:
    """Replaces ``secrets`` (exact values, in their usual encodings) and what is known to be
    secret with :data:`REDACTED`."""

    secrets: tuple[str, ...] = ()
    _known: re.Pattern[str] | None = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        values = {s.strip() for s in self.secrets if len(s.strip()) >= MIN_SECRET}
        # longest first, so a secret that contains another is replaced whole
        object.__setattr__(self, "secrets", tuple(sorted(values, key=lambda s: (-len(s), s))))
        forms = sorted({f for s in values for f in _secret_forms(s)}, key=lambda s: (-len(s), s))
        pattern = re.compile("|".join(map(re.escape, forms)), re.I) if forms else None
        object.__setattr__(self, "_known", pattern)

    def text(self, s: str, limit: int | None = None) -> str:
        """``s`` without secrets, at most ``limit`` characters (then marked with its size)."""
        out = str(s)
        if self._known is not None:
            out = self._known.sub(REDACTED, out)
        for pattern, replacement in _PATTERNS:
            out = pattern.sub(replacement, out)
        for assignment in _ASSIGNMENTS:
            out = assignment.sub(_keep_placeholder, out)
        out = _CANDIDATE.sub(self._token, out)
        return bound(out, limit)

    def _token(self, match: re.Match[str]) -> str:
        """A long base64-ish run: kept when it is data (text in base64, a labelled digest, a
        long payload), redacted when it reads as a random key."""
        token = match.group(0)
        decoded = _decoded_text(token)
        if decoded is not None:
            return token if self.text(decoded) == decoded else REDACTED
        before = match.string[max(0, match.start() - 8):match.start()]
        if len(token) > PAYLOAD or _LABEL_BEFORE.search(before) or \
                _DIGEST_LABEL.match(token):
            return token
        pieces = [p for p in re.split(r"[+/]", token) if len(p) >= 32] or [token]
        return REDACTED if any(_looks_random(p) for p in pieces) else token

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


def _keep_placeholder(match: re.Match[str]) -> str:
    """An assignment with its value redacted, unless the value is a placeholder."""
    value = match.group(2)
    if _PLACEHOLDER.fullmatch(value.strip()) or REDACTED in value:
        return match.group(0)
    start, end = match.span(2)
    whole = match.group(0)
    offset = match.start(0)
    return whole[:start - offset] + REDACTED + whole[end - offset:]


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
