"""The chat's routes (issue 24, R-15): a bey's messages, channels, marker, reports and mutes;
ops' reports and hides; the moderation acts for auditors. Each maps HTTP onto
services/command/chat_commands.py."""

from __future__ import annotations

from typing import Annotated, Any

from litestar import Request, get, post
from litestar.params import Parameter

from services.command import chat_commands, chat_keyed
from services.command.chat_schemas import (
    ActsOut,
    ChannelsOut,
    ChatReportsOut,
    HiddenOut,
    HideIn,
    MessageIn,
    MessageOut,
    MessagesOut,
    MuteIn,
    MuteOut,
    ReadIn,
    ReadOut,
    ReportIn,
    ReportOut,
)
from services.command.request_context import context, ops_guard, staff_guard
from services.command.route_parts import Key
from services.command.service import Services
from shared.app.access import ops_audit, request_auth
from shared.app.access.request_auth import BeyClaim
from shared.app.http.bounds import JSON_SAFE_INTEGER, MessagePath, SeatPath
from shared.app.http.openapi import (
    BEARER,
    BEY_AUTH,
    BODY,
    EVERY,
    KEY,
    OPS_READ,
    PATH,
    RATE,
    STAFF_AUTH,
    STORE,
    answers,
)
from shared.domain import chat

SEND = ("chat_closed", "press_restricted", "chat_read_only", "computer_bey", "bad_recipients")
AUDIT_COPY = "audit_copy"  # an imported audit copy takes no chat either (ADR-58, ADR-118)
TEXT = ("chat_text", "chat_rate_limited")
# a hide's reason: refused as a report's, but a blank one is a reason missing (ADR-165)
HIDE = ("message_not_found", "chat_text", "reason_required", AUDIT_COPY)
ChannelPath = Annotated[
    str,
    Parameter(
        description="`all`, `pair-a-b` or `group-a-b-c…` (sorted seats); a channel the bey is "
        "not a member of is 404 `channel_not_found`",
        max_length=80,
    ),
]


@post(
    "/seasons/{season_id:str}/messages",
    status_code=201,
    summary="Send a message (R-15)",
    responses=answers(EVERY, RATE, BEY_AUTH, STORE, BODY, KEY, SEND, TEXT, AUDIT_COPY),
    security=BEARER,
)
async def send_message(
    request: Request[Any, Any, Any],
    services: Services,
    claim: BeyClaim,
    data: MessageIn,
    idempotency_key: Key = None,
) -> MessageOut:
    """To `"all"` (the public channel) or to a list of seats (the sender is added): two beys
    are a private channel, more a group (at most 19). Plain text, kept inert everywhere.
    With an Idempotency-Key, a copy of the request answers the first message (ADR-175)."""
    if idempotency_key is None:
        return await chat_commands.send(services, claim, data)
    ctx = await context(request, claim.season_id, services)
    return await chat_keyed.keyed(
        services, ctx, lambda idem: chat_commands.send(services, claim, data, idem)
    )


@get(
    "/seasons/{season_id:str}/channels",
    summary="The calling bey's channels and unread counts (R-15.3)",
    responses=answers(EVERY, RATE, BEY_AUTH, STORE),
    security=BEARER,
)
async def list_channels(services: Services, claim: BeyClaim) -> ChannelsOut:
    return await chat_commands.channels(services, claim)


@get(
    "/seasons/{season_id:str}/channels/{channel_id:str}/messages",
    summary="A page of a channel, newest first (R-15.3)",
    responses=answers(
        EVERY, RATE, BEY_AUTH, STORE, "channel_not_found", "not_found", "invalid_parameter"
    ),
    security=BEARER,
)
async def channel_messages(
    services: Services,
    claim: BeyClaim,
    channel_id: ChannelPath,
    before: Annotated[
        int | None,
        Parameter(ge=1, le=JSON_SAFE_INTEGER, description="older than this message id"),
    ] = None,
    limit: Annotated[int, Parameter(ge=1, le=chat.PAGE_MAX, description="at most this many")] = 50,
) -> MessagesOut:
    """Messages and, in a private channel, system lines (a treaty between its two beys
    offered, made, ended or broken). A muted bey's messages are left out."""
    return await chat_commands.messages(services, claim, channel_id, before, limit)


@post(
    "/seasons/{season_id:str}/channels/{channel_id:str}/read",
    status_code=200,
    summary="Move one's last-read marker of a channel",
    responses=answers(
        EVERY, RATE, BEY_AUTH, STORE, BODY, "channel_not_found", "not_found", AUDIT_COPY
    ),
    security=BEARER,
)
async def mark_read(
    services: Services, claim: BeyClaim, channel_id: ChannelPath, data: ReadIn
) -> ReadOut:
    """Kept durably in the event store's database; it only moves forward."""
    return await chat_commands.read(services, claim, channel_id, data)


@post(
    "/seasons/{season_id:str}/messages/{message_id:int}/report",
    status_code=201,
    summary="Report a message to ops (R-15.2)",
    responses=answers(
        EVERY, RATE, BEY_AUTH, STORE, BODY, PATH, "message_not_found", "chat_text", AUDIT_COPY
    ),
    security=BEARER,
)
async def report_message(
    services: Services, claim: BeyClaim, message_id: MessagePath, data: ReportIn
) -> ReportOut:
    return await chat_commands.report(services, claim, message_id, data)


@post(
    "/seasons/{season_id:str}/mutes/{seat:int}",
    status_code=200,
    summary="Mute or unmute another bey for oneself",
    responses=answers(EVERY, RATE, BEY_AUTH, STORE, BODY, PATH, "bad_recipients", AUDIT_COPY),
    security=BEARER,
)
async def mute_bey(services: Services, claim: BeyClaim, seat: SeatPath, data: MuteIn) -> MuteOut:
    return await chat_commands.mute(services, claim, seat, data)


@get(
    "/seasons/{season_id:str}/chat/reports",
    summary="Ops: reported messages with their context (R-15.2)",
    responses=answers(EVERY, RATE, STAFF_AUTH, STORE, OPS_READ),
    security=BEARER,
    guards=[ops_guard],
)
async def chat_reports(
    services: Services, season_id: str, request: Request[Any, Any, Any]
) -> ChatReportsOut:
    """Texts of private channels: an ops read of secret data, recorded first (ADR-53)."""
    out = await chat_commands.reports(services, season_id)
    await ops_audit.record_ops_read(services.seasons.store.ops_reads, request, season_id, "chat")
    return out


@post(
    "/seasons/{season_id:str}/messages/{message_id:int}/hide",
    status_code=200,
    summary="Ops: hide a message with a reason, optionally erasing its text (R-15.2)",
    responses=answers(EVERY, RATE, STAFF_AUTH, STORE, BODY, PATH, *HIDE),
    security=BEARER,
    guards=[ops_guard],
)
async def hide_message(
    services: Services,
    season_id: str,
    message_id: MessagePath,
    data: HideIn,
    request: Request[Any, Any, Any],
) -> HiddenOut:
    """An event with its reason: the channel shows "hidden by moderation"; nothing leaves the
    log. `erase_text` erases the text kept beside the event (its digest stays: ADR-92)."""
    by = ops_audit.fingerprint(request_auth.bearer(request))
    return await chat_commands.hide(services, season_id, message_id, data, by)


@get(
    "/seasons/{season_id:str}/audit/chat-acts",
    summary="Auditor or ops: the season's moderation acts, never a text (R-15.2)",
    responses=answers(EVERY, RATE, STAFF_AUTH, STORE),
    security=BEARER,
    guards=[staff_guard],
)
async def chat_acts(services: Services, season_id: str) -> ActsOut:
    return await chat_commands.acts(services, season_id)


# before the bey routes in the document (services/command/routes.py): a walk of the route table
# reaches them before a bey's token rotation
CHAT_ROUTES: list[Any] = [
    send_message,
    list_channels,
    channel_messages,
    mark_read,
    report_message,
    mute_bey,
    chat_reports,
    hide_message,
    chat_acts,
]
