"""One projector at a time per season on the wake-up paths: a short claim in Redis (ADR-112).

Every projections process hears every NOTIFY, so without a claim each one folded and projected
the same season at the same instant and all but one lost the checkpoint race: at a surge of
1,000 Divans, most of the projectors' CPU. A wake-up that finds the season claimed leaves an
`again` mark and returns; the holder, before it lets go, sees the mark and catches up once
more, so no wake-up is lost (both steps are atomic in Redis). A holder that dies leaves its
claim to expire (`CLAIM_TTL_MS`) and its mark to the sweep: a one-shot sweep (a restarted
projector, RELIABILITY 19 and 22) asks for no claim, and the worker's periodic sweep, which
asks for one, takes the season once the claim has expired; a holder slower than the TTL at
worst lets a second projector in, which the checkpoint still arbitrates (RELIABILITY 20).
"""

from __future__ import annotations

import secrets

import redis.asyncio as aioredis

from services.projections.keys import Keys

CLAIM_TTL_MS = 5_000
# ADR-131: a season's wake-ups go to the process whose fold of it is newest (the one that last
# let go of it) for this long after; another process's wake-up leaves that one its mark. A
# process that died leaves its seasons to the others after this, and to the sweep before.
OWNER_TTL_MS = 5_000

# KEYS[1]: the claim, KEYS[2]: the again mark, KEYS[3]: the owner; ARGV[1]: the holder's token,
# ARGV[2]: the TTL, ARGV[3]: the caller's process (its fold table), ARGV[4]: '1' to defer to
# another process that owns the season (a wake-up), '0' not to (the sweep). With KEYS[4] (the
# active generation's pointer) and KEYS[5] (a generation's checkpoint), a claim taken answers
# both values too (ADR-141: the catch-up's first two reads, in the claim's round trip).
CLAIM = """
if ARGV[4] == '1' then
  local owner = redis.call('GET', KEYS[3])
  if owner and owner ~= ARGV[3] then
    redis.call('SET', KEYS[2], '1', 'PX', ARGV[2])
    return 0
  end
end
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  if #KEYS < 5 then return 1 end
  return {1, redis.call('GET', KEYS[4]), redis.call('GET', KEYS[5])}
end
redis.call('SET', KEYS[2], '1', 'PX', ARGV[2])
return 0
"""
# 1: a wake-up came meanwhile, the claim is (again) the caller's: catch up once more.
# 0: let go (or another projector holds the season now: the mark is its); the caller's process
# owns the season's wake-ups for ARGV[4] ms (ARGV[3]: the process).
RELEASE = """
local holder = redis.call('GET', KEYS[1])
if holder and holder ~= ARGV[1] then return 0 end
if redis.call('DEL', KEYS[2]) == 1 then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 1
end
if holder then redis.call('DEL', KEYS[1]) end
redis.call('SET', KEYS[3], ARGV[3], 'PX', ARGV[4])
return 0
"""
# Let go after a failure, leaving the mark for the sweep (or the next wake-up).
DROP = """
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 0
"""


class Claims:
    """Claims of the seasons under `prefix`; a holder names itself by a `token()` of its own."""

    def __init__(
        self,
        redis: aioredis.Redis,
        prefix: str,
        ttl_ms: int = CLAIM_TTL_MS,
        *,
        process: str | None = None,
        owner_ttl_ms: int = OWNER_TTL_MS,
    ) -> None:
        self.prefix = prefix
        self.ttl_ms = ttl_ms
        self.owner_ttl_ms = owner_ttl_ms
        # the process (its fold table) these claims are taken for: a season's owner
        self.process = process if process is not None else secrets.token_hex(8)
        self._claim = redis.register_script(CLAIM)
        self._release = redis.register_script(RELEASE)
        self._drop = redis.register_script(DROP)

    def token(self) -> str:
        return secrets.token_hex(8)

    def _keys(self, season_id: str) -> list[str]:
        return [
            Keys.claim(self.prefix, season_id),
            Keys.again(self.prefix, season_id),
            Keys.owner(self.prefix, season_id),
        ]

    async def take(self, season_id: str, token: str, *, defer: bool = True) -> bool:
        """The season is the caller's now; False: another holds it, or (`defer`) another
        process owns it: either catches up again (the mark)."""
        args: list[str | int] = [token, self.ttl_ms, self.process, "1" if defer else "0"]
        return bool(await self._claim(keys=self._keys(season_id), args=args))

    async def take_reading(
        self, season_id: str, token: str, reads: tuple[str, str], *, defer: bool = True
    ) -> tuple[bytes | None, bytes | None] | None:
        """`take`, answering, when the season is the caller's now, the values of `reads` (the
        active generation's pointer and a generation's checkpoint) as the claim found them;
        None when it is not (ADR-141: one round trip for what a catch-up reads first)."""
        args: list[str | int] = [token, self.ttl_ms, self.process, "1" if defer else "0"]
        got = await self._claim(keys=[*self._keys(season_id), *reads], args=args)
        if not isinstance(got, list):
            return None
        return got[1], got[2]

    async def release(self, season_id: str, token: str) -> bool:
        """Let go; True: a wake-up came meanwhile and the caller holds the season still.
        Letting go makes the caller's process the season's owner (OWNER_TTL_MS)."""
        args: list[str | int] = [token, self.ttl_ms, self.process, self.owner_ttl_ms]
        return bool(await self._release(keys=self._keys(season_id), args=args))

    async def drop(self, season_id: str, token: str) -> None:
        await self._drop(keys=self._keys(season_id)[:2], args=[token])
