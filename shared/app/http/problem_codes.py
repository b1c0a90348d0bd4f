"""Every problem code either API answers, with its status and meaning (docs/api.md, "Error
codes"); `shared.app.http.openapi` builds each operation's documented answers from it."""

from __future__ import annotations

from shared.domain.refusals import REFUSALS

# The edge's own problem codes (its parsing, tokens, limits, stores, the chat and the
# receivers): their status and what they mean. The domain's refusals carry theirs beside them
# in shared.domain.refusals.REFUSALS (ADR-115).
EDGE_CODES: dict[str, tuple[int, str]] = {
    "malformed_json": (
        400,
        "the body is not UTF-8 JSON (a `\\u` escape naming half of a UTF-16 surrogate pair "
        "alone, `\\ud800`, is no character: RFC 8259 §8.2), nests deeper than 32 levels, or "
        "repeats a key in an object",
    ),
    "idempotency_key_required": (400, "this command needs an Idempotency-Key header"),
    "bad_idempotency_key": (400, "the Idempotency-Key is empty or longer than 200 characters"),
    "token_in_query": (400, "a token in the URL (?token=, ?access_token=)"),
    "ambiguous_authorization": (400, "two Authorization headers: never one of them guessed"),
    "bad_last_event_id": (400, "a Last-Event-ID that is no stream id (V-k) or version (V)"),
    "missing_token": (401, "no bearer token"),
    "bad_token": (401, "a token that is not valid here (counted by the failed-token limit)"),
    "bad_ticket": (401, "an event-stream ticket that is unknown, used or of another season"),
    "token_wrong_season": (403, "a well-formed bey token of another season"),
    "forbidden": (403, "a token whose role may not do this"),
    "season_not_found": (404, "no such season"),
    "not_found": (404, "no such resource (a path parameter that is not a decimal integer)"),
    "receiver_not_found": (404, "no such webhook or push subscription of the caller's"),
    "receivers_full": (409, "the caller has as many webhooks or push subscriptions as allowed"),
    "receiver_refused": (
        422,
        "a URL the server does not call: not https, not port 443, a private address (`reason`)",
    ),
    "idempotency_key_in_flight": (409, "the first request with this key is still running"),
    "conflict": (409, "too many concurrent writes to the season; retry"),
    "audit_copy": (409, "the season is an imported audit copy: read-only (ADR-58)"),
    "body_too_large": (413, "the body is larger than 64 KiB"),
    "uri_too_long": (414, "a request target (path and query) longer than 16 KiB (ADR-156)"),
    "unsupported_media_type": (415, "a body whose Content-Type is not JSON (ADR-61)"),
    "unknown_field": (422, "a field the schema does not have (`field`)"),
    "invalid_parameter": (
        422,
        "a path or query parameter outside its bounds (D-27), or one that takes one value given "
        "twice (`repeated`)",
    ),
    "idempotency_key_reused": (422, "the key was used with another request"),
    "secret_not_replayable": (
        409,
        "a creation retried with its Idempotency-Key whose tokens the server drew: it cannot "
        "answer them again (ADR-178: bring `token_secret` / `admin_secret` / `key_secret`)",
    ),
    # Players (issue 23, ADR-87)
    "bad_player_key": (401, "a player key that is no player's, or a player's who left"),
    "player_not_found": (404, "no such player, or one who left"),
    "chain_broken": (
        409,
        "a stored event of the season does not decode, or its hash chain does not verify "
        "(an export): `seksenbir verify` names it",
    ),
    "redaction_unavailable": (
        409,
        "an auditor's export of a season on hash-chain version 1, which a redacted export "
        "cannot prove (ADR-52)",
    ),
    "too_many_failed_attempts": (429, "too many invalid tokens from this client (Retry-After)"),
    "too_many_requests": (
        429,
        "too many requests of this kind from this client address or token (Retry-After)",
    ),
    "too_many_streams": (429, "too many open event streams from this client (Retry-After)"),
    "store_busy": (503, "the event store is busy or unreachable (Retry-After)"),
    "projection_rebuilding": (503, "the season's read model is being rebuilt (Retry-After)"),
    "not_yet_projected": (
        503,
        "the read side has not reached the season version asked for (`?min_version=`), or "
        "a new season's first one, within 2 s: `version`, `projected_version` (Retry-After)",
    ),
    "read_unavailable": (503, "the read side's Redis does not answer (Retry-After)"),
    "streams_full": (503, "this process serves all the event streams it can (Retry-After)"),
    "audit_unavailable": (503, "an ops read of secret data could not be recorded (Retry-After)"),
    # issue 24, R-15: the chat
    "chat_closed": (403, "this season has no chat (press mode none, or a trial season)"),
    "press_restricted": (403, 'this season\'s press mode is public only: send `to` "all"'),
    "chat_read_only": (409, "the Kurultay is closed: the channels are read-only"),
    "computer_bey": (422, "computer beys do not chat: `seats` names them"),
    "bad_recipients": (422, "an unknown or repeated seat, only oneself, or over 19 beys"),
    "chat_text": (
        422,
        "over 1,000 characters, 30 combining marks in a row or 20 lines, a control/format/bidi"
        " character, blank",
    ),
    "chat_rate_limited": (429, "too many messages from this bey in a minute (Retry-After)"),
    "channel_not_found": (404, "no channel of the calling bey by that id"),
    "message_not_found": (404, "no message by that id that the caller may see"),
}

# Every problem code either API answers: its status and what it means (docs/api.md, "Error
# codes"). An operation's documented answers are built from these (see `answers`). A domain
# refusal no HTTP answer carries (its status None: ADR-43's `unknown_rules_version`) is left out.
CODES: dict[str, tuple[int, str]] = {
    **EDGE_CODES,
    **{code: answer for code, answer in REFUSALS.items() if answer is not None},
}

# The codes the edge answers outside every operation's list, so in no operation's documented
# answers (docs/api.md, "Answers per operation"): Litestar's own refusals that no route makes
# (a method the path does not take; a status shared.app.http.problems.http_exception has no
# code of its own for) and an unhandled error. They speak both languages and have a Turkish
# title as every other code does (tests/http/test_language.py).
UNLISTED_CODES: dict[str, tuple[int, str]] = {
    "method_not_allowed": (405, "a method the path does not take"),
    "rate_limited": (429, "a rate limit of the framework's own (Retry-After)"),
    "bad_request": (400, "a request the framework refused for a reason with no code of its own"),
    "internal": (500, "an unexpected error: a defect, logged as api.unhandled"),
}
