"""A trial player meets computer beys' offers over HTTP and answers them (R-6.1, D-28)."""

from __future__ import annotations

from shared.domain import codec
from shared.domain import events as ev
from shared.domain.replay import verify
from shared.domain.state import offer_key
from shared.eventstore import EventStore
from tests.http.support import Api, create_trial, play_divans, state_of


async def recorded(store: EventStore, season_id: str) -> list[ev.Event]:
    return [codec.decode_event(e.data) for e in await store.read_stream(season_id)]


async def test_r6_1_a_computer_offer_reaches_me_and_my_acceptance_makes_the_treaty(
    memory_api: Api,
) -> None:
    """R-6.1, D-28: after a Divan, `/me` lists a computer bey's offer in `offers_in`; the
    human accepts it through the API; at the next Divan's step 2 the treaty is made, and the
    season still verifies (the offer is a recorded input, R-12.3)."""
    api = memory_api
    bey = await create_trial(api.client)
    offers_in: list[dict[str, object]] = []
    for _ in range(11):
        await play_divans(api, bey, 1)
        me = (await api.client.get(bey.url("/me"), headers=bey.auth())).json()
        offers_in = me["offers_in"]
        if offers_in:
            break
    assert offers_in, "no computer bey offered the trial player anything in 11 Divans"
    offer = offers_in[0]
    assert offer["answer"] is None and offer["kind"] in ("pact", "alliance")
    state, _ = await state_of(api.store, bey.season_id)
    frm = offer["from"]
    assert isinstance(frm, int)
    offerer = state.bey(frm)
    assert offerer is not None and offerer.computer
    assert state.offer_divans[offer_key(frm, bey.seat)] == state.divan + 1
    r = await api.client.post(
        bey.url(f"/offers/{frm}/answer"), headers=bey.auth(), json={"answer": "accept"}
    )
    assert r.status_code == 200, r.text
    await play_divans(api, bey, 1)
    after, _ = await state_of(api.store, bey.season_id)
    treaty = after.treaty_between(frm, bey.seat)
    assert treaty is not None and treaty.kind == offer["kind"]
    _, problems = verify(await recorded(api.store, bey.season_id))
    assert problems == []
