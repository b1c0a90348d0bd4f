"""The `seksenbir` command line: adjudicate, simulate (and, with the services, migrate/up/…).

Every line it writes for people is Turkish, or English with `--lang en` (before or after the
command: `seksenbir --lang en simulate …`), from the catalogue shared.domain.messages; JSON
output is data (its keys and values stay as they are; report lines carry both texts).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from entrypoints import audit, cli_ops
from entrypoints.cli_args import (
    LANG_HELP,
    divans,
    language_of,
    os_error,
    say,
    seed,
    setting_refusal,
)
from shared.setting_checks import SettingError
from shared.unreachable import Unreachable

if TYPE_CHECKING:
    from shared.domain.messages import Lang
    from shared.domain.scenario import ScenarioError


def _scenario_refusal(exc: ScenarioError, args: argparse.Namespace) -> str:
    """A scenario file refused, in words: JSON that is not a scenario (msgspec's English, "Object
    missing required field `divan`") as the API says a body's field is wrong, with its path and
    the file's name, in the language asked for; any other refusal as the catalogue says it."""
    import msgspec

    from entrypoints.cli_args import shown_file
    from shared.app.http.strict import body_problem
    from shared.domain.scenario import Scenario

    if not isinstance(exc.__cause__, msgspec.ValidationError):
        return exc.text(args.lang)
    why = body_problem(exc.__cause__, Scenario).text(args.lang)
    return f"{shown_file(args.file)}: {say('scenario.invalid', args.lang, error=why)}"


def _adjudicate(args: argparse.Namespace) -> int:
    from shared.domain import scenario

    try:
        sc = scenario.load(Path(args.file).read_bytes())
        out = scenario.run(sc)
    except scenario.ScenarioError as exc:
        print(f"seksenbir adjudicate: {_scenario_refusal(exc, args)}", file=sys.stderr)
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
    import msgspec

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
    from shared.domain.state import API_REPORT_VERSION

    steps = []
    # the report version of the seasons the API creates (ADR-62, ADR-157)
    for step in season(args.seed, args.divans, report_version=API_REPORT_VERSION):
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


def _vapid_keys(args: argparse.Namespace) -> int:
    """A new VAPID pair (issue 25): the private key goes into SEKSENBIR_VAPID_PRIVATE_KEY, the
    public one is what GET /v1/push/key serves (derived from the private key)."""
    from shared.app.messaging.webpush import VapidKeys

    keys = VapidKeys.generate()
    print(f"SEKSENBIR_VAPID_PRIVATE_KEY={keys.private_key}")
    print(f"# public key: {keys.public_key}")
    return 0


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
        type=seed(lang),
        required=True,
        help="the season seed (0 … 2^63−1): same seed, same season",
    )
    s.add_argument(
        "--divans",
        type=divans(lang),
        default=16,
        help="how many Divans to play, 1 … 16 (default 16)",
    )
    s.add_argument(
        "--json",
        action="store_true",
        help="print the whole season as one JSON document instead of text",
    )
    s.set_defaults(func=_simulate)
    v = sub.add_parser(
        "vapid-keys",
        parents=[common],
        help="print a new VAPID key pair for Web Push (SEKSENBIR_VAPID_PRIVATE_KEY)",
    )
    v.set_defaults(func=_vapid_keys)
    cli_ops.register(sub, common, lang)
    audit.register(sub, common, lang)
    if lang == "tr":  # the language policy: Turkish by default, English with --lang en
        from entrypoints.cli_help import localise

        localise(p)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    args = parser(language_of(argv)).parse_args(argv)
    try:
        code = int(args.func(args))
        sys.stdout.flush()  # a reader that left shows here, not at exit
    except Unreachable as exc:  # a wrong --dsn or URL, a server not started: one line, exit 2
        text = say(exc.key, args.lang, where=exc.where, reason=exc.reason)
        print(f"seksenbir {args.command}: {text}", file=sys.stderr)
        return 2
    except SettingError as exc:  # a variable's value no process runs with (ADR-172): one line, 2
        print(f"seksenbir {args.command}: {setting_refusal(exc, args.lang)}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # `seksenbir replay S --json | head`: the reader left; not an error
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except OSError as exc:  # `seksenbir verify F > /dev/full`, a file gone mid-way: one line
        import errno
        import os

        code_name = errno.errorcode.get(exc.errno or 0, str(exc))
        from entrypoints.cli_args import shown_file

        target = shown_file(str(exc.filename)) if exc.filename is not None else "stdout"
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
