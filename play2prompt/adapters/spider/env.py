"""The agent's world for one Spider problem: which tools it sees, and the faults it meets.

- Closed world: the problem's solution functions plus N distractors (the library's tools most
  similar to the question by BM25, so they are plausible), in a fixed shuffled order.
- Open world: two meta-tools, ``search_tools(query, k<=9)`` (BM25 over the short descriptions)
  and ``get_info(name)`` (the full documentation, with demonstrations when given). Tools the
  agent finds become callable.

Faults (:class:`FaultInjector`): with ``fault``, the first solution function the agent calls is
disabled for the rest of the problem and answers "<name> is currently unavailable. Please try
a different function."; the other solution set still answers the question. With ``giveup``,
every solution function is disabled, and the right move is to give up.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from play2prompt.adapters.spider.problems import Problem
from play2prompt.adapters.spider.retrieval import ToolIndex, short_description
from play2prompt.agent.prompt import Demo, render_demos
from play2prompt.tools.model import Invocation, Observation, Tool

SETTINGS = ("none", "fault", "giveup")
WORLDS = ("closed", "open")
MAX_K = 9

SEARCH_TOOL = Tool(
    "search_tools",
    "Search the library of functions. Returns the names and short descriptions of the "
    "functions that best match the query.",
    {"type": "object", "properties": {
        "query": {"type": "string", "description": "What the function should do."},
        "k": {"type": "integer", "minimum": 1, "maximum": MAX_K,
              "description": f"How many functions to return (1 to {MAX_K})."}},
     "required": ["query"]},
)
INFO_TOOL = Tool(
    "get_info",
    "Get the full documentation of a function found with search_tools; the function can then "
    "be called.",
    {"type": "object", "properties": {
        "name": {"type": "string", "description": "The function's name."}},
     "required": ["name"]},
)


def unavailable_message(name: str) -> str:
    return f"{name} is currently unavailable. Please try a different function."


class FaultInjector:
    """Disables solution functions of one problem (see the module docstring)."""

    def __init__(self, setting: str, solution_functions: set[str]) -> None:
        if setting not in SETTINGS:
            raise ValueError(f"setting must be one of {SETTINGS}, got {setting!r}")
        self.setting = setting
        self.solutions = set(solution_functions)
        self.disabled: set[str] = set(self.solutions) if setting == "giveup" else set()
        self.injected: str | None = None   # the function disabled by the fault
        self.fault_messages = 0

    def check(self, name: str) -> Observation | None:
        """The failure for a call of ``name``, or None when it may run."""
        if self.setting == "fault" and self.injected is None and name in self.solutions:
            self.injected = name
            self.disabled.add(name)
        if name in self.disabled:
            self.fault_messages += 1
            return Observation.failure("unavailable", unavailable_message(name))
        return None


def pick_distractors(index: ToolIndex, problem: Problem, n: int) -> list[str]:
    if n <= 0:
        return []
    found = index.search(problem.question, n, exclude=sorted(problem.solution_functions))
    return [t.name for t in found]


def tool_info(tool: Tool, demos: Sequence[Demo] = ()) -> str:
    text = tool.render_doc()
    if demos:
        text += "\n" + render_demos(demos, "function-calling").strip()
    return text


class SpiderEnv:
    """One episode's environment (implements :class:`play2prompt.agent.Environment`)."""

    def __init__(self, problem: Problem, library: Mapping[str, Tool], runtime: Any, *,
                 world: str, setting: str, index: ToolIndex | None = None,
                 distractors: Sequence[str] = (), demos: Mapping[str, Sequence[Demo]] | None
                 = None, seed: int = 0) -> None:
        if world not in WORLDS:
            raise ValueError(f"world must be one of {WORLDS}, got {world!r}")
        self.problem = problem
        self.library = library
        self.runtime = runtime
        self.world = world
        self.index = index
        self.demos = demos or {}
        self.faults = FaultInjector(setting, problem.solution_functions)
        if world == "closed":
            names = sorted(problem.solution_functions) + [d for d in distractors
                                                          if d in library]
            random.Random(f"{seed}:{problem.id}").shuffle(names)
            self.visible = [library[n] for n in names if n in library]
        else:
            self.visible = []
        self.discovered: list[str] = []

    def tools(self) -> Sequence[Tool]:
        if self.world == "closed":
            return self.visible
        return [SEARCH_TOOL, INFO_TOOL, *(self.library[n] for n in self.discovered)]

    def demos_text(self, mode: str) -> str:
        """Demonstrations of the visible tools (closed world) for the system prompt."""
        demos = [d for t in self.visible for d in self.demos.get(t.name, ())]
        return render_demos(demos, mode)

    def _discover(self, name: str) -> None:
        if name in self.library and name not in self.discovered:
            self.discovered.append(name)

    async def execute(self, invocation: Invocation) -> Observation:
        name, args = invocation.name, dict(invocation.arguments)
        if self.world == "open" and name == SEARCH_TOOL.name:
            return self._search(args)
        if self.world == "open" and name == INFO_TOOL.name:
            return self._info(args)
        allowed = ({t.name for t in self.visible} if self.world == "closed"
                   else set(self.library))
        if name not in allowed:
            hint = " (use search_tools to find functions)" if self.world == "open" else ""
            return Observation.failure("unknown_tool", f"no function named {name!r}{hint}")
        failure = self.faults.check(name)
        if failure is not None:
            return failure
        return await self.runtime.run(invocation)

    def _search(self, args: Mapping[str, Any]) -> Observation:
        query = args.get("query")
        if not isinstance(query, str) or not query.strip():
            return Observation.failure("schema", "search_tools needs a text 'query'")
        k = args.get("k", 5)
        k = max(1, min(MAX_K, k if isinstance(k, int) and not isinstance(k, bool) else 5))
        assert self.index is not None
        found = self.index.search(query, k)
        for tool in found:
            self._discover(tool.name)
        return Observation.success([{"name": t.name,
                                     "description": short_description(t.description)}
                                    for t in found])

    def _info(self, args: Mapping[str, Any]) -> Observation:
        name = args.get("name")
        if not isinstance(name, str) or name not in self.library:
            return Observation.failure("unknown_tool",
                                       f"no function named {name!r}; use search_tools")
        self._discover(name)
        return Observation.success(tool_info(self.library[name], self.demos.get(name, ())))
