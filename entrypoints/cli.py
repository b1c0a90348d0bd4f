"""The `seksenbir` command line: adjudicate, simulate (and, with the services, migrate/up/…)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

if TYPE_CHECKING:
    from shared.settings import Settings


def _adjudicate(args: argparse.Namespace) -> int:
    from shared.domain import scenario

    try:
        sc = scenario.load(Path(args.file).read_bytes())
        out = scenario.run(sc)
    except (OSError, scenario.ScenarioError) as exc:
        print(f"seksenbir adjudicate: {exc}", file=sys.stderr)
        return 2
    diffs = scenario.differences(sc.expected, out) if sc.expected is not None else []
    if sc.expected is not None:
        out["differences"] = diffs
    print(json.dumps(out, ensure_ascii=False, indent=2, default=list))
    for d in diffs:
        print(f"DIFF {d}", file=sys.stderr)
    return 1 if diffs else 0


def _summary(step: Any, lang: str) -> dict[str, Any]:
    from shared.domain import events as ev
    from shared.domain.report_lines import kurultay
    from shared.domain.simulate import current_standings

    public: list[Any] = []
    for e in step.events:
        if isinstance(e, ev.DivanResolved):
            public = [
                {"kind": line.kind, "text": getattr(line, lang), **line.data} for line in e.public
            ]
        if isinstance(e, ev.KurultayHeld):
            lines = [
                {"kind": line.kind, "text": getattr(line, lang), **line.data}
                for line in kurultay(e)
            ]
            return {"kurultay": msgspec.to_builtins(e), "report": lines}
    return {
        "divan": step.divan,
        "report": public,
        "standings": [{"seat": s, "score": sc} for s, sc in current_standings(step.state)[:5]],
    }


def _simulate(args: argparse.Namespace) -> int:
    from shared.domain.simulate import season

    steps = []
    for step in season(args.seed, args.divans):
        if step.divan == 0:
            continue
        summary = _summary(step, args.lang)
        steps.append(summary)
        if args.json:
            continue
        if "kurultay" in summary:
            print("\n== Kurultay ==")
            for line in summary["report"]:
                print(f"  {line['text']}")
            continue
        print(f"\n== {summary['divan']}. Divan ==")
        for line in summary["report"]:
            print(f"  {line['text']}")
        tops = ", ".join(f"{s['seat']}. bey {s['score']}" for s in summary["standings"])
        print(f"  Sıralama: {tops}")
    if args.json:
        print(json.dumps(steps, ensure_ascii=False, default=list))
    return 0


def _migrate(args: argparse.Namespace) -> int:
    import asyncio

    from entrypoints import bootstrap
    from shared.eventstore import migrate
    from shared.settings import Settings

    settings = Settings.from_env()
    bootstrap.configure(settings)  # migration.applied lines in the one log format
    applied = asyncio.run(migrate(args.dsn or settings.pg_dsn))
    print("applied: " + (", ".join(applied) if applied else "nothing (up to date)"))
    return 0


def _serve(args: argparse.Namespace) -> int:
    import uvicorn

    from entrypoints import bootstrap
    from shared.settings import Settings

    bootstrap.configure(Settings.from_env())
    # No access log: a client that puts a token in a query string must not have it logged.
    uvicorn.run(
        "entrypoints.gateway:app_from_env",
        factory=True,
        host=args.host,
        port=args.port,
        access_log=False,
        # The app derives client addresses itself, trusting only SEKSENBIR_TRUSTED_PROXIES;
        # uvicorn's default would take X-Forwarded-For from any client on 127.0.0.1.
        proxy_headers=False,
    )
    return 0


WORKER_MODULES = {
    "resolver": "entrypoints.resolver_worker",
    "projections": "entrypoints.projections_worker",
}


def worker_environment(kind: str, settings: Settings, env: dict[str, str]) -> dict[str, str]:
    """A worker's environment: the launcher's, Dramatiq's own `dramatiq_worker_timeout` (ms a
    worker waits for a message; 20 unless set, for fast trials) and its metrics variables."""
    from shared.app.queues import worker_metrics

    env = {"dramatiq_worker_timeout": "20", **env}
    return {**env, **worker_metrics(kind, settings.worker_metrics_port, env)}


def _worker(args: argparse.Namespace) -> int:
    import os

    from shared.settings import Settings, environment

    env = worker_environment(args.kind, Settings.from_env(), environment())
    cmd = [
        sys.executable,
        "-m",
        "dramatiq",
        WORKER_MODULES[args.kind],
        "--processes",
        str(args.processes),
        "--threads",
        str(args.threads),
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
    from entrypoints.stack import up
    from shared.settings import Settings

    settings = Settings.from_env()
    bootstrap.configure(settings)  # the launcher's own records (migrations …) as JSON too
    return up(settings, args.host, args.port, args.processes)


def _verify(args: argparse.Namespace) -> int:
    import asyncio

    from entrypoints import bootstrap
    from shared.replay_store import describe_dsn, verify_season
    from shared.settings import Settings

    settings = Settings.from_env()
    dsn = args.dsn or settings.pg_dsn

    async def run() -> int:
        import asyncpg

        try:
            async with bootstrap.event_store(settings, "cli", dsn=dsn) as store:
                records = await store.read_stream(args.season)
        except asyncpg.UndefinedTableError:
            print(
                f"seksenbir verify: {describe_dsn(dsn)} holds no event store (run `seksenbir "
                "migrate`, or name the database with --dsn / SEKSENBIR_PG_DSN; `seksenbir up` "
                "uses the database seksenbir on a local server)",
                file=sys.stderr,
            )
            return 2
        return verify_season(args.season, records, database=describe_dsn(dsn))

    return asyncio.run(run())


def _rebuild(args: argparse.Namespace) -> int:
    import asyncio

    from entrypoints import bootstrap
    from services.projections.projector import Projector
    from shared.settings import Settings

    async def run() -> int:
        settings = Settings.from_env()
        redis = bootstrap.redis_client(settings)
        try:
            async with bootstrap.event_store(settings, "cli", dsn=args.dsn) as store:
                projector = Projector(store, redis, settings.projection_prefix)
                seasons = await projector.store.list_seasons() if args.all else [args.season]
                for season_id in seasons:
                    events = await projector.rebuild(season_id)
                    print(f"{season_id}: rebuilt from {events} events")
        finally:
            await redis.aclose()
        return 0

    if not args.all and not args.season:
        print("seksenbir projections rebuild: name a SEASON or --all", file=sys.stderr)
        return 2
    return asyncio.run(run())


def _deadletters(args: argparse.Namespace) -> int:
    """Ops: list the messages the workers gave up on, or send them again (deadletters.py)."""
    import json

    import redis

    from entrypoints import bootstrap, deadletters
    from shared.settings import Settings

    settings = Settings.from_env()
    client = redis.Redis.from_url(settings.broker_redis)
    try:
        if args.action == "list":
            letters = deadletters.dead_letters(client, settings.broker_namespace)
            if args.json:
                print(json.dumps([d.as_json() for d in letters], ensure_ascii=False, indent=1))
            for d in [] if args.json else letters:
                when = d.died_at.isoformat(timespec="seconds")
                print(f"{d.id}  {d.queue}  {d.actor_name}{list(d.args)}  {when}  {d.error}")
            if not args.json:
                print(f"{len(letters)} dead letter(s) in namespace {settings.broker_namespace}")
            return 0
        if not args.all and not args.ids:
            print("seksenbir deadletters replay: name message ids or --all", file=sys.stderr)
            return 2
        broker = bootstrap.broker(settings)
        try:
            ids = None if args.all else args.ids
            done = deadletters.replay(client, broker, settings.broker_namespace, ids)
        finally:
            broker.close()
        missing = [] if ids is None else sorted(set(ids) - set(done))
        tail = f"; not found: {missing}" if missing else ""
        print(f"replayed {len(done)} dead letter(s){tail}")
        return 1 if missing else 0
    finally:
        client.close()


def _divans(text: str) -> int:
    """R-1.1: a season has Divans 1 … 16; anything else is refused by argparse (exit 2)."""
    from shared.domain.state import DIVANS

    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if not 1 <= n <= DIVANS:
        raise argparse.ArgumentTypeError(
            f"{n}: a season has Divans 1 … {DIVANS} (R-1.1); give 1 … {DIVANS}"
        )
    return n


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="seksenbir", description="Seksenbir game server")
    sub = p.add_subparsers(dest="command", required=True)
    a = sub.add_parser("adjudicate", help="resolve one Divan from a seksenbir-scenario/1 file")
    a.add_argument("file")
    a.set_defaults(func=_adjudicate)
    s = sub.add_parser("simulate", help="a whole trial season of computer beys")
    s.add_argument("--seed", type=int, required=True)
    s.add_argument(
        "--divans", type=_divans, default=16, help="how many Divans to play, 1 … 16 (default 16)"
    )
    s.add_argument("--json", action="store_true")
    s.add_argument("--lang", choices=["tr", "en"], default="tr")
    s.set_defaults(func=_simulate)
    m = sub.add_parser("migrate", help="apply the event store's schema migrations (idempotent)")
    m.add_argument("--dsn", help="PostgreSQL DSN (default: SEKSENBIR_PG_DSN)")
    m.set_defaults(func=_migrate)
    sv = sub.add_parser(
        "serve", help="the HTTP gateway: command and query APIs and /metrics (uvicorn)"
    )
    sv.add_argument("--host", default="127.0.0.1")
    sv.add_argument("--port", type=int, default=8081)
    sv.set_defaults(func=_serve)
    w = sub.add_parser("worker", help="a Dramatiq worker: resolver or projections")
    w.add_argument("kind", choices=["resolver", "projections"])
    w.add_argument("--processes", type=int, default=1)
    w.add_argument("--threads", type=int, default=2)
    w.set_defaults(func=_worker)
    sc = sub.add_parser(
        "scheduler",
        help="re-enqueue every Divan requested and not resolved, from PostgreSQL, every "
        "SEKSENBIR_SWEEP_INTERVAL_S (5) seconds",
    )
    sc.set_defaults(func=_scheduler)
    u = sub.add_parser("up", help="PostgreSQL, Redis, migrations, API and workers, all at once")
    u.add_argument("--host", default="127.0.0.1")
    u.add_argument("--port", type=int, default=8081)
    u.add_argument("--processes", type=int, default=1)
    u.set_defaults(func=_up)
    pr = sub.add_parser("projections", help="read models: rebuild one season or all")
    prs = pr.add_subparsers(dest="action", required=True)
    rb = prs.add_parser("rebuild", help="rebuild into a new key generation and switch atomically")
    rb.add_argument("season", nargs="?")
    rb.add_argument("--all", action="store_true")
    rb.add_argument("--dsn", help="PostgreSQL DSN (default: SEKSENBIR_PG_DSN)")
    rb.set_defaults(func=_rebuild)
    dl = sub.add_parser(
        "deadletters", help="ops: messages the workers gave up on (after every retry)"
    )
    dls = dl.add_subparsers(dest="action", required=True)
    dll = dls.add_parser("list", help="list the dead letters of the broker namespace")
    dll.add_argument("--json", action="store_true", help="print them as a JSON list")
    dll.set_defaults(func=_deadletters)
    dlr = dls.add_parser("replay", help="send dead letters again (retries reset)")
    dlr.add_argument("ids", nargs="*", help="dead letters' ids (the first column of `list`)")
    dlr.add_argument("--all", action="store_true", help="replay every dead letter")
    dlr.set_defaults(func=_deadletters)
    v = sub.add_parser("verify", help="ops: replay a season from its events and report mismatches")
    v.add_argument("season")
    v.add_argument("--dsn", help="PostgreSQL DSN (default: SEKSENBIR_PG_DSN)")
    v.set_defaults(func=_verify)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    return int(args.func(args))


if __name__ == "__main__":
    raise SystemExit(main())
