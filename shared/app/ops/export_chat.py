"""The chat section of a season export (issue 24, ADR-94, ADR-106; docs/export.md "Chat").

A season's chat is a stream of its own, with its own versions and hash chain
(`seksenbir/chat-chain/1`, ADR-91). An export carries it after the season's event lines: the
header's `chat` names its scheme, count and head, and each chat line its version (`chat`), ids,
type, data, data digest and chain fields, with the text kept beside the event (ADR-92) or the
reason it is withheld. A season with no chat has no section, so its export is what it was.

Who gets which text (R-15.2, R-15.3): ops' export holds every text but a hidden or erased one
(no export holds those); an auditor's export and the public export after the Kurultay keep every
line and its data digest, so the chain is proven, but leave out the data of every event that
concerns a private or group channel (and of a mute, a bey's own act) and every text but a
public message's. Pure: no I/O; the verbs read the store (shared/eventstore/chat_log.py).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Final
from uuid import UUID

import msgspec

from shared.domain.chat import PUBLIC
from shared.domain.chat_events import (
    AnyChatEvent,
    MessageHidden,
    MessageReported,
    MessageSent,
    TextErased,
    decode_chat,
)
from shared.domain.messages import Said
from shared.eventstore.chat_log import GENESIS, SCHEME, ChatRecord

CHAT_CHAIN: Final = SCHEME.decode()
PRIVATE: Final = "R-15.3"  # a private or group channel's line or text, left out
ERASED: Final = "erased"  # ops erased the text (R-15.2, ADR-92): it is kept nowhere
HIDDEN: Final = "hidden"  # hidden by moderation: ops read it through the API only
WITHHELD: Final = (ERASED, HIDDEN, PRIVATE)
CHAT_FIELDS: Final = frozenset(
    {
        "chat",
        "event_id",
        "type",
        "redacted",
        "data",
        "data_digest",
        "recorded_at",
        "text",
        "withheld",
        "prev_hash",
        "hash",
    }
)


@dataclass(frozen=True)
class ChatSection:
    """A season's chat as an export holds it (or as the store does: `stored`)."""

    records: list[ChatRecord]  # each with the text this export (or the store) holds
    head: bytes | None = None  # the header's trusted head (None: read from the store)
    count: int | None = None
    private: bool = False  # left lines and texts out (an auditor's or public export)
    digests: list[bytes | None] = field(default_factory=list)  # each line's data_digest
    redacted: frozenset[int] = frozenset()  # lines whose data was left out
    withheld: dict[int, str] = field(default_factory=dict)  # line -> why no text
    # read from the store: a NULL text says why by itself (erased; hidden in an audit copy)
    stored: bool = False
    hidden_kept: bool = False  # the season's own store keeps hidden texts (ops read them)


class ChatLineError(ValueError):
    """A chat line (or the header's `chat`) an export reader cannot take."""

    def __init__(self, said: Said) -> None:
        self.said = said
        super().__init__(said)


def text_digest(event: AnyChatEvent) -> str | None:
    """The digest of the text kept beside an event (a message, a report's reason), or None."""
    if isinstance(event, MessageSent | MessageReported):
        return event.digest
    return None


@dataclass
class ChatFacts:
    """What the chain says of its messages: each one's channel, the strongest moderation."""

    channels: dict[int, str] = field(default_factory=dict)
    moderated: dict[int, str] = field(default_factory=dict)

    @classmethod
    def of(cls, records: Sequence[ChatRecord], events: Sequence[AnyChatEvent | None]) -> ChatFacts:
        facts = cls()
        for r, e in zip(records, events, strict=True):
            if isinstance(e, MessageSent):
                facts.channels[r.version] = e.channel
            elif isinstance(e, TextErased):
                facts.moderated[e.message] = ERASED
            elif isinstance(e, MessageHidden):
                facts.moderated.setdefault(e.message, HIDDEN)
        return facts

    def public(self, e: AnyChatEvent | None) -> bool:
        """Whether the event concerns the public channel (a mute concerns no channel)."""
        if isinstance(e, MessageSent):
            return e.channel == PUBLIC
        if isinstance(e, MessageReported | MessageHidden | TextErased):
            return self.channels.get(e.message) == PUBLIC
        return False

    def withheld(
        self, version: int, e: AnyChatEvent, private: bool, hidden_kept: bool = False
    ) -> str | None:
        """Why an event's text is not in the export (None: it is, or it has none)."""
        if text_digest(e) is None:
            return None
        mark = self.moderated.get(version) if isinstance(e, MessageSent) else None
        if mark == ERASED or (mark == HIDDEN and not hidden_kept):
            return mark
        if private and not (isinstance(e, MessageSent) and e.channel == PUBLIC):
            return PRIVATE
        return None


# --- writing -------------------------------------------------------------------------------
def chat_part(
    records: Sequence[ChatRecord], private: bool
) -> tuple[dict[str, Any] | None, list[dict[str, Any]]]:
    """The header's `chat` (None: no chat, no section) and the chat lines, in chat order.

    `private`: an auditor's or the public export (R-15.3). The records are the store's, their
    chain and texts checked (`check_chat`) before: every one decodes."""
    if not records:
        return None, []
    events = [decode_chat(r.data) for r in records]
    facts = ChatFacts.of(records, events)
    lines = []
    for r, e in zip(records, events, strict=True):
        keep = not private or facts.public(e)
        line: dict[str, Any] = {"chat": r.version, "event_id": str(r.event_id), "type": r.type}
        if keep:
            line["data"] = r.data.decode("utf-8")
        else:
            line["redacted"] = PRIVATE
        line["data_digest"] = hashlib.sha256(r.data).hexdigest()
        line["recorded_at"] = r.recorded_at.astimezone(UTC).isoformat()
        mark = facts.withheld(r.version, e, private) if keep else None
        if keep and text_digest(e) is not None:
            if mark is None:
                line["text"] = r.text
            else:
                line["withheld"] = mark
        line["prev_hash"] = r.prev_hash.hex()
        line["hash"] = r.hash.hex()
        lines.append(line)
    left_out = sum("redacted" in x for x in lines)
    head = {
        "chain": CHAT_CHAIN,
        "events": len(records),
        "genesis": GENESIS.hex(),
        "head": records[-1].hash.hex(),
        "redacted": {"rule": PRIVATE, "events": left_out} if private else None,
    }
    return head, lines


# --- reading -------------------------------------------------------------------------------
class ChatReader:
    """The chat section of a file: the header's `chat`, then its lines one by one."""

    def __init__(self, season_id: str, head: Any) -> None:
        try:
            if not isinstance(head, dict) or head.get("chain") != CHAT_CHAIN:
                raise ValueError(f"chain is not {CHAT_CHAIN!r}")
            redacted = head.get("redacted")
            if redacted is not None and (
                not isinstance(redacted, dict) or redacted.get("rule") != PRIVATE
            ):
                raise ValueError(f"redacted is neither null nor under rule {PRIVATE!r}")
            self._head = bytes.fromhex(head["head"])
            self._count = _whole(head["events"], "events")
        except (KeyError, TypeError, ValueError) as exc:
            raise ChatLineError(Said("export.chat_header", error=str(exc))) from None
        self._season_id = season_id
        self._private = redacted is not None
        self.records: list[ChatRecord] = []
        self._digests: list[bytes | None] = []
        self._redacted: set[int] = set()
        self._withheld: dict[int, str] = {}

    def add(self, obj: dict[str, Any]) -> None:
        unknown = sorted(set(obj) - CHAT_FIELDS)
        if unknown:
            shown = ", ".join(repr(name)[:64] for name in unknown[:3])
            raise ChatLineError(Said("export.chat_unknown_field", names=shown))
        try:
            hidden = obj.get("redacted") is not None
            if hidden and obj["redacted"] != PRIVATE:
                raise ValueError(f"redacted is not {PRIVATE!r}")
            text = obj.get("text")
            mark = obj.get("withheld")
            if (text is not None and not isinstance(text, str)) or mark not in (None, *WITHHELD):
                raise ValueError("a text is a string; withheld is one of " + ", ".join(WITHHELD))
            digest = obj.get("data_digest")
            record = ChatRecord(
                season_id=self._season_id,
                version=_whole(obj["chat"], "chat"),
                event_id=UUID(obj["event_id"]),
                type=str(obj["type"]),
                data=b"" if hidden else str(obj["data"]).encode("utf-8"),
                seat=None if hidden else _seat(obj["data"]),
                recorded_at=datetime.fromisoformat(obj["recorded_at"]),
                prev_hash=bytes.fromhex(obj["prev_hash"]),
                hash=bytes.fromhex(obj["hash"]),
                text=text,
            )
            declared = bytes.fromhex(digest) if digest is not None else None
            if hidden and (declared is None or len(declared) != 32):
                raise ValueError("a line whose data was left out needs its data_digest")
        except (KeyError, TypeError, ValueError) as exc:
            raise ChatLineError(Said("export.chat_not_line", error=repr(exc))) from None
        if hidden:
            self._redacted.add(len(self.records))
        if mark is not None:
            self._withheld[len(self.records)] = mark
        self.records.append(record)
        self._digests.append(declared)

    def section(self) -> ChatSection:
        return ChatSection(
            self.records,
            self._head,
            self._count,
            self._private,
            self._digests,
            frozenset(self._redacted),
            self._withheld,
        )


def stored_section(records: Sequence[ChatRecord], *, audit_copy: bool = False) -> ChatSection:
    """The store's chat as a section to check: a NULL text is withheld for the reason the chain
    gives (an erasure; a hide too in an audit copy, imported from an export that withheld it),
    or missing."""
    return ChatSection(list(records), stored=True, hidden_kept=not audit_copy)


def _seat(data: Any) -> int | None:
    """The acting seat a chat event's data names (the store keeps it beside the event)."""
    import json

    try:
        event = json.loads(data) if isinstance(data, str) else None
    except ValueError:  # the check names a data that does not decode
        return None
    seat = event.get("seat") if isinstance(event, dict) else None
    return seat if isinstance(seat, int) and not isinstance(seat, bool) else None


def _whole(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{name} must be an integer, not {value!r:.40}")
    return value


def decode_line(r: ChatRecord) -> AnyChatEvent:
    """A chat line's data as its event, read one way only (ADR-64): the type is the data's own
    tag and the bytes the canonical encoding of the event (ValueError otherwise)."""
    event = decode_chat(r.data)
    if msgspec.json.encode(event, order="sorted") != r.data:
        raise ValueError("the data is not the canonical encoding of its event")
    if type(event).__struct_config__.tag != r.type:
        raise ValueError(f"the data's own type is {type(event).__struct_config__.tag}")
    return event


def chat_reader(season_id: str, head_obj: dict[str, Any]) -> ChatReader | None:
    """The reader of the chat section an export's header names (None: the file has no chat)."""
    return ChatReader(season_id, head_obj["chat"]) if "chat" in head_obj else None


def chat_line(chat: ChatReader | None, obj: dict[str, Any]) -> bool:
    """Whether an export's line is a chat line (read into `chat`); the season's event lines all
    come before the chat lines, and chat lines only in a file whose header names a chat."""
    if "chat" in obj:
        if chat is None:
            raise ChatLineError(Said("export.chat_unannounced"))
        chat.add(obj)
        return True
    if chat is not None and chat.records:
        raise ChatLineError(Said("export.event_after_chat"))
    return False
