"""Web Push (issue 25): a notification encrypted for one browser subscription (RFC 8291,
aes128gcm, through pywebpush / http_ece) and signed with the server's VAPID key (RFC 8292,
py_vapid), sent through the guarded outbound client (shared.app.messaging.outbound), never
pywebpush's own HTTP call (which would resolve and connect without those checks)."""

from __future__ import annotations

import base64
from dataclasses import dataclass
from urllib.parse import urlsplit

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from py_vapid import Vapid02  # type: ignore[import-untyped]
from pywebpush import WebPusher  # type: ignore[import-untyped]

TTL_S = 12 * 3600  # a warning older than half a day tells nothing
JWT_LIFETIME_S = 12 * 3600  # RFC 8292: at most 24 hours


def b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


@dataclass(frozen=True, slots=True)
class VapidKeys:
    """The server's VAPID key pair: `private_key` the raw 32-byte scalar, base64url (the
    setting SEKSENBIR_VAPID_PRIVATE_KEY); `public_key` the uncompressed point, base64url (what
    browsers take as applicationServerKey, served at GET /v1/push/key)."""

    private_key: str
    public_key: str

    @classmethod
    def generate(cls) -> VapidKeys:
        return cls.of(ec.generate_private_key(ec.SECP256R1()))

    @classmethod
    def from_private(cls, private_key: str) -> VapidKeys:
        scalar = int.from_bytes(unb64url(private_key), "big")
        return cls.of(ec.derive_private_key(scalar, ec.SECP256R1()))

    @classmethod
    def of(cls, key: ec.EllipticCurvePrivateKey) -> VapidKeys:
        raw = key.private_numbers().private_value.to_bytes(32, "big")
        point = key.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
        return cls(b64url(raw), b64url(point))


@dataclass(frozen=True, slots=True)
class Subscription:
    endpoint: str
    p256dh: str
    auth: str


def vapid_headers(keys: VapidKeys, endpoint: str, subject: str, now: float) -> dict[str, str]:
    """Authorization: vapid t=<JWT for the endpoint's origin>,k=<public key> (RFC 8292)."""
    parts = urlsplit(endpoint)
    vapid = Vapid02.from_raw(keys.private_key.encode())
    claims = {
        "aud": f"{parts.scheme}://{parts.netloc}",
        "exp": int(now) + JWT_LIFETIME_S,
        "sub": subject,
    }
    return {str(k): str(v) for k, v in vapid.sign(claims).items()}


def encrypted_request(
    sub: Subscription, payload: bytes, keys: VapidKeys, subject: str, now: float
) -> tuple[bytes, dict[str, str]]:
    """The body (aes128gcm) and headers of one push message to `sub`."""
    pusher = WebPusher({"endpoint": sub.endpoint, "keys": {"p256dh": sub.p256dh, "auth": sub.auth}})
    body = bytes(pusher.encode(payload, content_encoding="aes128gcm")["body"])
    headers = {
        "Content-Type": "application/octet-stream",
        "Content-Encoding": "aes128gcm",
        "TTL": str(TTL_S),
        "Urgency": "high",
        **vapid_headers(keys, sub.endpoint, subject, now),
    }
    return body, headers
