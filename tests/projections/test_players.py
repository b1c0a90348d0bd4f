"""Issue 23 (ADR-87, ADR-88): a player's record and the ratings board, through the gateway."""

from __future__ import annotations

import msgspec
import redis.asyncio as aioredis

from services.projections.keys import player_records, player_records_order
from services.projections.projector import Projector
from services.projections.ratings_fold import RatingsFold
from shared.app.access.tokens import token_hash
from shared.app.repository.seasons import Seasons
from shared.eventstore import EventMetadata, InMemoryEventStore
from tests.players_support import bound_season
from tests.projections.support import AUDITOR_TOKEN, OPS_TOKEN, bearer, open_gateway

SYSTEM = EventMetadata(actor="system", command_id="test-setup")


async def _players(client, names: list[str | None]) -> list[dict[str, str]]:
    made = []
    for name in names:
        r = await client.post("/v1/players", json={} if name is None else {"name": name})
        assert r.status_code == 201, r.text
        assert r.headers["location"] == f"/v1/players/{r.json()['player_id']}"
        made.append(r.json())
    return made


async def _season(store, projector, season_id: str, ids: list[str], **create) -> None:
    _state, events = bound_season(season_id, ids, **create)
    await Seasons(store).append(season_id, 0, "setup", events, SYSTEM)
    await projector.catch_up(season_id)


async def test_a_finished_counted_season_is_on_the_players_records_and_rated_once(
    memory_store: InMemoryEventStore, redis: aioredis.Redis, prefix: str
):
    """A season rated once: a rebuild of its projection or a fresh fold rates nobody twice; a
    compressed-calendar season with the same players is not counted (issue 23)."""
    projector = Projector(memory_store, redis, prefix)
    async with open_gateway(memory_store, redis, prefix) as (_gw, client):
        players = await _players(client, ["Ayşe", "Bora", None])
        ids = [p["player_id"] for p in players]
        await _season(memory_store, projector, "a" * 32, ids)
        await _season(memory_store, projector, "b" * 32, ids, divan_interval_seconds=60)
        r = await client.get(f"/v1/players/{ids[0]}")
        assert r.status_code == 200, r.text
        record = r.json()
        assert record["name"] == "Ayşe"
        assert (record["seasons_played"], record["seasons_finished"]) == (1, 1)
        assert (record["divans_missed"], record["divans_played"]) == (16, 16)
        assert record["rating"]["seasons"] == 1
        assert [p["season_id"] for p in record["places"]] == ["a" * 32]
        board = (await client.get("/v1/boards/ratings")).json()
        assert board["total"] == 3
        assert [row["rank"] for row in board["rows"]] == [1, 2, 3]
        page = (await client.get("/v1/boards/ratings?offset=1&limit=1")).json()
        assert [row["player_id"] for row in page["rows"]] == [board["rows"][1]["player_id"]]
        await projector.rebuild("a" * 32)  # a rebuild writes the same record again
        again = (await client.get(f"/v1/players/{ids[0]}")).json()
        assert again == record
        assert await redis.zcard(player_records_order(prefix)) == 1
        fresh = await RatingsFold().current(redis, prefix)
        assert {p: r.seasons for p, r in fresh.ratings.items()} == dict.fromkeys(ids, 1)


async def test_leaving_removes_the_record_everywhere_and_the_key_stops_working(
    memory_store: InMemoryEventStore, redis: aioredis.Redis, prefix: str
):
    """Leaving is an event: the record and the board row go, the key stops working; others'
    ratings stay as they were (an anonymous stand-in, ADR-88); the season keeps the seat."""
    projector = Projector(memory_store, redis, prefix)
    async with open_gateway(memory_store, redis, prefix) as (_gw, client):
        players = await _players(client, ["Ayşe", "Bora", "Cem", "Deniz"])
        ids = [p["player_id"] for p in players]
        await _season(memory_store, projector, "c" * 32, ids)
        before = {
            r["player_id"]: r["rating"]
            for r in (await client.get("/v1/boards/ratings")).json()["rows"]
        }
        gone = players[0]
        auth = bearer(gone["player_key"])
        r = await client.post(f"/v1/players/{gone['player_id']}/leave", headers=auth)
        assert r.status_code == 200, r.text
        r = await client.get(f"/v1/players/{gone['player_id']}")
        assert (r.status_code, r.json()["code"]) == (404, "player_not_found")
        rows = (await client.get("/v1/boards/ratings")).json()["rows"]
        assert {r["player_id"]: r["rating"] for r in rows} == {
            p: v for p, v in before.items() if p != gone["player_id"]
        }
        for path in ("leave", "key"):
            r = await client.post(f"/v1/players/{gone['player_id']}/{path}", headers=auth)
            assert (r.status_code, r.json()["code"]) == (401, "bad_player_key")
        stream = await memory_store.read_stream("c" * 32)
        assert sum(1 for e in stream if e.type == "seat_bound.v1") == 4  # the seats are kept


async def test_no_player_key_or_its_hash_in_any_answer_log_or_export(
    memory_store: InMemoryEventStore, redis: aioredis.Redis, prefix: str, captured_logs
):
    """Canaries (issue 23): the key is shown once; neither it nor its hash is in a record, the
    board, the season's status or any export; a player id is in an export only where a seat
    was bound to it."""
    projector = Projector(memory_store, redis, prefix)
    async with open_gateway(memory_store, redis, prefix) as (_gw, client):
        players = await _players(client, ["Ayşe", "Bora", "Cem"])
        rotated = await client.post(
            f"/v1/players/{players[2]['player_id']}/key", headers=bearer(players[2]["player_key"])
        )
        assert rotated.status_code == 200, rotated.text
        unbound = (await _players(client, ["Ece"]))[0]
        ids = [p["player_id"] for p in players]
        await _season(memory_store, projector, "d" * 32, ids)
        secrets = [p["player_key"] for p in [*players, unbound, rotated.json()]]
        secrets += [token_hash(s) for s in secrets]
        texts = []
        for path in [f"/v1/players/{i}" for i in ids] + [
            "/v1/boards/ratings",
            f"/v1/seasons/{'d' * 32}",
        ]:
            texts.append((await client.get(path)).text)
        for token in (OPS_TOKEN, AUDITOR_TOKEN, None):
            r = await client.get(
                f"/v1/seasons/{'d' * 32}/export", headers=bearer(token) if token else {}
            )
            assert r.status_code == 200, r.text
            texts.append(r.text)
            assert all(i in r.text for i in ids) and unbound["player_id"] not in r.text
        await client.post(
            f"/v1/seasons/{'d' * 32}/join", json={"memleket": 6, "player_key": secrets[0]}
        )
        texts.append(captured_logs.getvalue())
        assert "http.request" in texts[-1]  # the log was captured (the access lines)
        for text in texts:
            assert not any(s in text for s in secrets)
        assert await redis.hlen(player_records(prefix)) == 1


async def test_a_record_landing_before_the_folds_end_folds_again_as_a_rebuild(
    redis: aioredis.Redis, prefix: str
):
    """ADR-88: incremental == rebuilt even when two projectors record seasons out of order."""
    from shared.domain.ratings import SeasonRecord, SeatRecord, rebuild

    def record(season_id: str, players: str) -> SeasonRecord:
        seats = tuple(
            SeatRecord(p, n, n, 30 - n, n == 1, 0, 0, 16) for n, p in enumerate(players, 1)
        )
        return SeasonRecord(season_id, seats)

    first, second = record("s1", "abc"), record("s2", "cba")
    fold = RatingsFold()
    for rec, position in ((second, 20.0), (first, 10.0)):  # s1's Kurultay was first
        await redis.hset(player_records(prefix), rec.season_id, msgspec.json.encode(rec))
        await redis.zadd(player_records_order(prefix), {rec.season_id: position})
        await fold.current(redis, prefix)
    assert fold.applied == ["s1", "s2"]
    assert await fold.current(redis, prefix) == rebuild([first, second])
