"""Optimization settings and presets.

``depth`` counts the expansion rounds after the initial population of ``width`` candidates:
a beam search evaluates at most ``width + depth * width * expand`` candidates.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass, field, fields, replace
from typing import Any

from play2prompt import limits
from play2prompt.errors import UserError
from play2prompt.evidence.names import DEFAULT_EVIDENCE, EVIDENCE


def split_names(items: Iterable[object] | None) -> list[str]:
    """Names given as repeated options and/or comma lists (``--tools a,b --tools c``), in
    order, blanks dropped."""
    return [n.strip() for item in (items or ()) for n in str(item).split(",") if n.strip()]

@dataclass(frozen=True)
class SearchSettings:
    width: int = 3      # W: candidates kept per iteration
    expand: int = 2     # L: children proposed by each kept candidate
    depth: int = 2      # T: expansion rounds after the initial population
    method: str = "beam"  # beam | mc

    def budget(self) -> int:
        return self.width + self.depth * self.width * self.expand


@dataclass(frozen=True)
class OptimizeConfig:
    examples: SearchSettings = field(default_factory=SearchSettings)
    docs: SearchSettings = field(default_factory=lambda: SearchSettings(2, 2, 1))
    lam: float = 1.0                 # lambda: weight of the difficulty reward R_e
    n_e: int = 2                     # N_E: query refinement rounds per valid invocation
    max_tries: int = 4               # rejection-sampling try budget per invocation
    demos_per_tool: int = 5
    doc_batch: int = 8               # examples per doc evaluation batch
    holdout: float = 0.3             # share of examples held out to guard against D0
    min_examples_for_docs: int = 2
    llm_grading: bool | None = None  # m2 judge and m5 grade by the LLM; None: calibrated
    temperature: float = 0.8         # generator sampling temperature
    task_temperature: float = 0.0    # M_T at inference (paper: 0.001)
    task_mode: str = "function-calling"
    seed: int = 0
    tool_timeout: float = 10.0       # seconds per tool execution (> 0)
    observation_limit: int = 100_000  # characters kept of one tool output or error text
    patience: int | None = None      # early stop after this many rounds without improvement
    drop_param_desc: float = 0.0     # robustness: drop each parameter description with prob p
    optimize_docs: bool = True       # Step 2 on/off
    # the evidence components on (play2prompt.evidence: what small models need beyond the
    # paper); () is the paper's method exactly. The three switches below also turn one off.
    evidence: tuple[str, ...] = DEFAULT_EVIDENCE
    evidence_notes: bool = True      # add the code-written facts doc (D0 + what play showed)
    probe: bool = True               # probe each tool from a call that ran (out-of-range values)
    # Step 1b: requests that state a value the way people say it where that differs from what
    # the tool takes, per fact play established (method/fact_tests.py); 0: off (the paper)
    fact_tests: int = 4
    choose_demo_count: bool = True   # ship 0..k demos as held-out accuracy says; off: always k
    # the tool-set context: the task model sees each tool beside this many other tools of the
    # run (their original docs) when examples and docs are scored; a call to one of them is
    # wrong (play2prompt.method.siblings). 0: the tool alone (the paper)
    siblings: int = 0
    sibling_pick: str = "random"    # which K: random | similar (most alike in shape)
    # the tool-set check: once every tool is done, up to this many verified examples per tool
    # asked with all tools shown, each as it would ship; a change the set does better
    # without is undone (play2prompt.method.tool_set_check; the evidence component
    # set-check). 0: off (the paper)
    set_check: int = 6
    method: str = "play2prompt"      # the optimization method (play2prompt.optimizers)
    draft_rounds: int = 3            # explore-then-rewrite rounds of the DRAFT baseline
    # LLM requests in flight: one number for every model, or {backend kind or spec: number}
    # ("*" for the others); see lm.registry.concurrency_for. Never changes a result.
    max_concurrency: int | dict[str, int] | None = None
    # tools that play, probes and re-reading may execute although they may change things
    # (names, or "all"; see play2prompt.tools.effects). Read-only tools need no consent.
    allow_side_effects: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> OptimizeConfig:
        data = dict(data)
        for key in ("examples", "docs"):
            if isinstance(data.get(key), dict):
                data[key] = SearchSettings(**data[key])
        for key in ("allow_side_effects", "evidence"):
            if isinstance(data.get(key), list):
                data[key] = tuple(data[key])
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in known})


PRESETS: dict[str, OptimizeConfig] = {
    # Small enough for the embedded model on two cores (minutes for six tools).
    "quick": OptimizeConfig(
        examples=SearchSettings(width=2, expand=2, depth=1),
        docs=SearchSettings(width=1, expand=2, depth=1),
        n_e=1, max_tries=3, demos_per_tool=3, doc_batch=6,
    ),
    "default": OptimizeConfig(),
    # The paper's settings: lambda 1, N_E 3, depth 3, L 3, W 10.
    "paper": OptimizeConfig(
        examples=SearchSettings(width=10, expand=3, depth=3),
        docs=SearchSettings(width=3, expand=3, depth=3),
        n_e=3, max_tries=5, demos_per_tool=5, doc_batch=10, task_temperature=0.001,
    ),
}


def preset(name: str, **overrides: Any) -> OptimizeConfig:
    if name not in PRESETS:
        raise UserError(f"unknown preset {name!r} (one of {', '.join(PRESETS)})")
    return apply_overrides(PRESETS[name], **overrides)


def apply_overrides(config: OptimizeConfig, **overrides: Any) -> OptimizeConfig:
    """Apply flat overrides: ``width``/``expand``/``depth``/``search`` go to the example search,
    ``doc_width``/``doc_expand``/``doc_depth`` to the doc search; ``None`` means unchanged."""
    overrides = {k: v for k, v in overrides.items() if v is not None}
    ex = {k: overrides.pop(k) for k in ("width", "expand", "depth") if k in overrides}
    if "search" in overrides:
        ex["method"] = overrides.pop("search")
    docs = {k[4:]: overrides.pop(k) for k in ("doc_width", "doc_expand", "doc_depth")
            if k in overrides}
    known = {f.name for f in fields(OptimizeConfig)}
    unknown = set(overrides) - known
    if unknown:
        raise UserError(f"unknown setting(s): {', '.join(sorted(unknown))}")
    cfg = replace(config, examples=replace(config.examples, **ex),
                  docs=replace(config.docs, **docs), **overrides)
    validate(cfg)
    return cfg


# each number's range (play2prompt.limits) and the flag that sets it
_RANGES: dict[str, tuple[limits.Limit, str]] = {
    "lam": (limits.LAMBDA, "lambda"), "n_e": (limits.N_E, "n-e"),
    "max_tries": (limits.MAX_TRIES, "max-tries"), "demos_per_tool": (limits.COUNT,
                                                                    "demos-per-tool"),
    "doc_batch": (limits.DOC_BATCH, "doc-batch"), "holdout": (limits.SHARE, "holdout"),
    "temperature": (limits.TEMPERATURE, ""), "task_temperature": (limits.TEMPERATURE, ""),
    "seed": (limits.SEED, "seed"), "tool_timeout": (limits.SECONDS, "tool-timeout"),
    "observation_limit": (limits.OBSERVATION_LIMIT, "observation-limit"),
    "drop_param_desc": (limits.SHARE, "drop-param-desc"),
    "fact_tests": (limits.COUNT, "fact-tests"), "siblings": (limits.COUNT, "siblings"),
    "set_check": (limits.COUNT, "set-check"), "draft_rounds": (limits.DRAFT_ROUNDS,
                                                               "draft-rounds"),
    "min_examples_for_docs": (limits.COUNT, ""),
}
_SEARCH = {"width": limits.WIDTH, "expand": limits.EXPAND, "depth": limits.DEPTH}


def _label(name: str, flag: str) -> str:
    name = "lambda" if name == "lam" else name
    return f"{name} (--{flag})" if flag else name


def validate(cfg: OptimizeConfig) -> None:
    """One line for the first setting out of its range (:mod:`play2prompt.limits`) or not
    one of its choices."""
    for name, (limit, flag) in _RANGES.items():
        limit.check(getattr(cfg, name), _label(name, flag))
    if cfg.patience is not None:
        limits.PATIENCE.check(cfg.patience, _label("patience", "patience"))
    if cfg.holdout >= 1.0:
        raise UserError(f"holdout (--holdout) must be below 1, got {cfg.holdout:g}")
    for prefix, s in (("", cfg.examples), ("doc_", cfg.docs)):
        for key, limit in _SEARCH.items():
            limit.check(getattr(s, key), _label(prefix + key, (prefix + key).replace("_", "-")))
        if s.budget() > limits.SEARCH_BUDGET:
            raise UserError(f"the {'doc' if prefix else 'example'} search would try "
                            f"{s.budget()} candidates per tool (width + depth x width x "
                            f"expand); at most {limits.SEARCH_BUDGET}")
        if s.method not in ("beam", "mc"):
            raise UserError(f"search method must be 'beam' or 'mc', got {s.method!r}")
    if cfg.sibling_pick not in ("random", "similar"):
        raise UserError(f"sibling_pick must be random or similar, got {cfg.sibling_pick!r}")
    unknown = [n for n in cfg.evidence if n not in EVIDENCE] if isinstance(
        cfg.evidence, tuple) else ["(not a tuple of names)"]
    if unknown:
        raise UserError(f"unknown evidence component(s) {', '.join(unknown)} (known: "
                        f"{', '.join(EVIDENCE)}; none for the paper's method)")
    limits_ = cfg.max_concurrency
    values = limits_.values() if isinstance(limits_, dict) else [] if limits_ is None else \
        [limits_]
    for value in values:
        limits.MAX_CONCURRENCY.check(value, "max_concurrency (--max-concurrency)")
    if not isinstance(cfg.allow_side_effects, tuple) or \
            not all(isinstance(n, str) and n for n in cfg.allow_side_effects):
        raise UserError("allow_side_effects must be a tuple of tool names (or 'all')")
    if cfg.task_mode not in ("function-calling", "prompting"):
        raise UserError("task_mode must be 'function-calling' or 'prompting'")


def _preset_fields() -> tuple[str, ...]:
    """The settings the presets set apart (what ``--preset`` chooses)."""
    return tuple(f.name for f in fields(OptimizeConfig)
                 if len({repr(getattr(p, f.name)) for p in PRESETS.values()}) > 1)


def resumed_difference(stored: OptimizeConfig, preset_name: str | None,
                       overrides: dict[str, Any]) -> str | None:
    """The first setting that ``--preset`` and the setting flags given with ``--resume``
    would change in the run's ``stored`` settings (``max_concurrency`` and the consent may
    change), as ``name: stored, not given``; None when they change nothing."""
    given = {k: v for k, v in overrides.items()
             if v is not None and k not in ("max_concurrency", "allow_side_effects")}
    wanted = apply_overrides(preset(preset_name) if preset_name else stored, **given)
    search = {"width", "expand", "depth", "search"}
    touched = set(_preset_fields() if preset_name else ())
    touched |= {"examples" if k in search else "docs" if k.startswith("doc_") and
                k != "doc_batch" else k for k in given}
    for f in fields(OptimizeConfig):
        if f.name in touched and getattr(wanted, f.name) != getattr(stored, f.name):
            return f"{f.name}: {_shown(getattr(stored, f.name))}, not " \
                   f"{_shown(getattr(wanted, f.name))}"
    return None


def _shown(value: Any) -> str:
    if isinstance(value, SearchSettings):
        return f"width {value.width}, expand {value.expand}, depth {value.depth}"
    return repr(value)
