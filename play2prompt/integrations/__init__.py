"""Integrations with agent frameworks: their programs in, Play2Prompt's docs and demos back.

Each integration imports its framework only when used (an extra, e.g. ``play2prompt[dspy]``).
Like the adapters, an integration may import the core, never the reverse.
"""
