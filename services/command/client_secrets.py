"""A secret the client draws itself (ADR-178): the body field of every request that issues a
token or a key, so that a retry after a lost answer makes the same token again and is
recognised by it, with nothing secret kept on the server (only the token's SHA-256, as ever).

Exactly the shape of the server's own secrets (shared/app/access/tokens.py): 32 characters of
the URL-safe base64 alphabet, 24 random bytes, 192 bits. Any other text is 422 `invalid_body`
naming the field (`invalid_body.secret_text`); its value is never echoed.
"""

from __future__ import annotations

from typing import Annotated

import msgspec

from shared.app.access.tokens import SECRET_PATTERN
from shared.app.http.problems import Problem

ClientSecret = Annotated[
    str,
    msgspec.Meta(
        pattern=f"^{SECRET_PATTERN}$",  # the server's own secrets' shape, one definition
        description="a secret the client drew itself (ADR-178): 24 random bytes as URL-safe "
        "base64 without padding, 32 characters of A-Z a-z 0-9 _ -; the issued token (or key) "
        "ends with it, and the same request sent again with it is answered as the first was. "
        "Keep it before sending; never reuse it for another request",
        examples=["Jm2Qd4uN8kV0bXcA7yT1pL5rWzE3sH9o"],
    ),
]


def distinct(**given: str | None) -> None:
    """Two secrets of one request (a season admin's and its creator's) must differ: 422
    `invalid_body.secrets_equal` naming the later field."""
    seen: dict[str, str] = {}
    for name, secret in given.items():
        if secret is None:
            continue
        if secret in seen:
            raise Problem(422, "invalid_body.secrets_equal", field=f"$.{name}")
        seen[secret] = name
