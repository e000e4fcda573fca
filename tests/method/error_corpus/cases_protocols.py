"""Corpus cases from protocols: MCP servers (the official Python SDK's validation errors,
really produced; the reference servers' own messages, quoted from their source) and HTTP APIs'
JSON errors (FastAPI's 422 really produced; GitHub, Stripe, Google, RFC 7807/9457, OpenAI,
JSON:API and Twilio in their documented formats). Text quoted from elsewhere says where.
"""

from __future__ import annotations

import json
from typing import Any

from cases_python import case

SERVERS = "github.com/modelcontextprotocol/servers"
TS_SDK = ("@modelcontextprotocol/sdk McpServer: 'Input validation error: Invalid arguments "
          "for tool <name>: <path>: <issue>' (packages/server/src/server/mcp.ts)")


def sdk(id: str, tool: str, schema: dict[str, str], args: dict[str, Any], setup: str,
        expect: list[tuple[Any, ...]], **more: Any) -> dict[str, Any]:
    return case(id, "mcp", "mcp Python SDK MCPServer (isError text), pydantic 2", tool,
                schema, args, expect, recipe="mcpserver", setup=setup, tool_name=tool,
                **more)


def quoted(id: str, source: str, origin: str, tool: str, schema: dict[str, str],
           args: dict[str, Any], error: str, expect: list[tuple[Any, ...]],
           **more: Any) -> dict[str, Any]:
    return case(id, source, origin, tool, schema, args, expect, recipe="", error=error, **more)


def http(id: str, origin: str, tool: str, schema: dict[str, str], args: dict[str, Any],
         status: int, url: str, body: Any, expect: list[tuple[Any, ...]], indent: int | None
         = None, **more: Any) -> dict[str, Any]:
    """The http executor's text: ``HTTP <status> from <url>: <body cut at 300 chars>``."""
    text = json.dumps(body, indent=indent) if indent else json.dumps(body,
                                                                    separators=(",", ":"))
    return quoted(id, "http", origin, tool, schema, args,
                  f"HTTP {status} from {url.format(**args)}: {text[:300]}", expect,
                  error_type="http", **more)


ADD = """
@server.tool()
def add(a: int, b: int) -> int:
    return a + b
"""
LIST_ITEMS = """
from typing import Annotated, Literal
from pydantic import Field
@server.tool()
def list_items(order: Literal["asc", "desc"] = "asc",
               limit: Annotated[int, Field(ge=1, le=100)] = 10) -> list:
    return []
"""
ORDER = """
from pydantic import BaseModel, Field
class Line(BaseModel):
    sku: str
    qty: int = Field(ge=1)
@server.tool()
def create_order(items: list[Line]) -> str:
    return "ok"
"""
MISC = """
import datetime
@server.tool()
def divide(a: float, b: float) -> float:
    return a / b
@server.tool()
def schedule(when: datetime.date) -> str:
    return str(when)
@server.tool()
def set_flag(enabled: bool) -> bool:
    return enabled
@server.tool()
def scale(factor: float) -> float:
    return factor
"""
FETCH = """
from typing import Annotated
from pydantic import AnyUrl, BaseModel, Field
class Fetch(BaseModel):
    url: AnyUrl
    max_length: Annotated[int, Field(default=5000, gt=0, lt=1000000)]
    start_index: Annotated[int, Field(default=0, ge=0)]
    raw: bool = False
"""
FETCH_ORIGIN = ("mcp-server-fetch: Fetch(**arguments) failing raises McpError(INVALID_PARAMS, "
                "str(e)) (" + SERVERS + " src/fetch); model restated, error by pydantic 2")
FETCH_SCHEMA = {"url": "string", "max_length": "integer", "start_index": "integer",
                "raw": "boolean"}


def fetch(id: str, schema: dict[str, str], args: dict[str, Any],
          expect: list[tuple[Any, ...]]) -> dict[str, Any]:
    return case(id, "mcp", FETCH_ORIGIN, "fetch", schema, args, expect, recipe="mcp_params",
                setup=FETCH, call="lambda a: Fetch(**a)")


GIT = SERVERS + " src/git/src/mcp_server_git/server.py"
TIME = SERVERS + " src/time/src/mcp_server_time/server.py (wrapped by its call_tool)"
FS = SERVERS + " src/filesystem/lib.ts, index.ts (isError text: the Error's message)"
TZ = {"timezone": "string"}
CONVERT = {"source_timezone": "string", "time": "string", "target_timezone": "string"}

MCP = [
    sdk("mcp-add-missing", "add", {}, {"a": 1}, ADD, [("b", "param", ["required"])]),
    sdk("mcp-add-int-parsing", "add", {}, {"a": "x", "b": 2}, ADD,
        [("a", "param", ["exists", "integer"]), ("a", "rejects", ["x"])]),
    sdk("mcp-literal-and-bound", "list_items", {"order": "string", "limit": "integer"},
        {"order": "up", "limit": 500}, LIST_ITEMS,
        [("order", "accepts", ["asc", "desc"]),
         ("limit", "rule", [], "less than or equal to 100"), ("limit", "rejects", ["500"])]),
    sdk("mcp-crash-hidden", "divide", {"a": "number", "b": "number"}, {"a": 1, "b": 0}, MISC,
        [], note="the SDK hides a crash's text: nothing to read"),
    sdk("mcp-nested-field", "create_order", {"items": "array"},
        {"items": [{"sku": "A1"}]}, ORDER, [("items", "rule", [], "qty")]),
    sdk("mcp-date-parsing", "schedule", {"when": "string"}, {"when": "tomorrow"}, MISC,
        [("when", "rule", [], "valid date"), ("when", "rejects", ["tomorrow"])]),
    sdk("mcp-bool-parsing", "set_flag", {}, {"enabled": "maybe"}, MISC,
        [("enabled", "param", ["exists", "boolean"]), ("enabled", "rejects", ["maybe"])]),
    sdk("mcp-float-type", "scale", {}, {"factor": [1]}, MISC,
        [("factor", "param", ["exists", "number"])]),
    fetch("mcp-fetch-url", FETCH_SCHEMA, {"url": "notaurl"},
          [("url", "rule", [], "valid URL"), ("url", "rejects", ["notaurl"])]),
    fetch("mcp-fetch-max-length", FETCH_SCHEMA, {"url": "https://example.com",
                                                 "max_length": 0},
          [("max_length", "rule", [], "greater than 0"), ("max_length", "rejects", ["0"])]),
    fetch("mcp-fetch-missing", {}, {"max_length": 100}, [("url", "param", ["required"])]),
    quoted("mcp-git-allowed-repo", "mcp", GIT, "git_status", {"repo_path": "string"},
           {"repo_path": "/home/me/other"},
           "Repository path '/home/me/other' is outside the allowed repository '/tmp/repo'",
           [("repo_path", "accepts", ["/tmp/repo"]),
            ("repo_path", "rejects", ["/home/me/other"])]),
    quoted("mcp-git-add-outside", "mcp", GIT, "git_add",
           {"repo_path": "string", "files": "array"},
           {"repo_path": "/tmp/repo", "files": ["../../etc/passwd"]},
           "Path '../../etc/passwd' is outside the repository '/tmp/repo'",
           [("files", "rule", [], "outside the repository")]),
    quoted("mcp-git-branch-dash", "mcp", GIT, "git_create_branch",
           {"repo_path": "string", "branch_name": "string", "base_branch": "string"},
           {"repo_path": "/tmp/repo", "branch_name": "-x"},
           "Invalid branch name: '-x' - cannot start with '-'",
           [("branch_name", "rejects", ["-x"]),
            ("branch_name", "rule", [], "cannot start with '-'")]),
    quoted("mcp-time-zone", "mcp", TIME, "get_current_time", TZ, {"timezone": "Mars/Olympus"},
           "Error processing mcp-server-time query: Invalid timezone: 'No time zone found "
           "with key Mars/Olympus'", [("timezone", "rejects", ["Mars/Olympus"])]),
    quoted("mcp-time-format", "mcp", TIME, "convert_time", CONVERT,
           {"source_timezone": "Europe/Paris", "time": "4pm", "target_timezone": "Asia/Tokyo"},
           "Error processing mcp-server-time query: Invalid time format. Expected HH:MM "
           "[24-hour format]", [("time", "rule", [], "HH:MM")]),
    quoted("mcp-time-missing", "mcp", TIME, "get_current_time", {}, {},
           "Error processing mcp-server-time query: Missing required argument: timezone",
           [("timezone", "param", ["required"])]),
    quoted("mcp-fs-outside", "mcp", FS, "read_text_file", {"path": "string"},
           {"path": "/etc/passwd"},
           "Access denied - path outside allowed directories: /etc/passwd not in /tmp/allowed",
           [("path", "rejects", ["/etc/passwd"]), ("path", "rule", [], "/tmp/allowed")]),
    quoted("mcp-fs-head-tail", "mcp", FS, "read_text_file",
           {"path": "string", "head": "integer", "tail": "integer"},
           {"path": "/tmp/allowed/a.txt", "head": 5, "tail": 5},
           "Cannot specify both head and tail parameters simultaneously",
           [("head", "rule"), ("tail", "rule")]),
    quoted("mcp-ts-too-big-string", "mcp", TS_SDK + "; text from its get-started guide",
           "get-alerts", {"state": "string"}, {"state": "California"},
           "Input validation error: Invalid arguments for tool get-alerts: state: Too big: "
           "expected string to have <=2 characters", [("state", "rule", [], "<=2")]),
    quoted("mcp-ts-too-big-number", "mcp", TS_SDK + "; text from its tests", "search",
           {"query": "string", "limit": "integer"}, {"query": "x", "limit": 100},
           "Input validation error: Invalid arguments for tool search: limit: Too big: "
           "expected number to be <=50", [("limit", "rule", [], "<=50")]),
    quoted("mcp-ts-custom", "mcp", TS_SDK + "; text from its docs", "greet",
           {"name": "string", "times": "integer"}, {"name": "Ada", "times": 99},
           "Input validation error: Invalid arguments for tool greet: times: times must be "
           "at most 5 (was 99)",
           [("times", "rule", [], "at most 5"), ("times", "rejects", ["99"])]),
    quoted("mcp-ts-zod-missing", "mcp", TS_SDK + " with zod 4's default message",
           "create_note", {}, {"body": "hello"},
           "Input validation error: Invalid arguments for tool create_note: title: Invalid "
           "input: expected string, received undefined",
           [("title", "param", ["required", "string"])]),
    quoted("mcp-ts-zod-enum", "mcp", TS_SDK + " with zod 4's default message", "list_notes",
           {"order": "string", "limit": "integer"}, {"order": "newest", "limit": 5},
           'Input validation error: Invalid arguments for tool list_notes: order: Invalid '
           'option: expected one of "asc"|"desc", limit: Too big: expected number to be <=3',
           [("order", "accepts", ["asc", "desc"]), ("limit", "rule", [], "<=3")]),
]

SEARCH_APP = """
from typing import Annotated, Literal
from fastapi import FastAPI, Query
from pydantic import BaseModel, ConfigDict, Field
app = FastAPI()
@app.get("/search")
def search(q: str, order: Literal["asc", "desc"] = "asc",
           limit: Annotated[int, Query(ge=1, le=100)] = 10) -> list:
    return []
@app.get("/items/{item_id}")
def item(item_id: int) -> dict:
    return {}
class Pet(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str = Field(min_length=3)
    age: int = 0
@app.post("/pets")
def pets(pet: Pet) -> Pet:
    return pet
"""


def fastapi(id: str, method: str, path: str, schema: dict[str, str], args: dict[str, Any],
            expect: list[tuple[Any, ...]]) -> dict[str, Any]:
    return case(id, "http", "FastAPI 422 (validation by pydantic 2), really produced", path,
                schema, args, expect, recipe="fastapi", setup=SEARCH_APP, method=method,
                path=path, body="json" if method == "POST" else "query", error_type="http")


GH = "docs.github.com REST API: 'Validation Failed' with an errors list"
STRIPE = "docs.stripe.com/api/errors (error object: type, code, param, message, doc_url)"
GOOGLE = "cloud.google.com/apis/design/errors (google.rpc.Status; BadRequest details)"
OPENAI = "platform.openai.com error object (message, type, param, code)"
PI = {"amount": "number", "currency": "string", "colour": ""}
CHAT = {"model": "string", "messages": "array", "temperature": "number",
        "max_tokens": "integer"}
MSGS = [{"role": "user", "content": "hi"}]

HTTP = [
    fastapi("http-fastapi-missing", "GET", "/search", {"order": "string", "limit": "integer"},
            {"order": "asc"}, [("q", "param", ["required"])]),
    fastapi("http-fastapi-int-path", "GET", "/items/{item_id}", {"item_id": ""},
            {"item_id": "abc"},
            [("item_id", "param", ["exists", "integer"]), ("item_id", "rejects", ["abc"])]),
    fastapi("http-fastapi-literal", "GET", "/search", {"q": "string", "order": "string"},
            {"q": "x", "order": "up"}, [("order", "accepts", ["asc", "desc"])]),
    fastapi("http-fastapi-bound", "GET", "/search", {"q": "string", "limit": "integer"},
            {"q": "x", "limit": 0},
            [("limit", "rule", [], "greater than or equal to 1"),
             ("limit", "rejects", ["0"])]),
    fastapi("http-fastapi-too-short", "POST", "/pets", {"name": "string", "age": "integer"},
            {"name": "ab"}, [("name", "rule", [], "at least 3"), ("name", "rejects", ["ab"])]),
    fastapi("http-fastapi-extra", "POST", "/pets", {"name": "string"},
            {"name": "Rex", "colour": "red"}, [("colour", "param", ["absent"])]),
    fastapi("http-fastapi-body-missing", "POST", "/pets", {"age": "integer"}, {"age": 3},
            [("name", "param", ["required"])]),
    http("http-github-missing-field", GH, "create_issue",
         {"owner": "string", "repo": "string", "title": "string", "body": "string"},
         {"owner": "octo", "repo": "demo", "body": "text"}, 422,
         "https://api.github.com/repos/{owner}/{repo}/issues",
         {"message": "Validation Failed", "errors": [
             {"resource": "Issue", "code": "missing_field", "field": "title"}],
          "documentation_url": "https://docs.github.com/rest/issues/issues#create-an-issue",
          "status": "422"}, [("title", "param", ["required"])]),
    http("http-github-search-invalid", GH, "search_issues", {"q": "string"},
         {"q": "repo:nobody/nothing is:open"}, 422, "https://api.github.com/search/issues",
         {"message": "Validation Failed", "errors": [
             {"message": "The listed users and repositories cannot be searched either because "
                         "the resources do not exist or you do not have permission to view "
                         "them.", "resource": "Search", "field": "q", "code": "invalid"}],
          "documentation_url": "https://docs.github.com/v3/search/", "status": "422"},
         [("q", "rule", [], "cannot be searched")]),
    http("http-github-no-commits", GH, "create_pull",
         {"owner": "string", "repo": "string", "title": "string", "head": "string",
          "base": "string"},
         {"owner": "octo", "repo": "demo", "title": "t", "head": "feature", "base": "main"},
         422, "https://api.github.com/repos/{owner}/{repo}/pulls",
         {"message": "Validation Failed", "errors": [
             {"resource": "PullRequest", "code": "custom",
              "message": "No commits between main and feature"}],
          "documentation_url": "https://docs.github.com/rest/pulls/pulls#create-a-pull-request",
          "status": "422"}, [],
         note="both branches exist and are valid values: nothing to reject"),
    http("http-github-already-exists", GH, "create_label",
         {"owner": "string", "repo": "string", "name": "string", "color": "string"},
         {"owner": "octo", "repo": "demo", "name": "bug", "color": "d73a4a"}, 422,
         "https://api.github.com/repos/{owner}/{repo}/labels",
         {"message": "Validation Failed", "errors": [
             {"resource": "Label", "code": "already_exists", "field": "name"}],
          "documentation_url": "https://docs.github.com/rest/issues/labels#create-a-label",
          "status": "422"}, [("name", "rejects", ["bug"])]),
    http("http-stripe-missing", STRIPE, "create_payment_intent", PI, {"currency": "usd"}, 400,
         "https://api.stripe.com/v1/payment_intents",
         {"error": {"code": "parameter_missing",
                    "doc_url": "https://stripe.com/docs/error-codes/parameter-missing",
                    "message": "Missing required param: amount.", "param": "amount",
                    "type": "invalid_request_error"}}, [("amount", "param", ["required"])],
         indent=2),
    http("http-stripe-integer", STRIPE, "create_payment_intent", PI,
         {"amount": 12.5, "currency": "usd"}, 400, "https://api.stripe.com/v1/payment_intents",
         {"error": {"code": "parameter_invalid_integer",
                    "doc_url": "https://stripe.com/docs/error-codes/parameter-invalid-integer",
                    "message": "Invalid integer: 12.5", "param": "amount",
                    "type": "invalid_request_error"}},
         [("amount", "param", ["exists", "integer"]), ("amount", "rejects", ["12.5"])],
         indent=2),
    http("http-stripe-currency-cut", STRIPE, "create_payment_intent", PI,
         {"amount": 1200, "currency": "xyz"}, 400, "https://api.stripe.com/v1/payment_intents",
         {"error": {"message": "Invalid currency: xyz. Stripe currently supports these "
                               "currencies: usd, aed, afn, all, amd, ang, aoa, ars, aud, awg, "
                               "azn, bam, bbd, bdt, bgn, bif, bmd, bnd, bob, brl, bsd, bwp, "
                               "byn, bzd, cad, cdf, chf, clp, cny, cop, crc, cve, czk, djf, "
                               "dkk, dop, dzd, egp, etb, eur, fjd, fkp, gbp, gel, gip, gmd",
                    "param": "currency", "type": "invalid_request_error"}},
         [("currency", "rejects", ["xyz"]), ("currency", "rule", [], "usd, aed")], indent=2,
         note="the http executor cuts the body at 300 characters, inside the list: an "
              "incomplete list is no set of accepted values"),
    http("http-stripe-unknown", STRIPE, "create_payment_intent", PI,
         {"amount": 1200, "currency": "usd", "colour": "red"}, 400,
         "https://api.stripe.com/v1/payment_intents",
         {"error": {"code": "parameter_unknown",
                    "doc_url": "https://stripe.com/docs/error-codes/parameter-unknown",
                    "message": "Received unknown parameter: colour", "param": "colour",
                    "type": "invalid_request_error"}}, [("colour", "param", ["absent"])],
         indent=2),
    http("http-google-field-violation", GOOGLE + "; values illustrative", "list_events",
         {"calendarId": "string", "maxResults": "integer"},
         {"calendarId": "primary", "maxResults": 1000}, 400,
         "https://example.googleapis.com/v1/events",
         {"error": {"code": 400, "message": "Request contains an invalid argument.",
                    "status": "INVALID_ARGUMENT", "details": [
                        {"@type": "type.googleapis.com/google.rpc.BadRequest",
                         "fieldViolations": [{"field": "max_results",
                                              "description": "Must be between 1 and 500."}]}]}},
         [("maxResults", "rule", [], "between 1 and 500")]),
    http("http-google-invalid-value", GOOGLE + " (protobuf JSON mapping message)",
         "create_event", {"summary": "string", "start_time": "string"},
         {"summary": "standup", "start_time": "tomorrow"}, 400,
         "https://example.googleapis.com/v1/events",
         {"error": {"code": 400, "message": "Invalid value at 'start_time' "
                    "(type.googleapis.com/google.protobuf.Timestamp), \"tomorrow\"",
                    "status": "INVALID_ARGUMENT"}},
         [("start_time", "rejects", ["tomorrow"])], indent=2),
    http("http-google-api-key", GOOGLE + " (its API-key example)", "translate",
         {"q": "string", "target": "string"}, {"q": "hello", "target": "fr"}, 400,
         "https://translation.googleapis.com/language/translate/v2",
         {"error": {"code": 400, "message": "API key not valid. Please pass a valid API key.",
                    "status": "INVALID_ARGUMENT", "details": [
                        {"@type": "type.googleapis.com/google.rpc.ErrorInfo",
                         "reason": "API_KEY_INVALID", "domain": "googleapis.com"}]}}, []),
    http("http-rfc7807-invalid-params", "RFC 7807 section 3 (its example body)", "update_user",
         {"age": "integer", "color": "string"}, {"age": -3, "color": "purple"}, 400,
         "https://example.net/users/42",
         {"type": "https://example.net/validation-error",
          "title": "Your request parameters didn't validate.",
          "invalid-params": [{"name": "age", "reason": "must be a positive integer"},
                             {"name": "color", "reason": "must be 'green', 'red' or 'blue'"}]},
         [("age", "rule", [], "positive integer"),
          ("color", "accepts", ["green", "red", "blue"])]),
    http("http-rfc9457-business", "RFC 9457 section 3 (its out-of-credit example)",
         "send_message", {"account": "string", "text": "string"},
         {"account": "12345", "text": "abc"}, 403, "https://example.com/account/12345/msgs",
         {"type": "https://example.com/probs/out-of-credit",
          "title": "You do not have enough credit.",
          "detail": "Your current balance is 30, but that costs 50.",
          "instance": "/account/12345/msgs/abc", "balance": 30,
          "accounts": ["/account/12345", "/account/67890"]}, []),
    http("http-openai-maximum", OPENAI, "chat", CHAT,
         {"model": "gpt-4o-mini", "messages": MSGS, "temperature": 3, "max_tokens": 2}, 400,
         "https://api.openai.com/v1/chat/completions",
         {"error": {"message": "3 is greater than the maximum of 2 - 'temperature'",
                    "type": "invalid_request_error", "param": None, "code": None}},
         [("temperature", "rule", [], "maximum of 2"), ("temperature", "rejects", ["3"])],
         indent=2),
    http("http-openai-unrecognized", OPENAI, "chat", CHAT,
         {"model": "gpt-4o-mini", "messages": MSGS, "temprature": 0.2}, 400,
         "https://api.openai.com/v1/chat/completions",
         {"error": {"message": "Unrecognized request argument supplied: temprature",
                    "type": "invalid_request_error", "param": None, "code": None}},
         [("temprature", "param", ["absent"])], indent=2),
    http("http-openai-role", OPENAI, "chat", CHAT,
         {"model": "gpt-4o-mini", "messages": [{"role": "systemm", "content": "x"}]}, 400,
         "https://api.openai.com/v1/chat/completions",
         {"error": {"message": "Invalid value: 'systemm'. Supported values are: 'system', "
                               "'assistant', 'user', 'function', 'tool', and 'developer'.",
                    "type": "invalid_request_error", "param": "messages[0].role",
                    "code": "invalid_value"}},
         [("messages", "rule", [], "Supported values")], indent=2),
    http("http-openai-missing", OPENAI, "chat", {"messages": "array"}, {"messages": MSGS}, 400,
         "https://api.openai.com/v1/chat/completions",
         {"error": {"message": "Missing required parameter: 'model'.",
                    "type": "invalid_request_error", "param": "model",
                    "code": "missing_required_parameter"}},
         [("model", "param", ["required"])], indent=2),
    http("http-jsonapi-pointer", "jsonapi.org/examples (error objects: source.pointer)",
         "update_person", {"first_name": "string", "last_name": "string"},
         {"first_name": "J", "last_name": "Doe"}, 422, "https://example.com/people/9",
         {"errors": [{"status": "422", "source": {"pointer": "/data/attributes/firstName"},
                      "title": "Invalid Attribute",
                      "detail": "First name must contain at least two characters."}]},
         [("first_name", "rule", [], "at least two")]),
    http("http-twilio-number", "twilio.com/docs/errors/21211 (Messages API error body)",
         "send_sms", {"To": "string", "From": "string", "Body": "string"},
         {"To": "+15005550001", "From": "+15005550006", "Body": "hi"}, 400,
         "https://api.twilio.com/2010-04-01/Accounts/AC123/Messages.json",
         {"code": 21211, "message": "The 'To' number +15005550001 is not a valid phone number.",
          "more_info": "https://www.twilio.com/docs/errors/21211", "status": 400},
         [("To", "rejects", ["+15005550001"])]),
]

CASES = [*MCP, *HTTP]
