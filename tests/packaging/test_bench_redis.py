"""A bench never writes to a shared Redis by default: without --redis it starts a
redis-server of its own (`bench.common.own_redis`), as bench.trial_load and bench.idle do.

Found from outside (session 22): `bench.live_surge` and seven others defaulted --redis to
SEKSENBIR_REDIS_URL or redis://127.0.0.1:6379/0, the shared server of a box several people
work on: a run without --redis wrote its seasons' keys there."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bench.common import redis_given_or_own
from bench.smoke import modules

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_URL = re.compile(
    r"redis://[^\"' ]*:6379|environ(?:\.get\(|\[)\"SEKSENBIR_(?:TEST_)?REDIS_URL"
)


@pytest.mark.parametrize("name", modules())
def test_no_bench_defaults_to_a_shared_redis(name: str) -> None:
    source = (ROOT / "bench" / f"{name}.py").read_text(encoding="utf-8")
    assert not DEFAULT_URL.findall(source), f"bench.{name} names a shared Redis as a default"
    if re.search(r"[\"']--redis[\"']", source):
        assert "redis_given_or_own" in source or "own_redis" in source, name


def test_without_redis_a_bench_runs_on_a_redis_server_of_its_own() -> None:
    import redis

    with redis_given_or_own(None) as url:
        assert not url.endswith(":6379/0")
        r = redis.Redis.from_url(url)
        assert r.ping() and r.dbsize() == 0
        r.close()
    with redis_given_or_own("redis://127.0.0.1:1/0") as url:
        assert url == "redis://127.0.0.1:1/0"  # given: used as given, nothing started
