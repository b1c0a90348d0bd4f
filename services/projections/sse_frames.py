"""An event stream's response, served on the event loop alone (issue 27, ADR-129)."""

from __future__ import annotations

from collections.abc import AsyncIterator

from litestar.background_tasks import BackgroundTask
from litestar.response import ServerSentEvent, ServerSentEventMessage

from services.projections.streams import Subscription


async def give_back(sub: Subscription) -> None:
    """`sub.release` as the response's background task, on the event loop: Litestar sends a
    synchronous task to the executor's thread, from where it changed the hub's sets and put on
    its asyncio queue (the loop's objects, not thread-safe), one more thread hop per stream."""
    sub.release()


class Frames(ServerSentEvent):
    """Litestar's ServerSentEvent (its status, headers and media type), its frames encoded on
    the event loop as they come (issue 27, ADR-129).

    Litestar's own iterator first reads its leading chunks (none here: no comment, id, event or
    retry of the response's own) through `sync_to_thread`: every stream opened handed a call to
    the default executor's thread and woke the loop back from it, two thread switches and two
    takes of the GIL from the loop, for nothing (bench.season_flood: a flood opening 10-15
    streams a second). The frames are the same bytes: `ServerSentEventMessage.encode`, as its
    iterator encodes a message."""

    def __init__(
        self,
        frames: AsyncIterator[ServerSentEventMessage],
        *,
        background: BackgroundTask | None = None,
    ) -> None:
        super().__init__(frames, background=background)
        self.iterator = _encoded(frames)


async def _encoded(frames: AsyncIterator[ServerSentEventMessage]) -> AsyncIterator[bytes]:
    async for frame in frames:
        yield frame.encode()
