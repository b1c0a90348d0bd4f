"""What the command routes share: the Idempotency-Key header, the answer with its
X-Season-Version, and the OpenAPI operations of a route whose key or body is required."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Annotated, TypeVar

from litestar import Response
from litestar.openapi.spec import Operation, Parameter, Reference, RequestBody
from litestar.params import HeaderParameter
from msgspec import Struct

from services.command.service import Outcome

Key = Annotated[
    str | None,
    HeaderParameter(
        name="Idempotency-Key",
        description="Retry-safe key (1 … 200 characters; empty is 400 bad_idempotency_key)",
        min_length=1,
        max_length=200,
    ),
]
T = TypeVar("T", bound=Struct)


def answered(outcome: Outcome[T]) -> Response[T]:
    """The command's answer; one that names the season version after it says it in
    X-Season-Version too, as the reads do (issue 20: read your writes)."""
    version = getattr(outcome.body, "version", None)
    headers = {"X-Season-Version": str(version)} if isinstance(version, int) else None
    return Response(outcome.body, status_code=outcome.status, headers=headers)


@dataclass
class KeyRequired(Operation):
    """The OpenAPI operation of a command that refuses a request without an Idempotency-Key
    (400 idempotency_key_required, after the token check): the document says it is required.
    The parameter stays optional for Litestar, so the token is still checked first."""

    def __post_init__(self) -> None:
        self.parameters = [
            replace(p, required=True)
            if isinstance(p, Parameter) and p.name.lower() == "idempotency-key"
            else p
            for p in self.parameters or []
        ] or None


@dataclass
class BodyRequired(Operation):
    """The OpenAPI operation of a route whose body parameter is optional only so that the
    route itself answers a missing body (422 invalid_body): the document says it is required
    and never null."""

    def __post_init__(self) -> None:
        body = self.request_body
        if isinstance(body, RequestBody):
            for media in body.content.values():
                one_of = getattr(media.schema, "one_of", None)
                if one_of:
                    refs = [s for s in one_of if isinstance(s, Reference)]
                    media.schema = refs[0] if len(refs) == 1 else media.schema
            body.required = True
