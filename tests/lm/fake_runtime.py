"""A stand-in for xllamacpp's server in the embedded model's tests: it records every request
body as the runtime would receive it (JSON) and answers from a list."""

import json


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
