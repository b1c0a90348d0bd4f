"""R-5.2: a seat's bloc is the lowest seat of its alliance component; pacts make no bloc.
`blocs`' union-find holds only the seats that are not their component's root (issue 27): held
here to a plain search of the alliance graph over generated treaty sets."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from shared.domain.board import Board
from shared.domain.map import game_map
from shared.domain.rules.orders import blocs
from shared.domain.state import Bey, Province, SeasonState, Treaty

GM = game_map()


def board(seats: int, treaties: list[Treaty]) -> Board:
    state = SeasonState(
        divan=3,
        beys=tuple(Bey(seat=s, memleket=s) for s in range(1, seats + 1)),
        provinces=tuple(Province(units=GM.full_milis[p]) for p in range(1, 82)),
        treaties=tuple(treaties),
    )
    return Board.of(state, 4)


def by_search(seats: int, treaties: list[Treaty]) -> dict[int, int]:
    links: dict[int, set[int]] = {s: set() for s in range(1, seats + 1)}
    for t in treaties:
        if t.kind == "alliance":
            links[t.a].add(t.b)
            links[t.b].add(t.a)
    out: dict[int, int] = {}
    for s in links:
        seen, todo = {s}, [s]
        while todo:
            for n in links[todo.pop()] - seen:
                seen.add(n)
                todo.append(n)
        out[s] = min(seen)
    return out


treaty_sets = st.integers(2, 19).flatmap(
    lambda seats: st.tuples(
        st.just(seats),
        st.lists(
            st.tuples(
                st.sampled_from(("alliance", "pact")),
                st.integers(1, seats - 1).flatmap(
                    lambda a: st.tuples(st.just(a), st.integers(a + 1, seats))
                ),
            ),
            max_size=12,
            unique_by=lambda t: t[1],
        ),
    )
)


@settings(max_examples=300, deadline=None)
@given(treaty_sets)
def test_r5_2_a_seats_bloc_is_the_lowest_seat_of_its_alliance_component(
    drawn: tuple[int, list[tuple[str, tuple[int, int]]]],
) -> None:
    seats, given_treaties = drawn
    treaties = [Treaty(kind, a, b, 9) for kind, (a, b) in given_treaties]  # type: ignore[arg-type]
    got = blocs(board(seats, treaties))
    assert got == by_search(seats, treaties)
    assert list(got) == list(range(1, seats + 1))  # every seat, in seat order


def test_r5_2_a_chain_of_alliances_given_from_its_top_is_one_bloc() -> None:
    treaties = [Treaty("alliance", a, a + 1, 9) for a in range(18, 0, -1)]
    assert set(blocs(board(19, treaties)).values()) == {1}
