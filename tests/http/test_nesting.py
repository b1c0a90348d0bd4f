"""Issue 9 item 2: JSON nested deeper than 32 levels is 400 `malformed_json`, before decoding.

`{"orders": [[[…976 deep…]]]}` on `/orders` and an anonymous `POST /v1/seasons` with 1,000
nested objects answered 500 (RecursionError in the decoder). shared/app/http/bodies.py scans every
body as it arrives and refuses the 33rd level; nothing is decoded, nothing appended.
"""

from __future__ import annotations

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from shared.app.http.bodies import MAX_DEPTH, DepthScanner, TooDeep
from shared.eventstore import InMemoryEventStore
from tests.http.support import assert_problem, create_trial, open_api, settings, unchanged


def nested(depth: int, kind: str) -> bytes:
    """A JSON document `depth` levels deep: arrays, objects, or both alternating."""
    opens = [
        b"[" if kind == "arrays" or (kind == "mixed" and n % 2) else b'{"a":' for n in range(depth)
    ]
    closes = [b"]" if o == b"[" else b"}" for o in reversed(opens)]
    return b"".join(opens) + b"1" + b"".join(closes)


def orders_body(depth: int, kind: str) -> bytes:
    """`{"orders": <value>}`: the outer object is the first level."""
    return b'{"orders":' + nested(depth - 1, kind) + b"}"


def deepest(body: bytes, chunk: int | None = None) -> int | None:
    """The level DepthScanner refuses at (None: accepted), the body fed in `chunk`-byte pieces."""
    scanner = DepthScanner()
    step = chunk or len(body) or 1
    try:
        for start in range(0, len(body), step):
            scanner.feed(body[start : start + step])
    except TooDeep:
        return scanner.depth
    return None


@pytest.mark.parametrize("kind", ["arrays", "objects", "mixed"])
def test_the_scanner_refuses_the_33rd_level_and_nothing_shallower(kind: str):
    assert deepest(nested(MAX_DEPTH, kind)) is None
    for depth in (MAX_DEPTH + 1, 1000, 100_000):
        assert deepest(nested(depth, kind)) == MAX_DEPTH + 1
    for chunk in (1, 2, 3, 7):  # the same across any chunk boundaries
        assert deepest(nested(MAX_DEPTH, kind), chunk) is None
        assert deepest(nested(MAX_DEPTH + 1, kind), chunk) == MAX_DEPTH + 1


def test_brackets_inside_strings_do_not_count():
    text = b'"' + b"[{" * 500 + b'\\"[[[\\\\' + b'"'  # escaped quote and backslash inside
    body = b"[" * MAX_DEPTH + text + b"]" * MAX_DEPTH
    for chunk in (None, 1, 2, 5):
        assert deepest(body, chunk) is None
    assert deepest(b"[" * MAX_DEPTH + text + b"[" + b"]" * (MAX_DEPTH + 1)) == MAX_DEPTH + 1
    # a string that ends with an escaped backslash closes: the bracket after it counts
    closed = b'["\\\\"' + b"[" * MAX_DEPTH
    for chunk in (None, 1, 2, 3):
        assert deepest(closed, chunk) == MAX_DEPTH + 1


def _refused(feed: str, body: bytes, chunk: int) -> bool:
    scanner = DepthScanner(limit=3)
    pieces = [body[i : i + chunk] for i in range(0, len(body), chunk)] or [b""]
    try:
        for piece in pieces[:-1]:
            scanner.feed(piece)
        getattr(scanner, feed)(pieces[-1])
    except TooDeep:
        return True
    return False


@given(
    body=st.lists(st.sampled_from([b"[", b"]", b"{", b"}", b'"', b"\\", b"a", b","]), max_size=40),
    chunk=st.integers(1, 64),
)
@example(body=[b"["] * 4, chunk=64)  # one chunk past the limit
@example(body=[b'"', b"[", b"[", b"[", b"[", b'"'], chunk=64)  # brackets in a string: accepted
def test_the_last_chunk_fast_path_refuses_exactly_what_the_scan_refuses(body, chunk):
    """Issue 27: feed_last skips the scan when the chunk cannot reach the limit; it refuses
    the same bodies as feed, over any chunking and any strings and escapes."""
    raw = b"".join(body)
    assert _refused("feed_last", raw, chunk) == _refused("feed", raw, chunk)


def test_siblings_do_not_add_up():
    """Depth is nesting, not the number of brackets: 1,000 shallow siblings are fine."""
    body = b"[" + b",".join([nested(MAX_DEPTH - 1, "mixed")] * 1000) + b"]"
    assert deepest(body) is None
    assert deepest(b"[" + b",".join(b"[]" * (1 + n % 3) for n in range(500)) + b"]") is None


async def test_deep_orders_and_seasons_are_400_malformed_json_never_500(clock):
    store = InMemoryEventStore(clock=clock)
    big = settings(max_body_bytes=2_000_000)  # room for 100,000 levels: the guard, not 413
    async with open_api(store, big) as api:
        bey = await create_trial(api.client)
        json_headers = {"content-type": "application/json"}
        for kind in ("arrays", "objects"):
            for depth in (MAX_DEPTH + 1, 976, 1000, 100_000):
                r = await unchanged(
                    store,
                    api.client.post(
                        bey.url("/orders"),
                        content=orders_body(depth, kind),
                        headers={**bey.auth(), **json_headers},
                    ),
                )
                body = assert_problem(r, 400, "malformed_json")
                assert "32" in body["detail"]
                seasons = b'{"memleket":6,"x":' + nested(depth - 1, kind) + b"}"
                r = await unchanged(
                    store, api.client.post("/v1/seasons", content=seasons, headers=json_headers)
                )
                assert_problem(r, 400, "malformed_json")
            # 32 levels pass the guard: the schema refuses them (422), not the nesting check
            r = await api.client.post(
                bey.url("/orders"),
                content=orders_body(MAX_DEPTH, kind),
                headers={**bey.auth(), **json_headers},
            )
            assert r.status_code == 422, r.text
            seasons = b'{"memleket":6,"seed":' + nested(MAX_DEPTH - 1, kind) + b"}"
            r = await api.client.post("/v1/seasons", content=seasons, headers=json_headers)
            assert r.status_code == 422, r.text
        # a bracket inside a string is text: a real order set with such a key decodes as usual
        text = '"' + "[" * 1000 + '"'
        r = await api.client.post(
            bey.url("/orders"),
            content=b'{"orders": [], "divan": 1, "x": ' + text.encode() + b"}",
            headers={**bey.auth(), **json_headers},
        )
        assert_problem(r, 422, "unknown_field")


async def test_deep_bodies_under_the_default_limit_are_refused_too(clock):
    """With the default 64 KiB limit, 100,000 levels are 413 (too large) or 400, never 500;
    sent in chunks without Content-Length, the guard stops at the 33rd level."""
    store = InMemoryEventStore(clock=clock)
    async with open_api(store) as api:
        bey = await create_trial(api.client)
        r = await api.client.post(
            bey.url("/orders"), content=orders_body(100_000, "arrays"), headers=bey.auth()
        )
        assert r.status_code == 413, r.text

        async def chunks():
            body = orders_body(100_000, "arrays")
            for start in range(0, len(body), 1000):
                yield body[start : start + 1000]

        r = await api.client.post(bey.url("/orders"), content=chunks(), headers=bey.auth())
        assert_problem(r, 400, "malformed_json")


async def test_the_gateway_refuses_deep_bodies(clock, redis_url: str):
    """The guard sits in the app both APIs are served from (`seksenbir serve`), in front of
    every route: a deep body is 400 there too, before any handler decodes it."""
    import httpx
    import redis.asyncio as aioredis

    from entrypoints.gateway import create_app
    from tests.http.support import lifespan

    store = InMemoryEventStore(clock=clock)
    redis = aioredis.Redis.from_url(redis_url)
    app = create_app(settings(), store=store, enqueue=lambda *_: None, redis=redis)
    transport = httpx.ASGITransport(app=app)
    try:
        async with (
            lifespan(app),
            httpx.AsyncClient(transport=transport, base_url="http://testserver") as client,
        ):
            seasons = b'{"memleket":6,"x":' + nested(1000, "objects") + b"}"
            r = await client.post(
                "/v1/seasons", content=seasons, headers={"content-type": "application/json"}
            )
            assert_problem(r, 400, "malformed_json")
            bey = await create_trial(client)
            r = await client.post(
                bey.url("/orders"), content=orders_body(976, "arrays"), headers=bey.auth()
            )
            assert_problem(r, 400, "malformed_json")
    finally:
        await redis.aclose()
