"""Settings from the environment (SEKSENBIR_*), shared by the API, the workers and the CLI."""

from __future__ import annotations

import ipaddress
import os

import msgspec

from shared.app.tokens import token_hash


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
            raise ValueError(
                f"SEKSENBIR_TRUSTED_PROXIES: not an address or CIDR: {item!r}"
            ) from None
    return tuple(out)


class Settings(msgspec.Struct, frozen=True, kw_only=True):
    """Everything configurable; tokens for ops and auditors are kept only as SHA-256 hashes."""

    pg_dsn: str = "postgresql://postgres@127.0.0.1:5432/postgres"
    redis_url: str = "redis://127.0.0.1:6379/0"
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
    # Reverse proxies whose X-Forwarded-For names the client (addresses or CIDRs); none: the
    # client address is the connection's peer, whatever the headers say.
    trusted_proxies: tuple[str, ...] = ()
    streams_per_client: int = 8  # open event streams per client address; then 429
    streams_per_process: int = 500  # open event streams per API process; then 503
    debug: bool = False
    # Idempotency-Key records older than this are purged by `seksenbir scheduler` (seconds)
    idempotency_key_retention_s: float = 24 * 3600.0

    def __post_init__(self) -> None:
        # RELIABILITY 13: Dramatiq's TimeLimit cannot interrupt a statement blocked in the
        # server, so PostgreSQL's statement_timeout must cancel it first, and the message retry.
        if not 0 < self.statement_timeout_ms < self.resolve_time_limit_ms:
            raise ValueError(
                f"statement_timeout_ms ({self.statement_timeout_ms}) must be above 0 and below"
                f" resolve_time_limit_ms ({self.resolve_time_limit_ms})"
            )
        if self.lock_timeout_ms <= 0:
            raise ValueError(f"lock_timeout_ms ({self.lock_timeout_ms}) must be above 0")

    @classmethod
    def from_env(cls, env: dict[str, str] | None = None) -> Settings:
        e = dict(os.environ if env is None else env)

        def hashes(name: str) -> tuple[str, ...]:
            plain = [t for t in e.get(f"SEKSENBIR_{name}_TOKENS", "").split(",") if t]
            hashed = [h for h in e.get(f"SEKSENBIR_{name}_TOKEN_SHA256", "").split(",") if h]
            return tuple(sorted({*map(token_hash, plain), *hashed}))

        d = cls()
        return cls(
            pg_dsn=e.get("SEKSENBIR_PG_DSN", d.pg_dsn),
            redis_url=e.get("SEKSENBIR_REDIS_URL", d.redis_url),
            broker_namespace=e.get("SEKSENBIR_BROKER_NAMESPACE", d.broker_namespace),
            ops_token_hashes=hashes("OPS"),
            auditor_token_hashes=hashes("AUDITOR"),
            cors_origins=tuple(o for o in e.get("SEKSENBIR_CORS_ORIGINS", "").split(",") if o),
            max_body_bytes=int(e.get("SEKSENBIR_MAX_BODY_BYTES", d.max_body_bytes)),
            pool_max=int(e.get("SEKSENBIR_POOL_MAX", d.pool_max)),
            lock_timeout_ms=int(e.get("SEKSENBIR_LOCK_TIMEOUT_MS", d.lock_timeout_ms)),
            statement_timeout_ms=int(
                e.get("SEKSENBIR_STATEMENT_TIMEOUT_MS", d.statement_timeout_ms)
            ),
            resolve_time_limit_ms=int(
                e.get("SEKSENBIR_RESOLVE_TIME_LIMIT_MS", d.resolve_time_limit_ms)
            ),
            group_commit=int(e.get("SEKSENBIR_GROUP_COMMIT", d.group_commit)),
            projection_prefix=e.get("SEKSENBIR_PROJECTION_PREFIX", d.projection_prefix),
            auth_failures_per_minute=int(
                e.get("SEKSENBIR_AUTH_FAILURES_PER_MINUTE", d.auth_failures_per_minute)
            ),
            trusted_proxies=proxies(e.get("SEKSENBIR_TRUSTED_PROXIES", "")),
            streams_per_client=int(e.get("SEKSENBIR_STREAMS_PER_CLIENT", d.streams_per_client)),
            streams_per_process=int(e.get("SEKSENBIR_STREAMS_PER_PROCESS", d.streams_per_process)),
            debug=e.get("SEKSENBIR_DEBUG", "") == "1",
            idempotency_key_retention_s=float(
                e.get("SEKSENBIR_IDEMPOTENCY_KEY_RETENTION_S", d.idempotency_key_retention_s)
            ),
        )
