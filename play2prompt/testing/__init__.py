"""Test support: reusable contract suites for every pluggable kind, in the manner of
``optuna.testing``, and the fake LM's former import path.

- :mod:`play2prompt.testing.lm`: :class:`~play2prompt.testing.lm.LMContract`;
- :mod:`play2prompt.testing.executors`: :class:`~play2prompt.testing.executors.ExecutorContract`;
- :mod:`play2prompt.testing.exporters`: :class:`~play2prompt.testing.exporters.ExporterContract`;
- :mod:`play2prompt.testing.benchmarks`:
  :class:`~play2prompt.testing.benchmarks.BenchmarkContract`;
- :mod:`play2prompt.testing.optimizers`:
  :class:`~play2prompt.testing.optimizers.OptimizerContract`.

A backend, executor, exporter, benchmark or optimization method of another package gets the
same tests by subclassing the contract in its own test suite with a fixture that builds one; this
repository's tests run every registered one (``tests/*/test_*_contract.py``). The suites need
pytest (the ``dev`` extra). The fake LM itself lives in :mod:`play2prompt.lm.fake`.
"""

from play2prompt.lm.fake import M1_MARK, M3_MARK, FakeLM, play_rules, prompt_text, tool_call

__all__ = ["M1_MARK", "M3_MARK", "FakeLM", "play_rules", "prompt_text", "tool_call"]
