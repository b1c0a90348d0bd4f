"""The `seksenbir` command line: adjudicate, simulate (and, with the services, migrate/up/…).

Every line it writes for people is Turkish, or English with `--lang en` (before or after the
command: `seksenbir --lang en simulate …`), from the catalogue shared.domain.messages; JSON
output is data (its keys and values stay as they are; report lines carry both texts).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from shared.replay_store import DatabaseUnreachable, RedisUnreachable, Unreachable

if TYPE_CHECKING:
    from shared.domain.messages import Lang
    from shared.settings import Settings


def say(key: str, lang: Lang, **params: object) -> str:
    """A line for people, in `lang` (shared.domain.messages); a parameter that is a Said (an
    export's why, a chain reason) is rendered in `lang` too."""
    from shared.domain.messages import Said

    return Said(key, **params).text(lang)


def os_error(exc: OSError, lang: Lang) -> str:
    """A file that cannot be read, for people in `lang` (the OS's own text is English only)."""
    import errno

    source = exc.filename if exc.filename is not None else ""
    if isinstance(exc, FileNotFoundError):
        return say("audit.no_such_file", lang, source=source)
    if isinstance(exc, PermissionError):
        return say("cli.no_permission", lang, source=source)
    code = errno.errorcode.get(exc.errno or 0, str(exc.errno))
    return say("cli.unreadable", lang, source=source, error=code)


def _adjudicate(args: argparse.Namespace) -> int:
    from shared.domain import scenario

    try:
        sc = scenario.load(Path(args.file).read_bytes())
        out = scenario.run(sc)
    except scenario.ScenarioError as exc:
        print(f"seksenbir adjudicate: {exc.text(args.lang)}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"seksenbir adjudicate: {os_error(exc, args.lang)}", file=sys.stderr)
        return 2
    diffs = scenario.differences(sc.expected, out, args.lang) if sc.expected is not None else []
    if sc.expected is not None:
        out["differences"] = diffs
    print(json.dumps(out, ensure_ascii=False, indent=2, default=list))
    for d in diffs:
        print(f"{say('cli.diff', args.lang)} {d}", file=sys.stderr)
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
    from shared.domain.state import NAMED_REPORT_VERSION

    steps = []
    # the report version of the seasons the API creates (ADR-62: one language per line)
    for step in season(args.seed, args.divans, report_version=NAMED_REPORT_VERSION):
        if step.divan == 0:
            continue
        summary = _summary(step, args.lang)
        steps.append(summary)
        if args.json:
            continue
        if "kurultay" in summary:
            print("\n" + say("cli.kurultay", args.lang))
            for line in summary["report"]:
                print(f"  {line['text']}")
            continue
        print("\n" + say("cli.divan", args.lang, divan=summary["divan"]))
        for line in summary["report"]:
            if line["kind"] != "orders_sealed":  # digests for an audit: in --json only
                print(f"  {line['text']}")
        tops = ", ".join(
            say("cli.standing", args.lang, seat=s["seat"], score=s["score"])
            for s in summary["standings"]
        )
        print("  " + say("cli.standings", args.lang, standings=tops))
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
    dsn = args.dsn or settings.pg_dsn
    try:
        applied = asyncio.run(migrate(dsn))
    except bootstrap.UNREACHABLE as exc:
        raise DatabaseUnreachable(dsn, exc) from exc
    if applied:
        print(say("cli.migrated", args.lang, applied=", ".join(applied)))
    else:
        print(say("cli.migrated_nothing", args.lang))
    return 0


def _serve(args: argparse.Namespace) -> int:
    import uvicorn

    from entrypoints import bootstrap
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
    )
    return 0


WORKER_MODULES = {
    "resolver": "entrypoints.resolver_worker",
    "projections": "entrypoints.projections_worker",
}


def worker_environment(kind: str, settings: Settings, env: dict[str, str]) -> dict[str, str]:
    """A worker's environment: the launcher's, Dramatiq's own `dramatiq_worker_timeout` (ms a
    worker thread waits for work before it looks whether it should stop; 250 unless set: it bounds
    a stop after SIGTERM, ADR-54) and its metrics variables."""
    from shared.app.queues import worker_metrics

    env = {"dramatiq_worker_timeout": "250", **env}
    return {**env, **worker_metrics(kind, settings.worker_metrics_port, env)}


def _worker(args: argparse.Namespace) -> int:
    import os

    from shared.settings import Settings, environment

    env = worker_environment(args.kind, Settings.from_env(), environment())
    cmd = [
        sys.executable,
        "-m",
        "entrypoints.dramatiq_main",  # Dramatiq's CLI, its records in the one log format
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
    return up(settings, args.host, args.port, args.processes, args.lang)


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
                for season_id in seasons:
                    events = await projector.rebuild(season_id)
                    print(say("cli.rebuilt", args.lang, season=season_id, events=events))
        except (redis_errors.ConnectionError, redis_errors.TimeoutError) as exc:
            raise RedisUnreachable(settings.read_redis, exc) from exc
        finally:
            await redis.aclose()
        return 0

    if not args.all and not args.season:
        text = say("cli.rebuild_what", args.lang)
        print(f"seksenbir projections rebuild: {text}", file=sys.stderr)
        return 2
    if args.season:
        from entrypoints.audit import possible_season

        possible_season(args.season, "projections rebuild", args.lang)
    return asyncio.run(run())


def _deadletters(args: argparse.Namespace) -> int:
    """Ops: list the messages the workers gave up on, or send them again (deadletters.py)."""
    import redis

    from entrypoints import deadletters
    from shared.app.rabbit_broker import is_amqp
    from shared.settings import Settings

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
    import json

    from entrypoints import bootstrap

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
    if not args.all and not args.ids:
        text = say("cli.replay_what", args.lang)
        print(f"seksenbir deadletters replay: {text}", file=sys.stderr)
        return 2
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


def bounded_int(
    lang: Lang, accept: Callable[[int], bool], key: str, **params: object
) -> Callable[[str], int]:
    """An argparse type: an integer `accept` takes; anything else is refused by argparse
    (exit 2) in `lang`: not a number, or the catalogue's `key` with `n` and `params`."""

    def parse(text: str) -> int:
        try:
            n = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(say("cli.not_a_number", lang, text=text)) from None
        if not accept(n):
            raise argparse.ArgumentTypeError(say(key, lang, n=n, **params))
        return n

    return parse


def _divans(lang: Lang) -> Callable[[str], int]:
    """R-1.1: a season has Divans 1 … 16; anything else is refused by argparse (exit 2)."""
    from shared.domain.state import DIVANS

    return bounded_int(lang, lambda n: 1 <= n <= DIVANS, "cli.divans", last=DIVANS)


def _seed(lang: Lang) -> Callable[[str], int]:
    """R-1.5: a seed is 0 … 2^63 − 1 (as `POST /seasons` takes it); argparse refuses the rest."""
    return bounded_int(lang, lambda n: 0 <= n < 2**63, "cli.seed")


def _language(argv: Sequence[str]) -> Lang:
    """The --lang given anywhere in argv (read first, so argparse's own refusals use it)."""
    from shared.domain.messages import language

    for i, arg in enumerate(argv):
        if arg == "--lang" and i + 1 < len(argv):
            return language(argv[i + 1])
        if arg.startswith("--lang="):
            return language(arg.partition("=")[2])
    return language(None)


LANG_HELP = "language of the lines for people: tr (default) or en"


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
    dlr.add_argument("ids", nargs="*", help="dead letters' ids (the first column of `list`)")
    dlr.add_argument("--all", action="store_true", help="replay every dead letter")
    dlr.set_defaults(func=_deadletters)


def parser(lang: Lang = "tr") -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="seksenbir", description="Seksenbir game server")
    p.add_argument("--lang", choices=["tr", "en"], default="tr", help=LANG_HELP)
    # every command takes --lang after its name too; only a given one overrides the default
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--lang", choices=["tr", "en"], default=argparse.SUPPRESS, help=LANG_HELP)
    sub = p.add_subparsers(dest="command", required=True)
    a = sub.add_parser(
        "adjudicate", parents=[common], help="resolve one Divan from a seksenbir-scenario/1 file"
    )
    a.add_argument("file", help="the scenario file (JSON); `expected` in it is compared")
    a.set_defaults(func=_adjudicate)
    s = sub.add_parser("simulate", parents=[common], help="a whole trial season of computer beys")
    s.add_argument(
        "--seed",
        type=_seed(lang),
        required=True,
        help="the season seed (0 … 2^63−1): same seed, same season",
    )
    s.add_argument(
        "--divans",
        type=_divans(lang),
        default=16,
        help="how many Divans to play, 1 … 16 (default 16)",
    )
    s.add_argument(
        "--json",
        action="store_true",
        help="print the whole season as one JSON document instead of text",
    )
    s.set_defaults(func=_simulate)
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
    sv.add_argument("--port", type=int, default=8081, help="port to listen on (default 8081)")
    sv.set_defaults(func=_serve)
    w = sub.add_parser(
        "worker", parents=[common], help="a Dramatiq worker: resolver or projections"
    )
    w.add_argument("kind", choices=["resolver", "projections"], help="which worker to run")
    w.add_argument("--processes", type=int, default=1, help="worker processes (default 1)")
    w.add_argument("--threads", type=int, default=2, help="threads per process (default 2)")
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
    u.add_argument("--port", type=int, default=8081, help="the API's port (default 8081)")
    u.add_argument("--processes", type=int, default=1, help="resolver worker processes (default 1)")
    u.set_defaults(func=_up)
    pr = sub.add_parser(
        "projections", parents=[common], help="read models: rebuild one season or all"
    )
    prs = pr.add_subparsers(dest="action", required=True)
    rb = prs.add_parser(
        "rebuild", parents=[common], help="rebuild into a new key generation and switch atomically"
    )
    rb.add_argument("season", nargs="?", help="the season id to rebuild (or --all)")
    rb.add_argument("--all", action="store_true", help="rebuild every season in the store")
    rb.add_argument("--dsn", help="PostgreSQL DSN (default: SEKSENBIR_PG_DSN)")
    rb.set_defaults(func=_rebuild)
    _deadletters_parser(sub, common)
    from entrypoints import audit  # export, verify, import, replay (issue 13)

    audit.register(sub, common, lang)
    if lang == "tr":  # the language policy: Turkish by default, English with --lang en
        from entrypoints.cli_help import localise

        localise(p)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    args = parser(_language(argv)).parse_args(argv)
    try:
        code = int(args.func(args))
        sys.stdout.flush()  # a reader that left shows here, not at exit
    except Unreachable as exc:  # a wrong --dsn or URL, a server not started: one line, exit 2
        text = say(exc.key, args.lang, where=exc.where, reason=exc.reason)
        print(f"seksenbir {args.command}: {text}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # `seksenbir replay S --json | head`: the reader left; not an error
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except OSError as exc:  # `seksenbir verify F > /dev/full`, a file gone mid-way: one line
        import errno
        import os

        code_name = errno.errorcode.get(exc.errno or 0, str(exc))
        target = str(exc.filename) if exc.filename is not None else "stdout"
        print(
            f"seksenbir {args.command}: "
            + say("cli.io_failed", args.lang, target=target, error=code_name),
            file=sys.stderr,
        )
        if exc.filename is None:  # what is left in stdout's buffer cannot be flushed at exit
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    return code


if __name__ == "__main__":
    raise SystemExit(main())
