"""The agent loop: a task model calls tools, step by step, until it answers or gives up.

One loop (:func:`~play2prompt.agent._base.run_episode`) and one record
(:class:`~play2prompt.agent._base.Trajectory`); the step formats are
:class:`~play2prompt.agent.calls.CallFormat` (function calling, native or emulated, and
``prompting``) and :class:`~play2prompt.agent.react.ReactFormat` (ReAct text or JSON steps).
"""

from play2prompt.agent._base import (
    Environment,
    Move,
    Step,
    StepFormat,
    Trajectory,
    act,
    note_repeats,
    run_episode,
    truncate,
)
from play2prompt.agent.calls import (
    FINAL_ANSWER_TOOL,
    GIVE_UP_TOOL,
    AgentConfig,
    CallFormat,
    render_observation,
    run_agent,
    system_prompt,
)

__all__ = ["FINAL_ANSWER_TOOL", "GIVE_UP_TOOL", "AgentConfig", "CallFormat", "Environment",
           "Move", "Step", "StepFormat", "Trajectory", "act", "note_repeats",
           "render_observation", "run_agent", "run_episode", "system_prompt", "truncate"]
