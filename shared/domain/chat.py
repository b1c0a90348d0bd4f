"""Words between beys (R-15.1 … R-15.3, issue 24): channels, press modes, limits, the text check.

Pure: no I/O, no clock. A channel is its set of members (R-15.3: a private or group text is
seen by its members and ops only): the public channel `all` (every bey), a private channel of
two beys (`pair-3-7`) and a group of 3 … 19 chosen beys (`group-1-4-9`); the same set is the
same channel, so its id is written from the sorted seats (ADR-91).

R-15.1: nothing said here changes an outcome; no function here reads or moves a SeasonState.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from datetime import datetime
from typing import Any, Final, Literal

from shared.domain import text as free_text
from shared.domain.state import PressMode, SeasonState

PRESS_MODES: Final = ("full", "public", "none")
PUBLIC: Final = "all"
MAX_CHARS: Final = 1000  # characters (code points) of one message
MAX_LINES: Final = 20  # lines of one message (`\n` separated)
# combining marks in a row (UAX #15's Stream-Safe Text Format: at most 30 non-starters in a
# row): more only piles marks over the lines around a letter ("zalgo"); no script needs them
MAX_MARKS: Final = 30
GROUP_MIN: Final = 2  # members of a channel other than `all`, the sender included
GROUP_MAX: Final = 19
PER_MINUTE: Final = 20  # messages a bey may send in any 60 s (the edge counts them)
PAGE_MAX: Final = 100  # messages of one page
CHANNEL_ID: Final = re.compile(r"^(all|pair-[1-9][0-9]?-[1-9][0-9]?|group(-[1-9][0-9]?){3,19})$")


def channel_of(members: frozenset[int]) -> str:
    """The channel id of a set of members (2 … 19 seats): `pair-a-b` or `group-a-b-c…`."""
    seats = sorted(members)
    kind = "pair" if len(seats) == 2 else "group"
    return f"{kind}-" + "-".join(str(s) for s in seats)


def members_of(channel_id: str) -> frozenset[int] | None:
    """The members a channel id names (None for `all`: every bey), or None for no valid id.

    Only the canonical spelling is a channel (sorted, no repeat, no leading zero), so one set
    has one id."""
    if channel_id == PUBLIC or not CHANNEL_ID.match(channel_id):
        return None
    seats = [int(p) for p in channel_id.split("-")[1:]]
    members = frozenset(seats)
    if len(members) != len(seats) or channel_id != channel_of(members):
        return None
    return members


def valid_channel(channel_id: str) -> bool:
    return channel_id == PUBLIC or members_of(channel_id) is not None


def kind_of(channel_id: str) -> Literal["public", "private", "group"]:
    if channel_id == PUBLIC:
        return "public"
    return "private" if channel_id.startswith("pair-") else "group"


def text_digest(text: str) -> str:
    """What the hashed chat event carries of a text (ADR-92): sha256 of its UTF-8, hex."""
    return hashlib.sha256(text.encode()).hexdigest()


def text_refusal(text: str) -> tuple[str, dict[str, Any]] | None:
    """Why a message text is refused (variant, details), or None (R-15.2; ADR-93).

    The one free-text check in `lines` mode: a plain `\\n` is allowed; no other control,
    line/paragraph separator, bidirectional or format character (Cf: ZWJ, ZWNJ, soft hyphen,
    BOM, tag characters); then the limits: at most MAX_CHARS characters, MAX_MARKS combining
    marks in a row and MAX_LINES lines, and something visible. A `\\r\\n` is refused like any
    `\\r`: the client sends `\\n`."""
    if len(text) > MAX_CHARS:
        return "too_long", {"limit": MAX_CHARS, "length": len(text)}
    found = free_text.text_problem(text, "lines")
    if found is not None and found[0] == "character":
        return "character", {"character": found[1]}
    if _marks_in_a_row(text) > MAX_MARKS:
        return "marks", {"limit": MAX_MARKS}
    if text.count("\n") + 1 > MAX_LINES:
        return "too_many_lines", {"limit": MAX_LINES}
    if found is not None:
        return "blank", {}
    return None


def _marks_in_a_row(text: str) -> int:
    """The longest run of combining marks (Mn, Mc, Me) in `text`."""
    longest = run = 0
    for ch in text:
        run = run + 1 if unicodedata.category(ch)[0] == "M" else 0
        longest = max(longest, run)
    return longest


def press_mode(state: SeasonState) -> PressMode:
    """The season's press mode: a trial season has none; a live one what its creator chose."""
    if state.mode != "live" or state.calendar is None:
        return "none"
    return state.press


def human_seats(state: SeasonState) -> frozenset[int]:
    return frozenset(b.seat for b in state.beys if not b.computer)


def recipients_refusal(  # noqa: PLR0911 — one answer per refusal, in the order they are asked
    state: SeasonState, sender: int, to: str | list[int]
) -> tuple[str, dict[str, Any]] | None:
    """Why a message to `to` is refused by the season (code, details), or None.

    Codes: `chat_closed` (no press in this season), `press_restricted` (public press only),
    `bad_recipients` (an unknown seat, a repeat, the sender alone, over GROUP_MAX),
    `computer_bey` (computer beys do not chat, issue 24), `chat_read_only` (after the
    Kurultay's close the channels are read-only)."""
    mode = press_mode(state)
    if mode == "none":
        return "chat_closed", {}
    if state.phase == "over":
        return "chat_read_only", {}
    if to == PUBLIC:
        return None
    if not isinstance(to, list):
        return "bad_recipients", {}
    if mode == "public":
        return "press_restricted", {"press": mode}
    seats = {b.seat: b for b in state.beys}
    others = set(to) - {sender}
    if len(set(to)) != len(to) or not others or any(s not in seats for s in to):
        return "bad_recipients", {}
    if len(others | {sender}) > GROUP_MAX:
        return "bad_recipients", {}
    computers = sorted(s for s in others if seats[s].computer)
    if computers:
        return "computer_bey", {"seats": computers}
    return None


def channel_for(sender: int, to: str | list[int]) -> str:
    """The channel a (checked) message goes to."""
    if to == PUBLIC or not isinstance(to, list):
        return PUBLIC
    return channel_of(frozenset(to) | {sender})


def member(state: SeasonState, seat: int, channel_id: str) -> bool:
    """Whether `seat` is a member of `channel_id` in this season (R-15.3)."""
    if state.bey(seat) is None:
        return False
    if channel_id == PUBLIC:
        return True
    members = members_of(channel_id)
    return members is not None and seat in members


def writable(state: SeasonState, now: datetime) -> bool:
    """Open from a bey's join (registration included) to the Kurultay's close (issue 24)."""
    if press_mode(state) == "none" or state.phase == "over":
        return False
    cal = state.calendar
    return cal is None or now < cal.kurultay_closes_at
