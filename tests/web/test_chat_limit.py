"""The client counts a chat message as the server does (R-15.2): the same limit, in code points."""

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
