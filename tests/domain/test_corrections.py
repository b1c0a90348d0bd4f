"""Corrections (issue 13, ADR-53): a defect verification found is fixed by a compensating event
applied by ops with a reason, never a rewrite; replay and verification show both."""

from __future__ import annotations

from datetime import UTC, datetime

import msgspec
import pytest

from shared.domain import commands as c
from shared.domain import events as ev
from shared.domain.codec import decode_event, encode
from shared.domain.decide import decide
from shared.domain.evolve import fold
from shared.domain.lifecycle import run_divan
from shared.domain.replay import verify
from shared.domain.simulate import must, start
from shared.domain.state import SeasonState

AT = datetime(2026, 12, 9, 12, 0, tzinfo=UTC)


def _played(seed: int, divans: int) -> tuple[SeasonState, list[ev.Event]]:
    state, events = start(seed)
    for _ in range(divans):
        more = run_divan(state)
        state = fold(more, state)
        events += more
    return state, events


def _correct(
    state: SeasonState, fix: ev.Fix, reason: str = "verify: Divan re-run differs"
) -> list[ev.Event]:
    result = decide(state, c.ApplyCorrection(correction=fix, reason=reason, at=AT))
    assert isinstance(result, list), result
    return result


def test_adr53_a_correction_is_one_event_that_sets_what_it_names_and_rewrites_nothing() -> None:
    """ADR-53: each kind (province, gold, revoke_hain) is one CorrectionApplied with its reason,
    the Divan after which it applies and the instant; folding it sets that and nothing else;
    the events before it are unchanged."""
    state, events = _played(5, 3)
    before = encode(events)
    plate = next(p for p in range(1, 82) if state.province(p).owner is None)
    bey = state.beys[0]
    fixes: list[ev.Fix] = [
        ev.ProvinceFix(province=plate, owner=bey.seat, units=3),
        ev.GoldFix(seat=bey.seat, gold=bey.gold + 4),
    ]
    for fix in fixes:
        (done,) = _correct(state, fix)
        assert isinstance(done, ev.CorrectionApplied)
        assert (done.correction, done.divan, done.at, done.by) == (fix, 3, AT, "ops")
        assert decode_event(encode(done)) == done  # stored and read back as it was
        after = fold([done], state)
        if isinstance(fix, ev.ProvinceFix):
            assert after.province(plate).owner == bey.seat and after.province(plate).units == 3
            assert after.beys == state.beys
        else:
            assert after.bey(bey.seat).gold == bey.gold + 4  # type: ignore[union-attr]
            assert after.provinces == state.provinces
    assert encode(events) == before


def test_adr53_r6_5_a_hain_badge_is_revoked_by_a_correction() -> None:
    """R-6.5, ADR-53: a betrayal counted wrongly (bey 3 wears the badge through Divan 8);
    ops remove the badge; a bey without one cannot lose it."""
    state, _events = _played(7, 4)
    beys = tuple(
        msgspec.structs.replace(b, hain_through=8) if b.seat == 3 else b for b in state.beys
    )
    state = msgspec.structs.replace(state, beys=beys)
    hain = [b for b in state.beys if b.hain_through is not None]
    (done,) = _correct(state, ev.HainRevoke(seat=hain[0].seat))
    assert fold([done], state).bey(hain[0].seat).hain_through is None  # type: ignore[union-attr]
    again = decide(
        fold([done], state),
        c.ApplyCorrection(correction=ev.HainRevoke(seat=hain[0].seat), reason="x", at=AT),
    )
    assert isinstance(again, c.Rejection) and again.key == "invalid_correction.not_hain"


def test_adr53_verification_names_the_defect_and_replay_carries_the_correction_forward() -> None:
    """ADR-53, R-12.3: Divan 3's production is recorded with one bey's gold wrong (the defect);
    later Divans were resolved from it. Verification names Divan 3. Ops apply a gold
    correction to what the re-run says; Divans 4-6 are resolved from the corrected state.
    Verification still names Divan 3 (the original is never rewritten) and only it; the
    replayed state equals a clean season's wherever the defect touched only gold."""
    state, events = _played(11, 2)
    divan3 = run_divan(state)
    prod = next(i for i, e in enumerate(divan3) if isinstance(e, ev.ProductionApplied))
    p = divan3[prod]
    assert isinstance(p, ev.ProductionApplied) and p.gold
    seat = p.gold[0].seat
    wrong = msgspec.structs.replace(
        p, gold=(msgspec.structs.replace(p.gold[0], amount=p.gold[0].amount + 7), *p.gold[1:])
    )
    tampered = [*divan3[:prod], wrong, *divan3[prod + 1 :]]
    clean = fold(divan3, state)
    state = fold(tampered, state)
    events += tampered
    _, problems = verify(events)
    assert [m.divan for m in problems] == [3]

    fix = _correct(state, ev.GoldFix(seat=seat, gold=clean.bey(seat).gold))  # type: ignore[union-attr]
    state = fold(fix, state)
    events += fix
    assert state == clean  # the correction undoes exactly the defect
    for _ in range(3):
        more = run_divan(state)
        state = fold(more, state)
        events += more
    replayed, problems = verify(events)
    assert [m.divan for m in problems] == [3]  # the original defect stays visible
    assert replayed == state
    assert sum(isinstance(e, ev.CorrectionApplied) for e in events) == 1
    assert wrong in events  # both the original and the correction are in the record


@pytest.mark.parametrize(
    ("fix", "key"),
    [
        (ev.GoldFix(seat=1, gold=-1), "invalid_correction.gold"),
        (ev.ProvinceFix(province=6, owner=1, units=13), "invalid_correction.units"),
        (ev.ProvinceFix(province=6, owner=1, units=0), "invalid_correction.units"),
        (
            ev.ProvinceFix(province=6, owner=None, units=2, sur=True),
            "invalid_correction.unowned_sur",
        ),
        (ev.HainRevoke(seat=1), "invalid_correction.not_hain"),
        (ev.ProvinceFix(province=82, owner=None, units=2), "unknown_province"),
        (ev.GoldFix(seat=20, gold=3), "unknown_seat"),
    ],
)
def test_adr53_a_correction_out_of_bounds_is_refused(fix: ev.Fix, key: str) -> None:
    state, _events = _played(3, 1)
    assert state.bey(1) is not None and state.bey(1).hain_through is None  # type: ignore[union-attr]
    result = decide(state, c.ApplyCorrection(correction=fix, reason="why", at=AT))
    assert isinstance(result, c.Rejection) and result.key == key, result


def test_adr53_a_correction_that_changes_nothing_or_has_no_reason_is_refused() -> None:
    state, _events = _played(3, 1)
    bey = state.beys[0]
    p = state.province(bey.memleket)
    same = [
        ev.GoldFix(seat=bey.seat, gold=bey.gold),
        ev.ProvinceFix(province=bey.memleket, owner=p.owner, units=p.units, sur=p.sur),
    ]
    for fix in same:
        r = decide(state, c.ApplyCorrection(correction=fix, reason="why", at=AT))
        assert isinstance(r, c.Rejection) and r.key == "invalid_correction.no_change"
    r = decide(state, c.ApplyCorrection(correction=same[0], reason="  ", at=AT))
    assert isinstance(r, c.Rejection) and r.key == "reason_required"
    r = decide(state, c.ApplyCorrection(correction=same[0], reason="why", at=None))
    assert isinstance(r, c.Rejection) and r.key == "invalid_instant"


def test_adr53_no_correction_before_divan_1_after_the_kurultay_or_while_a_divan_is_locked() -> None:
    """The Kurultay's result is final (R-10.4); a locked Divan is being resolved (R-12)."""
    fix = ev.GoldFix(seat=1, gold=9)
    registering, _ = must(SeasonState(), c.CreateSeason(season_id="s", seed=1))
    r = decide(registering, c.ApplyCorrection(correction=fix, reason="why", at=AT))
    assert isinstance(r, c.Rejection) and r.key == "wrong_phase.correction"
    state, _events = _played(2, 16)
    over, _ = must(state, c.HoldKurultay())
    r = decide(over, c.ApplyCorrection(correction=fix, reason="why", at=AT))
    assert isinstance(r, c.Rejection) and r.key == "wrong_phase.correction"
    state, _events = _played(2, 1)
    locked = msgspec.structs.replace(state, locked_divan=2)
    r = decide(locked, c.ApplyCorrection(correction=fix, reason="why", at=AT))
    assert isinstance(r, c.Rejection) and r.key == "divan_locked.correction"
