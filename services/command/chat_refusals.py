"""The chat's refusals as problems (issue 24): a message's recipients and its text, shared
by a send, a report's reason and an ops hide's reason (ADR-165)."""

from __future__ import annotations

from typing import Any

from shared.app.http.problems import Problem


def refused(code: str, details: dict[str, Any]) -> Problem:
    """A recipients' or the chat's own refusal (shared.domain.chat) as its problem."""
    if code == "press_restricted":
        return Problem(403, "press_restricted", press=details["press"])
    if code == "computer_bey":
        return Problem(422, "computer_bey", seats=details["seats"])
    status = {"chat_closed": 403, "chat_read_only": 409, "bad_recipients": 422}[code]
    return Problem(status, code)


def text_refused(variant: str, details: dict[str, Any]) -> Problem:
    """A text's refusal (shared.domain.chat.text_refusal) as its 422 `chat_text` variant."""
    if variant == "too_long":
        return Problem(422, "chat_text.too_long", limit=details["limit"], length=details["length"])
    if variant == "too_many_lines":
        return Problem(422, "chat_text.too_many_lines", limit=details["limit"])
    if variant == "character":
        return Problem(422, "chat_text.character", character=details["character"])
    if variant == "marks":
        return Problem(422, "chat_text.marks", limit=details["limit"])
    return Problem(422, "chat_text.blank")
