"""Webhooks and push subscriptions over HTTP (issue 25): the season admin registers for public
events, a bey for its own; a secret is shown once, URLs masked after; private, plain-http and
odd-port URLs refused; nothing of it enters the event log; another bey's are not found."""

from __future__ import annotations

from datetime import timedelta

from services.command.notify_receivers import MAX_PER_OWNER
from tests.http.support import (
    ANKARA,
    ISTANBUL,
    Api,
    assert_problem,
    bearer,
    create_trial,
    play_divans,
    unchanged,
)
from tests.http.test_live_seasons import close_in, create_live, join

HOOK = "https://discord.com/api/webhooks/123/very-secret-path"
SUB = {
    "endpoint": "https://fcm.googleapis.com/fcm/send/device-credential",
    "keys": {
        "p256dh": "BNcRdreALRFXTkOOUHK1EtK2wtaz5Ry4YfYCA_0QTpQtUbVlUls0VJXg7A8u-Ts1XbjhazAkj7I99e8QcYP7DkM",
        "auth": "tBHItJI5svbpez7KI4CCXg",
    },
    "lead_minutes": 30,
}


async def test_the_season_admin_and_a_bey_register_webhooks_of_their_own(memory_api: Api) -> None:
    api = memory_api
    created = await create_live(
        api, registration_closes_at=close_in(api, timedelta(hours=2)), memleket=ANKARA
    )
    sid, admin, bey = created["season_id"], created["admin_token"], created["creator"]["token"]
    before = await api.store.stream_version(sid)
    r = await api.client.post(
        f"/v1/seasons/{sid}/webhooks",
        json={"url": HOOK, "format": "discord"},
        headers=bearer(admin),
    )
    assert r.status_code == 201, r.text
    public = r.json()
    assert public["seat"] is None and public["secret"].startswith("whsec_")
    assert public["url"] == "https://discord.com/…"
    r = await api.client.post(
        f"/v1/seasons/{sid}/webhooks", json={"url": HOOK}, headers=bearer(bey)
    )
    own = r.json()
    assert r.status_code == 201 and own["seat"] == created["creator"]["seat"]
    listed = (await api.client.get(f"/v1/seasons/{sid}/webhooks", headers=bearer(admin))).json()
    assert listed == {
        "webhooks": [
            {
                "webhook_id": public["webhook_id"],
                "url": "https://discord.com/…",
                "format": "discord",
                "seat": None,
            }
        ]
    }
    assert "very-secret-path" not in str(listed) and "whsec_" not in str(listed)
    # another owner's webhook is not found, for deleting and rotating alike
    r = await api.client.delete(
        f"/v1/seasons/{sid}/webhooks/{public['webhook_id']}", headers=bearer(bey)
    )
    assert_problem(r, 404, "receiver_not_found")
    rotated = await api.client.post(
        f"/v1/seasons/{sid}/webhooks/{own['webhook_id']}/rotate", headers=bearer(bey)
    )
    assert rotated.status_code == 200 and rotated.json()["secret"] != own["secret"]
    r = await api.client.delete(
        f"/v1/seasons/{sid}/webhooks/{own['webhook_id']}", headers=bearer(bey)
    )
    assert r.status_code == 200 and r.json() == {"deleted": own["webhook_id"]}
    assert (await api.client.get(f"/v1/seasons/{sid}/webhooks", headers=bearer(bey))).json() == {
        "webhooks": []
    }
    # nothing of it is a fact of the game: the log did not move
    assert await api.store.stream_version(sid) == before
    events = await api.store.read_stream(sid)
    assert not any(b"discord" in e.data or b"whsec_" in e.data for e in events)


async def test_urls_the_server_would_not_call_are_refused(memory_api: Api) -> None:
    bey = await create_trial(memory_api.client)
    for url, reason in [
        ("http://example.com/hook", "scheme"),
        ("https://example.com:8443/hook", "port"),
        ("https://127.0.0.1/hook", "address"),
        ("https://169.254.169.254/latest", "address"),
        ("https://[::ffff:10.0.0.1]/x", "address"),
        # the numeric forms the resolver reads as IPv4 addresses (inet_aton): loopback, which
        # every call would refuse, so refused at once rather than accepted as a name
        ("https://2130706433/x", "address"),
        ("https://0x7f.1/x", "address"),
        ("https://127.1/x", "address"),
        ("https://0177.0.0.1/x", "address"),
        ("https://0x0A.0.0.1/x", "address"),
    ]:
        r = await unchanged(
            memory_api.store,
            memory_api.client.post(
                f"/v1/seasons/{bey.season_id}/webhooks",
                json={"url": url},
                headers=bearer(bey.token),
            ),
        )
        assert assert_problem(r, 422, "receiver_refused")["reason"] == reason


async def test_a_bey_subscribes_lists_and_deletes_its_devices(memory_api: Api) -> None:
    api = memory_api
    created = await create_live(
        api, registration_closes_at=close_in(api, timedelta(hours=2)), memleket=ANKARA
    )
    sid, token = created["season_id"], created["creator"]["token"]
    other = (await join(api, sid, ISTANBUL)).json()["token"]
    url = f"/v1/seasons/{sid}/push-subscriptions"
    r = await api.client.post(url, json=SUB, headers=bearer(token))
    assert r.status_code == 201, r.text
    sub = r.json()
    assert sub["lead_minutes"] == 30 and sub["endpoint"] == "https://fcm.googleapis.com/…"
    again = (
        await api.client.post(url, json={**SUB, "lead_minutes": 90}, headers=bearer(token))
    ).json()
    assert again["subscription_id"] == sub["subscription_id"]  # the same device, replaced
    assert [
        s["lead_minutes"]
        for s in (await api.client.get(url, headers=bearer(token))).json()["subscriptions"]
    ] == [90]
    assert (await api.client.get(url, headers=bearer(other))).json() == {"subscriptions": []}
    r = await api.client.delete(f"{url}/{sub['subscription_id']}", headers=bearer(other))
    assert_problem(r, 404, "receiver_not_found")
    assert (
        await api.client.delete(f"{url}/{sub['subscription_id']}", headers=bearer(token))
    ).status_code == 200
    r = await api.client.post(url, json=SUB, headers=bearer(created["admin_token"]))
    assert_problem(r, 403, "forbidden")  # a device is a bey's


async def test_receivers_per_owner_are_bounded(memory_api: Api) -> None:
    bey = await create_trial(memory_api.client)
    for _ in range(MAX_PER_OWNER):
        r = await memory_api.client.post(
            f"/v1/seasons/{bey.season_id}/webhooks", json={"url": HOOK}, headers=bearer(bey.token)
        )
        assert r.status_code == 201
    r = await memory_api.client.post(
        f"/v1/seasons/{bey.season_id}/webhooks", json={"url": HOOK}, headers=bearer(bey.token)
    )
    assert_problem(r, 409, "receivers_full")


async def test_the_push_key_is_served(memory_api: Api) -> None:
    r = await memory_api.client.get("/v1/push/key")
    assert r.status_code == 200 and r.json() == {"public_key": None}  # not configured here


async def test_an_id_the_server_never_makes_is_not_found_before_any_token_check(
    memory_api: Api,
) -> None:
    bey = await create_trial(memory_api.client)
    for tail in ("webhooks/x", "webhooks/wh_a.b", "push-subscriptions/wh_abc"):
        r = await memory_api.client.delete(f"/v1/seasons/{bey.season_id}/{tail}")  # no token
        assert_problem(r, 404, "receiver_not_found")


async def test_a_season_over_or_cancelled_takes_no_new_receiver(memory_api: Api) -> None:
    """Probe (session 20): a webhook registered on a season that was over answered 201 with a
    secret, and the notifier deleted it at its next sweep without a word (a season's end
    deletes its receivers, ADR-98): nothing would ever be delivered. Such a season refuses a
    new webhook or device as it refuses a command: 409 `wrong_phase`, `season_cancelled`."""
    api = memory_api
    bey = await create_trial(api.client)
    await play_divans(api, bey, 16)
    r = await api.client.post(bey.url("/kurultay/vote"), headers=bey.auth(), json={"candidate": 2})
    assert r.status_code == 200, r.text
    assert (await api.client.get(bey.url())).json()["phase"] == "over"
    r = await api.client.post(bey.url("/webhooks"), json={"url": HOOK}, headers=bey.auth())
    assert_problem(r, 409, "wrong_phase")
    r = await api.client.post(bey.url("/push-subscriptions"), json=SUB, headers=bey.auth())
    assert_problem(r, 409, "wrong_phase")
    created = await create_live(
        api, registration_closes_at=close_in(api, timedelta(hours=2)), memleket=ANKARA
    )
    sid, admin = created["season_id"], created["admin_token"]
    r = await api.client.post(
        f"/v1/seasons/{sid}/admin/cancel", json={"reason": "nobody came"}, headers=bearer(admin)
    )
    assert r.status_code == 200, r.text
    r = await api.client.post(
        f"/v1/seasons/{sid}/webhooks", json={"url": HOOK}, headers=bearer(admin)
    )
    assert_problem(r, 409, "season_cancelled")
    mine = created["creator"]["token"]
    r = await api.client.post(
        f"/v1/seasons/{sid}/push-subscriptions", json=SUB, headers=bearer(mine)
    )
    assert_problem(r, 409, "season_cancelled")
    listed = await api.client.get(f"/v1/seasons/{sid}/webhooks", headers=bearer(admin))
    assert listed.json() == {"webhooks": []}
