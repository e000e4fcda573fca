"""``p2p lint SOURCE...``: a tool set's documentation checked, no LLM (exit 0 clean, 1 findings
at or above --fail-on, 2 usage error)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Optional

import typer

from play2prompt.cli._common import console, console_err
from play2prompt.lint import Finding, Target, merged


def lint_command(
    sources: Optional[list[str]] = typer.Argument(
        None, help="tools.json, OpenAPI spec (.json/.yaml), Python module (file.py or "
                   "pkg.module); with --mcp: the server's command and arguments, after --"),
    mcp: bool = typer.Option(False, "--mcp", help="SOURCE is an MCP server's command (stdio)"),
    url: Optional[str] = typer.Option(None, help="an MCP server's streamable-HTTP endpoint"),
    env: list[str] = typer.Option([], "--env", help="KEY=VALUE for the MCP server "
                                  "(repeatable)"),
    execute: bool = typer.Option(False, "--exec", help="also run the tools that may run: "
                                 "enum values, defaults and error messages checked"),
    allow_side_effects: list[str] = typer.Option(
        [], "--allow-side-effects", help="with --exec: tools that may change things that may "
        "run anyway (names, comma-separated, or 'all')"),
    as_json: bool = typer.Option(False, "--json", help="print the findings as JSON"),
    sarif: bool = typer.Option(False, "--sarif", help="print the findings as SARIF 2.1.0"),
    output: Optional[Path] = typer.Option(None, "-o", "--output", help="write the report to "
                                          "this file instead of printing it"),
    fail_on: str = typer.Option("error", help="exit 1 when a finding is at least this "
                                "severe: error, warning, info or never"),
    max_tokens: int = typer.Option(300, help="token budget of one tool's documentation "
                                   "(description and parameters)"),
    timeout: float = typer.Option(10.0, help="with --exec: seconds one call may take"),
) -> None:
    """Check tools' documentation for what trips up a model: missing or one-word
    descriptions, parameters without a description, type, unit or enum, undeclared side
    effects, steering text, look-alike siblings, docs over a token budget; with --exec, refused
    enum values and defaults and error messages that teach nothing (with a better message)."""
    from play2prompt import __version__
    from play2prompt.errors import UserError
    from play2prompt.lint import exit_code, lint
    from play2prompt.lint.findings import check_fail_on
    from play2prompt.lint.report import json_report, sarif_report, text_report
    from play2prompt.tools.effects import parse_allow

    check_fail_on(fail_on)
    if as_json and sarif:
        raise UserError("--json and --sarif: choose one")
    if max_tokens < 1:
        raise UserError(f"--max-tokens must be at least 1, got {max_tokens}")
    results = [lint(targets, max_tokens=max_tokens, execute=execute,
                    allow=parse_allow(allow_side_effects), base_dir=base, timeout=timeout,
                    found=found)
               for targets, found, base in _groups(sources or [], mcp, url, env)]
    result = merged(results)
    if sarif:
        text = json.dumps(sarif_report(result.findings, __version__), indent=2) + "\n"
    elif as_json:
        text = json.dumps(json_report(result.findings, result.tools, result.notes), indent=2,
                          ensure_ascii=False) + "\n"
    else:
        text = text_report(result.findings, result.tools, result.notes)
    if output is not None:
        output.parent.mkdir(parents=True, exist_ok=True)
        output.write_text(text, encoding="utf-8")
        console_err.print(f"wrote {len(result.findings)} finding(s) to {output}",
                          highlight=False, markup=False)
    elif as_json or sarif:
        sys.stdout.write(text)
    else:
        console.print(text, markup=False, highlight=False, end="")
    raise typer.Exit(exit_code(result.findings, fail_on))


def _groups(sources: list[str], mcp: bool, url: Optional[str], env: list[str]) -> list[
        tuple[list[Target], list[Finding], Path]]:
    """What to lint, one group per source (its targets, what reading it found, the folder
    its tools run in)."""
    from play2prompt.errors import UserError
    from play2prompt.lint.sources import load_targets, server_targets

    if mcp or url:
        from play2prompt.adapters.mcp import load_mcp_tools
        from play2prompt.cli.mcp_import import _parse_env

        if not sources and not url:
            raise UserError("--mcp needs the server's command after --: p2p lint --mcp -- "
                            "CMD [ARGS...]")
        command, args = (sources[0], sources[1:]) if sources else (None, [])
        tools = load_mcp_tools(command, args, url=url, env=_parse_env(env))
        return [(server_targets(tools), [], Path.cwd())]
    if not sources:
        raise UserError("give a SOURCE: a tools.json, an OpenAPI spec, a Python module, or "
                        "--mcp -- CMD")
    groups = []
    for source in sources:
        targets, found = load_targets(source)
        path = Path(source)
        groups.append((targets, found, path.parent if path.exists() else Path.cwd()))
    return groups


def register(root: typer.Typer) -> None:
    root.command("lint")(lint_command)
