"""Issue 71: what a command prints goes through the scrubber that guards what it writes. Tools
whose errors and outputs carry planted secrets (the value of a ``${NAME}`` the tools file
references, keys in the providers' formats, a URL password) are optimized, evaluated, verified
and refreshed, their runs shown, exported and reported: none of the secrets is on standard
output or standard error."""

from __future__ import annotations

import json

import pytest

from play2prompt.cli import main

ENV = "P2P_PLANTED_SECRET"
ENV_VALUE = "planted-Env-v4lue-93x7"      # plain enough that only the run knows it is secret
A36 = "Q1w2E3r4T5y6U7i8O9p0A1s2D3f4G5h6J7k8"
SECRETS = {
    "env": ENV_VALUE,
    "openai": "sk-proj-" + A36,
    "anthropic": "sk-ant-api03-" + A36 + "-AA",
    "github": "ghp_" + A36,
    "aws": "AKIAIOSFODNN7PLANTED"[:20],
    "slack": "xoxb-" + "1234567890-" + A36[:24],
    "google": "AIza" + A36[:35],
    "huggingface": "hf_" + A36,
    "url password": "hunter2-Pl4nted",
}
CORPUS = (f"key {SECRETS['env']}; openai {SECRETS['openai']}; anthropic "
          f"{SECRETS['anthropic']}; github {SECRETS['github']}; aws {SECRETS['aws']}; slack "
          f"{SECRETS['slack']}; google {SECRETS['google']}; hf {SECRETS['huggingface']}; "
          f"db postgres://admin:{SECRETS['url password']}@db.internal:5432/app")

TOOLS_PY = f'''
import os
from pathlib import Path

CORPUS = {CORPUS!r}.replace("{ENV_VALUE}", os.environ.get("{ENV}", "unset"))
FLIP = Path(__file__).parent / "flip"


def lookup(city: str) -> dict:
    """Look a city up: the service refuses, saying too much."""
    raise PermissionError("lookup refused: " + CORPUS)


def weather(city: str) -> dict:
    """The weather of a city (with a debug field saying too much)."""
    if FLIP.exists():
        raise RuntimeError("weather backend down: " + CORPUS)
    return {{"city": city, "temp_c": 21, "debug": CORPUS}}
'''


def _tool(name: str) -> dict:
    return {"type": "function", "function": {
        "name": name, "description": f"The {name} of a city.",
        "parameters": {"type": "object", "required": ["city"],
                       "properties": {"city": {"type": "string", "description": "a city"}}}},
        "executor": {"python": {"function": f"leaky.py:{name}", "env": [ENV]}}}


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.setenv(ENV, ENV_VALUE)
    (tmp_path / "leaky.py").write_text(TOOLS_PY)
    (tmp_path / "tools.json").write_text(json.dumps({"tools": [_tool("lookup"),
                                                               _tool("weather")]}))
    (tmp_path / "queries.jsonl").write_text("".join(json.dumps(q) + "\n" for q in [
        {"id": "q1", "query": "Look up Oslo.",
         "calls": [{"name": "lookup", "arguments": {"city": "Oslo"}}]},
        {"id": "q2", "query": "Weather in Oslo?",
         "calls": [{"name": "weather", "arguments": {"city": "Oslo"}}]}]))
    return tmp_path


def _seen(capsys, label: str, found: dict) -> None:
    out = capsys.readouterr()
    text = out.out + out.err
    for name, secret in SECRETS.items():
        if secret in text:
            found.setdefault(label, []).append(name)


def test_no_command_prints_a_planted_secret(project, capsys):
    runs = project / "runs"
    fake = ["--generator", "fake", "--preset", "quick"]
    found: dict[str, list[str]] = {}
    commands = {
        "optimize": ["optimize", project / "tools.json", *fake, "--run-id", "r",
                     "--runs-dir", runs],
        "eval tools": ["eval", project / "tools.json", "--queries", project / "queries.jsonl",
                       "--task-model", "fake", "-o", project / "e", "--runs-dir", runs],
        "eval tools --json": ["eval", project / "tools.json", "--queries",
                              project / "queries.jsonl", "--task-model", "fake",
                              "-o", project / "e", "--runs-dir", runs, "--json"],
        "runs show": ["runs", "show", "r", "--runs-dir", runs],
        "export": ["export", "r", "--runs-dir", runs, "--format", "markdown"],
        "report": ["report", runs / "r"],
    }
    codes = {}
    for label, args in commands.items():
        codes[label] = main([str(a) for a in args])
        _seen(capsys, label, found)
    (project / "flip").write_text("")            # weather now fails, saying the corpus
    for label, args in {
        "verify": ["verify", "r", "--runs-dir", runs],
        "verify --json": ["verify", "r", "--runs-dir", runs, "--json"],
        "refresh": ["refresh", "r", project / "tools.json", "--generator", "fake",
                    "--run-id", "r2", "--runs-dir", runs],
        "refresh --json": ["refresh", "r", project / "tools.json", "--generator", "fake",
                           "--run-id", "r3", "--runs-dir", runs, "--json"],
    }.items():
        codes[label] = main([str(a) for a in args])
        _seen(capsys, label, found)
    assert codes == {**dict.fromkeys(codes, 0), "verify": 1, "verify --json": 1}
    assert found == {}
