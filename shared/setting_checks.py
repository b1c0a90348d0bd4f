"""What each SEKSENBIR_* variable accepts, and the one-line refusal of a value it does not
(ADR-172): shared/settings.py reads the environment and checks each value with these.
"""

from __future__ import annotations

import math
import re
from urllib.parse import parse_qsl, urlsplit

# What a refused variable accepts, in English; each is also the catalogue's `setting.<kind>`
# (shared/domain/messages_tools.py), which the command line says in Turkish or English
# (tests/packaging/test_bad_settings.py holds the two English texts equal).
ACCEPTED = {
    "whole_min": "give a whole number, {low} or more",
    "whole_range": "give a whole number from {low} to {high}",
    "number_min": "give a number, {low} or more",
    "number_above": "give a number above {low}",
    "below": "give a number below {other} ({limit})",
    "flag": "give {on} to turn it on, {off} to turn it off (any case)",
    "url": "give a URL of the form {form}",
    "proxies": "give addresses or CIDRs, separated by commas ({item} is neither)",
    "digests": "give SHA-256 hex digests (64 characters each), separated by commas",
    "level": "give DEBUG, INFO, WARNING, ERROR or CRITICAL",
    "key": "give 32 bytes in base64url (43 characters)",
}
# Variables whose value is never shown (a token or a key), and those whose password is hidden.
SECRET = re.compile(r"_TOKENS$|_TOKEN_SHA256$|_KEY$")
URLS = (
    "SEKSENBIR_PG_DSN",
    "SEKSENBIR_REDIS_URL",
    "SEKSENBIR_BROKER_URL",
    "SEKSENBIR_READ_REDIS_URL",
)


class SettingError(ValueError):
    """A variable's value no process can run with (ADR-172): one line naming the variable, its
    value as given (a URL's password and a secret's whole value hidden) and what is accepted.
    `seksenbir` says it in the language asked for and exits 2 before anything starts
    (entrypoints/cli.py); this message is the English one."""

    def __init__(self, variable: str, value: object, kind: str, **params: object) -> None:
        self.variable = variable
        self.value = shown(variable, str(value))
        self.kind = kind  # the catalogue's key is setting.<kind>
        self.params = params
        accepted = ACCEPTED[kind].format(**params)
        super().__init__(f"{variable}={self.value} is not accepted: {accepted}")


def shown(variable: str, value: str) -> str:
    """A variable's value as an error may show it: quoted, on one line, a secret's not at all
    and a URL's password as *** (as shared.app.messaging.rabbit_broker.redacted writes it)."""
    if SECRET.search(variable):
        return "***"
    if variable in URLS:
        value = hide_password(value)
    return repr(value if len(value) <= 100 else value[:100] + "…")


def hide_password(url: str) -> str:
    """`url` with the password between its user and its last "@" (however malformed the rest)
    and a `password=` query parameter replaced by ***."""
    url = re.sub(r"(?i)(password=)[^&]*", r"\1***", url)
    head, at, tail = url.rpartition("@")
    if not at:
        return url
    scheme, slashes, userinfo = head.rpartition("//")
    user, colon, _ = userinfo.partition(":")
    return f"{scheme}{slashes}{user}{colon}{'***' if colon else ''}@{tail}"


# Each numeric field's accepted values (ADR-172): a count of at least 1 or 0 (0: off, where the
# table says so), a port, a niceness, a period above 0; `__post_init__` checks them all, so a
# negative or an out-of-range value stops the process as one that is not a number does.
_COUNTS = (
    "max_body_bytes pool_max lock_timeout_ms statement_timeout_ms resolve_time_limit_ms read_burst"
    " streams_per_client streams_per_process heartbeat_timeout_ms sweep_batch resolver_processes"
    " projection_processes resolver_threads"
)
_OFF_AT_ZERO = (
    "append_retries group_commit auth_failures_per_minute seasons_per_minute joins_per_minute"
    " commands_per_minute reads_per_minute reads_per_token_per_minute read_refusal_hold_ms"
    " season_concurrency min_backoff_ms"
)
BOUNDS: dict[str, tuple[str, int, int | None]] = {
    **dict.fromkeys(_COUNTS.split(), ("whole_min", 1, None)),
    **dict.fromkeys(_OFF_AT_ZERO.split(), ("whole_min", 0, None)),
    "maintenance_chance": ("whole_range", 0, 1_000_000),  # per million
    "worker_metrics_port": ("whole_range", 0, 65_534),  # the projections worker's is the next
    "notify_nice": ("whole_range", 0, 19),
    **dict.fromkeys(
        [
            "projection_sweep_s",
            "sweep_interval_s",
            "sweep_redeliver_s",
            "purge_interval_s",
            "outbound_timeout_s",
            "notify_sweep_s",
        ],
        ("number_above", 0, None),
    ),
    "release_after_s": ("number_min", 0, None),  # 0: never
    "idempotency_key_retention_s": ("number_min", 0, None),
}
DIGEST = re.compile(r"[0-9a-f]{64}")
LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
# The flags' spellings (ADR-172), any case; empty is unset, off. Anything else is refused: a
# silent "off" for `true` misread the operator.
FLAGS = {
    **dict.fromkeys(("1", "true", "yes", "on"), True),
    **dict.fromkeys(("", "0", "false", "no", "off"), False),
}
# The URL shapes each URL variable accepts: its schemes, and whether it is a Redis one (its
# database number, /N or ?db=N, must be a whole number).
_REDIS = ("redis", "rediss", "unix")
_REDIS_FORM = "redis[s]://host:port/N | unix:///path?db=N"
URL_FORMS: dict[str, tuple[tuple[str, ...], str]] = {
    "SEKSENBIR_PG_DSN": (("postgresql", "postgres"), "postgresql://user:password@host:port/db"),
    "SEKSENBIR_REDIS_URL": (_REDIS, _REDIS_FORM),
    "SEKSENBIR_READ_REDIS_URL": (_REDIS, _REDIS_FORM),
    "SEKSENBIR_BROKER_URL": (
        (*_REDIS, "amqp", "amqps"),
        f"{_REDIS_FORM} | amqp[s]://user:password@host:port/vhost",
    ),
}


def number(name: str, variable: str, kind: type[int] | type[float], given: str) -> int | float:
    """A numeric variable's value; one that is not a number, or not within its bounds, stops
    the process naming the variable to fix, its value as given and what it accepts, not only
    Python's complaint ("invalid literal for int()")."""
    accepted, low, high = BOUNDS[name]
    try:
        value = kind(given.strip())
    except ValueError:
        value = math.nan
    if not within(value, accepted, low, high):
        raise SettingError(variable, given, accepted, low=low, high=high) from None
    return value


def within(value: float, accepted: str, low: int, high: int | None) -> bool:
    """Whether `value` is one BOUNDS accepts: finite, at least `low` (above it for
    number_above), at most `high` when there is one."""
    at_least = value > low if accepted == "number_above" else value >= low
    return math.isfinite(value) and at_least and (high is None or value <= high)


def flag(var: str, given: str) -> bool:
    try:
        return FLAGS[given.strip().lower()]
    except KeyError:
        on = ", ".join(k for k, v in FLAGS.items() if v)
        off = ", ".join(k for k, v in FLAGS.items() if k and not v)
        raise SettingError(var, given, "flag", on=on, off=off) from None


def url(var: str, given: str) -> str:
    """A URL variable's value, its shape checked: the scheme, a port that is a number (on one
    host: a PostgreSQL DSN may name several) and a Redis database number."""
    schemes, form = URL_FORMS[var]
    if not given:  # the broker's and the read side's: redis_url's Redis
        return given
    try:
        parts = urlsplit(given)
        if parts.scheme not in schemes:
            raise ValueError(parts.scheme)
        if "," not in parts.netloc:
            _ = parts.port  # ValueError unless a number within 0 … 65535
        if parts.scheme in _REDIS:
            db = dict(parse_qsl(parts.query)).get("db")
            if db is None and parts.scheme != "unix":
                db = parts.path.strip("/") or "0"
            int(db or "0")
    except ValueError:
        raise SettingError(var, given, "url", form=form) from None
    return given


def key(var: str, given: str) -> str:
    """A key variable's value (SEKSENBIR_NOTIFY_KEY, SEKSENBIR_VAPID_PRIVATE_KEY): empty (off)
    or 32 bytes in base64url, as `seksenbir vapid-keys` prints one; refused here rather than
    where the API or the notify worker decodes it, after `up` has started them."""
    import base64
    import binascii

    text = given.strip()
    try:
        raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)) if text else b""
    except (binascii.Error, ValueError):
        raw = b"?"
    if text and (len(raw) != 32 or not re.fullmatch(r"[A-Za-z0-9_-]+=*", text)):
        raise SettingError(var, given, "key")
    return text
