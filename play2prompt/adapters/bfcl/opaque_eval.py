"""``p2p eval bfcl --opaque``: the evaluation with each question's tools hidden.

The suite's items already hold the opaque tools (running the real functions) and their ground
truth by shown names, so execution and checking need nothing new. What a side gives (a run's
optimized docs and demos, the oracle docs, the parameter-description dropout) is keyed by the
real function: each function is optimized once, under whatever name its run gave it, and its
doc and demos are shown in every question that lists it, under that question's name.
:class:`OpaqueEvaluator` looks them up by real name and renames what it shows.

A run whose play discovered parameters the question's spec hides (``--opaque params``: an
empty ``properties``) keeps them in its tools' schemas; the sides that give the run's docs
(:data:`SCHEMA_SIDES`) show them, with their descriptions, added to the question's spec (an
:class:`OpaqueSide`), whether or not the run changed the doc. The docs as given show none.

``p2p sweep --benchmark bfcl --opaque`` evaluates its trials the same way
(:class:`QuestionNamesView`, the sweep target's view).
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from play2prompt.adapters.bfcl.opacity import (
    Opacity,
    real_name,
    renamed_demo,
    renamed_doc,
)
from play2prompt.evaluation.items import EvalItem, EvalSuite, PromptSide, sides_for
from play2prompt.evaluation.opaque import SCHEMA_SIDES, run_names, run_opacity, with_params
from play2prompt.evaluation.runner import EvalResult, EvalSettings, Evaluator
from play2prompt.evaluation.session import (
    EvalOptions,
    EvalSession,
    SuiteRequest,
    eval_config,
    limit_items,
    load_oracle,
)
from play2prompt.jsonutil import derive_seed, stable_hash
from play2prompt.lm._base import LM, ChatRequest
from play2prompt.progress import Reporter
from play2prompt.store.db import RunStore
from play2prompt.store.meta import Meta
from play2prompt.tools.executors._base import ExecContext
from play2prompt.tools.model import Tool
from play2prompt.tools.transform import drop_param_descriptions


@dataclass(frozen=True)
class OpaqueSide(PromptSide):
    """A side keyed by real name, with ``params``: real name -> the parameters the run's tool
    was optimized with (what play discovered included)."""

    params: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {**super().to_dict(), "params": {n: dict(p) for n, p in self.params.items()}}


def run_params(run: Any) -> dict[str, Mapping[str, Any]]:
    """Real name -> the parameters of the run's optimized tool (its doc applied)."""
    if run is None:
        return {}
    return {real_name(r.original): r.optimized.parameters for r in run.tools.values()}


def real_keyed(side: PromptSide, names: Mapping[str, str],
               params: Mapping[str, Mapping[str, Any]] | None = None) -> OpaqueSide:
    """``side`` with its docs and demos keyed (and its demos' calls named) by real name, and
    (on :data:`SCHEMA_SIDES`) the run's ``params``; the dropout is left to
    :class:`OpaqueEvaluator`."""
    keyed = replace(side, docs={names.get(n, n): d for n, d in side.docs.items()},
                    demos={names.get(n, n): tuple(renamed_demo(d, names) for d in demos)
                           for n, demos in side.demos.items()},
                    drop_param_desc=0.0)
    given = dict(params or {}) if side.name in SCHEMA_SIDES else {}
    return OpaqueSide(**{f.name: getattr(keyed, f.name) for f in fields(keyed)}, params=given)


class OpaqueEvaluator(Evaluator):
    """Shows each side's docs and demos under the question's opaque names. ``drop_keys``: real
    name -> the name the dropout draws by (the run's name for it, as in its optimization)."""

    def __init__(self, *args: Any, drop: float = 0.0,
                 drop_keys: Mapping[str, str] | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.drop = drop
        self.drop_keys = dict(drop_keys or {})

    def shown_tools(self, item: EvalItem, side: PromptSide) -> tuple[list[Tool], list[Any]]:
        """The tools and demos ``side`` shows for ``item``, under the item's names."""
        shown = self.suite.item_tools(item)
        reals = [real_name(t) for t in shown]
        keyed = [replace(t, name=self.drop_keys.get(r, r)) for t, r in zip(shown, reals)]
        dropped = drop_param_descriptions(keyed, self.drop, self.settings.seed)
        as_real = [replace(t, name=r) for t, r in zip(dropped, reals)]
        names = {r: t.name for r, t in zip(reals, shown)}
        texts = {k: names[r] for r, k in self.drop_keys.items() if r in names} | names
        params = side.params if isinstance(side, OpaqueSide) else {}
        as_real = [with_params(t, params.get(t.name), texts) for t in as_real]
        tools = []
        for before, tool in zip(as_real, side.tools_for(as_real)):
            if tool.doc != before.doc:
                tool = tool.with_doc(renamed_doc(tool.doc, texts))
            tools.append(replace(tool, name=names[tool.name]))
        return tools, [renamed_demo(d, texts) for d in side.demos_for(as_real)]

    def request(self, item: EvalItem, side: PromptSide) -> ChatRequest:
        tools, demos = self.shown_tools(item, side)
        return self.prompter.request(
            tools, item.query, demos, seed=derive_seed(self.settings.seed, item.id),
            temperature=self.settings.temperature, parallel=item.parallel,
            max_tokens=self.settings.max_tokens)


@dataclass(frozen=True)
class QuestionNamesView:
    """How ``p2p sweep --benchmark bfcl --opaque`` shows the sides and evaluates them, as
    :class:`OpaqueSuiteRequest` does: each side keyed by real name (:func:`real_keyed`), shown
    by an :class:`OpaqueEvaluator` under each question's names. ``drop_keys``: real name -> the
    sweep's name for the function (the name each of its runs optimizes it under, so their
    names), which the dropout draws by on every side, the baseline's included."""

    drop_keys: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def of(cls, tools: Sequence[Tool]) -> QuestionNamesView:
        """The view of a sweep optimizing ``tools`` (opaque tools, their meta naming them)."""
        return cls({real_name(t): t.name for t in tools})

    def side(self, side: PromptSide, run: Any = None, oracle: Sequence[Tool] = ()
             ) -> PromptSide:
        """``side`` (made by :func:`side_for` with ``run`` or ``oracle``) keyed by real name;
        the oracle's docs already are."""
        return real_keyed(side, run_names(run), run_params(run))

    def evaluator(self, suite: EvalSuite, lm: Any, store: RunStore, settings: EvalSettings,
                  ctx: ExecContext, reporter: Reporter | None = None, *,
                  drop: float = 0.0) -> Evaluator:
        """The evaluator of ``suite``; ``drop``: the parameter-description dropout."""
        return OpaqueEvaluator(suite, lm, store, settings, ctx, reporter, drop=drop,
                               drop_keys=self.drop_keys)


@dataclass(frozen=True)
class OpaqueSuiteRequest(SuiteRequest):
    """A BFCL evaluation request whose suite was loaded under ``opacity``."""

    opacity: Opacity = Opacity()

    def run(self, reporter: Reporter | None = None,
            lm: LM | None = None) -> tuple[EvalResult, Path]:
        """As :func:`play2prompt.evaluation.session.run_evaluation`, with an
        :class:`OpaqueEvaluator` (``lm``: a model object instead of ``task_model``)."""
        from play2prompt.evaluation.report import summary_for_store, write_outputs
        from play2prompt.results import load_run_result

        options = EvalOptions(task_model=self.task_model, prompts=self.prompts,
                              variant=self.variant, demos=self.demos,
                              drop_param_desc=self.drop_param_desc, limit=self.limit,
                              max_concurrency=self.max_concurrency, oracle=self.oracle)
        settings = EvalSettings(mode=self.mode, temperature=self.temperature, seed=self.seed)
        run = load_run_result(self.prompts, self.runs_dir) if self.prompts else None
        oracle = load_oracle(self.oracle, self.suite) if self.oracle else []
        suite = limit_items(self.suite, self.limit)
        config = eval_config(suite, options, settings,
                             lm.model_id if lm is not None else self.task_model, run, oracle)
        config["opaque"] = self.opacity.spec
        out = Path(self.out or Path(self.runs_dir)
                   / f"eval-{suite.name}-{stable_hash(config, length=8)}")
        names = run_names(run)
        sides = [real_keyed(s, names, run_params(run)) for s in sides_for(
            options.variant, run, options.demos, 0.0, settings.seed, oracle)]
        with EvalSession.at(out, max_concurrency=self.max_concurrency) as session:
            session.start(config)
            task = session.model(lm if lm is not None else self.task_model)
            session.reuse(task, self.reuse_calls, self.runs_dir)
            ctx = session.context(suite.base_dir, task, options.tool_timeout)
            evaluator = OpaqueEvaluator(suite, task, session.store, settings, ctx, reporter,
                                        drop=self.drop_param_desc,
                                        drop_keys={r: n for n, r in names.items()})
            result = asyncio.run(evaluator.run(sides))
            reused = session.reused()
            if reused:
                session.store.set_meta(Meta.LAST_STATS, reused)
            result.config = config
            summary = summary_for_store(result)
            for side in result.sides:
                session.store.put_eval(f"{suite.name}:{side.side.name}", suite.name, config,
                                       summary)
            write_outputs(result, out, suite.notes)
        return result, out


def opacity_note(run: Any, opacity: Opacity) -> list[str]:
    """A line when the prompts were optimized under another opacity than evaluated."""
    used = sorted(run_opacity(run) - {opacity.spec})
    if not used:
        return []
    return [f"note: the prompts were optimized under --opaque "
            f"{' / '.join(u or '(none)' for u in used)}, evaluated under --opaque "
            f"{opacity.spec or '(none)'}"]
