"""Optional dependencies in tests: a test needing an extra skips without it, saying which, except
when ``make test`` installed that extra (``P2P_REQUIRE_EXTRAS``, its EXTRAS list): then a
missing extra is an error, so CI never passes by skipping what it was meant to run."""

from __future__ import annotations

import importlib
import os
from types import ModuleType

import pytest


def need(module: str, extra: str) -> ModuleType:
    """``import module`` for a test of the extra ``extra`` (skip or fail when it is missing)."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        required = {e.strip() for e in os.environ.get("P2P_REQUIRE_EXTRAS", "").split(",")}
        if extra in required:
            pytest.fail(f"the extra {extra!r} is in EXTRAS but {module!r} does not import: "
                        f"{exc}", pytrace=False)
        pytest.skip(f"needs the extra {extra!r}: pip install 'play2prompt[{extra}]'",
                    allow_module_level=True)
