"""``p2p eval tools.json --opaque``: the user's queries with the tools shown opaque.

The suite holds the opaque tools (:func:`play2prompt.tools.opacity.opaque_tools`: ``function_N``
by the rank of the real name, blank docs, or no parameters; they run the real tools) and the
query file's gold calls renamed to the shown names, so execution and checking need nothing new.
What a side gives is keyed by real name and shown under the suite's names
(:func:`opaque_sides`): a run's docs and demos (its tools' meta keeps their real names), the
parameters its play discovered where the shown spec has none (:data:`SCHEMA_SIDES`), and the
oracle docs (only the docs differ: the names stay opaque).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from play2prompt.agent.prompt import Demo
from play2prompt.errors import UserError
from play2prompt.evaluation.items import ORACLE, EvalSuite, PromptSide
from play2prompt.evaluation.queries import QueryFile, tools_suite
from play2prompt.tools.model import Invocation, Tool
from play2prompt.tools.opacity import (
    OPAQUE,
    Opacity,
    code_names,
    opaque_tools,
    real_name,
    rename_text,
    renamed_doc,
)

SCHEMA_SIDES = ("full", "desc-only")   # the sides that give a run's docs, its schemas too


def run_names(run: Any) -> dict[str, str]:
    """A run's tool names -> the real names of the tools they optimized."""
    if run is None:
        return {}
    return {name: real_name(result.original) for name, result in run.tools.items()}


def run_opacity(run: Any) -> set[str]:
    """The opacity settings the run's tools were optimized under."""
    if run is None:
        return set()
    return {str(r.original.meta.get(OPAQUE, "")) for r in run.tools.values()}


def chosen_opacity(given: str | None, run: Any) -> Opacity:
    """``--opaque`` as given, or (not given) the opacity the run was optimized under; one line
    when the run was optimized under another one."""
    used = sorted(run_opacity(run) - {""})
    if given is None:
        if len(used) > 1:
            raise UserError(f"the prompts were optimized under several opacities "
                            f"({' / '.join(used)}): give --opaque")
        return Opacity.parse(used[0] if used else None)
    opacity = Opacity.parse(given)
    if used and used != [opacity.spec]:
        raise UserError(f"--opaque {opacity.spec or '(none)'} differs from the opacity the "
                        f"prompts were optimized under (--opaque {' / '.join(used)})")
    return opacity


def renamed_demo(demo: Demo, names: Mapping[str, str]) -> Demo:
    """``demo`` with its calls, and the tool names (read as code) its texts mention, renamed."""
    calls = tuple(Invocation(names.get(c.name, c.name), c.arguments) for c in demo.calls)
    texts = code_names(names)
    answer = rename_text(demo.answer, texts) if demo.answer else demo.answer
    return Demo(rename_text(demo.query, texts), calls, answer)


def with_params(tool: Tool, params: Mapping[str, Any] | None,
                texts: Mapping[str, str]) -> Tool:
    """``tool`` with the properties of ``params`` its schema lacks added (required where
    ``params`` requires them), their descriptions' tool names renamed by ``texts``."""
    have = tool.properties
    extra = {n: dict(s) for n, s in ((params or {}).get("properties") or {}).items()
             if n not in have}
    if not extra:
        return tool
    names = code_names(texts)
    for spec in extra.values():
        if isinstance(spec.get("description"), str):
            spec["description"] = rename_text(spec["description"], names)
    required = [*tool.required, *(r for r in (params or {}).get("required") or ()
                                  if r in extra)]
    schema = {**tool.parameters, "type": "object", "properties": {**have, **extra}}
    if required:
        schema["required"] = list(dict.fromkeys(required))
    return replace(tool, parameters=schema)


def opaque_suite(tools: Sequence[Tool], queries: QueryFile, opacity: Opacity, name: str,
                 base_dir: Path | None, universe: Sequence[str] | None = None) -> EvalSuite:
    """The suite of ``p2p eval tools.json --opaque``: the opaque tools (named by rank among
    ``universe``, default the tools') and the gold calls under their shown names."""
    shown, names = opaque_tools(tools, opacity, universe)
    items = [replace(i, calls=names.to_shown(i.calls),
                     tools=tuple(names.shown.get(n, n) for n in i.tools))
             for i in queries.items]
    suite = tools_suite(shown, QueryFile(items, queries.bad), name, base_dir)
    note = (f"opaque ({opacity.spec}, as OpaqueToolsBench): the task model sees "
            f"{'function_1, function_2, ... and ' if opacity.names else ''}the hidden specs; "
            "the real tools run and are checked")
    return replace(suite, opaque=opacity.spec, shown_names=dict(names.shown),
                   notes=[*suite.notes, note])


def opaque_sides(sides: Sequence[PromptSide], run: Any, suite: EvalSuite,
                 oracle: Sequence[Tool] = ()) -> list[PromptSide]:
    """``sides`` with what they give (keyed by the run's names, or by real name for the
    oracle) keyed and worded by the names ``suite`` shows."""
    shown = dict(suite.shown_names)
    of_run = {n: shown.get(r, n) for n, r in run_names(run).items()}
    texts = {**shown, **of_run}
    out = []
    for side in sides:
        if side.name == ORACLE:
            keys = {t.name: shown.get(t.name, t.name) for t in oracle}
            params = {keys[t.name]: t.parameters for t in oracle}
        elif side.name in SCHEMA_SIDES and run is not None:
            keys = of_run
            params = {of_run[n]: r.optimized.parameters for n, r in run.tools.items()}
        else:
            keys, params = of_run, {}
        out.append(shown_side(side, suite, keys, params, texts))
    return out


def shown_side(side: PromptSide, suite: EvalSuite, keys: Mapping[str, str],
               params: Mapping[str, Mapping[str, Any]], texts: Mapping[str, str]) -> PromptSide:
    """``side`` with its docs and demos keyed by ``keys`` (given name -> shown name), their
    texts renamed by ``texts``, and the suite's tools given the ``params`` they lack."""
    tools = {n: t for n, tool in suite.tools.items()
             if (t := with_params(tool, params.get(n), texts)) is not tool}
    return replace(
        side, docs={keys.get(n, n): renamed_doc(d, texts) for n, d in side.docs.items()},
        demos={keys.get(n, n): tuple(renamed_demo(d, texts) for d in demos)
               for n, demos in side.demos.items()},
        tools={**side.tools, **tools})
