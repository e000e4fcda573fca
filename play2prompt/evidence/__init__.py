"""The evidence layer: what small models need beyond the paper's method, each piece named and
switchable (``OptimizeConfig.evidence``, ``p2p optimize --evidence NAME,...``; ``none`` is the
paper's method exactly).

- the fact reader: :mod:`~play2prompt.evidence.error_reading` (with
  :mod:`~play2prompt.evidence.error_text` and :mod:`~play2prompt.evidence.error_shapes`) reads
  what a tool's errors say, :mod:`~play2prompt.evidence.facts` keeps it;
- probes: :mod:`~play2prompt.evidence.probes`;
- Step 1b's fact tests: :mod:`~play2prompt.evidence.fact_tests`.

English words and phrases are data, in ``data/*.json``.
"""
