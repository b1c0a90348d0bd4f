"""The only writer of read models: ops and checkpoint in one atomic Lua step (exactly once)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgspec
import redis.asyncio as aioredis

from services.projections import streamlog
from services.projections.reducers import Op

# KEYS[1]: the checkpoint; KEYS[2..]: keys the ops use. ARGV[1]: expected checkpoint,
# ARGV[2]: new checkpoint, ARGV[3]: the ops, one MessagePack array of, per op: name, argument
# count, key index (0: none), arguments (each the bytes redis-py would have sent). One
# blob rather than an argument per value (ADR-112): redis-py packs each argument in Python
# (a Divan's batch has over a thousand), msgspec packs the blob in C, Redis unpacks it in C.
APPLY = """
local cur = redis.call('GET', KEYS[1]) or '0'
if cur ~= ARGV[1] then return {0, cur} end
-- A retired generation (its keys expiring after a switch) takes no more writes.
if redis.call('PTTL', KEYS[1]) >= 0 then return {0, 'retired'} end
-- A rebuild's batch (ARGV[4]: the index in KEYS of the season's held generations, ARGV[5]:
-- its generation) writes only while its generation is recorded there: once a retire or a
-- release removed it, it takes no more keys (none that would never expire, ADR-148).
if ARGV[4] and redis.call('SISMEMBER', KEYS[tonumber(ARGV[4])], ARGV[5]) == 0 then
  return {0, 'retired'}
end
local a = cmsgpack.unpack(ARGV[3])
local i = 1
while i <= #a do
  local name = a[i]
  local n = a[i + 1]
  local k = a[i + 2]
  local args = {}
  for x = 1, n do args[x] = a[i + 2 + x] end
  if k > 0 then
    redis.call(name, KEYS[k], unpack(args))
  else
    redis.call(name, unpack(args))
  end
  i = i + 3 + n
end
redis.call('SET', KEYS[1], ARGV[2])
return {1, ARGV[2]}
"""

# Start a rebuild: its generation (INCR of KEYS[1]), recorded among the season's held ones
# (KEYS[2]) in the same step, so a rebuild that dies later leaves no key a retire cannot find;
# KEYS[3]: the first generation recorded (older ones predate the record: found by a scan
# once, ADR-148); then the building flag (KEYS[4], ARGV[1]: its TTL) is raised to it unless
# a newer rebuild already holds it: the flag names the newest rebuild under way, so an older
# one's switch leaves it standing. Answers the generation.
START = """
local had = redis.call('EXISTS', KEYS[1])
local gen = redis.call('INCR', KEYS[1])
redis.call('SADD', KEYS[2], gen)
if had == 1 then redis.call('SET', KEYS[3], gen, 'NX') else redis.call('SET', KEYS[3], 1) end
local cur = tonumber(redis.call('GET', KEYS[4]) or '0')
if cur < gen then redis.call('SET', KEYS[4], gen, 'PX', ARGV[1]) end
return gen
"""
# Switch a season's active generation atomically; the old generation's keys expire shortly
# after, so a reader that fetched the old pointer still reads a whole view. The building flag
# is cleared only if no newer rebuild holds it (issue 20: an older rebuild's switch cleared a
# newer one's flag, and the season looked settled while its generation was about to move).
# In the same step
# the season's public channel hears `streamlog.REBUILT` (ARGV[2] on ARGV[3]): a rebuild
# publishes none of the messages it logs, so an open stream reads the new log past what it
# sent (issue 20: a Divan projected by a rebuild after a flush reached no open stream).
SWITCH = """
local cur = tonumber(redis.call('GET', KEYS[1]) or '0')
if tonumber(redis.call('GET', KEYS[2]) or '0') <= tonumber(ARGV[1]) then
  redis.call('DEL', KEYS[2])
end
if cur > tonumber(ARGV[1]) then return 0 end
redis.call('SET', KEYS[1], ARGV[1])
redis.call('PUBLISH', ARGV[3], ARGV[2])
return 1
"""
# Give the keys of a stale generation an expiry (idempotent). KEYS[1]: the active pointer,
# KEYS[2]: the building flag, KEYS[3]: the season's held generations, KEYS[4..]: generation
# keys, ARGV[1]: the TTL, ARGV[2..]: each key's generation. Stale: older than the active one,
# or newer than both the active one and every rebuild under way (one that died half-way).
# Decided here, at one instant, so a switch between a projector's look at the pointer and its
# retire never retires the active view or a newer rebuild still under way (issue 20: its next
# batch was refused as `retired`). A stale generation leaves the held ones in the same step:
# its rebuild, if it still runs, writes nothing more (APPLY). Answers how many left.
RETIRE = """
local active = tonumber(redis.call('GET', KEYS[1]) or '0')
local building = tonumber(redis.call('GET', KEYS[2]) or '0')
local stale = {}
for i = 4, #KEYS do
  local gen = tonumber(ARGV[i - 2])
  if gen < active or (gen > active and gen > building) then
    if redis.call('PTTL', KEYS[i]) == -1 then redis.call('PEXPIRE', KEYS[i], ARGV[1]) end
    stale[ARGV[i - 2]] = true
  end
end
local left = 0
for gen in pairs(stale) do left = left + redis.call('SREM', KEYS[3], gen) end
return left
"""


def _arg(value: Any) -> str:
    """An op's argument as text of the bytes redis-py would send (its Encoder): text as it
    is, bytes (the views' UTF-8 JSON, views.j) decoded, a number as its repr; anything else
    is refused, as redis-py refuses it. Text, because Redis's MessagePack reader takes no
    `bin` values: a MessagePack string carries the same bytes."""
    if isinstance(value, str):
        return value
    if isinstance(value, bytes):
        return value.decode()
    if isinstance(value, int | float) and not isinstance(value, bool):
        return repr(value)
    raise TypeError(f"a read-model op's argument is bytes, text or a number, not {value!r}")


# Commands whose arguments after the key are a list of same-sized items, so two in a row on
# one key are one command with both lists, applied in order: HSET's field-value pairs, HDEL's
# fields, ZADD's score-member pairs without flags. The value is the size of one item: an op
# of another size (ZADD with NX) is never merged. A Divan's batch has ~230 ops and ~53 such
# runs; each redis.call inside the script costs more than the field it writes (ADR-146).
_RUNS = {"HSET": 2, "HDEL": 1, "ZADD": 2}
# A merged command's arguments stay well under Lua's stack for unpack (LUAI_MAXCSTACK 8000).
_RUN_ARGS = 512


def encode(ops: Sequence[Op], checkpoint_key: str) -> tuple[list[str], bytes]:
    """The APPLY script's keys and its ops blob (see APPLY); a run of `_RUNS` ops on one key is
    one command. A Divan's ~700 arguments are mostly text and bytes: those are taken here
    without a call of `_arg` each (ADR-160: the projector's Python side), the same blob."""
    keys = [checkpoint_key]
    index: dict[str, int] = {checkpoint_key: 1}
    flat: list[Any] = []
    append, extend = flat.append, flat.extend
    run: tuple[Any, int] | None = None  # the open run's (name, key index)
    count_at = 0  # where in `flat` the open run's argument count is
    for op in ops:
        name = op[0]
        if name == "PUBLISH":
            extend((name, len(op) - 1, 0))
            first = 1
            run = None
        else:
            key = op[1]
            k = index.get(key)
            if k is None:
                keys.append(key)
                k = index[key] = len(keys)
            n, first = len(op) - 2, 2
            if _RUNS.get(name) != n:
                run = None
                extend((name, n, k))
            elif run == (name, k) and flat[count_at] + n <= _RUN_ARGS:
                flat[count_at] += n
            else:
                run, count_at = (name, k), len(flat) + 1
                extend((name, n, k))
        for value in op[first:]:
            kind = type(value)
            if kind is str:
                append(value)
            elif kind is bytes:
                append(value.decode())
            else:
                append(_arg(value))
    return keys, _packer.encode(flat)


_packer = msgspec.msgpack.Encoder()


class Sink:
    """Applies a batch of ops if and only if the checkpoint is still `expected`."""

    def __init__(self, redis: aioredis.Redis) -> None:
        self.redis = redis
        self._apply = redis.register_script(APPLY)
        self._switch = redis.register_script(SWITCH)
        self._retire = redis.register_script(RETIRE)
        self._start = redis.register_script(START)

    async def apply(
        self,
        checkpoint_key: str,
        expected: int,
        new: int,
        ops: Sequence[Op],
        held: tuple[str, int] | None = None,
    ) -> bool:
        """Apply `ops` if the checkpoint is still `expected`; `held` (a rebuild's batch): the
        season's held generations and the rebuild's, which must still be one of them."""
        keys, blob = encode(ops, checkpoint_key)
        args: list[str | bytes] = [str(expected), str(new), blob]
        if held is not None:
            keys.append(held[0])
            args += [str(len(keys)), str(held[1])]
        ok, _current = await self._apply(keys=keys, args=args)
        return bool(ok)

    async def start(
        self, generations_key: str, held_key: str, from_key: str, building_key: str, ttl_ms: int
    ) -> int:
        """A new generation for a rebuild: recorded as held and flagged as building (START)."""
        return int(
            await self._start(
                keys=[generations_key, held_key, from_key, building_key], args=[str(ttl_ms)]
            )
        )

    async def switch(self, active_key: str, gen: int, building_key: str, channel: str) -> bool:
        """Make `gen` active unless a newer generation already is (then tell the season's open
        streams on `channel`: `streamlog.REBUILT`); clears the building flag unless a newer
        rebuild holds it."""
        return bool(
            await self._switch(
                keys=[active_key, building_key], args=[str(gen), streamlog.REBUILT, channel]
            )
        )

    async def retire(
        self,
        active_key: str,
        building_key: str,
        held_key: str,
        keys: Sequence[tuple[str, int]],
        ttl_ms: int,
    ) -> int:
        """Give each of `keys` (key, generation) that is stale when this runs an expiry; the
        stale generations leave `held_key`'s set (how many did: the answer)."""
        if not keys:
            return 0
        return int(
            await self._retire(
                keys=[active_key, building_key, held_key, *(k for k, _ in keys)],
                args=[str(ttl_ms), *(str(g) for _, g in keys)],
            )
        )

    async def plain(self, ops: Sequence[Op]) -> None:
        """Idempotent writes outside a season's slot, in one pipeline."""
        pipe = self.redis.pipeline(transaction=False)
        for name, *args in ops:
            pipe.execute_command(name, *args)
        await pipe.execute()
