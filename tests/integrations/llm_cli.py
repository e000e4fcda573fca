"""The llm command line with a scripted model (registered through llm's own plugin manager, as
a plugin's ``register_models`` hook would), for the llm plugin's tests: run as
``python llm_cli.py CALL_JSON llm-arguments...``. The model asks for the tool call CALL_JSON
(``{"name", "arguments"}``), prints on stderr the tools it was offered (name: description,
input_schema) as one JSON line, and answers ``RESULT <the tool's output>``."""

import json
import sys

import llm
from llm.cli import cli

CALL = json.loads(sys.argv[1])


class Scripted(llm.Model):
    model_id = "p2p-scripted"
    supports_tools = True

    def execute(self, prompt, stream, response, conversation):
        if not prompt.tool_results:
            offered = {t.name: {"description": t.description, "input_schema": t.input_schema,
                                "plugin": t.plugin} for t in prompt.tools}
            print(json.dumps({"offered": offered}), file=sys.stderr)
            response.add_tool_call(llm.ToolCall(name=CALL["name"], arguments=CALL["arguments"]))
            return
        yield "RESULT " + prompt.tool_results[0].output


class Models:
    @llm.hookimpl
    def register_models(self, register):
        register(Scripted())


if __name__ == "__main__":
    llm.pm.register(Models(), name="p2p-test-models")
    cli.main(sys.argv[2:], prog_name="llm")
