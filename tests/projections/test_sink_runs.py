"""ADR-146: the sink sends a run of HSET, HDEL or flagless ZADD ops on one key as one command;
the read model it leaves is the one the ops leave one by one, whatever the ops."""

from __future__ import annotations

import asyncio
import secrets
from typing import Any

import msgspec
import pytest
import redis.asyncio as aioredis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from services.projections import sink
from services.projections.reducers import Op
from services.projections.sink import Sink
from tests.projections.support import delete_prefix

_FIELDS = st.sampled_from(["a", "b", "c", "1", "2"])
_VALUES = st.one_of(st.text(max_size=3), st.binary(max_size=3).map(lambda b: b.hex().encode()))
_SCORES = st.integers(-3, 3).map(float)


def _ops(prefix: str) -> st.SearchStrategy[list[Op]]:
    key = st.sampled_from(["h1", "h2", "z1", "z2"]).map(lambda k: f"{prefix}:{k}")
    one = st.one_of(
        st.tuples(st.just("HSET"), key.filter(lambda k: ":h" in k), _FIELDS, _VALUES),
        st.tuples(st.just("HDEL"), key.filter(lambda k: ":h" in k), _FIELDS),
        st.tuples(st.just("ZADD"), key.filter(lambda k: ":z" in k), _SCORES, _FIELDS),
        st.tuples(
            st.just("ZADD"), key.filter(lambda k: ":z" in k), st.just("NX"), _SCORES, _FIELDS
        ),
        st.tuples(st.just("PUBLISH"), st.just(f"{prefix}:channel"), _VALUES),
    )
    return st.lists(one, max_size=40)


async def _dump(redis: aioredis.Redis, prefix: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name in ("h1", "h2"):
        out[name] = await redis.hgetall(f"{prefix}:{name}")
    for name in ("z1", "z2"):
        out[name] = await redis.zrange(f"{prefix}:{name}", 0, -1, withscores=True)
    return out


async def _applied(redis_url: str, ops: list[Op], prefix: str) -> dict[str, Any]:
    redis = aioredis.Redis.from_url(redis_url)
    try:
        assert await Sink(redis).apply(f"{prefix}:checkpoint", 0, 1, ops)
        return await _dump(redis, prefix)
    finally:
        await delete_prefix(redis, prefix)
        await redis.aclose()


@pytest.mark.integration
@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_any_ops_leave_what_they_leave_one_by_one(
    redis_url: str, redis_key_prefix: str, monkeypatch: pytest.MonkeyPatch, data: st.DataObject
) -> None:
    """Merged or not, the same ops leave the same hashes and sorted sets (order within a run,
    a duplicate field or member: the last one wins, as one by one)."""
    tag = f"{redis_key_prefix}runs-{secrets.token_hex(4)}"
    ops = data.draw(_ops("P"))

    def on(prefix: str) -> list[Op]:
        return [(op[0], op[1].replace("P", prefix, 1), *op[2:]) for op in ops]

    merged = asyncio.run(_applied(redis_url, on(f"{tag}m"), f"{tag}m"))
    with monkeypatch.context() as m:
        m.setattr(sink, "_RUNS", {})
        one_by_one = asyncio.run(_applied(redis_url, on(f"{tag}o"), f"{tag}o"))
    assert merged == one_by_one


def _commands(blob: bytes) -> list[tuple[str, int, int]]:
    flat = msgspec.msgpack.decode(blob)
    out, i = [], 0
    while i < len(flat):
        name, n, k = flat[i], flat[i + 1], flat[i + 2]
        out.append((name, n, k))
        i += 3 + n
    return out


def test_a_run_on_one_key_is_one_command_and_other_ops_break_it() -> None:
    ops: list[Op] = [
        ("HSET", "k", "a", "1"),
        ("HSET", "k", "b", "2"),
        ("HSET", "other", "a", "1"),
        ("HSET", "k", "c", "3"),  # another key came between: a new command
        ("ZADD", "z", 1.0, "m"),
        ("ZADD", "z", "NX", 2.0, "n"),  # flags: never merged
        ("ZADD", "z", 3.0, "o"),
        ("PUBLISH", "ch", "x"),
        ("ZADD", "z", 4.0, "p"),
        ("ZADD", "z", 5.0, "q"),
        ("HDEL", "k", "a"),
        ("HDEL", "k", "b"),
    ]
    keys, blob = sink.encode(ops, "cp")
    assert keys == ["cp", "k", "other", "z"]
    assert _commands(blob) == [
        ("HSET", 4, 2),
        ("HSET", 2, 3),
        ("HSET", 2, 2),
        ("ZADD", 2, 4),
        ("ZADD", 3, 4),
        ("ZADD", 2, 4),
        ("PUBLISH", 2, 0),
        ("ZADD", 4, 4),
        ("HDEL", 2, 2),
    ]


def test_a_long_run_is_cut_below_luas_stack() -> None:
    ops: list[Op] = [("HSET", "k", str(i), "v") for i in range(1000)]
    sizes = [n for _name, n, _k in _commands(sink.encode(ops, "cp")[1])]
    assert sizes == [512, 512, 512, 464]
    assert sum(sizes) == 2000


def _encoded_op_by_op(ops: list[Op], checkpoint_key: str) -> tuple[list[str], bytes]:
    """The blob as ADR-146 built it, one `_arg` call an argument: the oracle of ADR-160's."""
    keys = [checkpoint_key]
    index: dict[str, int] = {checkpoint_key: 1}
    flat: list[Any] = []
    run: tuple[Any, int] | None = None
    count_at = 0
    for op in ops:
        name, *args = op
        if name == "PUBLISH":
            flat += [name, len(args), 0, *map(sink._arg, args)]
            run = None
            continue
        key, rest = args[0], args[1:]
        if key not in index:
            keys.append(key)
            index[key] = len(keys)
        k = index[key]
        if sink._RUNS.get(name) == len(rest):
            if run == (name, k) and flat[count_at] + len(rest) <= sink._RUN_ARGS:
                flat[count_at] += len(rest)
                flat += map(sink._arg, rest)
                continue
            run, count_at = (name, k), len(flat) + 1
        else:
            run = None
        flat += [name, len(rest), k, *map(sink._arg, rest)]
    return keys, msgspec.msgpack.encode(flat)


_ARGS = st.one_of(
    st.text(max_size=4),
    st.binary(max_size=4).map(lambda b: b.hex().encode()),
    st.integers(-(2**40), 2**40),
    st.floats(allow_nan=False),
)


_OTHER_OPS = st.lists(
    st.tuples(st.sampled_from(["HSET", "ZADD", "SET", "EXPIRE"]), _FIELDS, _ARGS, _ARGS),
    max_size=4,
)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(_ops("p"), _OTHER_OPS), max_size=6))
def test_adr_160_the_blob_is_the_one_built_an_argument_at_a_time(parts: list[list[Op]]) -> None:
    ops = [op for part in parts for op in part]  # runs of every size, numbers among the text
    assert sink.encode(ops, "cp") == _encoded_op_by_op(ops, "cp")


def test_an_argument_of_another_type_is_refused_as_before() -> None:
    for bad in (True, None, ["x"]):
        with pytest.raises(TypeError):
            sink.encode([("HSET", "k", "f", bad)], "cp")
        with pytest.raises(TypeError):
            _encoded_op_by_op([("HSET", "k", "f", bad)], "cp")
