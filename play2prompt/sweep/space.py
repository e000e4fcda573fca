"""The space of a sweep: which settings vary, the variants, and what one trial runs.

A trial's parameters split in two: the ones that change the optimization (search method,
depth, L, W, N_E, lambda, dropout, seed, the evidence components) and the ones that only
change inference (the variant's prompt side and the number of demos). Trials whose
optimization settings are equal share one optimization run, found by
:func:`TrialPlan.opt_key`.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from play2prompt.config import OptimizeConfig, apply_overrides
from play2prompt.errors import UserError
from play2prompt.evidence.names import SET_CHECK
from play2prompt.jsonutil import stable_hash
from play2prompt.sweep.evidence_axis import evidence_of, expand


@dataclass(frozen=True)
class Variant:
    """An ablation or a method compared: the prompt side evaluated and the optimization
    settings it forces (``method`` picks a baseline's method). A variant that does not
    optimize is a reference: the original docs, or the hand-written oracle docs."""

    name: str
    label: str                      # the paper's name
    side: str                       # evaluation side: full | desc-only | demo-only | oracle
    overrides: Mapping[str, Any] = field(default_factory=dict)
    optimizes: bool = True


# In the order the summary lists them: the original docs, the baselines, Play2Prompt's
# ablations and Play2Prompt, the oracle.
VARIANTS: dict[str, Variant] = {v.name: v for v in (
    Variant("baseline", "baseline", "baseline", optimizes=False),
    Variant("easytool", "EasyTool", "desc-only", {"method": "easytool"}),
    Variant("draft", "DRAFT", "desc-only", {"method": "draft"}),
    Variant("desc-only", "P2P-Desc", "desc-only"),
    Variant("demo-only", "P2P-Demo", "demo-only"),
    Variant("full", "P2P", "full"),
    Variant("easy", "P2P-Easy", "full", {"lam": 0.0}),
    Variant("oracle", "oracle", "oracle", optimizes=False),
)}
BASELINE_LABEL = "baseline"
ORACLE_VARIANT = "oracle"


@dataclass(frozen=True)
class Param:
    name: str
    kind: type
    override: str | None            # OptimizeConfig override name (None: inference only)
    help: str


PARAMS: dict[str, Param] = {p.name: p for p in (
    Param("variant", str, None, "baseline | easytool | draft | desc-only | demo-only | full | "
                                "easy | oracle"),
    Param("search", str, "search", "beam | mc"),
    Param("depth", int, "depth", "T: expansion rounds"),
    Param("expand", int, "expand", "L: children per kept example"),
    Param("width", int, "width", "W: examples kept per iteration"),
    Param("n_e", int, "n_e", "N_E: query refinement rounds"),
    Param("lam", float, "lam", "lambda: weight of the difficulty reward"),
    Param("demos", int, None, "k demonstrations per tool at inference"),
    Param("dropout", float, "drop_param_desc", "p: drop parameter descriptions"),
    Param("seed", int, "seed", "seed of the optimization and of the task model"),
    Param("evidence", str, "evidence", "all | none | -NAME | NAME+NAME | ablation (all, each "
                                       "component off in turn, none): sweep/evidence_axis.py"),
    Param("siblings", int, "siblings", "K: other tools beside each tool when it is scored"),
    Param("sibling_pick", str, "sibling_pick", "random | similar: which K siblings"),
    Param("set_check", int, "set_check", "N: examples per tool the tool-set check asks "
                                         "(0: off)"),
)}
# settings added after sweeps were first keyed, with the value every run had before them:
# left out of a trial's key at that value, so the runs of a sweep begun before keep their
# names (and --resume finds them)
_LATE_SETTINGS = {"sibling_pick": "random", "set_check": 0}
ALIASES = {"L": "expand", "W": "width", "T": "depth", "lambda": "lam", "N_E": "n_e",
           "ne": "n_e", "k": "demos", "p": "dropout", "drop_param_desc": "dropout",
           "variants": "variant"}


def _convert(param: Param, raw: Any) -> Any:
    try:
        value = param.kind(raw)
    except (TypeError, ValueError) as exc:
        raise UserError(f"sweep parameter {param.name}: {raw!r} is not a "
                        f"{param.kind.__name__}") from exc
    if param.name == "variant" and value not in VARIANTS:
        raise UserError(f"unknown variant {value!r} (one of {', '.join(VARIANTS)})")
    if param.name == "evidence":
        evidence_of(value)   # one line for a name that is no component
    if param.name == "search" and value not in ("beam", "mc"):
        raise UserError(f"search must be beam or mc, got {value!r}")
    return value


@dataclass(frozen=True)
class SweepSpace:
    """Parameter name -> the values it takes (a parameter with one value is fixed)."""

    values: Mapping[str, tuple[Any, ...]]

    @classmethod
    def build(cls, raw: Mapping[str, Sequence[Any]]) -> SweepSpace:
        out: dict[str, tuple[Any, ...]] = {}
        for key, values in raw.items():
            name = ALIASES.get(key, key)
            if name not in PARAMS:
                raise UserError(f"unknown sweep parameter {key!r} (one of {', '.join(PARAMS)})")
            values = expand(values) if name == "evidence" else values
            converted = tuple(dict.fromkeys(_convert(PARAMS[name], v) for v in values))
            if not converted:
                raise UserError(f"sweep parameter {name} has no value")
            out[name] = converted
        out.setdefault("variant", ("full",))
        return cls({n: out[n] for n in PARAMS if n in out})

    @classmethod
    def parse(cls, specs: Sequence[str], variants: str | None = None) -> SweepSpace:
        """``NAME=V1,V2`` strings (``--space depth=1,2``) and a comma list of variants."""
        raw: dict[str, list[str]] = {}
        for spec in specs:
            name, sep, values = spec.partition("=")
            if not sep or not name.strip():
                raise UserError(f"--space takes NAME=V1,V2, got {spec!r}")
            raw[name.strip()] = [v.strip() for v in values.split(",") if v.strip()]
        if variants:
            raw["variant"] = [v.strip() for v in variants.split(",") if v.strip()]
        return cls.build(raw)

    def grid(self) -> list[dict[str, Any]]:
        names = list(self.values)
        return [dict(zip(names, combo)) for combo in itertools.product(*self.values.values())]

    def varying(self) -> list[str]:
        return [n for n, v in self.values.items() if len(v) > 1]

    def distributions(self) -> dict[str, Any]:
        import optuna

        return {n: optuna.distributions.CategoricalDistribution(list(v))
                for n, v in self.values.items()}

    def variants(self) -> tuple[str, ...]:
        return tuple(self.values.get("variant", ()))

    def with_variant(self, name: str) -> SweepSpace:
        """The space with variant ``name`` added (last) when it is not there yet."""
        if name in self.variants():
            return self
        return SweepSpace({**self.values, "variant": (*self.variants(), name)})

    def max_demos(self, default: int) -> int:
        return max(self.values.get("demos", (default,)))


@dataclass(frozen=True)
class TrialPlan:
    """What one trial runs: the optimization config and the inference settings."""

    params: Mapping[str, Any]
    variant: Variant
    config: OptimizeConfig
    demos: int

    @property
    def drop(self) -> float:
        return self.config.drop_param_desc

    @property
    def seed(self) -> int:
        return self.config.seed

    def opt_key(self, *context: Any) -> str:
        """Equal for trials whose optimization is the same (``context``: tools, models)."""
        cfg = replace(self.config, max_concurrency=None).to_dict()
        if SET_CHECK not in cfg["evidence"]:   # a count with its component off is none
            cfg["set_check"] = 0
        for name, before in _LATE_SETTINGS.items():   # as the key was before the setting
            if cfg.get(name) == before:
                cfg.pop(name, None)
        return stable_hash(cfg, *context, length=12)


def plan_trial(params: Mapping[str, Any], base: OptimizeConfig, max_demos: int) -> TrialPlan:
    """The trial for ``params`` on top of ``base`` (a preset with the user's overrides).

    The optimization keeps ``max_demos`` demos per tool so that every ``demos`` value of the
    space is served by the same run (the demos are ranked, so the first k are the best k)."""
    variant = VARIANTS[params.get("variant", "full")]
    overrides = {PARAMS[n].override: evidence_of(v) if n == "evidence" else v
                 for n, v in params.items() if n in PARAMS and PARAMS[n].override}
    overrides.update(variant.overrides)
    overrides["demos_per_tool"] = max_demos
    config = apply_overrides(base, **overrides)
    demos = int(params.get("demos", base.demos_per_tool))
    return TrialPlan(dict(params), variant, config, demos)
