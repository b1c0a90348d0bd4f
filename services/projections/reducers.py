"""Pure projection: (views before, state after, event) -> Redis operations (no I/O here)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import msgspec

from services.projections import streamlog
from services.projections.keys import (
    Keys,
    betrayals_of,
    board,
    channel,
    cross,
    han_memleket,
    player_seasons,
    seasons_index,
)
from services.projections.views import Views, all_views, j, only_the_lock_moved, plain
from shared.domain import events as ev
from shared.domain.ratings import counts_for_players
from shared.domain.report_lines import correction, kurultay, offer_withdrawn, season_admin
from shared.domain.state import SeasonState

KURULTAY_REPORT = "kurultay"  # the field of the reports hash that holds the Kurultay's report
HEAD_REPORT = "head:"  # … with a Divan's number after it, the chain head its report publishes
ADMIN_REPORT = "admin:"  # … and, with the event's version after it, each season-admin act's
CORRECTION_REPORT = "correction:"  # … and each correction's (ADR-53), by its version too
# A bey's private reports hash: besides a field per Divan, one per offer withdrawn from it, by
# the withdrawal's version (issue 20); the read merges each into its Divan's report
WITHDRAWN_REPORT = "withdrawn:"
Op = tuple[
    Any, ...
]  # ("HSET", key, field, value) | ("HDEL", key, field) | ("ZADD", key, score, member) | …


@dataclass
class Snapshot:
    """What the previous event left: the derived views, to diff against."""

    views: Views = field(default_factory=dict)
    ranks: dict[str, float] = field(default_factory=dict)
    state: SeasonState | None = None  # the state they were made of (None: none yet)


def _diff(keys: Keys, before: Snapshot, views: Views, ranks: dict[str, float]) -> list[Op]:
    ops: list[Op] = []
    for name, fields in views.items():
        old = before.views.get(name, {})
        if fields is old:  # kept as it was (all_views' `kept`)
            continue
        key = keys.any_view(name)
        ops.extend(("HSET", key, f, v) for f, v in sorted(fields.items()) if old.get(f) != v)
        ops.extend(("HDEL", key, f) for f in sorted(old) if f not in fields)
    for seat, score in sorted(ranks.items()):
        if before.ranks.get(seat) != score:
            ops.append(("ZADD", keys.leaderboard, score, seat))
    return ops


def project(
    keys: Keys,
    before: Snapshot,
    state: SeasonState,
    events: Sequence[ev.Event],
    version: int,
    *,
    live: bool,
    hashes: Sequence[bytes] | None = None,
) -> tuple[list[Op], Snapshot]:
    """Operations that bring the read models from `before` to `state`, after `events`.

    Derived views are diffed once for the whole batch; event-specific records (reports,
    battles, betrayals, orders) are added per event. `live` is false during a rebuild:
    nothing is announced on the streams then. `hashes` are the events' chain hashes (the
    recorded envelopes'): a Divan report publishes the one of its `divan_resolved.v1`.
    """
    ops: list[Op] = []
    first = version - len(events) + 1  # stream versions are contiguous: one per event
    offers = _offer_notices(keys, before, events, first, live, computers=computer_seats(state))
    for n, (at, event) in enumerate(enumerate(events, start=first)):
        ops.extend(_specific(keys, state, event, at, live))
        # in event order: a stream delivers ids in order, so a message published after a
        # later one's would be passed over live (it stays in the log for a resume)
        ops.extend(offers.get(at, ()))
        if hashes is not None and isinstance(event, ev.DivanResolved):
            ops.append(_chain_head(keys, event.divan, at, hashes[n]))
    kept = None
    if before.state is not None and only_the_lock_moved(before.state, state):
        kept = (before.views, before.ranks)  # a trial Divan's request alone (ADR-141)
    views, ranks = all_views(state, version, kept)
    diff = _diff(keys, before, views, ranks)
    if state.phase == "over":  # after the Kurultay the lot decides the final order
        diff = [op for op in diff if not (op[0] == "ZADD" and op[1] == keys.leaderboard)]
    return diff + ops, Snapshot(views, ranks, state)


def _specific(keys: Keys, state: SeasonState, e: ev.Event, at: int, live: bool) -> list[Op]:  # noqa: PLR0911 — one match over the event types with records of their own
    match e:
        case ev.DivanLocked():
            return [
                ("HSET", keys.orders(e.divan), str(s), plain(o))  # ADR-176: no copy
                for s, o in sorted(e.orders.items())
            ]
        case ev.OfferSettled() if e.treaty is not None:
            return [_timeline(keys, e.divan, "accepted", e.treaty)]
        case ev.TreatyExpired():
            return [_timeline(keys, e.divan, "expired", e.treaty)]
        case ev.TreatiesDissolved():
            return [_timeline(keys, e.divan, "dissolved", t) for t in e.treaties]
        case ev.BattlesResolved():
            return _battles(keys, state, e)
        case ev.DivanResolved():
            return _report(keys, e, at, live, computer_seats(state))
        case ev.KurultayHeld():
            return _kurultay(keys, state, e, at, live)
        case ev.SeasonAdminActed():
            # issue 12: each season-admin act is in the public reports, keyed by its version
            line = season_admin(e.act)
            return [("HSET", keys.reports, f"{ADMIN_REPORT}{at}", j([msgspec.to_builtins(line)]))]
        case ev.CorrectionApplied():
            # issue 13: a correction is in the public reports beside the record it compensates
            fixed = correction(e)
            return [
                ("HSET", keys.reports, f"{CORRECTION_REPORT}{at}", j([msgspec.to_builtins(fixed)]))
            ]
        case _:
            return []


def _timeline(keys: Keys, divan: int, what: str, treaty: object) -> Op:
    """One line of the treaties' timeline: a treaty accepted, expired or dissolved at a Divan."""
    line = {"divan": divan, "what": what, "treaty": msgspec.to_builtins(treaty)}
    return ("RPUSH", keys.treaty_timeline, j(line))


def _offer_notices(
    keys: Keys,
    before: Snapshot,
    events: Sequence[ev.Event],
    first: int,
    live: bool,
    *,
    computers: frozenset[int],
) -> dict[int, list[Op]]:
    """issue 20: an offer withdrawn (R-6.1) is told to the bey it was made to, in its private
    report of the Divan it would have been settled at, and on its private stream. Derived
    from the events (no event of its own): the offer's kind from the batch's TreatyOffered or
    the recipient's projected offers before the batch, the Divan from the event (live) or the
    Divan after the last one resolved (trial). An offer made is announced on the recipient's
    private stream too (`offer_received`), so a live screen shows it while it can still be
    answered; a computer bey (a seat in `computers`) is told neither. What becomes of an offer
    before its Divan is told to its offerer's private stream (`offer_answered`: accepted or
    rejected by its recipient, or withdrawn by the offerer itself, for its other devices).
    The operations by the version of the event they come from."""
    meta = before.views.get("meta", {})
    upcoming = _dec(meta.get("next_divan")) or 1
    offered: dict[tuple[int, int], str] = {}
    out: dict[int, list[Op]] = {}
    for at, e in enumerate(events, start=first):
        ops = out.setdefault(at, [])
        if isinstance(e, ev.TreatyOffered):
            offered[e.frm, e.to] = e.kind
            settled = e.divan if e.divan is not None else upcoming
            received = {"type": "offer_received", "divan": settled, "from": e.frm, "kind": e.kind}
            ops += announce(keys, at, [(e.to, received)], live, computers)
        elif isinstance(e, ev.OfferAnswered):
            settled = e.divan if e.divan is not None else upcoming
            said = "accepted" if e.answer == "accept" else "rejected"
            answered = {"type": "offer_answered", "divan": settled, "to": e.to, "answer": said}
            ops += announce(keys, at, [(e.frm, answered)], live, computers)
        elif isinstance(e, ev.DivanResolved):
            upcoming = e.divan + 1
        elif isinstance(e, ev.OfferWithdrawn):
            kind = offered.get((e.frm, e.to)) or _offered_before(before, e.frm, e.to)
            divan = e.divan if e.divan is not None else upcoming
            line = offer_withdrawn(e.frm, e.to, kind, divan)
            field = f"{WITHDRAWN_REPORT}{at}"
            ops.append(("HSET", keys.reports_private(e.to), field, j([msgspec.to_builtins(line)])))
            message = {"type": "offer_withdrawn", "divan": divan, "from": e.frm}
            own = {"type": "offer_answered", "divan": divan, "to": e.to, "answer": "withdrawn"}
            ops += announce(keys, at, [(e.to, message), (e.frm, own)], live, computers)
    return out


def _dec(raw: bytes | None) -> Any:
    return None if raw is None else msgspec.json.decode(raw)


def _offered_before(before: Snapshot, frm: int, to: int) -> str | None:
    """The kind of the offer `frm` made to `to`, as the recipient's view held it before."""
    offers = _dec(before.views.get(f"private:{to}", {}).get("offers_in")) or []
    return next((o["kind"] for o in offers if o["from"] == frm), None)


def _battles(keys: Keys, state: SeasonState, e: ev.BattlesResolved) -> list[Op]:
    """Battle records per Divan; betrayals public (who, whom, where) and for auditors in full."""
    ops: list[Op] = [("HSET", keys.battles(e.divan), str(r.target), plain(r)) for r in e.battles]
    records = {r.target: r for r in e.battles}
    for b in e.betrayals:
        public = {
            "divan": e.divan,
            "traitor": b.traitor,
            "victim": b.victim,
            "province": b.province,
            "hain_through": b.hain_through,
        }
        ops.append(("RPUSH", keys.betrayals, j(public)))
        record = records.get(b.province)
        advances = [
            list(a)
            for g in (record.groups if record else ())
            for a in g.advances
            if a[0] == b.traitor
        ]
        audit = {
            **public,
            "treaty": msgspec.to_builtins(b.treaty),
            "orders": advances,
            "battle": msgspec.to_builtins(record) if record else None,
        }
        ops.append(("RPUSH", keys.audit_betrayals, j(audit)))
        ops.append(
            (
                "RPUSH",
                keys.treaty_timeline,
                j(
                    {
                        "divan": e.divan,
                        "what": "broken",
                        "treaty": msgspec.to_builtins(b.treaty),
                        "traitor": b.traitor,
                    }
                ),
            )
        )
    return ops


def announce(
    keys: Keys,
    at: int,
    messages: Sequence[tuple[int | None, dict[str, Any]]],
    live: bool,
    computers: frozenset[int] = frozenset(),
) -> list[Op]:
    """The stream messages of the event at version `at` (public: seat None; else that bey's).

    Each is logged (a sorted set per channel, ordered by its id `at-k`, k its place among the
    event's messages), rebuilt like every read model, so a stream resumes from Last-Event-ID
    without loss or duplicates; and, live only, published to the channel's open streams. A
    message to a computer bey (`computers`: a seat without a token, so no ticket and no stream) is
    neither; the others keep their ids (k counts it still).
    """
    ops: list[Op] = []
    for k, (seat, payload) in enumerate(messages):
        if seat in computers:
            continue
        message_id = streamlog.StreamId(at, k)
        member = streamlog.message(message_id, j(payload))
        ops.append(("ZADD", keys.stream_log(seat), message_id.score, member))
        if live:
            ops.append(("PUBLISH", channel(keys.prefix, keys.season_id, seat), member))
    return ops


def _chain_head(keys: Keys, divan: int, at: int, digest: bytes) -> Op:
    """docs/export.md "Chain heads": Divan n's report publishes the season's hash-chain head
    after its resolution: the version and hash of its own divan_resolved.v1 (the last event
    of the Divan's outcome), so a later export can be checked against what players saw."""
    return ("HSET", keys.reports, f"{HEAD_REPORT}{divan}", j({"version": at, "hash": digest.hex()}))


def computer_seats(state: SeasonState) -> frozenset[int]:
    """The seats without a token: computer beys' (R-11.1, R-11.2), whose private stream no
    ticket can open (a ticket is asked for with the bey's token)."""
    return frozenset(b.seat for b in state.beys if b.seat not in state.tokens)


def _report(
    keys: Keys, e: ev.DivanResolved, at: int, live: bool, computers: frozenset[int]
) -> list[Op]:
    ops: list[Op] = [("HSET", keys.reports, str(e.divan), plain(e.public))]
    for seat, lines in sorted(e.private.items()):
        ops.append(("HSET", keys.reports_private(seat), str(e.divan), plain(lines)))
    messages: list[tuple[int | None, dict[str, Any]]] = [
        (None, {"type": "divan_report", "divan": e.divan})
    ]
    messages += [(seat, {"type": "private_report", "divan": e.divan}) for seat in sorted(e.private)]
    betrayals = [line.data for line in e.public if line.kind == "betrayal"]
    if betrayals:
        messages.append((None, {"type": "betrayals", "divan": e.divan, "betrayals": betrayals}))
    return ops + announce(keys, at, messages, live, computers)


def _kurultay(keys: Keys, state: SeasonState, e: ev.KurultayHeld, at: int, live: bool) -> list[Op]:
    """The final order is the Kurultay's (R-10.5, with its lot); cross-season boards if counted."""
    n = len(e.scores)
    ops: list[Op] = [
        ("ZADD", keys.leaderboard, float(n - i), str(seat)) for i, (seat, _s) in enumerate(e.scores)
    ]
    ops.append(("HSET", keys.kurultay, "result", j(msgspec.to_builtins(e))))
    # R-10.4: the Kurultay's report, public, served beside the Divans' (who voted for whom too)
    ops.append(("HSET", keys.reports, KURULTAY_REPORT, j(msgspec.to_builtins(kurultay(e)))))
    # the last messages of a season: a stream ends after season_over
    return ops + announce(
        keys,
        at,
        [(None, {"type": "kurultay_report"}), (None, {"type": "season_over", "han": e.han})],
        live,
    )


def cross_season(
    prefix: str, state: SeasonState, events: Sequence[ev.Event], positions: Sequence[int]
) -> list[Op]:
    """Writes outside the season's slot: the season index and the cross-season boards.

    Each is idempotent (a member set to a value fixed by the events), so the projector applies
    them after the season's atomic step and a repeat changes nothing; keeping them out of that
    step keeps it on one Redis Cluster slot.
    """
    ops: list[Op] = []
    for e, position in zip(events, positions, strict=True):
        if isinstance(e, ev.SeasonCreated):
            ops.append(("ZADD", seasons_index(prefix), float(position), e.season_id))
        elif isinstance(e, ev.SeatBound) and counts_for_players(state):
            # issue 23: a counted live season the player holds a seat in (its record)
            ops.append(
                ("ZADD", player_seasons(prefix, e.player_id), float(position), state.season_id)
            )
        elif isinstance(e, ev.BattlesResolved) and e.betrayals:
            # issue 13: betrayal history across seasons, by the memleket of either bey (NX: the
            # first Divan's position stays, so a repeat or a later betrayal changes nothing)
            plates = {
                b.memleket
                for x in e.betrayals
                for b in state.beys
                if b.seat in (x.traitor, x.victim)
            }
            ops.extend(
                ("ZADD", betrayals_of(prefix, plate), "NX", float(position), state.season_id)
                for plate in sorted(plates)
            )
        elif isinstance(e, ev.KurultayHeld) and state.counts_on_boards:
            season = state.season_id
            ops.append(("ZADD", board(prefix, "han_scores"), float(dict(e.scores)[e.han]), season))
            ops.extend(
                ("ZADD", board(prefix, "best_scores"), float(score), f"{season}:{seat}")
                for seat, score in e.scores
            )
            han = state.bey(e.han)
            plate = han.memleket if han else 0
            ops.append(("HSET", board(prefix, "han_memleket"), season, str(plate)))
            # the season under its Han's memleket: the board counts 82 sets, not every season
            ops.append(("ZADD", han_memleket(prefix, plate), 0.0, season))
    if state.mode == "live" and events:
        ops.append(lobby_op(prefix, state))
    return ops


def lobby_op(prefix: str, state: SeasonState) -> Op:
    """Issue 23: the season in the lobby (by its registration close) while it is listed, in
    registration and not cancelled; out of it otherwise. Idempotent, like the rest."""
    key = cross(prefix, "lobby")
    cal = state.calendar
    if state.listed and state.phase == "registration" and not state.cancelled and cal:
        return ("ZADD", key, cal.registration_closes_at.timestamp(), state.season_id)
    return ("ZREM", key, state.season_id)
