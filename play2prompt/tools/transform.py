"""Transformations of tool docs used by the robustness experiments."""

from __future__ import annotations

import random
from collections.abc import Sequence

from play2prompt.jsonutil import derive_seed
from play2prompt.tools.model import Tool, ToolDoc


def drop_param_descriptions(tools: Sequence[Tool], p: float, seed: int = 0) -> list[Tool]:
    """Remove each parameter description with probability ``p`` (paper Table 3).

    The draw for a parameter depends only on (seed, tool, parameter), so the same tools get the
    same docs in optimization and in evaluation.
    """
    if p <= 0:
        return list(tools)
    out = []
    for tool in tools:
        doc = tool.doc
        params = {}
        for name, text in doc.params.items():
            rng = random.Random(derive_seed(seed, tool.name, name, "drop"))
            params[name] = "" if rng.random() < p else text
        out.append(tool.with_doc(ToolDoc(doc.description, params)))
    return out
