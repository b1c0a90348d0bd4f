"""Shadow re-adjudication (issue 13): every recorded Divan as a `seksenbir-scenario/1` document
(SCENARIO.md; docs/CASE-WRITING.md), so another build's `seksenbir adjudicate` can resolve it,
and the comparison of its answer with this build's. Nothing is written anywhere but a temporary
file.

The scenario is the state the Divan was resolved from (after its DivanLocked) and its locked
orders, with every draw pinned: each fate die from the season's keyed draws (R-12.1), the news
card, the rebellions and the computer beys' answers to offers as the record has them. The
reference is this build's adjudication of the same document (which `seksenbir verify` proves
equal to the record), compared on what SCENARIO.md's output has: provinces, beys, treaties and
the battle records. Report texts are left out: a build may word them differently.
"""

from __future__ import annotations

import json
import shlex
import subprocess
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from shared.domain import events as ev
from shared.domain import scenario
from shared.domain.draws import Draws
from shared.domain.evolve import evolve, fold
from shared.domain.state import SeasonState

COMPARED = ("provinces", "beys", "treaties", "battles")
TIMEOUT = 120.0  # seconds for one Divan in the other build


def _drawn(
    outcome: Sequence[ev.Event],
) -> tuple[dict[str, Any] | None, dict[str, bool], dict[str, bool]]:
    """What the Divan drew, from its recorded outcome: the news card, each rebellion's result,
    each offer's answer."""
    news: dict[str, Any] | None = None
    rebellion: dict[str, bool] = {}
    offers: dict[str, bool] = {}
    for e in outcome:
        if isinstance(e, ev.DivanResolved):
            break
        if isinstance(e, ev.NewsRevealed) and e.card is not None:
            news = {"card": e.card.card, "region": e.card.region}
            if e.card.card in ("yerel_isyan", "deprem"):
                news["province"] = e.province
            if e.card.card == "seyyah_tuccar":
                news["seat"] = e.seat
        elif isinstance(e, ev.RebellionsRun):
            rebellion = {str(seat): ok for seat, _chance, ok in e.rebellions}
        elif isinstance(e, ev.OfferSettled) and e.outcome in ("accepted", "rejected"):
            offers[f"{e.offer.frm}-{e.offer.to}"] = e.outcome == "accepted"
    return news, rebellion, offers


def scenario_of(
    state: SeasonState, locked: ev.DivanLocked, outcome: Sequence[ev.Event]
) -> dict[str, Any]:
    """Divan `locked.divan` as a scenario document, every draw pinned (SCENARIO.md)."""
    divan = locked.divan
    draws = Draws(state.seed, divan, state.deck)
    provinces: dict[str, Any] = {}
    for plate, p in enumerate(state.provinces, start=1):
        if p.owner is None:
            provinces[str(plate)] = {"owner": None, "milis": p.units}
        else:
            provinces[str(plate)] = {"owner": p.owner, "units": p.units, "sur": p.sur}
    news, rebellion, offers = _drawn(outcome)
    return {
        "format": scenario.FORMAT,
        "name": f"{state.season_id} Divan {divan}",
        "divan": divan,
        "seed": state.seed,
        "beys": [
            {
                "seat": b.seat,
                "memleket": b.memleket,
                "gold": b.gold,
                "computer": b.computer,
                "exiled": state.provinces[b.memleket - 1].owner != b.seat,
                "hain_through": b.hain_through,
                "lost_memleket_before": b.lost_memleket_before,
                "missions": list(b.missions),
                "missions_done": list(b.missions_done),
            }
            for b in state.beys
        ],
        "provinces": provinces,
        "treaties": [
            {"kind": t.kind, "beys": [t.a, t.b], "through_divan": t.through_divan}
            for t in state.treaties
        ],
        "offers": [
            {"kind": o.kind, "from": o.frm, "to": o.to, "answer": o.answer} for o in locked.offers
        ],
        "ceasefire": state.ceasefire_divan == divan,
        "news": news,
        "orders": [
            {"seat": seat, "from": o.province, "kind": o.kind, "to": o.target, "units": o.units}
            for seat in sorted(locked.orders)
            for o in locked.orders[seat]
        ],
        "draws": {
            "fate": {
                str(p): {"attack": draws.fate(p, "attack"), "defence": draws.fate(p, "defence")}
                for p in range(1, 82)
            },
            "rebellion": rebellion,
            "offers": offers,
        },
    }


def divan_scenarios(events: Sequence[ev.Event]) -> Iterator[tuple[int, dict[str, Any]]]:
    """(Divan, scenario document) for every locked Divan of the season, in order."""
    state = SeasonState()
    for i, e in enumerate(events):
        if isinstance(e, ev.DivanLocked):
            at_lock = evolve(state, e)
            yield e.divan, scenario_of(at_lock, e, events[i + 1 :])
        state = evolve(state, e)


def this_build(doc: dict[str, Any]) -> dict[str, Any]:
    out = scenario.run(scenario.load(json.dumps(doc).encode()))
    return json.loads(json.dumps(out, default=list))  # type: ignore[no-any-return]


@dataclass
class DivanShadow:
    season: str
    divan: int
    differences: list[str] = field(default_factory=list)
    error: str | None = None

    @property
    def changed(self) -> bool:
        return bool(self.differences) or self.error is not None


def compare(mine: dict[str, Any], theirs: dict[str, Any]) -> list[str]:
    """Where the other build's output differs from this build's, on COMPARED."""
    out = []
    for key in COMPARED:
        a, b = mine.get(key), theirs.get(key)
        if key == "provinces" and isinstance(a, dict) and isinstance(b, dict):
            for plate in sorted(set(a) | set(b), key=int):
                if a.get(plate) != b.get(plate):
                    out.append(f"province {plate}: {a.get(plate)} -> {b.get(plate)}")
        elif key == "beys" and isinstance(a, list) and isinstance(b, list):
            theirs_by = {x.get("seat"): x for x in b if isinstance(x, dict)}
            for x in a:
                y = theirs_by.get(x["seat"], {})
                for k, v in x.items():
                    if y.get(k) != v:
                        out.append(f"bey {x['seat']} {k}: {v} -> {y.get(k)}")
        elif a != b:
            out.append(f"{key}: {json.dumps(a)[:200]} -> {json.dumps(b)[:200]}")
    return out


class CommandNotRun(Exception):
    """The other build's command could not be started at all (`error`: the OS's): not a build
    whose outcome differs, a shadow run that was not done."""

    def __init__(self, command: str, error: OSError) -> None:
        super().__init__(f"{command}: {error}")
        self.command, self.error = command, error


def run_other(command: str, doc: dict[str, Any], folder: Path) -> dict[str, Any]:
    """The other build's output for one scenario; RuntimeError when it fails, CommandNotRun
    when it cannot be started."""
    path = folder / f"divan-{doc['divan']}.json"
    path.write_text(json.dumps(doc, ensure_ascii=False))
    try:
        done = subprocess.run(
            [*shlex.split(command), str(path)],
            capture_output=True,
            timeout=TIMEOUT,
            check=False,
        )
    except OSError as exc:  # never started (not found, not executable): no Divan is tried
        raise CommandNotRun(command, exc) from exc
    except subprocess.TimeoutExpired as exc:
        raise RuntimeError(str(exc)) from exc
    if done.returncode != 0:
        raise RuntimeError(f"exit {done.returncode}: {done.stderr.decode(errors='replace')[-300:]}")
    try:
        out = json.loads(done.stdout)
    except ValueError as exc:
        raise RuntimeError(f"not JSON: {exc}") from exc
    if not isinstance(out, dict):
        raise RuntimeError("not a JSON object")
    return out


def shadow_season(season_id: str, events: Sequence[ev.Event], command: str) -> list[DivanShadow]:
    """Every Divan of the season through `command`; one DivanShadow per Divan."""
    results = []
    with tempfile.TemporaryDirectory(prefix="seksenbir-shadow-") as tmp:
        for divan, doc in divan_scenarios(events):
            result = DivanShadow(season_id, divan)
            try:
                result.differences = compare(this_build(doc), run_other(command, doc, Path(tmp)))
            except RuntimeError as exc:
                result.error = str(exc)
            results.append(result)
    return results


def reached(events: Sequence[ev.Event]) -> int:
    return fold(events).divan
