"""What an offer's verbs answer (issue 20): an answer says which answer was recorded, never
reads as the offer's outcome (R-6.1, ADR-71); commands and the status say the season version
they leave in X-Season-Version, as the reads do (read your writes)."""

from __future__ import annotations

import pytest

from tests.http.support import ANKARA, ISTANBUL, Api, build_season


@pytest.mark.parametrize("answer", ["accept", "reject"])
async def test_r6_1_an_answer_names_the_answer_recorded(api: Api, answer: str) -> None:
    """R-6.1: `answer: reject` is answered with `"answer": "reject"` (the answer recorded,
    which takes effect at the Divan's step 2); `status` stays the command's "accepted"."""
    a, b = await build_season(api.store, [ANKARA, ISTANBUL], mode="live")
    r = await api.client.post(
        a.url("/offers"), headers=a.auth("o1"), json={"to": b.seat, "kind": "pact"}
    )
    assert r.status_code == 200, r.text
    r = await api.client.post(
        b.url(f"/offers/{a.seat}/answer"), headers=b.auth(), json={"answer": answer}
    )
    assert r.status_code == 200, r.text
    body = r.json()
    assert (body["status"], body["answer"], body["events"]) == (
        "accepted",
        answer,
        ["offer_answered.v1"],
    )
    assert body["divan"] == 1 and body["version"] == await api.store.stream_version(a.season_id)
    assert r.headers["x-season-version"] == str(body["version"])  # as the reads say theirs
    status = await api.client.get(a.url())
    assert (
        status.headers["x-season-version"] == str(status.json()["version"]) == str(body["version"])
    )
    r = await api.client.post(a.url("/orders"), headers=a.auth(), json={"orders": []})
    assert r.headers["x-season-version"] == str(r.json()["version"]), r.text
    me = (await api.client.get(b.url("/me"), headers=b.auth())).json()
    assert me["offers_in"] == [{"from": a.seat, "kind": "pact", "answer": answer}]
