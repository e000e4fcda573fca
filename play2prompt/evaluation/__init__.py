"""Evaluation: a task model on single-turn call-generation items, checked by execution, with
the original prompts (baseline) and with the optimized ones side by side.

- :mod:`~play2prompt.evaluation.items`: :class:`EvalItem`, :class:`EvalSuite`, and
  :class:`PromptSide`: which docs and demos a side of a comparison gives the task model
  (``baseline``, ``full``, ``desc-only``, ``demo-only``, ``oracle``; StableToolBench's and
  Spider's sides are PromptSides too);
- :mod:`~play2prompt.evaluation.runner`: runs the items (concurrently, resumable);
- :mod:`~play2prompt.evaluation.report`: accuracy and cost tables, output files;
- :mod:`~play2prompt.evaluation.queries`: the user's own query file (``p2p eval tools.json
  --queries FILE``);
- :mod:`~play2prompt.evaluation.session`: :class:`EvalSession`, the frame of every
  benchmark's evaluation (store created or resumed, one model pool, execution contexts,
  stored items read back), and :func:`run_evaluation`, the library entry point for suites.
"""
