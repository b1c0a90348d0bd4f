"""The notifier: follows the seasons that have receivers, after their events are stored
(issue 25, ADR-99). It reads the event log (never writes it), turns new events into notices
(services/notify/notices.py) and deadline warnings, and hands them to the notifications
queue (`send`): nothing here waits for a receiver, and no Divan, command or read waits for it.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

import structlog

from services.notify.delivery import Delivery, delivery_id
from services.notify.notices import KURULTAY, Notice, notices, warning, warning_due
from shared.app.messaging.notify_store import NotifyStore
from shared.domain.codec import decode_stored
from shared.domain.evolve import evolve
from shared.domain.state import SeasonState
from shared.eventstore import EventStore

log = structlog.get_logger(__name__)
Send = Callable[[list[Delivery]], None]


class Follower:
    def __init__(
        self, store: EventStore, notify: NotifyStore, send: Send, clock: Callable[[], datetime]
    ) -> None:
        self._store = store
        self._notify = notify
        self._send = send
        self._clock = clock
        self._states: dict[str, tuple[int, SeasonState]] = {}

    async def sweep(self) -> None:
        """Every followed season: its new events' notices, then its due warnings."""
        for season_id, cursor in (await self._notify.cursors()).items():
            try:
                await self.catch_up(season_id, cursor)
            except Exception:
                log.exception("notify.season_failed", season_id=season_id)

    async def catch_up(self, season_id: str, cursor: int) -> None:
        version, state = self._states.get(season_id, (0, SeasonState()))
        fresh: list[Notice] = []
        for e in await self._store.read_stream(season_id, version):
            event = decode_stored(e.data, e.type)
            state = evolve(state, event)
            version = e.version
            if e.version > cursor:
                fresh.extend(notices(season_id, e.version, event, state))
        self._states[season_id] = (version, state)
        await self._deliver(season_id, fresh)
        await self._warn(season_id, state)
        if state.phase == "over" or state.cancelled:  # device data kept no longer than it serves
            await self._notify.drop_season(season_id)
            await self._notify.set_cursor(season_id, None)
            self._states.pop(season_id, None)
        elif version > cursor:
            await self._notify.set_cursor(season_id, version)

    async def _warn(self, season_id: str, state: SeasonState) -> None:
        now = self._clock()
        due: list[Notice] = []
        targets: list[str] = []
        for sub in await self._notify.subscriptions(season_id):
            n = warning_due(state, sub.seat, sub.lead_seconds, sub.always, now)
            if n is None or state.calendar is None:
                continue
            if await self._notify.first_warning(season_id, sub.subscription_id, n):
                at = state.calendar.kurultay_closes_at if n == KURULTAY else state.calendar.at(n)
                due.append(warning(season_id, sub.seat, n, at))
                targets.append(sub.subscription_id)
        out = [_delivery(season_id, notice, t) for notice, t in zip(due, targets, strict=True)]
        if out:
            self._send(out)

    async def _deliver(self, season_id: str, fresh: list[Notice]) -> None:
        if not fresh:
            return
        hooks = await self._notify.webhooks(season_id)
        subs = await self._notify.subscriptions(season_id)
        out = []
        for notice in fresh:
            for hook in hooks:
                if notice.seat is None or hook.seat == notice.seat:
                    out.append(_delivery(season_id, notice, hook.webhook_id))
            for sub in subs:
                if notice.seat is None or sub.seat == notice.seat:
                    out.append(_delivery(season_id, notice, sub.subscription_id))
        if out:
            self._send(out)


def _delivery(season_id: str, notice: Notice, target: str) -> Delivery:
    return Delivery(
        delivery_id=delivery_id(notice.key, target),
        season_id=season_id,
        target=target,
        event=notice.event,
        data=notice.data,
        texts=notice.texts,
    )
