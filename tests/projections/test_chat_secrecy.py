"""The chat's secrecy matrix (issue 24, R-15.3): every channel kind x every role.

A live season L with beys A, B, C, D; A writes a canary to the public channel, to a private
channel with B and to a group with B and C; another live season's bey, L's season admin, ops
and an auditor call every chat read. A private or group canary reaches its members only: no
other caller's answer, no log line, no moderation act an auditor reads carries it. (Ops read
texts only through the recorded reports list: R-14's ops read, ADR-53.)
"""

from __future__ import annotations

import io
import uuid
from collections.abc import AsyncIterator
from typing import Any

import pytest

from shared.domain import chat
from shared.domain import chat_events as ce
from shared.eventstore import InMemoryEventStore
from tests.clock import StepClock
from tests.http.support import AUDITOR_TOKEN, OPS_TOKEN, Api, bearer, open_api
from tests.http.test_live_seasons import create_live, joined

PLATES = (6, 34, 42, 35)
CANARY = {
    "public": "kanarya-PUBLIC-7f3",
    "private": "kanarya-PRIVATE-9c1",
    "group": "kanarya-GROUP-2d8",
}
ROLES = ("anonymous", "member", "non_member", "foreign_bey", "admin", "ops", "auditor")


@pytest.fixture
async def api() -> AsyncIterator[Api]:
    async with open_api(InMemoryEventStore(clock=StepClock())) as opened:
        yield opened


async def world(api: Api) -> tuple[str, dict[str, str], dict[str, dict[str, str | None]]]:
    created = await create_live(api)
    sid = created["season_id"]
    a, b, c, d = [await joined(api, sid, p) for p in PLATES]
    other = await create_live(api)
    foreign = await joined(api, other["season_id"], 6)
    sent = {}
    for kind, to in (("public", "all"), ("private", [b.seat]), ("group", [b.seat, c.seat])):
        r = await api.client.post(
            a.url("/messages"), json={"to": to, "text": CANARY[kind]}, headers=a.auth()
        )
        assert r.status_code == 201, r.text
        sent[kind] = r.json()["channel_id"]
    assert sent["private"] == chat.channel_of(frozenset({a.seat, b.seat}))
    # who is a member / a non-member of each channel (D is in the public channel only)
    tokens: dict[str, dict[str, str | None]] = {
        kind: {
            "anonymous": None,
            "member": b.token,
            "non_member": d.token if kind != "public" else None,
            "foreign_bey": foreign.token,
            "admin": created["admin_token"],
            "ops": OPS_TOKEN,
            "auditor": AUDITOR_TOKEN,
        }
        for kind in CANARY
    }
    return sid, sent, tokens


async def reads(api: Api, sid: str, channel: str, token: str | None) -> list[Any]:
    headers = bearer(token) if token else {}
    s = f"/v1/seasons/{sid}"
    out = []
    for path in (
        f"{s}/channels",
        f"{s}/channels/{channel}/messages",
        f"{s}/audit/chat-acts",
        f"{s}/events",
        s,
    ):
        r = await api.client.get(path, headers=headers)
        out.append((path, r.status_code, r.text))
    return out


async def test_every_channel_kind_times_every_role_keeps_its_canary(api: Api) -> None:
    """R-15.3: a private or group text is seen by its channel's members only; the public one
    by the season's beys; never by another season's bey, the season admin, an auditor, or an
    anonymous caller, and no chat read of ops but the recorded reports answers a text."""
    sid, sent, tokens = await world(api)
    for kind, channel in sent.items():
        for role in ROLES:
            token = tokens[kind][role]
            if role == "non_member" and token is None:
                continue  # every bey is a member of the public channel
            answers = await reads(api, sid, channel, token)
            seen = [path for path, _status, text in answers if CANARY[kind] in text]
            if role == "member":
                assert seen, (kind, role)
            else:
                assert seen == [], (kind, role, seen)
            others = [k for k in CANARY if k != kind and CANARY[k] in str(answers)]
            if role != "member":  # B is in every channel; nobody else sees another's canary
                assert not [k for k in others if k != "public" or role != "non_member"], others


async def test_no_canary_reaches_a_log_line(api: Api, captured_logs: io.StringIO) -> None:
    """R-15.3: a text never reaches a log line (the app logs the channel kind and id only)."""
    sid, sent, _tokens = await world(api)
    r = await api.client.get(f"/v1/seasons/{sid}/chat/reports", headers=bearer(OPS_TOKEN))
    assert r.status_code == 200
    logged = captured_logs.getvalue()
    assert "chat.sent" in logged
    assert not [c for c in CANARY.values() if c in logged]
    assert not [ch for ch in sent.values() if ch != "all" and f'"{ch}"' in logged]


REASON = "kanarya-REASON-5e0"


async def test_r15_3_exports_keep_private_words_from_auditors_and_logs(
    api: Api, captured_logs: io.StringIO
) -> None:
    """R-15.3, ADR-106: ops' export holds every canary (and a report's reason); an auditor's
    export during the season holds the public one only, and not the private or group texts'
    digests either; no export writes a canary to a log line."""
    sid, sent, _tokens = await world(api)
    ops = await api.client.get(f"/v1/ops/seasons/{sid}/export", headers=bearer(OPS_TOKEN))
    audited = await api.client.get(f"/v1/seasons/{sid}/export", headers=bearer(AUDITOR_TOKEN))
    assert ops.status_code == 200 and audited.status_code == 200, (ops.text, audited.text)
    assert all(c in ops.text for c in CANARY.values())
    assert CANARY["public"] in audited.text
    for kind in ("private", "group"):
        assert CANARY[kind] not in audited.text, kind
        assert chat.text_digest(CANARY[kind]) not in audited.text, kind
        assert sent[kind] not in audited.text, kind  # who talked to whom, neither
    logged = captured_logs.getvalue()
    assert "export" in logged and not [c for c in CANARY.values() if c in logged]


async def test_r15_3_after_the_kurultay_everyone_gets_every_event_but_private_words(
    api: Api,
) -> None:
    """R-14 gives everyone the whole season after the Kurultay; R-15.3 keeps private and group
    words (and a report's reason) to their members and ops: the public and the auditor's
    export hold every chat line, public texts, no private one; ops' holds them all."""
    from shared.eventstore.chat_log import ChatNew
    from tests.audit.support import store_season

    await store_season(api.store, "over", 4, live=True)
    events = [
        ce.MessageSent(
            at="2026-12-01T12:00:00+03:00", channel=ch, seat=1, digest=chat.text_digest(t)
        )
        for ch, t in (("all", CANARY["public"]), ("pair-1-2", CANARY["private"]))
    ]
    report = ce.MessageReported(
        at="2026-12-01T12:01:00+03:00", message=1, seat=2, digest=chat.text_digest(REASON)
    )
    await api.store.chat.append(
        "over",
        [
            *(
                ChatNew(
                    event_id=uuid.UUID(int=n),
                    type=ce.tag_of(e),
                    data=ce.encode_chat(e),
                    seat=1,
                    text=t,
                )
                for n, (e, t) in enumerate(
                    zip(events, (CANARY["public"], CANARY["private"]), strict=True), 1
                )
            ),
            ChatNew(
                event_id=uuid.UUID(int=3),
                type=ce.tag_of(report),
                data=ce.encode_chat(report),
                seat=2,
                text=REASON,
            ),
        ],
    )
    for headers in ({}, bearer(AUDITOR_TOKEN)):
        r = await api.client.get("/v1/seasons/over/export", headers=headers)
        assert r.status_code == 200, r.text
        assert r.text.count('"chat":') == 1 + 3  # the header's, and every chat line
        assert CANARY["public"] in r.text
        assert CANARY["private"] not in r.text and REASON not in r.text
        assert chat.text_digest(CANARY["private"]) not in r.text
    whole = await api.client.get("/v1/seasons/over/export", headers=bearer(OPS_TOKEN))
    assert CANARY["private"] in whole.text and REASON in whole.text
