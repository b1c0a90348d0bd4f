"""What the command routes share: the Idempotency-Key header, the answer with its
X-Season-Version, and the OpenAPI operations of a route whose key or body is required."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Annotated, Any, Protocol, TypeVar

import msgspec
from litestar import Response
from litestar.openapi.spec import Operation, Parameter, Reference, RequestBody
from litestar.params import HeaderParameter
from litestar.response.base import ASGIResponse
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
    headers = {"X-Season-Version": str(version)} if isinstance(version, int) else {}
    return Answer.of(outcome.body, outcome.status, headers)


class _Versioned(Protocol):
    @property
    def version(self) -> int: ...


V = TypeVar("V", bound=_Versioned)


def versioned(body: V, status: int = 200) -> Response[V]:
    """An answer naming the season's `version` that is not a bey's command (a season admin's
    act, ops' corrections and resets, a bey's own view): with X-Season-Version, as `answered`."""
    return Response(body, status_code=status, headers={"X-Season-Version": str(body.version)})


_encoder = msgspec.json.Encoder()


class Answer(Response[T]):
    """A command's answer (a msgspec Struct of plain values), made into the ASGI response
    Litestar's `Response` makes of it, without its general machinery (ADR-119): the body
    encoded once by msgspec, as Litestar's serializer encodes such a Struct, and the same
    header list (the answer's own, content-type, content-length), built as a list instead of
    through a header mapping (~20 µs an order). A route that adds cookies, a background task
    or headers of its own, or a HEAD answer, goes through Litestar's own path.
    tests/http/test_answer.py holds the two equal."""

    @classmethod
    def of(cls, content: T, status: int, headers: dict[str, Any]) -> Answer[T]:
        """`Answer(content, status_code=status, headers=headers)`: the slots Response.__init__
        sets with no cookies, background, media type or encoders, without its isinstance
        checks against typing.Mapping (ADR-130); test_answer.py holds the two equal."""
        made = cls.__new__(cls)
        made.content = content
        made.background = None
        made.cookies = []
        made.encoding = "utf-8"
        made.headers = dict(headers)
        made.media_type = None
        made.status_code = status
        made.response_type_encoders = {**(cls.type_encoders or {})}
        return made

    def to_asgi_response(self, app: Any, request: Any, **route: Any) -> ASGIResponse:
        plain = not (
            self.cookies or self.background or self.media_type or self.encoding != "utf-8"
        ) and (
            not route  # the order fast path passes nothing of a route's (ADR-145, ADR-151)
            or (
                route.get("media_type") in (None, "", "application/json")  # "": JSON
                and not (
                    route.get("background")
                    or route.get("cookies")
                    or route.get("headers")
                    or route.get("is_head_response")
                )
            )
        )
        if not plain:
            return super().to_asgi_response(app, request, **route)
        return _Sent(self.status_code or 200, self.headers, _encoder.encode(self.content))


class _Sent(ASGIResponse):
    """An ASGIResponse with its header list given (Answer): what Litestar's would send."""

    def __init__(self, status: int, headers: dict[str, Any], body: bytes) -> None:
        self.status_code = status
        self.body = body
        self.content_length = len(body)
        self.background = None
        self.is_head_response = False
        self.encoding = "utf-8"
        self._encoded_cookies = ()
        raw = [(k.lower().encode("latin-1"), str(v).encode("latin-1")) for k, v in headers.items()]
        raw.append((b"content-type", b"application/json"))
        raw.append((b"content-length", str(len(body)).encode()))
        self._raw = raw  # a list made by a comprehension, not a generator unpacked (ADR-145)

    def encode_headers(self) -> list[tuple[bytes, bytes]]:
        return list(self._raw)

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        """ASGIResponse.__call__ for what this one is (not a HEAD answer, no background: its
        start_response, send_body and after_response then send these two and do nothing
        else), without their three calls (ADR-151; test_answer.py compares the messages)."""
        await send(
            {"type": "http.response.start", "status": self.status_code, "headers": list(self._raw)}
        )
        await send({"type": "http.response.body", "body": self.body, "more_body": False})


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
