"""The client counts a chat message as the server does (R-15.2): the same limits (characters in
code points, lines, combining marks in a row)."""

from __future__ import annotations

import re
from pathlib import Path

from shared.domain import chat

CLIENT = Path(__file__).resolve().parents[2] / "web" / "src" / "logic" / "chat_text.ts"
COMPOSER = CLIENT.parents[1] / "ui" / "chat.ts"


def test_the_clients_chat_limit_is_the_servers() -> None:
    """Probe (session 22): the composer's `maxlength=1000` counted UTF-16 code units, so an
    emoji took two of the server's 1,000 characters. The client's counter holds the server's
    limit (chat.MAX_CHARS) and the composer no `maxlength` (web/tests/unit/chat_text.test.ts
    counts code points; web/tests/e2e/live.e2e.mjs sends 1,000 emoji)."""
    found = re.search(r"^export const CHAT_MAX = (\d+);$", CLIENT.read_text(), re.M)
    assert found is not None and int(found.group(1)) == chat.MAX_CHARS
    assert not re.search(r"\bmaxlength:", COMPOSER.read_text())


def test_the_clients_line_and_mark_limits_are_the_servers() -> None:
    """Round 1 left it (session 23): the composer did not check the server's 20 lines and 30
    marks in a row before sending. It holds the server's limits (web/tests/unit/chat_text.test.ts
    counts as chat.text_refusal does; web/tests/e2e/live.e2e.mjs types past both)."""
    text = CLIENT.read_text()
    for name, limit in (("CHAT_MAX_LINES", chat.MAX_LINES), ("CHAT_MAX_MARKS", chat.MAX_MARKS)):
        found = re.search(rf"^export const {name} = (\d+);", text, re.M)
        assert found is not None and int(found.group(1)) == limit, name
