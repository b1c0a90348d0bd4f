"""The `seksenbir` command line: adjudicate, simulate (and, with the services, migrate/up/…)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import msgspec


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
    from shared.domain.simulate import current_standings

    public: list[Any] = []
    for e in step.events:
        if isinstance(e, ev.DivanResolved):
            public = [
                {"kind": line.kind, "text": getattr(line, lang), **line.data} for line in e.public
            ]
        if isinstance(e, ev.KurultayHeld):
            return {"kurultay": msgspec.to_builtins(e)}
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
            k = summary["kurultay"]
            print(f"\n== Kurultay == Han: {k['han']}. bey · Halk Sevgisi: {k['halk_sevgisi']}")
            for seat, score in k["scores"]:
                print(f"  {seat:>2}. bey  {score:>3} puan")
            continue
        print(f"\n== {summary['divan']}. Divan ==")
        for line in summary["report"]:
            print(f"  {line['text']}")
        tops = ", ".join(f"{s['seat']}. bey {s['score']}" for s in summary["standings"])
        print(f"  Sıralama: {tops}")
    if args.json:
        print(json.dumps(steps, ensure_ascii=False, default=list))
    return 0


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="seksenbir", description="Seksenbir game server")
    sub = p.add_subparsers(dest="command", required=True)
    a = sub.add_parser("adjudicate", help="resolve one Divan from a seksenbir-scenario/1 file")
    a.add_argument("file")
    a.set_defaults(func=_adjudicate)
    s = sub.add_parser("simulate", help="a whole trial season of computer beys")
    s.add_argument("--seed", type=int, required=True)
    s.add_argument("--divans", type=int, default=16)
    s.add_argument("--json", action="store_true")
    s.add_argument("--lang", choices=["tr", "en"], default="tr")
    s.set_defaults(func=_simulate)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    return int(args.func(args))


if __name__ == "__main__":
    raise SystemExit(main())
