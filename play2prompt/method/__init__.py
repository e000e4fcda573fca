"""The Play2Prompt method, and nothing else.

- :mod:`~play2prompt.method.play`: tool play, rejection sampling of valid invocations (m1, m2);
- :mod:`~play2prompt.method.example_search`: Step 1, the beam search over examples
  (m3 query, m4 answer, m5 grade, the task-model test, m6 reflection);
- :mod:`~play2prompt.method.doc_search`: Step 2, the beam search over docs (m8 critique,
  m7 rewrite, scored by the task model's accuracy, guarded by a held-out split);
- :mod:`~play2prompt.method.rewards`: what code can check about an example (R_q, R);
- the task model's prompt (docs plus demos) and one call of it, used by the R_e test, Step
  2's scoring and every evaluation, is the agent's: :mod:`play2prompt.agent.prompt`;
- :mod:`~play2prompt.method.budget`: the most LLM requests one tool can cost.

What small models need beyond the paper (the fact reader, probes, request gates, re-reading and
relabelling, doc completion, fact tests) is the evidence layer, :mod:`play2prompt.evidence`,
each piece named and switchable; the method calls it through
:func:`play2prompt.evidence.registry.evidence_for`. What runs it (the engine, one tool's
pipeline, the run lifecycle) lives outside this package.
"""
