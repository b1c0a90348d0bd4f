"""The operators' `seksenbir` commands: migrate, serve, worker, scheduler, up, projections rebuild,
deadletters."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any

from entrypoints.cli_args import port, processes, say, threads
from shared.unreachable import DatabaseUnreachable, RedisUnreachable

if TYPE_CHECKING:
    from shared.domain.messages import Lang
    from shared.settings import Settings


def _migrate(args: argparse.Namespace) -> int:
    import asyncio

    import asyncpg

    from entrypoints import stores
    from shared.eventstore import migrate
    from shared.settings import Settings

    settings = Settings.from_env()
    stores.configure(settings)  # migration.applied lines in the one log format
    dsn = args.dsn or settings.pg_dsn
    stores.readable_dsn(dsn)
    try:
        applied = asyncio.run(migrate(dsn))
    except (*stores.UNREACHABLE, asyncpg.ClientConfigurationError) as exc:
        raise DatabaseUnreachable(dsn, exc) from exc
    if applied:
        print(say("cli.migrated", args.lang, applied=", ".join(applied)))
    else:
        print(say("cli.migrated_nothing", args.lang))
    return 0


def _serve(args: argparse.Namespace) -> int:
    import uvicorn

    from entrypoints import bootstrap
    from entrypoints.http_protocol import TargetLimitedProtocol
    from shared.settings import Settings

    bootstrap.configure(Settings.from_env())
    # No access log of uvicorn's: it logs the raw path with its query string, where a client
    # may have put a token. The app logs one line per request itself (entrypoints.metrics).
    # log_config=None: uvicorn keeps the logging configured here (its own is text).
    uvicorn.run(
        "entrypoints.gateway:app_from_env",
        factory=True,
        host=args.host,
        port=args.port,
        log_config=None,
        access_log=False,
        # The app derives client addresses itself, trusting only SEKSENBIR_TRUSTED_PROXIES;
        # uvicorn's default would take X-Forwarded-For from any client on 127.0.0.1.
        proxy_headers=False,
        # httptools' protocol, but a target over 16 KiB reaches the app, which answers 414
        # problem+json; uvicorn answered plain text at 64 KiB (ADR-156)
        http=TargetLimitedProtocol,
    )
    return 0


_THREADS = "threads per process (default 2; resolver: SEKSENBIR_RESOLVER_THREADS, 8)"
WORKER_MODULES = {
    "resolver": "entrypoints.resolver_worker",
    "projections": "entrypoints.projections_worker",
    "notify": "entrypoints.notify_worker",
}


def worker_environment(kind: str, settings: Settings, env: dict[str, str]) -> dict[str, str]:
    """A worker's environment: the launcher's, Dramatiq's own `dramatiq_worker_timeout` (ms a
    worker thread waits for work before it looks whether it should stop; 250 unless set: it bounds
    a stop after SIGTERM, ADR-54) and its metrics variables."""
    from shared.app.messaging.queues import worker_metrics

    env = {"dramatiq_worker_timeout": "250", **env}
    return {**env, **worker_metrics(kind, settings.worker_metrics_port, env)}


def _worker(args: argparse.Namespace) -> int:
    import os

    from shared.settings import Settings, environment

    settings = Settings.from_env()
    env = worker_environment(args.kind, settings, environment())
    threads = args.threads or (settings.resolver_threads if args.kind == "resolver" else 2)
    if args.kind == "resolver":  # its pool holds a connection for each thread (ADR-160)
        env["SEKSENBIR_RESOLVER_THREADS"] = str(threads)
    cmd = [
        sys.executable,
        "-m",
        "entrypoints.dramatiq_main",  # Dramatiq's CLI, its records in the one log format
        WORKER_MODULES[args.kind],
        "--processes",
        str(args.processes),
        "--threads",
        str(threads),
    ]
    os.execve(sys.executable, cmd, env)
    return 0


def _scheduler(_args: argparse.Namespace) -> int:
    import asyncio
    import signal

    from entrypoints import bootstrap
    from shared.settings import Settings

    settings = Settings.from_env()
    bootstrap.configure(settings)

    async def run() -> int:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stop.set)
        async with bootstrap.scheduler(settings) as scheduler:
            await scheduler.run(stop)
        return 0

    return asyncio.run(run())


def _up(args: argparse.Namespace) -> int:
    from entrypoints import bootstrap
    from entrypoints.ports import taken_port
    from entrypoints.stack import up
    from shared.settings import Settings

    settings = Settings.from_env()
    if taken_port(settings, args.host, args.port, args.lang) is not None:
        return 2  # nothing started
    bootstrap.configure(settings)  # the launcher's own records (migrations …) as JSON too
    return up(settings, args.host, args.port, args.processes, args.lang)


def _no_season(args: argparse.Namespace, pg_dsn: str) -> int:
    """`projections rebuild` of a season the store does not hold: one line, exit 2, as every
    verb that names a season (docs/export.md "Exit codes")."""
    from shared.unreachable import describe_dsn

    database = describe_dsn(args.dsn or pg_dsn)
    text = say("audit.no_season_in", args.lang, season=repr(args.season), database=database)
    print(f"seksenbir projections rebuild: {text}", file=sys.stderr)
    return 2


def _rebuild(args: argparse.Namespace) -> int:
    import asyncio

    import redis.exceptions as redis_errors

    from entrypoints import bootstrap
    from services.projections.projector import Projector
    from shared.settings import Settings

    async def run() -> int:
        settings = Settings.from_env()
        bootstrap.configure(settings)  # projector.rebuilt lines in the one log format
        redis = bootstrap.redis_client(settings)
        try:
            async with bootstrap.event_store(settings, "cli", dsn=args.dsn) as store:
                projector = Projector(store, redis, settings.projection_prefix)
                seasons = await projector.store.list_seasons() if args.all else [args.season]
                if not args.all and await store.stream_version(args.season) == 0:
                    return _no_season(args, settings.pg_dsn)  # a typo is no rebuild done
                for season_id in seasons:
                    events = await projector.rebuild(season_id)
                    print(say("cli.rebuilt", args.lang, season=season_id, events=events))
        except (redis_errors.ConnectionError, redis_errors.TimeoutError) as exc:
            raise RedisUnreachable(settings.read_redis, exc) from exc
        finally:
            await redis.aclose()
        return 0

    if bool(args.all) == bool(args.season):  # neither, or both: which one was meant?
        text = say("cli.rebuild_what", args.lang)
        print(f"seksenbir projections rebuild: {text}", file=sys.stderr)
        return 2
    if args.season:
        from entrypoints.cli_args import possible_season

        possible_season(args.season, "projections rebuild", args.lang)
    return asyncio.run(run())


def _deadletters(args: argparse.Namespace) -> int:
    """Ops: list the messages the workers gave up on, or send them again (deadletters.py)."""
    import redis

    from entrypoints import deadletters
    from shared.app.messaging.rabbit_broker import is_amqp
    from shared.settings import Settings

    if args.action == "replay" and bool(args.all) == bool(args.ids):
        # neither, or both (`replay ID --all` sent every letter): which was meant? Said before
        # any broker is reached
        text = say("cli.replay_what", args.lang)
        print(f"seksenbir deadletters replay: {text}", file=sys.stderr)
        return 2
    settings = Settings.from_env()
    if is_amqp(settings.broker_redis):  # ADR-95: RabbitMQ's dead-letter queues
        from entrypoints.deadletters_rabbitmq import RabbitLetters

        return _deadletters_on(args, settings, RabbitLetters(settings.broker_redis))
    client = redis.Redis.from_url(settings.broker_redis)
    try:
        letters = deadletters.RedisLetters(client, settings.broker_namespace)
        return _deadletters_on(args, settings, letters)
    except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError) as exc:
        raise RedisUnreachable(settings.broker_redis, exc) from exc
    finally:
        client.close()


def _deadletters_on(args: argparse.Namespace, settings: Settings, client: Any) -> int:
    if args.action == "list":
        letters = client.letters()
        if args.json:
            print(json.dumps([d.as_json() for d in letters], ensure_ascii=False, indent=1))
        for d in [] if args.json else letters:
            when = d.died_at.isoformat(timespec="seconds")
            print(f"{d.id}  {d.queue}  {d.actor_name}{list(d.args)}  {when}  {d.error}")
        if not args.json:
            count = say(
                "cli.dead_letters",
                args.lang,
                count=len(letters),
                namespace=settings.broker_namespace,
            )
            print(count)
        return 0
    from entrypoints import bootstrap  # the broker, with its actors: only to send again

    broker = bootstrap.broker(settings)
    try:
        ids = None if args.all else args.ids
        done = client.replay(broker, ids)
    finally:
        broker.close()
    missing = [] if ids is None else sorted(set(ids) - set(done))
    print(say("cli.replayed", args.lang, count=len(done)))
    if missing:
        print(say("cli.not_found", args.lang, ids=", ".join(missing)))
    return 1 if missing else 0


def _deadletters_parser(sub: Any, common: argparse.ArgumentParser) -> None:
    dl = sub.add_parser(
        "deadletters",
        parents=[common],
        help="ops: messages the workers gave up on (after every retry)",
    )
    dls = dl.add_subparsers(dest="action", required=True)
    dll = dls.add_parser(
        "list", parents=[common], help="list the dead letters of the broker namespace"
    )
    dll.add_argument("--json", action="store_true", help="print them as a JSON list")
    dll.set_defaults(func=_deadletters)
    dlr = dls.add_parser("replay", parents=[common], help="send dead letters again (retries reset)")
    dlr.add_argument(
        "ids", nargs="*", help="dead letters' ids (the first column of `list`; or --all, not both)"
    )
    dlr.add_argument("--all", action="store_true", help="replay every dead letter")
    dlr.set_defaults(func=_deadletters)


def register(sub: Any, common: argparse.ArgumentParser, lang: Lang = "tr") -> None:
    """Add the operators' commands to the `seksenbir` sub-command parsers (refusals in `lang`)."""
    m = sub.add_parser(
        "migrate", parents=[common], help="apply the event store's schema migrations (idempotent)"
    )
    m.add_argument("--dsn", help="PostgreSQL DSN (default: SEKSENBIR_PG_DSN)")
    m.set_defaults(func=_migrate)
    sv = sub.add_parser(
        "serve",
        parents=[common],
        help="the HTTP gateway: command and query APIs and /metrics (uvicorn)",
    )
    sv.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    sv.add_argument(
        "--port", type=port(lang), default=8081, help="port to listen on (default 8081)"
    )
    sv.set_defaults(func=_serve)
    w = sub.add_parser(
        "worker", parents=[common], help="a Dramatiq worker: resolver, projections or notify"
    )
    w.add_argument(
        "kind", choices=["resolver", "projections", "notify"], help="which worker to run"
    )
    w.add_argument(
        "--processes", type=processes(lang), default=1, help="worker processes (default 1)"
    )
    w.add_argument("--threads", type=threads(lang), default=0, help=_THREADS)
    w.set_defaults(func=_worker)
    sc = sub.add_parser(
        "scheduler",
        parents=[common],
        help="hand the workers every live season's due work (registration close, Divan, "
        "Kurultay close) and every trial Divan requested and not resolved, from PostgreSQL, "
        "every SEKSENBIR_SWEEP_INTERVAL_S (5) seconds",
    )
    sc.set_defaults(func=_scheduler)
    u = sub.add_parser(
        "up", parents=[common], help="PostgreSQL, Redis, migrations, API and workers, all at once"
    )
    u.add_argument("--host", default="127.0.0.1", help="the API's address (default 127.0.0.1)")
    u.add_argument("--port", type=port(lang), default=8081, help="the API's port (default 8081)")
    u.add_argument(
        "--processes",
        type=processes(lang),
        default=None,
        help="resolver worker processes (default SEKSENBIR_RESOLVER_PROCESSES, 2)",
    )
    u.set_defaults(func=_up)
    pr = sub.add_parser(
        "projections", parents=[common], help="read models: rebuild one season or all"
    )
    prs = pr.add_subparsers(dest="action", required=True)
    rb = prs.add_parser(
        "rebuild", parents=[common], help="rebuild into a new key generation and switch atomically"
    )
    rb.add_argument("season", nargs="?", help="the season id to rebuild (or --all, not both)")
    rb.add_argument("--all", action="store_true", help="rebuild every season in the store")
    rb.add_argument("--dsn", help="PostgreSQL DSN (default: SEKSENBIR_PG_DSN)")
    rb.set_defaults(func=_rebuild)
    _deadletters_parser(sub, common)
