"""A read-only HTTP API over finished runs (FastAPI).

Routes (every error is JSON ``{"error": "..."}``, unknown names answer 404; the OpenAPI
document at ``/openapi.json`` gives each route's bodies, :mod:`play2prompt.serve.schemas`):

- ``GET /health``: liveness and the mounted runs.
- ``GET /v1/runs``, ``GET /v1/runs/{run_id}``: run summaries (config, stats, per-tool outcome).
- ``GET /v1/tools?format=openai|anthropic|mcp|...&run=ID&demos=k&demos_inline=&original=``:
  the tools in an export format (JSON formats as JSON, the others as text); ``&sidecar=true``
  gives the format's sidecar instead (openai: the run's metadata and the demo messages).
- ``GET /v1/tools/{name}?run=ID``: one tool: optimized doc, demos, scores, original.

Several runs can be mounted; ``run`` picks one, the first mounted run is the default.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from fastapi import FastAPI, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, PlainTextResponse, Response
from starlette.exceptions import HTTPException

from play2prompt.emit import ExportOptions, JsonExporter, available_exporters, get_exporter
from play2prompt.results import RunResult, ToolResult
from play2prompt.serve.schemas import (
    Health,
    RunList,
    RunSummary,
    ToolDetail,
    ToolsDocument,
    errors,
)


class _NotFound(Exception):
    def __init__(self, message: str, status: int = 404) -> None:
        super().__init__(message)
        self.status = status


def run_summary(run: RunResult) -> dict[str, Any]:
    tools = {name: {"doc_changed": r.doc_changed, "doc_reason": r.doc_reason,
                    "demos": len(r.demos), "scores": dict(r.scores)}
             for name, r in run.tools.items()}
    return {"run_id": run.run_id, "config": dict(run.config), "stats": dict(run.stats),
            "tools": tools}


def tool_detail(run: RunResult, result: ToolResult) -> dict[str, Any]:
    return {
        "run_id": run.run_id,
        "name": result.name,
        "doc": result.doc.to_dict(),
        "demos": [d.to_dict() for d in result.demos],
        "scores": dict(result.scores),
        "stats": dict(result.stats),
        "doc_changed": result.doc_changed,
        "doc_reason": result.doc_reason,
        "tool": result.optimized.to_openai(),
        "original": result.original.to_openai(),
    }


class _Runs:
    """The mounted runs, by id, in mount order."""

    def __init__(self, runs: Sequence[RunResult]) -> None:
        if not runs:
            raise ValueError("mount at least one run")
        self.by_id = {r.run_id: r for r in runs}

    def get(self, run_id: str | None) -> RunResult:
        if run_id is None:
            return next(iter(self.by_id.values()))
        if run_id not in self.by_id:
            raise _NotFound(f"no run {run_id!r} (mounted: {', '.join(self.by_id)})")
        return self.by_id[run_id]


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


def _install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(_NotFound)
    async def not_found(_: Request, exc: _NotFound) -> JSONResponse:
        return _error(exc.status, str(exc))

    @app.exception_handler(HTTPException)
    async def http_error(_: Request, exc: HTTPException) -> JSONResponse:
        return _error(exc.status_code, str(exc.detail))

    @app.exception_handler(RequestValidationError)
    async def bad_request(_: Request, exc: RequestValidationError) -> JSONResponse:
        first = exc.errors()[0] if exc.errors() else {}
        where = ".".join(str(p) for p in first.get("loc", ()) if p != "query")
        return _error(422, f"{where}: {first.get('msg', 'invalid request')}")

    @app.exception_handler(Exception)
    async def internal_error(_: Request, exc: Exception) -> JSONResponse:
        return _error(500, f"internal error ({type(exc).__name__}; see the server's log)")


def _tools_content() -> dict[str, Any]:
    """``/v1/tools``' 200: a JSON document for the JSON formats, text for the others."""
    text = sorted({get_exporter(f).media_type for f in available_exporters()
                   if not isinstance(get_exporter(f), JsonExporter)})
    return {"model": ToolsDocument,
            "description": "The tools in the format asked for (JSON formats as JSON, the "
                           "others as text)",
            "content": {media: {"schema": {"type": "string"}} for media in text}}


def create_app(runs: Sequence[RunResult]) -> FastAPI:
    """The read-only API over ``runs`` (the first one is the default)."""
    mounted = _Runs(runs)
    formats = ", ".join(available_exporters())
    app = FastAPI(title="play2prompt", version="1", summary="Optimized tool docs and demos")
    _install_error_handlers(app)

    @app.get("/health", response_model=Health, responses=errors())
    def health() -> dict[str, Any]:
        return {"status": "ok", "runs": list(mounted.by_id)}

    @app.get("/v1/runs", response_model=RunList, responses=errors())
    def list_runs() -> dict[str, Any]:
        return {"runs": [run_summary(r) for r in mounted.by_id.values()]}

    @app.get("/v1/runs/{run_id}", response_model=RunSummary, responses=errors(404, 422))
    def get_run(run_id: str) -> dict[str, Any]:
        return run_summary(mounted.get(run_id))

    @app.get("/v1/tools", response_class=JSONResponse, responses={
        **errors(400, 404, 422), 200: _tools_content()})
    def get_tools(format: str = Query("openai", description=f"export format: {formats}"),
                  run: str | None = None, demos: int | None = Query(None, ge=0),
                  demos_inline: bool = False, original: bool = False,
                  sidecar: bool = False) -> Response:
        if format not in available_exporters():
            raise _NotFound(f"unknown format {format!r} "
                            f"(known: {', '.join(available_exporters())})", 400)
        exporter = get_exporter(format)
        result = mounted.get(run)
        options = ExportOptions(demos=demos, demos_inline=demos_inline, original=original)
        if isinstance(exporter, JsonExporter):
            if sidecar:
                found = exporter.sidecar_document(result, options)
                if found is None:
                    raise _NotFound(f"format {format!r} has no sidecar", 400)
                return JSONResponse(found)
            return JSONResponse(exporter.document(result, options))
        return PlainTextResponse(exporter.export(result, options), media_type=exporter.media_type)

    @app.get("/v1/tools/{name}", response_model=ToolDetail, responses=errors(404, 422))
    def get_tool(name: str, run: str | None = None) -> dict[str, Any]:
        result = mounted.get(run)
        if name not in result.tools:
            raise _NotFound(f"no tool {name!r} in run {result.run_id!r}")
        return tool_detail(result, result.tools[name])

    return app


def serve(runs: Sequence[RunResult], host: str = "127.0.0.1", port: int = 8700) -> None:
    """Run the API with uvicorn until interrupted (a Ctrl-C reaches the caller)."""
    from play2prompt.serve.asgi import serve_asgi

    serve_asgi(create_app(runs), host=host, port=port, log_level="info")
