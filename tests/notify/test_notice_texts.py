"""The texts a player's notification shows (issue 25): whole sentences in the player's
language, with the game's own words, never a code of the API inside them."""

from __future__ import annotations

from services.notify import notices
from shared.domain import events as ev


def test_an_offer_notice_names_the_treaty_in_each_language() -> None:
    """A Turkish notification said "1. bey bir pact önerdi.": the offer's kind as the API's
    code inside a Turkish sentence. Each language now names the treaty in its own words, as
    the reports do (shared/domain/report_lines.py TREATY)."""
    (pact,) = notices.notices("s1", 9, ev.TreatyOffered(frm=1, to=2, kind="pact"))
    assert pact.texts == {
        "tr": "1. bey size bir saldırmazlık antlaşması önerdi.",
        "en": "Bey 1 offers you a non-aggression pact.",
    }
    assert pact.data == {"from": 1, "kind": "pact"}  # the code stays in the data
    (alliance,) = notices.notices("s1", 9, ev.TreatyOffered(frm=3, to=2, kind="alliance"))
    assert alliance.texts == {
        "tr": "3. bey size bir ittifak önerdi.",
        "en": "Bey 3 offers you an alliance.",
    }
