"""Tool play: rejection sampling of a valid invocation (Step 1's proposal).

The generator writes a call from the documentation (m1, decoded against the tool's parameter
schema); the call is checked against the schema and executed; the output is judged (by code,
plus m2 when the generator can judge). On an error the attempt and its analysis go back into the
next prompt (reflection) and the generator tries again, up to the try budget. Calls already
explored are not executed again; they count as a try and the generator is told to vary.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

from play2prompt.engine import Engine
from play2prompt.jsonutil import derive_seed
from play2prompt.lm.structured import chat_json, object_schema
from play2prompt.lm.toolcalls import grammar_safe
from play2prompt.tools.model import Invocation, Observation, Tool

JUDGE_SCHEMA = object_schema({
    "err_code": {"type": "integer", "enum": [0, -1]},
    "analysis": {"type": "string", "maxLength": 300},
})


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

    @property
    def ok(self) -> bool:
        return self.invocation is not None

    def errors(self) -> list[str]:
        """What the tool itself said about the failed attempts (its error messages)."""
        return [a.observation.error or "" for a in self.attempts
                if a.invocation is not None and not a.observation.ok
                and a.observation.error_type not in ("duplicate", "parse")]

    def to_dict(self) -> dict[str, Any]:
        return {"ok": self.ok, "attempts": [a.to_dict() for a in self.attempts]}


def arguments_schema(parameters: Mapping[str, Any]) -> dict[str, Any]:
    schema = grammar_safe(dict(parameters))
    schema.setdefault("type", "object")
    schema.setdefault("properties", {})
    if schema["properties"]:
        schema.setdefault("additionalProperties", False)
    return schema


def retry_temperature(base: float, attempt: int) -> float:
    """Sampling temperature of the ``attempt``-th try: hotter on each retry, so a model that
    keeps writing the same failing call is pushed to vary it."""
    return min(1.5, base + 0.35 * attempt)


def code_verdict(obs: Observation) -> tuple[int, str]:
    """What code can tell about an output: errors, empty results, error payloads."""
    if not obs.ok:
        return -1, f"{obs.error_type} error: {obs.error}"
    out = obs.output
    if out is None or out == "" or out == [] or out == {}:
        return -1, "the tool returned an empty result"
    if isinstance(out, Mapping):
        for key in ("error", "Error", "errors", "error_message"):
            if out.get(key):
                return -1, f"the tool reported an error: {str(out[key])[:200]}"
    if isinstance(out, str) and out.strip().lower().startswith(("error", "exception")):
        return -1, f"the tool reported an error: {out[:200]}"
    return 0, "executed successfully"


class ToolPlayer:
    """Finds valid invocations of one tool."""

    def __init__(self, tool: Tool, engine: Engine) -> None:
        self.tool = tool                  # the tool with its initial documentation D0
        self.engine = engine
        self.schema = arguments_schema(tool.parameters)

    async def play(self, seed_key: str, guidance: str = "",
                   explored: Collection[str] = ()) -> PlayResult:
        cfg = self.engine.config
        attempts: list[Attempt] = []
        for t in range(cfg.max_tries):
            context = self._context(guidance, attempts, explored)
            messages = self.engine.prompts.render("m1", doc=self.tool.render_doc(),
                                                  context=context, tool=self.tool.name)
            (args,), _ = await chat_json(self.engine.generator, messages, self.schema,
                                         role="generator", seed=derive_seed(seed_key, "m1", t),
                                         temperature=retry_temperature(cfg.temperature, t),
                                         max_tokens=300, validate=False)
            if not isinstance(args, Mapping):
                obs = Observation.failure("parse", "the answer was not a JSON object of arguments")
                attempts.append(Attempt(None, obs, -1, obs.error or ""))
                continue
            inv = Invocation(self.tool.name, dict(args))
            if inv.key() in explored:
                obs = Observation.failure("duplicate", "this exact call was already explored")
                attempts.append(Attempt(inv, obs, -1, "already explored; use different values"))
                continue
            obs = await self.engine.runtime.run(inv)
            verdict, analysis = code_verdict(obs)
            if verdict == 0 and self.engine.llm_grading:
                verdict, analysis = await self._llm_verdict(inv, obs, seed_key, t)
            attempts.append(Attempt(inv, obs, verdict, analysis))
            if verdict == 0:
                return PlayResult(inv, obs, tuple(attempts), seed_key)
        return PlayResult(None, None, tuple(attempts), seed_key)

    async def _llm_verdict(self, inv: Invocation, obs: Observation, seed_key: str,
                           t: int) -> tuple[int, str]:
        messages = self.engine.prompts.render("m2", doc=self.tool.render_doc(),
                                              call=inv.to_python(), output=obs.render())
        (judged,), _ = await chat_json(self.engine.generator, messages, JUDGE_SCHEMA,
                                       role="generator", seed=derive_seed(seed_key, "m2", t),
                                       temperature=0.0, max_tokens=200)
        if not isinstance(judged, Mapping):
            return 0, "executed successfully (judge unreadable)"
        return int(judged["err_code"]), str(judged.get("analysis", ""))

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
