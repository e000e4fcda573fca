"""The evidence layer: what small models need beyond the paper's method, each piece named and
switchable (``OptimizeConfig.evidence``, ``p2p optimize --evidence NAME,...``; ``none`` is the
paper's method exactly). :mod:`~play2prompt.evidence.names` names the components and counts
their calls, :mod:`~play2prompt.evidence.registry` gives each an interface and builds a run's
set (:func:`~play2prompt.evidence.registry.evidence_for`):

- ``fact-reader``: :mod:`~play2prompt.evidence.error_reading` (with
  :mod:`~play2prompt.evidence.error_text` and :mod:`~play2prompt.evidence.error_shapes`) reads
  what a tool's errors say, :mod:`~play2prompt.evidence.facts` keeps it;
- ``probes``: :mod:`~play2prompt.evidence.probes`;
- ``request-gates``: :mod:`~play2prompt.evidence.gates`;
- ``reread`` and ``relabel``: the request writer's checks
  (:class:`play2prompt.method.requests.RequestWriter`);
- ``doc-completion``: :mod:`~play2prompt.evidence.completion`; ``facts-doc``: the facts doc
  as a candidate of Step 2;
- ``fact-tests``: Step 1b, :mod:`~play2prompt.evidence.fact_tests`.

English words and phrases are data, in ``data/*.json``.
"""
