"""A fork's origin as both APIs show it (issue 13, D-32): the season and Divan it came from."""

from __future__ import annotations

import msgspec

from shared.domain.state import SeasonState


class ForkedFrom(msgspec.Struct, frozen=True):
    """The season a fork was started from and the Divan whose resulting state it took (D-32);
    `forked_from` is null for a season that is not a fork."""

    season_id: str
    divan: int


def forked_from(state: SeasonState) -> ForkedFrom | None:
    origin = state.forked_from
    return None if origin is None else ForkedFrom(origin.season_id, origin.divan)
