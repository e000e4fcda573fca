"""How StableToolBench names things (facts from its public repository, re-implemented here).

- A name is *standardised*: every character that is not an ASCII letter, digit, underscore or
  CJK ideograph becomes ``_``; runs of ``_`` collapse; the result is lower-cased and stripped of
  leading/trailing ``_``; a name that starts with a digit gets the prefix ``get_``.
- A few API and parameter names that are Python keywords (or clash with its call code) get the
  prefix ``is_``: ``from, class, return, false, true, id, and``.
- A function offered to the model is ``<api>_for_<tool>`` (both standardised), keeping only its
  last 64 characters (the OpenAI limit on function names).
- A category becomes a folder name by turning spaces, commas and slashes into ``_`` and
  collapsing a double ``__`` once.
- The response cache of an API lives at
  ``<cache>/<category>/<tool>_for_<category>/<api>.json`` and is keyed by Python's ``str()`` of
  the argument dict.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

_NOT_NAME = re.compile(r"[^\u4e00-\u9fa5a-zA-Z0-9_]")
_UNDERSCORES = re.compile(r"_{2,}")
RENAMED = frozenset({"from", "class", "return", "false", "true", "id", "and"})
MAX_FUNCTION_NAME = 64


def standardize(name: str) -> str:
    text = _UNDERSCORES.sub("_", _NOT_NAME.sub("_", str(name))).lower().strip("_")
    if text and text[0].isdigit():
        text = "get_" + text
    return text


def change_name(name: str) -> str:
    return "is_" + name if name in RENAMED else name


def api_name(name: str) -> str:
    """The 'pure' API name StableToolBench sends to its server."""
    return change_name(standardize(name))


def param_name(name: str) -> str:
    return change_name(standardize(name))


def function_name(api: str, standard_tool: str) -> str:
    """The function the model sees: ``<api>_for_<tool>``, last 64 characters."""
    return f"{api_name(api)}_for_{standard_tool}"[-MAX_FUNCTION_NAME:]


def standardize_category(category: str) -> str:
    text = str(category).replace(" ", "_").replace(",", "_").replace("/", "_")
    return text.replace("__", "_")


def cache_file(cache_dir: Path, category: str, standard_tool: str, api: str) -> Path:
    """Where the response cache of one API is stored."""
    cat = standardize_category(category)
    folder = f"{standardize(standard_tool)}_for_{cat}"
    return Path(cache_dir) / cat / folder / f"{api_name(api)}.json"


def cache_key(arguments: Mapping[str, Any]) -> str:
    """The cache key of a call: Python's ``str()`` of the argument dict, in argument order."""
    return str(dict(arguments))
