"""Routes of webhooks, push subscriptions and the push key (issue 25); the use cases are in
services/command/notify_receivers.py."""

from __future__ import annotations

from typing import Any

from litestar import Request, delete, get, post

from services.command import notify_receivers as rx
from services.command.notify_schemas import (
    DeletedOut,
    PushKeyOut,
    PushSubscriptionIn,
    PushSubscriptionOut,
    PushSubscriptionsOut,
    SecretOut,
    WebhookCreatedOut,
    WebhookIn,
    WebhooksOut,
)
from services.command.service import Services
from shared.app.access import request_auth as auth
from shared.app.http.openapi import BEARER, BEY_AUTH, BODY, EVERY, RATE, STORE, answers

OWNED = (EVERY, RATE, BEY_AUTH, STORE)
ADD = (*OWNED, BODY, "receiver_refused", "receivers_full", "wrong_phase", "season_cancelled")
ONE = (*OWNED, "receiver_not_found", "not_found")  # not_found: a NUL in a path id


@post(
    "/seasons/{season_id:str}/webhooks",
    status_code=201,
    summary="Register a webhook (the season admin's: public events; a bey's: its own too)",
    responses=answers(*ADD),
    security=BEARER,
)
async def add_webhook(
    services: Services, season_id: str, data: WebhookIn, request: Request[Any, Any, Any]
) -> WebhookCreatedOut:
    """Deliveries are signed: `Seksenbir-Signature: t=<unix>,v1=<hex HMAC-SHA256(secret,
    "<t>.<body>")>`, with `Seksenbir-Delivery: <id>` the same on every retry. The secret is in
    this answer only."""
    claim = auth.BeyClaim.of(request, season_id, services.staff)
    return await rx.add_webhook(services, season_id, claim, auth.bearer(request), data)


@get(
    "/seasons/{season_id:str}/webhooks",
    summary="The caller's webhooks of a season, URLs masked, no secrets",
    responses=answers(*OWNED),
    security=BEARER,
)
async def list_webhooks(
    services: Services, season_id: str, request: Request[Any, Any, Any]
) -> WebhooksOut:
    claim = auth.BeyClaim.of(request, season_id, services.staff)
    return await rx.list_webhooks(services, season_id, claim, auth.bearer(request))


@delete(
    "/seasons/{season_id:str}/webhooks/{webhook_id:str}",
    status_code=200,
    summary="Delete one of the caller's webhooks",
    responses=answers(*ONE),
    security=BEARER,
)
async def delete_webhook(
    services: Services, season_id: str, webhook_id: str, request: Request[Any, Any, Any]
) -> DeletedOut:
    rx.possible_id(webhook_id, "wh")
    claim = auth.BeyClaim.of(request, season_id, services.staff)
    await rx.delete_webhook(services, season_id, claim, auth.bearer(request), webhook_id)
    return DeletedOut(webhook_id)


@post(
    "/seasons/{season_id:str}/webhooks/{webhook_id:str}/rotate",
    status_code=200,
    summary="A new secret for one of the caller's webhooks (shown once)",
    responses=answers(*ONE),
    security=BEARER,
)
async def rotate_webhook(
    services: Services, season_id: str, webhook_id: str, request: Request[Any, Any, Any]
) -> SecretOut:
    rx.possible_id(webhook_id, "wh")
    claim = auth.BeyClaim.of(request, season_id, services.staff)
    return await rx.rotate_webhook(services, season_id, claim, auth.bearer(request), webhook_id)


@get(
    "/push/key",
    summary="The server's VAPID public key for Web Push",
    responses=answers(EVERY, RATE),
)
async def push_key(services: Services) -> PushKeyOut:
    return PushKeyOut(services.receivers.push_key)


@post(
    "/seasons/{season_id:str}/push-subscriptions",
    status_code=201,
    summary="Subscribe this device of a bey to Web Push notifications",
    responses=answers(*ADD),
    security=BEARER,
)
async def add_push_subscription(
    services: Services, season_id: str, data: PushSubscriptionIn, request: Request[Any, Any, Any]
) -> PushSubscriptionOut:
    """The browser's PushSubscription as it is (`endpoint`, `keys.p256dh`, `keys.auth`); the
    same endpoint again replaces its subscription. Deleted when the push service says it is
    gone (404/410) and when the season ends."""
    claim = auth.BeyClaim.of(request, season_id, services.staff)
    return await rx.add_subscription(services, season_id, claim, data)


@get(
    "/seasons/{season_id:str}/push-subscriptions",
    summary="The bey's push subscriptions (endpoints masked)",
    responses=answers(*OWNED),
    security=BEARER,
)
async def list_push_subscriptions(
    services: Services, season_id: str, request: Request[Any, Any, Any]
) -> PushSubscriptionsOut:
    claim = auth.BeyClaim.of(request, season_id, services.staff)
    return await rx.list_subscriptions(services, season_id, claim)


@delete(
    "/seasons/{season_id:str}/push-subscriptions/{subscription_id:str}",
    status_code=200,
    summary="Delete one of the bey's push subscriptions",
    responses=answers(*ONE),
    security=BEARER,
)
async def delete_push_subscription(
    services: Services, season_id: str, subscription_id: str, request: Request[Any, Any, Any]
) -> DeletedOut:
    rx.possible_id(subscription_id, "ps")
    claim = auth.BeyClaim.of(request, season_id, services.staff)
    await rx.delete_subscription(services, season_id, claim, subscription_id)
    return DeletedOut(subscription_id)


NOTIFY_ROUTES: list[Any] = [
    add_webhook,
    list_webhooks,
    delete_webhook,
    rotate_webhook,
    push_key,
    add_push_subscription,
    list_push_subscriptions,
    delete_push_subscription,
]
