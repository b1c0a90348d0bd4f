"""After Divan 16 and the Kurultay: what the status and the bey's own view say (R-1.1, R-1.5)."""

from __future__ import annotations

from tests.http.support import Api, Bey, create_trial, play_divans


async def finished(api: Api) -> Bey:
    """A trial season played through Divan 16 and its Kurultay (the human votes for seat 2)."""
    bey = await create_trial(api.client)
    await play_divans(api, bey, 16)
    r = await api.client.post(bey.url("/kurultay/vote"), headers=bey.auth(), json={"candidate": 2})
    assert r.status_code == 200, r.text
    return bey


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
        assert mine["orders"] == []
        if phase == "kurultay":
            r = await api.client.post(
                bey.url("/kurultay/vote"), headers=bey.auth(), json={"candidate": 2}
            )
            assert r.status_code == 200, r.text
