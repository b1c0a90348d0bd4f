"""Divan step 2: offers settled, treaties made, renewed or dissolved (R-6.1 … R-6.3, R-6.6)."""

from __future__ import annotations

from collections.abc import Sequence

from shared.domain.board import Board
from shared.domain.draws import Draws
from shared.domain.events import Event, OfferSettled, TreatiesDissolved, TreatyExpired
from shared.domain.state import LAST_TREATY_DIVAN, Offer, Treaty, perde

DURATION = {"pact": 2, "alliance": 4}
ACCEPT_PERCENT = {"pact": 65, "alliance": 50}


def through(divan: int, kind: str) -> int:
    """R-6.2: e = min(k + d − 1, 12)."""
    end = divan + DURATION[kind] - 1
    return end if end < LAST_TREATY_DIVAN else LAST_TREATY_DIVAN


def settle_offers(board: Board, offers: Sequence[Offer], draws: Draws) -> list[Event]:
    """R-6.1: answers take effect in ascending (offerer, receiver) order; R-6.6 in perde 3."""
    events: list[Event] = []
    if perde(board.divan) == 3:
        if board.treaties:
            events.append(
                TreatiesDissolved(divan=board.divan, treaties=tuple(board.treaties.values()))
            )
            board.treaties.clear()
        events.extend(
            OfferSettled(divan=board.divan, offer=o, outcome="ignored")
            for o in sorted(offers, key=lambda o: (o.frm, o.to))
        )
        return events
    for o in sorted(offers, key=lambda o: (o.frm, o.to)):
        if o.frm not in board.beys or o.to not in board.beys:
            continue
        events.append(_settle(board, o, draws))
    return events


def _settle(board: Board, o: Offer, draws: Draws) -> OfferSettled:
    pair = o.pair()
    if o.kind == "pact" and board.allied(*pair):
        return OfferSettled(divan=board.divan, offer=o, outcome="ignored")
    if o.answer is not None:  # an explicit answer is the answer, a computer bey's too
        accepted = o.answer == "accept"
    elif board.beys[o.to].computer:  # only an unanswered computer bey draws
        accepted = draws.offer(o.frm, o.to, ACCEPT_PERCENT[o.kind])
    else:
        return OfferSettled(divan=board.divan, offer=o, outcome="expired")
    if not accepted:
        return OfferSettled(divan=board.divan, offer=o, outcome="rejected")
    treaty = Treaty(o.kind, pair[0], pair[1], through(board.divan, o.kind))
    board.treaties[pair] = treaty
    return OfferSettled(divan=board.divan, offer=o, outcome="accepted", treaty=treaty)


def expire_treaties(board: Board) -> list[Event]:
    """R-6.2: a treaty in force through Divan e ends after Divan e."""
    events: list[Event] = []
    for pair, t in sorted(board.treaties.items()):
        if t.through_divan <= board.divan:
            del board.treaties[pair]
            events.append(TreatyExpired(divan=board.divan, treaty=t))
    return events
