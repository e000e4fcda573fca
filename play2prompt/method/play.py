"""Tool play: rejection sampling of a valid invocation (Step 1's proposal).

The generator writes a call from the documentation (m1, decoded against the tool's parameter
schema); the call is checked against the schema and executed; the output is judged (by code,
plus m2 when the generator judged well in the run's calibration). Every execution feeds the
tool's facts (:mod:`play2prompt.evidence.facts`): values the tool listed as accepted become enums
of the schema the next try is decoded against, and the tool's own words about formats, units and
ranges go into the next prompt with the failed calls. Parameters the tool's errors name that
its schema lacks ("missing 2 required positional arguments: 'base' and 'height'", a pydantic
"Field required") join the schema and the doc of the next try
(:func:`play2prompt.method.discovery.discovered_tool`): a tool given with no parameters is
called with ``{}`` once and with its real ones after. A call that already failed is never
executed again, and a call already explored is not executed again either; both count as a try
and the generator is told to vary.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from play2prompt.evidence.error_text import words
from play2prompt.evidence.facts import Fact, FactBook, known_doc
from play2prompt.evidence.observed import seen
from play2prompt.evidence.registry import evidence_for
from play2prompt.jsonutil import derive_seed
from play2prompt.lm.structured import chat_json
from play2prompt.lm.toolcalls import grammar_safe
from play2prompt.method.calibration import JUDGE_SCHEMA, VERDICT_SCHEMA, VERDICT_TOKENS
from play2prompt.method.discovery import discovered_tool
from play2prompt.tools.model import Invocation, Observation, Tool

if TYPE_CHECKING:  # the engine is passed in; the method needs only its type
    from play2prompt.engine import Engine

NOT_EXECUTED = ("duplicate", "repeat", "parse", "consent")  # never reached the tool


@dataclass(frozen=True)
class Attempt:
    invocation: Invocation | None
    observation: Observation
    verdict: int          # 0: worked, -1: error
    analysis: str

    def to_dict(self) -> dict[str, Any]:
        return {"invocation": self.invocation.to_dict() if self.invocation else None,
                "observation": self.observation.to_dict(), "verdict": self.verdict,
                "analysis": self.analysis}


@dataclass(frozen=True)
class PlayResult:
    invocation: Invocation | None
    observation: Observation | None
    attempts: tuple[Attempt, ...]
    seed_key: str = ""
    facts: tuple[Fact, ...] = ()      # what this play's executions showed (with what it knew)

    @property
    def ok(self) -> bool:
        return self.invocation is not None

    def errors(self) -> list[str]:
        """What the tool itself said about the failed attempts (its error messages)."""
        return [a.observation.error or "" for a in self.attempts
                if a.invocation is not None and not a.observation.ok
                and a.observation.error_type not in NOT_EXECUTED]

    def failed_calls(self) -> dict[str, str]:
        """The executed calls that failed: call key -> what went wrong."""
        return {a.invocation.key(): a.analysis for a in self.attempts
                if a.invocation is not None and a.verdict != 0
                and a.observation.error_type not in NOT_EXECUTED}

    def to_dict(self) -> dict[str, Any]:
        return {"ok": self.ok, "attempts": [a.to_dict() for a in self.attempts]}


def arguments_schema(parameters: Mapping[str, Any]) -> dict[str, Any]:
    """What play's tries are decoded against: the parameters, closed to keys they do not
    declare unless they say otherwise. A schema that declares none decodes to ``{}``: the call
    whose error names the parameters a tool requires (Python's "missing 3 required positional
    arguments", pydantic's "Field required"). Left open, the 1.5B invented ``param1``...
    ``param3`` for every function of opaque BFCL (b), and each error named only that key (run
    bfcl-b72, 2026-12-03: 3 of 31 functions ran, against 25 when the decoder gave ``{}``)."""
    schema = grammar_safe(dict(parameters))
    schema.setdefault("type", "object")
    schema.setdefault("properties", {})
    schema.setdefault("additionalProperties", False)
    return schema


def play_schema(tool: Tool, book: FactBook) -> dict[str, Any]:
    """What a try is decoded against: ``tool``'s parameters (as play knows them:
    :func:`discovered_tool`) with the accepted values ``book`` lists as enums."""
    return book.narrowed_schema(arguments_schema(tool.parameters))


def retry_temperature(base: float, attempt: int) -> float:
    """Sampling temperature of the ``attempt``-th try: hotter on each retry, so a model that
    keeps writing the same failing call is pushed to vary it."""
    return min(1.5, base + 0.35 * attempt)


def found_nothing(output: Any) -> bool:
    """An object whose lists are all empty ({"count": 0, "items": []}): a search that found
    nothing, which makes a poor example (any wrong call finds nothing too)."""
    if not isinstance(output, Mapping):
        return False
    lists = [v for v in output.values() if isinstance(v, list)]
    rest = [v for v in output.values() if not isinstance(v, list)]
    return bool(lists) and not any(lists) and not any(v not in (0, None, "") for v in rest)


def code_verdict(obs: Observation) -> tuple[int, str]:
    """What code can tell about an output: errors, empty results, error payloads."""
    if not obs.ok:
        return -1, f"{obs.error_type} error: {obs.error}"
    out = obs.output
    if out is None or out == "" or out == [] or out == {}:
        return -1, "the tool returned an empty result"
    if found_nothing(out):
        return -1, "the tool found nothing for this call (every list in its result is empty)"
    if isinstance(out, Mapping):
        for key in words("verdict_words.json")["error_keys"]:
            if out.get(key):
                return -1, f"the tool reported an error: {str(out[key])[:200]}"
    if isinstance(out, str) and out.strip().lower().startswith(
            tuple(words("verdict_words.json")["error_prefixes"])):
        return -1, f"the tool reported an error: {out[:200]}"
    impossible = negative_kind(out)
    if impossible:
        return -1, f"the tool's {impossible} is negative, which a {impossible} cannot be: " \
            f"an argument is likely in another convention than the tool's"
    return 0, "executed successfully"


def negative_kind(output: Any) -> str:
    """The first number field of ``output`` (an object, one level of nesting) below zero
    whose name says a kind that cannot be ("distance_km", "count"); "" when none is."""
    kinds = set(words("verdict_words.json")["non_negative"])
    fields = list(output.items()) if isinstance(output, Mapping) else []
    fields += [(k, v) for _, sub in fields if isinstance(sub, Mapping) for k, v in sub.items()]
    for key, value in fields:
        if isinstance(value, (int, float)) and not isinstance(value, bool) and value < 0 and \
                kinds & set(str(key).lower().replace("-", "_").split("_")):
            return str(key)
    return ""


class ToolPlayer:
    """Finds valid invocations of one tool."""

    def __init__(self, tool: Tool, engine: Engine) -> None:
        self.tool = tool                  # the tool with its initial documentation D0
        self.engine = engine

    async def play(self, seed_key: str, guidance: str = "",
                   explored: Collection[str] = (), known: FactBook | None = None,
                   failed: Mapping[str, str] | None = None) -> PlayResult:
        """Up to the try budget, until a call works. ``known``: the tool's facts so far (this
        play adds its own to a copy); ``failed``: calls that failed before (never rerun)."""
        cfg = self.engine.config
        book = FactBook(self.tool, known.all_facts() if known is not None else ())
        failed = dict(failed or {})
        attempts: list[Attempt] = []
        for t in range(cfg.max_tries):
            context = self._context(guidance, attempts, explored)
            tool = discovered_tool(self.tool, book)    # what the earlier tries' errors showed
            messages = self.engine.prompts.render("m1", doc=known_doc(tool, book),
                                                  context=context, tool=self.tool.name)
            (args,), _ = await chat_json(self.engine.generator, messages, play_schema(tool, book),
                                         role="generator", seed=derive_seed(seed_key, "m1", t),
                                         temperature=retry_temperature(cfg.temperature, t),
                                         max_tokens=300, validate=False)
            if not isinstance(args, Mapping):
                obs = Observation.failure("parse", "the answer was not a JSON object of arguments")
                attempts.append(Attempt(None, obs, -1, obs.error or ""))
                continue
            inv = Invocation(self.tool.name, dict(args))
            skipped = self._not_to_run(inv, explored, failed)
            if skipped is not None:
                attempts.append(skipped)
                continue
            obs = seen(await self.engine.runtime.run(inv), self.engine.scrubber)
            evidence_for(self.engine).fact_reader.observe(book, inv, obs)
            verdict, analysis = await self.judge(inv, obs, seed_key, t, tool)
            attempts.append(Attempt(inv, obs, verdict, analysis))
            if verdict == 0:
                return PlayResult(inv, obs, tuple(attempts), seed_key, tuple(book.all_facts()))
            failed[inv.key()] = analysis
        return PlayResult(None, None, tuple(attempts), seed_key, tuple(book.all_facts()))

    @staticmethod
    def _not_to_run(inv: Invocation, explored: Collection[str],
                    failed: Mapping[str, str]) -> Attempt | None:
        """The attempt to record instead of running ``inv`` again, or None to run it."""
        key = inv.key()
        if key in explored:
            obs = Observation.failure("duplicate", "this exact call was already explored")
            return Attempt(inv, obs, -1, "already explored; use different values")
        if key in failed:
            obs = Observation.failure("repeat", "this exact call failed before; not run again")
            return Attempt(inv, obs, -1, f"this exact call failed before: {failed[key][:200]}")
        return None

    async def judge(self, inv: Invocation, obs: Observation, seed_key: str,
                    t: int, tool: Tool | None = None) -> tuple[int, str]:
        """Did the call work: code's verdict, then m2's when the generator judges (0 or -1,
        and why). ``tool``: as play knows it (default: as given)."""
        verdict, analysis = code_verdict(obs)
        if verdict == 0 and self.engine.llm_judge:
            verdict, analysis = await self._llm_verdict(inv, obs, seed_key, t, tool or self.tool)
        return verdict, analysis

    async def _llm_verdict(self, inv: Invocation, obs: Observation, seed_key: str,
                           t: int, tool: Tool) -> tuple[int, str]:
        """m2's verdict at temperature 0; its analysis only for a failure, where play shows it
        in the next try's context (two calls, the second's prompt already cached)."""
        messages = self.engine.prompts.render("m2", doc=tool.render_doc(),
                                              call=inv.to_python(), output=obs.render())
        seed = derive_seed(seed_key, "m2", t)
        (judged,), _ = await chat_json(self.engine.generator, messages, VERDICT_SCHEMA,
                                       role="generator", seed=seed, temperature=0.0,
                                       max_tokens=VERDICT_TOKENS)
        if not isinstance(judged, Mapping):
            return 0, "executed successfully (judge unreadable)"
        if judged["err_code"] == 0:
            return 0, "executed successfully (judged)"
        (why,), _ = await chat_json(self.engine.generator, messages, JUDGE_SCHEMA,
                                    role="generator", seed=seed, temperature=0.0, max_tokens=200)
        return -1, str(why.get("analysis", "")) if isinstance(why, Mapping) else ""

    @staticmethod
    def _context(guidance: str, attempts: list[Attempt], explored: Collection[str]) -> str:
        lines = []
        if guidance:
            lines.append(guidance)
        if explored:
            shown = sorted(explored)[:6]
            lines.append("Calls already explored (choose different values):")
            lines.extend(f"- {k}" for k in shown)
        for i, att in enumerate(attempts, 1):
            call = att.invocation.to_python() if att.invocation else "(unreadable)"
            lines.append(f"Attempt {i}: {call} -> {att.observation.render(300)}")
        if attempts:
            # The latest feedback goes last, where even a small model attends to it.
            lines.append(f"The last call failed: {attempts[-1].analysis}")
            lines.append("Fix that problem: use values the tool accepts.")
        return "\n".join(lines)
