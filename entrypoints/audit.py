"""Ops and auditor verbs of the command line: export, verify, import, replay (issue 13).

`entrypoints/cli.py` only registers them (`register`); the format and its check are
shared/app/export.py, the replay views shared/app/replay_view.py (docs/export.md).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from shared.app.export import Export, Verdict
    from shared.eventstore import PostgresEventStore
    from shared.settings import Settings

T = TypeVar("T")
DSN_HELP = "PostgreSQL DSN (default: SEKSENBIR_PG_DSN)"


def register(sub: Any, common: Any = None, lang: Any = "tr") -> None:
    """Add export, verify, import and replay to the `seksenbir` sub-command parsers; `common`
    is the parser every command inherits (its --lang)."""
    from entrypoints.cli import _divans

    parents = [common] if common is not None else []
    e = sub.add_parser(
        "export",
        parents=parents,
        help="write one season's events with their hash-chain fields as seksenbir-export/1 "
        "JSON Lines (docs/export.md)",
    )
    e.add_argument("season", help="the season id")
    e.add_argument("--dsn", help=DSN_HELP)
    e.add_argument("-o", "--output", help="write to this file instead of standard output")
    e.set_defaults(func=_export)

    v = sub.add_parser(
        "verify",
        parents=parents,
        help="check a season: hash chain, a re-run of every Divan, the seed commitment; "
        "exit 0 only when all hold",
    )
    v.add_argument(
        "source",
        nargs="?",
        help="an export file (needs no database), or else a season id read from the database",
    )
    v.add_argument(
        "--all", action="store_true", help="verify every season in the database, with progress"
    )
    v.add_argument("--dsn", help=DSN_HELP)
    v.set_defaults(func=_verify)

    i = sub.add_parser(
        "import",
        parents=parents,
        help="load an exported season into this database (an audit copy); refuses a broken "
        "chain and a season id that exists",
    )
    i.add_argument("file", help="a seksenbir-export/1 file, as `seksenbir export` writes")
    i.add_argument("--dsn", help=DSN_HELP)
    i.set_defaults(func=_import)

    r = sub.add_parser(
        "replay",
        parents=parents,
        help="a season's state folded to a point, or one Divan re-run and compared with the "
        "record; writes nothing",
    )
    r.add_argument("source", help="a season id read from the database, or an export file")
    point = r.add_mutually_exclusive_group()
    point.add_argument(
        "--divan",
        type=_divans(lang),
        metavar="N",
        help="re-run Divan N from its recorded inputs and the seed, compare it event by event "
        "with the record (exit 1 on a difference) and show the state after it",
    )
    point.add_argument(
        "--as-of",
        type=_version,
        metavar="V",
        help="show the state after the season's first V events (its stream version V)",
    )
    r.add_argument("--json", action="store_true", help="print JSON instead of tables")
    r.add_argument("--dsn", help=DSN_HELP)
    r.set_defaults(func=_replay)


def _version(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if n < 0:
        raise argparse.ArgumentTypeError(f"{n}: a stream version is 0 or more")
    return n


# --- sources -------------------------------------------------------------------------------
def _settings() -> Settings:
    from shared.settings import Settings

    return Settings.from_env()


def _is_file(source: str, verb: str) -> bool:
    """A SOURCE names a file if one exists there; one that looks like a path and is missing is
    a usage error (SystemExit 2), not a season id to look up."""
    if Path(source).is_file():
        return True
    if "/" in source or source.endswith(FILE_SUFFIXES):
        print(f"seksenbir {verb}: {source}: no such file", file=sys.stderr)
        raise SystemExit(2)
    return False


FILE_SUFFIXES = (".jsonl", ".ndjson", ".json")


def _read_file(path: str) -> Export:
    from shared.app.export import parse

    with open(path, "rb") as f:
        return parse(f)


def _with_store(
    dsn: str | None,
    verb: str,
    work: Callable[[PostgresEventStore, str], Awaitable[int]],
    lang: Any = "tr",
) -> int:
    """Run `work` on a store over the database; a database with no event store is exit 2."""
    from entrypoints import bootstrap
    from shared.replay_store import describe_dsn

    settings = _settings()
    dsn = dsn or settings.pg_dsn

    async def run() -> int:
        import asyncpg

        try:
            async with bootstrap.event_store(settings, "cli", dsn=dsn) as store:
                return await work(store, describe_dsn(dsn))
        except asyncpg.UndefinedTableError:
            from entrypoints.cli import say

            text = say("cli.no_event_store", lang, database=describe_dsn(dsn))
            print(f"seksenbir {verb}: {text}", file=sys.stderr)
            return 2

    return asyncio.run(run())


async def _stored(store: PostgresEventStore, season_id: str) -> tuple[Export, str | None]:
    """A stored season as an Export (no header) and the store's own head check (None: ok)."""
    from shared.app.export import Export
    from shared.eventstore import ChainError

    records = await store.read_stream(season_id)
    try:
        await store.verify_chain(season_id)
        problem = None
    except ChainError as exc:
        problem = str(exc)
    return Export(season_id, None, None, records), problem


def _checked(export: Export, store_problem: str | None) -> Verdict:
    from shared.app.export import BadEvent, check

    verdict = check(export)
    if store_problem is not None and verdict.ok:
        # The events link, but not to the head the streams table holds: a cut or changed tail.
        last = len(export.records) - 1
        r = export.records[last]
        why = f"the stored stream head does not match: {store_problem}"
        verdict.hash_chain = f"broken: {why}"
        verdict.bad.append(BadEvent(last, r.version, str(r.event_id), r.type, why))
    return verdict


def _say(verdict: Verdict, in_file: bool, out: IO[str]) -> None:
    first = verdict.first_bad
    if first is None:
        print(
            f"season {verdict.season_id}: ok ({verdict.events} events; chain, every Divan "
            f"re-run; seed commitment: {verdict.seed_commitment})",
            file=out,
        )
        return
    line = f", line {first.index + 2}" if in_file else ""
    print(
        f"season {verdict.season_id}: FIRST EVENT THAT DOES NOT MATCH: version {first.version}"
        f"{line} ({first.type}, {first.event_id}): {first.why}",
        file=out,
    )


# --- export --------------------------------------------------------------------------------
def _operator() -> str:
    """Who runs the command line: the OS account (the ops-read trail's `actor`)."""
    import getpass

    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "unknown"


def _export(args: argparse.Namespace) -> int:
    from shared.app.export import export_lines
    from shared.eventstore import ChainError

    async def work(store: PostgresEventStore, database: str) -> int:
        records = await store.read_stream(args.season)
        if not records:
            print(f"seksenbir export: no season {args.season!r} in {database}", file=sys.stderr)
            return 1
        try:
            head = await store.verify_chain(args.season)
        except ChainError as exc:
            print(
                f"seksenbir export: the stored chain of {args.season!r} is broken ({exc}); "
                f"`seksenbir verify {args.season}` names the event",
                file=sys.stderr,
            )
            return 1
        # ADR-53: the export holds the seed and every order: recorded before a byte is written
        # (the operator by OS account: the command line has no token)
        await store.ops_reads.record(args.season, "export", f"cli:{_operator()}"[:64])
        out = open(args.output, "wb") if args.output else sys.stdout.buffer  # noqa: SIM115
        try:
            for line in export_lines(args.season, records, head):
                out.write(line)
            out.flush()
        except BrokenPipeError:  # `seksenbir export S | head`: the reader left; not an error
            import os

            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            return 0
        finally:
            if args.output:
                out.close()
        print(
            f"seksenbir export: {args.season}: {len(records)} events, head {head.hex()}",
            file=sys.stderr,
        )
        return 0

    return _with_store(args.dsn, "export", work, args.lang)


# --- verify --------------------------------------------------------------------------------
def _verify(args: argparse.Namespace) -> int:
    from shared.app.export import ExportError

    if args.all:
        if args.source:
            print("seksenbir verify: name a SOURCE or --all, not both", file=sys.stderr)
            return 2
        return _verify_all(args.dsn, args.lang)
    if not args.source:
        print(
            "seksenbir verify: name a SOURCE (an export file or a season id) or --all",
            file=sys.stderr,
        )
        return 2
    if _is_file(args.source, "verify"):
        try:
            export = _read_file(args.source)
        except (OSError, ExportError) as exc:
            print(json.dumps({"file": args.source, "error": str(exc)}, ensure_ascii=False))
            print(f"seksenbir verify: {args.source}: {exc}", file=sys.stderr)
            return 1
        verdict = _checked(export, None)
        out = {"file": args.source, "format": export.header.get("format"), **verdict.as_json(True)}
        print(json.dumps(out, ensure_ascii=False, indent=2))
        _say(verdict, True, sys.stderr)
        return 0 if verdict.ok else 1

    async def work(store: PostgresEventStore, database: str) -> int:
        export, problem = await _stored(store, args.source)
        if not export.records:
            print(
                json.dumps({"season": args.source, "database": database, "error": "no such season"})
            )
            return 1
        verdict = _checked(export, problem)
        print(
            json.dumps(
                {"database": database, **verdict.as_json(False)}, ensure_ascii=False, indent=2
            )
        )
        _say(verdict, False, sys.stderr)
        return 0 if verdict.ok else 1

    return _with_store(args.dsn, "verify", work, args.lang)


def _verify_all(dsn: str | None, lang: Any = "tr") -> int:
    async def work(store: PostgresEventStore, database: str) -> int:
        seasons = await store.list_seasons()
        started = time.perf_counter()
        failed: list[dict[str, Any]] = []
        events = 0
        for n, season_id in enumerate(seasons, start=1):
            export, problem = await _stored(store, season_id)
            verdict = _checked(export, problem)
            events += verdict.events
            first = verdict.first_bad
            mark = "ok" if first is None else f"FAILED at version {first.version}: {first.why}"
            print(f"[{n}/{len(seasons)}] {season_id}: {mark}", file=sys.stderr, flush=True)
            if first is not None:
                failed.append({"season": season_id, "first_bad_event": first.as_json(False)})
        seconds = time.perf_counter() - started
        summary = {
            "database": database,
            "seasons": len(seasons),
            "ok": len(seasons) - len(failed),
            "failed": failed,
            "events": events,
            "seconds": round(seconds, 3),
        }
        print(json.dumps(summary, ensure_ascii=False, indent=2))
        print(
            f"seksenbir verify --all: {summary['ok']} of {len(seasons)} seasons verify, "
            f"{len(failed)} fail ({events} events in {seconds:.1f} s)",
            file=sys.stderr,
        )
        return 0 if not failed else 1

    return _with_store(dsn, "verify", work, lang)


# --- import --------------------------------------------------------------------------------
IMPORT_BATCH = 500


def _import(args: argparse.Namespace) -> int:
    from shared.app.export import ExportError, check, to_new
    from shared.eventstore import ConcurrencyError, DuplicateEventError

    try:
        export = _read_file(args.file)
    except (OSError, ExportError) as exc:
        print(f"seksenbir import: {args.file}: {exc}", file=sys.stderr)
        return 1
    verdict = check(export)
    if verdict.hash_chain != "ok":
        first = verdict.first_bad
        where = f" at version {first.version}, line {first.index + 2}" if first else ""
        print(
            f"seksenbir import: refused, the chain of {args.file} is broken{where}: "
            f"{verdict.hash_chain}",
            file=sys.stderr,
        )
        return 1
    season_id = export.season_id

    async def work(store: PostgresEventStore, database: str) -> int:
        if await store.stream_version(season_id) > 0:
            print(
                f"seksenbir import: refused, season {season_id!r} exists in {database} "
                "already (an import never adds to or rewrites a stored season)",
                file=sys.stderr,
            )
            return 1
        version = 0
        records = export.records
        try:
            for start in range(0, len(records), IMPORT_BATCH):
                batch = records[start : start + IMPORT_BATCH]
                stored = await store.append(season_id, version, to_new(batch))
                for want, got in zip(batch, stored, strict=True):
                    if (want.version, want.hash) != (got.version, got.hash):  # pragma: no cover
                        raise RuntimeError(f"version {want.version} stored with another hash")
                version += len(batch)
        except (ConcurrencyError, DuplicateEventError) as exc:
            print(f"seksenbir import: refused: {exc}", file=sys.stderr)
            return 1
        print(
            f"seksenbir import: {season_id}: {len(records)} events into {database}, head "
            f"{records[-1].hash.hex() if records else ''}; replay: {verdict.replay}",
            file=sys.stderr,
        )
        return 0

    return _with_store(args.dsn, "import", work, args.lang)


# --- replay --------------------------------------------------------------------------------
def _replay(args: argparse.Namespace) -> int:
    from shared.app.export import ExportError

    if _is_file(args.source, "replay"):
        try:
            export = _read_file(args.source)
        except (OSError, ExportError) as exc:
            print(f"seksenbir replay: {args.source}: {exc}", file=sys.stderr)
            return 2
        return _replay_records(args, export)

    async def work(store: PostgresEventStore, database: str) -> int:
        export, _ = await _stored(store, args.source)
        if not export.records:
            print(f"seksenbir replay: no season {args.source!r} in {database}", file=sys.stderr)
            return 2
        return _replay_records(args, export)

    return _with_store(args.dsn, "replay", work, args.lang)


def _replay_records(args: argparse.Namespace, export: Export) -> int:
    from shared.app.replay_view import (
        ReplayError,
        corrections_json,
        corrections_text,
        rerun_divan,
        rerun_json,
        rerun_text,
        state_json,
        state_table,
        upto_divan,
    )
    from shared.domain import codec
    from shared.domain.evolve import fold
    from shared.eventstore import ChainError, verify_chain

    try:
        verify_chain(export.records)
    except ChainError as exc:  # replay still shows the record; it does not vouch for it
        print(
            f"seksenbir replay: warning: the hash chain does not verify ({exc}); "
            "`seksenbir verify` names the first event that does not match",
            file=sys.stderr,
        )
    events = [codec.decode_event(r.data) for r in export.records]
    rerun = None
    try:
        if args.divan is not None:
            rerun = rerun_divan(events, args.divan)
            upto = upto_divan(events, args.divan)
        elif args.as_of is not None:
            if args.as_of > len(events):
                raise ReplayError(f"version {args.as_of}: the season has {len(events)} events")
            upto = args.as_of
        else:
            upto = len(events)
    except ReplayError as exc:
        print(f"seksenbir replay: {exc}", file=sys.stderr)
        return 2
    view = state_json(fold(events[:upto]), upto)
    corrections = corrections_json(events, upto)  # ADR-53: shown beside what they compensate
    if args.json:
        out: dict[str, Any] = {"state": view, "corrections": corrections}
        if rerun is not None:
            out["rerun"] = rerun_json(rerun)
        print(json.dumps(out, ensure_ascii=False, indent=2))
    else:
        if rerun is not None:
            print(rerun_text(rerun))
            print()
        print(state_table(view))
        if corrections:
            print()
            print(corrections_text(corrections))
    return 0 if rerun is None or rerun.ok else 1
