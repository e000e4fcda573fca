"""BFCL questions -> evaluation items; BFCL function specs -> play2prompt tools.

Each question carries its own copy of its functions' specs (types ``dict/float/tuple/any``,
normalised to JSON Schema) and its ground truth as Python call strings
(``calc_binomial_probability(n=20, k=5, p=0.6)``) with one ``execution_result_type`` per call.
The tools execute the functions of the module extracted from the wheel. Offline (the default),
questions whose ground truth calls a function that needs the network are skipped, with the
reason, and every such function refuses to run.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from play2prompt.adapters.bfcl.data import CATEGORIES, EXEC_CATEGORIES, BFCLData
from play2prompt.adapters.bfcl.offline import network_functions
from play2prompt.adapters.bfcl.opacity import (
    Opacity,
    opaque_name,
    opaque_question,
    opaque_tool,
    real_name,
)
from play2prompt.errors import UserError
from play2prompt.evaluation.items import EvalItem, EvalSuite, Skipped
from play2prompt.jsonutil import to_jsonable
from play2prompt.scoring.parse import ParseError, parse_python_calls
from play2prompt.tools.model import Invocation, Tool
from play2prompt.tools.types import normalize_schema

MATCH_NAMES = {"exact_match": "exact", "real_time_match": "real_time",
               "structural_match": "structural"}
NETWORK_MODULE = "play2prompt.adapters.bfcl.network"
REST_TOOL = "requests.get"
REST_SKIP = "REST: sends live HTTP requests with API keys (use --online)"
ORACLE_DOCS = "oracle_docs.json"


def tool_name(bfcl_name: str) -> str:
    """BFCL's names may hold dots (``requests.get``); tool names may not."""
    return bfcl_name.replace(".", "_")


def parse_categories(spec: str | Sequence[str] | None) -> list[str]:
    if not spec:
        return list(CATEGORIES)
    names = [p.strip() for s in ([spec] if isinstance(spec, str) else spec)
             for p in s.split(",") if p.strip()]
    out = []
    for name in names:
        key = name.removeprefix("exec_").replace("-", "_")
        if key not in CATEGORIES:
            raise UserError(f"unknown BFCL category {name!r} (one of {', '.join(CATEGORIES)})")
        out.append(key)
    return out


class ToolFactory:
    """Builds tools from BFCL specs, bound to the extracted functions module."""

    def __init__(self, module: str, network: Mapping[str, str], online: bool) -> None:
        self.module = module
        self.network = network
        self.online = online

    def executor(self, bfcl_name: str) -> dict[str, Any]:
        if bfcl_name == REST_TOOL:
            return {"python": f"{NETWORK_MODULE}:requests_get", "timeout": 60,
                    "isolation": "thread"}
        if bfcl_name in self.network and not self.online:
            return {"python": f"{NETWORK_MODULE}:offline_refusal"}
        timeout = 60 if bfcl_name in self.network else 10
        return {"python": f"{self.module}:{bfcl_name}", "timeout": timeout}

    def tool(self, spec: Mapping[str, Any]) -> Tool:
        name = str(spec["name"])
        return Tool(tool_name(name), str(spec.get("description") or ""),
                    normalize_schema(spec.get("parameters")), self.executor(name),
                    {"bfcl_name": name})


def question_text(question: Mapping[str, Any]) -> str:
    turns = question.get("question") or []
    messages = turns[0] if turns and isinstance(turns[0], list) else turns
    texts = [str(m.get("content", "")) for m in messages
             if isinstance(m, Mapping) and m.get("role", "user") == "user"]
    return "\n".join(t for t in texts if t).strip()


def parse_ground_truth(calls: Sequence[str]) -> tuple[Invocation, ...]:
    out = []
    for text in calls:
        try:
            parsed = parse_python_calls(text)
        except ParseError as exc:
            raise UserError(f"cannot read BFCL ground truth {text[:80]!r}: {exc}") from exc
        out.extend(Invocation(tool_name(c.name), to_jsonable(dict(c.arguments))) for c in parsed)
    return tuple(out)


def exec_item(question: Mapping[str, Any], category: str, factory: ToolFactory,
              opacity: Opacity = Opacity()) -> EvalItem:
    """The question as an item; under ``opacity`` its specs are the opaque tools (running the
    real functions) and its ground truth calls them by their shown names."""
    gold = parse_ground_truth(question["ground_truth"])
    kinds = [MATCH_NAMES.get(k, k) for k in question.get("execution_result_type") or []]
    kinds = (kinds + [kinds[-1] if kinds else "exact"] * len(gold))[: len(gold)]
    specs = tuple(factory.tool(f) for f in question["function"])
    if opacity:
        shown, names = opaque_question(specs, opacity)
        specs, gold = tuple(shown), names.to_shown(gold)
    return EvalItem(id=str(question["id"]), query=question_text(question), calls=gold,
                    match=tuple(kinds), category=category, tools=tuple(t.name for t in specs),
                    specs=specs)


def rest_items(data: BFCLData, factory: ToolFactory) -> list[EvalItem]:
    questions = data.questions("rest")
    responses = data.rest_responses()
    gold = data.rest_ground_truth()
    items = []
    for idx, question in enumerate(questions):
        specs = tuple(factory.tool(f) for f in question["function"])
        calls = parse_ground_truth([gold[idx]]) if idx in gold else ()
        items.append(EvalItem(id=str(question["id"]), query=question_text(question),
                              calls=calls or (Invocation(tool_name(REST_TOOL), {}),),
                              match=("rest",), category="rest",
                              tools=tuple(t.name for t in specs), specs=specs,
                              expected_outputs=(responses[idx],)))
    return items


def load_suite(data: BFCLData, root: Path, categories: Sequence[str] = CATEGORIES,
               online: bool = False, opacity: Opacity = Opacity()) -> EvalSuite:
    """The questions of ``categories`` (``opacity``: the exec questions' tools as
    OpaqueToolsBench hides them; REST is left as it is)."""
    network = network_functions(data.functions_source)
    factory = ToolFactory(data.functions_module(), network, online)
    items: list[EvalItem] = []
    skipped: list[Skipped] = []
    for category in categories:
        if category == "rest":
            if online:
                items.extend(rest_items(data, factory))
            else:
                skipped.extend(Skipped(str(q["id"]), REST_SKIP, "rest")
                               for q in data.questions("rest"))
            continue
        for question in data.questions(category):
            item = exec_item(question, category, factory, opacity)
            needs = [n for c in item.calls if (n := real_call_name(item, c.name)) in network]
            if needs and not online:
                skipped.append(Skipped(item.id, f"ground truth calls {needs[0]}, which "
                                                f"{network[needs[0]]}", category))
            else:
                items.append(item)
    notes = []
    if not online and skipped:
        exec_total = sum(1 for i in items if i.category != "rest") + sum(
            1 for s in skipped if s.category != "rest")
        rest = sum(1 for s in skipped if s.category == "rest")
        notes.append(f"offline: evaluating {len(items)} of {exec_total} exec queries (their "
                     f"ground truth needs no network); skipped {exec_total - len(items)} exec "
                     f"queries" + (f" and {rest} REST queries" if rest else "")
                     + " that need the network (reasons below; --online runs them)")
    if opacity:
        notes.append(f"opaque ({opacity.spec}, as OpaqueToolsBench): the task model sees "
                     f"{'function_1, function_2, ... and ' if opacity.names else ''}the "
                     "hidden specs; the real functions run and are checked")
    return EvalSuite("bfcl", items, tools=real_library(items) if opacity.names else {},
                     skipped=skipped, categories=tuple(categories), require_exec=True,
                     validate_schema=False, base_dir=root, notes=notes,
                     oracle_covers_benchmark=True)


def real_call_name(item: EvalItem, name: str) -> str:
    """The real name of the tool ``item`` shows as ``name``."""
    spec = next((s for s in item.specs if s.name == name), None)
    return real_name(spec) if spec is not None else name


def real_library(items: Sequence[EvalItem]) -> dict[str, Tool]:
    """The items' tools under their real names (what oracle docs and runs are keyed by)."""
    out: dict[str, Tool] = {}
    for item in items:
        for spec in item.specs:
            out.setdefault(real_name(spec), replace(spec, name=real_name(spec)))
    return out


def oracle_docs_path() -> Path:
    """The packaged oracle docs (``oracle_docs.json``): hand-written correct docs of the
    functions the offline exec questions show the task model, for ``--oracle``."""
    from importlib.resources import files

    return Path(str(files("play2prompt.adapters.bfcl") / ORACLE_DOCS))


def optimization_tools(data: BFCLData, categories: Sequence[str] = EXEC_CATEGORIES,
                       select: Sequence[str] | None = None,
                       opacity: Opacity = Opacity()) -> list[Tool]:
    """The union of the functions the offline exec questions' ground truth uses, one tool per
    function (the spec most questions give it). Under ``opacity`` each is the opaque tool,
    named (with ``names``) ``function_N`` by its rank among all the offline exec functions;
    ``select`` names real functions."""
    network = network_functions(data.functions_source)
    factory = ToolFactory(data.functions_module(), network, online=False)
    specs = _used_specs(data, categories, network)
    tools = {name: factory.tool(json.loads(c.most_common(1)[0][0]))
             for name, c in sorted(specs.items())}
    if opacity:
        rank = {n: i for i, n in enumerate(sorted(_used_specs(data, EXEC_CATEGORIES, network)))}
        tools = {n: opaque_tool(t, opaque_name(rank[n]) if opacity.names else n, opacity)
                 for n, t in tools.items()}
    if select:
        unknown = [s for s in select if s not in tools]
        if unknown:
            raise UserError(f"unknown BFCL tool(s) {', '.join(unknown)} (offline exec "
                            f"functions: {', '.join(tools)})")
        return [tools[s] for s in select]
    return list(tools.values())


def _used_specs(data: BFCLData, categories: Sequence[str],
                network: Mapping[str, str]) -> dict[str, Counter[str]]:
    """Tool name -> how often each spec of it is given, over the offline questions whose
    ground truth calls it."""
    specs: dict[str, Counter[str]] = {}
    for category in categories:
        if category == "rest":
            continue
        for question in data.questions(category):
            used = {c.name for c in parse_ground_truth(question["ground_truth"])}
            if used & set(network):
                continue
            for spec in question["function"]:
                if tool_name(spec["name"]) in used:
                    key = json.dumps(spec, sort_keys=True)
                    specs.setdefault(tool_name(spec["name"]), Counter())[key] += 1
    return specs
