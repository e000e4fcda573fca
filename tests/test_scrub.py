"""The scrubber: a run's own secrets and secret-shaped text never leave it; prose survives."""

import string

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from play2prompt.scrub import REDACTED, Scrubber, bound, env_refs, for_specs, spec_secrets
from tests.scrub_shapes import DATA, SECRETS

TOKEN = "tok_9f8e7d6c5b4a3210zz"


@pytest.mark.parametrize("text, secret", [
    ("denied for Bearer abcdefgh12345678", "abcdefgh12345678"),
    ("Authorization: Basic dXNlcjpwYXNzd29yZA==", "dXNlcjpwYXNzd29yZA=="),
    ("use key sk-proj-AbCdEfGhIjKlMnOp1234 please", "sk-proj-AbCdEfGhIjKlMnOp1234"),
    ("ghp_0123456789abcdefABCDEF0123456789abcd leaked", "ghp_0123456789abcdefABCDEF"),
    ("aws AKIAIOSFODNN7EXAMPLE id", "AKIAIOSFODNN7EXAMPLE"),
    ("jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N", "eyJhbGci"),
    ("GET https://bob:hunter22@api.example.com/v1", "hunter22"),
    ("config: password=hunter22, user=bob", "hunter22"),
    ('{"api_key": "k3y-value-123"}', "k3y-value-123"),
    ("-----BEGIN RSA PRIVATE KEY-----\nMIIEow1234\n-----END RSA PRIVATE KEY-----", "MIIEow"),
])
def test_secret_patterns_are_redacted(text, secret):
    out = Scrubber().text(text)
    assert secret not in out and REDACTED in out


@pytest.mark.parametrize("text", [
    "Converts a value from one unit to another; units are miles, km, ft.",
    "the access token identifier of the page",
    "Basic information about the city",
    "api_key: Optional[str] = None",
    "password: required, at least 8 characters",
    "get_current_weather_for_location_2 and ThisIsAVeryLongCamelCaseIdentifier42",
    "order_12345678_confirmation_code_x",
    "Rate as a percentage, e.g. 5.5 for 5.5 %",
    "0x" + "1f" * 40 + " (an integer of about 96 digits)",
])
def test_prose_is_left_alone(text):
    assert Scrubber().text(text) == text


def test_known_secrets_exact_and_url_quoted():
    s = Scrubber((TOKEN, "p@ss word!", "ab"))          # "ab" is too short to be a secret
    out = s.text(f"x={TOKEN} y=p@ss word! z=p%40ss%20word%21 about")
    assert TOKEN not in out and "p@ss word!" not in out and "p%40ss%20word%21" not in out
    assert out.endswith("about") and "ab" in out


def test_value_scrubs_keys_and_nested_strings_and_bounds():
    s = Scrubber((TOKEN,))
    data = {"msg": [f"Bearer {TOKEN}", {"deep": TOKEN}], TOKEN: 3, "n": 1.5, "ok": True}
    out = s.value(data)
    assert TOKEN not in repr(out) and out["n"] == 1.5 and out["ok"] is True
    assert len(s.value("x" * 500, 100)) == 100


def test_bound_marks_the_full_size():
    text = bound("y" * 5000, 200)
    assert len(text) == 200 and text.endswith("...[truncated: 5000 chars]")
    assert bound("short", 200) == "short" and bound("z" * 10, None) == "z" * 10


def test_secrets_of_executor_specs():
    specs = [
        {"http": {"url": "https://u:pw12345@h/x", "headers": {
            "Authorization": "Bearer ${MY_TOKEN}", "X-Api-Key": "literal-key-1",
            "Accept": "application/json"}}},
        {"mcp": {"command": "python", "env": {"KEY": "from-env-flag", "REF": "${OTHER}"}}},
        {"python": {"function": "tools.py:f", "env": ["LISTED"]}},
    ]
    assert env_refs(specs) == ["MY_TOKEN", "OTHER", "LISTED"]
    assert sorted(spec_secrets(specs)) == ["from-env-flag", "literal-key-1", "pw12345"]
    s = for_specs(specs, environ={"MY_TOKEN": TOKEN, "OTHER": "other-secret", "UNUSED": "zzzz",
                                  "LISTED": "listed-secret"})
    text = f"{TOKEN} other-secret from-env-flag literal-key-1 listed-secret zzzz text/plain"
    assert s.text(text) == " ".join([REDACTED] * 5) + " zzzz text/plain"


def test_merged_knows_both():
    s = Scrubber(("alpha-secret",)).merged(Scrubber(("beta-secret",))).merged(["gamma-secret"])
    assert s.text("alpha-secret beta-secret gamma-secret") == " ".join([REDACTED] * 3)


# scrub(scrub(x)) == scrub(x): texts made of the pieces the rules care about, the corpora's
# shapes, "[redacted]" itself and arbitrary text, in any order
_PIECES = st.sampled_from([
    REDACTED, "[redacted", "redacted]", "password", "PGPASSWORD", "token", "nextPageToken",
    "api_key", "client_secret", "session_id", "Authorization", "Bearer ", "Basic ", "token ",
    "curl -u ", "redis://", "https://", "bob", ":", "=", "@", '"', "'", " ", "\n", "[", "]",
    "/", ",", ";", "&", "-----BEGIN PRIVATE KEY-----", "-----END PRIVATE KEY-----", "Q~",
    "hunter22", "12345678", "sk-", "ghp_", "key-", TOKEN, *DATA[::3],
    *(text for _, text, _ in SECRETS[::2])])
_TEXTS = st.lists(st.one_of(_PIECES, st.text(max_size=12)), max_size=14).map("".join)
_SECRETS = st.lists(st.one_of(st.text(min_size=4, max_size=12), st.sampled_from(
    ["acted]", "[red", "hunter22", "password=x", TOKEN])), max_size=3)
_PROPERTY = settings(max_examples=400, deadline=None, database=None,
                     suppress_health_check=[HealthCheck.too_slow])


@_PROPERTY
@given(_TEXTS, _SECRETS)
def test_scrubbing_twice_changes_nothing(text, secrets):
    scrubber = Scrubber(tuple(secrets))
    once = scrubber.text(text)
    assert scrubber.text(once) == once


@_PROPERTY
@given(_TEXTS, st.integers(40, 200))
def test_scrubbing_twice_with_a_limit_changes_nothing(text, limit):
    once = Scrubber((TOKEN,)).text(text, limit)
    assert len(once) <= limit and Scrubber((TOKEN,)).text(once, limit) == once


@_PROPERTY
@given(st.dictionaries(_TEXTS, st.one_of(_TEXTS, st.integers(), st.lists(_TEXTS, max_size=3)),
                       max_size=4))
def test_scrubbing_a_value_twice_changes_nothing(value):
    once = Scrubber((TOKEN,)).value(value)
    assert Scrubber((TOKEN,)).value(once) == once


@_PROPERTY
@given(_TEXTS, st.text(alphabet=string.ascii_letters + string.digits + "-_.", min_size=8,
                       max_size=24), _TEXTS)
def test_a_known_secret_never_survives(before, secret, after):
    out = Scrubber((secret,)).text(before + secret + after)
    assert secret.lower() not in out.lower()


def test_redacted_twice_is_redacted_once():
    s = Scrubber()
    for text in ("password = hunter22", "secret=opensesame-plain", "token: abc123def",
                 "Server=db;Password=Tr0ub4dor&3;", '{"password": "x [redacted] y"}'):
        once = s.text(text)
        assert once.count(REDACTED) == 1 and s.text(once) == once and "]]" not in once


def test_a_cut_never_splits_a_redaction():
    text = "x" * 40 + REDACTED + "y" * 100
    for limit in range(60, 80):
        cut = bound(text, limit)
        assert len(cut) <= limit and "[redac" not in cut.replace(REDACTED, "")
        assert Scrubber().text(cut) == cut


def test_url_credentials_with_an_empty_user():
    assert spec_secrets({"url": "redis://:pw-12345@cache:6379/0"}) == ["pw-12345"]
    assert Scrubber().text("redis://:pw-12345@cache:6379/0") == f"redis://:{REDACTED}@cache:6379/0"
