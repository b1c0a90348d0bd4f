"""Where webhooks and push subscriptions are kept (issue 25, ADR-98): never in the event log.

A webhook's URL (a Discord URL is itself a credential) and secret, and a push subscription's
endpoint and keys, are device or integration data, not facts of the game: they stay out of the
event log, its exports and the read models. A registration is an acknowledged write, so it is
kept in PostgreSQL (shared/app/messaging/notify_pg.py, ADR-108), each record sealed with AES-256-GCM
under SEKSENBIR_NOTIFY_KEY when it is set (docs/configuration.md); the server must be able to
sign with a secret, so it cannot keep only a hash. Records leave when deleted, rotated away,
gone (404/410 from a push service) or when their season ends. Beside an in-memory event store
(tests, one-process runs) the store is in memory too.

`claim` makes a delivery's first attempt happen once however many notifier processes follow
the same events (ADR-108): the batch that claims a delivery id first owns it, and the same
batch again (a redelivered queue message) still does.
"""

from __future__ import annotations

import base64
import os
import secrets
from typing import Literal, Protocol

import msgspec
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

Format = Literal["json", "discord"]


class Webhook(msgspec.Struct, frozen=True, kw_only=True, tag="webhook"):
    webhook_id: str
    season_id: str
    seat: int | None  # None: the season's public events (the season admin's)
    url: str
    format: Format
    secret: str


class PushSubscription(msgspec.Struct, frozen=True, kw_only=True, tag="push"):
    subscription_id: str
    season_id: str
    seat: int
    endpoint: str
    p256dh: str
    auth: str
    lead_seconds: int
    always: bool = False  # warn even when the bey's orders are complete
    lang: str = "tr"


Record = Webhook | PushSubscription


def new_id(prefix: str) -> str:
    return f"{prefix}_{secrets.token_urlsafe(12)}"


class Sealer:
    """AES-256-GCM over a record's bytes, keyed by SEKSENBIR_NOTIFY_KEY (base64url, 32 bytes);
    without a key the bytes are kept as they are (marked, so a key set later still reads them)."""

    def __init__(self, key: str = "") -> None:
        raw = base64.urlsafe_b64decode(key + "=" * (-len(key) % 4)) if key else b""
        if raw and len(raw) != 32:
            raise ValueError("SEKSENBIR_NOTIFY_KEY must be 32 bytes, base64url")
        self._aead = AESGCM(raw) if raw else None

    def seal(self, data: bytes, aad: bytes) -> bytes:
        if self._aead is None:
            return b"p:" + data
        nonce = os.urandom(12)
        return b"s:" + nonce + self._aead.encrypt(nonce, data, aad)

    def open(self, sealed: bytes, aad: bytes) -> bytes:
        if sealed.startswith(b"p:"):
            return sealed[2:]
        if self._aead is None:
            raise ValueError("a sealed notify record and no SEKSENBIR_NOTIFY_KEY")
        return self._aead.decrypt(sealed[2:14], sealed[14:], aad)


class NotifyStore(Protocol):
    async def put(self, record: Record) -> None: ...
    async def add(self, record: Record, limit: int) -> Record | None: ...
    async def webhooks(self, season_id: str) -> list[Webhook]: ...
    async def subscriptions(self, season_id: str) -> list[PushSubscription]: ...
    async def delete(self, season_id: str, record_id: str) -> bool: ...
    async def drop_season(self, season_id: str) -> None: ...
    async def record(self, season_id: str, record_id: str) -> Record | None: ...
    async def first_warning(self, season_id: str, subscription_id: str, divan: int) -> bool: ...
    async def claim(self, season_id: str, delivery_ids: list[str], owner: str) -> set[str]: ...
    async def follow(self, season_id: str, version: int) -> None: ...
    async def cursors(self) -> dict[str, int]: ...
    async def set_cursor(self, season_id: str, version: int | None) -> None: ...


decoder = msgspec.json.Decoder(Webhook | PushSubscription)


def kind_of(record_id: str) -> str:
    return "wh" if record_id.startswith("wh_") else "push"


def id_of(record: Record) -> str:
    return record.webhook_id if isinstance(record, Webhook) else record.subscription_id


def fitted(record: Record, have: list[Record], limit: int) -> Record | None:
    """What a new registration is kept as among its season's registrations of its kind
    (`have`): a push subscription of an endpoint its bey has registered already replaces that
    one under its id (one device, one subscription); else the record, while its owner has
    fewer than `limit` of that kind; None when full."""
    mine = [r for r in have if type(r) is type(record) and r.seat == record.seat]
    if isinstance(record, PushSubscription):
        for r in mine:
            if isinstance(r, PushSubscription) and r.endpoint == record.endpoint:
                return msgspec.structs.replace(record, subscription_id=r.subscription_id)
    return record if len(mine) < limit else None


class MemoryNotifyStore:
    """The store of a test's or a one-process run's in-memory event store."""

    def __init__(self) -> None:
        self.records: dict[str, dict[str, Record]] = {}
        self.warned: set[tuple[str, int]] = set()
        self.followed: dict[str, int] = {}
        self.claims: dict[str, tuple[str, str]] = {}  # delivery id: (season, owner)

    async def put(self, record: Record) -> None:
        self.records.setdefault(record.season_id, {})[id_of(record)] = record

    async def add(self, record: Record, limit: int) -> Record | None:
        """`fitted` and kept, with nothing in between (no await: one turn of the loop)."""
        kept = fitted(record, list(self.records.get(record.season_id, {}).values()), limit)
        if kept is not None:
            await self.put(kept)
        return kept

    async def record(self, season_id: str, record_id: str) -> Record | None:
        return self.records.get(season_id, {}).get(record_id)

    async def webhooks(self, season_id: str) -> list[Webhook]:
        rs = self.records.get(season_id, {}).values()
        return [r for r in rs if isinstance(r, Webhook)]

    async def subscriptions(self, season_id: str) -> list[PushSubscription]:
        rs = self.records.get(season_id, {}).values()
        return [r for r in rs if isinstance(r, PushSubscription)]

    async def delete(self, season_id: str, record_id: str) -> bool:
        return self.records.get(season_id, {}).pop(record_id, None) is not None

    async def drop_season(self, season_id: str) -> None:
        self.records.pop(season_id, None)
        self.claims = {d: c for d, c in self.claims.items() if c[0] != season_id}

    async def first_warning(self, season_id: str, subscription_id: str, divan: int) -> bool:
        if (subscription_id, divan) in self.warned:
            return False
        self.warned.add((subscription_id, divan))
        return True

    async def claim(self, season_id: str, delivery_ids: list[str], owner: str) -> set[str]:
        return {
            d for d in delivery_ids if self.claims.setdefault(d, (season_id, owner))[1] == owner
        }

    async def follow(self, season_id: str, version: int) -> None:
        self.followed.setdefault(season_id, version)

    async def cursors(self) -> dict[str, int]:
        return dict(self.followed)

    async def set_cursor(self, season_id: str, version: int | None) -> None:
        if version is None:
            self.followed.pop(season_id, None)
        else:
            self.followed[season_id] = max(version, self.followed.get(season_id, version))
