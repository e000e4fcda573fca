"""The methods Play2Prompt is compared with, run on the same tools, models and accounting.

- :mod:`~play2prompt.baselines.easytool`: EasyTool (Yuan et al. 2024, "EASYTOOL: Enhancing
  LLM-based Agents with Concise Tool Instruction"): one rewrite of each tool's documentation
  into a concise, structured instruction, from the documentation alone (no tool call);
- :mod:`~play2prompt.baselines.draft`: DRAFT (Qu et al. 2024, "From Exploration to Mastery:
  Enabling LLMs to Master Tools via Self-Driven Interactions"): rounds of exploration (the
  generator writes a request and its call, the call is executed), analysis (what the result
  says about the documentation) and rewriting; no demonstrations, no held-out check, a fixed
  number of rounds.

Both are methods of :mod:`play2prompt.optimizers` (``p2p optimize --method easytool|draft``):
their run folders are like Play2Prompt's (``result.json``, ``tools.optimized.json``, ``run.db``
with every call and candidate), with the LLM calls and tokens of each tool in its stats. Their
meta-prompts are files in :mod:`play2prompt.metaprompts` (``easytool_*``, ``draft_*``),
written here from the papers' method descriptions.
"""

TEMPLATES = ("easytool_rewrite", "draft_explore", "draft_analyze", "draft_rewrite")
