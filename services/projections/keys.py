"""Redis key builders: one hash tag per season, so a Redis Cluster keeps a season on one slot."""

from __future__ import annotations


class Keys:
    """Keys of one season's projection generation (`gen`), under a deployment prefix."""

    def __init__(self, prefix: str, season_id: str, gen: int) -> None:
        self.prefix = prefix
        self.season_id = season_id
        self.gen = gen
        self.base = f"{prefix}:{{s:{season_id}}}:g{gen}"

    @staticmethod
    def active(prefix: str, season_id: str) -> str:
        """The generation readers and the projector use (switched atomically by a rebuild)."""
        return f"{prefix}:{{s:{season_id}}}:active"

    @staticmethod
    def building(prefix: str, season_id: str) -> str:
        """Set while a rebuild of the season runs (readers answer 503 if nothing is active)."""
        return f"{prefix}:{{s:{season_id}}}:building"

    def __getattr__(self, name: str) -> str:
        return f"{self.base}:{name}"

    def private(self, seat: int) -> str:
        return f"{self.base}:private:{seat}"

    def reports_private(self, seat: int) -> str:
        return f"{self.base}:reports:{seat}"

    def battles(self, divan: int) -> str:
        return f"{self.base}:battles:{divan}"

    def orders(self, divan: int) -> str:
        return f"{self.base}:orders:{divan}"


def swept(prefix: str) -> str:
    """Set by every completed sweep: the read side is initialised (absent after a wipe)."""
    return f"{prefix}:swept"


def seasons_index(prefix: str) -> str:
    """All projected seasons (a sorted set by creation order)."""
    return f"{prefix}:seasons"


def board(prefix: str, name: str) -> str:
    """Cross-season leaderboards."""
    return f"{prefix}:boards:{name}"


def han_memleket(prefix: str, plate: int) -> str:
    """The seasons whose Han's memleket is `plate` (0: no Han), one sorted set per plate."""
    return f"{board(prefix, 'han_memleket')}:{plate}"


def channel(prefix: str, season_id: str, seat: int | None = None) -> str:
    """Pub/sub channel announcing a season's news (and one per bey for its private part)."""
    return f"{prefix}:events:{season_id}" + (f":{seat}" if seat is not None else "")
