"""`seksenbir fork` and `shadow`: another timeline of a season, or another build's Divans."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from entrypoints.audit_sources import (
    decoded_events,
    folded,
    names_a_file,
    operator_name,
    read_export_file,
    stored_export,
    unreadable_why,
    with_store,
)
from entrypoints.cli_args import _t, possible_season

if TYPE_CHECKING:
    from shared.app.ops.export import Export
    from shared.eventstore import PostgresEventStore


# --- fork ----------------------------------------------------------------------------------
def run_fork(args: argparse.Namespace) -> int:
    """Issue 13, D-32: the endpoint's own code (service.fork_season) run as ops on the
    database: any season at any Divan; the token is printed once, never logged."""
    from services.command import ops_tools, service
    from shared.app.http.problems import Problem
    from shared.app.repository.seasons import Seasons
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
            await store.ops_reads.record(args.season, what, f"cli:{operator_name()}"[:64])

        try:
            out = await ops_tools.fork_season(
                svc, args.season, args.divan, args.seat, "ops", record=record
            )
        except Problem as exc:
            why = _t(exc.key, args.lang, **exc.params)
            print(f"seksenbir fork: {why}", file=sys.stderr)
            # no such season: 2, as every verb that names one (docs/export.md "Exit codes")
            return 2 if exc.key == "season_not_found" else 1
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

    return with_store(args.dsn, "fork", work, args.lang)


# --- shadow re-adjudication ----------------------------------------------------------------
def run_shadow(args: argparse.Namespace) -> int:
    from shared.app.ops.export import ExportError
    from shared.app.ops.shadow import CommandNotRun, DivanShadow, shadow_season

    if bool(args.sources) == bool(args.all):
        print(f"seksenbir shadow: {_t('audit.source_or_all', args.lang)}", file=sys.stderr)
        return 2
    results: list[DivanShadow] = []
    cmd = args.adjudicate_cmd

    def one(export: Export) -> None:
        events = decoded_events(export)
        # the one fold of the events (an event no state can take: ExportError for its line)
        divans = folded(events, lambda: list(shadow_season(export.season_id, events, cmd)))
        for r in divans:
            mark = (
                _t("shadow.same", args.lang)
                if not r.changed
                else (r.error or _t("shadow.differences", args.lang, count=len(r.differences)))
            )
            line = _t("shadow.divan", args.lang, season=r.season, divan=r.divan, mark=mark)
            print(line, file=sys.stderr, flush=True)
            results.append(r)

    files = [s for s in args.sources if names_a_file(s, "shadow", args.lang)]
    ids = [s for s in args.sources if s not in files]
    try:
        for path in files:
            try:
                one(read_export_file(path))
            except (OSError, ExportError) as exc:
                why = unreadable_why(exc, args.lang, path)
                print(f"seksenbir shadow: {why}", file=sys.stderr)
                return 2
        if ids or args.all:
            code = _shadow_stored(args, ids, one)
            if code:
                return code
    except CommandNotRun as exc:  # not a build that differs: nothing was compared (ADR-155)
        print(f"seksenbir shadow: {_not_run(exc, args.lang)}", file=sys.stderr)
        return 2
    return _shadow_summary(results, args.lang)


def _not_run(exc: Any, lang: Any) -> str:
    """A command that could not be started, in words: its name and the OS's errno code."""
    import errno

    from entrypoints.cli_args import shown

    error = errno.errorcode.get(exc.error.errno or 0, type(exc.error).__name__)
    return _t("shadow.not_run", lang, text=shown(exc.command, 200), error=error)


def _shadow_stored(args: argparse.Namespace, ids: list[str], one: Callable[[Export], None]) -> int:
    """The seasons named by id (or --all) from the database, each through `one`."""
    from shared.app.ops.export import ExportError

    async def work(store: PostgresEventStore, database: str) -> int:
        for season_id in await store.list_seasons() if args.all else ids:
            export, _ = await stored_export(store, season_id)
            if not export.records:
                text = _t(
                    "audit.no_season_in", args.lang, season=repr(season_id), database=database
                )
                print(f"seksenbir shadow: {text}", file=sys.stderr)
                return 2
            # ADR-53: every Divan's orders of every bey, read from the database: recorded
            # first, as explain, what-if, fork and export on the database record theirs
            await store.ops_reads.record(season_id, "shadow", f"cli:{operator_name()}"[:64])
            try:
                one(export)
            except ExportError as exc:  # a stored event that does not decode: one line
                print(
                    f"seksenbir shadow: {unreadable_why(exc, args.lang, season_id)}",
                    file=sys.stderr,
                )
                return 2
        return 0

    return with_store(args.dsn, "shadow", work, args.lang)


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
