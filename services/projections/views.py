"""Derived read models of one season state: pure functions state -> {view: {field: json}} (R-14)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import msgspec

from shared.app.answers.bey_names import names_by_seat
from shared.app.answers.calendar_answer import CalendarOut, calendar_in, calendar_out, lock_status
from shared.app.answers.fork_origin import forked_from
from shared.app.answers.private_view import own_orders, private_view, stored_fields
from shared.domain.board import Board
from shared.domain.decide import upcoming_divan
from shared.domain.scoring import region_titles, scores
from shared.domain.state import SeasonState, perde

Views = dict[str, dict[str, bytes]]
_enc = msgspec.json.Encoder(order="sorted")


def j(value: Any) -> bytes:
    """Canonical JSON of any value (int dict keys as strings), so equal views are equal bytes."""
    return _enc.encode(msgspec.to_builtins(value, str_keys=True))


# j's bytes of a value already made of builtins with text dict keys (to_builtins would copy it
# unchanged): the map's il records and the private views' fields, by the hundred a batch; and
# of a value of plain types (codec._plain: the sorted encoder writes it as its copy, ADR-176):
# a Divan's locked orders, battle records and report lines, as j(to_builtins(value)) wrote them
plain = _enc.encode


def province_view(state: SeasonState) -> dict[str, bytes]:
    """R-14 map: owner, units, sur for owned; milis for unowned; and whose memleket each il
    is (`memleket_of`: the seat, or null; R-3.1, R-3.3: public and fixed for the season)."""
    homes = {b.memleket: b.seat for b in state.beys}
    out = {}
    for plate, p in enumerate(state.provinces, start=1):
        home = homes.get(plate)
        if p.owner is None:
            out[str(plate)] = plain({"owner": None, "milis": p.units, "memleket_of": home})
        else:
            out[str(plate)] = plain(
                {"owner": p.owner, "units": p.units, "sur": p.sur, "memleket_of": home}
            )
    return out


def leaderboard_score(score: int, provinces: int, holds: bool, seat: int) -> float:
    """R-10.5 order as one sorted-set score: score, provinces, memleket, then the lower seat."""
    return score * 1_000_000 + provinces * 1_000 + (100 if holds else 0) + (99 - seat)


def bey_views(state: SeasonState) -> tuple[dict[str, bytes], dict[str, float]]:
    """Public per-bey facts and leaderboard scores; missions only once completed (R-10.1)."""
    if not state.beys or len(state.provinces) != 81:
        return {}, {}
    board = Board.of(state, state.divan)
    sc = scores(board)
    counts = board.province_counts()
    over = state.phase == "over"
    public, ranks = {}, {}
    names = names_by_seat(state)
    for b in state.beys:
        holds = board.holds_memleket(b.seat)
        public[str(b.seat)] = j(
            {
                "seat": b.seat,
                "name": names[b.seat],
                "chosen_name": b.seat in state.names,
                "memleket": b.memleket,
                "computer": b.computer,
                "score": sc[b.seat],
                "provinces": counts.get(b.seat, 0),
                "surgun": not holds,
                "hain_through": b.hain_through,
                "missions_done": sorted(b.missions_done),
                "missions": sorted(b.missions) if over else None,
                "halk_sevgisi": b.halk_sevgisi,
                "han": state.han == b.seat,
            }
        )
        ranks[str(b.seat)] = leaderboard_score(sc[b.seat], counts.get(b.seat, 0), holds, b.seat)
    return public, ranks


def title_view(state: SeasonState) -> dict[str, bytes]:
    """R-10.2: Bölge Beyi / Hakimi per region (Hain, Sürgün and Han ride on the bey views)."""
    if len(state.provinces) != 81:
        return {}
    titles = region_titles(Board.of(state, state.divan))
    return {region: j({"seat": seat, "title": kind}) for region, (seat, kind) in titles.items()}


def treaty_view(state: SeasonState) -> dict[str, bytes]:
    return {
        f"{t.a}-{t.b}": j({"kind": t.kind, "beys": [t.a, t.b], "through_divan": t.through_divan})
        for t in state.treaties
    }


def private_fields(state: SeasonState, seat: int) -> dict[str, bytes]:
    """A bey's own view (shared.app.answers.private_view, R-14), one hash field per stored field:
    its gold, missions and their progress, orders, treaties, offers (reports are kept apart)."""
    fields = stored_fields(private_view(state, seat, 0))
    return {name: plain(value) for name, value in fields.items()}


def meta_view(state: SeasonState, version: int) -> dict[str, bytes]:
    over = state.phase == "over"
    nxt = upcoming_divan(state)
    cal = state.calendar if state.mode == "live" else None
    return {
        # a Bayram ceasefire holds at the next Divan (as the command side's status)
        "ceasefire": j(nxt is not None and state.ceasefire_divan == nxt),
        # live only: what the read computes the lock countdown from (lock_fields)
        "calendar": j(calendar_out(cal) if cal is not None else None),
        "paused": j(state.paused_at is not None),
        "cancelled": j(state.cancelled),
        "season_id": j(state.season_id),
        "mode": j(state.mode),
        "phase": j(state.phase),
        "divan": j(state.divan),
        "next_divan": j(nxt),
        "perde": j(perde(max(1, nxt or state.divan))),
        "resolving": j(state.locked_divan is not None),
        "rules_version": j(state.rules_version),
        "seed_commitment": j(state.seed_commitment),
        "han": j(state.han),
        # revealed after the Kurultay, the seed as a decimal string (above 2^53)
        "seed": j(str(state.seed) if over else None),
        "seed_salt": j(state.seed_salt if over else None),
        "version": j(version),
        "beys": j(len(state.beys)),
        # issue 23: the lobby's facts (live): listed, the description, the humans seated
        "listed": j(state.listed),
        "description": j(state.description),
        "humans": j(sum(1 for b in state.beys if not b.computer)),
        "forked_from": j(forked_from(state)),  # a fork's origin (D-32), null otherwise
    }


def lock_fields(meta: dict[str, Any], now: datetime) -> dict[str, Any]:
    """`next_divan_at`, `locked` and `seconds_to_lock` of a projected meta at `now` (the read's
    instant), computed as the command side's status does (shared.app.answers.calendar_answer). Trial
    (R-1.2): locked while a requested Divan is resolved, no instants."""
    shown = meta.get("calendar")
    if shown is None:
        return {
            "next_divan_at": None,
            "locked": bool(meta.get("resolving")),
            "seconds_to_lock": None,
            "seconds_to_kurultay_close": None,
        }
    state = SeasonState(
        mode="live",
        phase=meta["phase"],
        divan=int(meta["divan"]),
        calendar=calendar_in(msgspec.convert(shown, CalendarOut)),
        paused_at=now if meta.get("paused") else None,  # only whether it is paused counts
        cancelled=bool(meta.get("cancelled")),
    )
    return msgspec.to_builtins(lock_status(state, now))  # type: ignore[no-any-return]


# ADR-141: every field of a season's state but the Divan a trial request locks (evolve:
# DivanRequested sets `locked_divan` alone, R-1.2). Of the views, only `meta` and each bey's
# `next_divan` and `orders` (the upcoming Divan, decide.upcoming_divan) read it.
_BUT_THE_LOCK = tuple(f for f in SeasonState.__struct_fields__ if f != "locked_divan")


def only_the_lock_moved(before: SeasonState, after: SeasonState) -> bool:
    """Whether `after` is `before` with at most `locked_divan` set anew: every other field the
    very same object (a fold's `replace` keeps what it does not set; states are immutable)."""
    return all(getattr(before, f) is getattr(after, f) for f in _BUT_THE_LOCK)


def all_views(
    state: SeasonState,
    version: int,
    kept: tuple[Views, dict[str, float]] | None = None,
) -> tuple[Views, dict[str, float]]:
    """Every hash view of the season, and the leaderboard's scores.

    `kept`: the views and scores of a state that `state` differs from in `locked_divan` alone
    (only_the_lock_moved: a batch of a trial Divan's request, ADR-141)."""
    if kept is not None:
        return _with_the_lock_moved(state, version, *kept)
    beys, ranks = bey_views(state)
    views: Views = {
        "meta": meta_view(state, version),
        "map": province_view(state) if len(state.provinces) == 81 else {},
        "beys": beys,
        "titles": title_view(state),
        "treaties": treaty_view(state),
    }
    for b in state.beys:
        views[f"private:{b.seat}"] = private_fields(state, b.seat)
    # Token hashes (never tokens) so the read side can authorise a bey without the store; and a
    # live season's season-admin token hash, so that token on a bey endpoint is 403 (ADR-61)
    views["auth"] = {str(seat): j(h) for seat, h in sorted(state.tokens.items())}
    if state.admin_token:
        views["auth"]["admin"] = j(state.admin_token)
    return views, ranks


def _with_the_lock_moved(
    state: SeasonState, version: int, before: Views, ranks: dict[str, float]
) -> tuple[Views, dict[str, float]]:
    """`all_views` of a state that differs from `before`'s in `locked_divan` alone: `meta` and
    each bey's `next_divan` and `orders` (private_view's fields of the upcoming Divan) made
    anew; every other view kept, the same objects (which `_diff` skips)."""
    nxt = upcoming_divan(state)
    views: Views = {**before, "meta": meta_view(state, version)}
    for b in state.beys:
        name = f"private:{b.seat}"
        orders = j(own_orders(state, b.seat, nxt))
        views[name] = {**before[name], "next_divan": j(nxt), "orders": orders}
    return views, ranks
