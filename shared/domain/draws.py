"""Where each Divan's random outcomes come from: the season seed, or pins (R-12, SCENARIO.md)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property

from shared.domain import rng
from shared.domain.state import NewsCard


@dataclass(frozen=True, slots=True)
class NewsDraw:
    """A revealed card and its target (a province or a seat; None: nothing qualified)."""

    card: NewsCard
    target: int | None


_LIMIT_3 = rng.limit(3)  # the fate die's rejection bound
# A die's first attempt's key bytes for every plate and side, encoded once (an int formatted,
# joined and encoded per die was a third of its instructions, issue 27).
_FATE_KEYS = {
    (plate, side): f"{plate}\x1f{side}\x1f0".encode()
    for plate in range(82)
    for side in ("attack", "defence")
}
_FROM_BYTES = int.from_bytes  # bound once: no class attribute lookup per die


class Draws:
    """Keyed draws from the season seed for one Divan (R-12.1)."""

    def __init__(self, seed: int, divan: int, deck: Sequence[NewsCard] = ()) -> None:
        self.seed = seed
        self.divan = divan
        self.deck = tuple(deck)

    @cached_property
    def _fate(self) -> rng.Stream:
        return rng.Stream(self.seed, self.divan, "fate")

    def fate(self, target: int, side: str) -> int:
        """R-5.4: the fate die, uniform in {0, 1, 2}, keyed ("fate", divan, T, side)."""
        # The first attempt inline, the key's bytes as `Stream.uniform_int` builds them (one
        # f-string, no call, no limit computed per draw: about a quarter of a die's instructions,
        # issue 12); a rejected first draw (p = 2^-64) takes the general path from attempt 0.
        h = self._fate.prefix.copy()
        try:
            h.update(_FATE_KEYS[target, side])
        except KeyError:  # not a plate, or another side: the same bytes, encoded here
            h.update(f"{target}\x1f{side}\x1f0".encode())
        value = _FROM_BYTES(h.digest(), "big")
        if value < _LIMIT_3:
            return value % 3
        return self._fate.uniform_int(3, f"{target}\x1f{side}")

    def rebellion(self, seat: int, percent: int) -> bool:
        """R-9.3."""
        return rng.chance_of(self.seed, self.divan, "rebellion", percent, str(seat))

    def offer(self, frm: int, to: int, percent: int) -> bool:
        """R-6.3: a computer bey's answer."""
        return rng.chance_of(self.seed, self.divan, "offer", percent, f"{frm}-{to}")

    def news_card(self) -> NewsCard | None:
        """R-8.1: Divan k ≥ 2 reveals card k − 1 of the shuffled deck."""
        index = self.divan - 2
        return self.deck[index] if 0 <= index < len(self.deck) else None

    def news_target(self, card: NewsCard, candidates: Sequence[int]) -> int | None:
        """R-8.1: a target among candidates sorted by plate or seat."""
        return rng.choose(self.seed, self.divan, "news", candidates, card.card)


@dataclass
class PinnedDraws(Draws):
    """Draws pinned by a scenario; anything not pinned falls back to the seed."""

    seed: int = 0
    divan: int = 0
    news: NewsDraw | None = None
    fates: dict[int, dict[str, int]] = field(default_factory=dict)
    rebellions: dict[int, bool] = field(default_factory=dict)
    offers: dict[str, bool] = field(default_factory=dict)
    deck: tuple[NewsCard, ...] = ()

    def fate(self, target: int, side: str) -> int:
        pinned = self.fates.get(target, {})
        return pinned[side] if side in pinned else super().fate(target, side)

    def rebellion(self, seat: int, percent: int) -> bool:
        return (
            self.rebellions[seat] if seat in self.rebellions else super().rebellion(seat, percent)
        )

    def offer(self, frm: int, to: int, percent: int) -> bool:
        key = f"{frm}-{to}"
        return self.offers[key] if key in self.offers else super().offer(frm, to, percent)

    def news_card(self) -> NewsCard | None:
        return self.news.card if self.news else None

    def news_target(self, card: NewsCard, candidates: Sequence[int]) -> int | None:
        return self.news.target if self.news else None


class PinnedFates(Draws):
    """The season's own draws with some fate dice pinned (an ops what-if, issue 13): every other
    draw — news, offers, rebellions, the dice not pinned — is the seed's (R-12.1)."""

    def __init__(
        self,
        seed: int,
        divan: int,
        deck: Sequence[NewsCard],
        fates: dict[int, dict[str, int]],
    ) -> None:
        super().__init__(seed, divan, deck)
        self.fates = fates

    def fate(self, target: int, side: str) -> int:
        pinned = self.fates.get(target, {})
        return pinned[side] if side in pinned else super().fate(target, side)
