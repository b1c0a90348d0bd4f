"""What the served OpenAPI document says an operation can answer (issue 11: every code an
operation can answer is listed for it, and only those): shared by the refusal tests of both APIs.

Each problem answer of an operation lists one example per code it can answer (the example's
key is the code: shared.app.http.openapi.answers), so an operation's documented codes are the keys
of its problem examples, under the status each is sent with. Each problem answer's schema is
the operation's own (issue 20): `code` an enum of those codes, and the extra members they carry
(shared.app.http.openapi CARRIES), typed; a refusal a test receives must validate against it.
"""

from __future__ import annotations

import re
from typing import Any

import httpx
import jsonschema_rs

from services.projections.read_route import declared
from shared.app.http.openapi_problems import CARRIES

SCHEMA = "/v1/schema/openapi.json"
PROBLEM = "application/problem+json"


def operation_of(doc: dict[str, Any], method: str, path: str) -> tuple[str, str] | None:
    """The (method, templated path) of the document that `path` is an instance of."""
    for template, item in doc["paths"].items():
        pattern = "^" + re.sub(r"\\\{\w+\\\}", "[^/]+", re.escape(template)) + "$"
        if method.lower() in item and re.match(pattern, path):
            return method.lower(), template
    return None


def documented_codes(doc: dict[str, Any], method: str, template: str) -> dict[str, int]:
    """code -> status, for every problem example of the operation."""
    op = doc["paths"][template][method]
    out = {}
    for status, response in op["responses"].items():
        media = response.get("content", {}).get(PROBLEM)
        for code in (media or {}).get("examples", {}):
            out[code] = int(status)
    return out


def assert_documented(doc: dict[str, Any], response: httpx.Response) -> tuple[str, str]:
    """The refusal `response` is one its operation documents: its code, under its status."""
    request = response.request
    op = operation_of(doc, request.method, request.url.path)
    code = response.json()["code"]
    if op is None:  # no operation: an unknown route or method, answered by the router
        assert code in ("not_found", "method_not_allowed"), (request.url.path, code)
        return ("", "")
    codes = documented_codes(doc, *op)
    assert codes.get(code) == response.status_code, (
        f"{op}: answered {response.status_code} {code}, which its document does not list"
        f" (it lists {sorted(codes)})"
    )
    assert_typed(doc, op, response)
    return op


RFC_9457 = {"type", "title", "status", "code", "detail", "instance"}


def problem_schema(doc: dict[str, Any], method: str, template: str, status: int) -> dict[str, Any]:
    """The schema the document gives the operation's problem answer of `status`."""
    response = doc["paths"][template][method]["responses"][str(status)]
    return response["content"][PROBLEM]["schema"]  # type: ignore[no-any-return]


_VALIDATORS: dict[tuple[str, str, str, int], Any] = {}


def _validator(doc: dict[str, Any], op: tuple[str, str], status: int) -> Any:
    """The compiled validator of an operation's problem schema, once per document's version:
    compiling it with the whole `components` for every refusal made the suite minutes slower."""
    key = (doc["info"]["version"] + str(len(doc["components"]["schemas"])), *op, status)
    if key not in _VALIDATORS:
        schema = {**problem_schema(doc, *op, status), "components": doc["components"]}
        _VALIDATORS[key] = jsonschema_rs.Draft202012Validator(schema)
    return _VALIDATORS[key]


def assert_typed(doc: dict[str, Any], op: tuple[str, str], response: httpx.Response) -> None:
    """Issue 20: the refusal validates against its operation's problem schema (its code one of
    the enum, each extra member of the declared type), and carries no member its code does not
    declare (CARRIES)."""
    body = response.json()
    validator = _validator(doc, op, response.status_code)
    errors = [e.message for e in validator.iter_errors(body)]
    assert errors == [], f"{op}: {body} does not match its schema: {errors}"
    extra = set(body) - RFC_9457
    assert extra <= set(CARRIES.get(body["code"], ())), (
        f"{op}: {body['code']} carries {sorted(extra)}, which CARRIES does not declare"
    )


_DOCUMENTS: dict[tuple[str, ...], dict[str, Any]] = {}


def app_document(app: Any) -> dict[str, Any]:
    """The app's OpenAPI document, built once per set of routes in this test process (every
    app of one shape serves the same document; building it took about a second per test).
    tests/http/test_problems.py checks that it is the document the app serves, on both
    backends, so a test may check an answer against it instead of fetching the app's own."""
    key = tuple(sorted(f"{sorted(r.methods)}{r.path}" for r in app.routes))
    if key not in _DOCUMENTS:
        _DOCUMENTS[key] = app.openapi_schema.to_schema()
    return _DOCUMENTS[key]


def check_every_problem(client: httpx.AsyncClient, app: Any) -> None:
    """Every problem+json answer `client` receives from `app` must be one its operation
    documents (issue 11): installed on the test clients of both APIs, so that any test that
    drives a refusal also checks the served document lists it. A 500 is a bug, not a refusal
    (its own tests assert it), so it is left to them."""
    doc: dict[str, Any] = {}

    async def check(response: httpx.Response) -> None:
        if not response.headers.get("content-type", "").startswith(PROBLEM):
            return
        if response.status_code == 500:
            return
        if response.request.method == "HEAD":  # GET's answer without its body (ADR-61): the
            return  # GET of the same request is the one to check
        if not doc:
            doc.update(app_document(app))
        await response.aread()
        assert_documented(doc, response)

    client.event_hooks = {
        **client.event_hooks,
        "response": [*client.event_hooks["response"], check],
    }


def answers_table(doc: dict[str, Any]) -> str:
    """docs/api.md's "Answers per operation" table, rendered from the served document: each
    operation's problem codes by status (the test keeps the two the same)."""
    lines = ["| operation | problem answers (status: codes) |", "|---|---|"]
    for path, item in doc["paths"].items():
        for method, _op in item.items():
            by_status: dict[int, list[str]] = {}
            for code, status in documented_codes(doc, method, path).items():
                by_status.setdefault(status, []).append(code)
            cells = "; ".join(
                f"{status}: " + ", ".join(f"`{c}`" for c in sorted(codes))
                for status, codes in sorted(by_status.items())
            )
            lines.append(f"| `{method.upper()} {path}` | {cells or 'none'} |")
    return "\n".join(lines) + "\n"


def reads_table(handlers: Any) -> str:
    """docs/api.md's table of the query API's endpoints, rendered from each one's declaration
    (services/projections/read_route.py: its method and path, `callers` and `what`), in the
    order the routes are matched (tests/projections/test_read_routes.py keeps the two the same)."""
    lines = ["| method and path | who | what |", "|---|---|---|"]
    for handler in handlers:
        read = declared(handler)
        assert read is not None, f"{handler.handler_name}: a query route without `read(...)`"
        path = re.sub(r":\w+\}", "}", handler.paths.copy().pop()).replace("{season_id}", "{id}")
        for method in sorted(handler.http_methods):
            cells = [f"`{method} {path}`", read.callers, read.what]
            lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(lines) + "\n"
