"""Request and response bodies of webhooks and push subscriptions (issue 25)."""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

Strict = {"forbid_unknown_fields": True, "frozen": True}
Url = Annotated[
    str,
    msgspec.Meta(
        min_length=8, max_length=2048, examples=["https://discord.com/api/webhooks/1/abc"]
    ),
]
LeadMinutes = Annotated[
    int,
    msgspec.Meta(
        ge=1,
        le=10080,
        description="minutes before a Divan (1 … 10080); scaled on a compressed calendar",
    ),
]


class WebhookIn(msgspec.Struct, **Strict):
    """A receiver of the season's public events (the season-admin or ops token) or of the
    calling bey's own and the public ones (a bey's token). `url`: https on port 443."""

    url: Url
    format: Literal["json", "discord"] = "json"


class WebhookCreatedOut(msgspec.Struct, frozen=True):
    """The secret is shown here once; later answers show the URL masked and no secret."""

    webhook_id: str
    secret: str
    url: str  # masked
    format: str
    seat: int | None  # None: the season's public events


class WebhookOut(msgspec.Struct, frozen=True):
    webhook_id: str
    url: str  # masked: scheme and host
    format: str
    seat: int | None


class WebhooksOut(msgspec.Struct, frozen=True):
    webhooks: list[WebhookOut]


class SecretOut(msgspec.Struct, frozen=True):
    webhook_id: str
    secret: str


class PushKeys(msgspec.Struct, **Strict):
    p256dh: Annotated[
        str, msgspec.Meta(min_length=16, max_length=200, pattern=r"^[A-Za-z0-9_-]+=*$")
    ]
    auth: Annotated[str, msgspec.Meta(min_length=8, max_length=100, pattern=r"^[A-Za-z0-9_-]+=*$")]


class PushSubscriptionIn(msgspec.Struct, **Strict):
    """The browser's PushSubscription (`endpoint`, `keys`), the warning's lead time, whether
    to warn even when every province has its order (`always`), the texts' language."""

    endpoint: Url
    keys: PushKeys
    lead_minutes: LeadMinutes = 60
    always: bool = False
    lang: Literal["tr", "en"] = "tr"


class PushSubscriptionOut(msgspec.Struct, frozen=True):
    subscription_id: str
    endpoint: str  # masked: scheme and host
    lead_minutes: int
    always: bool
    lang: str


class PushSubscriptionsOut(msgspec.Struct, frozen=True):
    subscriptions: list[PushSubscriptionOut]


class PushKeyOut(msgspec.Struct, frozen=True):
    """The server's VAPID public key (the browser's applicationServerKey); null when Web Push
    is not configured here."""

    public_key: str | None


class DeletedOut(msgspec.Struct, frozen=True):
    """The receiver deleted (a webhook_id or a subscription_id)."""

    deleted: str
