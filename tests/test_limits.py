"""play2prompt.limits: a number's range, checked in one line."""

from __future__ import annotations

import math

import pytest

from play2prompt import limits
from play2prompt.errors import UserError


@pytest.mark.parametrize("value", [0, 65536, -1, 1.0, True, "80", math.nan, None])
def test_a_port_is_a_whole_number_from_1_to_65535(value):
    assert not limits.PORT.holds(value)
    with pytest.raises(UserError, match=r"^--port must be a whole number from 1 to 65535, "):
        limits.PORT.check(value, "--port")


def test_a_timeout_excludes_zero_and_infinity():
    assert limits.SECONDS.holds(0.5) and limits.SECONDS.holds(1) and \
        limits.SECONDS.holds(limits.DAY)
    for value in (0.0, -1.0, math.inf, math.nan, limits.DAY * 2):
        with pytest.raises(UserError, match="must be a number above 0 and at most 86400, got"):
            limits.SECONDS.check(value, "--timeout")


def test_a_flag_takes_its_range_as_typer_bounds():
    assert limits.PORT.option() == {"min": 1, "max": 65535}


@pytest.mark.parametrize("host", ["127.0.0.1", "::1", "localhost", "api.example.com",
                                  "0.0.0.0"])
def test_hosts_a_server_can_bind(host):
    assert limits.check_host(host) == host


@pytest.mark.parametrize("host", ["", "a b", "-x", "a..b", "host_name", "\u200b", "x" * 70])
def test_hosts_that_are_none(host):
    with pytest.raises(UserError, match="--host must be an IP address or a host name"):
        limits.check_host(host)
