"""Ablation sweeps (``p2p sweep``): grids or Optuna searches over Play2Prompt's settings.

- :mod:`~play2prompt.sweep.space`: the parameters, the variants (full, desc-only, demo-only,
  easy) and what one trial runs;
- :mod:`~play2prompt.sweep.target`: a benchmark or the user's tools.json plus a query file;
- :mod:`~play2prompt.sweep.trial`: one trial (shared optimization runs, evaluation, its row);
- :mod:`~play2prompt.sweep.study`: the Optuna study, resume, the trial loop;
- :mod:`~play2prompt.sweep.tables`: the tables and plots;
- :mod:`~play2prompt.sweep.runner`: :func:`run_sweep`, the library entry point.
"""
