"""One delivery to one receiver (issue 25): a signed webhook POST or an encrypted push message.

A delivery names its receiver by id only; the URL, the secret, the endpoint and its keys are
looked up in the notify store when it is sent, so no queue message, dead letter or log line
ever holds them. A receiver that is gone (deleted, or a push service's 404/410, which deletes
the subscription) ends the delivery as done; any other failure raises `DeliveryFailed` for
the queue to retry (services/notify/notify_actors.py).
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

import msgspec
import structlog

from shared.app.messaging import outbound, webhooks, webpush
from shared.app.messaging.notify_store import NotifyStore, PushSubscription, Record, Webhook, id_of

log = structlog.get_logger(__name__)
DELIVERY_IDS = uuid.UUID("9c1e52b0-7f3d-4f0e-9a25-81d1a0000025")
Outcome = Literal["sent", "gone", "no_receiver"]


class DeliveryFailed(Exception):
    """The receiver did not take it (an answer outside 2xx, a timeout, a refused address)."""


class Delivery(msgspec.Struct, frozen=True, kw_only=True):
    """A notification for one receiver. `texts`: its line per language ("tr", "en"); `data`:
    the event's public facts, or the receiving bey's own (never another bey's secrets)."""

    delivery_id: str
    season_id: str
    target: str  # a webhook_id or a subscription_id
    event: str
    data: dict[str, object]
    texts: dict[str, str]


def delivery_id(notice_key: str, target: str) -> str:
    """The same id for the same notice to the same receiver, however often it is made."""
    return str(uuid.uuid5(DELIVERY_IDS, f"{notice_key}/{target}"))


@dataclass(frozen=True, slots=True)
class Sender:
    """What sending needs: the store, the outbound policy, the VAPID keys (None: push off)."""

    store: NotifyStore
    policy: outbound.Policy
    vapid: webpush.VapidKeys | None = None
    subject: str = "mailto:ops@seksenbir.invalid"
    clock: Callable[[], float] = time.time

    async def send(self, d: Delivery) -> Outcome:
        return await self.to(await self.store.record(d.season_id, d.target), d)

    async def send_all(self, batch: list[Delivery]) -> list[Outcome | BaseException]:
        """Every delivery of a batch at once, each under its own timeout; each season's
        receivers read once for the batch, not once per delivery."""
        found: dict[str, dict[str, Record]] = {}
        for season_id in {d.season_id for d in batch}:
            rs: list[Record] = [*await self.store.webhooks(season_id)]
            rs += await self.store.subscriptions(season_id)
            found[season_id] = {id_of(r): r for r in rs}
        return await asyncio.gather(
            *(self.to(found[d.season_id].get(d.target), d) for d in batch),
            return_exceptions=True,
        )

    async def to(self, receiver: Record | None, d: Delivery) -> Outcome:
        """`d` to its receiver as stored now (None: deleted since, nothing to send)."""
        if isinstance(receiver, Webhook):
            return await self._webhook(receiver, d)
        if receiver is None or self.vapid is None:
            return "no_receiver"
        return await self._push(receiver, d)

    async def _webhook(self, hook: Webhook, d: Delivery) -> Outcome:
        text = d.texts.get("tr") or next(iter(d.texts.values()), d.event)
        content = webhooks.body(hook.format, d.event, {**d.data, "texts": d.texts}, text)
        headers = webhooks.headers(hook.secret, d.delivery_id, int(self.clock()), content)
        answer = await self._call(hook.url, content, headers, d)
        if not 200 <= answer.status < 300:
            raise DeliveryFailed(f"answered {answer.status}")
        return "sent"

    async def _push(self, sub: PushSubscription, d: Delivery) -> Outcome:
        assert self.vapid is not None
        payload = msgspec.json.encode(
            {
                "event": d.event,
                "delivery": d.delivery_id,
                "season_id": d.season_id,
                "title": "Seksenbir",
                "body": d.texts.get(sub.lang) or d.texts.get("tr", d.event),
                "data": d.data,
            }
        )
        target = webpush.Subscription(sub.endpoint, sub.p256dh, sub.auth)
        body, headers = webpush.encrypted_request(
            target, payload, self.vapid, self.subject, self.clock()
        )
        answer = await self._call(sub.endpoint, body, headers, d)
        if answer.status in (404, 410):  # the push service says the subscription is gone
            await self.store.delete(sub.season_id, sub.subscription_id)
            return "gone"
        if not 200 <= answer.status < 300:
            raise DeliveryFailed(f"answered {answer.status}")
        return "sent"

    async def _call(
        self, url: str, body: bytes, headers: dict[str, str], d: Delivery
    ) -> outbound.Answer:
        try:
            return await outbound.post(url, body, headers, self.policy)
        except outbound.OutboundRefused as exc:  # logged by reason, never the URL
            log.warning("notify.refused", target=d.target, reason=exc.reason)
            raise DeliveryFailed(f"refused: {exc.reason}") from None
        except outbound.OutboundFailed as exc:
            raise DeliveryFailed(f"failed: {exc}") from None
