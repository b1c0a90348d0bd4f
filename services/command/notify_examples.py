"""Examples of the webhook and push-subscription operations (issue 25), for the OpenAPI
document (services/command/command_examples.py takes them in)."""

from __future__ import annotations

from services.command.notify_schemas import (
    DeletedOut,
    PushKeyOut,
    PushKeys,
    PushSubscriptionIn,
    PushSubscriptionOut,
    PushSubscriptionsOut,
    SecretOut,
    WebhookCreatedOut,
    WebhookIn,
    WebhookOut,
    WebhooksOut,
)

_HOOK = "wh_3kQ9xV1bLmA2"
_SUB = "ps_Z8c1YqT0nR4e"
_SECRET = "whsec_Q2hhbmdlIG1lOiB0aGlzIGlzIGFuIGV4YW1wbGUgc2VjcmV0"
_PUBLIC = "BHQf34ap4jexzFeul6ZBAo1FUdFxV9EdtEhBCyCeT_Caz6XU6LkaNe5vvFn3zCm1dkWT1crqRvhIxmDUUd_7U8w"
_SUB_OUT = PushSubscriptionOut(_SUB, "https://fcm.googleapis.com/…", 60, False, "tr")

NOTIFY_EXAMPLES: dict[str, dict[str | int, object]] = {
    "add_webhook": {
        "request": WebhookIn(url="https://discord.com/api/webhooks/1/abc", format="discord"),
        201: WebhookCreatedOut(_HOOK, _SECRET, "https://discord.com/…", "discord", None),
    },
    "list_webhooks": {
        200: WebhooksOut([WebhookOut(_HOOK, "https://discord.com/…", "discord", None)])
    },
    "delete_webhook": {200: DeletedOut(_HOOK)},
    "rotate_webhook": {200: SecretOut(_HOOK, _SECRET)},
    "push_key": {200: PushKeyOut(_PUBLIC)},
    "add_push_subscription": {
        "request": PushSubscriptionIn(
            endpoint="https://fcm.googleapis.com/fcm/send/dJ3x…",
            keys=PushKeys(p256dh=_PUBLIC, auth="tBHItJI5svbpez7KI4CCXg"),
            lead_minutes=60,
        ),
        201: _SUB_OUT,
    },
    "list_push_subscriptions": {200: PushSubscriptionsOut([_SUB_OUT])},
    "delete_push_subscription": {200: DeletedOut(_SUB)},
}
