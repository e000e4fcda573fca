"""Evaluation: a task model on single-turn call-generation items, checked by execution, with
the original prompts (baseline) and with the optimized ones side by side.

- :mod:`~play2prompt.evaluation.items`: :class:`EvalItem`, :class:`EvalSuite`, the sides
  (``baseline``, ``full``, ``desc-only``, ``demo-only``) and the prompt each side builds;
- :mod:`~play2prompt.evaluation.runner`: runs the items (concurrently, resumable);
- :mod:`~play2prompt.evaluation.report`: accuracy and cost tables, output files;
- :mod:`~play2prompt.evaluation.queries`: the user's own query file (``p2p eval tools.json
  --queries FILE``);
- :mod:`~play2prompt.evaluation.session`: :func:`run_evaluation`, the library entry point.
"""
