"""The base of every event (its tag is the stored type name) and the values events carry: a
province after a step, a battle, a correction, a report line."""

from __future__ import annotations

from typing import Literal

import msgspec

from shared.domain.event_bounds import Amount, Delta, Die, DivanThrough, Plate, Seat
from shared.domain.state import Treaty

# `gc=False` on the values a Divan builds by the hundred (issue 27): the cycle collector does not
# track them (no link and unlink per object, about 1.7 % of a Divan's instructions). Safe because
# none can reach itself: their fields are numbers, strings, tuples of those, and a report line's
# data dict of numbers, strings and lists of numbers, which nothing puts a struct into.
# Encoding, equality and hashing do not change (tests/domain/test_records_untracked.py).


class ProvinceSet(msgspec.Struct, frozen=True, gc=False):
    """The absolute state of one province after a step (owner None: units are milis)."""

    plate: Plate
    owner: Seat | None
    units: Amount
    sur: bool = False


class GoldDelta(msgspec.Struct, frozen=True, gc=False):
    seat: Seat
    amount: Delta
    reason: Literal["income", "tribute", "seyyah", "sur", "paralı_asker", "satın_alma"]


class ProvinceFix(
    msgspec.Struct, frozen=True, tag_field="kind", tag="province", forbid_unknown_fields=True
):
    """A correction (ADR-53): province `province` is set to this owner and these units (owner
    None: the units are its milis) and this sur, as ProvinceSet does (M-6 included)."""

    province: Plate
    owner: Seat | None
    units: Amount
    sur: bool = False


class GoldFix(
    msgspec.Struct, frozen=True, tag_field="kind", tag="gold", forbid_unknown_fields=True
):
    """A correction (ADR-53): bey `seat`'s gold is set to `gold`."""

    seat: Seat
    gold: Amount


class HainRevoke(
    msgspec.Struct, frozen=True, tag_field="kind", tag="revoke_hain", forbid_unknown_fields=True
):
    """A correction (ADR-53): bey `seat`'s Hain badge (R-6.5) is removed."""

    seat: Seat


Fix = ProvinceFix | GoldFix | HainRevoke


class GroupRecord(msgspec.Struct, frozen=True, gc=False):
    beys: tuple[Seat, ...]
    advances: tuple[tuple[Seat, Plate, Amount], ...]  # (seat, origin, units)
    support: tuple[tuple[Seat, Plate, Amount], ...]  # (seat, origin, units)
    strength: Amount
    traitor: bool = False


class BattleRecord(msgspec.Struct, frozen=True, gc=False):
    """R-5.8: everything a disputed battle is judged on."""

    target: Plate
    defender: Seat | None
    defender_units: Amount
    defence_bonus: Amount
    defence_support: tuple[tuple[Seat, Plate, Amount], ...]
    groups: tuple[GroupRecord, ...]
    outcome: Literal["taken", "held", "standoff"]
    fighting_group: Amount | None = None
    attack: Amount | None = None
    defence: Amount | None = None
    attack_die: Die | None = None
    defence_die: Die | None = None
    attacker_losses: Amount = 0
    defender_losses: Amount = 0
    entering: Amount = 0
    taker: Seat | None = None
    shares: tuple[tuple[Seat, Amount], ...] = ()  # (seat, units)
    rules: tuple[str, ...] = ()


class Betrayal(msgspec.Struct, frozen=True):
    """R-6.5: one per (traitor, target province)."""

    traitor: Seat
    victim: Seat
    province: Plate
    treaty: Treaty
    hain_through: DivanThrough


class Allotment(msgspec.Struct, frozen=True, gc=False):
    plate: Plate
    base: Amount = 0
    harvest: Amount = 0
    bonus: Amount = 0
    kurtulus: Amount = 0
    doubled: Amount = 0
    lost: Amount = 0


class ReportLine(msgspec.Struct, frozen=True, gc=False):
    """One structured line of a Divan report, with its Turkish and English text."""

    kind: str
    data: dict[str, int | str | list[int] | None]
    tr: str
    en: str


class Event(msgspec.Struct, frozen=True, kw_only=True, tag_field="type"):
    """Base of every event; the tag is the stored type name."""
