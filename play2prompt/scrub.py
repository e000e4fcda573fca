"""The scrubber: what a tool said, made fit to publish, and otherwise left as it was.

Everything play2prompt publishes (``result.json``, ``tools.optimized.json``, every export, the
report, the answers of ``p2p serve`` and ``p2p mcp``) and every tool output or error text that
enters a doc or a demo goes through a :class:`Scrubber`. It replaces with :data:`REDACTED` what
is known to be secret, and nothing else:

- the run's own secrets: the values of the environment variables the tools file references as
  ``${NAME}``, the values given to executors in ``env`` mappings or with ``--env``, literal
  ``Authorization`` / API-key header values, passwords in URLs; each in any letter case,
  URL-quoted and base64-encoded too;
- credentials by their place: bearer/basic/token credentials, the password of a URL (an empty
  user and ``@`` in the password included), ``curl -u user:password``, the value of a name
  that says secret (``password=``, ``"client_secret": "..."``, ``awsSecretAccessKey``,
  ``PGPASSWORD=``; after ``:`` a value that is not a plain word, so prose survives; a weaker
  name such as ``token`` or ``session_id`` only with letters and digits, so
  ``token: 12345678`` and a ``nextPageToken`` are data), private-key blocks (PEM, OpenSSH,
  PGP), base64 whose text holds any of these;
- keys by their provider's format: a known prefix (``sk-``, ``sk-ant-``, ``sk_live_``,
  ``ghp_``, ``github_pat_``, ``glpat-``, ``xoxb-``, ``AKIA``, ``AIza``, ``ya29.``, ``hf_``,
  ``npm_``, ``pypi-``, ``SG.``, Mailgun's ``key-``, ``hvs.``, ...), JSON web tokens, Discord
  bot tokens, Slack webhooks. detect-secrets' plugins and gitleaks' rules were the checklist
  (docs/design.md says where these rules differ, and why).

Never by entropy or length alone: a random-looking token with no provider format and no name
that says secret is data (digests in hex and base64, UUIDs inside names, content ids, wallet
addresses, ids, short base64 binary, public keys), unless it is one of the run's own secrets.
Scrubbing is idempotent (``text(text(s)) == text(s)``): a pass runs again until nothing
changes, and a value already ``[redacted]`` is one unit no rule takes apart.
:meth:`Scrubber.text` with a limit also bounds the length of a text. The functions are pure: a
scrubber holds its secrets and nothing else, so it can be built once per run
(:func:`for_tools`) and handed to whatever publishes.
"""

from __future__ import annotations

import base64
import binascii
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

REDACTED = "[redacted]"
MIN_SECRET = 4          # shorter values are not treated as secrets (they would eat the text)
PASSES = 4              # a text is scrubbed again until it stays as it is, at most this often

_ATOM = re.escape(REDACTED)
_ENV_REF = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
_SECRET_HEADER = re.compile(r"authorization|api[-_]?key|token|secret|password|cookie|auth",
                            re.I)
_AUTH_SCHEME = re.compile(r"^\s*(bearer|basic|token|digest|apikey)\s+", re.I)

# scheme://user:password@host, the user possibly empty (redis://:pw@host): the password runs
# to the last "@" before the path, so a password holding "@" is caught whole
_URL_CREDENTIALS = re.compile(r"\b([a-z][a-z0-9+.-]{0,30}://)([^\s/:@]*):([^\s/]+)@(?=[^\s@/]+)",
                              re.I)

# names whose value is a secret whatever it looks like (after "=" or in quotes)
_STRONG = (r"passw(?:or)?d|pwd|passphrase|secret(?:[_-]?(?:access[_-]?)?key)?|"
           r"client[_-]?secret|private[_-]?key|api[_-]?key|apikey|access[_-]?key|"
           r"account[_-]?key|authorization|auth[_-]?token|access[_-]?token|refresh[_-]?token|"
           r"credentials?")
# names whose value is a secret when it holds letters and digits
_WEAK = r"token|auth|session[_-]?id|sessionid|cookie"
# a weak name that names a page of results, not a credential
_PAGING = re.compile(r"(?i)(?:next|page|continuation|cursor|sync|resume)[_.-]?$")
# the name where a name ends (whatever is glued before it: PGPASSWORD, awsSecretAccessKey,
# MYSQL_ROOT_PASSWORD), what follows it, then the value
_KEY = r"((?i:{names})\b[\"']?\s*{sep}\s*{quote})"
_PLACEHOLDER = re.compile(r"(?i)none|null|nil|true|false|undefined|required|optional|string|"
                          r"str|\*+|x+|\.\.\.|<[^>]*>|\$\{[^}]*\}")
_ONLY_REDACTED = re.compile(rf"(?:\s*{_ATOM})+\s*")
# one unit of an unquoted value: "[redacted]" whole, or a character that ends no value
_UNQUOTED = rf"(?:{_ATOM}|(?!{_ATOM})[^\s\"',;&}}<>)\]])"
_AHEAD = rf"{_UNQUOTED}{{0,256}}"      # how far a value is read for a digit (bounded: linear)


def _assignment(names: str, sep: str, value: str, quote: str = "") -> re.Pattern[str]:
    return re.compile(_KEY.format(names=names, sep=sep, quote=quote) + value)


# group 1: the name and what follows it, kept; group 2: the value, redacted
_ASSIGNMENTS: tuple[re.Pattern[str], ...] = (
    _assignment(_STRONG, "[:=]", r"([^\"\n]{4,})(?=\")", '"'),       # "password": "value"
    _assignment(_STRONG, "[:=]", r"([^'\n]{4,})(?=')", "'"),
    _assignment(_STRONG, "=", rf"({_UNQUOTED}{{4,}})"),              # password=value
    _assignment(_STRONG, ":", rf"(?={_AHEAD}[0-9])({_UNQUOTED}{{6,}})", "[\"']?"),
)
_NAMES = re.compile(rf"(?i:{_STRONG}|{_WEAK})\b")
# token: v4lue, session_id=ab12...: letters and digits both (a number is data)
_WEAK_ASSIGNMENT = _assignment(_WEAK, "[:=]", rf"(?={_AHEAD}[0-9])(?={_AHEAD}[A-Za-z])"
                                             rf"({_UNQUOTED}{{6,}})", "[\"']?")

# providers' key formats (gitleaks' and detect-secrets' rules, read, not copied)
_KEY_PREFIXES = (
    r"sk-ant-(?:api|admin)\d\d-[A-Za-z0-9_-]{20,}",
    r"(?:sk|pk|rk)[-_](?:live[-_]|test[-_]|proj[-_]|svcacct[-_]|admin[-_]|None[-_])?"
    r"(?=[A-Za-z_-]*[0-9])[A-Za-z0-9_-]{16,}",
    r"whsec_[A-Za-z0-9+/]{24,}={0,2}", r"GOCSPX-[A-Za-z0-9_-]{24,}",
    r"gh[pousr]_[A-Za-z0-9]{20,}", r"github_pat_[A-Za-z0-9_]{20,}",
    r"gl(?:pat|dt|ft|soat|rt|cbt|imt|ptt|agent|oas|ffct)-[A-Za-z0-9_-]{16,}",
    r"GR1348941[A-Za-z0-9_-]{20,}", r"glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}",
    r"glc_[A-Za-z0-9+/]{32,}={0,3}",
    r"xox[abposre]-[A-Za-z0-9-]{10,}", r"xapp-[0-9]-[A-Za-z0-9-]{10,}",
    r"(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA|ABIA|ACCA|A3T[A-Z0-9])[0-9A-Z]{16}",
    r"LTAI[A-Za-z0-9]{20}",
    r"AIza[0-9A-Za-z_-]{35}", r"ya29\.[0-9A-Za-z_-]{20,}", r"hf_[A-Za-z0-9]{20,}",
    r"npm_[A-Za-z0-9]{36}", r"pypi-[A-Za-z0-9_-]{50,}",
    r"SG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}",
    r"SK[0-9a-fA-F]{32}", r"[0-9a-f]{32}-us[0-9]{1,2}", r"key-[0-9a-f]{32}",
    r"do[opr]_v1_[a-f0-9]{64}", r"dapi[a-f0-9]{32}(?:-[0-9])?",
    r"shp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}", r"sq0(?:atp|csp)-[0-9A-Za-z_-]{22,}",
    r"EAAA[A-Za-z0-9_-]{22,60}", r"EAA[MC][A-Za-z0-9]{100,}",
    r"hv[sb]\.[A-Za-z0-9_-]{24,}", r"AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}",
    r"lin_api_[A-Za-z0-9]{40}", r"pplx-[A-Za-z0-9]{48}", r"HRKU-AA[0-9A-Za-z_-]{58}",
    r"PMAK-[A-Fa-f0-9]{24}-[A-Fa-f0-9]{34}", r"sntryu_[a-f0-9]{64}",
    r"sntrys_eyJ[A-Za-z0-9+/=_]{40,}", r"ntn_[0-9]{11}[A-Za-z0-9]{35}",
    r"[A-Za-z0-9_~.]{3}[0-9]Q~[A-Za-z0-9_~.-]{31,34}",                  # Azure AD secret
    r"xkeysib-[a-f0-9]{64}-[A-Za-z0-9]{16}", r"pscale_(?:tkn|pw|oauth)_[A-Za-z0-9_=.-]{32,64}",
    r"pul-[a-f0-9]{40}", r"rubygems_[a-f0-9]{48}", r"dp\.pt\.[A-Za-z0-9]{43}",
    r"dt0c01\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{64}", r"EZ[AT]K[A-Za-z0-9]{54}",
    r"pnu_[A-Za-z0-9]{36}", r"rdme_[a-z0-9]{70}", r"shippo_(?:live|test)_[a-fA-F0-9]{40}",
    r"duffel_(?:test|live)_[A-Za-z0-9_=-]{43}", r"FLWSECK(?:_TEST)?-[a-hA-H0-9]{32}-X",
    r"CLOJARS_[A-Za-z0-9]{60}", r"AKCp[A-Za-z0-9]{69}", r"cmVmd[A-Za-z0-9]{59}",
    r"ops_eyJ[A-Za-z0-9+/]{250,}={0,3}", r"[A-Za-z0-9]{6}_[A-Za-z0-9]{29}_mmk",
    r"sha256~[A-Za-z0-9_-]{43}",                                        # OpenShift token
    r"(?:bot)?[0-9]{8,10}:AA[0-9A-Za-z_-]{33}",                          # Telegram bot
    r"[MNO][A-Za-z0-9_-]{23,25}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,38}",   # Discord bot
    r"eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{4,}",
)
_CREDENTIAL = r"[A-Za-z0-9._~+/=-]"
# (pattern, replacement): the replacement keeps what names the secret, drops its value.
_PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"-----BEGIN ([A-Z0-9 ]*)PRIVATE KEY( BLOCK)?-----[\s\S]*?"
                r"(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|\Z)"), REDACTED),
    (_URL_CREDENTIALS, rf"\1\2:{REDACTED}@"),
    (re.compile(r"(\bcurl\b[^\n]{0,500}?\s(?:-u|--user)[ =]+[\"']?[^\s:\"']*:)"
                rf"(?!{_ATOM})[^\s\"']+"), rf"\1{REDACTED}"),
    (re.compile(r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9/_-]+"),
     REDACTED),
    # a credential after its scheme: not a plain word ("bearer authentication" is prose)
    (re.compile(rf"\b(bearer)(\s+)(?={_CREDENTIAL}*[0-9._~+/=-]){_CREDENTIAL}{{8,}}", re.I),
     rf"\1\2{REDACTED}"),
    # and not a number ("token 20240501")
    (re.compile(rf"\b(basic|token)(\s+)(?={_CREDENTIAL}*[0-9=])(?={_CREDENTIAL}*[A-Za-z])"
                rf"{_CREDENTIAL}{{8,}}", re.I), rf"\1\2{REDACTED}"),
    (re.compile(r"(?<![A-Za-z0-9_-])(?:" + "|".join(_KEY_PREFIXES) + r")(?![A-Za-z0-9_-])"),
     REDACTED),
)

# a run of base64: redacted only when the text it encodes holds a secret
_CANDIDATE = re.compile(r"(?<![A-Za-z0-9_+/-])[A-Za-z0-9_+/-]{32,}={0,2}(?![A-Za-z0-9_+/=-])")


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
        # "[redacted]" among them, so a secret found inside it is not redacted again
        forms = sorted({REDACTED, *(f for s in values for f in _secret_forms(s))},
                       key=lambda s: (-len(s), s != REDACTED, s))
        pattern = re.compile("|".join(map(re.escape, forms)), re.I) if values else None
        object.__setattr__(self, "_known", pattern)

    def text(self, s: str, limit: int | None = None) -> str:
        """``s`` without secrets, at most ``limit`` characters (then marked with its size)."""
        out = self._scrubbed(str(s))
        for _ in range(PASSES):
            cut = bound(out, limit)
            if cut == out:
                return out
            out = self._scrubbed(cut)     # a cut may end where a key's format now ends
        return bound(out, limit)

    def _scrubbed(self, text: str) -> str:
        """``text`` scrubbed until a pass changes nothing: what one rule's redaction reveals
        to another is caught, and scrubbing the result again leaves it as it is."""
        for _ in range(PASSES):
            out = self._pass(text)
            if out == text:
                break
            text = out
        return text

    def _pass(self, text: str) -> str:
        out = text
        if self._known is not None:
            out = self._known.sub(REDACTED, out)
        for pattern, replacement in _PATTERNS:
            out = pattern.sub(replacement, out)
        if _NAMES.search(out):                       # one scan where no name is
            for assignment in _ASSIGNMENTS:
                out = assignment.sub(_redact_value, out)
            out = _WEAK_ASSIGNMENT.sub(_redact_weak_value, out)
        return _CANDIDATE.sub(self._token, out)

    def _token(self, match: re.Match[str]) -> str:
        """A run of base64: redacted when the text it encodes holds a secret, else data."""
        token = match.group(0)
        decoded = _decoded_text(token)
        if decoded is not None and self._scrubbed(decoded) != decoded:
            return REDACTED
        return token

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


def _redact_value(match: re.Match[str]) -> str:
    """An assignment with its value redacted, unless the value is a placeholder or is
    redacted already."""
    value = match.group(2)
    if _PLACEHOLDER.fullmatch(value.strip()) or _ONLY_REDACTED.fullmatch(value):
        return match.group(0)
    start, end = match.span(2)
    whole = match.group(0)
    offset = match.start(0)
    return whole[:start - offset] + REDACTED + whole[end - offset:]


def _redact_weak_value(match: re.Match[str]) -> str:
    """:func:`_redact_value` for a weak name, unless it names a page (``nextPageToken``)."""
    before = match.string[max(0, match.start() - 16):match.start()]
    return match.group(0) if _PAGING.search(before) else _redact_value(match)


def bound(text: str, limit: int | None) -> str:
    """``text`` cut to ``limit`` characters, the cut marked with the full size; a cut never
    splits a ``[redacted]``."""
    if limit is None or len(text) <= limit:
        return text
    marker = f" ...[truncated: {len(text)} chars]"
    cut = max(0, limit - len(marker))
    opened = text.rfind(REDACTED[0], max(0, cut - len(REDACTED) + 1), cut)
    if opened >= 0 and text.startswith(REDACTED, opened) and opened + len(REDACTED) > cut:
        cut = opened
    return text[:cut] + marker


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
