"""Settings from the environment (SEKSENBIR_*), shared by the API, the workers and the CLI.

This module is the only reader of the process environment (tests/packaging/test_settings.py
checks it): `Settings.from_env` for every knob (docs/configuration.md lists them all),
`environment()` for what a launcher hands its child processes, `given()` for the launcher's
"was this set at all" questions.
"""

from __future__ import annotations

import hashlib
import ipaddress
import os
from collections.abc import Callable, Mapping
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import msgspec

from shared.setting_checks import (
    BOUNDS,
    DIGEST,
    FLAGS,
    LEVELS,
    URLS,
    SettingError,
    flag,
    key,
    number,
    url,
    within,
)


def proxies(value: str) -> tuple[str, ...]:
    """SEKSENBIR_TRUSTED_PROXIES: comma-separated addresses or CIDRs, each checked here (a typo
    stops the process at start, rather than trusting nobody, or everybody, silently)."""
    out = []
    for item in (v.strip() for v in value.split(",")):
        if not item:
            continue
        try:
            out.append(str(ipaddress.ip_network(item, strict=False)))
        except ValueError:
            raise SettingError(
                "SEKSENBIR_TRUSTED_PROXIES", value, "proxies", item=repr(item)
            ) from None
    return tuple(out)


class Settings(msgspec.Struct, frozen=True, kw_only=True):
    """Everything configurable; tokens for ops and auditors are kept only as SHA-256 hashes.

    Every field is set from the environment variable(s) `VARIABLES` names for it; the table
    in docs/configuration.md has a row for each variable.
    """

    pg_dsn: str = "postgresql://postgres@127.0.0.1:5432/postgres"
    redis_url: str = "redis://127.0.0.1:6379/0"
    # The broker's queues and the read models live apart (a FLUSHDB of one never touches the
    # other): "" means redis_url. From the environment, an unset SEKSENBIR_READ_REDIS_URL is
    # redis_url's Redis with the next database number (`next_db`), the broker redis_url's own.
    broker_url: str = ""
    read_redis_url: str = ""
    # The read models on a Redis Cluster: read_redis_url names one of its nodes (the client
    # finds the others); each season's keys carry a hash tag, so its writes stay on one slot.
    read_redis_cluster: bool = False
    broker_namespace: str = "seksenbir"
    ops_token_hashes: tuple[str, ...] = ()
    auditor_token_hashes: tuple[str, ...] = ()
    cors_origins: tuple[str, ...] = ()
    max_body_bytes: int = 64 * 1024
    pool_max: int = 10
    lock_timeout_ms: int = 5_000  # also bounds a command's wait for its season's writer turn
    statement_timeout_ms: int = 10_000  # must stay below resolve_time_limit_ms
    resolve_time_limit_ms: int = 60_000  # the resolver actor's Dramatiq time_limit
    append_retries: int = 30  # 19 beys at once: every round lets at least one through
    group_commit: int = 2  # appends grouped into one statement while this many are in flight
    projection_prefix: str = "sb"
    auth_failures_per_minute: int = 30  # 401s a client address may cause; then 429 (0: off)
    # Requests a client address may send per minute (in a burst, then evenly), then 429
    # too_many_requests with Retry-After (0: off): creating seasons, joining, commands.
    seasons_per_minute: int = 30
    joins_per_minute: int = 30
    commands_per_minute: int = 600
    # Reads (every GET of the API, and event-stream tickets) per client address and per token,
    # in a burst of `read_burst`, then evenly over the minute; 429 too_many_requests with
    # Retry-After; in each API process's memory (0: off). docs/configuration.md says why these.
    reads_per_minute: int = 1200
    reads_per_token_per_minute: int = 300
    read_burst: int = 100
    # a refused read is answered after about this long (0: at once; ratelimit.HOLD_S)
    read_refusal_hold_ms: int = 1000
    # Reverse proxies whose X-Forwarded-For names the client (addresses or CIDRs); none: the
    # client address is the connection's peer, whatever the headers say.
    trusted_proxies: tuple[str, ...] = ()
    streams_per_client: int = 8  # open event streams per client address; then 429
    streams_per_process: int = 500  # open event streams per API process; then 503
    # reads of one season served at once per API process, the rest wait in turn (0: no cap)
    season_concurrency: int = 2
    debug: bool = False
    # The workers' broker: a worker is dead this long after its last heartbeat (tests: 2000;
    # ADR-54, docs/operations.md), the chance per million broker calls that one runs the
    # broker's maintenance (besides every heartbeat / 4 on a fetch), the first retry's backoff.
    heartbeat_timeout_ms: int = 10_000
    maintenance_chance: int = 1_000
    min_backoff_ms: int = 500
    projection_sweep_s: float = 2.0  # the projections worker's catch-up sweep period
    # A season's read models leave Redis after this long without an event or a read (seconds;
    # 0: never); its next read rebuilds them (ADR-158, services/projections/release.py).
    release_after_s: float = 7 * 86_400.0
    # The Divan scheduler (services/resolver/scheduler.py, SweepSettings).
    sweep_interval_s: float = 5.0
    sweep_redeliver_s: float = 10.0
    sweep_batch: int = 1000
    worker_metrics_port: int = 0  # the resolver worker's metrics port, projections +1; 0: none
    # `seksenbir up`'s worker processes (bench.live_surge on 2 cores: 2 resolver processes
    # resolve a surge faster than 1 with twice the threads, 2 projections processes project
    # it faster than 1; docs/operations.md: scale out)
    resolver_processes: int = 2
    projection_processes: int = 2
    # Dramatiq worker threads of each resolver process: Divans in flight at once a process, each
    # with a connection of its pool while it reads or appends (ADR-160)
    resolver_threads: int = 8
    data_dir: str = ".data"  # `seksenbir up`: where an embedded PostgreSQL keeps its files
    log_format: str = "json"  # json, or anything else for console lines
    log_level: str = "INFO"
    # Idempotency-Key records older than this are purged by `seksenbir scheduler` (seconds),
    # at most once per purge_interval_s
    idempotency_key_retention_s: float = 24 * 3600.0
    purge_interval_s: float = 3600.0
    # The browser client's build, served by the gateway at `/`; "": web/dist of this checkout.
    web_dir: str = ""
    # Notifications (issue 25, ADR-98/99): hosts, addresses or CIDRs webhooks and push
    # endpoints may use although private, on plain http or another port than 443 (tests and
    # local runs: 127.0.0.1); the outbound call's timeout; the VAPID key (`seksenbir
    # vapid-keys`; "": Web Push off) and its contact; the key sealing webhook secrets and
    # push subscriptions at rest (base64url, 32 bytes; "": kept unsealed); the notifier's period;
    # the notifications worker's niceness (0-19: on a shared machine Divans come first, ADR-108).
    outbound_allow: tuple[str, ...] = ()
    outbound_timeout_s: float = 5.0
    vapid_private_key: str = ""
    vapid_subject: str = "mailto:ops@seksenbir.invalid"
    notify_key: str = ""
    notify_sweep_s: float = 2.0
    notify_nice: int = 10

    def __post_init__(self) -> None:
        for name, (kind, low, high) in BOUNDS.items():  # a Settings built in code too
            if not within(getattr(self, name), kind, low, high):
                value = getattr(self, name)
                raise SettingError(VARIABLES[name][0], value, kind, low=low, high=high)
        # RELIABILITY 13: Dramatiq's TimeLimit cannot interrupt a statement blocked in the
        # server, so PostgreSQL's statement_timeout must cancel it first, and the message retry.
        if self.statement_timeout_ms >= self.resolve_time_limit_ms:
            raise SettingError(
                "SEKSENBIR_STATEMENT_TIMEOUT_MS",
                self.statement_timeout_ms,
                "below",
                other="SEKSENBIR_RESOLVE_TIME_LIMIT_MS",
                limit=self.resolve_time_limit_ms,
            )
        if self.log_level.upper() not in LEVELS:
            raise SettingError("SEKSENBIR_LOG_LEVEL", self.log_level, "level")

    @property
    def broker_redis(self) -> str:
        """The Redis of the broker's queues (Dramatiq)."""
        return self.broker_url or self.redis_url

    @property
    def read_redis(self) -> str:
        """The Redis of the read models, event-stream wake-ups and failed-token counts."""
        return self.read_redis_url or self.redis_url

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Settings:
        e = dict(os.environ if env is None else env)

        d = cls()
        values = {
            f.name: _value(f.name, getattr(d, f.name), e) for f in msgspec.structs.fields(cls)
        }
        if not values["read_redis_url"]:
            values["read_redis_url"] = next_db(str(values["redis_url"]))
        # read at `import shared` (shared/__init__.py), before Settings exists; spelled and
        # refused here as every flag is (ADR-172), so `=ture` stops the process, not runs pure
        flag(COMPILED, e.get(COMPILED, ""))
        return cls(**values)  # type: ignore[arg-type]


# Each field's environment variable(s); the first is the one `from_env` reads for plain fields.
VARIABLES: dict[str, tuple[str, ...]] = {
    "pg_dsn": ("SEKSENBIR_PG_DSN",),
    "redis_url": ("SEKSENBIR_REDIS_URL",),
    "broker_url": ("SEKSENBIR_BROKER_URL",),
    "read_redis_url": ("SEKSENBIR_READ_REDIS_URL",),
    "read_redis_cluster": ("SEKSENBIR_READ_REDIS_CLUSTER",),
    "broker_namespace": ("SEKSENBIR_BROKER_NAMESPACE",),
    "ops_token_hashes": ("SEKSENBIR_OPS_TOKEN_SHA256", "SEKSENBIR_OPS_TOKENS"),
    "auditor_token_hashes": ("SEKSENBIR_AUDITOR_TOKEN_SHA256", "SEKSENBIR_AUDITOR_TOKENS"),
    "cors_origins": ("SEKSENBIR_CORS_ORIGINS",),
    "max_body_bytes": ("SEKSENBIR_MAX_BODY_BYTES",),
    "pool_max": ("SEKSENBIR_POOL_MAX",),
    "lock_timeout_ms": ("SEKSENBIR_LOCK_TIMEOUT_MS",),
    "statement_timeout_ms": ("SEKSENBIR_STATEMENT_TIMEOUT_MS",),
    "resolve_time_limit_ms": ("SEKSENBIR_RESOLVE_TIME_LIMIT_MS",),
    "append_retries": ("SEKSENBIR_APPEND_RETRIES",),
    "group_commit": ("SEKSENBIR_GROUP_COMMIT",),
    "projection_prefix": ("SEKSENBIR_PROJECTION_PREFIX",),
    "auth_failures_per_minute": ("SEKSENBIR_AUTH_FAILURES_PER_MINUTE",),
    "seasons_per_minute": ("SEKSENBIR_SEASONS_PER_MINUTE",),
    "joins_per_minute": ("SEKSENBIR_JOINS_PER_MINUTE",),
    "commands_per_minute": ("SEKSENBIR_COMMANDS_PER_MINUTE",),
    "reads_per_minute": ("SEKSENBIR_READS_PER_MINUTE",),
    "reads_per_token_per_minute": ("SEKSENBIR_READS_PER_TOKEN_PER_MINUTE",),
    "read_burst": ("SEKSENBIR_READ_BURST",),
    "read_refusal_hold_ms": ("SEKSENBIR_READ_REFUSAL_HOLD_MS",),
    "trusted_proxies": ("SEKSENBIR_TRUSTED_PROXIES",),
    "streams_per_client": ("SEKSENBIR_STREAMS_PER_CLIENT",),
    "streams_per_process": ("SEKSENBIR_STREAMS_PER_PROCESS",),
    "season_concurrency": ("SEKSENBIR_SEASON_CONCURRENCY",),
    "debug": ("SEKSENBIR_DEBUG",),
    "heartbeat_timeout_ms": ("SEKSENBIR_HEARTBEAT_TIMEOUT_MS",),
    "maintenance_chance": ("SEKSENBIR_MAINTENANCE_CHANCE",),
    "min_backoff_ms": ("SEKSENBIR_MIN_BACKOFF_MS",),
    "projection_sweep_s": ("SEKSENBIR_SWEEP_SECONDS",),
    "release_after_s": ("SEKSENBIR_RELEASE_AFTER",),
    "sweep_interval_s": ("SEKSENBIR_SWEEP_INTERVAL_S",),
    "sweep_redeliver_s": ("SEKSENBIR_SWEEP_REDELIVER_S",),
    "sweep_batch": ("SEKSENBIR_SWEEP_BATCH",),
    "worker_metrics_port": ("SEKSENBIR_WORKER_METRICS_PORT",),
    "resolver_processes": ("SEKSENBIR_RESOLVER_PROCESSES",),
    "projection_processes": ("SEKSENBIR_PROJECTION_PROCESSES",),
    "resolver_threads": ("SEKSENBIR_RESOLVER_THREADS",),
    "data_dir": ("SEKSENBIR_DATA",),
    "log_format": ("SEKSENBIR_LOG_FORMAT",),
    "log_level": ("SEKSENBIR_LOG_LEVEL",),
    "idempotency_key_retention_s": ("SEKSENBIR_IDEMPOTENCY_KEY_RETENTION_S",),
    "purge_interval_s": ("SEKSENBIR_PURGE_INTERVAL_S",),
    "web_dir": ("SEKSENBIR_WEB_DIR",),
    "outbound_allow": ("SEKSENBIR_OUTBOUND_ALLOW",),
    "outbound_timeout_s": ("SEKSENBIR_OUTBOUND_TIMEOUT_S",),
    "vapid_private_key": ("SEKSENBIR_VAPID_PRIVATE_KEY",),
    "vapid_subject": ("SEKSENBIR_VAPID_SUBJECT",),
    "notify_key": ("SEKSENBIR_NOTIFY_KEY",),
    "notify_sweep_s": ("SEKSENBIR_NOTIFY_SWEEP_S",),
    "notify_nice": ("SEKSENBIR_NOTIFY_NICE",),
}


def _value(name: str, default: object, e: Mapping[str, str]) -> object:
    """One field's value from the environment `e`, as its variable's kind reads it."""
    var = VARIABLES[name][0]
    if name in _OWN_READERS:
        return _OWN_READERS[name](e)
    if isinstance(default, bool):
        return flag(var, e.get(var, ""))
    if isinstance(default, tuple):
        return tuple(o for o in e.get(var, "").split(",") if o)
    if isinstance(default, int | float):
        return number(name, var, type(default), e.get(var) or str(default))
    if var in URLS:
        return url(var, e.get(var) or str(default))
    return e.get(var, default)


def _hashes(name: str, e: Mapping[str, str]) -> tuple[str, ...]:
    """The ops' or auditors' token digests: the plain tokens' and the given ones (any case)."""
    plain = [t for t in e.get(f"SEKSENBIR_{name}_TOKENS", "").split(",") if t]
    var = f"SEKSENBIR_{name}_TOKEN_SHA256"
    hashed = [h.strip().lower() for h in e.get(var, "").split(",") if h.strip()]
    if not all(DIGEST.fullmatch(h) for h in hashed):  # no token would ever match it
        raise SettingError(var, e[var], "digests")
    return tuple(sorted({*map(token_digest, plain), *hashed}))


_OWN_READERS: dict[str, Callable[[Mapping[str, str]], object]] = {
    "ops_token_hashes": lambda e: _hashes("OPS", e),
    "auditor_token_hashes": lambda e: _hashes("AUDITOR", e),
    "trusted_proxies": lambda e: proxies(e.get("SEKSENBIR_TRUSTED_PROXIES", "")),
    "notify_key": lambda e: key("SEKSENBIR_NOTIFY_KEY", e.get("SEKSENBIR_NOTIFY_KEY", "")),
    "vapid_private_key": lambda e: key(
        "SEKSENBIR_VAPID_PRIVATE_KEY", e.get("SEKSENBIR_VAPID_PRIVATE_KEY", "")
    ),
}


def next_db(url: str) -> str:
    """`url`'s Redis with the next database number (15 wraps to 0): redis://h:p/N (N is 0 when
    absent) or a socket's ?db=N."""
    parts = urlsplit(url)
    query = dict(parse_qsl(parts.query))
    if "db" in query or parts.scheme == "unix":
        query["db"] = str((int(query.get("db", "0")) + 1) % 16)
        return f"{url.split('?', 1)[0]}?{urlencode(query)}"  # urlunsplit drops unix:'s //
    current = int(parts.path.strip("/") or 0)
    return urlunsplit(parts._replace(path=f"/{(current + 1) % 16}"))


def token_digest(token: str) -> str:
    """The SHA-256 hex digest a token is kept as: shared.app.access.tokens.token_hash's, written
    here so Settings imports nothing of the layers it sits beside (a test holds the two equal)."""
    return hashlib.sha256(token.encode()).hexdigest()


COMPILED = "SEKSENBIR_COMPILED"  # the compiled hot path (ADR-60): a flag, read before Settings


def compiled_wanted(env: Mapping[str, str] | None = None) -> bool:
    """Whether SEKSENBIR_COMPILED (in `env`, else this process's environment now) asks for the
    compiled modules: a flag's "on" spelling (ADR-172). Read at `import shared`, where nothing
    may stop the process: a spelling no flag has counts as off here, and `Settings.from_env`
    refuses it with one line."""
    given = (os.environ if env is None else env).get(COMPILED, "")
    return FLAGS.get(given.strip().lower()) is True


def variable(name: str, default: str = "") -> str:
    """One variable of this process's environment, read now: for the readers that run before
    Settings can be built or must see a change made after start (FAULT_POINT at each fault
    point, SEKSENBIR_COMPILED at `import shared`, `python -m shared.eventstore.migrate`'s DSN)."""
    return os.environ.get(name, default)


def environment() -> dict[str, str]:
    """A copy of this process's environment: what a launcher hands the processes it starts
    (with third-party variables such as Dramatiq's `dramatiq_worker_timeout` left as set)."""
    return dict(os.environ)


def given(env: Mapping[str, str] | None = None) -> frozenset[str]:
    """The SEKSENBIR_* variables the environment sets (non-empty): `seksenbir up` uses a
    PostgreSQL or Redis named by the environment, and finds or starts one otherwise."""
    e = os.environ if env is None else env
    return frozenset(k for k, v in e.items() if k.startswith("SEKSENBIR_") and v)
