"""The task model's prompt, at its old import path: it lives in :mod:`play2prompt.agent.prompt`
(the agent's vocabulary, below the method and evaluation alike)."""

from play2prompt.agent.prompt import (
    FINISH,
    GIVE_ANSWER,
    GIVE_UP_AND_RESTART,
    MODES,
    REACT_STYLES,
    Demo,
    TaskAttempt,
    TaskPrompter,
    react_step_text,
    render_demos,
)

__all__ = ["FINISH", "GIVE_ANSWER", "GIVE_UP_AND_RESTART", "MODES", "REACT_STYLES", "Demo",
           "TaskAttempt", "TaskPrompter", "react_step_text", "render_demos"]
