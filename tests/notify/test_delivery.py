"""Webhook and Web Push deliveries against local receivers on 127.0.0.1 (issue 25)."""

from __future__ import annotations

import asyncio
import base64
import json

import http_ece
import pytest
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature

from services.notify.delivery import Delivery, DeliveryFailed, Sender, delivery_id
from shared.app.messaging import outbound, webhooks, webpush
from shared.app.messaging.notify_store import MemoryNotifyStore, PushSubscription, Webhook
from tests.notify.receiver import Receiver, receiving

LOCAL = outbound.Policy(allow=("127.0.0.1",), timeout_s=0.5)
NOW = 1_800_000_000.0


def delivery(target: str, event: str = "divan_resolved") -> Delivery:
    return Delivery(
        delivery_id=delivery_id("s1/40/resolved", target),
        season_id="s1",
        target=target,
        event=event,
        data={"divan": 3},
        texts={"tr": "3. Divan toplandı.", "en": "Divan 3 is resolved."},
    )


async def hooked(url: str, fmt: str = "json") -> tuple[MemoryNotifyStore, Webhook]:
    store = MemoryNotifyStore()
    hook = Webhook(
        webhook_id="wh_a",
        season_id="s1",
        seat=None,
        url=url,
        format=fmt,
        secret=webhooks.new_secret(),
    )  # type: ignore[arg-type]
    await store.put(hook)
    return store, hook


async def test_a_webhook_delivery_is_signed_names_its_event_and_keeps_its_id() -> None:
    async with receiving(Receiver(statuses=[200])) as r:
        store, hook = await hooked(r.url())
        sender = Sender(store, LOCAL, clock=lambda: NOW)
        assert await sender.send(delivery("wh_a")) == "sent"
        assert await sender.send(delivery("wh_a")) == "sent"  # a repeat: the same id
    first, again = r.got
    assert first.headers["seksenbir-delivery"] == again.headers["seksenbir-delivery"]
    assert webhooks.verify(hook.secret, first.headers["seksenbir-signature"], first.body)
    assert first.headers["seksenbir-signature"].startswith(f"t={int(NOW)},v1=")
    assert not webhooks.verify("whsec_other", first.headers["seksenbir-signature"], first.body)
    assert not webhooks.verify(hook.secret, first.headers["seksenbir-signature"], first.body + b" ")
    assert json.loads(first.body)["event"] == "divan_resolved"


async def test_a_discord_webhook_gets_content() -> None:
    async with receiving(Receiver()) as r:
        store, _ = await hooked(r.url(), "discord")
        await Sender(store, LOCAL).send(delivery("wh_a"))
    assert json.loads(r.got[0].body) == {"content": "3. Divan toplandı."}


async def test_a_500_fails_the_attempt_for_a_retry() -> None:
    async with receiving(Receiver(statuses=[500, 200])) as r:
        store, _ = await hooked(r.url())
        sender = Sender(store, LOCAL)
        with pytest.raises(DeliveryFailed):
            await sender.send(delivery("wh_a"))
        assert await sender.send(delivery("wh_a")) == "sent"


async def test_a_redirect_is_a_failure_and_not_followed() -> None:
    async with receiving(
        Receiver(statuses=[307], extra_headers={"Location": "http://127.0.0.1:1/"})
    ) as r:
        store, _ = await hooked(r.url())
        with pytest.raises(DeliveryFailed):
            await Sender(store, LOCAL).send(delivery("wh_a"))
    assert len(r.got) == 1


async def test_a_private_address_is_refused_without_configuration() -> None:
    async with receiving(Receiver()) as r:
        store, _ = await hooked(r.url())
        with pytest.raises(DeliveryFailed, match="refused"):
            await Sender(store, outbound.Policy()).send(delivery("wh_a"))
    assert r.got == []  # never connected


async def test_a_deleted_receiver_ends_the_delivery() -> None:
    assert await Sender(MemoryNotifyStore(), LOCAL).send(delivery("wh_gone")) == "no_receiver"


# --- Web Push -------------------------------------------------------------------------------


def browser_keys() -> tuple[ec.EllipticCurvePrivateKey, str, bytes]:
    key = ec.generate_private_key(ec.SECP256R1())
    point = key.public_key().public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
    )
    return key, webpush.b64url(point), b"0123456789abcdef"


async def subscribed(endpoint: str) -> tuple[MemoryNotifyStore, ec.EllipticCurvePrivateKey, bytes]:
    key, p256dh, auth = browser_keys()
    store = MemoryNotifyStore()
    await store.put(
        PushSubscription(
            subscription_id="ps_a",
            season_id="s1",
            seat=2,
            endpoint=endpoint,
            p256dh=p256dh,
            auth=webpush.b64url(auth),
            lead_seconds=3600,
            lang="en",
        )
    )
    return store, key, auth


def check_vapid(header: str, vapid: webpush.VapidKeys, origin: str) -> dict[str, object]:
    assert header.startswith("vapid t=")
    fields = dict(p.split("=", 1) for p in header.removeprefix("vapid ").split(","))
    assert fields["k"] == vapid.public_key
    token = fields["t"]
    head, claims, sig = token.split(".")
    assert json.loads(webpush.unb64url(head))["alg"] == "ES256"
    raw = webpush.unb64url(sig)
    der = encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
    public = ec.EllipticCurvePublicKey.from_encoded_point(
        ec.SECP256R1(), webpush.unb64url(vapid.public_key)
    )
    public.verify(der, f"{head}.{claims}".encode(), ec.ECDSA(hashes.SHA256()))  # raises if bad
    body = json.loads(webpush.unb64url(claims))
    assert body["aud"] == origin and body["exp"] == int(NOW) + webpush.JWT_LIFETIME_S
    return body


async def test_a_push_message_is_encrypted_for_the_subscription_and_signed_with_vapid() -> None:
    vapid = webpush.VapidKeys.generate()
    async with receiving(Receiver(statuses=[201])) as r:
        store, key, auth = await subscribed(r.url("/push/abc"))
        sender = Sender(store, LOCAL, vapid, "mailto:ops@example.org", clock=lambda: NOW)
        assert await sender.send(delivery("ps_a")) == "sent"
    got = r.got[0]
    assert got.headers["content-encoding"] == "aes128gcm"
    plain = http_ece.decrypt(got.body, private_key=key, auth_secret=auth, version="aes128gcm")
    payload = json.loads(plain)
    assert payload["event"] == "divan_resolved" and payload["body"] == "Divan 3 is resolved."
    claims = check_vapid(got.headers["authorization"], vapid, f"http://127.0.0.1:{r.port}")
    assert claims["sub"] == "mailto:ops@example.org"


@pytest.mark.parametrize("status", [404, 410])
async def test_a_gone_subscription_is_deleted(status: int) -> None:
    vapid = webpush.VapidKeys.generate()
    async with receiving(Receiver(statuses=[status])) as r:
        store, _, _ = await subscribed(r.url())
        assert await Sender(store, LOCAL, vapid=vapid).send(delivery("ps_a")) == "gone"
    assert await store.subscriptions("s1") == []


def test_vapid_keys_round_trip_through_the_private_setting() -> None:
    keys = webpush.VapidKeys.generate()
    assert webpush.VapidKeys.from_private(keys.private_key) == keys
    assert len(base64.urlsafe_b64decode(keys.public_key + "==")) == 65


async def test_one_hanging_receiver_does_not_hold_the_others() -> None:
    """Every first attempt runs at once, each under its own timeout."""
    async with receiving(Receiver(hang=True)) as slow, receiving(Receiver()) as fast:
        store = MemoryNotifyStore()
        for i, url in enumerate([slow.url(), fast.url()]):
            await store.put(
                Webhook(
                    webhook_id=f"wh_{i}",
                    season_id="s1",
                    seat=None,
                    url=url,
                    format="json",
                    secret="s",
                )
            )
        sender = Sender(store, outbound.Policy(allow=("127.0.0.1",), timeout_s=0.2))
        fast_done = asyncio.create_task(sender.send(delivery("wh_1")))
        slow_done = asyncio.create_task(sender.send(delivery("wh_0")))
        assert await fast_done == "sent"
        assert not slow_done.done()
        with pytest.raises(DeliveryFailed):
            await slow_done


def test_every_notice_kinds_json_body_matches_the_documented_schema() -> None:
    """docs/webhook.schema.json is the JSON format's contract (issue 25)."""
    from datetime import UTC, datetime
    from pathlib import Path

    import jsonschema_rs

    from services.notify import notices
    from shared.domain import events as ev
    from shared.domain.admin import ADMIN_ACTS
    from shared.domain.event_records import ReportLine
    from shared.domain.state import AdminAct

    schema = json.loads((Path(__file__).parents[2] / "docs/webhook.schema.json").read_text())
    validator = jsonschema_rs.Draft202012Validator(schema)
    at = datetime(2026, 12, 1, tzinfo=UTC)
    line = ReportLine(kind="x", data={}, tr="a", en="a")
    sample = [
        ev.TreatyOffered(frm=1, to=2, kind="pact"),
        ev.OfferAnswered(frm=1, to=2, answer="accept"),
        ev.OfferAnswered(frm=1, to=2, answer="reject"),
        ev.OfferWithdrawn(frm=1, to=2),
        *(ev.SeasonAdminActed(act=AdminAct(act=a, reason="r", at=at)) for a in ADMIN_ACTS),
        ev.DivanResolved(divan=2, public=(line,), private={1: (line,)}),
    ]
    names = set()
    for event in sample:
        for n in notices.notices("s1", 9, event):
            names.add(n.event)
            body = webhooks.body("json", n.event, {**n.data, "texts": n.texts}, n.texts["tr"])
            assert not list(validator.iter_errors(json.loads(body))), (n.event, body)
    warn = notices.warning("s1", 1, 3, at)
    body = webhooks.body("json", warn.event, {**warn.data, "texts": warn.texts}, "x")
    assert not list(validator.iter_errors(json.loads(body)))
    assert names >= {
        "offer_received",
        "offer_accepted",
        "offer_rejected",
        "offer_withdrawn",
        "divan_resolved",
        *(spec.notice[0] for spec in ADMIN_ACTS.values() if spec.notice),
    }
