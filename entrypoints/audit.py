"""Ops and auditor verbs of the command line: export, verify, import, replay (issue 13).

`entrypoints/cli.py` only registers them (`register`); the format and its check are
shared/app/ops/export.py, the replay views shared/app/ops/ops_replay.py (docs/export.md).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from entrypoints.cli_args import DSN_HELP, command, divans, later, whole

# each verb's module is imported when it runs (cli_args.later)
_VERIFY = "entrypoints.audit_verify"
_REPLAY = "entrypoints.audit_replay"
_FORKS = "entrypoints.audit_forks"


def register(sub: Any, common: Any = None, lang: Any = "tr") -> None:
    """Add export, verify, import and replay to the `seksenbir` sub-command parsers; `common`
    is the parser every command inherits (its --lang)."""
    parents = [common] if common is not None else []
    _register_export(sub, parents)
    _register_verify(sub, parents)
    _register_import(sub, parents)
    _register_replay(sub, parents, lang)
    _register_explain(sub, parents, lang)
    _register_what_if(sub, parents, lang)
    _register_fork(sub, parents, lang)
    _register_shadow(sub, parents, lang)


def _register_export(sub: Any, parents: list[Any]) -> None:
    """`seksenbir export`."""
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
    e.set_defaults(func=later(_VERIFY, "run_export"))


def _register_verify(sub: Any, parents: list[Any]) -> None:
    """`seksenbir verify`."""
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
    v.set_defaults(func=later(_VERIFY, "run_verify"))


def _register_import(sub: Any, parents: list[Any]) -> None:
    """`seksenbir import`."""
    i = sub.add_parser(
        "import",
        parents=parents,
        help="load an exported season into this database (an audit copy); refuses a broken "
        "chain and a season id that exists",
    )
    i.add_argument("file", help="a seksenbir-export/2 (or /1) file, as `seksenbir export` writes")
    i.add_argument("--dsn", help=DSN_HELP)
    i.set_defaults(func=later(_VERIFY, "run_import"))


def _register_replay(sub: Any, parents: list[Any], lang: Any) -> None:
    """`seksenbir replay`."""
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
        type=divans(lang),
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
    r.set_defaults(func=later(_REPLAY, "run_replay"))


def _register_explain(sub: Any, parents: list[Any], lang: Any) -> None:
    """`seksenbir explain`."""
    x = sub.add_parser(
        "explain",
        parents=parents,
        help="one Divan verified and explained battle by battle: attackers, supports and how "
        "each was classified, bonuses, dice with their keys, rules, outcome",
    )
    x.add_argument("source", help="a season id read from the database, or an export file")
    x.add_argument("divan", type=divans(lang), help="the Divan, 1 … 16")
    x.add_argument(
        "province",
        nargs="*",
        default=[],  # without a default argparse calls a `*` positional required
        type=_plates(lang),
        help="only the battles at these plates (default: all; a plate given twice is one)",
    )
    x.add_argument("--json", action="store_true", help="print JSON (the ops endpoint's answer)")
    x.add_argument("--dsn", help=DSN_HELP)
    x.set_defaults(func=later(_REPLAY, "run_explain"))


def _register_what_if(sub: Any, parents: list[Any], lang: Any) -> None:
    """`seksenbir what-if`."""
    w = sub.add_parser(
        "what-if",
        parents=parents,
        help="re-run one Divan with orders changed, added or removed or dice pinned, and show "
        "the difference from the record; writes nothing",
    )
    w.add_argument("source", help="a season id read from the database, or an export file")
    w.add_argument("divan", type=divans(lang), help="the Divan, 1 … 16")
    w.add_argument(
        "--file",
        required=True,
        help='the changes as JSON: {"orders": [{"seat", "from", "kind", "to", "units"}], '
        '"dice": [{"target", "side", "value"}]} (kind "remove" takes an order away)',
    )
    w.add_argument("--json", action="store_true", help="print JSON (the ops endpoint's answer)")
    w.add_argument("--dsn", help=DSN_HELP)
    w.set_defaults(func=later(_REPLAY, "run_what_if"))


def _register_shadow(sub: Any, parents: list[Any], lang: Any) -> None:
    """`seksenbir shadow`."""
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
        type=command(lang),
        help="the other build's adjudicate command, e.g. \"/other/venv/bin/seksenbir "
        "adjudicate\"; the scenario file's path is added",
    )
    sh.add_argument("--dsn", help=DSN_HELP)
    sh.set_defaults(func=later(_FORKS, "run_shadow"))


def _register_fork(sub: Any, parents: list[Any], lang: Any) -> None:
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
        type=whole(lang),
        required=True,
        metavar="N",
        help="the Divan whose resulting state the fork starts from (0: before Divan 1)",
    )
    f.add_argument("--seat", type=whole(lang), required=True, metavar="S", help="your seat, 1 … 19")
    f.add_argument("--dsn", help=DSN_HELP)
    f.set_defaults(func=later(_FORKS, "run_fork"))


def _plates(lang: Any) -> Callable[[str], int]:
    """A province's plate, 1 … 81 (as `?province=` of the explain endpoint); anything else is
    refused by argparse (exit 2), in `lang`, never "no battle at 999"."""
    from entrypoints.cli_args import bounded_int
    from shared.domain.map import PLATES

    return bounded_int(lang, lambda n: n in PLATES, "audit.plate", last=PLATES[-1])


def _version(lang: Any) -> Callable[[str], int]:
    """A stream version, 0 or more; anything else is refused by argparse (exit 2), in `lang`."""
    from entrypoints.cli_args import bounded_int

    return bounded_int(lang, lambda n: n >= 0, "audit.version_negative")
