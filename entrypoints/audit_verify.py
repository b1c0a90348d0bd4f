"""`seksenbir export`, `verify` and `import`: a season out of a store, checked, into one."""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from entrypoints.audit_sources import (
    checked_export,
    exit_code,
    names_a_file,
    operator_name,
    read_export_file,
    read_heads,
    say_verdict,
    stored_export,
    unreadable_code,
    unreadable_why,
    unreadable_words,
    with_store,
    write_whole,
)
from entrypoints.cli_args import _t, possible_season, shown_file

if TYPE_CHECKING:
    from shared.app.ops.export import Export
    from shared.app.ops.export_verdict import Verdict
    from shared.eventstore import PostgresEventStore, RecordedEvent


async def _export_lines(
    store: PostgresEventStore, args: argparse.Namespace, database: str
) -> list[bytes] | tuple[str, int]:
    """The export's lines, or why there are none (a line for people) and the exit code: no such
    season (2), a season or chat chain that does not verify (ADR-106), a redaction a chain
    version 1 cannot have (1)."""
    from shared.app.ops.export import RedactionUnavailable, export_lines
    from shared.app.ops.export_chat_check import stored_chat_problem
    from shared.eventstore import ChainError

    try:  # the events and the head from one snapshot, however busy the season
        records, head = await store.read_verified(args.season)
    except ChainError as exc:
        from shared.app.ops.export_check import chain_error  # with the re-run's modules

        error = chain_error(exc)
        return _t("audit.export_broken", args.lang, season=args.season, error=error), 1
    if not records:
        text = _t("audit.no_season_in", args.lang, season=repr(args.season), database=database)
        return text, 2
    chain = await store.chain_version(args.season)
    chat = await store.chat.read(args.season)
    copy = await store.audit_copy(args.season)
    problem = stored_chat_problem(args.season, chat, audit_copy=copy)
    if problem is not None:
        return _t("audit.export_broken", args.lang, season=args.season, error=problem), 1
    try:  # --redact: an auditor's, which leaves private and group chat out
        return list(
            export_lines(args.season, records, head, chain=chain, redact=args.redact, chat=chat)
        )
    except RedactionUnavailable:
        return _t("audit.redaction_unavailable", args.lang, season=repr(args.season)), 1


def run_export(args: argparse.Namespace) -> int:
    possible_season(args.season, "export", args.lang)

    async def work(store: PostgresEventStore, database: str) -> int:
        lines = await _export_lines(store, args, database)
        if isinstance(lines, tuple):
            print(f"seksenbir export: {lines[0]}", file=sys.stderr)
            return lines[1]
        # ADR-53: the export holds the seed and every order: recorded before a byte is written
        # (the operator by OS account: the command line has no token)
        await store.ops_reads.record(args.season, "export", f"cli:{operator_name()}"[:64])
        try:
            if args.output:
                write_whole(args.output, lines)
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
        first = json.loads(lines[0])  # the header: the season's count and head
        text = _t(
            "audit.exported",
            args.lang,
            season=args.season,
            events=first["events"],
            head=first["head"],
        )
        print(f"seksenbir export: {text}", file=sys.stderr)
        return 0

    return with_store(args.dsn, "export", work, args.lang)


# --- verify --------------------------------------------------------------------------------
def run_verify(args: argparse.Namespace) -> int:
    from shared.app.ops.export import ExportError

    heads = read_heads(args.heads, args.lang)
    if args.all:
        if args.source or heads is not None:
            key = "audit.source_or_all" if args.source else "audit.heads_or_all"
            print(f"seksenbir verify: {_t(key, args.lang)}", file=sys.stderr)
            return 2
        return _verify_all(args.dsn, args.lang)
    if not args.source:
        print(f"seksenbir verify: {_t('audit.source_needed', args.lang)}", file=sys.stderr)
        return 2
    if names_a_file(args.source, "verify", args.lang):
        try:
            export = read_export_file(args.source)
        except (OSError, ExportError) as exc:  # not a season's export: 2 (docs/export.md)
            code = unreadable_code(exc)
            out = {"file": args.source, "error": unreadable_words(exc), "code": code}
            print(json.dumps(out, ensure_ascii=False))
            print(
                f"seksenbir verify: {unreadable_why(exc, args.lang, args.source)}", file=sys.stderr
            )
            return 2
        verdict = checked_export(export, None, heads)
        out = {"file": args.source, "format": export.header.get("format"), **verdict.as_json(True)}
        print(json.dumps(out, ensure_ascii=False, indent=2))
        say_verdict(verdict, True, sys.stderr, args.lang)
        return exit_code(verdict)

    async def work(store: PostgresEventStore, database: str) -> int:
        print(
            f"seksenbir verify: {_t('audit.database', args.lang, database=database)}",
            file=sys.stderr,
        )
        export, problem = await stored_export(store, args.source)
        if not export.records:
            print(
                json.dumps({"season": args.source, "database": database, "error": "no such season"})
            )
            text = _t("audit.no_season_in", args.lang, season=repr(args.source), database=database)
            print(f"seksenbir verify: {text}", file=sys.stderr)
            return 2
        # ADR-53: it prints the corrections with their gold amounts (ops' lines) and what a
        # mismatched event holds: an ops read, recorded first as replay's is
        await store.ops_reads.record(args.source, "verify", f"cli:{operator_name()}"[:64])
        verdict = checked_export(export, problem, heads)
        print(
            json.dumps(
                {"database": database, **verdict.as_json(False)}, ensure_ascii=False, indent=2
            )
        )
        say_verdict(verdict, False, sys.stderr, args.lang)
        return exit_code(verdict)

    return with_store(args.dsn, "verify", work, args.lang)


def _verify_all(dsn: str | None, lang: Any = "tr") -> int:
    async def work(store: PostgresEventStore, database: str) -> int:
        print(f"seksenbir verify: {_t('audit.database', lang, database=database)}", file=sys.stderr)
        seasons = await store.list_seasons()
        started = time.perf_counter()
        failed: list[dict[str, Any]] = []
        events = 0
        for n, season_id in enumerate(seasons, start=1):
            export, problem = await stored_export(store, season_id)
            verdict = checked_export(export, problem)
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

    return with_store(dsn, "verify", work, lang)


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
    if verdict.hash_chain != "ok" or verdict.chat.key == "export.chat_broken":
        error = verdict.hash_chain if verdict.hash_chain != "ok" else verdict.chat
        return _t(
            "audit.import_broken", args.lang, file=shown_file(args.file), where=where, error=error
        )
    if export.redacted or (export.chat is not None and export.chat.private):
        return _t("audit.import_redacted", args.lang, file=shown_file(args.file))
    not_run = (
        "export.replay_not_decoded",
        "export.replay_impossible",
        "export.replay_other_season",
    )
    if getattr(verdict.replay, "key", None) in not_run and first:
        error = first.why
        return _t(
            "audit.import_undecodable",
            args.lang,
            file=shown_file(args.file),
            where=where,
            error=error,
        )
    if not export.records:
        return _t("audit.import_empty", args.lang, file=shown_file(args.file))
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


def run_import(args: argparse.Namespace) -> int:
    import asyncpg

    from shared.app.ops.export import ExportError, to_new
    from shared.app.ops.export_check import check
    from shared.eventstore import ConcurrencyError, DuplicateEventError

    def refused(text: str, code: int = 1) -> int:
        print(f"seksenbir import: {text}", file=sys.stderr)
        return code

    try:
        export = read_export_file(args.file)
    except (OSError, ExportError) as exc:  # not a season's export: 2, as verify
        return refused(unreadable_why(exc, args.lang, args.file), 2)
    verdict = check(export)
    why = _import_refusal(args, export, verdict)
    if why is not None:  # an event no event can be is 2 as for verify, any other refusal 1
        return refused(why, exit_code(verdict) if exit_code(verdict) == 2 else 1)
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
                chat=export.chat.records if export.chat is not None else (),
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

    return with_store(args.dsn, "import", work, args.lang)
