"""Divan step 1: the news card and its effect (R-8)."""

from __future__ import annotations

from shared.domain.board import Board
from shared.domain.draws import Draws
from shared.domain.events import GoldDelta, NewsRevealed
from shared.domain.map import MAX_UNITS
from shared.domain.state import DIVANS, NewsCard

ISYAN_MILIS = 2
SEYYAH_UNITS = 2
SEYYAH_GOLD = 2


def candidates(board: Board, card: NewsCard) -> list[int]:
    """R-8.2: who may be hit, from the state before step 1, sorted by plate or seat (R-12.2)."""
    gm = board.gm
    if card.card == "yerel_isyan":
        return [
            p
            for p in range(1, 82)
            if (o := board.owner[p]) is not None
            and board.units[p] == 1
            and gm.distance(p, board.beys[o].memleket) >= 3
        ]
    if card.card == "seyyah_tuccar":
        return [s for s in sorted(board.beys) if board.holds_memleket(s)]
    if card.card == "deprem":
        memlekets = {b.memleket for b in board.beys.values()}
        return [
            p
            for p in range(1, 82)
            if board.owner[p] is not None and p not in memlekets and board.units[p] >= 2
        ]
    return []


def reveal(board: Board, draws: Draws) -> tuple[NewsRevealed, NewsCard | None, bool]:
    """Apply the card; answers the event, the card (for production) and the next ceasefire."""
    card = draws.news_card() if board.divan >= 2 else None
    if card is None:
        return NewsRevealed(divan=board.divan, card=None), None, False
    before = board.snapshot()
    gold: list[GoldDelta] = []
    target = None
    if card.card in ("yerel_isyan", "seyyah_tuccar", "deprem"):
        target = draws.news_target(card, candidates(board, card))
    if card.card == "yerel_isyan" and target is not None:
        board.set_unowned(target, ISYAN_MILIS)
    elif card.card == "seyyah_tuccar" and target is not None:
        memleket = board.beys[target].memleket
        board.units[memleket] = min(MAX_UNITS, board.units[memleket] + SEYYAH_UNITS)
        board.add_gold(target, SEYYAH_GOLD, "seyyah", gold)
    elif card.card == "deprem" and target is not None:
        board.units[target] -= board.units[target] // 2
    ceasefire_next = card.card == "bayram" and board.divan < DIVANS
    is_seat = card.card == "seyyah_tuccar"
    event = NewsRevealed(
        divan=board.divan,
        card=card,
        province=None if is_seat else target,
        seat=target if is_seat else None,
        changes=board.changes_since(before),
        gold=tuple(gold),
    )
    return event, card, ceasefire_next
