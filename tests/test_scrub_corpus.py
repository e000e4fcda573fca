"""The scrubber against its two corpora (tests/scrub_shapes.py): every secret shape redacted,
every data shape left exactly as it was, and both as they were when scrubbed again (issues 29
and 71)."""

from __future__ import annotations

import pytest

from play2prompt.scrub import REDACTED, Scrubber
from tests.scrub_shapes import DATA, ENV_TOKEN, KNOWN, SECRETS, SHA256_B64, UUID_A

RUN = Scrubber(KNOWN)


def test_corpora_are_large_enough():
    assert len({label for label, _, _ in SECRETS}) == len(SECRETS) >= 57
    assert len(set(DATA)) == len(DATA) >= 34


@pytest.mark.parametrize("label, text, secret", SECRETS, ids=[s[0] for s in SECRETS])
def test_every_secret_shape_is_redacted(label, text, secret):
    out = RUN.text(text)
    assert secret not in out and secret.lower() not in out.lower(), out
    assert REDACTED in out
    assert RUN.text(out) == out


@pytest.mark.parametrize("text", DATA)
def test_data_is_left_as_it_was(text):
    assert RUN.text(text) == text


def test_a_lone_random_token_is_data_unless_the_run_knows_it():
    token = "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z"
    assert RUN.text(f"id {token}") == f"id {token}"
    assert Scrubber((token,)).text(f"id {token}") == f"id {REDACTED}"


def test_a_tool_answer_keeps_its_data_fields():
    # the shape of an object store's listing, as p2p mcp would pass it on
    answer = {"Contents": [{"Key": f"uploads/{UUID_A}/report.pdf", "ChecksumSHA256": SHA256_B64,
                            "ETag": '"d41d8cd98f00b204e9800998ecf8427e"', "Size": 48213,
                            "Owner": {"ID": "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq"}}],
              "ContinuationToken": "1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM=",
              "KeyCount": 1, "Note": f"uploaded with Bearer {ENV_TOKEN}"}
    out = RUN.value(answer)
    assert out["Contents"] == answer["Contents"]
    assert out["ContinuationToken"] == answer["ContinuationToken"]
    assert out["Note"] == f"uploaded with Bearer {REDACTED}"
    assert RUN.value(out) == out
