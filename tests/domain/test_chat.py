"""The chat's pure rules (issue 24, R-15.1 … R-15.3): channel ids, recipients, press modes,
the text check and its limits."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from msgspec.structs import replace

from shared.domain import chat
from shared.domain.state import Bey, Calendar, SeasonState

CLOSE = datetime(2026, 12, 1, tzinfo=UTC)
CAL = Calendar(
    registration_closes_at=CLOSE,
    divans=tuple(CLOSE + timedelta(days=n) for n in range(1, 17)),
    kurultay_closes_at=CLOSE + timedelta(days=20),
)
LIVE = SeasonState(
    mode="live",
    calendar=CAL,
    beys=(Bey(1, 6), Bey(2, 34), Bey(3, 42), Bey(19, 35, computer=True)),
)


def test_a_channel_is_its_set_of_members_and_has_one_spelling() -> None:
    """R-15.3: the same set is the same channel."""
    assert chat.channel_of(frozenset({7, 3})) == "pair-3-7"
    assert chat.channel_of(frozenset({9, 1, 4})) == "group-1-4-9"
    assert chat.members_of("group-1-4-9") == frozenset({1, 4, 9})
    for odd in ("pair-7-3", "pair-3-3", "group-1-4", "pair-03-7", "group-1-2-2", "x", "all "):
        assert not chat.valid_channel(odd), odd
    assert chat.valid_channel("all")


def test_press_modes_decide_who_may_be_written_to() -> None:
    """Issue 24: full (default), public only, none; a trial season has none (R-15)."""
    assert chat.recipients_refusal(LIVE, 1, "all") is None
    assert chat.recipients_refusal(LIVE, 1, [2, 3]) is None
    public = replace(LIVE, press="public")
    assert chat.recipients_refusal(public, 1, [2]) == ("press_restricted", {"press": "public"})
    assert chat.recipients_refusal(public, 1, "all") is None
    assert chat.recipients_refusal(replace(LIVE, press="none"), 1, "all") == ("chat_closed", {})
    assert chat.recipients_refusal(SeasonState(beys=LIVE.beys), 1, "all") == ("chat_closed", {})


def test_recipients_are_known_distinct_other_humans() -> None:
    assert chat.recipients_refusal(LIVE, 1, [1]) == ("bad_recipients", {})
    assert chat.recipients_refusal(LIVE, 1, [2, 2]) == ("bad_recipients", {})
    assert chat.recipients_refusal(LIVE, 1, [5]) == ("bad_recipients", {})
    assert chat.recipients_refusal(LIVE, 1, [2, 19]) == ("computer_bey", {"seats": [19]})


def test_the_chat_is_open_until_the_kurultay_closes_then_read_only() -> None:
    assert chat.writable(LIVE, CLOSE - timedelta(days=1))  # registration included
    assert not chat.writable(LIVE, CAL.kurultay_closes_at)
    assert chat.recipients_refusal(replace(LIVE, phase="over"), 1, "all") == (
        "chat_read_only",
        {},
    )


@pytest.mark.parametrize(
    ("text", "variant"),
    [
        ("x" * 1001, "too_long"),
        ("\n".join("a" * 21), "too_many_lines"),
        ("a\u202eb", "character"),
        ("a\u200db", "character"),
        ("a\r\nb", "character"),
        (" \n\u200b", "character"),
        ("  \n  ", "blank"),
        ("a" + "\u0301" * 31, "marks"),  # a pile of marks over the lines around it
        ("x\n" + "\u0e01" + "\u0e48\u0e34" * 16, "marks"),  # Mn of any script count
    ],
)
def test_the_text_check_names_why(text: str, variant: str) -> None:
    refused = chat.text_refusal(text)
    assert refused is not None and refused[0] == variant


def test_a_plain_text_at_the_limits_is_taken() -> None:
    assert chat.text_refusal("x" * 1000) is None
    assert chat.text_refusal("\n".join("a" * 20)) is None
    assert chat.text_refusal("<b>Ankara</b> & **Konya** 🐎") is None
    assert chat.text_refusal("a" + "\u0301" * 30) is None  # UAX #15's 30 marks in a row
    assert chat.text_refusal("Vi\u1ec7t Nam, \u0915\u094d\u0937\u093f") is None  # real marks


def test_membership_follows_the_channel() -> None:
    assert chat.member(LIVE, 1, "all") and chat.member(LIVE, 2, "pair-1-2")
    assert not chat.member(LIVE, 3, "pair-1-2")
    assert not chat.member(LIVE, 7, "all")  # no such bey in this season
