"""The shape of BFCL's offline exec subset without its texts: for every function the offline
questions show the task model, whether the wheel's functions module defines it, whether it
needs the network, and each distinct parameter schema (descriptions removed) with the
questions that give it. ``tests/adapters/fixtures/bfcl/offline_specs.json`` holds it for the
real nvidia-bfcl wheel, so that the packaged oracle docs are checked against the real specs
without the network (a remote test re-derives it from the wheel)."""

from __future__ import annotations

import copy
import json
from typing import Any

from play2prompt.adapters.bfcl.data import EXEC_CATEGORIES, BFCLData
from play2prompt.adapters.bfcl.offline import module_functions, network_functions
from play2prompt.adapters.bfcl.suite import parse_ground_truth

FIXTURE_NAME = "offline_specs.json"


def without_texts(schema: Any) -> Any:
    """``schema`` with every ``description`` removed, at any depth."""
    if isinstance(schema, dict):
        return {k: without_texts(v) for k, v in schema.items() if k != "description"}
    if isinstance(schema, list):
        return [without_texts(v) for v in schema]
    return copy.deepcopy(schema)


def offline_skeleton(data: BFCLData) -> dict[str, Any]:
    source = data.functions_source
    defined = module_functions(source)
    network = network_functions(source)
    functions: dict[str, Any] = {}
    count = 0
    for category in EXEC_CATEGORIES:
        for question in data.questions(category):
            used = {c.name for c in parse_ground_truth(question["ground_truth"])}
            if used & set(network):
                continue
            count += 1
            for spec in question["function"]:
                name = spec["name"]
                entry = functions.setdefault(name, {"has_source": name in defined,
                                                    "network": name in network,
                                                    "variants": []})
                params = without_texts(spec["parameters"])
                variant = next((v for v in entry["variants"] if v["parameters"] == params),
                               None)
                if variant is None:
                    variant = {"parameters": params, "questions": [],
                               "ground_truth_questions": []}
                    entry["variants"].append(variant)
                variant["questions"].append(str(question["id"]))
                if name in used:
                    variant["ground_truth_questions"].append(str(question["id"]))
    return {"wheel": data.wheel.name, "offline_questions": count,
            "functions": dict(sorted(functions.items()))}


def dump(skeleton: dict[str, Any]) -> str:
    """The fixture's text: one line per function."""
    lines = [f"  {json.dumps(name)}: {json.dumps(entry)}"
             for name, entry in skeleton["functions"].items()]
    return (f'{{"wheel": {json.dumps(skeleton["wheel"])}, '
            f'"offline_questions": {skeleton["offline_questions"]}, "functions": {{\n'
            + ",\n".join(lines) + "\n}}\n")
