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

# KEYS[1]: the claim, KEYS[2]: the again mark; ARGV[1]: the holder's token, ARGV[2]: the TTL.
CLAIM = """
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return 1 end
redis.call('SET', KEYS[2], '1', 'PX', ARGV[2])
return 0
"""
# 1: a wake-up came meanwhile, the claim is (again) the caller's: catch up once more.
# 0: let go (or another projector holds the season now: the mark is its).
RELEASE = """
local holder = redis.call('GET', KEYS[1])
if holder and holder ~= ARGV[1] then return 0 end
if redis.call('DEL', KEYS[2]) == 1 then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 1
end
if holder then redis.call('DEL', KEYS[1]) end
return 0
"""
# Let go after a failure, leaving the mark for the sweep (or the next wake-up).
DROP = """
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 0
"""


class Claims:
    """Claims of the seasons under `prefix`; a holder names itself by a `token()` of its own."""

    def __init__(self, redis: aioredis.Redis, prefix: str, ttl_ms: int = CLAIM_TTL_MS) -> None:
        self.prefix = prefix
        self.ttl_ms = ttl_ms
        self._claim = redis.register_script(CLAIM)
        self._release = redis.register_script(RELEASE)
        self._drop = redis.register_script(DROP)

    def token(self) -> str:
        return secrets.token_hex(8)

    def _keys(self, season_id: str) -> list[str]:
        return [Keys.claim(self.prefix, season_id), Keys.again(self.prefix, season_id)]

    async def take(self, season_id: str, token: str) -> bool:
        """The season is the caller's now; False: another holds it (and will catch up again)."""
        return bool(await self._claim(keys=self._keys(season_id), args=[token, self.ttl_ms]))

    async def release(self, season_id: str, token: str) -> bool:
        """Let go; True: a wake-up came meanwhile and the caller holds the season still."""
        return bool(await self._release(keys=self._keys(season_id), args=[token, self.ttl_ms]))

    async def drop(self, season_id: str, token: str) -> None:
        await self._drop(keys=self._keys(season_id), args=[token])
