"""The notifier follows stored events (issue 25): deadline warnings on a compressed calendar
with the test clock (once, at the scaled lead time, skipped for complete orders unless
"always"), notices per bey that carry only that bey's own facts, receivers dropped at the end."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from services.notify.delivery import Delivery
from services.notify.follower import Follower
from services.notify.notices import notices, scaled_lead
from shared.app.messaging.notify_store import MemoryNotifyStore, PushSubscription, Webhook
from shared.domain import events as ev
from shared.domain.event_records import ReportLine
from tests.http.support import ANKARA, ISTANBUL, OPS_TOKEN, Api, bearer
from tests.http.test_live_seasons import close_registration, create_live, join

INTERVAL = 3600  # a compressed calendar: a Divan an hour


def sub(sid: str, name: str, seat: int, *, always: bool = False) -> PushSubscription:
    return PushSubscription(
        subscription_id=name,
        season_id=sid,
        seat=seat,
        endpoint="https://push.example/x",
        p256dh="k",
        auth="a",
        lead_seconds=3600,
        always=always,
    )


async def test_the_deadline_warning_is_sent_once_at_the_lead_time_and_skipped_for_complete_orders(
    memory_api: Api,
) -> None:
    api = memory_api
    close = api.clock.now + timedelta(seconds=INTERVAL + 60)
    created = await create_live(
        api,
        headers=bearer(OPS_TOKEN),
        divan_interval_seconds=INTERVAL,
        registration_closes_at=close.isoformat(),
        memleket=ANKARA,
    )
    sid, token = created["season_id"], created["creator"]["token"]
    assert (await join(api, sid, ISTANBUL)).status_code == 201
    api.clock.now = close
    await close_registration(api.store, sid, close)
    divan_1 = close + timedelta(seconds=INTERVAL)
    lead = scaled_lead(3600, INTERVAL)  # an hour of a real week is ~43 s of this calendar
    assert 40 < lead < 45
    r = await api.client.post(
        f"/v1/seasons/{sid}/orders",
        headers=bearer(token),
        json={"divan": 1, "orders": [{"province": ANKARA, "kind": "hold"}]},
    )
    assert r.status_code == 200, r.text
    creator = created["creator"]["seat"]
    other = 2 if creator == 1 else 1
    store = MemoryNotifyStore()
    for s in (
        sub(sid, "ps_done", creator),
        sub(sid, "ps_always", creator, always=True),
        sub(sid, "ps_late", other),
    ):
        await store.put(s)
    await store.follow(sid, await api.store.stream_version(sid))
    sent: list[Delivery] = []
    now = divan_1 - timedelta(seconds=lead + 5)
    follower = Follower(api.store, store, sent.extend, lambda: now)
    await follower.sweep()
    assert sent == []  # not yet within the lead
    now = divan_1 - timedelta(seconds=lead - 5)
    await follower.sweep()
    await follower.sweep()
    assert sorted((d.target, d.event) for d in sent) == [
        ("ps_always", "divan_soon"),
        ("ps_late", "divan_soon"),
    ]  # once each; the bey whose orders are complete is not warned
    assert {d.data["divan"] for d in sent} == {1}


def test_a_divan_report_goes_to_each_bey_with_its_own_lines_only() -> None:
    line = lambda t: ReportLine(kind="x", data={}, tr=t, en=t)  # noqa: E731
    event = ev.DivanResolved(
        divan=3,
        public=(line("public"),),
        private={1: (line("gold 7 of bey 1"),), 2: (line("secret of 2"),)},
    )
    out = list(notices("s1", 40, event))
    by_seat = {n.seat: n for n in out}
    assert by_seat[None].texts["en"] == "Divan 3 is resolved."
    assert "secret of 2" not in str(by_seat[1]) and "gold 7 of bey 1" in by_seat[1].texts["en"]
    assert "gold 7 of bey 1" not in str(by_seat[2]) and "gold 7" not in str(by_seat[None])
    assert {n.event for n in out} == {"divan_resolved"}


async def test_public_notices_reach_every_receiver_and_private_ones_only_their_bey() -> None:
    from shared.eventstore import InMemoryEventStore
    from tests.clock import StepClock

    store = InMemoryEventStore(clock=StepClock())
    notify = MemoryNotifyStore()
    await notify.put(
        Webhook(
            webhook_id="wh_admin",
            season_id="s1",
            seat=None,
            url="https://x.example/",
            format="json",
            secret="s",
        )
    )
    await notify.put(
        Webhook(
            webhook_id="wh_bey2",
            season_id="s1",
            seat=2,
            url="https://x.example/",
            format="json",
            secret="s",
        )
    )
    await notify.put(sub("s1", "ps_bey1", 1))
    offer = ev.TreatyOffered(frm=1, to=2, kind="alliance")  # a kind the event can carry
    sent: list[Delivery] = []
    follower = Follower(store, notify, sent.extend, StepClock())
    await follower._deliver("s1", list(notices("s1", 5, offer)))
    assert [(d.target, d.event) for d in sent] == [("wh_bey2", "offer_received")]


async def test_no_notice_carries_another_beys_report_lines_gold_or_orders(memory_api: Api) -> None:
    """R-14 (issue 25, secrecy): after a real Divan, the deliveries to a bey's receivers carry
    its own report lines and the public facts only; no line of another bey's private report."""
    from services.resolver.divan import resolve
    from shared.app.repository.seasons import Seasons
    from shared.domain.codec import decode_stored
    from tests.clock import StepClock
    from tests.http.support import create_trial

    bey = await create_trial(memory_api.client)
    store = MemoryNotifyStore()
    await store.put(
        Webhook(
            webhook_id="wh_mine",
            season_id=bey.season_id,
            seat=bey.seat,
            url="https://x.example/",
            format="json",
            secret="s",
        )
    )
    await store.put(
        Webhook(
            webhook_id="wh_public",
            season_id=bey.season_id,
            seat=None,
            url="https://x.example/",
            format="json",
            secret="s",
        )
    )
    await store.follow(bey.season_id, await memory_api.store.stream_version(bey.season_id))
    r = await memory_api.client.post(
        f"/v1/seasons/{bey.season_id}/divans", json={"divan": 1}, headers=bearer(bey.token)
    )
    assert r.status_code == 202, r.text
    assert await resolve(Seasons(memory_api.store), bey.season_id, 1) == "resolved"
    sent: list[Delivery] = []
    await Follower(memory_api.store, store, sent.extend, StepClock()).sweep()
    resolved = [
        decode_stored(e.data, e.type)
        for e in await memory_api.store.read_stream(bey.season_id)
        if e.type == "divan_resolved.v1"
    ]
    [event] = resolved
    assert isinstance(event, ev.DivanResolved)
    others = [line for seat, lines in event.private.items() if seat != bey.seat for line in lines]
    own = list(event.private.get(bey.seat, ()))
    assert others, "the computer beys have private lines to keep secret"
    texts = " ".join(str(d.texts) + str(d.data) for d in sent)
    for line in others:
        if line.en not in [o.en for o in own] + [p.en for p in event.public]:
            assert line.en not in texts and line.tr not in texts, line
    assert {d.target for d in sent if d.event == "divan_resolved"} == {"wh_mine", "wh_public"}
    public = [d for d in sent if d.target == "wh_public"]
    assert all(d.data.get("divan") == 1 for d in public if d.event == "divan_resolved")


def test_the_kurultay_close_is_warned_of_to_a_bey_that_has_not_voted() -> None:
    from datetime import UTC, datetime

    from services.notify.notices import KURULTAY, warning, warning_due
    from shared.domain.state import Calendar, SeasonState

    close = datetime(2026, 12, 20, 21, 0, tzinfo=UTC)
    cal = Calendar(
        registration_closes_at=close - timedelta(days=60),
        divans=(close - timedelta(days=3),) * 16,
        kurultay_closes_at=close,
    )
    state = SeasonState(mode="live", phase="kurultay", calendar=cal, votes={1: 2})
    soon = close - timedelta(minutes=30)
    assert warning_due(state, 2, 3600, False, soon) == KURULTAY
    assert warning_due(state, 1, 3600, False, soon) is None  # it has voted
    assert warning_due(state, 1, 3600, True, soon) == KURULTAY  # unless "always"
    assert warning_due(state, 2, 3600, False, close - timedelta(hours=2)) is None  # not yet
    assert warning("s1", 2, KURULTAY, close).event == "kurultay_soon"


def test_an_attack_is_told_to_the_defender_only() -> None:
    from shared.domain.event_records import BattleRecord, GroupRecord

    group = GroupRecord(beys=(1,), advances=((1, 7, 3),), support=(), strength=3)
    battle = BattleRecord(
        target=6,
        defender=3,
        defender_units=2,
        defence_bonus=0,
        defence_support=(),
        groups=(group,),
        outcome="taken",
    )
    out = list(
        notices(
            "s1",
            7,
            ev.BattlesResolved(
                divan=2, battles=(battle,), betrayals=(), cancelled=(), void_supports=(), changes=()
            ),
        )
    )
    assert [(n.event, n.seat, n.data["provinces"]) for n in out] == [("attacked", 3, [6])]
    # the province by its name, as the reports say it; its plate stays in the data
    assert out[0].texts == {
        "tr": "2. Divan'da saldırıya uğradınız: Ankara.",
        "en": "You were attacked at Divan 2: Ankara.",
    }


async def test_offer_notices_name_the_beys_by_their_names(memory_api: Api) -> None:
    """R-15.5 (issue 23): a notification names a bey as every screen does, by its chosen name
    (a right-to-left one isolated), not by its seat: "3. bey size bir … önerdi" told a player
    nothing it could match with the beys it plays with. A bey without a name keeps its seat
    form in each language."""
    api = memory_api
    close = api.clock.now + timedelta(seconds=INTERVAL + 60)
    created = await create_live(
        api,
        headers=bearer(OPS_TOKEN),
        divan_interval_seconds=INTERVAL,
        registration_closes_at=close.isoformat(),
        memleket=ANKARA,
        name="Ayşe",
    )
    sid, ayse = created["season_id"], created["creator"]
    r = await api.client.post(f"/v1/seasons/{sid}/join", json={"memleket": ISTANBUL, "name": "علی"})
    assert r.status_code == 201, r.text
    ali = r.json()
    r = await join(api, sid, 35)  # İzmir, no name
    assert r.status_code == 201, r.text
    plain = r.json()
    api.clock.now = close
    await close_registration(api.store, sid, close)
    store = MemoryNotifyStore()
    for who in (ayse, ali, plain):
        await store.put(sub(sid, f"ps_{who['seat']}", who["seat"]))
    await store.follow(sid, await api.store.stream_version(sid))

    async def offer(frm: dict[str, Any], to: dict[str, Any], key: str) -> None:
        r = await api.client.post(
            f"/v1/seasons/{sid}/offers",
            json={"to": to["seat"], "kind": "pact"},
            headers={**bearer(frm["token"]), "Idempotency-Key": key},
        )
        assert r.status_code == 200, r.text

    await offer(ayse, ali, "a")
    await offer(plain, ayse, "b")
    r = await api.client.post(
        f"/v1/seasons/{sid}/offers/{ayse['seat']}/answer",
        json={"answer": "accept"},
        headers=bearer(ali["token"]),
    )
    assert r.status_code == 200, r.text
    sent: list[Delivery] = []
    await Follower(api.store, store, sent.extend, lambda: api.clock.now).sweep()
    said = {(d.target, d.event): d.texts for d in sent}
    n = plain["seat"]
    assert said[f"ps_{ali['seat']}", "offer_received"] == {
        "tr": "Ayşe size bir saldırmazlık antlaşması önerdi.",
        "en": "Ayşe offers you a non-aggression pact.",
    }
    assert said[f"ps_{ayse['seat']}", "offer_accepted"] == {
        "tr": "\u2068علی\u2069 önerinizi kabul etti.",
        "en": "\u2068علی\u2069 accepted your offer.",
    }
    assert said[f"ps_{ayse['seat']}", "offer_received"] == {
        "tr": f"{n}. bey size bir saldırmazlık antlaşması önerdi.",
        "en": f"Bey {n} offers you a non-aggression pact.",
    }


def test_a_divan_notice_says_its_lines_as_sentences_with_names_and_no_seal() -> None:
    """A bey's `divan_resolved` notice ran its report lines together with no stop between
    them, named beys by seat only, and began with the own seal's salt and digest in hex (for
    verifying, ADR-57: it stays in the report). Now each line is a sentence, the names of the
    seats it names after it as on the screens (R-15.5), and the seal is left out."""
    from shared.domain.state import Bey, SeasonState

    state = SeasonState(beys=(Bey(seat=1, memleket=6), Bey(seat=2, memleket=34)), names={2: "Bora"})
    line = lambda kind, tr, en: ReportLine(kind=kind, data={}, tr=tr, en=en)  # noqa: E731
    event = ev.DivanResolved(
        divan=1,
        public=(),
        private={
            1: (
                line("orders_sealed", f"1. Divan emirleriniz mühürlendi: tuz {'a' * 64}", "x"),
                line(
                    "offer",
                    "2. bey saldırmazlık antlaşması teklifinizi reddetti",
                    "Bey 2 rejected your non-aggression pact offer",
                ),
                line("conquest", "1. bey Kırıkkale ilini aldı", "Bey 1 took Kırıkkale"),
            )
        },
    )
    (mine,) = [n for n in notices("s1", 40, event, state) if n.seat == 1]
    assert mine.texts == {
        "tr": "1. Divan toplandı. 2. bey saldırmazlık antlaşması teklifinizi reddetti "
        "(2. bey: Bora). 1. bey Kırıkkale ilini aldı.",
        "en": "Divan 1 is resolved. Bey 2 rejected your non-aggression pact offer (Bey 2: Bora). "
        "Bey 1 took Kırıkkale.",
    }
