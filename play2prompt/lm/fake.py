"""A scripted fake LM for tests and benchmarks (no network, no model).

``FakeLM`` answers from, in order: substring rules (the first rule whose substring occurs in the
prompt), a queue of scripted replies, a ``default`` reply, and (with ``fill_schema=True``) a
schema-valid value made up from the request's JSON schema or tools. It honours ``n`` (each
sample is resolved independently), records every request, and can sleep ``latency`` seconds per
call to stand in for a real endpoint.

A reply is a string, a dict/list (sent as JSON), a :class:`Choice`, a :func:`tool_call` or a
callable ``(request, sample_index) -> reply``.
"""

from __future__ import annotations

import asyncio
import json
import random
import re
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from play2prompt.errors import LMError
from play2prompt.lm._base import LM, ChatRequest, Choice, Generation, ToolCall, Usage

Reply = Any


def tool_call(name: str, arguments: Mapping[str, Any] | None = None) -> Choice:
    """A reply that is a native function call."""
    return Choice("", (ToolCall(name, dict(arguments or {})),), "tool_calls")


def prompt_text(request: ChatRequest) -> str:
    """What rules match against: the messages, then the tools' specs (as JSON)."""
    parts = [str(m.get("content") or "") for m in request.messages]
    if request.tools:
        parts.append(json.dumps([dict(t) for t in request.tools]))
    return "\n".join(parts)


class FakeLM(LM):
    can_judge = False  # stands in for the small embedded model

    def __init__(
        self,
        replies: Iterable[Reply] = (),
        rules: Mapping[str, Reply] | Sequence[tuple[str, Reply]] = (),
        default: Reply = None,
        fill_schema: bool = False,
        latency: float = 0.0,
        model_id: str = "fake",
        supports_n: bool = True,
        supports_tools: bool = True,
        max_concurrency: int = 64,
        fingerprint: str | None = None,
    ) -> None:
        super().__init__()
        self.queue: deque[Reply] = deque(replies)
        self.rules: list[tuple[str, Reply]] = list(
            rules.items() if isinstance(rules, Mapping) else rules
        )
        self.default = default
        self.fill_schema = fill_schema
        self.latency = latency
        self.model_id = model_id
        self.supports_n = supports_n
        self.supports_tools = supports_tools
        self.max_concurrency = max_concurrency
        self.max_retries = 0
        self.requests: list[ChatRequest] = []
        self._fingerprint = fingerprint

    @property
    def fingerprint(self) -> str | None:
        """What the test says identifies its script (None: nothing, never reused)."""
        return self._fingerprint

    async def _generate(self, request: ChatRequest) -> Generation:
        self.requests.append(request)
        if self.latency:
            await asyncio.sleep(self.latency)
        choices = tuple(self._resolve(request, i) for i in range(request.n))
        prompt_tokens = sum(len(str(m.get("content") or "").split()) for m in request.messages)
        completion = sum(len(c.text.split()) + 4 * len(c.tool_calls) for c in choices)
        return Generation(choices, Usage(prompt_tokens, completion))

    def _resolve(self, request: ChatRequest, index: int) -> Choice:
        text = prompt_text(request)
        for substring, reply in self.rules:
            if substring in text:
                return _as_choice(reply, request, index)
        if self.queue:
            return _as_choice(self.queue.popleft(), request, index)
        if self.default is not None:
            return _as_choice(self.default, request, index)
        if self.fill_schema:
            return _filled(request, index)
        raise LMError(f"FakeLM: no scripted reply for prompt ending {text[-120:]!r}")


def from_spec(rest: str, **options: Any) -> LM:
    """``fake`` or ``fake:LATENCY``: a schema-filling fake (benchmarks, smoke tests)."""
    try:
        latency = float(rest) if rest else 0.0
    except ValueError:
        raise LMError(f"fake:{rest}: the fake model takes a latency in seconds (fake:0.2), "
                      f"not {rest!r}") from None
    if not 0.0 <= latency < float("inf"):
        raise LMError(f"fake:{rest}: the latency must be a finite number of seconds >= 0")
    options.setdefault("fingerprint", "fake:fill-schema")   # its answers: the seed's, alone
    return FakeLM(fill_schema=True, latency=latency, model_id=f"fake:{rest or 0}", **options)


def _as_choice(reply: Reply, request: ChatRequest, index: int) -> Choice:
    if callable(reply) and not isinstance(reply, Choice):
        reply = reply(request, index)
    if isinstance(reply, Choice):
        return reply
    if isinstance(reply, (dict, list)):
        return Choice(json.dumps(reply), (), "stop")
    return Choice(str(reply), (), "stop")


def _filled(request: ChatRequest, index: int) -> Choice:
    rng = random.Random(request.sample_seed(index))
    if request.tools and request.json_schema is None:
        fn = request.tools[0].get("function", request.tools[0])
        args = sample_from_schema(fn.get("parameters") or {}, rng)
        return Choice("", (ToolCall(fn["name"], args),), "tool_calls")
    schema = request.json_schema or {"type": "string"}
    return Choice(json.dumps(sample_from_schema(schema, rng)), (), "stop")


def sample_from_schema(schema: Mapping[str, Any], rng: random.Random, depth: int = 0) -> Any:
    """A made-up value that satisfies the common subset of JSON Schema."""
    if "const" in schema:
        return schema["const"]
    if schema.get("enum"):
        return rng.choice(list(schema["enum"]))
    for key in ("anyOf", "oneOf"):
        if schema.get(key):
            return sample_from_schema(rng.choice(list(schema[key])), rng, depth + 1)
    kind = schema.get("type", "string")
    if isinstance(kind, list):
        kind = kind[0]
    if kind == "object" or "properties" in schema:
        props: Mapping[str, Any] = schema.get("properties", {}) or {}
        required = set(schema.get("required", props) or [])
        return {k: sample_from_schema(v, rng, depth + 1) for k, v in props.items()
                if k in required or depth == 0}
    if kind == "array":
        items = schema.get("items", {"type": "string"})
        count = max(int(schema.get("minItems", 1)), 1)
        return [sample_from_schema(items, rng, depth + 1) for _ in range(count)]
    if kind == "integer":
        return rng.randint(int(schema.get("minimum", 1)), int(schema.get("maximum", 20)))
    if kind == "number":
        low, high = float(schema.get("minimum", 1)), float(schema.get("maximum", 20))
        return round(rng.uniform(low, high), 2)
    if kind == "boolean":
        return rng.random() < 0.5
    if kind == "null":
        return None
    return rng.choice(["alpha", "beta", "gamma", "delta"]) + str(rng.randint(1, 9))


ReplyFn = Callable[[ChatRequest, int], Reply]

# -- a scripted tool player ------------------------------------------------------------------
M1_MARK = "Write the arguments for a new call to "
M3_MARK = "Values the message must contain"
REREAD_MARK = "Write the arguments."
TASK_MARK = "uses the available functions"
DEMOS_MARK = "Examples of requests"
# A doc that gives a parameter a unit or a range (what the doc-reading task model looks for).
SCALE_WORDS = re.compile(r"\b(percent|percentage|between|at least|at most|minimum|maximum|"
                         r"positive|negative|range|in [a-z]+)\b", re.IGNORECASE)


def play_rules(arguments: Mapping[str, Sequence[Mapping[str, Any]]]
               ) -> list[tuple[str, Reply]]:
    """Rules that make a :class:`FakeLM` play tools plausibly (tests and benchmarks).

    For the tool-play prompt (m1) of a tool named in ``arguments`` the reply is one of its
    candidate argument objects, chosen by the request's seed (include wrong ones to exercise
    errors and reflection); for the query prompt (m3) it is a first-person request stating
    every value the call uses; for the re-reading prompt it is the candidate whose values the
    message states; for the task model's prompt, the doc-reading task model
    (:class:`_ReadsTheDoc`: right where the doc states a unit, a range or a value's form the
    request leaves open). Everything else falls through to the FakeLM's other replies.
    Module-level callables, so an LM built with these rules pickles (Ray).
    """
    options = {name: tuple(dict(a) for a in calls) for name, calls in arguments.items()}
    rules: list[tuple[str, Reply]] = [(f"{M1_MARK}{name}.", _Pick(calls))
                                      for name, calls in options.items()]
    rules.append((M3_MARK, _state_values))
    rules.append((REREAD_MARK, _Reread(options)))
    rules.append((TASK_MARK, _ReadsTheDoc(options)))
    return rules


class _Pick:
    def __init__(self, options: tuple[dict[str, Any], ...]) -> None:
        self.options = options

    def __call__(self, request: ChatRequest, index: int) -> Reply:
        return dict(random.Random(request.sample_seed(index)).choice(self.options))


def _state_values(request: ChatRequest, index: int) -> Reply:
    text = str(request.messages[-1].get("content") or "")
    block = text.split(M3_MARK, 1)[1]
    lines = [ln[2:].partition(": ")[2] for ln in block.splitlines() if ln.startswith("- ")]
    values = [_plain(v) for v in lines if v.strip()]
    return {"query": f"Please help me with {' and '.join(values) or 'this'} for my plans."}


def _plain(value: str) -> str:
    """A value as a person writes it: "America/New_York" is "America New York", a switch is
    on or off."""
    value = value.strip()
    return {"True": "on", "False": "off"}.get(value, value.replace("/", " ").replace("_", " "))


class _Reread:
    """Re-reads a request written by :func:`_state_values`: the candidate call of the tool in
    the prompt whose values the message states (the first such)."""

    def __init__(self, options: Mapping[str, tuple[dict[str, Any], ...]]) -> None:
        self.options = options

    def __call__(self, request: ChatRequest, index: int) -> Reply:
        text = "\n".join(str(m.get("content") or "") for m in request.messages)
        message = text.rsplit("Message: ", 1)[-1]
        for name in self.options:
            if f"Tool: {name}\n" in text:
                return self.find(name, message) or {}
        return {}

    def find(self, name: str, message: str) -> dict[str, Any] | None:
        for args in self.options.get(name, ()):
            if all(_stated(v, message) for v in args.values()):
                return dict(args)
        return None


class _ReadsTheDoc(_Reread):
    """A task model that reads the request's values (the candidate call whose values the
    message states, as re-reading does) and writes each the way the doc tells it to, else the
    way a literal small model would:

    - a text value the message says another way ("America New York" for "America/New_York")
      in the tool's form only when the doc shows that form for its parameter (a listed or
      quoted value with the same separators), else as the message says it;
    - a number as stated only when the doc gives its parameter a unit or a range ("in kg",
      "a percentage between 0 and 100", "must be positive"), else read per hundred (as small
      models read a rate as a fraction).

    With demos in the prompt it writes the values as they show calls written. Nothing here
    knows which doc is right: the call it writes is judged by executing it."""

    def __call__(self, request: ChatRequest, index: int) -> Reply:
        fn = (request.tools or [{}])[0].get("function", {})
        name = fn.get("name", "")
        args = self.find(name, str(request.messages[-1].get("content")))
        if args is None:
            return _filled(request, index)
        if DEMOS_MARK in prompt_text(request):
            return tool_call(name, args)
        properties = (fn.get("parameters") or {}).get("properties") or {}
        return tool_call(name, {k: _as_read(v, _param_doc(k, properties, fn))
                                for k, v in args.items()})


def _param_doc(name: str, properties: Mapping[str, Any], fn: Mapping[str, Any]) -> str:
    """What the doc says of parameter ``name``: its description and listed values, and the
    tool description's sentences that name it."""
    spec = properties.get(name) or {}
    said = [str(spec.get("description") or ""), ", ".join(map(str, spec.get("enum") or ()))]
    said += [s for s in re.split(r"(?<=\.)\s+", str(fn.get("description") or ""))
             if re.search(rf"\b{re.escape(name)}\b", s)]
    return " ".join(said)


def _as_read(value: Any, doc: str) -> Any:
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, str):
        plain = _plain(value)
        return value if plain == value or _shows_form(value, doc) else plain
    if isinstance(value, (int, float)):
        return value if SCALE_WORDS.search(doc) else value / 100
    return value


def _shows_form(value: str, doc: str) -> bool:
    """Whether the doc lists or quotes ``value``, or a value written with its separators."""
    samples = re.findall(r"'([^']+)'|\"([^\"]+)\"", doc)
    shown = [a or b for a, b in samples]
    if "One of:" in doc:
        shown += [v.strip(" .") for v in doc.split("One of:", 1)[1].split(",")]
    marks = {c for c in "/_" if c in value}
    return value in shown or any(marks and marks <= set(v) for v in shown)


def _stated(value: Any, message: str) -> bool:
    if isinstance(value, bool) or value is None or value == "":
        return True
    words = [w.strip(".,!?") for w in message.split()]
    if isinstance(value, str):
        return f" {_plain(value)} " in f" {' '.join(words)} " or value in words
    return str(value) in words
