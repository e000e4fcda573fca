"""The scrubber: a run's own secrets and secret-shaped text never leave it; prose survives."""

import pytest

from play2prompt.scrub import REDACTED, Scrubber, bound, env_refs, for_specs, spec_secrets

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
    ("digest 0123456789abcdef0123456789abcdef0123 ok", "0123456789abcdef0123456789abcdef"),
    ("random aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z here", "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z"),
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
