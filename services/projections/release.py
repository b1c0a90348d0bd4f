"""Release the Redis read models of seasons nobody reads (issue 27, ADR-158).

A season whose read models saw no event and no read for `after` seconds (a finished season
nobody looks at any more, a trial season abandoned mid-way) has its generation keys deleted;
the event store still holds every event, and the read path rebuilds the season when it is
read again (503 `projection_rebuilding` once, then served), as after a Redis wipe.

What is kept, on the cross-season slot `{x}`:
- `released`: season -> the stream version it was released at. The sweep and the metrics'
  backlog skip a released season unless its stream moved past that version (a new event:
  projected as usual, i.e. rebuilt); a rebuild removes the season from it (un-release).
- `released:rows`: season -> its row of `GET /seasons/all` (public fields only: id, mode,
  phase, Divan, Han, version), so the list shows a released season as it showed it before.
- `releasing`: season -> released generation while its keys are being deleted: a release
  interrupted half-way is finished by the next pass.

A release step is crash-safe: the record first (`released`, `releasing`), then one atomic step
that deletes the active pointer and the checkpoint if the season still stands where it was
judged quiet (so a read that comes after it finds the season missing and asks for a rebuild),
then the generation keys, then the `releasing` mark. Each step may be repeated.

Reads are noted in the read's own transaction (reads.read, at most once a minute per season
and API process: no round trip more), events by the projector's atomic step: `Keys.seen`.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import msgspec
import redis.asyncio as aioredis
import structlog

from services.projections.keys import Keys, cross, lobby, seasons_index

log = structlog.get_logger(__name__)

# The default quiet period (SEKSENBIR_RELEASE_AFTER, seconds; 0: never release): a week holds a
# live season over a long weekend without a Divan and a finished one for the days its players
# look back at it; a season quiet for longer costs its first reader one 503 and a rebuild.
RELEASE_AFTER_S = 7 * 86_400
PASS_EVERY_S = 600.0  # the sweeper runs a release pass at most this often
LOCK_MS = 300_000  # one pass at a time over the projections processes; a dead one's lapses
# Seasons a pass releases at most (five round trips each: ~8 ms at load 8.5, so ~15 s a pass,
# well within LOCK_MS): a backlog (the first week after deploying this) goes over a few passes.
PER_PASS = 2_000
ROW_FIELDS = ("season_id", "mode", "phase", "divan", "han", "version")

# KEYS[1] active pointer, KEYS[2] the generation's checkpoint, KEYS[3] building flag, KEYS[4]
# seen; ARGV[1] the generation, ARGV[2] the checkpoint and ARGV[3] the seen judged quiet. The
# season leaves the read path only if it still stands there (no event, no read noted since)
# and no rebuild runs: a read after this step finds no active generation (and the `released`
# record: 503 and a rebuild).
DROP = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
if redis.call('GET', KEYS[2]) ~= ARGV[2] then return 0 end
if redis.call('GET', KEYS[4]) ~= ARGV[3] then return 0 end
if redis.call('EXISTS', KEYS[3]) == 1 then return 0 end
redis.call('DEL', KEYS[1], KEYS[2], KEYS[4])
return 1
"""


def released_key(prefix: str) -> str:
    """The released seasons: season -> the stream version at release."""
    return cross(prefix, "released")


def released_rows(prefix: str) -> str:
    """The released seasons' rows of `GET /seasons/all` (public fields only)."""
    return cross(prefix, "released:rows")


def releasing_key(prefix: str) -> str:
    """Seasons whose generation keys are being deleted: season -> the released generation."""
    return cross(prefix, "releasing")


async def released_versions(
    redis: aioredis.Redis, prefix: str, seasons: list[str] | None = None
) -> dict[str, int]:
    """Every released season (or those of `seasons` that are) with the stream version it was
    released at: one round trip (none for no season named)."""
    if seasons is None:
        raw = await redis.hgetall(released_key(prefix))
        return {_text(k): int(v) for k, v in raw.items()}
    if not seasons:
        return {}
    found = await redis.hmget(released_key(prefix), seasons)
    return {s: int(v) for s, v in zip(seasons, found, strict=True) if v is not None}


@dataclass(frozen=True)
class Held:
    """A season as the pass sees it: its active generation, checkpoint, last event or read
    (epoch seconds; None: never noted) and phase."""

    season_id: str
    gen: int
    checkpoint: int
    seen: float | None
    phase: str | None
    seen_raw: bytes = b""


def to_release(held: list[Held], now: float, after: float, open_lobby: set[str]) -> list[Held]:
    """The seasons to release: quiet for `after` seconds (no event, no read), not listed in
    the lobby with registration still open (the lobby reads them by their metas). A season
    never noted is not released (the pass notes it now: its clock starts)."""
    if after <= 0:
        return []
    return [
        h
        for h in held
        if h.seen is not None and now - h.seen >= after and h.season_id not in open_lobby
    ]


@dataclass
class PassCounts:
    held: int = 0
    released: int = 0
    finished: int = 0  # of those released, seasons that were over
    finished_halfway: int = 0  # interrupted releases finished
    keys: int = 0  # keys deleted
    moved: int = 0  # judged quiet, but an event, read or rebuild came first


class Releaser:
    """The release pass, run by the projections sweeper (services/projections/projection_actors)."""

    def __init__(
        self,
        redis: aioredis.Redis,
        prefix: str,
        after: float = RELEASE_AFTER_S,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.redis, self.prefix, self.after, self.clock = redis, prefix, after, clock
        self._drop = redis.register_script(DROP)

    async def run(self) -> PassCounts | None:
        """One pass: finish interrupted releases, then release every quiet season; logs its
        counts (`projections.release_pass`). None: another process's pass is running."""
        lock = cross(self.prefix, "release-lock")
        if not await self.redis.set(lock, "1", nx=True, px=LOCK_MS):
            return None
        try:
            return await self._run()
        finally:
            await self.redis.delete(lock)

    async def _run(self) -> PassCounts:
        started = time.perf_counter()
        counts = PassCounts()
        for raw_id, raw_gen in (await self.redis.hgetall(releasing_key(self.prefix))).items():
            season_id, gen = _text(raw_id), int(raw_gen)
            active = await self.redis.get(Keys.active(self.prefix, season_id))
            if active is not None and int(active) == gen:
                # stopped before its atomic step: the season is whole and stays held (judged
                # again below); its record goes
                await unrelease(self.redis, self.prefix, season_id)
            else:  # stopped after it: the generation's keys go (a newer one is a rebuild's)
                counts.keys += await self._unlink(season_id, gen)
            await self.redis.hdel(releasing_key(self.prefix), season_id)
            counts.finished_halfway += 1
        if self.after > 0:
            held = await self._held()
            counts.held = len(held)
            now = self.clock()
            listed = await self.redis.zrangebyscore(lobby(self.prefix), f"({now}", "+inf")
            quiet = to_release(held, now, self.after, {_text(s) for s in listed})
            for h in quiet[:PER_PASS]:  # the rest at the next pass, the lock still held
                deleted = await self.release(h)
                if deleted is None:
                    counts.moved += 1
                    continue
                counts.released += 1
                counts.finished += h.phase == "over"
                counts.keys += deleted
        log.info(
            "projections.release_pass",
            held=counts.held,
            released=counts.released,
            finished=counts.finished,
            finished_halfway=counts.finished_halfway,
            moved=counts.moved,
            keys=counts.keys,
            seconds=round(time.perf_counter() - started, 3),
        )
        return counts

    async def _held(self) -> list[Held]:
        """The projected seasons Redis holds (not released), with what the pass judges them by;
        a season never noted is noted now. Three pipelined round trips however many seasons."""
        index = [_text(s) for s in await self.redis.zrange(seasons_index(self.prefix), 0, -1)]
        released = await released_versions(self.redis, self.prefix)
        ids = [s for s in index if s not in released]
        pipe = self.redis.pipeline(transaction=False)
        for s in ids:
            pipe.get(Keys.active(self.prefix, s))
            pipe.get(Keys.seen(self.prefix, s))
        raw = await pipe.execute()
        found = [
            (s, int(gen), seen)
            for s, gen, seen in zip(ids, raw[::2], raw[1::2], strict=True)
            if gen is not None
        ]
        pipe = self.redis.pipeline(transaction=False)
        for s, gen, _seen in found:
            keys = Keys(self.prefix, s, gen)
            pipe.get(keys.checkpoint)
            pipe.hget(keys.meta, "phase")
        now = str(int(self.clock()))
        for s, _gen, seen in found:
            if seen is None:  # projected before reads and events were noted: its clock starts
                pipe.set(Keys.seen(self.prefix, s), now, nx=True)
        raw = (await pipe.execute())[: 2 * len(found)]  # less the SETs' answers
        out = []
        for (s, gen, seen), cp, phase in zip(found, raw[0::2], raw[1::2], strict=True):
            if cp is None:
                continue  # a generation being written or released meanwhile
            out.append(
                Held(
                    s,
                    gen,
                    int(cp),
                    None if seen is None else float(seen),
                    None if phase is None else msgspec.json.decode(phase),
                    seen or b"",
                )
            )
        return out

    async def release(self, h: Held) -> int | None:
        """Release one season held at `h` (idempotent, crash-safe; see the module's doc): the
        keys deleted, or None when it moved since it was judged (nothing released)."""
        keys = Keys(self.prefix, h.season_id, h.gen)
        meta = await self.redis.hgetall(keys.meta)
        fields = {_text(k): msgspec.json.decode(v) for k, v in meta.items()}
        row = {f: fields.get(f) for f in ROW_FIELDS}
        pipe = self.redis.pipeline(transaction=True)  # one slot ({x}): one step
        pipe.hset(released_key(self.prefix), h.season_id, str(h.checkpoint))
        pipe.hset(released_rows(self.prefix), h.season_id, msgspec.json.encode(row))
        pipe.hset(releasing_key(self.prefix), h.season_id, str(h.gen))
        await pipe.execute()
        dropped = await self._drop(
            keys=[
                Keys.active(self.prefix, h.season_id),
                keys.checkpoint,
                Keys.building(self.prefix, h.season_id),
                Keys.seen(self.prefix, h.season_id),
            ],
            args=[str(h.gen), str(h.checkpoint), h.seen_raw],
        )
        if not dropped:  # an event, a rebuild: the season stays; so does what it keeps
            await unrelease(self.redis, self.prefix, h.season_id)
            await self.redis.hdel(releasing_key(self.prefix), h.season_id)
            return None
        deleted = await self._unlink(h.season_id, h.gen)
        await self.redis.hdel(releasing_key(self.prefix), h.season_id)
        return deleted

    async def _unlink(self, season_id: str, gen: int) -> int:
        """Delete the keys of the season's generation `gen` (every name `Keys.every` lists: no
        scan of the keyspace; an older generation's keys expire by themselves: retire_stale),
        and `gen` leaves the season's held generations (ADR-148), in one round trip (a crash
        between the two leaves it held: the next retire removes it, its keys gone)."""
        names = Keys(self.prefix, season_id, gen).every()
        pipe = self.redis.pipeline(transaction=False)
        pipe.unlink(*names)
        pipe.srem(Keys.held(self.prefix, season_id), str(gen))
        deleted, _left = await pipe.execute()
        return int(deleted)


async def unrelease(redis: aioredis.Redis, prefix: str, season_id: str) -> None:
    """The season is held again (rebuilt, or its release did not happen)."""
    pipe = redis.pipeline(transaction=True)
    pipe.hdel(released_key(prefix), season_id)
    pipe.hdel(released_rows(prefix), season_id)
    await pipe.execute()


def _text(raw: object) -> str:
    """A member or field name as Redis answers it (bytes; str on a decoding client)."""
    return raw.decode() if isinstance(raw, bytes) else str(raw)
