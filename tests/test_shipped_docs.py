"""Every doc shipped by a real run, read for text no reader can use (issue 72, item 6): a
regular expression's fragment, Python's own message, the probe value, a sentence said twice, a
refusal with nothing said of what is accepted (:mod:`play2prompt.evidence.hygiene`).

The docs are copied from runs' ``result.json`` (tools whose doc changed) into
``tests/data/shipped_docs/<run>.json``; add a run with ``python -m tests.test_shipped_docs
runs/<run>/result.json``. A problem a run shipped before it was fixed is listed under the
doc's ``known``, with ``why``: it must still be there (else drop it from ``known``) and no
other may be.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from play2prompt.evidence.hygiene import problems
from play2prompt.tools.model import Tool, ToolDoc

SHIPPED = Path(__file__).parent / "data" / "shipped_docs"


def fixture_of(result: dict[str, Any]) -> dict[str, Any]:
    """The shipped docs of a run's ``result.json`` (tools whose doc changed), with each tool's
    parameters (what its schema says of a value counts as said)."""
    docs = []
    for name, entry in sorted(result["tools"].items()):
        if entry.get("doc_changed"):
            params = ((entry.get("original") or {}).get("function") or {}).get("parameters")
            docs.append({"name": name, "doc": entry["doc"], "parameters": params or {}})
    return {"run": result["run_id"], "docs": docs}


def _shipped() -> list[tuple[str, str, dict[str, Any]]]:
    out = []
    for path in sorted(SHIPPED.glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        out += [(data["run"], d["name"], d) for d in data["docs"]]
    return out


def test_there_are_shipped_docs_to_read():
    assert _shipped()


@pytest.mark.parametrize(("run", "name", "entry"), _shipped(),
                         ids=[f"{r}/{n}" for r, n, _ in _shipped()])
def test_a_shipped_doc_says_nothing_a_reader_cannot_use(run, name, entry):
    doc = ToolDoc.from_dict(entry["doc"])
    tool = Tool(name, doc.description, entry.get("parameters") or {}).with_doc(doc)
    found = [str(p) for p in problems(doc, tool)]
    assert found == entry.get("known", []), f"{run}/{name}: {found}"


if __name__ == "__main__":   # python -m tests.test_shipped_docs runs/<run>/result.json ...
    for arg in sys.argv[1:]:
        fixture = fixture_of(json.loads(Path(arg).read_text(encoding="utf-8")))
        target = SHIPPED / f"{fixture['run']}.json"
        target.write_text(json.dumps(fixture, indent=1, ensure_ascii=False) + "\n",
                          encoding="utf-8")
        print(f"{target}: {len(fixture['docs'])} doc(s)")
