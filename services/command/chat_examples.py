"""An example request and answer of every chat operation (issue 24), for the OpenAPI document;
built from the typed Structs (tests/projections/test_openapi_examples.py validates each)."""

from __future__ import annotations

from services.command.chat_schemas import (
    ActOut,
    ActsOut,
    ChannelOut,
    ChannelsOut,
    ChatLineOut,
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
    ReportedOut,
    ReportIn,
    ReportOut,
)

SEASON = "0123456789abcdef0123456789abcdef"
AT = "2026-12-03T12:00:00+03:00"
_LINE = ChatLineOut(message_id=41, kind="message", seat=3, at=AT, text="Konya'ya dokunmam.")
_SYSTEM = ChatLineOut(
    message_id=0, kind="system", seat=None, at=AT, text="pact made, through Divan 6"
)

CHAT_EXAMPLES: dict[str, dict[str | int, object]] = {
    "send_message": {
        "request": MessageIn(to=[7], text="Konya'ya dokunmam, sen de Ankara'ya dokunma."),
        201: MessageOut(message_id=41, channel_id="pair-3-7", at=AT),
    },
    "list_channels": {
        200: ChannelsOut(
            season_id=SEASON,
            press="full",
            writable=True,
            muted=[],
            channels=[
                ChannelOut("all", "public", [1, 2, 3, 7], 2, 38, 40),
                ChannelOut("pair-3-7", "private", [3, 7], 0, 41, 41),
            ],
        )
    },
    "channel_messages": {
        200: MessagesOut(channel_id="pair-3-7", messages=[_LINE, _SYSTEM], next_before=None)
    },
    "mark_read": {
        "request": ReadIn(read_to=41),
        200: ReadOut(channel_id="pair-3-7", read_to=41, unread=0),
    },
    "report_message": {
        "request": ReportIn(reason="hakaret"),
        201: ReportOut(report_id=44, message_id=41),
    },
    "mute_bey": {"request": MuteIn(muted=True), 200: MuteOut(seat=7, muted=True)},
    "chat_reports": {
        200: ChatReportsOut(
            season_id=SEASON,
            reports=[
                ReportedOut(
                    report_id=44,
                    message_id=41,
                    channel_id="pair-3-7",
                    reported_by=7,
                    reason="hakaret",
                    at=AT,
                    hidden=False,
                    context=[_LINE],
                )
            ],
        )
    },
    "hide_message": {
        "request": HideIn(reason="R-15.2: memlekete laf", erase_text=False),
        200: HiddenOut(act_id=45, message_id=41, erased=False),
    },
    "chat_acts": {
        200: ActsOut(
            season_id=SEASON,
            acts=[
                ActOut(44, "reported", 41, "private", "seat 7", AT),
                ActOut(45, "hidden", 41, "private", "5f2b9c0d1e7a", AT),
            ],
        )
    },
}
