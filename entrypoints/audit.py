"""Ops and auditor verbs of the command line: export, verify, import, replay (issue 13).

`entrypoints/cli.py` only registers them (`register`); the format and its check are
shared/app/export.py, the replay views shared/app/replay_view.py (docs/export.md).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import sys
import time
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from shared.app.export import Export, Verdict
    from shared.domain.messages import Said
    from shared.eventstore import PostgresEventStore, RecordedEvent
    from shared.settings import Settings

T = TypeVar("T")


def _t(key: str, lang: Any, **params: object) -> str:
    """A line for people in `lang`, from the catalogue (shared.domain.messages)."""
    from entrypoints.cli import say

    return say(key, lang, **params)


DSN_HELP = "PostgreSQL DSN (default: SEKSENBIR_PG_DSN)"


def register(sub: Any, common: Any = None, lang: Any = "tr") -> None:
    """Add export, verify, import and replay to the `seksenbir` sub-command parsers; `common`
    is the parser every command inherits (its --lang)."""
    from entrypoints.cli import _divans

    parents = [common] if common is not None else []
    e = sub.add_parser(
        "export",
        parents=parents,
        help="write one season's events with their hash-chain fields as seksenbir-export/2 "
        "JSON Lines (docs/export.md)",
    )
    e.add_argument("season", help="the season id")
    e.add_argument("--dsn", help=DSN_HELP)
    e.add_argument("-o", "--output", help="write to this file instead of standard output")
    e.add_argument(
        "--redact",
        action="store_true",
        help="an auditor's export (R-14): while the season is not over, leave out the data of "
        "events that hold what auditors may not see, keeping each one's digest",
    )
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
    v.add_argument(
        "--heads",
        metavar="FILE",
        help="also check the chain heads the Divan reports published (a saved answer of "
        "GET /v1/seasons/{id}/reports, or a list of {divan, version, hash})",
    )
    v.add_argument("--dsn", help=DSN_HELP)
    v.set_defaults(func=_verify)

    i = sub.add_parser(
        "import",
        parents=parents,
        help="load an exported season into this database (an audit copy); refuses a broken "
        "chain and a season id that exists",
    )
    i.add_argument("file", help="a seksenbir-export/2 (or /1) file, as `seksenbir export` writes")
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
        type=_version(lang),
        metavar="V",
        help="show the state after the season's first V events (its stream version V)",
    )
    r.add_argument("--json", action="store_true", help="print JSON instead of tables")
    r.add_argument("--dsn", help=DSN_HELP)
    r.set_defaults(func=_replay)

    x = sub.add_parser(
        "explain",
        parents=parents,
        help="one Divan verified and explained battle by battle: attackers, supports and how "
        "each was classified, bonuses, dice with their keys, rules, outcome",
    )
    x.add_argument("source", help="a season id read from the database, or an export file")
    x.add_argument("divan", type=_divans(lang), help="the Divan, 1 … 16")
    x.add_argument(
        "province",
        nargs="*",
        type=_plates(lang),
        help="only the battles at these plates (default: all)",
    )
    x.add_argument("--json", action="store_true", help="print JSON (the ops endpoint's answer)")
    x.add_argument("--dsn", help=DSN_HELP)
    x.set_defaults(func=_explain)

    w = sub.add_parser(
        "what-if",
        parents=parents,
        help="re-run one Divan with orders changed, added or removed or dice pinned, and show "
        "the difference from the record; writes nothing",
    )
    w.add_argument("source", help="a season id read from the database, or an export file")
    w.add_argument("divan", type=_divans(lang), help="the Divan, 1 … 16")
    w.add_argument(
        "--file",
        required=True,
        help='the changes as JSON: {"orders": [{"seat", "from", "kind", "to", "units"}], '
        '"dice": [{"target", "side", "value"}]} (kind "remove" takes an order away)',
    )
    w.add_argument("--json", action="store_true", help="print JSON (the ops endpoint's answer)")
    w.add_argument("--dsn", help=DSN_HELP)
    w.set_defaults(func=_what_if)

    _register_fork(sub, parents)

    sh = sub.add_parser(
        "shadow",
        parents=parents,
        help="run every Divan of the given seasons through another build's `seksenbir "
        "adjudicate` and list every Divan whose outcome would change; changes nothing",
    )
    sh.add_argument("sources", nargs="*", help="season ids read from the database, or export files")
    sh.add_argument("--all", action="store_true", help="every season in the database")
    sh.add_argument(
        "--adjudicate-cmd",
        required=True,
        help="the other build's adjudicate command, e.g. \"/other/venv/bin/seksenbir "
        "adjudicate\"; the scenario file's path is added",
    )
    sh.add_argument("--dsn", help=DSN_HELP)
    sh.set_defaults(func=_shadow)


def _register_fork(sub: Any, parents: list[Any]) -> None:
    """`seksenbir fork` (issue 13, D-32)."""
    f = sub.add_parser(
        "fork",
        parents=parents,
        help="start a new trial season from the state after Divan N of a season, you in seat "
        "S (as POST /v1/seasons/{id}/fork by ops); prints its id and token",
    )
    f.add_argument("season", help="the season id read from the database")
    f.add_argument(
        "--divan",
        type=int,
        required=True,
        metavar="N",
        help="the Divan whose resulting state the fork starts from (0: before Divan 1)",
    )
    f.add_argument("--seat", type=int, required=True, metavar="S", help="your seat, 1 … 19")
    f.add_argument("--dsn", help=DSN_HELP)
    f.set_defaults(func=_fork)


def _plates(lang: Any) -> Callable[[str], int]:
    """A province's plate, 1 … 81 (as `?province=` of the explain endpoint); anything else is
    refused by argparse (exit 2), in `lang`, never "no battle at 999"."""
    from entrypoints.cli import bounded_int
    from shared.domain.map import PLATES

    return bounded_int(lang, lambda n: n in PLATES, "audit.plate", last=PLATES[-1])


def _version(lang: Any) -> Callable[[str], int]:
    """A stream version, 0 or more; anything else is refused by argparse (exit 2), in `lang`."""
    from entrypoints.cli import bounded_int

    return bounded_int(lang, lambda n: n >= 0, "audit.version_negative")


# --- sources -------------------------------------------------------------------------------
def _settings() -> Settings:
    from shared.settings import Settings

    return Settings.from_env()


def _is_file(source: str, verb: str, lang: Any = "tr") -> bool:
    """A SOURCE names a file if one exists there; one that looks like a path and is missing is
    a usage error (SystemExit 2), not a season id to look up; so is an id no season can have."""
    if Path(source).is_file():
        return True
    if "/" in source or source.endswith(FILE_SUFFIXES):
        print(f"seksenbir {verb}: {_t('audit.no_such_file', lang, source=source)}", file=sys.stderr)
        raise SystemExit(2)
    possible_season(source, verb, lang)
    return False


def possible_season(season_id: str, verb: str, lang: Any = "tr") -> str:
    """The season id, if a season can have it (shared.eventstore.model.possible_season_id);
    else one line and SystemExit 2 before the database is asked (issue 20: a NUL, or an
    invalid UTF-8 byte of the command line, reached asyncpg and ended in a traceback)."""
    from shared.eventstore.model import MAX_SEASON_ID, possible_season_id

    if not possible_season_id(season_id):
        # repr: the id as escapes, never a control character or a lone surrogate on a terminal
        text = _t("audit.impossible_season", lang, season=ascii(season_id), most=MAX_SEASON_ID)
        print(f"seksenbir {verb}: {text}", file=sys.stderr)
        raise SystemExit(2)
    return season_id


FILE_SUFFIXES = (".jsonl", ".ndjson", ".json")


def _why(exc: Exception, lang: Any, source: str) -> str:
    """Why a file could not be read, for people in `lang`: an ExportError's text, or the OS's."""
    from entrypoints.cli import os_error
    from shared.app.export import ExportError

    if isinstance(exc, ExportError):
        return f"{source}: {exc.said.text(lang)}"
    if isinstance(exc, OSError):
        return os_error(exc, lang)
    return f"{source}: {exc}"


def _read_file(path: str) -> Export:
    from shared.app.export import bounded_lines, parse

    with open(path, "rb") as f:
        return parse(bounded_lines(f))


def _decoded(export: Export) -> list[Any]:
    """Every event of an export decoded, for the verbs that fold it (replay, explain, what-if,
    shadow); ExportError naming the line for a redacted export (its left-out data cannot be
    folded) or an event that does not decode, never a traceback."""
    from shared.app.export import ExportError
    from shared.domain import codec
    from shared.domain.messages import Said

    if export.redacted:
        raise ExportError(
            min(export.redacted) + 2, Said("audit.needs_full", n=len(export.redacted))
        )
    events = []
    for i, record in enumerate(export.records):
        try:
            events.append(codec.decode_stored(record.data, record.type))
        except ValueError as exc:  # msgspec's DecodeError and ValidationError are ValueErrors
            raise ExportError(i + 2, Said("export.not_an_event", error=str(exc))) from None
    return events


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


async def _stored(store: PostgresEventStore, season_id: str) -> tuple[Export, Said | None]:
    """A stored season as an Export (no header) and the store's own head check (None: ok)."""
    from shared.app.export import Export, chain_error
    from shared.eventstore import GENESIS, ChainError, verify_chain

    records, stored, chain = await store.read_with_head(season_id)  # one snapshot
    try:
        head = verify_chain(records, chain=chain)
        if head != (stored or GENESIS):
            raise ChainError(season_id, len(records), "chain does not end at the stream head")
        problem = None
    except ChainError as exc:
        problem = chain_error(exc)
    return Export(season_id, None, None, records, chain=chain), problem


def _heads(path: str | None, lang: Any) -> list[Any] | None:
    """The published heads of `--heads FILE` (None without it); SystemExit 2 for a bad file."""
    if path is None:
        return None
    from shared.app.export import parse_heads

    try:
        with open(path, "rb") as f:
            return list(parse_heads(json.load(f)))
    except (OSError, ValueError, RecursionError) as exc:
        if isinstance(exc, RecursionError):  # a file nested too deep to parse: not heads
            exc = ValueError("nested too deeply")
        print(
            f"seksenbir verify: {_t('audit.heads_file', lang, file=path, error=exc)}",
            file=sys.stderr,
        )
        raise SystemExit(2) from None


def _checked(export: Export, store_problem: Said | None, heads: list[Any] | None = None) -> Verdict:
    from shared.app.export import BadEvent, check
    from shared.domain.messages import Said

    verdict = check(export, heads)
    if store_problem is not None and verdict.ok:
        # The events link, but not to the head the streams table holds: a cut or changed tail.
        last = len(export.records) - 1
        r = export.records[last]
        why = Said("export.stored_head", error=store_problem)
        verdict.hash_chain = Said("cli.chain_broken", error=why)
        verdict.bad.append(BadEvent(last, r.version, str(r.event_id), r.type, why))
    return verdict


def _code(verdict: Verdict) -> int:
    """0 all hold; 1 something does not match; 3 a redacted export whose chain (and heads)
    hold but whose Divans need a full export to be re-run (docs/export.md)."""
    if not verdict.ok:
        return 1
    return 0 if verdict.complete else 3


def _say(verdict: Verdict, in_file: bool, out: IO[str], lang: Any = "tr") -> None:
    first = verdict.first_bad
    if first is None and not verdict.complete:
        text = _t(
            "audit.redacted_ok",
            lang,
            season=verdict.season_id,
            events=verdict.events,
            redacted=verdict.redacted,
            heads=verdict.heads,
        )
        print(text, file=out)
        return
    if first is None:
        text = _t(
            "audit.verified",
            lang,
            season=verdict.season_id,
            events=verdict.events,
            seed=verdict.seed_commitment,
            sealed=verdict.sealed_orders,
        )
        print(text, file=out)
        _say_corrections(verdict, out, lang)
        return
    line = _t("audit.line", lang, line=first.index + 2) if in_file else ""
    text = _t(
        "audit.first_bad",
        lang,
        season=verdict.season_id,
        version=first.version,
        line=line,
        type=first.type,
        event_id=first.event_id,
        why=first.why,
    )
    print(text, file=out)
    _say_corrections(verdict, out, lang)


def _say_corrections(verdict: Verdict, out: IO[str], lang: Any) -> None:
    """ADR-53: the corrections beside the record they compensate, in the language asked for."""
    if verdict.corrections:
        print(_t("audit.corrections", lang, count=len(verdict.corrections)), file=out)
        for c in verdict.corrections:
            print(f"  v{c['version']} {c['tr' if lang == 'tr' else 'en']}", file=out)


# --- export --------------------------------------------------------------------------------
def _operator() -> str:
    """Who runs the command line: the OS account (the ops-read trail's `actor`)."""
    import getpass

    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "unknown"


def _write_whole(path: str, lines: list[bytes]) -> None:
    """Write the export to `path` whole or not at all: into a file beside it, renamed over it
    once complete, so a full disk never leaves a cut export that looks like one (OSError)."""
    import os
    import tempfile

    folder = os.path.dirname(os.path.abspath(path))
    fd, scratch = tempfile.mkstemp(prefix=".seksenbir-export-", dir=folder)
    try:
        with os.fdopen(fd, "wb") as f:
            for line in lines:
                f.write(line)
        os.replace(scratch, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(scratch)
        raise


def _export(args: argparse.Namespace) -> int:
    from shared.app.export import RedactionUnavailable, chain_error, export_lines
    from shared.eventstore import ChainError

    possible_season(args.season, "export", args.lang)

    async def work(store: PostgresEventStore, database: str) -> int:
        try:  # the events and the head from one snapshot, however busy the season
            records, head = await store.read_verified(args.season)
        except ChainError as exc:
            text = _t("audit.export_broken", args.lang, season=args.season, error=chain_error(exc))
            print(f"seksenbir export: {text}", file=sys.stderr)
            return 1
        if not records:
            text = _t("audit.no_season_in", args.lang, season=repr(args.season), database=database)
            print(f"seksenbir export: {text}", file=sys.stderr)
            return 1
        chain = await store.chain_version(args.season)
        try:
            lines = list(export_lines(args.season, records, head, chain=chain, redact=args.redact))
        except RedactionUnavailable:
            text = _t("audit.redaction_unavailable", args.lang, season=repr(args.season))
            print(f"seksenbir export: {text}", file=sys.stderr)
            return 1
        # ADR-53: the export holds the seed and every order: recorded before a byte is written
        # (the operator by OS account: the command line has no token)
        await store.ops_reads.record(args.season, "export", f"cli:{_operator()}"[:64])
        try:
            if args.output:
                _write_whole(args.output, lines)
            else:
                out = sys.stdout.buffer
                for line in lines:
                    out.write(line)
                out.flush()
        except BrokenPipeError:  # `seksenbir export S | head`: the reader left; not an error
            import os

            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            return 0
        except OSError as exc:  # a missing directory, a full disk, a directory as -o
            import errno

            code = errno.errorcode.get(exc.errno or 0, str(exc))
            target = args.output or "stdout"
            print(
                f"seksenbir export: {_t('audit.unwritable', args.lang, target=target, error=code)}",
                file=sys.stderr,
            )
            return 1
        text = _t(
            "audit.exported", args.lang, season=args.season, events=len(records), head=head.hex()
        )
        print(f"seksenbir export: {text}", file=sys.stderr)
        return 0

    return _with_store(args.dsn, "export", work, args.lang)


# --- verify --------------------------------------------------------------------------------
def _verify(args: argparse.Namespace) -> int:
    from shared.app.export import ExportError

    heads = _heads(args.heads, args.lang)
    if args.all:
        if args.source or heads is not None:
            key = "audit.source_or_all" if args.source else "audit.heads_or_all"
            print(f"seksenbir verify: {_t(key, args.lang)}", file=sys.stderr)
            return 2
        return _verify_all(args.dsn, args.lang)
    if not args.source:
        print(f"seksenbir verify: {_t('audit.source_needed', args.lang)}", file=sys.stderr)
        return 2
    if _is_file(args.source, "verify", args.lang):
        try:
            export = _read_file(args.source)
        except (OSError, ExportError) as exc:
            print(json.dumps({"file": args.source, "error": str(exc)}, ensure_ascii=False))
            print(f"seksenbir verify: {_why(exc, args.lang, args.source)}", file=sys.stderr)
            return 1
        verdict = _checked(export, None, heads)
        out = {"file": args.source, "format": export.header.get("format"), **verdict.as_json(True)}
        print(json.dumps(out, ensure_ascii=False, indent=2))
        _say(verdict, True, sys.stderr, args.lang)
        return _code(verdict)

    async def work(store: PostgresEventStore, database: str) -> int:
        print(
            f"seksenbir verify: {_t('audit.database', args.lang, database=database)}",
            file=sys.stderr,
        )
        export, problem = await _stored(store, args.source)
        if not export.records:
            print(
                json.dumps({"season": args.source, "database": database, "error": "no such season"})
            )
            text = _t("audit.no_season_in", args.lang, season=repr(args.source), database=database)
            print(f"seksenbir verify: {text}", file=sys.stderr)
            return 1
        # ADR-53: it prints the corrections with their gold amounts (ops' lines) and what a
        # mismatched event holds: an ops read, recorded first as replay's is
        await store.ops_reads.record(args.source, "verify", f"cli:{_operator()}"[:64])
        verdict = _checked(export, problem, heads)
        print(
            json.dumps(
                {"database": database, **verdict.as_json(False)}, ensure_ascii=False, indent=2
            )
        )
        _say(verdict, False, sys.stderr, args.lang)
        return _code(verdict)

    return _with_store(args.dsn, "verify", work, args.lang)


def _verify_all(dsn: str | None, lang: Any = "tr") -> int:
    async def work(store: PostgresEventStore, database: str) -> int:
        print(f"seksenbir verify: {_t('audit.database', lang, database=database)}", file=sys.stderr)
        seasons = await store.list_seasons()
        started = time.perf_counter()
        failed: list[dict[str, Any]] = []
        events = 0
        for n, season_id in enumerate(seasons, start=1):
            export, problem = await _stored(store, season_id)
            verdict = _checked(export, problem)
            events += verdict.events
            first = verdict.first_bad
            mark = (
                _t("cli.chain_ok", lang)
                if first is None
                else _t("audit.failed_at", lang, version=first.version, why=first.why)
            )
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
        text = _t(
            "audit.all_summary",
            lang,
            ok=summary["ok"],
            total=len(seasons),
            failed=len(failed),
            events=events,
            seconds=f"{seconds:.1f}",
        )
        print(f"seksenbir verify --all: {text}", file=sys.stderr)
        return 0 if not failed else 1

    return _with_store(dsn, "verify", work, lang)


# --- import --------------------------------------------------------------------------------
IMPORT_BATCH = 500


def _import_refusal(args: argparse.Namespace, export: Export, verdict: Verdict) -> str | None:
    """Why a file is not imported, before any write (None: import it): a chain, count or head
    that does not verify, a redacted file, an event no reader decodes (it would break every fold
    of the copy: its status, a rebuild), no event, a season id the event store cannot take."""
    from shared.eventstore.model import MAX_SEASON_ID, possible_season_id

    first = verdict.first_bad
    where = (
        _t("audit.import_where", args.lang, version=first.version, line=first.index + 2)
        if first
        else ""
    )
    if verdict.hash_chain != "ok":
        error = verdict.hash_chain
        return _t("audit.import_broken", args.lang, file=args.file, where=where, error=error)
    if export.redacted:
        return _t("audit.import_redacted", args.lang, file=args.file)
    not_run = ("export.replay_not_decoded", "export.replay_other_season")
    if getattr(verdict.replay, "key", None) in not_run and first:
        error = first.why
        return _t("audit.import_undecodable", args.lang, file=args.file, where=where, error=error)
    if not export.records:
        return _t("audit.import_empty", args.lang, file=args.file)
    sid = export.season_id
    if not possible_season_id(sid):
        # what the event store takes, and what an API path can name (/v1/seasons/{id}/…)
        return _t("audit.import_season_id", args.lang, most=MAX_SEASON_ID)
    return None


def _same_hashes(records: Sequence[RecordedEvent], stored: Sequence[RecordedEvent]) -> None:
    """The target recomputed every hash: each must be the file's (the import checks each)."""
    for want, got in zip(records, stored, strict=True):
        if (want.version, want.hash) != (got.version, got.hash):  # pragma: no cover
            raise RuntimeError(f"version {want.version} stored with another hash")


def _import(args: argparse.Namespace) -> int:
    import asyncpg

    from shared.app.export import ExportError, check, to_new
    from shared.eventstore import ConcurrencyError, DuplicateEventError

    def refused(text: str) -> int:
        print(f"seksenbir import: {text}", file=sys.stderr)
        return 1

    try:
        export = _read_file(args.file)
    except (OSError, ExportError) as exc:
        return refused(_why(exc, args.lang, args.file))
    verdict = check(export)
    why = _import_refusal(args, export, verdict)
    if why is not None:
        return refused(why)
    season_id = export.season_id

    async def work(store: PostgresEventStore, database: str) -> int:
        if await store.stream_version(season_id) > 0:
            text = _t("audit.import_exists", args.lang, season=repr(season_id), database=database)
            return refused(text)
        records = export.records
        try:
            # ADR-58: one transaction, the audit-copy mark first: all of it or nothing
            stored = await store.import_stream(
                season_id,
                to_new(records),
                chain=export.chain,
                head=export.head or bytes(32),
                batch=IMPORT_BATCH,
            )
        except ConcurrencyError:  # it came into being meanwhile
            text = _t("audit.import_exists", args.lang, season=repr(season_id), database=database)
            return refused(text)
        except DuplicateEventError as exc:
            ids = ", ".join(str(i) for i in exc.event_ids[:3])
            more = len(exc.event_ids) - 3
            return refused(_t("audit.import_ids_taken", args.lang, ids=ids, more=max(more, 0)))
        except asyncpg.DataError as exc:  # a value PostgreSQL cannot store (e.g. \u0000)
            return refused(_t("audit.import_data", args.lang, error=type(exc).__name__))
        _same_hashes(records, stored)
        text = _t(
            "audit.imported",
            args.lang,
            season=season_id,
            events=len(records),
            database=database,
            head=records[-1].hash.hex(),
            replay=verdict.replay,
        )
        print(f"seksenbir import: {text}", file=sys.stderr)
        return 0

    return _with_store(args.dsn, "import", work, args.lang)


# --- replay --------------------------------------------------------------------------------
def _replay(args: argparse.Namespace) -> int:
    from shared.app.export import ExportError

    if _is_file(args.source, "replay", args.lang):
        try:
            export = _read_file(args.source)
        except (OSError, ExportError) as exc:
            print(f"seksenbir replay: {_why(exc, args.lang, args.source)}", file=sys.stderr)
            return 2
        return _replay_records(args, export)

    async def work(store: PostgresEventStore, database: str) -> int:
        export, _ = await _stored(store, args.source)
        if not export.records:
            text = _t("audit.no_season_in", args.lang, season=repr(args.source), database=database)
            print(f"seksenbir replay: {text}", file=sys.stderr)
            return 2
        # ADR-53: the state it prints holds every bey's gold and missions, and a re-run every
        # order of that Divan: an ops read of secrets, recorded first as explain's is
        what = "replay" if args.divan is None else f"replay/divans/{args.divan}"
        await store.ops_reads.record(args.source, what, f"cli:{_operator()}"[:64])
        return _replay_records(args, export)

    return _with_store(args.dsn, "replay", work, args.lang)


def _replay_events(args: argparse.Namespace, export: Export) -> list[Any] | None:
    """The export's events to fold, or None after saying why not (a redacted export, an event
    that does not decode); a chain that does not verify is only warned about."""
    from shared.app.export import ExportError, chain_error, check_chain
    from shared.eventstore import ChainError, verify_chain

    try:
        events = _decoded(export)
    except ExportError as exc:
        print(f"seksenbir replay: {_why(exc, args.lang, args.source)}", file=sys.stderr)
        return None
    # replay still shows the record; it does not vouch for it. A file's header count and head
    # count too: a cut file (a truncated tail, a header over no events) is warned about
    try:
        verify_chain(export.records)
        why = check_chain(export)
    except ChainError as exc:
        why = chain_error(exc)
    if why is not None:
        text = _t("audit.replay_warning", args.lang, error=why)
        print(f"seksenbir replay: {text}", file=sys.stderr)
    return events


def _replay_records(args: argparse.Namespace, export: Export) -> int:
    import msgspec

    from shared.app.replay_view import (
        ReplayError,
        correction_notes,
        corrections_text,
        rerun_divan,
        rerun_json,
        rerun_text,
        state_json,
        state_table,
        upto_divan,
    )
    from shared.domain.evolve import fold
    from shared.domain.messages import Said

    events = _replay_events(args, export)
    if events is None:
        return 2
    rerun = None
    try:
        if args.divan is not None:
            rerun = rerun_divan(events, args.divan)
            upto = upto_divan(events, args.divan)
        elif args.as_of is not None:
            if args.as_of > len(events):
                raise ReplayError(
                    Said("audit.version_past", version=args.as_of, events=len(events))
                )
            upto = args.as_of
        else:
            upto = len(events)
    except ReplayError as exc:
        print(f"seksenbir replay: {exc.said.text(args.lang)}", file=sys.stderr)
        return 2
    view = state_json(fold(events[:upto]), upto)
    corrections = correction_notes(events, upto)  # ADR-53: shown beside what they compensate
    if args.json:
        out: dict[str, Any] = {"state": view, "corrections": msgspec.to_builtins(corrections)}
        if rerun is not None:
            out["rerun"] = rerun_json(rerun)
        print(json.dumps(out, ensure_ascii=False, indent=2))
    else:
        if rerun is not None:
            print(rerun_text(rerun, args.lang))
            print()
        print(state_table(view, args.lang))
        if corrections:
            print()
            print(corrections_text(corrections, args.lang))
    return 0 if rerun is None or rerun.ok else 1


# --- explain, what-if ----------------------------------------------------------------------
def _season_events(
    args: argparse.Namespace, verb: str, work: Callable[[str, list[Any]], int]
) -> int:
    """Run `work(season_id, events)` on a season from an export file or the database."""
    from shared.app.export import ExportError

    def decoded(export: Export) -> int:
        try:
            events = _decoded(export)
        except ExportError as exc:
            print(f"seksenbir {verb}: {_why(exc, args.lang, args.source)}", file=sys.stderr)
            return 2
        return work(export.season_id, events)

    if _is_file(args.source, verb, args.lang):
        try:
            export = _read_file(args.source)
        except (OSError, ExportError) as exc:
            print(f"seksenbir {verb}: {_why(exc, args.lang, args.source)}", file=sys.stderr)
            return 2
        return decoded(export)

    async def from_store(store: PostgresEventStore, database: str) -> int:
        export, _ = await _stored(store, args.source)
        if not export.records:
            text = _t("audit.no_season_in", args.lang, season=repr(args.source), database=database)
            print(f"seksenbir {verb}: {text}", file=sys.stderr)
            return 2
        # ADR-53: every bey's orders of that Divan, read from the database: recorded first, as
        # the endpoint records `divans/{n}/explain` and `divans/{n}/what-if`
        what = f"divans/{args.divan}/{verb}"
        await store.ops_reads.record(args.source, what, f"cli:{_operator()}"[:64])
        return decoded(export)

    return _with_store(args.dsn, verb, from_store, args.lang)


def _explain(args: argparse.Namespace) -> int:
    import msgspec

    from shared.app.divan_tools import explain, explain_text
    from shared.app.replay_view import ReplayError

    def work(season_id: str, events: list[Any]) -> int:
        try:
            out = explain(season_id, events, args.divan, args.province)
        except ReplayError as exc:
            print(f"seksenbir explain: {exc.said.text(args.lang)}", file=sys.stderr)
            return 2
        if args.json:
            print(msgspec.json.format(msgspec.json.encode(out).decode(), indent=2))
        else:
            print(explain_text(out, args.lang, args.province))
        return 0 if out.verification.ok else 1

    return _season_events(args, "explain", work)


def _what_if(args: argparse.Namespace) -> int:
    import msgspec

    from shared.app.divan_tools import WhatIfIn, WhatIfRefused, what_if, what_if_text
    from shared.app.replay_view import ReplayError

    try:
        data = msgspec.json.decode(Path(args.file).read_bytes(), type=WhatIfIn)
    except (OSError, msgspec.DecodeError) as exc:
        why = _why(exc, args.lang, args.file) if isinstance(exc, OSError) else f"{args.file}: {exc}"
        print(f"seksenbir what-if: {why}", file=sys.stderr)
        return 2

    def work(season_id: str, events: list[Any]) -> int:
        try:
            out = what_if(season_id, events, args.divan, data)
        except (ReplayError, ValueError) as exc:
            if isinstance(exc, ReplayError):
                why = exc.said.text(args.lang)
            else:
                why = exc.text(args.lang) if isinstance(exc, WhatIfRefused) else str(exc)
            print(f"seksenbir what-if: {why}", file=sys.stderr)
            return 2
        if args.json:
            print(msgspec.json.format(msgspec.json.encode(out).decode(), indent=2))
        else:
            print(what_if_text(out, args.lang))
        return 0

    return _season_events(args, "what-if", work)


# --- fork ----------------------------------------------------------------------------------
def _fork(args: argparse.Namespace) -> int:
    """Issue 13, D-32: the endpoint's own code (service.fork_season) run as ops on the
    database: any season at any Divan; the token is printed once, never logged."""
    from services.command import ops_tools, service
    from shared.app.problems import Problem
    from shared.app.seasons import Seasons
    from shared.domain.state import DIVANS, SEATS

    # the endpoint's bounds (ForkIn): a Divan 0 … 15 (one is left to play), a seat 1 … 19
    for field, value, low, high in (
        ("divan", args.divan, 0, DIVANS - 1),
        ("seat", args.seat, 1, SEATS),
    ):
        if not low <= value <= high:
            why = _t("invalid_body.bounded", args.lang, field=field, minimum=low, maximum=high)
            print(f"seksenbir fork: {why}", file=sys.stderr)
            return 2
    possible_season(args.season, "fork", args.lang)

    async def work(store: PostgresEventStore, database: str) -> int:
        svc = service.Services(seasons=Seasons(store))

        async def record() -> None:  # a running season's secrets, as the endpoint (ADR-53)
            what = f"fork/{args.divan}"
            await store.ops_reads.record(args.season, what, f"cli:{_operator()}"[:64])

        try:
            out = await ops_tools.fork_season(
                svc, args.season, args.divan, args.seat, "ops", record=record
            )
        except Problem as exc:
            why = _t(exc.key, args.lang, **exc.params)
            print(f"seksenbir fork: {why}", file=sys.stderr)
            return 1
        print(
            _t(
                "audit.forked",
                args.lang,
                season=out.season_id,
                source=out.source_season,
                divan=out.source_divan,
                seat=out.seat,
                token=out.token,
            )
        )
        return 0

    return _with_store(args.dsn, "fork", work, args.lang)


# --- shadow re-adjudication ----------------------------------------------------------------
def _shadow(args: argparse.Namespace) -> int:
    from shared.app.export import ExportError
    from shared.app.shadow import DivanShadow, shadow_season

    if bool(args.sources) == bool(args.all):
        print(f"seksenbir shadow: {_t('audit.source_or_all', args.lang)}", file=sys.stderr)
        return 2
    results: list[DivanShadow] = []

    def one(export: Export) -> None:
        events = _decoded(export)
        for r in shadow_season(export.season_id, events, args.adjudicate_cmd):
            mark = (
                _t("shadow.same", args.lang)
                if not r.changed
                else (r.error or _t("shadow.differences", args.lang, count=len(r.differences)))
            )
            line = _t("shadow.divan", args.lang, season=r.season, divan=r.divan, mark=mark)
            print(line, file=sys.stderr, flush=True)
            results.append(r)

    files = [s for s in args.sources if _is_file(s, "shadow", args.lang)]
    ids = [s for s in args.sources if s not in files]
    for path in files:
        try:
            one(_read_file(path))
        except (OSError, ExportError) as exc:
            print(f"seksenbir shadow: {_why(exc, args.lang, path)}", file=sys.stderr)
            return 2
    if ids or args.all:
        code = _shadow_stored(args, ids, one)
        if code:
            return code
    return _shadow_summary(results, args.lang)


def _shadow_stored(args: argparse.Namespace, ids: list[str], one: Callable[[Export], None]) -> int:
    """The seasons named by id (or --all) from the database, each through `one`."""
    from shared.app.export import ExportError

    async def work(store: PostgresEventStore, database: str) -> int:
        for season_id in await store.list_seasons() if args.all else ids:
            export, _ = await _stored(store, season_id)
            if not export.records:
                text = _t(
                    "audit.no_season_in", args.lang, season=repr(season_id), database=database
                )
                print(f"seksenbir shadow: {text}", file=sys.stderr)
                return 2
            # ADR-53: every Divan's orders of every bey, read from the database: recorded
            # first, as explain, what-if, fork and export on the database record theirs
            await store.ops_reads.record(season_id, "shadow", f"cli:{_operator()}"[:64])
            try:
                one(export)
            except ExportError as exc:  # a stored event that does not decode: one line
                print(f"seksenbir shadow: {_why(exc, args.lang, season_id)}", file=sys.stderr)
                return 2
        return 0

    return _with_store(args.dsn, "shadow", work, args.lang)


def _shadow_summary(results: list[Any], lang: Any) -> int:
    changed = [r for r in results if r.changed]
    print(
        json.dumps(
            {
                "divans": len(results),
                "changed": [
                    {
                        "season": r.season,
                        "divan": r.divan,
                        "differences": r.differences,
                        "error": r.error,
                    }
                    for r in changed
                ],
            },
            ensure_ascii=False,
            indent=2,
        )
    )
    text = _t("shadow.summary", lang, changed=len(changed), total=len(results))
    print(f"seksenbir shadow: {text}", file=sys.stderr)
    return 1 if changed else 0
