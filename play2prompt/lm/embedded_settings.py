"""The embedded runtime's settings read from the environment (``P2P_EMBEDDED_*``), each with
the measurement that chose its default; :class:`~play2prompt.lm.embedded.EmbeddedLM` takes
each as an argument too, the environment being the default."""

from __future__ import annotations

import os

from play2prompt.errors import LMError


def default_threads() -> int:
    """One llama.cpp thread per core (at most 8). Measured on this project's 2-core machine
    (``bench/bench_ceiling.py``, Qwen2.5-Coder-1.5B): 2 threads process prompts at about
    twice the speed of 1 and generate about 1.5 times faster, and a quick optimize run takes
    half the time; with ``poll = 0`` (no busy-waiting) the threads yield while Python and the
    tools work. ``P2P_EMBEDDED_THREADS`` overrides it."""
    env = os.environ.get("P2P_EMBEDDED_THREADS")
    if env:
        return max(1, int(env))
    return max(1, min(os.cpu_count() or 1, 8))


SPECULATIVE = ("none", "ngram-simple", "ngram-map-k", "ngram-cache", "ngram-mod")
DRAFT_PREFIX = "draft:"   # draft:NAME (a catalogue model) or draft:/path/to/model.gguf


def check_speculative(value: str) -> str:
    """``value`` normalised, or :class:`LMError` naming the accepted forms."""
    value = value.strip() or "none"
    if value.lower() in SPECULATIVE:
        return value.lower()
    draft = value[len(DRAFT_PREFIX):].strip()
    if value.lower().startswith(DRAFT_PREFIX) and draft:
        return DRAFT_PREFIX + draft      # a path keeps its case
    raise LMError(f"speculative decoding must be one of {', '.join(SPECULATIVE)} or "
                  f"{DRAFT_PREFIX}MODEL (a smaller model of the same family), got {value!r}")


def default_speculative() -> str:
    """Speculative decoding of the runtime (``P2P_EMBEDDED_SPECULATIVE``): ``none`` unless
    set; n-gram lookup drafts tokens from text already in the context (JSON that copies values
    from the prompt); ``draft:MODEL`` drafts them with a smaller model of the same vocabulary
    (``draft:qwen2.5-coder-0.5b`` for the 1.5B). Draft tokens are kept only where the model
    would have chosen them itself, so the output is the same. Measured with
    ``bench/bench_ceiling.py --speculative`` and ``bench/bench_replay.py``."""
    return check_speculative(os.environ.get("P2P_EMBEDDED_SPECULATIVE", "none"))


def default_compact_json() -> bool:
    """Constrained JSON written on one line (``P2P_EMBEDDED_COMPACT_JSON=1``): the grammar
    leaves the model no newline or indent between items, which it otherwise spends tokens on
    (``{\\n  "query": ...``). Off unless set: it changes what the model writes, so it is
    measured before it is a default (docs/results.md)."""
    return env_flag("P2P_EMBEDDED_COMPACT_JSON", False)


def env_flag(name: str, default: bool) -> bool:
    """An on/off environment setting: 1/true/yes or 0/false/no; ``default`` unset or else."""
    value = os.environ.get(name, "").strip().lower()
    return True if value in ("1", "true", "yes") else False if value in ("0", "false", "no") \
        else default


def default_call_prefill() -> bool:
    """An emulated call's header written for the model (``P2P_EMBEDDED_CALL_PREFILL=0`` turns
    it off). Every call the task model writes starts the same way (Qwen2.5-Coder-1.5B, 321 of
    321 in run q62: ``{\\n  "name": "convert_units",\\n  "arguments":``), each of those tokens
    forced by the grammar and generated one at a time. Once the model's first calls at
    temperature 0 all start alike (:data:`HEADER_AGREEMENT`), later calls get that start
    written for them, computed as prompt (one batch), and the grammar constrains the rest. The
    text is the model's own; only the arithmetic of those tokens changes, as it does when two
    slots share a batch, so the setting is not part of the fingerprint (docs/results.md#speed).
    """
    return env_flag("P2P_EMBEDDED_CALL_PREFILL", True)


def default_key_prefill() -> bool:
    """What the grammar forces at the start of an answer's JSON written for the model
    (``P2P_EMBEDDED_KEY_PREFILL=0`` turns it off; :mod:`play2prompt.lm.prefill`): with the
    call's header (:func:`default_call_prefill`), the arguments' opening and first key, and
    among several tools the name asked first; in a one-line structured answer, its first key.
    The text is the model's own, as the header's: the grammar leaves no choice, and a call's
    whitespace is the one its first calls agreed on (docs/results.md#speed)."""
    return env_flag("P2P_EMBEDDED_KEY_PREFILL", True)


def default_later_keys() -> bool:
    """A call's later forced keys and its closing written for the model
    (``P2P_EMBEDDED_LATER_KEYS=0`` turns it off; :mod:`play2prompt.lm.later_keys`): with the
    first key written (:func:`default_key_prefill`), the call stops where a value ends, and the
    next required key (or the closing) is written in the model's own layout, learned from its
    first calls as the header is."""
    return env_flag("P2P_EMBEDDED_LATER_KEYS", True)


def default_strict_structured() -> bool:
    """Structured output (a JSON schema, not a tool call) decoded by llguidance's grammar of
    the schema, on one line (``P2P_EMBEDDED_STRICT_STRUCTURED=0`` turns it off). The runtime's
    ``response_format`` path lets undeclared keys and short strings through: in run fresh-opq5
    46 % of the characters the request writer (m3) generated were keys its schema does not
    declare ("parameters", "expected", "response": a whole answer), each dropped unread. Tool
    calls keep the ``response_format`` path: one-line JSON changed the task model's calls
    (docs/results.md)."""
    return env_flag("P2P_EMBEDDED_STRICT_STRUCTURED", True)


def default_slot_affinity() -> bool:
    """Requests sent to the slot that holds their prefix (:mod:`play2prompt.lm.slots`;
    ``P2P_EMBEDDED_SLOT_AFFINITY=0`` leaves the choice to the runtime)."""
    return env_flag("P2P_EMBEDDED_SLOT_AFFINITY", True)
