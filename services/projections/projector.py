"""Catch-up projector: read the store after the checkpoint, fold, project, apply atomically."""

from __future__ import annotations

import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass

import msgspec
import redis.asyncio as aioredis
import structlog

from services.projections.claims import Claims
from services.projections.keys import (
    Keys,
    channel,
    player_records,
    player_records_order,
    projected,
    swept,
)
from services.projections.positions import Positions, positions
from services.projections.reducers import Op, Snapshot, cross_season, project
from services.projections.release import unrelease
from services.projections.sink import Sink
from shared.domain import codec
from shared.domain import events as ev
from shared.domain.evolve import fold
from shared.domain.ratings import counts_for_players, season_record
from shared.domain.state import SeasonState
from shared.eventstore import EventStore, RecordedEvent, StoredData
from shared.faults import fault

log = structlog.get_logger(__name__)
BATCH = 64
OLD_GENERATION_TTL_MS = 30_000
BUILDING_TTL_MS = 600_000  # a rebuild that died half-way stops flagging its season after this
# Seasons whose fold a projector keeps in memory, least recently projected dropped first. A
# cursor of a whole season is about 80 KiB (the fold and its views; docs/benchmarks.md, soak),
# and a worker process's three projectors (woken, messages, sweeper) share one table
# (`Cursors`), so this bounds them at about 512 x 80 KiB. A season that is over is dropped at
# once: nothing more is played in it. A dropped season's next batch folds it again from the
# store (a cold start).
CURSORS = 512
Stored = StoredData | RecordedEvent  # what read_data answers (the memory store: its records)
# a generation guessed, and the active pointer and that generation's checkpoint as read
Read = tuple[int, bytes | None, bytes | None]


@dataclass
class _Cursor:
    """The projector's in-memory fold of one season at one generation and version."""

    gen: int
    version: int
    state: SeasonState
    snapshot: Snapshot


class Cursors:
    """The seasons' folds of the projectors of one process, shared (an LRU of `bound`).

    Issue 14: a worker runs three projectors (messages, LISTEN wake-ups, sweeper), each on a
    thread and loop of its own, and whichever hears of a batch first projects it. With a table
    each, the projector that projected a season's last batch (the Kurultay) dropped its fold,
    but the other two kept theirs, stale and never read again, until their LRU was full: a
    soak of finished seasons grew every table by one fold (about 80 KiB) per season. One table
    per process holds one fold per season, the newest, and a season that is over leaves it.
    Cursors are never mutated (a batch makes a new one), so only the table needs the lock.
    """

    def __init__(self, bound: int = CURSORS) -> None:
        self.process = secrets.token_hex(8)  # names this table (its process) as seasons' owner
        self._held: OrderedDict[str, _Cursor] = OrderedDict()
        self._bound = bound
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._held)

    def get(self, season_id: str) -> _Cursor | None:
        return self._held.get(season_id)

    def keep(self, season_id: str, cur: _Cursor) -> None:
        """Remember a season's fold for its next batch, within the bound (LRU); a season
        that is over is forgotten: nothing more is played in it."""
        with self._lock:
            if cur.state.phase == "over":
                self._held.pop(season_id, None)
                return
            self._held[season_id] = cur
            self._held.move_to_end(season_id)
            while len(self._held) > self._bound:
                self._held.popitem(last=False)

    def drop(self, season_id: str, cur: _Cursor | None = None) -> None:
        """Forget a season's fold (only if it is still `cur`, when given)."""
        with self._lock:
            if cur is None or self._held.get(season_id) is cur:
                self._held.pop(season_id, None)


class Projector:
    """One season at a time; any number of projectors may run, the checkpoint arbitrates."""

    def __init__(
        self,
        store: EventStore,
        redis: aioredis.Redis,
        prefix: str = "sb",
        *,
        cursors: int | Cursors = CURSORS,
    ) -> None:
        self.store = store
        self.redis = redis
        self.prefix = prefix
        self.sink = Sink(redis)
        # a table of its own (a bound), or the one its process's other projectors share
        self._cursors = cursors if isinstance(cursors, Cursors) else Cursors(cursors)
        self.claims = Claims(redis, prefix, process=self._cursors.process)
        self._positions = Positions(store, redis, prefix)  # the worker's sweep's (ADR-147)

    @property
    def cursors(self) -> int:
        """How many seasons' folds this projector's table holds now (at most its bound)."""
        return len(self._cursors)

    async def active_gen(self, season_id: str) -> int | None:
        raw = await self.redis.get(Keys.active(self.prefix, season_id))
        return int(raw) if raw is not None else None

    async def catch_up(self, season_id: str, read: Read | None = None) -> int:
        """Apply every event after the checkpoint; a missing projection is rebuilt (self-heals).

        `read` (a wake-up's claim, ADR-141): the generation guessed, and the active pointer and
        that generation's checkpoint as the claim read them; used when the guess was right."""
        raw: bytes | str | None
        if read is not None and read[1] is not None and int(read[1]) == read[0]:
            gen, raw = read[0], read[2]
        else:
            active = await self.active_gen(season_id)
            if active is None:
                return await self.rebuild(season_id)
            gen = active
            raw = await self.redis.get(Keys(self.prefix, season_id, gen).checkpoint)
        keys = Keys(self.prefix, season_id, gen)
        if raw is None:
            return await self.rebuild(season_id)
        return await self._advance(season_id, keys, int(raw), live=True)

    async def woken(self, season_id: str, *, defer: bool = True) -> int:
        """Catch up on a wake-up (NOTIFY, message) unless another projector holds the season,
        or (`defer`) another process caught it up last and still owns it: then that one
        catches up once more for this one (claims.py, ADR-112, ADR-131)."""
        token = self.claims.token()
        # the generation this process projected the season at last (else the first): the
        # claim reads the active pointer and that generation's checkpoint in its round trip
        cur = self._cursors.get(season_id)
        gen = cur.gen if cur is not None else 1
        reads = (Keys.active(self.prefix, season_id), Keys(self.prefix, season_id, gen).checkpoint)
        found = await self.claims.take_reading(season_id, token, reads, defer=defer)
        if found is None:
            return 0
        applied = 0
        try:
            applied += await self.catch_up(season_id, (gen, *found))
            while await self.claims.release(season_id, token):
                applied += await self.catch_up(season_id)
        except BaseException:
            await self.claims.drop(season_id, token)
            raise
        return applied

    async def _cursor(
        self, season_id: str, gen: int, version: int
    ) -> tuple[_Cursor, Sequence[Stored]]:
        """The fold at `version` and the events after it, with one read of the store: what is
        new after this process's fold of the season (at `version`, or behind it when another
        process projected the last batches: ADR-131), or, for a season it has not folded (or
        folded at another generation), the whole stream. The read is `read_data`'s: of each
        event what the projection uses, not its envelope (ADR-141, as the folds of ADR-142)."""
        cur = self._cursors.get(season_id)
        if cur is not None and cur.gen == gen and cur.version == version:
            return cur, await self.store.read_data(season_id, from_version=version)
        keys = Keys(self.prefix, season_id, gen)
        if cur is not None and cur.gen == gen and cur.version < version:
            # behind by what another projections process applied (both hear every NOTIFY,
            # the claim goes to either): fold that gap, not the season from event 1
            records = await self.store.read_data(season_id, from_version=cur.version)
            state = cur.state
        else:  # one read for the fold and what is new (a restarted projector)
            records = await self.store.read_data(season_id)
            state = SeasonState()
        later = [rec for rec in records if rec.version > version]
        if not later:  # already at the head (another projector was first): fold nothing
            return _Cursor(gen, version, SeasonState(), Snapshot()), later
        gap = records[: len(records) - len(later)]
        state = fold((codec.decode_stored(rec.data, rec.type) for rec in gap), state)
        snapshot = Snapshot()
        if version:
            _ops, snapshot = project(keys, Snapshot(), state, (), version, live=False)
        return _Cursor(gen, version, state, snapshot), later

    async def _advance(
        self, season_id: str, keys: Keys, checkpoint: int, live: bool, held: str | None = None
    ) -> int:
        """Project the events after `checkpoint` into `keys`' generation; `held` (a rebuild):
        the season's held generations, which its batches must still count it among."""
        cur, records = await self._cursor(season_id, keys.gen, checkpoint)
        applied = 0
        for start in range(0, len(records), BATCH):
            state = cur.state
            batch = records[start : start + BATCH]
            events = [codec.decode_stored(rec.data, rec.type) for rec in batch]
            state = fold(events, state)
            new = batch[-1].version
            hashes = [rec.hash for rec in batch]
            ops, snap = project(keys, cur.snapshot, state, events, new, live=live, hashes=hashes)
            if live:  # readable with the step: wake the reads waiting for it (?min_version=)
                ops.append(("PUBLISH", projected(self.prefix, season_id), str(new)))
            # an event: the release pass's clock starts again (ADR-158)
            ops.append(("SET", Keys.seen(self.prefix, season_id), str(int(time.time()))))
            fault("mid_apply")
            mark = None if held is None else (held, keys.gen)
            if not await self.sink.apply(keys.checkpoint, cur.version, new, ops, mark):
                log.info("projector.lost_race", season_id=season_id, at=cur.version)
                self._cursors.drop(season_id, cur)  # not a newer one another projector kept
                return applied
            cross = cross_season(self.prefix, state, events, [r.position for r in batch])
            cross += await self._players_record(season_id, state, events, batch)
            if cross:
                await self.sink.plain(cross)
            cur = _Cursor(keys.gen, new, state, snap)
            self._cursors.keep(season_id, cur)
            applied += len(batch)
        if applied:
            log.info(
                "projector.applied",
                season_id=season_id,
                events=applied,
                version=cur.version,
                gen=keys.gen,
            )
        return applied

    async def _players_record(
        self,
        season_id: str,
        state: SeasonState,
        events: list[ev.Event],
        batch: Sequence[Stored],
    ) -> list[Op]:
        """Issue 23: a finished counted season's record for its players (ratings.season_record,
        from the whole stream: a Divan's orders are spent once it resolves), by its season id
        and ordered by its Kurultay's position: idempotent, so a repeat or a rebuild rates no
        season twice (ADR-88)."""
        held = [r for e, r in zip(events, batch, strict=True) if isinstance(e, ev.KurultayHeld)]
        if not held or not state.players or not counts_for_players(state):
            return []
        stream = await self.store.read_stream(season_id)
        record = season_record(state, (codec.decode_stored(r.data, r.type) for r in stream))
        if record is None:
            return []
        return [
            ("HSET", player_records(self.prefix), season_id, msgspec.json.encode(record).decode()),
            ("ZADD", player_records_order(self.prefix), float(held[0].position), season_id),
        ]

    async def rebuild(self, season_id: str) -> int:
        """Build a new generation from event 1, then switch readers to it in one step.

        A season with no events leaves nothing in Redis. Of two rebuilds at once the newer
        generation wins; every other generation of the season is retired (it expires).
        """
        if await self.store.stream_version(season_id) == 0:
            return 0
        building = Keys.building(self.prefix, season_id)
        held = Keys.held(self.prefix, season_id)
        gen = await self.sink.start(
            Keys.generations(self.prefix, season_id),
            held,
            Keys.held_from(self.prefix, season_id),
            building,
            BUILDING_TTL_MS,
        )
        keys = Keys(self.prefix, season_id, gen)
        self._cursors.drop(season_id)
        applied = await self._advance(season_id, keys, 0, live=False, held=held)
        if await self.sink.switch(
            Keys.active(self.prefix, season_id), gen, building, channel(self.prefix, season_id)
        ):
            # readable now (a first projection, or a rebuild): wake the reads waiting for it
            await self.redis.publish(projected(self.prefix, season_id), str(applied))
            if gen > 1:  # a released season keeps its generation count: held again (ADR-158)
                await unrelease(self.redis, self.prefix, season_id)
        if gen > 1:  # a first generation has none older to retire
            await self.retire_stale(season_id)
        log.info("projector.rebuilt", season_id=season_id, gen=gen, events=applied)
        return applied

    async def retire_stale(self, season_id: str) -> int:
        """Every key of a stale generation gets an expiry: older than the active one, or newer
        than it and than every rebuild under way (judged atomically in Redis, sink.RETIRE).

        The generations that may hold keys are the season's held ones (Keys.held), and their
        key names are known (Keys.every): no scan of the keyspace (ADR-148), but for a season
        whose older generations predate that record (Keys.held_from > 1): their keys are
        found by a scan of the season's names, once. Answers the generations retired."""
        held = Keys.held(self.prefix, season_id)
        since = Keys.held_from(self.prefix, season_id)
        pipe = self.redis.pipeline(transaction=False)
        pipe.smembers(held)
        pipe.get(since)
        members, raw_from = await pipe.execute()
        keys = {
            (k, g)
            for g in sorted(int(m) for m in members)
            for k in Keys(self.prefix, season_id, g).every()
        }
        legacy = raw_from is not None and int(raw_from) > 1
        if legacy:
            found = await self._scan_unrecorded(season_id, int(raw_from))
            if found:  # recorded first: a crash before their retire leaves them findable
                await self.redis.sadd(held, *{g for _, g in found})
            keys.update(found)
        retired = await self.sink.retire(
            Keys.active(self.prefix, season_id),
            Keys.building(self.prefix, season_id),
            held,
            sorted(keys, key=lambda kg: (kg[1], kg[0])),
            OLD_GENERATION_TTL_MS,
        )
        if legacy:  # every older generation is recorded now (or retired)
            await self.redis.set(since, "1")
        return retired

    async def _scan_unrecorded(self, season_id: str, below: int) -> list[tuple[str, int]]:
        """The keys of the season's generations older than `below` (written before Keys.held
        recorded them): a scan of the keyspace, once a season (ADR-148)."""
        base = f"{self.prefix}:{{s:{season_id}}}:g"
        found = [
            k.decode() async for k in self.redis.scan_iter(match=f"{_glob(base)}*:*", count=1000)
        ]
        gens = (k[len(base) :].split(":", 1)[0] for k in found)
        return [
            (k, int(g)) for k, g in zip(found, gens, strict=True) if g.isdigit() and int(g) < below
        ]

    async def sweep(self, behind: dict[str, int | None] | None = None) -> int:
        """Close any gap a lost wake-up left: every season whose head is past its checkpoint.

        `behind` (the worker's periodic sweep): the seasons behind at the previous pass, with
        their checkpoints, updated here; a season is caught up only if it was behind at the
        same checkpoint then too. One moving, or new since, has a wake-up on its way: the
        sweep left it to the listener (at a surge it caught up hundreds of seasons the
        listener was about to, racing it; ADR-112), and a lost wake-up waits one pass more.
        A season behind that another projector holds (its claim, ADR-112: perhaps a holder
        that died) stays behind, taken by the first pass after the claim expires.
        """
        total, left = 0, {}
        found = (
            await positions(self.store, self.redis, self.prefix)
            if behind is None  # a one-off sweep (the CLI, tests): every season
            else await self._positions.read(behind)
        )
        for season_id, (version, checkpoint) in found.items():
            # no checkpoint: a new season, or a wiped Redis (no `swept` marker then)
            if checkpoint is not None and checkpoint >= version:
                continue
            if behind is not None and behind.get(season_id, -1) != checkpoint:
                left[season_id] = checkpoint
                continue
            # the worker's sweep asks for the claim, as a wake-up does: it never races one;
            # it defers to no owner (a season left behind: its owner may have died)
            if behind is None:
                total += await self.catch_up(season_id)
                continue
            applied = await self.woken(season_id, defer=False)
            total += applied
            if not applied:  # claimed by another, perhaps a holder that died: until its
                left[season_id] = checkpoint  # claim expires, not a full pass away
        if behind is not None:
            behind.clear()
            behind.update(left)
        if not left:
            # Every season is projected now: an unknown season is unknown (404), even on a
            # server that has no season yet. A wipe removes this too, until the next full pass.
            await self.redis.set(swept(self.prefix), "1")
        return total


def _glob(text: str) -> str:
    """A literal for a SCAN MATCH pattern (a season id is never a glob)."""
    return "".join("\\" + ch if ch in "*?[]\\" else ch for ch in text)
