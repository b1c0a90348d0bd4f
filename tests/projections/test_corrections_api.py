"""Corrections over HTTP (issue 13, ADR-53): ops apply a compensating event with a reason; the
export, its offline verification and the replay show the original record and the correction."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import timedelta
from pathlib import Path
from typing import Any

import redis.asyncio as aioredis

from services.projections.projector import Projector
from shared.app.ops.export_check import check
from shared.app.ops.export_read import parse
from shared.eventstore import InMemoryEventStore
from tests.live_calendar import SEASON_NOW
from tests.projections.pact_season import KIRIKKALE, create_live, pact_and_betrayal
from tests.projections.support import AUDITOR_TOKEN, OPS_TOKEN, bearer, open_gateway

ROOT = Path(__file__).resolve().parents[2]


async def _correct(
    client: Any, season_id: str, body: dict[str, Any], token: str | None = OPS_TOKEN
) -> Any:
    return await client.post(
        f"/v1/ops/seasons/{season_id}/corrections", json=body, headers=bearer(token)
    )


def _days_ahead(days: int) -> str:
    """An instant `days` after the gateway's own clock (SEASON_NOW): the real clock was read
    here, and D-37's year would have refused a close 30 days after it from 2027-11 on."""
    return (SEASON_NOW + timedelta(days=days)).isoformat()


async def test_adr53_ops_correct_a_season_and_the_export_verify_and_replay_show_both(
    memory_store: InMemoryEventStore, redis: aioredis.Redis, prefix: str, tmp_path: Path
) -> None:
    """ADR-53: after Divan 1 (A took Kırıkkale from B by betrayal), ops give Kırıkkale back to
    B, set A's gold and revoke A's Hain badge, each with a reason. Each is one event after the
    record; the public map, titles and A's own view follow; the export holds the original
    battle and the three corrections; it verifies offline with no mismatch and lists the
    corrections; `seksenbir replay --json` on the file lists them too."""
    async with open_gateway(memory_store, redis, prefix) as (_gw, client):
        live = await create_live(memory_store)
        await pact_and_betrayal(client, memory_store, live)
        projector = Projector(memory_store, redis, prefix)
        await projector.sweep()
        before = await memory_store.stream_version(live.season_id)
        bodies = [
            {
                "correction": {"kind": "province", "province": KIRIKKALE, "owner": 2, "units": 4},
                "reason": "verify: the pact held at step 3 (test defect)",
                "refers_to": before - 3,
            },
            {"correction": {"kind": "gold", "seat": 1, "gold": 11}, "reason": "gold recount"},
            {"correction": {"kind": "revoke_hain", "seat": 1}, "reason": "no betrayal after all"},
        ]
        for n, body in enumerate(bodies, start=1):
            r = await _correct(client, live.season_id, body)
            assert r.status_code == 201, r.text
            out = r.json()
            assert out["correction"] == {**({"sur": False} if n == 1 else {}), **body["correction"]}
            assert out["reason"] == body["reason"]
            assert (out["divan"], out["version"]) == (1, before + n)
            assert out["refers_to"] == body.get("refers_to")
        await projector.sweep()
        seen = (await client.get(f"{live.url()}/map")).json()["provinces"][str(KIRIKKALE)]
        assert (seen["owner"], seen["units"]) == (2, 4)
        assert (await client.get(f"{live.url()}/titles")).json()["hain"] == []
        me = (await client.get(f"{live.url()}/me", headers=bearer(live.tokens[1]))).json()
        assert me["gold"] == 11

        await _public_reports_show(client, live.url(), bodies, before)
        r = await client.get(f"/v1/ops/seasons/{live.season_id}/export", headers=bearer(OPS_TOKEN))
        assert r.status_code == 200
        lines = r.content.splitlines()
        types = [json.loads(x)["type"] for x in lines[1:]]
        assert types.count("correction_applied.v1") == 3
        assert "battles_resolved.v1" in types  # the original outcome stays in the record
        verdict = check(parse(lines))
        assert verdict.ok and verdict.mismatches == []
        assert [c["correction"]["kind"] for c in verdict.corrections] == [
            "province",
            "gold",
            "revoke_hain",
        ]
        path = tmp_path / "season.jsonl"
        path.write_bytes(r.content)
    replay = subprocess.run(
        [sys.executable, "-m", "entrypoints.cli", "replay", str(path), "--json"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert replay.returncode == 0, replay.stderr
    shown = json.loads(replay.stdout)["corrections"]
    assert [c["reason"] for c in shown] == [b["reason"] for b in bodies]
    _replay_and_explain_show(path, bodies, before)


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "entrypoints.cli", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


async def test_adr53_a_correction_is_for_ops_with_a_reason_and_a_repeat_changes_nothing(
    memory_store: InMemoryEventStore, redis: aioredis.Redis, prefix: str
) -> None:
    """Only ops (401 without a token, 403 for an auditor or a bey); a reason of spaces is
    `reason_required`; an unknown kind `invalid_body`; the same correction again changes
    nothing and is refused (`invalid_correction`); before registration closes: `wrong_phase`."""
    async with open_gateway(memory_store, redis, prefix) as (_gw, client):
        live = await create_live(memory_store)
        await pact_and_betrayal(client, memory_store, live)
        body = {"correction": {"kind": "gold", "seat": 2, "gold": 30}, "reason": "recount"}
        assert (await _correct(client, live.season_id, body, None)).status_code == 401
        for token in (AUDITOR_TOKEN, live.tokens[1]):
            r = await _correct(client, live.season_id, body, token)
            assert (r.status_code, r.json()["code"]) == (403, "forbidden")
        # one free-text check for every reason (issue 20 item 6, ADR-77)
        for blank in ("   ", "\u3164", "\u2800", "\u200b"):
            r = await _correct(client, live.season_id, {**body, "reason": blank})
            assert (r.status_code, r.json()["code"]) == (422, "reason_required"), blank
        for one_line in ("a\u2028b", "a\u2029b", "a\u061cb"):
            r = await _correct(client, live.season_id, {**body, "reason": one_line})
            assert (r.status_code, r.json()["code"]) == (422, "invalid_body"), one_line
            assert r.json()["field"] == "$.reason"
        r = await _correct(client, live.season_id, {**body, "correction": {"kind": "x"}})
        assert (r.status_code, r.json()["code"]) == (422, "invalid_body")
        assert (await _correct(client, live.season_id, body)).status_code == 201
        r = await _correct(client, live.season_id, body)
        assert (r.status_code, r.json()["code"]) == (422, "invalid_correction")
        r = await _correct(client, "ffffffffffffffffffffffffffffffff", body)
        assert (r.status_code, r.json()["code"]) == (404, "season_not_found")
        created = await client.post(
            "/v1/seasons",
            json={"mode": "live", "registration_closes_at": _days_ahead(30)},  # D-37: ≤ a year
            headers=bearer(OPS_TOKEN),
        )
        assert created.status_code == 201, created.text
        r = await _correct(client, created.json()["season_id"], body)
        assert (r.status_code, r.json()["code"]) == (409, "wrong_phase")


async def _public_reports_show(
    client: Any, url: str, bodies: list[dict[str, Any]], before: int
) -> None:
    # issue 13: the public reports say so, after Divan 1, structured and in both languages;
    # the gold correction names the bey, not the amount
    reports = (await client.get(f"{url}/reports")).json()["reports"]
    english = (await client.get(f"{url}/reports", headers={"Accept-Language": "en"})).json()[
        "reports"
    ]
    fixes = [r for r in reports if r["kind"] == "correction"]
    assert [(r["divan"], r["lines"][0]["data"]["correction"]) for r in fixes] == [
        (1, "province"), (1, "gold"), (1, "revoke_hain"),
    ]  # fmt: skip
    assert [r["lines"][0]["data"]["reason"] for r in fixes] == [b["reason"] for b in bodies]
    assert fixes[0]["lines"][0]["data"]["refers_to"] == before - 3
    assert all(r["lines"][0]["text"].startswith("Düzeltme") for r in fixes)
    assert [r["lines"][0]["text"].split(" ")[0] for r in english if r["kind"] == "correction"] == [
        "Correction"
    ] * 3
    assert "gold" not in fixes[1]["lines"][0]["data"]
    assert "altını 11" not in fixes[1]["lines"][0]["text"]  # the amount is secret


def _replay_and_explain_show(path: Path, bodies: list[dict[str, Any]], before: int) -> None:
    # `seksenbir replay` and `seksenbir explain` print them in the language asked for, ops'
    # lines with the gold amount; `explain --json` lists them as the ops endpoint does
    for lang, head, gold in (
        ("tr", "Düzeltmeler (3", "1. beyin altını 11"),
        ("en", "Corrections (3", "Bey 1's gold set to 11"),
    ):
        for verb in (["replay", str(path)], ["explain", str(path), "1"]):
            done = _cli(*verb, "--lang", lang)
            assert done.returncode == 0, done.stderr
            assert head in done.stdout and gold in done.stdout, done.stdout
            assert all(b["reason"] in done.stdout for b in bodies)
        verified = _cli("verify", str(path), "--lang", lang)  # the summary on stderr too
        assert verified.returncode == 0 and head in verified.stderr and gold in verified.stderr
    explained = json.loads(_cli("explain", str(path), "1", "--json").stdout)
    assert [c["version"] for c in explained["corrections"]] == [before + 1, before + 2, before + 3]
    assert explained["corrections"][1]["correction"] == {"kind": "gold", "seat": 1, "gold": 11}


async def test_adr53_d22_a_correction_refers_to_an_event_of_the_season_and_answers_plus_0300(
    memory_store: InMemoryEventStore, redis: aioredis.Redis, prefix: str
) -> None:
    """`refers_to` names the event the correction compensates: a version the season does not
    have (yet) is refused, not recorded as a dangling reference (99999 on a season of 112
    events was accepted). The answer's `at` is +03:00 as every instant shown (D-22; it was
    UTC with `Z`)."""
    async with open_gateway(memory_store, redis, prefix) as (_gw, client):
        live = await create_live(memory_store)
        await pact_and_betrayal(client, memory_store, live)
        version = await memory_store.stream_version(live.season_id)
        body = {"correction": {"kind": "gold", "seat": 2, "gold": 30}, "reason": "recount"}
        r = await _correct(client, live.season_id, {**body, "refers_to": version + 1})
        problem = r.json()
        assert (r.status_code, problem["code"]) == (422, "invalid_correction"), r.text
        assert (problem["refers_to"], problem["version"]) == (version + 1, version)
        assert await memory_store.stream_version(live.season_id) == version  # nothing written
        r = await _correct(client, live.season_id, {**body, "refers_to": version})
        assert r.status_code == 201, r.text
        assert r.json()["at"].endswith("+03:00"), r.json()["at"]


async def test_a_reason_with_control_or_direction_characters_is_refused(
    memory_store: InMemoryEventStore, redis: aioredis.Redis, prefix: str
) -> None:
    """A reason is shown in the public reports as written: NUL, a bell, a line break or a
    right-to-left override (which makes a report line read other than it is) was accepted.
    Such a reason is refused as `invalid_body`, naming the field; Turkish letters are kept."""
    async with open_gateway(memory_store, redis, prefix) as (_gw, client):
        live = await create_live(memory_store)
        await pact_and_betrayal(client, memory_store, live)
        body = {"correction": {"kind": "gold", "seat": 2, "gold": 30}, "reason": "recount"}
        for bad, char in (
            ("a\u0000b", "U+0000"),
            ("zil\u0007", "U+0007"),
            ("iki\nsatır", "U+000A"),
            ("\u202eters", "U+202E"),
            ("x\u2066y", "U+2066"),
            ("\u0085", "U+0085"),
        ):
            r = await _correct(client, live.season_id, {**body, "reason": bad})
            problem = r.json()
            assert (r.status_code, problem["code"]) == (422, "invalid_body"), (bad, r.text)
            assert problem["field"] == "$.reason"
            # the one free-text check (ADR-77) names the character it refused
            assert problem["character"] == char
            assert f"{char} içeremez" in problem["detail"], problem["detail"]
        r = await _correct(client, live.season_id, {**body, "reason": "Sayım: ığüşöç İĞÜŞÖÇ"})
        assert r.status_code == 201, r.text
