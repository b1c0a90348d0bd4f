"""The browser client's committed API types match the served OpenAPI document (issue 22)."""

from __future__ import annotations

from tests.web.api_types import COMMITTED, generate, served_document


async def test_the_clients_committed_api_types_are_what_the_served_document_generates() -> None:
    """web/src/api/schema.d.ts is openapi-typescript's output for the document the gateway
    serves now: a change of the API that is not regenerated into the client fails here
    (`make web-api-types` rewrites the file)."""
    expected = generate(await served_document())
    assert COMMITTED.read_text() == expected, (
        "web/src/api/schema.d.ts differs from what the served OpenAPI document generates: "
        "run `make web-api-types` and commit the file"
    )
