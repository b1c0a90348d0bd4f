"""Beys' names (R-15.5, R-15.2; issue 23): what a name may be, when two names are one, the
reserved whole names, computer beys' names, and a name chosen at a join or reset by ops."""

from __future__ import annotations

from datetime import timedelta

import pytest

from shared.domain import codec, names
from shared.domain import commands as c
from shared.domain import events as ev
from shared.domain.decide import decide
from shared.domain.evolve import fold
from shared.domain.map import game_map
from shared.domain.state import SEATS, SeasonState
from tests.domain.test_live import NOW, apply, created, rejected

CYRILLIC_AYSE = "\u0410y\u015fe"  # Cyrillic capital A, then "yşe"


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Ayşe", "ayse"),
        ("Ayşe", CYRILLIC_AYSE),
        ("ayse", "AYSE"),
        ("IŞIK", "ışık"),  # Turkish dotless ı and dotted I fold to one key
        ("İlker", "ilker"),
        ("Ali", "AIi"),  # Latin capital I looks like l (TS #39)
        ("Ay-se", "Ayse"),  # separators do not tell names apart
        ("ｆｕｌｌ", "full"),  # NFKC: fullwidth letters
        ("Osman", "0sman"),  # digit zero looks like O (TS #39)
        ("Ali 3", "Ali \u0663"),  # a digit is the digit it is, in any script
    ],
)
def test_r15_5_lookalike_names_are_one_name(a: str, b: str) -> None:
    """R-15.5: two names meet by their confusable keys (TS #39 after NFKC and case folding)."""
    assert names.same_name(a, b) and names.same_name(b, a)


@pytest.mark.parametrize(("a", "b"), [("Orhan", "Han"), ("Ayşe", "Ayla"), ("Kemal", "Cemal")])
def test_r15_5_different_names_stay_apart(a: str, b: str) -> None:
    """R-15.5: only lookalikes meet; other names are free."""
    assert not names.same_name(a, b)


@pytest.mark.parametrize(
    "name",
    [
        "3. bey",
        "Bey 3",
        "bey 19",
        "12. Bey",
        "BEY 250",
        "Han",
        "han",
        "HAN",
        "\u041dan",  # Cyrillic Н
        "ops",
        "0ps",
        "sistem",
        "System",
        "admin",
        "Аdmin",  # Cyrillic А
        "moderatör",
        "Moderator",
        "Konya Beyi",
        "konya beyi",
        "\u0663. bey",  # Arabic-Indic ٣: a seat form in another script's digits
        "Bey \u06f1\u06f2",  # Extended Arabic-Indic ۱۲
        "\u0967\u0969. bey",  # Devanagari १३
    ],
)
def test_r15_5_reserved_whole_names_and_their_lookalikes_are_refused(name: str) -> None:
    """R-15.5: the seat forms for any seat, the system's words and the computer beys' names."""
    assert names.name_problem(name) is None
    assert names.is_reserved(name)


@pytest.mark.parametrize(
    "name",
    ["Hain", "HAİN", "hain", "Sürgün", "Surgun", "Bölge Beyi", "bolge-beyi", "Bölge Hakimi"],
)
def test_r15_5_the_titles_a_bey_is_shown_with_are_reserved_as_whole_names(name: str) -> None:
    """Probe (session 23, ADR-166): "Han" was reserved but the other titles beside a bey's
    name on the map, the leaderboard and /titles were not: a human could join as "Hain",
    "Sürgün" or "Bölge Beyi" and be read as wearing a badge or a title it does not hold."""
    assert names.name_problem(name) is None
    assert names.is_reserved(name)


@pytest.mark.parametrize(
    "name", ["Orhan", "Hanife", "Sistemci", "Beyza", "Konya Kızı", "Hainler", "Ege Bölgesi"]
)
def test_r15_5_a_reserved_word_inside_a_name_is_fine(name: str) -> None:
    """R-15.5: reserved as whole names only ("Orhan" is fine)."""
    assert names.name_problem(name) is None and not names.is_reserved(name)


@pytest.mark.parametrize(
    ("name", "problem"),
    [
        ("a", "invalid_name.length"),
        ("x" * 25, "invalid_name.length"),
        ("   ", "invalid_name.length"),  # blank, by the free-text check
        (" Ayşe", "invalid_name.spaces"),
        ("Ayşe ", "invalid_name.spaces"),
        ("Ay  şe", "invalid_name.spaces"),
        ("<b>bold</b>", "invalid_name.character"),
        ("a&amp;b", "invalid_name.character"),
        ("x\u202ey", "invalid_name.character"),  # RIGHT-TO-LEFT OVERRIDE (Trojan Source)
        ("x\u200by", "invalid_name.character"),  # ZERO WIDTH SPACE: format
        ("x\ny", "invalid_name.character"),
        ("ab😀", "invalid_name.character"),
        ("a\u0301\u0301\u0301\u0301b", "invalid_name.character"),  # 3 marks after NFC
        ("12", "invalid_name.letter"),
        ("..", "invalid_name.letter"),
    ],
)
def test_r15_5_a_name_that_is_not_a_name_is_refused_naming_why(name: str, problem: str) -> None:
    """R-15.5: 2–24 letters, digits, spaces and `. - _ '`, through the one free-text check."""
    assert names.name_problem(name) == problem


@pytest.mark.parametrize("name", ["Ay", "Ayşe", "O'Brien", "Jean-Luc", "x_y.z", "李小龍", "x" * 24])
def test_r15_5_names_of_every_script_are_fine(name: str) -> None:
    """R-15.5: letters of any script, digits and the five separators."""
    assert names.name_problem(name) is None


@pytest.mark.parametrize(
    ("name", "key"),
    [
        ("a", "invalid_name.length"),
        (" ab", "invalid_name.spaces"),
        ("ab!", "invalid_name.character"),
        ("a\u202eb", "invalid_name.character"),
        ("12", "invalid_name.letter"),
        ("Han", "name_reserved"),
        ("0ps", "name_reserved"),
        ("3. bey", "name_reserved"),
        ("Ayşe", None),
        ("O'Brien-2", None),
    ],
)
def test_r15_5_one_rule_refuses_any_public_name_naming_the_field(
    name: str, key: str | None
) -> None:
    """R-15.5: `name_refusal` is the rule a bey's name and a player's both go through: what
    is not a name (its variant saying why), then a reserved whole name or its lookalike."""
    refused = names.name_refusal(name, field="$.who")
    if key is None:
        assert refused is None
    else:
        assert refused is not None
        assert (refused.key, refused.details) == (key, {"field": "$.who"})


def test_r15_5_computer_beys_are_named_by_their_memleket_and_no_human_can_take_it() -> None:
    """R-15.5: "Konya Beyi" for the computer bey of 42; every such name is reserved."""
    assert names.computer_name(42) == f"{game_map().names[42]} Beyi"
    for plate in range(1, 82):
        assert names.is_reserved(names.computer_name(plate))


def test_r15_5_a_name_chosen_at_a_join_is_the_beys_and_a_lookalike_is_refused() -> None:
    """R-15.5: the join names the bey (its own event, after BeyJoined); a second bey with a
    lookalike name is refused `name_taken`, a reserved one `name_reserved`, changing nothing."""
    state, events = apply(created(), c.JoinSeason(memleket=6, at=NOW, name="Ayşe"))
    assert [codec.event_type(e) for e in events] == ["bey_joined.v1", "bey_named.v1"]
    assert state.names == {1: "Ayşe"}
    taken = rejected(state, c.JoinSeason(memleket=34, at=NOW, name=CYRILLIC_AYSE))
    assert (taken.code, taken.details["field"]) == ("name_taken", "$.name")
    assert rejected(state, c.JoinSeason(memleket=34, at=NOW, name="Bey 2")).code == "name_reserved"
    assert rejected(state, c.JoinSeason(memleket=34, at=NOW, name="<i>")).code == "invalid_name"
    state, _ = apply(state, c.JoinSeason(memleket=34, at=NOW))  # no name: the seat form
    assert state.names == {1: "Ayşe"}
    assert names.display_name(state.names, 2, 34, False) == "2. bey"


def test_r15_5_a_name_is_stored_in_nfc() -> None:
    """R-15.5: the name as NFC, so one name is one string."""
    state, _ = apply(created(), c.JoinSeason(memleket=6, at=NOW, name="Ays\u0327e"))
    assert state.names == {1: "Ayşe"}


def test_r15_5_the_nineteenth_join_with_a_name_still_closes_registration() -> None:
    """R-1.4, R-15.5: the name comes with the seat, and the close follows both."""
    state = created()
    plates = iter(p for p in range(1, 82))
    for _ in range(SEATS - 1):
        state, _ = apply(state, c.JoinSeason(memleket=next(plates), at=NOW))
    state, events = apply(state, c.JoinSeason(memleket=next(plates), at=NOW, name="Sonuncu"))
    kinds = [codec.event_type(e) for e in events]
    assert kinds[:2] == ["bey_joined.v1", "bey_named.v1"]
    assert "registration_closed.v1" in kinds
    assert state.phase == "running" and state.names == {19: "Sonuncu"}


def test_r15_2_ops_reset_a_name_with_a_reason_as_an_event() -> None:
    """R-15.2: an insulting name is reset by ops, with a reason, as a recorded act; the bey is
    shown by its seat again; a reset needs a reason and a name to reset."""
    state, _ = apply(created(), c.JoinSeason(memleket=6, at=NOW, name="Kaba Ad"))
    later = NOW + timedelta(hours=1)
    assert rejected(state, c.ResetName(seat=1, reason=" ", at=later)).code == "reason_required"
    state, events = apply(state, c.ResetName(seat=1, reason="hakaret", at=later))
    assert events == [ev.BeyNamed(seat=1, name=None, by="ops", reason="hakaret", at=later)]
    assert state.names == {}
    assert rejected(state, c.ResetName(seat=1, reason="again", at=later)).code == "invalid_name"
    assert rejected(state, c.ResetName(seat=7, reason="x", at=later)).code == "unknown_seat"
    # the reset name is free again, and the events replay to the same state
    state, _ = apply(state, c.JoinSeason(memleket=34, at=NOW, name="kaba ad"))
    assert state.names == {2: "kaba ad"}


def test_names_stay_out_of_the_outcome_events_and_round_trip() -> None:
    """R-15.5: the name is its own event (the Divan's events never carry one), and replays."""
    state, events = apply(created(), c.JoinSeason(memleket=6, at=NOW, name="Ayşe"))
    joined = events[0]
    assert isinstance(joined, ev.BeyJoined) and codec.encode(joined) == codec.encode(
        ev.BeyJoined(seat=1, memleket=6)
    )
    decoded = [codec.decode_stored(codec.encode(e), codec.event_type(e)) for e in events]
    assert fold(decoded, created()).names == state.names


def test_a_live_season_is_listed_by_default_and_may_be_unlisted_with_a_description() -> None:
    """Issue 23: no event for the default; an unlisted season or a description is one."""
    assert decide(created(), c.ListSeason()) == []
    state, events = apply(created(), c.ListSeason(listed=False, description="Akşamcılar"))
    assert events == [ev.SeasonListed(listed=False, description="Akşamcılar")]
    assert (state.listed, state.description) == (False, "Akşamcılar")
    bad = rejected(created(), c.ListSeason(description="a\u202eb"))
    assert (bad.code, bad.details["field"]) == ("invalid_body", "$.description")
    assert rejected(created(), c.ListSeason(description="x" * 281)).code == "invalid_body"
    trial = fold(apply(SeasonState(), c.CreateSeason(season_id="t", seed=1))[1])
    assert rejected(trial, c.ListSeason(listed=False)).code == "not_allowed_in_mode"


def test_r15_2_ops_reset_a_lobby_description_with_a_reason_as_an_event() -> None:
    """R-15.2, ADR-105: an insulting lobby description is reset by ops as a name is: a
    `season_listed.v1` by ops with the reason and instant; the season stays unlisted (or
    listed) and has no description; a reset needs a reason, a live season and a description."""
    state, _ = apply(created(), c.ListSeason(listed=False, description="Kaba söz"))
    later = NOW + timedelta(hours=1)
    reset = c.ResetDescription(reason="hakaret", at=later)
    assert rejected(state, c.ResetDescription(reason=" ", at=later)).code == "reason_required"
    state, events = apply(state, reset)
    assert events == [ev.SeasonListed(listed=False, by="ops", reason="hakaret", at=later)]
    assert (state.listed, state.description) == (False, None)
    assert rejected(state, reset).code == "no_description"
    trial = fold(apply(SeasonState(), c.CreateSeason(season_id="t", seed=1))[1])
    assert rejected(trial, reset).code == "not_allowed_in_mode"
    decoded = [codec.decode_stored(codec.encode(e), codec.event_type(e)) for e in events]
    assert decoded == events


def test_a_creators_season_listed_event_keeps_its_bytes() -> None:
    """ADR-105: `by`, `reason` and `at` are additive with defaults left out, so a creator's
    `season_listed.v1` stored before them decodes, and encodes, as it was."""
    stored = b'{"description":"Ak\xc5\x9famc\xc4\xb1lar","listed":false,"type":"season_listed.v1"}'
    event = codec.decode_stored(stored, "season_listed.v1")
    assert event == ev.SeasonListed(listed=False, description="Akşamcılar", by="creator")
    assert codec.encode(event) == stored
