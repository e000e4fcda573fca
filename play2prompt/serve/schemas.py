"""The bodies of the HTTP API (:mod:`play2prompt.serve.http`) as pydantic models, so that its
OpenAPI document says what each route returns: the success bodies and, for every error
status, :class:`ErrorBody`."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, RootModel


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ErrorBody(_Strict):
    """Every error of the API (400, 404, 422, 500)."""

    error: str = Field(description="what went wrong, in one line")


class Health(_Strict):
    status: Literal["ok"]
    runs: list[str] = Field(description="the mounted runs' ids; the first is the default")


class ToolOutcome(_Strict):
    doc_changed: bool
    doc_reason: str
    demos: int = Field(description="verified demonstrations kept")
    scores: dict[str, float | None] = Field(
        description="accuracies of the original and chosen docs (d0_*, best_*)")


class RunSummary(_Strict):
    run_id: str
    config: dict[str, Any]
    stats: dict[str, Any]
    tools: dict[str, ToolOutcome]


class RunList(_Strict):
    runs: list[RunSummary]


class Doc(_Strict):
    description: str
    params: dict[str, str] = Field(description="parameter descriptions by name")


class Call(_Strict):
    name: str
    arguments: dict[str, Any]


class Demo(_Strict):
    query: str
    calls: list[Call]
    answer: str | None = None


class FunctionSpec(BaseModel):
    model_config = ConfigDict(extra="allow")

    name: str
    description: str
    parameters: dict[str, Any]


class FunctionTool(BaseModel):
    """An OpenAI ``tools=`` entry."""

    model_config = ConfigDict(extra="allow")

    type: Literal["function"]
    function: FunctionSpec


class ToolDetail(_Strict):
    run_id: str
    name: str
    doc: Doc
    demos: list[Demo]
    scores: dict[str, float | None]
    stats: dict[str, Any]
    doc_changed: bool
    doc_reason: str
    tool: FunctionTool = Field(description="the tool with the optimized doc")
    original: FunctionTool = Field(description="the tool as it was given")


class ToolsDocument(RootModel[list[dict[str, Any]] | dict[str, Any]]):
    """A JSON export: the format's document (a ``tools=`` list, or an object such as MCP's
    ``{"tools": [...]}``), or with ``sidecar=true`` the format's sidecar object."""


def errors(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """``responses=`` of a route: :class:`ErrorBody` for each status (and 500 always)."""
    described = {400: "Bad request (an unknown format, a format without a sidecar)",
                 404: "Unknown run or tool", 422: "Invalid parameter",
                 500: "Internal error"}
    return {status: {"model": ErrorBody, "description": described[status]}
            for status in (*statuses, 500)}
