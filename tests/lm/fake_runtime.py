"""A stand-in for xllamacpp's server in the embedded model's tests: it records every request
body as the runtime would receive it (JSON) and answers from a list; and how Qwen2.5-Coder
writes a call (its header, its arguments' opening and layout), which the tests teach it."""

import json

from play2prompt.lm.prefill import Layout, Opening
from play2prompt.lm.toolcalls import CallHeader

PRETTY = CallHeader('{\n  "name": "', '",\n  "arguments":')
PRETTY_OPENING = Opening(' {\n    "', '":')
PRETTY_LAYOUT = Layout(',\n    "', "\n  }\n}")


class Server:
    def __init__(self, replies):
        self.bodies, self.replies = [], list(replies)

    def handle_chat_completions(self, body):
        self.bodies.append(json.loads(json.dumps(body)))
        return self.replies.pop(0)


def ok(text, usage=None):
    """A reply of the runtime with ``text`` as the message's content."""
    return {"choices": [{"message": {"content": text}, "finish_reason": "stop"}],
            "usage": usage or {}}
