"""The evidence layer's switch: ``--evidence none`` runs the paper's method (no component
called), each component can be turned off alone, the older switches are its aliases, and the
list round-trips through result.json and ``--resume``."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from play2prompt.cli import main
from play2prompt.config import OptimizeConfig, preset
from play2prompt.errors import UserError
from play2prompt.evidence.names import (
    DEFAULT_EVIDENCE,
    DESCRIBE,
    DESCRIBE_CHECK,
    DIMENSIONS,
    EVIDENCE,
    FORMAT_PROBES,
    KNOWN_OPERATIONS,
    OPTION_EFFECTS,
    REQUEST_PARTS,
    SET_CHECK,
    SIBLING_CONTRAST,
    UNASKED_TESTS,
    VALUE_PROBES,
    active,
    chosen,
)
from play2prompt.lm.fake import REREAD_MARK, FakeLM, play_rules
from play2prompt.optimize import optimize
from play2prompt.store.runs import open_run
from play2prompt.tools.loading import load_tools
from tests.conftest import EXAMPLES
from tests.method.test_doc_search import REWRITE
from tests.scale_support import EXAMPLE_CALLS

TOOLS = ("loan_payment", "convert_units", "body_mass_index")


def _uses(result: dict) -> Counter:
    """The run's evidence components' calls, by name: each tool's (its stats), and the tool-set
    check once where it ran (its outcome is in the run's stats)."""
    out: Counter = Counter()
    for tool in result["tools"].values():
        out.update(tool["stats"]["evidence_calls"])
    out[SET_CHECK] += int(bool(result["stats"].get("set_check")))
    return +out


class _MisreadOnce:
    """The re-reading fake, except that its first reading of a loan gets the term wrong (a
    call that works but gives another output: what relabelling looks at)."""

    def __init__(self, inner) -> None:
        self.inner, self.done = inner, False

    def __call__(self, request, i):
        out = self.inner(request, i)
        if not self.done and isinstance(out, dict) and "years" in out:
            self.done = True
            return {**out, "years": out["years"] + 1}
        return out


def _generator() -> FakeLM:
    rules = [(mark, _MisreadOnce(reply) if mark == REREAD_MARK else reply)
             for mark, reply in play_rules(EXAMPLE_CALLS)]
    rules += [("What should change", {"critique": "Say the rate is a percentage."}),
              ("Write the improved documentation", REWRITE)]
    return FakeLM(rules=rules, fill_schema=True)


def _run(tmp_path, evidence: tuple[str, ...], run_id: str = "r") -> dict:
    tools = [t for t in load_tools(EXAMPLES / "tools.json") if t.name in TOOLS]
    optimize(tools, generator=_generator(), config=preset("quick", evidence=evidence),
             runs_dir=tmp_path, run_id=run_id, base_dir=EXAMPLES)
    return json.loads((tmp_path / run_id / "result.json").read_text())


def test_with_all_evidence_on_every_component_is_called(tmp_path):
    result = _run(tmp_path, EVIDENCE)
    assert result["config"]["evidence"] == list(EVIDENCE)
    # every example tool has a description: ``describe`` (and its checks) never asks; each
    # refuses a text it does not know or reads it: ``value-probes`` never asks either (their
    # own tests call them); ``request-parts`` only writes where no draft passed, and the fake's
    # drafts pass (tests/method/test_requests.py calls it); ``unasked-tests`` counts the
    # variants it adds, and the fake's few verified calls leave it none here
    # (tests/evidence/test_variants.py makes one); ``format-probes`` only tries where no call
    # of a tool has worked, and the fake's first calls work (tests/evidence/test_formats.py);
    # ``dimensions`` needs an output field that names its unit, which these tools' have not
    # (tests/evidence/test_dimensions.py runs one); ``sibling-contrast`` only where a tool's
    # requests went to another in the tool-set check (tests/method/test_contrast.py);
    # ``option-effects`` only where an option's values compute catalogue operations, which
    # these tools' do not (tests/evidence/test_option_effects.py)
    uses = _uses(result)
    assert {n for n, k in uses.items() if k} == set(EVIDENCE) - {
        DESCRIBE, DESCRIBE_CHECK, KNOWN_OPERATIONS, VALUE_PROBES, REQUEST_PARTS,
        UNASKED_TESTS, FORMAT_PROBES, DIMENSIONS, SIBLING_CONTRAST, OPTION_EFFECTS}, uses
    assert uses[DESCRIBE] == 0


def test_evidence_none_is_the_papers_method_and_calls_no_component(tmp_path):
    result = _run(tmp_path, ())
    assert result["config"]["evidence"] == []
    assert _uses(result) == Counter()
    store = open_run("r", tmp_path, read_only=True)
    for name, tool in result["tools"].items():
        assert tool["stats"]["facts"] == [] and tool["stats"]["probes"] == 0, name
        assert not store.candidates(name, "probe") and not store.candidates(name, "fact-test")
        kinds = {c["payload"]["kind"] for c in store.candidates(name, "doc")}
        assert "facts" not in kinds, name


@pytest.mark.parametrize("name", EVIDENCE)
def test_each_component_can_be_turned_off_alone(tmp_path, name):
    result = _run(tmp_path, tuple(n for n in EVIDENCE if n != name))
    assert set(result["tools"]) == set(TOOLS)
    assert _uses(result)[name] == 0, _uses(result)
    assert name not in result["config"]["evidence"]


def _cli(tmp_path, *extra: str) -> dict:
    code = main(["optimize", str(EXAMPLES / "tools.json"), "--tools", "loan_payment",
                 "--generator", "fake", "--preset", "quick", "--seed", "1",
                 "--runs-dir", str(tmp_path), "-q", *extra])
    assert code == 0
    return json.loads((tmp_path / "r" / "result.json").read_text())


def test_the_cli_runs_the_papers_method_with_evidence_none(tmp_path):
    result = _cli(tmp_path, "--run-id", "r", "--evidence", "none")
    assert result["config"]["evidence"] == [] and _uses(result) == Counter()


def test_the_list_round_trips_through_result_json_and_resume(tmp_path):
    first = _cli(tmp_path, "--run-id", "r", "--evidence", "probes,reread,fact-reader",
                 "--no-probe")
    assert first["config"]["evidence"] == ["fact-reader", "reread"]
    assert _uses(first)["probes"] == 0 and _uses(first)["fact-reader"] > 0
    config = OptimizeConfig.from_dict(first["config"])
    assert config.evidence == ("fact-reader", "reread")
    again = _cli(tmp_path, "--resume", "r", "--recompute")
    assert again["config"] == first["config"]
    assert set(_uses(again)) <= {"fact-reader", "reread"}, _uses(again)


def test_the_older_switches_are_aliases():
    assert chosen(None) is None
    assert chosen("none") == () and chosen("all") == EVIDENCE
    assert chosen(None, probe=False) == tuple(n for n in DEFAULT_EVIDENCE if n != "probes")
    # a switch alone leaves the components that are off by default off
    assert "doc-completion" not in chosen(None, set_check=2)
    assert "doc-completion" not in chosen(None, fact_tests=0)
    assert DESCRIBE_CHECK in chosen(None, set_check=2)
    assert chosen("none", probe=True, fact_tests=4) == ("probes", "fact-tests")
    assert "facts-doc" not in chosen(None, facts_doc=False)
    assert "fact-tests" not in chosen(None, fact_tests=0)
    # the settings' own switches turn a component off as well
    assert "probes" not in active(preset("quick", probe=False))
    assert "fact-tests" not in active(preset("quick", fact_tests=0))
    assert "facts-doc" not in active(preset("quick", evidence_notes=False))
    # one off or one on, from the default list or from the list the plain names give
    assert chosen("-range-search,-set-check") == tuple(
        n for n in DEFAULT_EVIDENCE if n not in ("range-search", "set-check"))
    # re-reading and relabelling are off by default (no measured gain: evidence/names.py)
    assert "reread" not in DEFAULT_EVIDENCE and "relabel" not in DEFAULT_EVIDENCE
    assert chosen("+reread,+relabel") == tuple(
        n for n in EVIDENCE if n in (*DEFAULT_EVIDENCE, "reread", "relabel"))
    assert chosen("+unasked-tests") == tuple(
        n for n in EVIDENCE if n in (*DEFAULT_EVIDENCE, "unasked-tests"))
    assert chosen("none,+probes") == ("probes",) and chosen("all,-set-check")[-1] != "set-check"
    assert chosen("fact-reader,reread,-reread") == ("fact-reader",)
    for bad in ("nope", "none,probes", "", "-nope", "all,none", "+"):
        with pytest.raises(UserError):
            chosen(bad)
    with pytest.raises(UserError):
        preset("quick", evidence=("nope",))
