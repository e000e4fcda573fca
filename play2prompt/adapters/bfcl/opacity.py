"""Opacity settings for BFCL, as OpaqueToolsBench defines them.

The opacity model (the settings, the pure transforms of a tool, the name map, the renaming of
texts) is the core's, :mod:`play2prompt.tools.opacity`, re-exported here. What is BFCL's own:
each question's tools are renamed ``function_1, function_2, ...`` in the order its function
list gives them (:meth:`NameMap.for_question`, :func:`opaque_question`), a demo's calls and
texts are renamed per question (:func:`renamed_demo`, the evaluation's).
"""

from __future__ import annotations

from collections.abc import Sequence

from play2prompt.evaluation.opaque import renamed_demo
from play2prompt.tools import opacity as core
from play2prompt.tools.model import Tool
from play2prompt.tools.opacity import (
    OPAQUE,
    REAL_NAME,
    SETTINGS,
    Opacity,
    code_names,
    opaque_name,
    opaque_schema,
    opaque_tool,
    real_name,
    rename_text,
    renamed_doc,
)

__all__ = ["OPAQUE", "REAL_NAME", "SETTINGS", "NameMap", "Opacity", "code_names",
           "opaque_name", "opaque_question", "opaque_schema", "opaque_tool", "real_name",
           "rename_text", "renamed_demo", "renamed_doc"]


class NameMap(core.NameMap):
    """A question's real tool names -> the names its task model sees (a bijection)."""

    @classmethod
    def for_question(cls, names: Sequence[str], opacity: Opacity) -> NameMap:
        """Numbered in order of appearance (a name listed twice keeps its first number)."""
        return cls(core.NameMap.numbered(names, opacity).shown)


def opaque_question(tools: Sequence[Tool], opacity: Opacity) -> tuple[list[Tool], NameMap]:
    """A question's tools as its task model sees them, and the name map."""
    names = NameMap.for_question([t.name for t in tools], opacity)
    return [opaque_tool(t, names.shown[t.name], opacity) for t in tools], names
