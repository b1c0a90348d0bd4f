"""Season admin of a live season (D-29 … D-31): postpone, cancel, pause, resume; decided on the
server instant the edge stamps (`at`), each act an event with its reason, folded into state."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import get_args

import pytest

from shared.domain import calendar as cal
from shared.domain import codec, live, report_lines
from shared.domain import commands as c
from shared.domain import events as ev
from shared.domain.admin import ADMIN_ACTS, ADMIN_REFUSALS
from shared.domain.evolve import fold
from shared.domain.lifecycle import run_divan
from shared.domain.refusals import REFUSALS
from shared.domain.state import AdminAct, AdminActKind, SeasonState
from tests.domain.test_live import CLOSE, NOW, apply, created, instant, rejected, running


def act(kind: str, at: datetime, **kw: object) -> c.SeasonAdmin:
    return c.SeasonAdmin(act=kind, reason="test", at=at, **kw)  # type: ignore[arg-type]


def test_every_admin_act_is_declared_once_in_admin_acts() -> None:
    """ADR-115: the acts of AdminActKind and the entries of ADMIN_ACTS are the same, in one
    order (the routes'); each entry's refusals are domain codes, none repeated or shared ones."""
    assert tuple(ADMIN_ACTS) == get_args(AdminActKind)
    for kind, spec in ADMIN_ACTS.items():
        codes = (*ADMIN_REFUSALS, *spec.refusals)
        assert len(set(codes)) == len(codes) and set(codes) <= set(REFUSALS), kind
        assert spec.summary and spec.example_reason, kind


@pytest.mark.parametrize("kind", list(ADMIN_ACTS))
def test_an_admin_acts_public_line_names_it_with_its_words(kind: AdminActKind) -> None:
    """Issue 12: the public line of each act: its words in both languages, its reason, by whom."""
    tr, en = ADMIN_ACTS[kind].words
    line = report_lines.season_admin(AdminAct(act=kind, reason="r", at=NOW, by="ops"))
    assert (line.kind, line.data["act"], line.data["by"]) == ("season_admin", kind, "ops")
    assert line.tr.startswith(f"Sezon yönetimi: {tr} (ops, ")
    assert line.en.startswith(f"Season admin: {en} (ops, ") and line.en.endswith("reason: r")


def test_d29_postpone_moves_the_provisional_calendar_and_is_kept_with_its_reason() -> None:
    state = created()
    later = CLOSE + timedelta(days=7)
    state, events = apply(state, act("postpone", NOW, registration_closes_at=later))
    assert [codec.event_type(e) for e in events] == [
        "season_admin_acted.v1",
        "calendar_set.v2",
        "deadline_set.v1",
    ]
    # the scheduler's next deadline moves with the close (D-29)
    assert events[-1] == ev.DeadlineSet(kind="registration", divan=None, at=later)
    assert live.next_deadline(state) == live.Deadline("registration", None, later)
    assert state.calendar is not None and state.calendar.provisional
    assert state.calendar.registration_closes_at == later
    assert cal.iso(state.calendar.at(1)) == "2026-12-15T21:00:00+03:00"  # a week later
    assert [(a.act, a.reason, a.at) for a in state.admin_acts] == [("postpone", "test", NOW)]


@pytest.mark.parametrize(
    ("changes", "code"),
    [
        ({}, "registration_close_required"),
        ({"registration_closes_at": CLOSE - timedelta(hours=1)}, "not_later"),
        ({"registration_closes_at": datetime(2026, 12, 20, 18)}, "invalid_instant"),
    ],
)
def test_d29_a_postponement_needs_a_later_aware_close(
    changes: dict[str, object], code: str
) -> None:
    assert rejected(created(), act("postpone", NOW, **changes)).code == code


def test_d29_postpone_needs_the_lead_and_an_open_registration() -> None:
    state = created()
    half_hour_before = CLOSE - timedelta(minutes=30)
    soon = rejected(
        state,
        act("postpone", half_hour_before, registration_closes_at=CLOSE + timedelta(minutes=5)),
    )
    assert soon.code == "registration_too_soon"
    over = rejected(state, act("postpone", CLOSE, registration_closes_at=CLOSE + timedelta(days=3)))
    assert over.code == "registration_closed"  # its instant passed, even before the close event
    assert rejected(running(), act("postpone", NOW, registration_closes_at=CLOSE)).code == (
        "registration_closed"
    )


def test_d29_cancel_before_divan_1_refuses_every_command_after_it() -> None:
    state, _ = apply(created(), act("cancel", NOW))
    assert state.cancelled
    assert rejected(state, c.JoinSeason(memleket=6, at=NOW)).code == "season_cancelled"
    assert rejected(state, c.CloseRegistration(at=CLOSE)).code == "season_cancelled"
    assert rejected(state, act("pause", NOW)).code == "season_cancelled"
    run, _ = apply(running(), act("cancel", NOW))
    assert rejected(run, c.SubmitOrders(seat=1, divan=1, orders=(), at=NOW)).code == (
        "season_cancelled"
    )
    assert live.locked(run, instant(run, 1)) is None


def test_d29_no_cancel_once_divan_1_is_due_or_held() -> None:
    state = running()
    assert rejected(state, act("cancel", instant(state, 1))).code == "wrong_phase"
    held = fold(run_divan(state, now=instant(state, 1)), state)
    assert rejected(held, act("cancel", NOW)).code == "wrong_phase"


def test_d30_a_pause_stops_the_clock_no_divan_locks_while_paused() -> None:
    state = running()
    paused, _ = apply(state, act("pause", instant(state, 1) - timedelta(hours=1)))
    long_after = instant(state, 3) + timedelta(hours=1)
    assert live.locked(paused, long_after) is None
    assert live.counts_for(paused, long_after) == 1
    ok = apply(paused, c.SubmitOrders(seat=1, divan=1, orders=(), at=long_after))[1]
    assert ok == [ev.OrdersSubmitted(seat=1, divan=1, orders=())]
    assert isinstance(apply(paused, c.HireMercenaries(seat=1, province=6, at=long_after))[1], list)
    assert rejected(paused, act("pause", long_after)).code == "already_paused"


def test_d30_no_pause_while_a_divan_is_locked_nor_outside_a_running_season() -> None:
    state = running()
    locked = rejected(state, act("pause", instant(state, 1)))
    assert (locked.code, locked.details["divan"]) == ("divan_locked", 1)
    assert rejected(created(), act("pause", NOW)).code == "wrong_phase"
    assert rejected(state, act("resume", NOW)).code == "not_paused"


# Divan 3 is next; a resume on each day: Divan 3 (odd) on the first Tuesday 21:00 ≥ 24 h away.
@pytest.mark.parametrize(
    ("resumed_at", "divan_3"),
    [
        ("2026-12-21T20:00:00+03:00", "2026-12-22T21:00:00+03:00"),  # Monday 20:00: next day
        ("2026-12-21T21:00:01+03:00", "2026-12-29T21:00:00+03:00"),  # Monday 21:00:01: a week on
        ("2026-12-22T12:00:00+03:00", "2026-12-29T21:00:00+03:00"),  # the Tuesday itself
    ],
)
def test_d31_resume_holds_the_next_divan_on_its_weekday_at_least_24_hours_away(
    resumed_at: str, divan_3: str
) -> None:
    state = running()
    for _ in range(2):
        state = fold(run_divan(state, now=instant(state, state.divan + 1)), state)
    state, _ = apply(state, act("pause", instant(state, 3) - timedelta(days=1)))
    at = datetime.fromisoformat(resumed_at)
    state, events = apply(state, act("resume", at))
    assert state.paused_at is None
    assert isinstance(events[1], ev.CalendarSet) and events[1].reason == "resumed"
    assert cal.iso(instant(state, 3)) == divan_3
    assert cal.iso(instant(state, 4)) == cal.iso(instant(state, 3) + timedelta(days=3))  # Friday
    assert instant(state, 2) < instant(state, 3)  # held Divans keep their instants
    assert live.counts_for(state, at) == 3 and live.locked(state, at) is None
    assert live.locked(state, instant(state, 3)) == 3


def test_d31_a_compressed_season_resumes_one_interval_later() -> None:
    state = created(divan_interval_seconds=10, registration_closes_at=NOW + timedelta(seconds=10))
    state, _ = apply(state, c.JoinSeason(memleket=6, at=NOW))
    state, _ = apply(state, c.CloseRegistration(at=NOW + timedelta(seconds=10)))
    state, _ = apply(state, act("pause", NOW + timedelta(seconds=11)))
    back = NOW + timedelta(hours=2)
    state, _ = apply(state, act("resume", back))
    assert instant(state, 1) == back + timedelta(seconds=10)
    assert instant(state, 16) == back + timedelta(seconds=160)


def test_admin_acts_round_trip_and_trial_seasons_have_none() -> None:
    state = running()
    events: list[ev.Event] = []
    for cmd in (act("pause", NOW), act("resume", NOW + timedelta(days=30))):
        state, more = apply(state, cmd)
        events += more
    assert [codec.decode_event(codec.encode(e)) for e in events] == events
    trial = fold(apply(SeasonState(), c.CreateSeason(season_id="t", seed=1))[1])
    assert rejected(trial, act("pause", NOW)).code == "not_allowed_in_mode"
    assert rejected(state, c.SeasonAdmin(act="pause", reason="  ", at=NOW)).code == (
        "reason_required"
    )


def test_d29_a_join_to_nineteen_humans_is_season_full_and_after_a_close_registration_closed() -> (
    None
):
    state = created()
    for plate in range(1, 20):
        state, _ = apply(state, c.JoinSeason(memleket=plate, at=NOW))
    assert state.phase == "running"  # the 19th seat closed registration at once
    assert rejected(state, c.JoinSeason(memleket=50, at=NOW)).code == "season_full"
    assert rejected(running(), c.JoinSeason(memleket=50, at=NOW)).code == "registration_closed"


def test_the_admin_token_is_set_once_and_only_for_a_live_season() -> None:
    state, events = apply(created(), c.SetAdminToken(token_hash="h1"))
    assert events == [ev.AdminTokenSet(token_hash="h1")] and state.admin_token == "h1"
    assert rejected(state, c.SetAdminToken(token_hash="h2")).code == "season_exists"
    trial = fold(apply(SeasonState(), c.CreateSeason(season_id="t", seed=1))[1])
    assert rejected(trial, c.SetAdminToken(token_hash="h")).code == "not_allowed_in_mode"


def test_d30_d31_no_deadline_while_paused_or_cancelled_and_the_moved_one_after_a_resume() -> None:
    state = running()
    assert live.next_deadline(state) == live.Deadline("divan", 1, instant(state, 1))
    paused, events = apply(state, act("pause", NOW))
    assert events[-1] == ev.DeadlineSet() and live.next_deadline(paused) is None
    back = instant(state, 1) + timedelta(days=2)
    resumed, events = apply(paused, act("resume", back))
    moved = instant(resumed, 1)
    assert moved > back and events[-1] == ev.DeadlineSet(kind="divan", divan=1, at=moved)
    assert live.next_deadline(resumed) == live.Deadline("divan", 1, moved)
    assert not live.divan_due(paused, 1, instant(state, 1) + timedelta(days=1))
    cancelled, events = apply(state, act("cancel", NOW))
    assert events[-1] == ev.DeadlineSet() and live.next_deadline(cancelled) is None
    in_registration, events = apply(created(), act("cancel", NOW))
    assert events[-1] == ev.DeadlineSet() and live.next_deadline(in_registration) is None
