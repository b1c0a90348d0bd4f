"""Seasons created, joined and administered: a trial season (R-1.2), a live one and its
calendar (R-1.3 … R-1.5), a join (first come, first served), a season-admin act (D-29 … D-31)."""

from __future__ import annotations

import secrets
from datetime import datetime

import msgspec
import structlog

from services.command import created_again as again
from services.command.schemas import (
    AdminAction,
    AdminDoneOut,
    CreatedOut,
    CreatorOut,
    JoinedOut,
    LiveCreatedOut,
)
from services.command.season_reads import act_out
from services.command.service import (
    Key,
    Services,
    decided,
    load,
    new_id,
    record_close,
    stamp,
    write,
)
from shared.app.access import tokens
from shared.app.answers.calendar_answer import calendar_out
from shared.app.http.problems import Problem
from shared.app.repository.seasons import DecideAgain
from shared.domain import commands as c
from shared.domain import events as ev
from shared.domain import live
from shared.domain.decide import decide
from shared.domain.evolve import evolve, fold
from shared.domain.map import game_map
from shared.domain.state import (
    API_REPORT_VERSION,
    PressMode,
    SeasonState,
)
from shared.eventstore import (
    EventMetadata,
)

log = structlog.get_logger(__name__)


class Listing(msgspec.Struct, frozen=True):
    """A live season's creator's choices beyond the calendar (issue 23): its own display name
    (R-15.5), whether the season is in the lobby, and its description there; its press mode
    (issue 24, R-15)."""

    name: str | None = None
    listed: bool = True
    description: str | None = None
    press: PressMode = "full"


async def create_season(
    svc: Services,
    memleket: int,
    seed: int | None,
    name: str | None = None,
    *,
    key: Key | None = None,
    secret: str | None = None,
) -> CreatedOut:
    """R-1.2, R-1.4, R-1.5: one human bey, 18 computer beys; the token is shown once; the
    human's display name when one is given (R-15.5). ADR-178: under an Idempotency-Key, the
    same request again answers the season the first created (its token from `secret`)."""
    if memleket not in game_map():
        raise Problem(422, "unknown_province", params={"province": memleket})
    if seed is not None and not 0 <= seed < 2**63:
        raise Problem(422, "invalid_body.seed", field="$.seed")  # as the schema's refusals do
    before = await again.earlier(svc, again.SEASONS, key)
    if before is not None:
        return await again.trial_again(svc, before, secret)
    season_id = tokens.new_season_id()  # the shape a bey token's season part must have
    now = svc.clock()
    create = c.CreateSeason(
        season_id=season_id,
        seed=seed if seed is not None else secrets.randbits(63),
        mode="trial",
        seed_salt=secrets.token_hex(16),
        report_version=API_REPORT_VERSION,  # sealed (ADR-57), one language (ADR-62), ADR-157
        counts_on_boards=seed is None,
        at=now,
    )
    state, events = SeasonState(), list[ev.Event]()

    def apply(cmd: c.Command) -> None:
        nonlocal state
        result = decide(state, cmd)
        if isinstance(result, c.Rejection):  # a name refused
            raise Problem.of(result)
        state = fold(result, state)
        events.extend(result)

    apply(create)
    apply(c.JoinSeason(memleket=memleket, at=now, name=name))
    seat = next(b.seat for b in state.beys if not b.computer)
    token = tokens.new_token(season_id, seat, secret)  # the human's, before the computers join
    apply(c.RotateToken(seat=seat, token_hash=tokens.token_hash(token), by="bey"))
    apply(c.CloseRegistration(at=now))
    meta = EventMetadata(
        actor="seat", seat=str(seat), command_id=f"create/{season_id}", at=stamp(now)
    )
    made = again.Created(season_id, seat)
    first = await again.append_created(svc, season_id, events, meta, key=key, created=made)
    if first is not None:  # a copy of this request under its key created it first
        return await again.trial_again(svc, first, secret)
    return CreatedOut(season_id, seat, token, state.seed_commitment)


# --- live seasons: creating, joining, season admin (issue 12) --------------------------------


async def create_live_season(
    svc: Services,
    memleket: int | None,
    registration_closes_at: datetime | None,
    interval_seconds: int | None,
    listing: Listing | None = None,
    *,
    player_id: str | None = None,
    key: Key | None = None,
    client: again.LiveSecrets | None = None,
) -> LiveCreatedOut:
    """R-1.3, R-1.4, R-1.5: a live season, its provisional calendar and its season-admin token
    (shown once, stored hashed); the creator joins only when it names a memleket. The seed is
    drawn from `secrets`, only its salted commitment public. (A compressed calendar: ops only.)
    ADR-178: the tokens' secrets may be the client's own (`client`); under an
    Idempotency-Key, the same request again answers the season the first created."""
    listing = listing or Listing()
    mine = client or again.LiveSecrets()
    before = await again.earlier(svc, again.SEASONS, key)
    if before is not None:
        return await again.live_again(svc, before, mine, memleket)
    season_id = tokens.new_season_id()
    now = svc.clock()
    events: list[ev.Event] = []
    state = decided(
        SeasonState(),
        events,
        _live_create(season_id, registration_closes_at, interval_seconds, now, listing.press),
    )
    admin_token = tokens.new_admin_token(season_id, mine.admin)
    state = decided(state, events, c.SetAdminToken(token_hash=tokens.token_hash(admin_token)))
    listed = c.ListSeason(listed=listing.listed, description=listing.description)
    state = decided(state, events, listed)
    creator = None
    if memleket is not None:
        state, creator = _creator(
            state, events, memleket, now, name=listing.name, player_id=player_id, secret=mine.token
        )
    meta = EventMetadata(actor="system", command_id=f"create/{season_id}", at=stamp(now))
    made = again.Created(season_id, creator.seat if creator is not None else None)
    first = await again.append_created(svc, season_id, events, meta, key=key, created=made)
    if first is not None:  # a copy of this request under its key created it first
        return await again.live_again(svc, first, mine, memleket)
    assert state.calendar is not None
    log.info(
        "season.created", season_id=season_id, mode="live", compressed=state.calendar.compressed
    )
    return LiveCreatedOut(
        season_id=season_id,
        admin_token=admin_token,
        calendar=calendar_out(state.calendar),
        seed_commitment=state.seed_commitment,
        creator=creator,
    )


def _live_create(
    season_id: str,
    registration_closes_at: datetime | None,
    interval_seconds: int | None,
    now: datetime,
    press: PressMode,
) -> c.CreateSeason:
    """A live season's creation: its seed and salt drawn from `secrets`."""
    return c.CreateSeason(
        season_id=season_id,
        seed=secrets.randbits(63),
        mode="live",
        seed_salt=secrets.token_hex(16),
        report_version=API_REPORT_VERSION,  # sealed (ADR-57), one language (ADR-62), ADR-157
        counts_on_boards=True,  # the domain drops it for a compressed calendar
        registration_closes_at=registration_closes_at,
        divan_interval_seconds=interval_seconds,
        at=now,
        press=press,
    )


def _creator(
    state: SeasonState,
    events: list[ev.Event],
    memleket: int,
    now: datetime,
    *,
    name: str | None,
    player_id: str | None,
    secret: str | None,
) -> tuple[SeasonState, CreatorOut]:
    """The creator of a live season joins: its seat, its token (shown once), its name, and the
    player its seat is bound to (issue 23, ADR-87)."""
    state = decided(state, events, c.JoinSeason(memleket=memleket, at=now, name=name))
    seat = max(b.seat for b in state.beys)
    token = tokens.new_token(state.season_id, seat, secret)
    state = decided(state, events, c.RotateToken(seat=seat, token_hash=tokens.token_hash(token)))
    if player_id is not None:
        state = decided(state, events, c.BindPlayer(seat=seat, player_id=player_id))
    return state, CreatorOut(seat, token, memleket)


async def join_season(
    svc: Services,
    season_id: str,
    memleket: int,
    name: str | None = None,
    player_id: str | None = None,
    *,
    secret: str | None = None,
) -> JoinedOut:
    """R-1.4: first come, first served, decided on a fresh read at the server's instant; the
    append's expected version decides a race (the loser decides again on the winner's state,
    and is refused `memleket_taken` or `season_full`). The 19th join closes registration.
    ADR-178: with the client's own `secret`, a join already in the log is answered again."""

    def join(state: SeasonState, at: datetime) -> tuple[list[ev.Event], str, int]:
        events: list[ev.Event] = []
        decided(state, events, c.JoinSeason(memleket=memleket, at=at, name=name))
        joined = events[0]
        assert isinstance(joined, ev.BeyJoined)
        token = tokens.new_token(season_id, joined.seat, secret)
        rotated = decide(
            evolve(state, joined),
            c.RotateToken(seat=joined.seat, token_hash=tokens.token_hash(token)),
        )
        assert isinstance(rotated, list), rotated
        if player_id is not None:  # issue 23: at most one seat per season (ADR-87)
            bound = decide(
                fold([joined, *rotated], state), c.BindPlayer(seat=joined.seat, player_id=player_id)
            )
            if not isinstance(bound, list):
                raise Problem.of(bound)
            rotated = [*rotated, *bound]
        return [joined, *rotated, *events[1:]], token, joined.seat

    async def attempt(_n: int) -> JoinedOut:
        loaded, at = await load(svc, season_id), svc.clock()
        again = joined_before(loaded.state, memleket, secret)
        if again is not None:  # before any refusal: the first join may have closed the season
            log.info("season.join_answered_again", season_id=season_id, seat=again.seat)
            return again
        events, token, seat = join(loaded.state, at)
        command_id = f"join/{new_id()}"
        meta = EventMetadata(actor="seat", seat=str(seat), command_id=command_id, at=stamp(at))
        await svc.seasons.append(season_id, loaded.version, command_id, events, meta)
        after = fold(events, loaded.state)
        assert after.calendar is not None
        log.info("season.joined", season_id=season_id, seat=seat, events=len(events))
        return JoinedOut(season_id, seat, token, memleket, calendar_out(after.calendar))

    return await write(svc, season_id, attempt)


def joined_before(state: SeasonState, memleket: int, secret: str | None) -> JoinedOut | None:
    """ADR-178: the answer a join with the client's own `secret` had, if that join is in the
    log: the human seat at `memleket` holds exactly the token the secret makes for it (a hash
    comparison, in constant time). Its current seat, token and calendar; None otherwise (no
    secret, or another's seat: the join is decided as a new one)."""
    if secret is None or state.calendar is None:
        return None
    for bey in state.beys:
        if bey.memleket == memleket and not bey.computer:
            token = tokens.new_token(state.season_id, bey.seat, secret)
            if tokens.holds(state.tokens.get(bey.seat), token):
                return JoinedOut(
                    state.season_id, bey.seat, token, memleket, calendar_out(state.calendar)
                )
    return None


def _admin_by(state: SeasonState, svc: Services, token: str | None) -> str:
    """Who acts on a live season's admin endpoint: 'ops' or 'admin', or a 401/403 problem.

    401 without a token or for one that is nobody's; 403 for an auditor's, or a bey's of this
    season (a known caller in the wrong place)."""
    if token is None:
        raise Problem.refused(tokens.missing_token("missing_token.admin"))
    role = tokens.staff_role(token, svc.ops, svc.auditors)
    if role == "ops":
        return "ops"
    if state.admin_token and tokens.same_hash(state.admin_token, tokens.token_hash(token)):
        return "admin"
    bey = tokens.parse(token)
    is_bey = (
        bey is not None
        and bey.season_id == state.season_id
        and tokens.same_hash(state.tokens.get(bey.seat, ""), tokens.token_hash(token))
    )
    if role == "auditor" or is_bey:
        raise Problem(403, "forbidden.admin")
    raise Problem.refused(tokens.bad_token())


async def season_admin(
    svc: Services,
    season_id: str,
    *,
    token: str | None,
    act: AdminAction,
    reason: str,
    registration_closes_at: datetime | None,
) -> AdminDoneOut:
    """D-29 … D-31: postpone, cancel, pause or resume a live season, by its season-admin token
    or the ops token; the act is an event with its reason and instant, shown in the status."""
    await load(svc, season_id)  # an unknown season is 404 before any token

    async def attempt(_n: int) -> AdminDoneOut:
        loaded, at = await load(svc, season_id), svc.clock()
        by = _admin_by(loaded.state, svc, token)
        overdue = live.overdue_close(loaded.state, at)
        if overdue is not None:  # closed at its instant, recorded or not yet
            await record_close(svc, season_id, loaded, overdue)
            raise DecideAgain  # decided again, on the closed season read afresh
        cmd = c.SeasonAdmin(
            act=act,
            reason=reason,
            by="ops" if by == "ops" else "admin",
            registration_closes_at=registration_closes_at,
            at=at,
        )
        events: list[ev.Event] = []
        after = decided(loaded.state, events, cmd)
        command_id = f"admin/{new_id()}"
        meta = EventMetadata(
            actor="ops" if by == "ops" else "system", command_id=command_id, at=stamp(at)
        )
        await svc.seasons.append(season_id, loaded.version, command_id, events, meta)
        assert after.calendar is not None
        log.info("season.admin", season_id=season_id, act=act, by=by)
        return AdminDoneOut(
            act=act_out(after.admin_acts[-1]),
            calendar=calendar_out(after.calendar),
            version=loaded.version + len(events),
        )

    return await write(svc, season_id, attempt)


# --- a bey's commands -----------------------------------------------------------------------
