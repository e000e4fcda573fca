"""Play that discovers an interface: a real Python tool given with no parameters is called
with ``{}`` (all the generator can decode), its real error names the parameters, and the next
try is decoded against a schema that has them. The fake LM writes what the schema it is
decoded against allows, so what it writes shows which schema it was given."""

import asyncio
import json
import textwrap

import pytest

from play2prompt.evidence.facts import FactBook, facts_doc
from play2prompt.evidence.names import DEFAULT_EVIDENCE
from play2prompt.lm.fake import FakeLM, prompt_text, tool_call
from play2prompt.method.discovery import discovered_tool, discovery_stats
from play2prompt.method.example_search import ExampleSpace
from play2prompt.method.play import ToolPlayer
from play2prompt.tools.model import Tool
from tests.conftest import module_context

BARE = {"type": "object", "properties": {}}
M1 = "Write the arguments for a new call to "
M3 = "Write the person's message"
REREAD = "Write the arguments."
QUERY = "What is the area of a triangle with a base of 3 and a height of 4?"

MODULE = textwrap.dedent('''
    def area(base, height):
        return {"area": base * height / 2}

    def scale(**arguments):
        from pydantic import BaseModel

        class Scale(BaseModel):
            value: float
            factor: int

        given = Scale.model_validate(arguments)
        return {"scaled": given.value * given.factor}
''')


@pytest.fixture
def exec_ctx(tmp_path):
    """Tools from a module written here (overrides the shared fixture's examples folder)."""
    with module_context(tmp_path, "shapes.py", MODULE, default_timeout=30.0) as ctx:
        yield ctx


def bare_tool(function, name=""):
    return Tool(name or function, "", BARE, {"python": f"shapes:{function}"})


def fill(values):
    """An m1 / re-reading reply: the values the decoding schema has properties for ({} when
    it has none), as constrained decoding would allow."""
    def reply(request, i):
        props = (request.json_schema or {}).get("properties") or {}
        return {k: v for k, v in values.items() if k in props}
    return reply


def test_a_typeerror_gives_the_next_try_its_parameters(make_engine):
    area = bare_tool("area")
    gen = FakeLM(rules=[(M1, fill({"base": 3, "height": 4}))])
    engine = make_engine([area], gen, max_tries=3)
    result = asyncio.run(ToolPlayer(area, engine).play("s"))
    first, second = result.attempts
    assert first.invocation.arguments == {}
    assert "missing 2 required positional arguments: 'base' and 'height'" in \
        first.observation.error
    schemas = [r.json_schema for r in gen.requests]
    assert schemas[0]["properties"] == {} and schemas[0]["additionalProperties"] is False
    assert set(schemas[1]["properties"]) == {"base", "height"}
    assert schemas[1]["required"] == ["base", "height"]
    assert "base (any, required)" in gen.requests[1].messages[0]["content"]   # the doc too
    assert result.ok and result.invocation.arguments == {"base": 3, "height": 4}
    assert result.observation.output == {"area": 6.0}
    book = FactBook(area, result.facts)
    found = discovered_tool(area, book)
    assert found.required == ["base", "height"] and set(found.properties) == {"base", "height"}
    assert discovered_tool(found, book) is found              # idempotent
    assert discovery_stats(area, found) == {"discovered_parameters": ["base", "height"]}
    doc = facts_doc(found, book)
    assert doc.params["height"] == "height is required."     # the facts doc states it once


def test_a_pydantic_validation_error_gives_names_and_types(make_engine):
    pytest.importorskip("pydantic")
    scale = bare_tool("scale")
    gen = FakeLM(rules=[(M1, fill({"value": 2.5, "factor": 2}))])
    engine = make_engine([scale], gen, max_tries=3)
    result = asyncio.run(ToolPlayer(scale, engine).play("s"))
    assert "Field required" in result.attempts[0].observation.error
    assert result.ok and result.observation.output == {"scaled": 5.0}
    found = discovered_tool(scale, FactBook(scale, result.facts))
    assert found.required == ["factor", "value"]


def _task_model():
    """Answers right only when the tool it is shown has the discovered parameters."""
    def answer(request, i):
        shown = '"height"' in json.dumps([dict(t) for t in request.tools or ()]) or \
            "height (" in prompt_text(request)
        return tool_call("triangle_area", {"base": 3, "height": 4} if shown else {})
    return FakeLM(default=answer)


def test_requests_rereading_and_the_task_model_see_the_discovered_schema(make_engine):
    area = bare_tool("area", "triangle_area")
    gen = FakeLM(rules=[(M1, fill({"base": 3, "height": 4})), (M3, {"query": QUERY}),
                        (REREAD, fill({"base": 3, "height": 4})),
                        ("How should the next request", {"reflection": "Say it plainly."}),
                        ("You work out what an undocumented function does",   # describe
                         {"description": "Returns the area of a triangle.",
                          "parameters": {"base": "the base", "height": "the height"}})])
    task = _task_model()
    engine = make_engine([area], gen, task, lam=1.0, max_tries=3,
                         evidence=(*DEFAULT_EVIDENCE, "reread"))   # off by default
    space = ExampleSpace(area, engine)

    async def run():
        found = await space.propose(None, 1, 0, ["n0"])
        await space.end_iteration(0, [])
        return found

    (ex,) = asyncio.run(run())
    assert ex.verified and ex.invocation.arguments == {"base": 3, "height": 4}
    rereads = [r for r in gen.requests if r.messages[-1]["content"].endswith(REREAD)]
    assert rereads and set(rereads[0].json_schema["properties"]) == {"base", "height"}
    assert ex.solved and ex.r_e == 0.0           # the task model was shown base and height
    assert space.current.required == ["base", "height"]   # the next iteration's snapshot
    assert space.prober.tool is space.current


def test_a_schema_that_declares_no_parameter_decodes_to_the_bare_call():
    """Left open, a real model invents keys (``param1``) whose errors name nothing else."""
    from play2prompt.method.play import arguments_schema

    assert arguments_schema(BARE)["additionalProperties"] is False
    assert arguments_schema({"type": "object"})["additionalProperties"] is False
    assert arguments_schema({**BARE, "additionalProperties": True})["additionalProperties"]
