"""Chat between beys over HTTP (issue 24): R-15.1 (words bind nothing), R-15.2 (moderation),
R-15.3 (private words stay private), press modes, limits, the text check, the chat's own
stream and chain (ADR-91, ADR-92)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from shared.domain import chat
from shared.eventstore.chat_log import verify_chat
from shared.eventstore.errors import ChainError
from tests.http.support import (
    ANKARA,
    AUDITOR_TOKEN,
    OPS_TOKEN,
    Api,
    Bey,
    assert_problem,
    bearer,
    create_trial,
    hold_kurultay,
    open_litestar_client,
    play_live_divans,
    state_of,
)
from tests.http.test_live_seasons import close_registration, create_live, joined

KONYA, IZMIR, BURSA = 42, 35, 16
JSON = {"Content-Type": "application/json"}


async def live_with(api: Api, n: int = 3, **body: Any) -> list[Bey]:
    created = await create_live(api, **body)
    sid = created["season_id"]
    return [await joined(api, sid, p) for p in (ANKARA, KONYA, IZMIR, BURSA)[:n]]


async def say(api: Api, bey: Bey, to: Any, text: str) -> Any:
    return await api.client.post(
        bey.url("/messages"), json={"to": to, "text": text}, headers=bey.auth()
    )


async def page(api: Api, bey: Bey, channel: str, **q: Any) -> Any:
    return await api.client.get(
        bey.url(f"/channels/{channel}/messages"), params=q, headers=bey.auth()
    )


async def channels(api: Api, bey: Bey) -> dict[str, Any]:
    r = await api.client.get(bey.url("/channels"), headers=bey.auth())
    assert r.status_code == 200, r.text
    return {c["channel_id"]: c for c in r.json()["channels"]}


async def test_a_private_message_reaches_its_two_beys_and_nobody_else(memory_api: Api) -> None:
    """R-15.3: a private text is seen by its channel's members only."""
    a, b, c = await live_with(memory_api)
    r = await say(memory_api, a, [b.seat], "canary-private-1")
    assert r.status_code == 201, r.text
    channel = r.json()["channel_id"]
    assert channel == chat.channel_of(frozenset({a.seat, b.seat}))
    got = await page(memory_api, b, channel)
    assert [m["text"] for m in got.json()["messages"]] == ["canary-private-1"]
    assert (await channels(memory_api, b))[channel]["unread"] == 1
    assert_problem(await page(memory_api, c, channel), 404, "channel_not_found")
    assert channel not in await channels(memory_api, c)


async def test_the_chat_has_its_own_stream_and_never_moves_the_seasons_version(
    memory_api: Api,
) -> None:
    """ADR-91: messages append to the season's chat stream, not to its own stream."""
    a, _b, _ = await live_with(memory_api)
    _, before = await state_of(memory_api.store, a.season_id)
    for n in range(5):
        assert (await say(memory_api, a, "all", f"selam {n}")).status_code == 201
    _, after = await state_of(memory_api.store, a.season_id)
    assert after == before
    records = await memory_api.store.chat.read(a.season_id)
    assert [r.version for r in records] == [1, 2, 3, 4, 5]
    assert b"selam" not in b"".join(r.data for r in records)  # only digests are hashed
    verify_chat(records)


async def test_erasing_a_text_leaves_the_chat_chain_whole(memory_api: Api) -> None:
    """ADR-92, R-15.2: ops erase an unlawful text with a reason; the chain still verifies,
    the channel shows it hidden, nothing leaves the log."""
    a, b, _ = await live_with(memory_api)
    sent = (await say(memory_api, a, [b.seat], "unlawful words")).json()
    r = await memory_api.client.post(
        a.url(f"/messages/{sent['message_id']}/hide"),
        json={"reason": "R-15.2", "erase_text": True},
        headers={**bearer(OPS_TOKEN), **JSON},
    )
    assert r.status_code == 200, r.text
    records = await memory_api.store.chat.read(a.season_id)
    verify_chat(records)
    assert len(records) == 2 and records[0].text is None
    (line,) = (await page(memory_api, b, sent["channel_id"])).json()["messages"]
    assert line["hidden"] is True and line["text"] is None
    memory_api.store.chat.tamper(a.season_id, 1, b"{}")  # type: ignore[attr-defined]
    with pytest.raises(ChainError):
        verify_chat(await memory_api.store.chat.read(a.season_id))


async def test_press_modes_are_enforced(memory_api: Api) -> None:
    """Issue 24: full (default), public only, none; a trial season has none."""
    a, b = await live_with(memory_api, 2, press="public")
    assert (await say(memory_api, a, "all", "herkese")).status_code == 201
    assert_problem(await say(memory_api, a, [b.seat], "gizli"), 403, "press_restricted")
    c, _ = await live_with(memory_api, 2, press="none")
    assert_problem(await say(memory_api, c, "all", "x"), 403, "chat_closed")
    trial = await create_trial(memory_api.client)
    assert_problem(await say(memory_api, trial, "all", "x"), 403, "chat_closed")
    r = await memory_api.client.post("/v1/seasons", json={"memleket": ANKARA, "press": "full"})
    assert_problem(r, 403, "not_allowed_in_mode")


@pytest.mark.parametrize(
    ("text", "variant"),
    [
        ("x" * 1001, "chat_text"),
        ("\n".join(["a"] * 21), "chat_text"),
        ("sol\u202eğas", "chat_text"),  # a bidi override (Trojan Source)
        ("a\u200db", "chat_text"),  # ZWJ: a format character (ADR-93)
        ("a\rb", "chat_text"),
        ("nul\x00", "chat_text"),
        ("\u200b \n ", "chat_text"),  # nothing visible
        ("a" + "\u0301" * 31, "chat_text"),  # a pile of marks ("zalgo", UAX #15's 30)
        # session 22's probe: each a 422 with its code already, kept so
        ("y" * 4001, "chat_text"),  # was invalid_body: msgspec's 4,000 bound answered first
        ("y" * 10_000, "chat_text"),  # one rule, one code for "too long" whatever the length
        ("\u2060\u2060", "chat_text"),  # word joiners only: format characters
        ("\ufeff", "chat_text"),  # a BOM alone
        ("\u3164\u3164", "chat_text"),  # Hangul fillers: letters that show nothing
        ("\u2800", "chat_text"),  # a blank Braille pattern
    ],
)
async def test_hostile_texts_are_refused_and_nothing_is_appended(
    memory_api: Api, text: str, variant: str
) -> None:
    """R-15.2, issue 24 limits: 1,000 characters, 20 lines, 30 marks in a row, no
    control/format/bidi."""
    a, *_ = await live_with(memory_api, 2)
    r = await say(memory_api, a, "all", text)
    assert_problem(r, 422, variant)
    if len(text) > 1000:  # too long: said with the limit and the length, whatever the length
        assert (r.json()["limit"], r.json()["length"]) == (1000, len(text)), r.text
    assert await memory_api.store.chat.read(a.season_id) == []


@pytest.mark.parametrize(
    ("body", "escape"),
    [
        (b'{"to": "all", "text": "a\\ud800b"}', "\\ud800"),  # msgspec: "truncated"
        (b'{"to": "all", "text": "\\ud800"}', "\\ud800"),
        (b'{"to": "all", "text": "\\udc00x"}', "\\udc00"),  # msgspec's English alone
        (b'{"to": "all", "text": "\\ud800\\u0041"}', "\\ud800"),
    ],
)
async def test_half_a_surrogate_pair_is_said_as_such_in_both_languages(
    memory_api: Api, body: bytes, escape: str
) -> None:
    """Probe: a text holding a lone UTF-16 surrogate escape (no character, RFC 8259 §8.2) was
    400 with "veri yarıda kesilmiş" / "Input data was truncated" (the body was whole) or with
    msgspec's English inside the Turkish detail. It is 400 `malformed_json` naming the escape
    and its byte, in the language asked for; nothing is appended."""
    a, *_ = await live_with(memory_api, 2)
    for lang, words in (("tr", "yarım bir UTF-16 vekil çifti"), ("en", "half of a UTF-16")):
        headers = {**a.auth(), **JSON, "Accept-Language": lang}
        r = await memory_api.client.post(a.url("/messages"), content=body, headers=headers)
        assert_problem(r, 400, "malformed_json")
        detail = r.json()["detail"]
        assert words in detail and escape in detail, detail
        assert "truncated" not in detail and "yarıda" not in detail and "utf-16" not in detail
    assert await memory_api.store.chat.read(a.season_id) == []


async def test_markup_is_kept_inert_as_text(memory_api: Api) -> None:
    a, b = await live_with(memory_api, 2)
    markup = "<script>alert(1)</script> **bold** <b>x</b>"
    assert (await say(memory_api, a, "all", markup)).status_code == 201
    (line,) = (await page(memory_api, b, "all")).json()["messages"]
    assert line["text"] == markup


async def test_recipients_limits_and_computer_beys(memory_api: Api) -> None:
    """Issue 24: unknown/repeated seats and oneself alone are refused; computer beys cannot
    be messaged (`computer_bey`)."""
    a, b = await live_with(memory_api, 2)
    assert_problem(await say(memory_api, a, [a.seat], "me"), 422, "bad_recipients")
    assert_problem(await say(memory_api, a, [b.seat, b.seat], "x"), 422, "bad_recipients")
    assert_problem(await say(memory_api, a, [19], "x"), 422, "bad_recipients")
    state, _ = await state_of(memory_api.store, a.season_id)
    assert state.calendar is not None
    await close_registration(memory_api.store, a.season_id, state.calendar.registration_closes_at)
    r = await say(memory_api, a, [b.seat, 19], "x")
    assert_problem(r, 422, "computer_bey")
    assert r.json()["seats"] == [19]
    group = await say(memory_api, a, [b.seat], "still fine")
    assert group.status_code == 201


async def test_messages_per_minute_are_limited(memory_api: Api) -> None:
    a, _ = await live_with(memory_api, 2)
    for n in range(chat.PER_MINUTE):
        assert (await say(memory_api, a, "all", f"m{n}")).status_code == 201
    r = await say(memory_api, a, "all", "one too many")
    assert_problem(r, 429, "chat_rate_limited")
    assert int(r.headers["retry-after"]) >= 1
    memory_api.clock.advance(timedelta(seconds=61))
    assert (await say(memory_api, a, "all", "later")).status_code == 201


async def test_a_group_is_its_set_of_members(memory_api: Api) -> None:
    a, b, c = await live_with(memory_api)
    one = (await say(memory_api, a, [b.seat, c.seat], "g1")).json()["channel_id"]
    two = (await say(memory_api, c, [a.seat, b.seat], "g2")).json()["channel_id"]
    assert one == two == chat.channel_of(frozenset({a.seat, b.seat, c.seat}))
    lines = (await page(memory_api, b, one)).json()["messages"]
    assert [m["text"] for m in lines] == ["g2", "g1"]  # newest first


async def test_pages_run_newest_first_with_a_cursor(memory_api: Api) -> None:
    a, b = await live_with(memory_api, 2)
    for n in range(5):
        await say(memory_api, a, "all", f"m{n}")
    first = (await page(memory_api, b, "all", limit=2)).json()
    assert [m["text"] for m in first["messages"]] == ["m4", "m3"]
    second = (await page(memory_api, b, "all", limit=2, before=first["next_before"])).json()
    assert [m["text"] for m in second["messages"]] == ["m2", "m1"]


async def test_the_read_marker_moves_forward_and_unread_counts_follow(memory_api: Api) -> None:
    a, b = await live_with(memory_api, 2)
    ids = [(await say(memory_api, a, "all", f"m{n}")).json()["message_id"] for n in range(3)]
    assert (await channels(memory_api, b))["all"]["unread"] == 3
    r = await memory_api.client.post(
        b.url("/channels/all/read"), json={"read_to": ids[1]}, headers=b.auth()
    )
    assert r.json() == {"channel_id": "all", "read_to": ids[1], "unread": 1}
    await memory_api.client.post(b.url("/channels/all/read"), json={"read_to": 1}, headers=b.auth())
    assert (await channels(memory_api, b))["all"]["unread"] == 1  # never back
    assert (await channels(memory_api, a))["all"]["unread"] == 0  # one's own are read


async def test_a_muted_bey_is_not_shown_to_its_muter(memory_api: Api) -> None:
    a, b, c = await live_with(memory_api)
    r = await memory_api.client.post(
        b.url(f"/mutes/{a.seat}"), json={"muted": True}, headers=b.auth()
    )
    assert r.status_code == 200, r.text
    await say(memory_api, a, "all", "noise")
    await say(memory_api, c, "all", "signal")
    assert [m["text"] for m in (await page(memory_api, b, "all")).json()["messages"]] == ["signal"]
    assert (await channels(memory_api, b))["all"]["unread"] == 1
    assert len((await page(memory_api, c, "all")).json()["messages"]) == 2


async def test_reports_reach_ops_with_context_and_auditors_see_acts_not_texts(
    memory_api: Api,
) -> None:
    """R-15.2: a report (optional reason), ops' list with context, a hide; auditors see who
    reported, what was done and when, never a text (R-15.3)."""
    a, b, c = await live_with(memory_api)
    sent = (await say(memory_api, a, [b.seat], "canary-reported")).json()
    r = await memory_api.client.post(
        b.url(f"/messages/{sent['message_id']}/report"),
        json={"reason": "hakaret"},
        headers=b.auth(),
    )
    assert r.status_code == 201, r.text
    for length in (1001, 4001):  # a reason too long: one code whatever the length
        long = await memory_api.client.post(
            b.url(f"/messages/{sent['message_id']}/report"),
            json={"reason": "y" * length},
            headers=b.auth(),
        )
        assert_problem(long, 422, "chat_text")
    ops = await memory_api.client.get(a.url("/chat/reports"), headers=bearer(OPS_TOKEN))
    (report,) = ops.json()["reports"]
    assert report["reported_by"] == b.seat and report["reason"] == "hakaret"
    assert [x["text"] for x in report["context"]] == ["canary-reported"]
    hidden = await memory_api.client.post(
        a.url(f"/messages/{sent['message_id']}/hide"),
        json={"reason": "R-15.2"},
        headers={**bearer(OPS_TOKEN), **JSON},
    )
    assert hidden.status_code == 200
    acts = await memory_api.client.get(a.url("/audit/chat-acts"), headers=bearer(AUDITOR_TOKEN))
    assert [x["act"] for x in acts.json()["acts"]] == ["reported", "hidden"]
    assert "canary" not in acts.text and "hakaret" not in acts.text
    auditor_reports = await memory_api.client.get(
        a.url("/chat/reports"), headers=bearer(AUDITOR_TOKEN)
    )
    assert_problem(auditor_reports, 403, "forbidden")
    # a bey cannot report a message of a channel it is not in
    outsider = await memory_api.client.post(
        c.url(f"/messages/{sent['message_id']}/report"), json={}, headers=c.auth()
    )
    assert_problem(outsider, 404, "message_not_found")
    lines = (await page(memory_api, b, sent["channel_id"])).json()["messages"]
    assert lines[0]["hidden"] is True and lines[0]["text"] is None


async def test_an_ops_hide_says_why_its_reason_is_refused(memory_api: Api) -> None:
    """Probe (session 22): a hide's reason over the limit was 422 `reason_required`, a code
    that says the reason is missing. It is checked as a report's reason is: too long is 422
    `chat_text` with `limit` and `length` (in both languages), so is a character or a pile of
    lines; only a reason with nothing visible in it is `reason_required` (ADR-165). Nothing
    is appended."""
    a, b = await live_with(memory_api, 2)
    sent = (await say(memory_api, a, [b.seat], "to hide")).json()
    hide = a.url(f"/messages/{sent['message_id']}/hide")
    ops = {**bearer(OPS_TOKEN), **JSON}
    before = await memory_api.store.chat.read(a.season_id)
    for length in (chat.MAX_CHARS + 1, 4001):
        for lang, words in (("tr", "en çok 1000 karakter"), ("en", "at most 1000 characters")):
            r = await memory_api.client.post(
                hide, json={"reason": "ş" * length}, headers={**ops, "Accept-Language": lang}
            )
            body = assert_problem(r, 422, "chat_text")
            assert (body["limit"], body["length"]) == (chat.MAX_CHARS, length), body
            assert words in body["detail"] and str(length) in body["detail"], body
    lines = "\n".join(["x"] * (chat.MAX_LINES + 1))
    body = assert_problem(
        await memory_api.client.post(hide, json={"reason": lines}, headers=ops), 422, "chat_text"
    )
    assert body["limit"] == chat.MAX_LINES
    bidi = await memory_api.client.post(hide, json={"reason": "a\u202eb"}, headers=ops)
    assert assert_problem(bidi, 422, "chat_text")["character"] == "U+202E"
    for blank in (" ", "\u3000 "):
        blanked = await memory_api.client.post(hide, json={"reason": blank}, headers=ops)
        assert_problem(blanked, 422, "reason_required")
    assert await memory_api.store.chat.read(a.season_id) == before
    ok = await memory_api.client.post(hide, json={"reason": "ş" * chat.MAX_CHARS}, headers=ops)
    assert ok.status_code == 200, ok.text


async def test_after_the_kurultay_the_channels_are_read_only(memory_api: Api) -> None:
    a, b = await live_with(memory_api, 2)
    await say(memory_api, a, [b.seat], "before")
    state, _ = await state_of(memory_api.store, a.season_id)
    assert state.calendar is not None
    await close_registration(memory_api.store, a.season_id, state.calendar.registration_closes_at)
    await play_live_divans(memory_api.store, a.season_id, 16)
    await hold_kurultay(memory_api.store, a.season_id)
    assert_problem(await say(memory_api, a, "all", "after"), 409, "chat_read_only")
    channel = chat.channel_of(frozenset({a.seat, b.seat}))
    assert (await page(memory_api, b, channel)).status_code == 200


async def test_listeners_hear_of_a_message_without_its_text(memory_api: Api) -> None:
    """Issue 24: the notifications seam: each new message is told to the listeners with its
    channel's other members, never its text (R-15.3)."""
    heard: list[Any] = []

    async def listener(delivered: Any) -> None:
        heard.append(delivered)

    memory_api.app.state.services.chat_listeners.append(listener)
    a, b, c = await live_with(memory_api)
    await say(memory_api, a, [b.seat], "canary-listener")
    await say(memory_api, a, "all", "herkese")
    assert [(d.channel_id, d.sender, d.recipients) for d in heard] == [
        (chat.channel_of(frozenset({a.seat, b.seat})), a.seat, (b.seat,)),
        ("all", a.seat, (b.seat, c.seat)),
    ]
    assert "canary" not in repr(heard)


async def test_an_audit_copy_takes_no_chat(memory_api: Api) -> None:
    """ADR-58, ADR-118: an imported audit copy is read-only, its chat as its own stream: a
    message, a report, a mute and an ops hide are 409 `audit_copy`, nothing appended; its
    pages are still read. (A process that serves the copy, as after `seksenbir import`.)"""
    a, b, _ = await live_with(memory_api)
    sent = (await say(memory_api, a, [b.seat], "before the import")).json()
    await memory_api.store.mark_audit_copy(a.season_id, bytes(32))
    async with open_litestar_client(memory_api.store, clock=memory_api.clock) as copy:
        assert_problem(await say(copy, a, "all", "on the copy"), 409, "audit_copy")
        assert_problem(await say(copy, a, [b.seat], "on the copy"), 409, "audit_copy")
        reported = await copy.client.post(
            b.url(f"/messages/{sent['message_id']}/report"), json={}, headers=b.auth()
        )
        assert_problem(reported, 409, "audit_copy")
        muted = await copy.client.post(
            b.url(f"/mutes/{a.seat}"), json={"muted": True}, headers=b.auth()
        )
        assert_problem(muted, 409, "audit_copy")
        hidden = await copy.client.post(
            a.url(f"/messages/{sent['message_id']}/hide"),
            json={"reason": "R-15.2"},
            headers={**bearer(OPS_TOKEN), **JSON},
        )
        assert_problem(hidden, 409, "audit_copy")
        assert len(await copy.store.chat.read(a.season_id)) == 1
        lines = (await page(copy, b, sent["channel_id"])).json()["messages"]
        assert [m["text"] for m in lines] == ["before the import"]


async def test_an_audit_copy_moves_no_read_marker(memory_api: Api) -> None:
    """ADR-126: the last-read marker is a write too (a row of chat_marks beside the copy's
    chat): on an audit copy it is 409 `audit_copy`, the marker where it was; the channels
    are still listed with their unread counts."""
    a, b, _ = await live_with(memory_api)
    sent = (await say(memory_api, a, [b.seat], "before the import")).json()
    channel = sent["channel_id"]
    await memory_api.store.mark_audit_copy(a.season_id, bytes(32))
    async with open_litestar_client(memory_api.store, clock=memory_api.clock) as copy:
        r = await copy.client.post(
            b.url(f"/channels/{channel}/read"),
            json={"read_to": sent["message_id"]},
            headers=b.auth(),
        )
        assert_problem(r, 409, "audit_copy")
        assert await copy.store.chat.marks(a.season_id, b.seat) == {}
        listed = await copy.client.get(b.url("/channels"), headers=b.auth())
        assert listed.status_code == 200, listed.text
        (mine,) = [c for c in listed.json()["channels"] if c["channel_id"] == channel]
        assert (mine["unread"], mine["read_to"]) == (1, 0)


async def test_messages_sent_at_once_are_limited_as_messages_sent_in_turn(api: Api) -> None:
    """The 20 a minute hold for a bey that sends its messages all at once (h-probe3: 30 sent
    concurrently to one API process were 29 taken, each decided on the fold before the others
    were appended): exactly PER_MINUTE are taken, the rest 429, and the channel holds those."""
    import asyncio

    a, b = await live_with(api, 2)
    sent = await asyncio.gather(*(say(api, a, "all", f"m{n}") for n in range(chat.PER_MINUTE + 10)))
    codes = sorted(r.status_code for r in sent)
    assert codes == [201] * chat.PER_MINUTE + [429] * 10, codes
    for r in sent:
        if r.status_code == 429:
            assert_problem(r, 429, "chat_rate_limited")
    lines = (await page(api, b, "all", limit=100)).json()["messages"]
    assert len(lines) == chat.PER_MINUTE


async def keyed_say(api: Api, bey: Bey, key: str, to: Any, text: str) -> Any:
    return await api.client.post(
        bey.url("/messages"),
        json={"to": to, "text": text},
        headers={**bey.auth(), "Idempotency-Key": key},
    )


async def test_a_keyed_message_sent_again_is_posted_once(api: Api) -> None:
    """ADR-175 (h-probe3): a message whose answer was lost, sent again with its key, answers
    the first message and posts nothing more (before: no key was read, two messages); the
    same key with another body is 422 `idempotency_key_reused`, the text not posted. In
    PostgreSQL the key is recorded in the statement that appends the message."""
    await keyed_twice(api)


async def keyed_twice(on: Api) -> None:
    a, b = await live_with(on, 2)
    first = await keyed_say(on, a, "chat-k1", "all", "bir kez")
    assert first.status_code == 201, first.text
    again = await keyed_say(on, a, "chat-k1", "all", "bir kez")
    assert (again.status_code, again.json()) == (201, first.json())
    other = await keyed_say(on, a, "chat-k1", "all", "başka")
    assert_problem(other, 422, "idempotency_key_reused")
    lines = (await page(on, b, "all", limit=100)).json()["messages"]
    assert [m["text"] for m in lines] == ["bir kez"]
    # keys are the bey's own: another bey's same key is its own message
    mine = await keyed_say(on, b, "chat-k1", "all", "bir kez")
    assert mine.status_code == 201, mine.text
    assert mine.json()["message_id"] != first.json()["message_id"]


async def test_keyed_copies_sent_at_once_post_one_message(api: Api) -> None:
    """ADR-175: copies of one keyed message at once: one message; each copy answers it, or
    409 `idempotency_key_in_flight` while the first runs."""
    import asyncio

    a, b = await live_with(api, 2)
    sent = await asyncio.gather(*(keyed_say(api, a, "chat-k2", "all", "tek") for _ in range(6)))
    ok = [r for r in sent if r.status_code == 201]
    assert ok and {r.json()["message_id"] for r in ok} == {ok[0].json()["message_id"]}
    for r in sent:
        if r.status_code != 201:
            assert_problem(r, 409, "idempotency_key_in_flight")
    lines = (await page(api, b, "all", limit=100)).json()["messages"]
    assert [m["text"] for m in lines] == ["tek"]


async def test_an_empty_or_long_chat_key_is_refused(memory_api: Api) -> None:
    """ADR-175: the key's bounds are the commands' (1 … 200): 400 `bad_idempotency_key`."""
    a, b = await live_with(memory_api, 2)
    assert_problem(await keyed_say(memory_api, a, "", "all", "x"), 400, "bad_idempotency_key")
    long = "k" * 201
    assert_problem(await keyed_say(memory_api, a, long, "all", "x"), 400, "bad_idempotency_key")
    assert (await page(memory_api, b, "all")).json()["messages"] == []


async def test_a_keyed_refusal_is_the_keys_answer(memory_api: Api) -> None:
    """ADR-175, as a command's (docs/api.md): a lasting refusal is stored under the key and
    answered again to a copy; the same key with another body is 422 `idempotency_key_reused`."""
    a, b = await live_with(memory_api, 2)
    first = await keyed_say(memory_api, a, "chat-k3", [a.seat], "x")  # the sender alone
    assert_problem(first, 422, "bad_recipients")
    again = await keyed_say(memory_api, a, "chat-k3", [a.seat], "x")
    assert (again.status_code, again.content) == (422, first.content)
    other = await keyed_say(memory_api, a, "chat-k3", "all", "x")
    assert_problem(other, 422, "idempotency_key_reused")
    assert (await page(memory_api, b, "all")).json()["messages"] == []
