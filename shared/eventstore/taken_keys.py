"""What a taken idempotency key holds, as a request sees it (below the errors and the model)."""

from __future__ import annotations

import msgspec


class Replay(msgspec.Struct, frozen=True):
    """The key was completed with this same request: answer with the first response."""

    status: int
    body: bytes


class Mismatch(msgspec.Struct, frozen=True):
    """The key was used with a different request body (HTTP 422)."""


class InProgress(msgspec.Struct, frozen=True):
    """The key's row is `in_progress` (HTTP 409). Nothing writes such rows since the two-step
    begin/complete protocol was removed; rows a deployment from before left behind still read
    so, until the scheduler's purge deletes them."""


Found = Replay | Mismatch | InProgress  # what a taken key holds, seen by this request
