"""docs/api.md (Read your writes): every answer that names the season's `version` says it in
`X-Season-Version` too, "every season read, the status and every command whose answer has a
`version`", and the served document declares the header on each of them (issue 20).

Found by following the docs from outside (session 24): the bey's commands and the read side's
reads said it, but a season admin's act (postpone, pause …), ops' correction, its dry run, the
name and description resets and `GET /me` answered a `version` without the header, and the
document did not declare it for them.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from tests.http.support import OPS_TOKEN, Api, bearer, create_trial, play_divans

SCHEMA = "/v1/schema/openapi.json"


def _properties(doc: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    if "$ref" in schema:
        schema = doc["components"]["schemas"][schema["$ref"].rsplit("/", 1)[-1]]
    return schema.get("properties") or {}


async def test_every_answer_with_a_version_declares_x_season_version(memory_api: Api) -> None:
    doc = (await memory_api.client.get(SCHEMA)).json()
    missing = []
    for path, item in doc["paths"].items():
        for method, op in item.items():
            for status, response in op.get("responses", {}).items():
                if not status.startswith("2"):
                    continue
                media = (response.get("content") or {}).get("application/json")
                if media is None or "version" not in _properties(doc, media["schema"]):
                    continue
                if "X-Season-Version" not in (response.get("headers") or {}):
                    missing.append(f"{method.upper()} {path} {status}")
    assert missing == [], "answers a `version` without declaring X-Season-Version"


def _says_its_version(r: Any, status: int) -> None:
    assert r.status_code == status, r.text
    assert r.headers.get("x-season-version") == str(r.json()["version"]), dict(r.headers)


async def test_a_season_admins_act_says_its_version(memory_api: Api) -> None:
    api = memory_api
    close = (api.clock.now + timedelta(hours=2)).isoformat()
    r = await api.client.post(
        "/v1/seasons",
        json={"mode": "live", "registration_closes_at": close, "description": "bir satır"},
    )
    created = r.json()
    sid, admin = created["season_id"], bearer(created["admin_token"])
    later = (api.clock.now + timedelta(days=3)).isoformat()
    r = await api.client.post(
        f"/v1/seasons/{sid}/admin/postpone",
        json={"reason": "az oyuncu", "registration_closes_at": later},
        headers=admin,
    )
    _says_its_version(r, 200)
    r = await api.client.post(
        f"/v1/ops/seasons/{sid}/description/reset",
        json={"reason": "kaba"},
        headers=bearer(OPS_TOKEN),
    )
    _says_its_version(r, 200)


async def test_ops_corrections_name_resets_and_me_say_their_version(memory_api: Api) -> None:
    api = memory_api
    r = await api.client.post("/v1/seasons", json={"memleket": 6, "name": "Ayşe"})
    sid, token = r.json()["season_id"], r.json()["token"]
    bey = await create_trial(api.client)
    await play_divans(api, bey, 1)
    _says_its_version(await api.client.get(f"/v1/seasons/{sid}/me", headers=bearer(token)), 200)
    ops = bearer(OPS_TOKEN)
    body = {"correction": {"kind": "gold", "seat": bey.seat, "gold": 9}, "reason": "hata"}
    base = f"/v1/ops/seasons/{bey.season_id}/corrections"
    _says_its_version(await api.client.post(f"{base}/dry-run", json=body, headers=ops), 200)
    _says_its_version(await api.client.post(base, json=body, headers=ops), 201)
    r = await api.client.post(
        f"/v1/ops/seasons/{sid}/beys/1/name/reset", json={"reason": "kaba"}, headers=ops
    )
    _says_its_version(r, 200)
