"""The evidence components' names and the names a run's settings turn on."""

from __future__ import annotations

from typing import Any

FACT_READER = "fact-reader"        # errors and outputs read into facts (evidence/error_*.py)
PROBES = "probes"                  # out-of-range calls that make a tool say more
VALUE_PROBES = "value-probes"      # the texts a tool acts on, where it ignored a call's text
RANGE_SEARCH = "range-search"      # both ends of a number's range, where a probe was refused
FORMAT_PROBES = "format-probes"    # a refused text tried in the standard formats
REQUEST_GATES = "request-gates"    # code checks of a written request
REQUEST_PARTS = "request-parts"    # a request no draft got right written a value at a time
REREAD = "reread"                  # a request re-read into a call that must give the output
RELABEL = "relabel"                # a request that re-reads as another working call keeps it
DOC_COMPLETION = "doc-completion"  # a rewrite completed with D0 and the facts
CLAIM_CHECK = "claim-check"        # a rewrite's stated defaults checked by execution
FACTS_DOC = "facts-doc"            # the code-written facts doc as a doc candidate
FACT_TESTS = "fact-tests"          # Step 1b: requests that test play's facts
UNASKED_TESTS = "unasked-tests"    # ... calls without an optional argument every call set,
#                                     and a text option's default shown by executions
DESCRIBE = "describe"              # an undocumented tool described from its executed calls
DESCRIBE_CHECK = "describe-check"  # ... its description's expression run on those calls
KNOWN_OPERATIONS = "known-operations"  # ... a catalogue of operations run on them by code
OUTPUT_UNITS = "output-units"      # a number parameter's unit, from a formula fit to outputs
DIMENSIONS = "dimensions"          # ... from how an output that names its unit scales with it
LEVELS = "levels"                  # what each value of a level means, as shares of an output
CONVENTIONS = "conventions"        # a silent convention (cents, ms, counts from 0) by outputs
SCHEMA_FACTS = "schema-facts"      # facts the schema can hold (enum, range, default) in it
OPTION_EFFECTS = "option-effects"  # what a default and another value compute, by the catalogue
SET_CHECK = "set-check"            # the run's changes asked together before they ship
SIBLING_CONTRAST = "sibling-contrast"  # ... and what sets two confused tools apart said

EVIDENCE: tuple[str, ...] = (FACT_READER, PROBES, VALUE_PROBES, RANGE_SEARCH, FORMAT_PROBES,
                             REQUEST_GATES, REQUEST_PARTS, REREAD, RELABEL, DOC_COMPLETION,
                             CLAIM_CHECK, FACTS_DOC, FACT_TESTS, UNASKED_TESTS, DESCRIBE,
                             DESCRIBE_CHECK, KNOWN_OPERATIONS, OUTPUT_UNITS, DIMENSIONS,
                             LEVELS, CONVENTIONS, SCHEMA_FACTS, OPTION_EFFECTS, SET_CHECK,
                             SIBLING_CONTRAST)

# on by default: every component but doc-completion: the 1.5B ablation on the example tools
# found it to change nothing (54.6 % with and without it, +0/-0, 19 more calls; sweep abl,
# 2026-11-25). --evidence all (or NAME,...) turns it on. describe-check is on since its
# verifying form: on opaque BFCL (a) 82.8 % with it (run bfcl-a-ver: GCD and LCM described by
# held expressions, +2 / -0 question by question) against 80.6 % without (bfcl-a-p2p5),
# 2026-11-27; its first form, which described nothing it could not check, measured 76.3 %
# (bfcl-a-chk3). value-probes and known-operations are off: on in run bfcl-a-val, opaque BFCL
# (a) stayed at 82.8 %, +1 / -1 against bfcl-a-ver (2026-11-27). request-parts is off: new,
# not yet measured end to end. unasked-tests is off: new (2026-11-27), measured on the held-out
# tools of examples/fresh only. output-units is off: new (2026-11-27), not yet measured.
# claim-check is on since 2026-11-28: replayed on run q53 it took a refuted default out of
# the add_days rewrite (55.6 -> 61.1 %, +8 / -2); range-search is on since 2026-11-28: on the
# held-out tools of examples/fresh (run fresh6, replaying fresh5) it found the savings tool's
# 0-100 range, and its rate queries went 0 -> 5 of 8 (54.7 -> 59.4 %, +5 / -2); both then
# measured by fresh runs (q55, fresh7: docs/results.md).
# format-probes is on since 2026-11-28: on the held-out tools made opaque (run fresh-opq2,
# replaying fresh-opq1) the pace tool, whose calls all failed ("bad time '2 hours'"), ran on
# "12:30" and got 5 valid calls (running_pace 4 -> 6 of 8), the shipping tool on "US"; it tries
# only while no call of a tool has worked, and makes no LLM call.
# reread and relabel are off since 2026-11-29: switched off, neither changed accuracy in any
# measurement (abl2 on the example tools: 72.2 % without reread, 70.4 % without relabel, 71.3 %
# with both, +0 / -1 and +2 / -1; opaque BFCL (a): no shipped doc changed; the held-out tools,
# fresh16-norr against fresh16: 62.5 against 60.9 %, +2 / -1), and re-reading spends 7 % of a
# run's model time (fresh16) on refusing requests, among them the difficult ones D0 fails
# (fresh16's shipping requests, "to Canada", refused for a reading that wrote 'Canada').
# dimensions is on since 2026-11-29: executions only, no LLM call; it found the held-out paint
# tool's centimetres, which no error states (replays fresh19s, fresh20s: 65.6 %, noise-level
# against 64.1 % before; docs/results.md).
# sibling-contrast is on since 2026-12-02 (issue 72: a tool's requests sent to another):
# measured on examples/silent, docs/results.md.
# option-effects is on since 2026-12-02 (issue 72: what an optional argument changes):
# measured on examples/silent, docs/results.md.
# conventions, schema-facts and unasked-tests are on since 2026-12-02 (issue 72: silent
# conventions, facts in the schema, optional arguments left out): measured on
# examples/silent, docs/results.md.
DEFAULT_EVIDENCE: tuple[str, ...] = tuple(n for n in EVIDENCE if n not in (
    DOC_COMPLETION, VALUE_PROBES, REQUEST_PARTS, KNOWN_OPERATIONS,
    OUTPUT_UNITS, REREAD, RELABEL, LEVELS))


def active(config: Any) -> tuple[str, ...]:
    """The components ``config`` turns on, in :data:`EVIDENCE`'s order: those its ``evidence``
    list names, less those its count or switch turns off (``probe``, ``evidence_notes``,
    ``fact_tests`` 0, ``set_check`` 0)."""
    named = set(getattr(config, "evidence", DEFAULT_EVIDENCE))
    off = {PROBES: not config.probe, VALUE_PROBES: not config.probe or PROBES not in named,
           RANGE_SEARCH: not config.probe or PROBES not in named,
           FORMAT_PROBES: not config.probe or PROBES not in named,
           DIMENSIONS: not config.probe,        # it runs the tool on calls play never made
           LEVELS: not config.probe,            # ... as does this one
           CONVENTIONS: not config.probe,       # ... and this one
           FACTS_DOC: not config.evidence_notes,
           FACT_TESTS: config.fact_tests <= 0, UNASKED_TESTS: config.fact_tests <= 0,
           SET_CHECK: config.set_check <= 0,
           SIBLING_CONTRAST: config.set_check <= 0 or SET_CHECK not in named}
    return tuple(n for n in EVIDENCE if n in named and not off.get(n, False))


def _listed(given: str) -> set[str]:
    """The components an ``--evidence`` value names (:func:`chosen`)."""
    from play2prompt.errors import UserError

    items = [n.strip() for n in given.split(",") if n.strip()]
    plain = [n for n in items if n[:1] not in "+-"]
    moves = [(n[0], n[1:]) for n in items if n[:1] in "+-"]
    unknown = [n for n in plain if n not in (*EVIDENCE, "all", "none")] + [
        n for _, n in moves if n not in EVIDENCE]
    if unknown or not items or (len(plain) > 1 and {"all", "none"} & set(plain)):
        raise UserError(f"--evidence takes all, none or a comma list of "
                        f"{', '.join(EVIDENCE)} (-NAME, +NAME: one off, one on); "
                        f"got {given!r}")
    if not plain:
        names = set(DEFAULT_EVIDENCE)
    else:
        names = set(EVIDENCE) if "all" in plain else set(plain) - {"none"}
    for sign, name in moves:
        names = names | {name} if sign == "+" else names - {name}
    return names


def chosen(given: str | None, *, probe: bool | None = None, facts_doc: bool | None = None,
           fact_tests: int | None = None,
           set_check: int | None = None) -> tuple[str, ...] | None:
    """The components ``p2p optimize --evidence NAME,...`` turns on (``all``, ``none`` or a
    comma list; ``-NAME`` and ``+NAME`` take one off or put one on the default list, or on
    the list the plain names give: ``-reread,-relabel``, ``none,+probes``), with the older
    switches as aliases: ``--probe/--no-probe`` adds or removes ``probes``,
    ``--no-evidence-notes`` removes ``facts-doc``, ``--fact-tests N`` adds ``fact-tests`` (0
    removes it), ``--set-check N`` likewise ``set-check``; a switch given alone changes
    :data:`DEFAULT_EVIDENCE`. None: nothing given (the preset's list)."""
    counts = {FACT_TESTS: fact_tests, SET_CHECK: set_check}
    if given is None and probe is None and facts_doc is None and all(
            n is None for n in counts.values()):
        return None
    names = set(DEFAULT_EVIDENCE) if given is None else _listed(given)
    switches = [(PROBES, probe), (FACTS_DOC, facts_doc),
                *((name, None if n is None else n > 0) for name, n in counts.items())]
    for name, on in switches:
        if on is not None:
            names = names | {name} if on else names - {name}
    return tuple(n for n in EVIDENCE if n in names)
