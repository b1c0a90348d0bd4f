"""The event stream's messages: their ids, their log and their payloads (docs/api.md).

Every message the projection announces is logged in the season's projection (a sorted set per
channel: the public one and one per bey) in the same atomic step as the read models, and only
then published. Its id is `V-k`: V the season version (the stream version of the event that
caused it), k its place among that event's messages (one Divan's resolution announces the
public report, each bey's private report and the betrayals). Ids grow along the stream, so a
stream resumes after `Last-Event-ID` by reading the log past it, then goes on with what is
published, skipping what the log gave already: no loss, no duplicates.

A bare season version `V` as a position means "everything of version V and before": a client
that read `/reports` at version V (the `version` of every read) passes it to start from there.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

import msgspec

# Published on a season's public channel when a rebuild made a new generation active (in the
# same atomic step, services/projections/sink.py). A rebuild logs its messages but publishes
# none of them (it would announce the whole season again), so an open stream that hears this
# reads the new log past the last id it sent: a Divan projected by the rebuild (one resolved
# while a flush had lost the read models) still reaches it. Never sent to a client; it has no
# id line, so no logged message can be mistaken for it.
REBUILT = b"rebuilt"
STEP = 1024  # messages per event at most (one Divan: 1 + 19 + 1); the score is V·STEP + k
_POSITION = re.compile(r"(0|[1-9][0-9]{0,14})(?:-(0|[1-9][0-9]{0,3}))?")


class StreamId(msgspec.Struct, frozen=True):
    """A message's id: the season version of its event and its place among its messages."""

    version: int
    k: int

    @property
    def score(self) -> int:
        return self.version * STEP + self.k

    def __str__(self) -> str:
        return f"{self.version}-{self.k}"


def position(text: str) -> int | None:
    """The log score a stream resumes after, from an id `V-k` or a season version `V`; None
    for text that is neither (the query API answers 400 bad_last_event_id)."""
    m = _POSITION.fullmatch(text.strip())
    if m is None:
        return None
    version, k = int(m.group(1)), m.group(2)
    if k is None:
        return version * STEP + STEP - 1
    return None if int(k) >= STEP else version * STEP + int(k)


def message(message_id: StreamId, payload: bytes) -> bytes:
    """A logged (and published) message: its id, a newline, its JSON payload."""
    return f"{message_id}\n".encode() + payload


def split(member: bytes) -> tuple[int, str, str]:
    """A logged message's score, id text and payload text."""
    head, _, payload = member.partition(b"\n")
    text = head.decode()
    version, _, k = text.partition("-")
    return int(version) * STEP + int(k), text, payload.decode()


# --- the payloads, documented on the stream operation (x-events) and in docs/api.md ----------


class Ready(msgspec.Struct):
    """First on every stream, once it is subscribed: `channels` is 1 (public) or 2 (with the
    bey's own, from a ticket). Its id is the position the stream delivers everything after."""

    channels: int


class DivanReport(msgspec.Struct):
    """A Divan was resolved: its public report is at `GET /seasons/{id}/reports`."""

    type: Literal["divan_report"]
    divan: int


class PrivateReport(msgspec.Struct):
    """The bey's own report of that Divan is at `GET /seasons/{id}/private` (ticket only)."""

    type: Literal["private_report"]
    divan: int


class OfferReceived(msgspec.Struct):
    """Bey `from` offered the bey a treaty (`kind`: pact or alliance), settled at Divan
    `divan` unless withdrawn: its offers at `GET /seasons/{id}/me` (ticket only)."""

    type: Literal["offer_received"]
    divan: int
    frm: int = msgspec.field(name="from")
    kind: Literal["pact", "alliance"]


class OfferWithdrawn(msgspec.Struct):
    """An offer made to the bey was withdrawn by its offerer (`from`) before Divan `divan`:
    the line is in its private report of that Divan at `GET /seasons/{id}/private` (ticket
    only)."""

    type: Literal["offer_withdrawn"]
    divan: int
    frm: int = msgspec.field(name="from")


class OfferAnswered(msgspec.Struct):
    """What became of an offer the bey made to bey `to`, before Divan `divan` settles it:
    `accepted` or `rejected` by `to` (the treaty takes effect at that Divan when accepted), or
    `withdrawn` by the bey itself (told to its other devices). Its offers and reports at
    `GET /seasons/{id}/me` (ticket only)."""

    type: Literal["offer_answered"]
    divan: int
    to: int
    answer: Literal["accepted", "rejected", "withdrawn"]


class BetrayalLine(msgspec.Struct):
    """Who betrayed whom, where (R-14)."""

    traitor: int
    victim: int
    province: int


class Betrayals(msgspec.Struct):
    """The betrayals of that Divan (also in its public report)."""

    type: Literal["betrayals"]
    divan: int
    betrayals: list[BetrayalLine]


class KurultayReport(msgspec.Struct):
    """The Kurultay was held: its report is the last of `GET /seasons/{id}/reports`."""

    type: Literal["kurultay_report"]


class SeasonOver(msgspec.Struct):
    """The season is over (`han`: the Han's seat); the stream ends after this message."""

    type: Literal["season_over"]
    han: int | None


class ChatMessage(msgspec.Struct):
    """A new message in one of the bey's chat channels (ticket only; issue 24): fetch it from
    `GET /seasons/{id}/channels/{channel_id}/messages`. Never its text; never a muted bey's."""

    type: Literal["chat_message"]
    channel_id: str
    message_id: int


EVENTS: dict[str, type[msgspec.Struct]] = {
    "ready": Ready,
    "divan_report": DivanReport,
    "private_report": PrivateReport,
    "offer_received": OfferReceived,
    "offer_withdrawn": OfferWithdrawn,
    "offer_answered": OfferAnswered,
    "betrayals": Betrayals,
    "kurultay_report": KurultayReport,
    "season_over": SeasonOver,
    "chat_message": ChatMessage,
}
LAST = "season_over"


def _message_type(name: str, payload: type[msgspec.Struct]) -> type[msgspec.Struct]:
    """One message of the stream as a client's EventSource sees it: its `event:` name (the tag
    a generated client narrows on), its `id:` and its `data:` payload (decoded JSON)."""
    return msgspec.defstruct(
        "".join(part.capitalize() for part in name.split("_")) + "Message",
        [
            ("id", Annotated[str, msgspec.Meta(description=ID_TEXT)]),
            ("data", payload),
        ],
        tag_field="event",
        tag=name,
        kw_only=True,
        module=__name__,
    )


ID_TEXT = (
    "`V-k`, on a ticketed stream `V-k.cN` once chat was sent (`ready`: the position it "
    "delivers everything after)"
)
# Every message the stream sends, as component schemas a generator sees (issue 20): the
# stream's 200 answer is one of these, told apart by `event` (its discriminator).
MESSAGES: dict[str, type[msgspec.Struct]] = {
    name: _message_type(name, payload) for name, payload in EVENTS.items()
}


def _inline(node: Any, defs: dict[str, Any]) -> Any:
    """`node` with every `#/$defs/…` reference replaced by its definition (the extension sits
    inside the OpenAPI document, where such a reference would not resolve)."""
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            return _inline(defs[ref.removeprefix("#/$defs/")], defs)
        return {k: _inline(v, defs) for k, v in node.items() if k != "$defs"}
    if isinstance(node, list):
        return [_inline(v, defs) for v in node]
    return node


def schemas() -> dict[str, object]:
    """Each event name's payload as a self-contained JSON Schema (the stream operation's
    `x-events`: {name: {description, data}}), in the order a stream sends them."""
    out: dict[str, object] = {}
    for name, struct in EVENTS.items():
        schema = msgspec.json.schema(struct)
        out[name] = {
            "description": (struct.__doc__ or "").strip(),
            "data": _inline(schema, schema.get("$defs", {})),
        }
    return out
