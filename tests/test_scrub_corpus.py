"""A corpus of secret shapes (all redacted) and of data that looks a little like them (all left
as it was): the scrubber knows secrets from data (issue 29)."""

from __future__ import annotations

import base64
import json
import uuid

import pytest

from play2prompt.scrub import REDACTED, Scrubber

ENV_TOKEN = "run-env-Tok3n-9x8y7w"           # the run's own ${NAME} value
FLAG_SECRET = "from-env-flag-42"               # a value given with --env
RUN = Scrubber((ENV_TOKEN, FLAG_SECRET))

A36 = "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"   # 36 letters and digits, made up
B64_KEY = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzz9EXAMPLEKEY"

# (label, text, the secret part that must not survive)
SECRETS = [
    ("env value", f"denied for {ENV_TOKEN}", ENV_TOKEN),
    ("env value upper-cased", f"KEY IS {ENV_TOKEN.upper()}", ENV_TOKEN.upper()),
    ("env value lower-cased", f"key is {ENV_TOKEN.lower()}", ENV_TOKEN.lower()),
    ("env value base64", "b64 " + base64.b64encode(ENV_TOKEN.encode()).decode(),
     base64.b64encode(ENV_TOKEN.encode()).decode().rstrip("=")),
    ("env value url-quoted", "u=run-env-Tok3n-9x8y7w%21"[:-3], ENV_TOKEN),
    ("--env value", f"server said {FLAG_SECRET}", FLAG_SECRET),
    ("bearer header", "Authorization: Bearer abcDEF123456ghiJKL", "abcDEF123456ghiJKL"),
    ("basic header", "Authorization: Basic dXNlcjpzM2NyZXQ=", "dXNlcjpzM2NyZXQ="),
    ("authorization without scheme", '{"Authorization": "raw-token-value-77"}',
     "raw-token-value-77"),
    ("URL password", "GET https://bob:hunter22@api.example.com/v1", "hunter22"),
    ("URL password with @", "postgres://admin:p@ss@w0rd@db.internal:5432/app", "p@ss@w0rd"),
    ("password= without digits", "config: password=correcthorsebattery, user=bob",
     "correcthorsebattery"),
    ("secret=", "secret=opensesame-plain", "opensesame-plain"),
    ("aws_secret_access_key=", f"aws_secret_access_key={B64_KEY}", B64_KEY),
    ("JSON client_secret", '{"client_secret": "my client secret value"}',
     "my client secret value"),
    ("YAML db_password with digits", "db_password: s3cr3t-Pa55", "s3cr3t-Pa55"),
    ("connection string Password=", "Server=db;User Id=sa;Password=Tr0ub4dor&3;", "Tr0ub4dor"),
    ("RSA private key", "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7x\n"
     "-----END RSA PRIVATE KEY-----", "MIIEowIBAAKCAQEA7x"),
    ("OpenSSH private key", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAA\n"
     "-----END OPENSSH PRIVATE KEY-----", "b3BlbnNzaC1rZXktdjEAAAA"),
    ("PGP private key", "-----BEGIN PGP PRIVATE KEY BLOCK-----\nVersion: GnuPG v2\n\n"
     "lQOYBF9xkZ8BCADc3Qx\n=Ab1c\n-----END PGP PRIVATE KEY BLOCK-----", "lQOYBF9xkZ8BCADc3Qx"),
    ("private key cut short", '{"private_key": "-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADAN',
     "MIIEvQIBADAN"),
    ("OpenAI key", "sk-" + A36 + "xyz", "sk-" + A36),
    ("OpenAI project key", "sk-proj-" + A36, A36),
    ("Anthropic key", "sk-ant-api03-" + A36 + "-AA", A36),
    ("Stripe live key", "sk_live_" + A36[:24], A36[:24]),
    ("Stripe restricted key", "rk_live_" + A36[:24], A36[:24]),
    ("GitHub token", "token ghp_" + A36, A36),
    ("GitHub fine-grained token", "github_pat_11ABCDEFG0" + A36 + "_" + A36, A36),
    ("GitHub OAuth token", "gho_" + A36, A36),
    ("GitLab token", "glpat-" + A36[:20], A36[:20]),
    ("GitLab runner token", "runner glrt-" + A36[:20], A36[:20]),
    ("GitLab runner registration token", "GR1348941" + A36[:20], A36[:20]),
    ("Discord bot token", "MTA1NzY4Mzk5NjQ4Mjc4MzI3Mg.GbX9zQ." + A36[:27], "GbX9zQ"),
    ("Slack bot token", "xoxb-1234567890-0987654321-" + A36[:24], A36[:24]),
    ("Slack webhook", "https://hooks.slack.com/services/T0000AAAA/B0000BBBB/" + A36[:24],
     A36[:24]),
    ("AWS access key id", "aws AKIAIOSFODNN7EXAMPLE id", "AKIAIOSFODNN7EXAMPLE"),
    ("AWS key id, other prefix", "id ABIAIOSFODNN7EXAMPLE", "ABIAIOSFODNN7EXAMPLE"),
    ("Google API key", "key=AIza" + A36[:35], A36[:35]),
    ("Google OAuth token", "ya29." + A36 + "_x", A36),
    ("Hugging Face token", "hf_" + A36[:34], A36[:34]),
    ("npm token", "npm_" + A36, A36),
    ("PyPI token", "pypi-AgEIcHlwaS5vcmc" + A36 + A36[:20], A36),
    ("SendGrid key", "SG." + A36[:22] + "." + A36[:30], A36[:22]),
    ("Twilio API key", "SK0123456789abcdef0123456789abcdef", "SK0123456789abcdef"),
    ("Mailchimp key", "0123456789abcdef0123456789abcdef-us14", "0123456789abcdef-us14"),
    ("Telegram bot token", "bot123456789:AA" + A36[:33], A36[:33]),
    ("JSON web token", "jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0."
     "dozjgNryP4J3jVmNHl0w5N", "dozjgNryP4J3jVmNHl0w5N"),
    ("random token alone", "random aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z here",
     "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z"),
    ("base64 of a secret assignment", "blob " + base64.b64encode(
        b"password=correcthorsebattery").decode(), "cGFzc3dvcmQ9"),
]

SHA256 = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
NON_SECRETS = [
    "commit 3f786850e387550fdab836ed7e6dc881de23001b",
    "Commit: 3F786850E387550FDAB836ED7E6DC881DE23001B\nAuthor: Alice <alice@example.com>",
    f"sha256:{SHA256}",
    f"checksum {SHA256} file.tar.gz",
    "md5 d41d8cd98f00b204e9800998ecf8427e",
    "sha512 " + "cf83e1357eefb8bdf1542850d66d8007d620e4050b5715dc83f4a921d36ce9ce" * 2,
    "integrity sha384-oqVuAfXRKap7fdgcCY5uykM6+R9GqQ8K/uxy9rx7HNQlGYl1kPzQho1wx4JwY8wC",
    str(uuid.UUID("123e4567-e89b-12d3-a456-426614174000")),
    "id 6F9619FF-8B86-D011-B42D-00C04FC964FF",
    "uuid=" + str(uuid.UUID(int=0x1234567890ABCDEF1234567890ABCDEF)),
    "ORD-2024-000123 and order_8f3a2b1c9d0e",
    "charge ch_3MqLiJLkdIwHu7ix0snN0B15 for customer cus_NffrFeUfNV2Hib",
    "payload " + base64.b64encode(b"Hello, world! This is an ordinary payload.").decode(),
    "data " + base64.b64encode(json.dumps({"city": "Paris", "population": 2102650,
                                            "tags": ["capital", "france"]}).encode()).decode(),
    "url " + base64.urlsafe_b64encode(b"https://example.com/some/long/path?q=1").decode(),
    "https://api.example.com/v1/users?page=2&per_page=50",
    "ssh://git@github.com/org/repo.git or git@github.com:org/repo.git",
    "mail alice@example.com",
    "password: required, at least 8 characters",
    "api_key: Optional[str] = None",
    "token_count=128 max_tokens=256",
    '{"next_page_token": null, "auth": "required"}',
    "2024-03-05T15:30:00+00:00 at 192.168.0.12",
    "0x" + "1f" * 40 + " (an integer of about 96 digits)",
    "get_current_weather_for_location_2 and ThisIsAVeryLongCamelCaseIdentifier42",
    "docker pull python@sha256:" + SHA256,
    "git log --format=%H abc1234",
]


def test_corpus_is_large_enough():
    assert len({label for label, _, _ in SECRETS}) >= 31 and len(NON_SECRETS) >= 20


@pytest.mark.parametrize("label, text, secret", SECRETS, ids=[s[0] for s in SECRETS])
def test_every_secret_shape_is_redacted(label, text, secret):
    out = RUN.text(text)
    assert secret not in out and secret.lower() not in out.lower(), out
    assert REDACTED in out


@pytest.mark.parametrize("text", NON_SECRETS)
def test_data_is_left_as_it_was(text):
    assert RUN.text(text) == text


def test_values_keep_data_and_lose_secrets():
    output = {"commit": "3f786850e387550fdab836ed7e6dc881de23001b",
              "id": "123e4567-e89b-12d3-a456-426614174000",
              "note": f"token {ENV_TOKEN.upper()}"}
    out = RUN.value(output)
    assert out["commit"] == output["commit"] and out["id"] == output["id"]
    assert ENV_TOKEN.upper() not in out["note"]
