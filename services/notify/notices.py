"""What is notified, and to whom (issue 25): stored events in, notices out. Pure.

A notice goes to the season (`seat` None: every receiver of the season, the admin's webhooks
and every bey's) or to one bey (`seat`: that bey's receivers only). A bey's notice carries
only that bey's own facts: its own Divan report lines, the offers made to or by it, the
provinces it was attacked in; never another bey's orders, gold or missions (R-14).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from shared.domain import events as ev
from shared.domain.admin import ADMIN_ACTS
from shared.domain.map import game_map
from shared.domain.names import display_name
from shared.domain.report_lines import TREATY
from shared.domain.state import SeasonState

DEFAULT_LEAD_S = 3600
# A compressed calendar's Divans come every `interval_seconds`: a lead of an hour in a real
# week is that share of three and a half days (Tue/Fri 21:00) in the compressed one.
REAL_INTERVAL_S = int(3.5 * 24 * 3600)


@dataclass(frozen=True, slots=True)
class Notice:
    key: str  # the same notice always has the same key (delivery ids derive from it)
    event: str  # the name receivers see (`divan_resolved`, `offer_received`, …)
    seat: int | None
    texts: dict[str, str]
    data: dict[str, object] = field(default_factory=dict)


# right-to-left letters (the client's logic/format.ts RTL): a name holding them is isolated
_RTL = re.compile(
    "[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefc\U00010800-\U00010fff\U0001e800-\U0001efff]"
)


# a seat named in a report line, in each language's form
_SEAT = {"tr": re.compile(r"\b(\d+)\. bey"), "en": re.compile(r"\bBey (\d+)\b")}


@dataclass(frozen=True, slots=True)
class Names:
    """How a notice names a bey (R-15.5, as every screen does): its chosen name, a computer
    bey's given one ("Konya Beyi"), else its seat form in each language ("3. bey", "Bey 3").
    A name holding right-to-left letters is isolated (FSI … PDI), so it never takes the words
    around it into its run. From the season's state; none known: every bey by its seat."""

    state: SeasonState | None = None

    def line(self, text: str, lang: str) -> str:
        """A report line (which names seats, "3. bey" / "Bey 3") as a sentence of a notice:
        the names of the seats it names after it, each once, as the screens show them
        ("… (3. bey: Ayşe)"), and a full stop."""
        seats = dict.fromkeys(int(m) for m in _SEAT[lang].findall(text))
        named = []
        for seat in seats:
            tr, en = self.of(seat)
            name = tr if lang == "tr" else en
            form = f"{seat}. bey" if lang == "tr" else f"Bey {seat}"
            if name != form:
                named.append(f"{form}: {name}")
        text = text.rstrip()
        text += f" ({' · '.join(named)})" if named else ""
        return text if text.endswith((".", "!", "?")) else f"{text}."

    def of(self, seat: int) -> tuple[str, str]:
        st = self.state
        bey = next((b for b in st.beys if b.seat == seat), None) if st else None
        if st is None or bey is None or (seat not in st.names and not bey.computer):
            return f"{seat}. bey", f"Bey {seat}"
        name = display_name(st.names, seat, bey.memleket, bey.computer)
        name = f"\u2068{name}\u2069" if _RTL.search(name) else name
        return name, name


def notices(
    season_id: str, version: int, event: ev.Event, state: SeasonState | None = None
) -> Iterator[Notice]:
    """The notices stored event `version` of a season gives; `state`: the season's after it
    (the beys' names; without it every bey is named by its seat)."""
    key = f"{season_id}/{version}"
    names = Names(state)
    match event:
        case ev.RegistrationClosed():
            yield Notice(
                f"{key}/start",
                "registration_closed",
                None,
                {
                    "tr": "Kayıt kapandı, sezon başladı.",
                    "en": "Registration closed; the season has started.",
                },
            )
        case ev.SeasonAdminActed(act=act) if notice := ADMIN_ACTS[act.act].notice:
            name, tr, en = notice
            yield Notice(f"{key}/admin", name, None, {"tr": tr, "en": en})
        case ev.TreatyOffered():
            yield _offered(key, event, names)
        case ev.OfferAnswered(frm=frm, to=to, answer=answer):
            done = "accepted" if answer == "accept" else "rejected"
            tr = "kabul etti" if answer == "accept" else "reddetti"
            by_tr, by_en = names.of(to)
            yield Notice(
                f"{key}/answer",
                f"offer_{done}",
                frm,
                {"tr": f"{by_tr} önerinizi {tr}.", "en": f"{by_en} {done} your offer."},
                {"by": to},
            )
        case ev.OfferWithdrawn(frm=frm, to=to):
            by_tr, by_en = names.of(frm)
            yield Notice(
                f"{key}/withdrawn",
                "offer_withdrawn",
                to,
                {"tr": f"{by_tr} önerisini geri çekti.", "en": f"{by_en} withdrew its offer."},
                {"from": frm},
            )
        case ev.BattlesResolved(divan=divan, battles=battles):
            yield from _attacked(key, divan, battles)
        case ev.DivanResolved():
            yield from _resolved(key, event, names)
        case ev.KurultayHeld():
            yield Notice(
                f"{key}/kurultay",
                "kurultay_closed",
                None,
                {
                    "tr": "Kurultay kapandı, sezon bitti.",
                    "en": "The Kurultay has closed; the season is over.",
                },
            )
        case _:
            return


def _offered(key: str, e: ev.TreatyOffered, names: Names) -> Notice:
    """An offer, told to the bey it was made to: the treaty in each language's words (as the
    reports name it), never the API's code inside a sentence; the offerer by its name."""
    tr_kind, en_kind = TREATY[e.kind]
    article = "an" if en_kind[0] in "aeiou" else "a"
    by_tr, by_en = names.of(e.frm)
    return Notice(
        f"{key}/offer",
        "offer_received",
        e.to,
        {
            "tr": f"{by_tr} size bir {tr_kind} önerdi.",
            "en": f"{by_en} offers you {article} {en_kind}.",
        },
        {"from": e.frm, "kind": e.kind},
    )


def _attacked(key: str, divan: int, battles: tuple[ev.BattleRecord, ...]) -> Iterator[Notice]:
    hit: dict[int, list[int]] = {}
    for b in battles:
        if b.defender is not None and b.groups:
            hit.setdefault(b.defender, []).append(b.target)
    names = game_map().names
    for seat, plates in sorted(hit.items()):
        # the provinces by their names, as the reports and the map name them (not "6, 71")
        ils = ", ".join(names[p] for p in sorted(plates))
        yield Notice(
            f"{key}/attacked/{seat}",
            "attacked",
            seat,
            {
                "tr": f"{divan}. Divan'da saldırıya uğradınız: {ils}.",
                "en": f"You were attacked at Divan {divan}: {ils}.",
            },
            {"divan": divan, "provinces": sorted(plates)},
        )


def _resolved(key: str, event: ev.DivanResolved, names: Names) -> Iterator[Notice]:
    n = event.divan
    yield Notice(
        f"{key}/resolved",
        "divan_resolved",
        None,
        {"tr": f"{n}. Divan toplandı.", "en": f"Divan {n} is resolved."},
        {"divan": n},
    )
    for seat, lines in sorted(event.private.items()):  # each bey its own lines, nobody else's
        # the own seal (ADR-57: salt and digest in hex) is for verifying, in the report; not
        # a sentence for a notification
        said = [line for line in lines if line.kind != "orders_sealed"]
        tr = [names.line(x.tr, "tr") for x in said]
        en = [names.line(x.en, "en") for x in said]
        yield Notice(
            f"{key}/resolved/{seat}",
            "divan_resolved",
            seat,
            {
                "tr": " ".join([f"{n}. Divan toplandı.", *tr]),
                "en": " ".join([f"Divan {n} is resolved.", *en]),
            },
            {"divan": n},
        )


def scaled_lead(lead_s: int, interval_s: int | None) -> float:
    """A subscription's lead time on this calendar: as asked on a real one, scaled by the
    compressed interval's share of a real one's 3.5 days otherwise (at least a second)."""
    if interval_s is None:
        return float(lead_s)
    return max(1.0, lead_s * interval_s / REAL_INTERVAL_S)


def orders_complete(state: SeasonState, seat: int) -> bool:
    """Every province the bey holds has an order for the next Divan."""
    held = {i + 1 for i, p in enumerate(state.provinces) if p.owner == seat}
    given = {o.province for o in state.orders.get(state.next_divan, {}).get(seat, ())}
    return held <= given


KURULTAY = 17  # the Kurultay's close, warned of as the Divan after the 16th


def _next_deadline(state: SeasonState) -> tuple[int, datetime] | None:
    """The next timed close a bey acts before: Divan n (orders) or the Kurultay (its vote)."""
    cal = state.calendar
    if state.mode != "live" or cal is None or state.paused_at:
        return None
    if state.phase == "kurultay":
        return KURULTAY, cal.kurultay_closes_at
    n = state.next_divan
    if state.phase != "running" or n > len(cal.divans) or state.locked_divan == n:
        return None
    return n, cal.at(n)


def warning_due(
    state: SeasonState, seat: int, lead_s: int, always: bool, now: datetime
) -> int | None:
    """The Divan (KURULTAY: the Kurultay's close) to warn `seat` of now, or None: a live season
    running (not paused, not over), the close within the scaled lead and not yet passed, the
    bey's orders (its vote) not all given unless it asked to be warned always."""
    due = _next_deadline(state)
    cal = state.calendar
    if due is None or cal is None:
        return None
    n, at = due
    if not at - timedelta(seconds=scaled_lead(lead_s, cal.interval_seconds)) <= now < at:
        return None
    done = seat in state.votes if n == KURULTAY else orders_complete(state, seat)
    return None if done and not always else n


def warning(season_id: str, seat: int, divan: int, at: datetime) -> Notice:
    if divan == KURULTAY:
        return Notice(
            f"{season_id}/warn/kurultay/{seat}",
            "kurultay_soon",
            seat,
            {
                "tr": "Kurultay kapanıyor: oyunu verin.",
                "en": "The Kurultay is closing: cast your vote.",
            },
            {"at": at.isoformat()},
        )
    return Notice(
        f"{season_id}/warn/{divan}/{seat}",
        "divan_soon",
        seat,
        {
            "tr": f"{divan}. Divan yaklaşıyor: emirlerinizi verin.",
            "en": f"Divan {divan} is near: give your orders.",
        },
        {"divan": divan, "at": at.isoformat()},
    )
