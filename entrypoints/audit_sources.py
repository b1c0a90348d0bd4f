"""Where the audit verbs read a season (an export file or the store), and how they say a verdict."""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, TypeVar

from entrypoints.cli_args import _t, possible_season, shown, shown_file

if TYPE_CHECKING:
    from shared.app.ops.export import Export
    from shared.app.ops.export_verdict import Verdict
    from shared.domain.messages import Said
    from shared.eventstore import PostgresEventStore
    from shared.settings import Settings


T = TypeVar("T")


# --- sources -------------------------------------------------------------------------------
def _settings() -> Settings:
    from shared.settings import Settings

    return Settings.from_env()


def names_a_file(source: str, verb: str, lang: Any = "tr") -> bool:
    """A SOURCE names a file if anything exists there: a regular file, a pipe (`verify
    <(zcat x.jsonl.gz)`), a device, or a directory (refused when read, as the OS says: never "no
    such file"); one that looks like a path and is missing is a usage error (SystemExit 2), not
    a season id to look up; so is an id no season can have."""
    from entrypoints.cli_args import os_error

    try:
        if Path(source).exists():
            return True
    except OSError as exc:  # a name too long for the system: not done (2), never a traceback
        print(f"seksenbir {verb}: {os_error(exc, lang)}", file=sys.stderr)
        raise SystemExit(2) from None
    if "/" in source or source.endswith(FILE_SUFFIXES):
        text = _t("audit.no_such_file", lang, source=shown_file(source))
        print(f"seksenbir {verb}: {text}", file=sys.stderr)
        raise SystemExit(2)
    possible_season(source, verb, lang)
    return False


FILE_SUFFIXES = (".jsonl", ".ndjson", ".json")


def unreadable_why(exc: Exception, lang: Any, source: str) -> str:
    """Why a file could not be read, for people in `lang`: an ExportError's text, or the OS's."""
    from entrypoints.cli_args import os_error
    from shared.app.ops.export import ExportError

    if isinstance(exc, ExportError):  # in words, and the reason's stable code (docs/export.md)
        return f"{shown_file(source)}: {exc.said.text(lang)} [{exc.reason.key}]"
    if isinstance(exc, OSError):
        return os_error(exc, lang)
    return f"{shown_file(source)}: {exc}"


def unreadable_words(exc: Exception) -> str:
    """Why a file could not be read, for verify's JSON `error`: the words of the English line
    without the file and the code (both fields of their own), as all of that JSON is English
    whatever `--lang`; never the OS's own text."""
    from entrypoints.cli_args import os_words
    from shared.app.ops.export import ExportError

    if isinstance(exc, ExportError):
        return exc.said.text("en")
    if isinstance(exc, OSError):
        return os_words(exc, "en")
    return str(exc)


def unreadable_code(exc: Exception) -> str:
    """The stable code of why a file could not be read: the reason's catalogue key (e.g.
    `export.not_json`), or `os.ENOENT` and the like for the operating system's."""
    import errno

    from shared.app.ops.export import ExportError

    if isinstance(exc, ExportError):
        return exc.reason.key
    return f"os.{errno.errorcode.get(getattr(exc, 'errno', 0) or 0, 'error')}"


def read_export_file(path: str) -> Export:
    from shared.app.ops.export_read import bounded_lines, parse

    with open(path, "rb") as f:
        return parse(bounded_lines(f))


def decoded_events(export: Export) -> list[Any]:
    """Every event of an export decoded, for the verbs that fold it (replay, explain, what-if,
    shadow); ExportError naming the line for a redacted export (its left-out data cannot be
    folded), an event that does not decode or one no state can take, never a traceback."""
    from shared.app.ops.export import ExportError
    from shared.app.ops.export_read import event_problem
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
            raise ExportError(i + 2, event_problem(exc)) from None
    return events


def folded(events: list[Any], work: Callable[[], T]) -> T:
    """`work()`, a verb's fold of `events` (replay, explain, what-if, shadow): an event no state
    can take (a forged or reordered record) raises there, in the verb's one fold; only then is
    the file folded once more to find it: ExportError naming its line. An error the fold of the
    events alone does not raise is the verb's own, and goes on as it is."""
    from shared.app.ops.export import ExportError
    from shared.domain.messages import Said
    from shared.domain.replay import UNAPPLIED, first_unapplied

    try:
        return work()
    except UNAPPLIED:
        index = first_unapplied(events)
        if index is None:
            raise
        raise ExportError(index + 2, Said("export.not_applicable")) from None


def with_store(
    dsn: str | None,
    verb: str,
    work: Callable[[PostgresEventStore, str], Awaitable[int]],
    lang: Any = "tr",
) -> int:
    """Run `work` on a store over the database; a database with no event store is exit 2."""
    from entrypoints import stores
    from shared.unreachable import describe_dsn

    settings = _settings()
    dsn = dsn or settings.pg_dsn

    async def run() -> int:
        import asyncpg

        try:
            async with stores.event_store(settings, "cli", dsn=dsn) as store:
                return await work(store, describe_dsn(dsn))
        except asyncpg.UndefinedTableError:
            from entrypoints.cli_args import say

            text = say("cli.no_event_store", lang, database=describe_dsn(dsn))
            print(f"seksenbir {verb}: {text}", file=sys.stderr)
            return 2

    return asyncio.run(run())


async def stored_export(store: PostgresEventStore, season_id: str) -> tuple[Export, Said | None]:
    """A stored season as an Export (no header) and the store's own head check (None: ok)."""
    from shared.app.ops.export import Export
    from shared.app.ops.export_chat import stored_section
    from shared.eventstore import GENESIS, ChainError, verify_chain

    records, stored, chain = await store.read_with_head(season_id)  # one snapshot
    try:
        head = verify_chain(records, chain=chain)
        if head != (stored or GENESIS):
            raise ChainError(season_id, len(records), "chain does not end at the stream head")
        problem = None
    except ChainError as exc:
        from shared.app.ops.export_check import chain_error  # the re-run's modules: when needed

        problem = chain_error(exc)
    # the season's chat chain and its texts too, checked with the rest (ADR-106)
    copy = await store.audit_copy(season_id)
    chat = stored_section(await store.chat.read(season_id), audit_copy=copy)
    return Export(season_id, None, None, records, chain=chain, chat=chat), problem


def read_heads(path: str | None, lang: Any) -> list[Any] | None:
    """The published heads of `--heads FILE` (None without it); SystemExit 2 for a bad file."""
    if path is None:
        return None
    from entrypoints.cli_args import os_error
    from shared.app.ops.export_check import HeadsError, parse_heads
    from shared.domain.messages import Said

    try:
        with open(path, "rb") as f:
            return list(parse_heads(json.load(f)))
    except (OSError, ValueError, RecursionError) as exc:  # said in words, never Python's
        error: object
        if isinstance(exc, HeadsError):
            error, code = exc.said, exc.said.key
        elif isinstance(exc, json.JSONDecodeError):
            error, code = Said("export.not_json", at=exc.pos + 1), "export.not_json"
        elif isinstance(exc, OSError):
            error, code = os_error(exc, lang), unreadable_code(exc)
        else:  # not UTF-8, nested too deep, a number of over 4,300 digits
            error, code = Said("export.heads_unreadable"), "export.heads_unreadable"
        # a file that holds no head checked nothing: "not done" (2), never "ok" (ADR-161)
        key = "audit.heads_empty" if code == "export.heads_none" else "audit.heads_file"
        text = _t(key, lang, file=shown_file(path), error=error)
        print(f"seksenbir verify: {text} [{code}]", file=sys.stderr)
        raise SystemExit(2) from None


def checked_export(
    export: Export, store_problem: Said | None, heads: list[Any] | None = None
) -> Verdict:
    from shared.app.ops.export_check import check
    from shared.app.ops.export_verdict import BadEvent
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


# why an event line is not a possible event at all (shared/app/ops/export_read.event_problem)
IMPOSSIBLE = ("export.impossible_event", "export.not_an_event")


def exit_code(verdict: Verdict) -> int:
    """0 all hold; 1 something does not match; 2 an event whose data no event can hold (a
    value out of its bounds, a field missing or of another kind: not a season's record at all);
    3 a redacted export whose chain (and heads) hold but whose Divans need a full export to be
    re-run (docs/export.md "Exit codes")."""
    first = verdict.first_bad
    if first is not None and first.why.key in IMPOSSIBLE:  # the first fault, not a later one
        return 2
    if not verdict.ok:
        return 1
    return 0 if verdict.complete else 3


def say_verdict(verdict: Verdict, in_file: bool, out: IO[str], lang: Any = "tr") -> None:
    first = verdict.first_bad
    if first is None and not verdict.complete:
        text = _t(
            "audit.redacted_ok",
            lang,
            season=shown(verdict.season_id),
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
            season=shown(verdict.season_id),
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
        season=shown(verdict.season_id),
        version=first.version,
        line=line,
        type=shown(first.type),
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
def operator_name() -> str:
    """Who runs the command line: the OS account (the ops-read trail's `actor`)."""
    import getpass

    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "unknown"


def write_whole(path: str, lines: list[bytes]) -> None:
    """Write the export to `path` whole or not at all: into a file beside it, renamed over it
    once complete, so a full disk never leaves a cut export that looks like one (OSError).
    A path that is there and no regular file (a device such as /dev/full, a FIFO) is written
    into, as `>` would: a rename would put a file in its place (as root, over /dev/full)."""
    import os
    import tempfile

    if os.path.exists(path) and not os.path.isfile(path):
        with open(path, "wb") as out:
            for line in lines:
                out.write(line)
        return
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
