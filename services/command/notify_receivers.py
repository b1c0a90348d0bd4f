"""Webhooks and push subscriptions of a season (issue 25, ADR-98): registered, listed, deleted
and rotated by their owner, the season admin (public events) or a bey (its own). Kept in the
notify store, never in the event log; a URL is shown masked and a secret once."""

from __future__ import annotations

import re

import msgspec

from services.command.notify_schemas import (
    PushSubscriptionIn,
    PushSubscriptionOut,
    PushSubscriptionsOut,
    SecretOut,
    WebhookCreatedOut,
    WebhookIn,
    WebhookOut,
    WebhooksOut,
)
from services.command.service import Services, load, seat_of
from shared.app.access import tokens
from shared.app.access.request_auth import BeyClaim
from shared.app.http.problems import Problem
from shared.app.messaging import outbound, webhooks
from shared.app.messaging.notify_store import PushSubscription, Webhook, new_id
from shared.domain.state import SeasonState

MAX_PER_OWNER = 10  # webhooks, and push subscriptions (devices), per owner and season
ID_SHAPE = re.compile(r"[A-Za-z0-9_-]{1,40}")


def possible_id(value: str, prefix: str) -> None:
    """404 receiver_not_found at once, before any token check, for an id the server never
    makes (as a season id no season can have, ADR-74): nothing is looked up or counted."""
    if not (value.startswith(f"{prefix}_") and ID_SHAPE.fullmatch(value[len(prefix) + 1 :])):
        raise Problem(404, "receiver_not_found")


def owner(svc: Services, state: SeasonState, claim: BeyClaim, token: str | None) -> int | None:
    """None for the season admin or ops (the season's public events), else the bey's seat
    (401/403 as every bey endpoint answers)."""
    if token is not None:
        if tokens.staff_role(token, svc.ops, svc.auditors) == "ops":
            return None
        if state.admin_token and tokens.same_hash(state.admin_token, tokens.token_hash(token)):
            return None
    return seat_of(claim, state)


def still_serving(state: SeasonState) -> None:
    """409 for a new receiver of a season that is over (`wrong_phase`) or cancelled
    (`season_cancelled`): the notifier deletes every receiver of such a season at its next
    sweep (ADR-98), so one registered now would answer 201 and never be called."""
    if state.cancelled:
        raise Problem(409, "season_cancelled")
    if state.phase == "over":
        raise Problem(409, "wrong_phase.over")


def checked_url(svc: Services, url: str) -> str:
    """422 receiver_refused for a URL the server would not call (shared.app.messaging.outbound)."""
    policy = svc.receivers.policy
    try:
        _https, host, _port, _path = outbound.check_url(url, policy)
    except outbound.OutboundRefused as refused:
        raise Problem(422, "receiver_refused", reason=refused.reason) from None
    ip = outbound.literal_address(host)
    if ip is None:
        return url  # a name: checked after resolution, at each call
    if not (outbound.public(ip) or policy.host_allowed(host)):
        raise Problem(422, "receiver_refused", reason="address")
    return url


async def add_webhook(
    svc: Services, season_id: str, claim: BeyClaim, token: str | None, data: WebhookIn
) -> WebhookCreatedOut:
    loaded = await load(svc, season_id)
    seat = owner(svc, loaded.state, claim, token)
    still_serving(loaded.state)
    url = checked_url(svc, data.url)
    hook = Webhook(
        webhook_id=new_id("wh"),
        season_id=season_id,
        seat=seat,
        url=url,
        format=data.format,
        secret=webhooks.new_secret(),
    )
    if await svc.notify.add(hook, MAX_PER_OWNER) is None:  # counted and kept in one turn
        raise Problem(409, "receivers_full", limit=MAX_PER_OWNER)
    await svc.notify.follow(season_id, loaded.version)
    return WebhookCreatedOut(hook.webhook_id, hook.secret, webhooks.masked(url), hook.format, seat)


async def list_webhooks(
    svc: Services, season_id: str, claim: BeyClaim, token: str | None
) -> WebhooksOut:
    seat = owner(svc, (await load(svc, season_id)).state, claim, token)
    hooks = [w for w in await svc.notify.webhooks(season_id) if w.seat == seat]
    return WebhooksOut(
        [WebhookOut(w.webhook_id, webhooks.masked(w.url), w.format, w.seat) for w in hooks]
    )


async def _own_hook(
    svc: Services, season_id: str, claim: BeyClaim, token: str | None, webhook_id: str
) -> Webhook:
    seat = owner(svc, (await load(svc, season_id)).state, claim, token)
    for w in await svc.notify.webhooks(season_id):
        if w.webhook_id == webhook_id and w.seat == seat:
            return w
    raise Problem(404, "receiver_not_found")  # another owner's is not found either


async def delete_webhook(
    svc: Services, season_id: str, claim: BeyClaim, token: str | None, webhook_id: str
) -> None:
    hook = await _own_hook(svc, season_id, claim, token, webhook_id)
    await svc.notify.delete(season_id, hook.webhook_id)


async def rotate_webhook(
    svc: Services, season_id: str, claim: BeyClaim, token: str | None, webhook_id: str
) -> SecretOut:
    """A new secret at once; the old one signs nothing from now on."""
    hook = await _own_hook(svc, season_id, claim, token, webhook_id)
    fresh = msgspec.structs.replace(hook, secret=webhooks.new_secret())
    await svc.notify.put(fresh)
    return SecretOut(fresh.webhook_id, fresh.secret)


def _sub_out(s: PushSubscription) -> PushSubscriptionOut:
    return PushSubscriptionOut(
        s.subscription_id, webhooks.masked(s.endpoint), s.lead_seconds // 60, s.always, s.lang
    )


async def add_subscription(
    svc: Services, season_id: str, claim: BeyClaim, data: PushSubscriptionIn
) -> PushSubscriptionOut:
    loaded = await load(svc, season_id)
    seat = seat_of(claim, loaded.state)  # a subscription is a bey's device
    still_serving(loaded.state)
    endpoint = checked_url(svc, data.endpoint)
    sub = PushSubscription(  # the same device again replaces its subscription (`fitted`)
        subscription_id=new_id("ps"),
        season_id=season_id,
        seat=seat,
        endpoint=endpoint,
        p256dh=data.keys.p256dh,
        auth=data.keys.auth,
        lead_seconds=data.lead_minutes * 60,
        always=data.always,
        lang=data.lang,
    )
    kept = await svc.notify.add(sub, MAX_PER_OWNER)  # counted and kept in one turn
    if not isinstance(kept, PushSubscription):
        raise Problem(409, "receivers_full", limit=MAX_PER_OWNER)
    await svc.notify.follow(season_id, loaded.version)
    return _sub_out(kept)


async def list_subscriptions(
    svc: Services, season_id: str, claim: BeyClaim
) -> PushSubscriptionsOut:
    seat = seat_of(claim, (await load(svc, season_id)).state)
    subs = await svc.notify.subscriptions(season_id)
    return PushSubscriptionsOut([_sub_out(s) for s in subs if s.seat == seat])


async def delete_subscription(
    svc: Services, season_id: str, claim: BeyClaim, subscription_id: str
) -> None:
    seat = seat_of(claim, (await load(svc, season_id)).state)
    for s in await svc.notify.subscriptions(season_id):
        if s.subscription_id == subscription_id and s.seat == seat:
            await svc.notify.delete(season_id, subscription_id)
            return
    raise Problem(404, "receiver_not_found")
