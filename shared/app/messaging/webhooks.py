"""Webhook deliveries (issue 25): the signature every delivery carries and the two formats.

`Seksenbir-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>` and
`Seksenbir-Delivery: <id>` (the same id on every attempt: a receiver drops a repeat). A
receiver checks the signature over the raw body and refuses an old `t` (replays).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from typing import Any, Literal

import msgspec

Format = Literal["json", "discord"]
SIGNATURE = "Seksenbir-Signature"
DELIVERY = "Seksenbir-Delivery"
DISCORD_LIMIT = 2000  # a Discord message's content


def new_secret() -> str:
    return "whsec_" + secrets.token_urlsafe(32)


def signature(secret: str, t: int, body: bytes) -> str:
    mac = hmac.new(secret.encode(), f"{t}.".encode() + body, hashlib.sha256).hexdigest()
    return f"t={t},v1={mac}"


def verify(secret: str, header: str, body: bytes) -> bool:
    """The receiver's check (documented in docs/api.md; used by the tests)."""
    fields = dict(part.split("=", 1) for part in header.split(",") if "=" in part)
    try:
        t = int(fields["t"])
    except (KeyError, ValueError):
        return False
    return hmac.compare_digest(signature(secret, t, body), f"t={t},v1={fields.get('v1', '')}")


def body(fmt: Format, event: str, payload: dict[str, Any], text: str) -> bytes:
    """The delivery's body: our JSON (`{"event": …, "data": …, "text": …}`) or Discord's
    `{"content": text}` (Discord ignores unknown fields but has no event name: `text` says it)."""
    if fmt == "discord":
        return msgspec.json.encode({"content": text[:DISCORD_LIMIT]})
    return msgspec.json.encode({"event": event, "data": payload, "text": text})


def headers(secret: str, delivery_id: str, t: int, content: bytes) -> dict[str, str]:
    return {
        "Content-Type": "application/json",
        DELIVERY: delivery_id,
        SIGNATURE: signature(secret, t, content),
    }


def masked(url: str) -> str:
    """A webhook URL as answers show it after creation: scheme and host only (a Discord URL's
    path is its credential)."""
    scheme, _, rest = url.partition("://")
    host = rest.split("/", 1)[0].rsplit("@", 1)[-1]
    return f"{scheme}://{host}/…"
