"""After Divan 16 and the Kurultay: what the status and the bey's own view say (R-1.1, R-1.5)."""

from __future__ import annotations

import hashlib
import re

from tests.http.support import ANKARA, Api, Bey, create_trial, play_divans


async def test_r1_1_after_divan_16_me_and_the_status_agree_there_is_no_next_divan(
    api: Api,
) -> None:
    bey = await create_trial(api.client)
    await play_divans(api, bey, 16)
    for phase in ("kurultay", "over"):
        status = (await api.client.get(bey.url())).json()
        mine = (await api.client.get(bey.url("/me"), headers=bey.auth())).json()
        assert status["phase"] == phase
        assert status["next_divan"] is None
        assert mine["next_divan"] is None
        assert mine["orders"] == {"divan": None, "orders": []}
        if phase == "kurultay":
            r = await api.client.post(
                bey.url("/kurultay/vote"), headers=bey.auth(), json={"candidate": 2}
            )
            assert r.status_code == 200, r.text


async def test_r1_5_a_seed_above_2_53_travels_as_a_string_and_the_commitment_checks(
    api: Api,
) -> None:
    """The seed goes in and comes out as a decimal string, exactly; once revealed with its salt,
    sha256 of the UTF-8 bytes of "salt:seed" in lowercase hex is the commitment (docs/api.md)."""
    seed = str(2**63 - 1)  # a JSON number would come out of JSON.parse as 9223372036854775808
    r = await api.client.post("/v1/seasons", json={"memleket": ANKARA, "seed": seed})
    assert r.status_code == 201, r.text
    created = r.json()
    bey = Bey(created["season_id"], created["seat"], created["token"], ANKARA)
    during = (await api.client.get(bey.url())).json()
    assert (during["seed"], during["seed_salt"]) == (None, None)
    await play_divans(api, bey, 16)
    vote = await api.client.post(
        bey.url("/kurultay/vote"), headers=bey.auth(), json={"candidate": 2}
    )
    assert vote.status_code == 200, vote.text
    status = (await api.client.get(bey.url())).json()
    assert status["phase"] == "over"
    assert status["seed"] == seed
    assert re.fullmatch(r"[0-9a-f]{32}", status["seed_salt"])
    check = hashlib.sha256(f"{status['seed_salt']}:{status['seed']}".encode()).hexdigest()
    assert check == status["seed_commitment"] == created["seed_commitment"]
