"""Executors for BFCL's network-bound functions.

- ``requests_get``: the REST category's single tool (BFCL calls it ``requests.get``). Online
  only: it sends the GET, with BFCL's key placeholders (``YOUR-RAPID-API-KEY``...) replaced by
  keys from the environment, and returns the JSON body, which the checker compares by structure
  with the recorded response.
- ``offline_refusal``: bound, in offline mode, to every function that needs the network, so a
  model's call to one fails without any request being made.
"""

from __future__ import annotations

import os
from typing import Any

# Placeholder in BFCL's questions -> environment variable holding the key.
KEY_PLACEHOLDERS = {
    "YOUR-RAPID-API-KEY": "RAPID_API_KEY",
    "YOUR-GEOCODE-API-KEY": "GEOCODE_API_KEY",
    "YOUR-OMDB-API-KEY": "OMDB_API_KEY",
    "YOUR-EXCHANGERATE-API-KEY": "EXCHANGERATE_API_KEY",
    "YOUR-API-KEY": "EXCHANGERATE_API_KEY",
}


def fill_keys(value: Any) -> Any:
    """Replace key placeholders in strings (nested in dicts/lists) by environment values."""
    if isinstance(value, str):
        for placeholder, var in KEY_PLACEHOLDERS.items():
            if placeholder in value and os.environ.get(var):
                value = value.replace(placeholder, os.environ[var])
        return value
    if isinstance(value, dict):
        return {k: fill_keys(v) for k, v in value.items()}
    if isinstance(value, list):
        return [fill_keys(v) for v in value]
    return value


def requests_get(url: str, headers: dict | None = None, params: dict | None = None,
                 timeout: float | None = None, allow_redirects: bool = True,
                 **_ignored: Any) -> Any:
    """GET ``url``; the JSON body on HTTP 200, else an error."""
    import requests

    response = requests.get(fill_keys(url), headers=fill_keys(headers or {}),
                            params=fill_keys(params or {}), timeout=timeout or 30,
                            allow_redirects=allow_redirects)
    if response.status_code != 200:
        raise RuntimeError(f"HTTP {response.status_code} from {url}")
    return response.json()


def offline_refusal(**_arguments: Any) -> Any:
    raise RuntimeError("this function needs the network; not run in offline mode (use --online)")
