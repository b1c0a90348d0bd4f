"""`seksenbir replay`, `explain` and `what-if`: a season's past re-run from its record."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
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
from entrypoints.cli_args import _t

if TYPE_CHECKING:
    from shared.app.ops.export import Export
    from shared.eventstore import PostgresEventStore


# --- replay --------------------------------------------------------------------------------
def run_replay(args: argparse.Namespace) -> int:
    from shared.app.ops.export import ExportError

    if names_a_file(args.source, "replay", args.lang):
        try:
            export = read_export_file(args.source)
        except (OSError, ExportError) as exc:
            print(
                f"seksenbir replay: {unreadable_why(exc, args.lang, args.source)}", file=sys.stderr
            )
            return 2
        return _replay_records(args, export)

    async def work(store: PostgresEventStore, database: str) -> int:
        export, _ = await stored_export(store, args.source)
        if not export.records:
            text = _t("audit.no_season_in", args.lang, season=repr(args.source), database=database)
            print(f"seksenbir replay: {text}", file=sys.stderr)
            return 2
        # ADR-53: the state it prints holds every bey's gold and missions, and a re-run every
        # order of that Divan: an ops read of secrets, recorded first as explain's is
        what = "replay" if args.divan is None else f"replay/divans/{args.divan}"
        await store.ops_reads.record(args.source, what, f"cli:{operator_name()}"[:64])
        return _replay_records(args, export)

    return with_store(args.dsn, "replay", work, args.lang)


def _replay_events(args: argparse.Namespace, export: Export) -> list[Any] | None:
    """The export's events to fold, or None after saying why not (a redacted export, an event
    that does not decode); a chain that does not verify is only warned about."""
    from shared.app.ops.export import ExportError
    from shared.app.ops.export_check import chain_error, check_chain
    from shared.eventstore import ChainError, verify_chain

    try:
        events = decoded_events(export)
    except ExportError as exc:
        print(f"seksenbir replay: {unreadable_why(exc, args.lang, args.source)}", file=sys.stderr)
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
    from shared.app.ops.export import ExportError

    events = _replay_events(args, export)
    if events is None:
        return 2
    try:
        return folded(events, lambda: _replay_folded(args, events))
    except ExportError as exc:  # an event no state can take
        print(f"seksenbir replay: {unreadable_why(exc, args.lang, args.source)}", file=sys.stderr)
        return 2


def _replay_folded(args: argparse.Namespace, events: list[Any]) -> int:
    """`replay` of decoded events: the state at the point asked, a Divan's re-run with it."""
    import msgspec

    from shared.app.ops.ops_replay import (
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
    args: argparse.Namespace,
    verb: str,
    work: Callable[[str, list[Any]], int],
    instants: list[str | None] | None = None,
) -> int:
    """Run `work(season_id, events)` on a season from an export file or the database;
    `instants`, when given, gets each event's recorded `at` first (ADR-103)."""
    from shared.app.ops.export import ExportError

    def decoded(export: Export) -> int:
        try:
            events = decoded_events(export)
        except ExportError as exc:
            print(
                f"seksenbir {verb}: {unreadable_why(exc, args.lang, args.source)}", file=sys.stderr
            )
            return 2
        if instants is not None:
            instants.extend(r.metadata.at for r in export.records)
        try:
            return folded(events, lambda: work(export.season_id, events))
        except ExportError as exc:  # an event no state can take
            print(
                f"seksenbir {verb}: {unreadable_why(exc, args.lang, args.source)}", file=sys.stderr
            )
            return 2

    if names_a_file(args.source, verb, args.lang):
        try:
            export = read_export_file(args.source)
        except (OSError, ExportError) as exc:
            print(
                f"seksenbir {verb}: {unreadable_why(exc, args.lang, args.source)}", file=sys.stderr
            )
            return 2
        return decoded(export)

    async def from_store(store: PostgresEventStore, database: str) -> int:
        export, _ = await stored_export(store, args.source)
        if not export.records:
            text = _t("audit.no_season_in", args.lang, season=repr(args.source), database=database)
            print(f"seksenbir {verb}: {text}", file=sys.stderr)
            return 2
        # ADR-53: every bey's orders of that Divan, read from the database: recorded first, as
        # the endpoint records `divans/{n}/explain` and `divans/{n}/what-if`
        what = f"divans/{args.divan}/{verb}"
        await store.ops_reads.record(args.source, what, f"cli:{operator_name()}"[:64])
        return decoded(export)

    return with_store(args.dsn, verb, from_store, args.lang)


def run_explain(args: argparse.Namespace) -> int:
    import msgspec

    from shared.app.ops.divan_text import explain_text
    from shared.app.ops.divan_tools import explain
    from shared.app.ops.ops_replay import ReplayError

    instants: list[str | None] = []
    plates = list(dict.fromkeys(args.province))  # a plate named again is the same plate

    def work(season_id: str, events: list[Any]) -> int:
        try:
            out = explain(season_id, events, args.divan, plates, instants)
        except ReplayError as exc:
            print(f"seksenbir explain: {exc.said.text(args.lang)}", file=sys.stderr)
            return 2
        if args.json:
            print(msgspec.json.format(msgspec.json.encode(out).decode(), indent=2))
        else:
            print(explain_text(out, args.lang, plates))
        return 0 if out.verification.ok else 1

    return _season_events(args, "explain", work, instants)


def run_what_if(args: argparse.Namespace) -> int:
    import msgspec

    from shared.app.http.strict import body_problem
    from shared.app.ops.divan_text import what_if_text
    from shared.app.ops.divan_tools import WhatIfIn, WhatIfRefused, what_if
    from shared.app.ops.ops_replay import ReplayError

    try:
        data = msgspec.json.decode(Path(args.file).read_bytes(), type=WhatIfIn, strict=True)
    except (OSError, msgspec.DecodeError) as exc:
        why = (  # the endpoint's 422 for the same body, in the language asked for
            unreadable_why(exc, args.lang, args.file)
            if isinstance(exc, OSError)
            else _body_refusal(args.file, body_problem(exc, WhatIfIn), args.lang)
        )
        print(f"seksenbir what-if: {why}", file=sys.stderr)
        return 2

    def work(season_id: str, events: list[Any]) -> int:
        from shared.domain.messages import Said

        try:
            out = what_if(season_id, events, args.divan, data)
        except (ReplayError, ValueError) as exc:  # said in words with its code, never Python's
            if isinstance(exc, ReplayError):
                why, code = exc.said.text(args.lang), exc.said.key
            elif isinstance(exc, WhatIfRefused):
                why, code = exc.text(args.lang), exc.key
            else:  # the rules could not re-run the Divan so changed: a defect, not the input's
                said = Said("audit.what_if_failed", divan=args.divan)
                why, code = said.text(args.lang), said.key
            print(f"seksenbir what-if: {why} [{code}]", file=sys.stderr)
            return 2
        if args.json:
            print(msgspec.json.format(msgspec.json.encode(out).decode(), indent=2))
        else:
            print(what_if_text(out, args.lang))
        return 0

    return _season_events(args, "what-if", work)


def _body_refusal(file: str, problem: Any, lang: Any) -> str:
    """A --file the endpoint would refuse: its 422 (or 400) in words, with its stable code."""
    from entrypoints.cli_args import shown_file

    return f"{shown_file(file)}: {problem.text(lang)} [{problem.code}]"
