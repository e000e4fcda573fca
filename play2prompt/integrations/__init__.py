"""Integrations with agent frameworks, both ways.

- In: a framework's program optimized in place (:mod:`.dspy`: the tools of a DSPy program
  in, docs and demos written back).
- Out: a finished run's tools as a framework's own tool objects around the real functions
  (:mod:`.openai_agents`, :mod:`.pydantic_ai`, :mod:`.langchain`, :mod:`.llamaindex`, each a
  ``tools_from_run``; :mod:`.run_tools` binds the tools to what executes them).

Each integration imports its framework only when used (an extra, e.g. ``play2prompt[dspy]``).
Like the adapters, an integration may import the core, never the reverse.
"""
