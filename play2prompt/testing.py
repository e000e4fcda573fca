"""The fake LM's former home, kept importable: it lives in :mod:`play2prompt.lm.fake`."""

from play2prompt.lm.fake import M1_MARK, M3_MARK, FakeLM, play_rules, prompt_text, tool_call

__all__ = ["M1_MARK", "M3_MARK", "FakeLM", "play_rules", "prompt_text", "tool_call"]
