"""A working board's values derived from the owners (province counts, region counts and titles)
are those of the owners as they are when read: a change of owner between two reads is seen
(issue 27: they are kept while the owners are unchanged, not keyed by a tuple of them)."""

from __future__ import annotations

from shared.domain.board import Board
from shared.domain.map import game_map
from shared.domain.scoring import region_counts, region_titles, scores
from shared.domain.state import Bey, Province, SeasonState

GM = game_map()


def board(owners: dict[int, int]) -> Board:
    state = SeasonState(
        divan=3,
        beys=(Bey(seat=1, memleket=6), Bey(seat=2, memleket=34)),
        provinces=tuple(
            Province(owner=owners[p], units=3) if p in owners else Province(units=GM.full_milis[p])
            for p in range(1, 82)
        ),
    )
    return Board.of(state, 4)


def derived(b: Board) -> tuple[object, ...]:
    return (b.province_counts(), region_counts(b), region_titles(b), scores(b))


def test_counts_and_titles_follow_a_change_of_owner_between_two_reads() -> None:
    region = GM.region_at[6]
    plates = GM.region_plates[region]
    b = board({6: 1, 34: 2})
    assert b.province_counts() == {1: 1, 2: 1}
    assert region not in region_titles(b)
    for p in plates:  # bey 1 takes its whole region: Hakimi
        b.take(p, 1, 2)
    b.take(34, 1, 2)
    assert derived(b) == derived(board(dict.fromkeys((*plates, 34), 1)))
    assert b.province_counts() == {1: len(plates) + 1, 2: 0}
    assert region_titles(b)[region] == (1, "hakimi")
    b.set_unowned(34, 4)  # back and forth: each read is of the owners then
    assert derived(b) == derived(board(dict.fromkeys(plates, 1)))
