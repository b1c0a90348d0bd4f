"""Ops replay of a season (`seksenbir replay`): its state folded to a point, and one Divan re-run
from its recorded inputs and the seed, compared event by event with the record (R-12.3).

Pure: it reads decoded events and returns values and text; it never writes anything.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import msgspec

from shared.domain import codec
from shared.domain import events as ev
from shared.domain.board import Board
from shared.domain.evolve import evolve, fold
from shared.domain.lifecycle import inputs_of, marked_late
from shared.domain.map import game_map
from shared.domain.messages import DEFAULT, Lang, Said, said_from_english
from shared.domain.replay import turn_problems
from shared.domain.report_lines import correction
from shared.domain.resolve import resolve_divan
from shared.domain.scoring import scores
from shared.domain.state import SeasonState


class ReplayError(Exception):
    """The point asked for is not in the record (exit 2: a usage error, not a defect)."""

    def __init__(self, said: Said) -> None:
        self.said = said
        super().__init__(said)


def upto_divan(events: Sequence[ev.Event], divan: int) -> int:
    """How many events make the season as it stood when Divan `divan` was resolved
    (0: before Divan 1 was locked)."""
    if divan == 0:
        for i, e in enumerate(events):
            if isinstance(e, ev.DivanLocked):
                return i
        return len(events)
    for i, e in enumerate(events):
        if isinstance(e, ev.DivanResolved) and e.divan == divan:
            return i + 1
    reached = fold(events).divan
    raise ReplayError(Said("replay.not_in_record", divan=divan, reached=reached))


def state_json(state: SeasonState, version: int) -> dict[str, Any]:
    """The folded state for people and scripts: beys (with scores) and provinces."""
    gm = game_map()
    score = _scores(state)
    return {
        "season": state.season_id,
        "version": version,
        "phase": state.phase,
        "divan": state.divan,
        "rules_version": state.rules_version,
        "beys": [
            {
                "seat": b.seat,
                "memleket": b.memleket,
                "memleket_name": gm[b.memleket].name if b.memleket in gm else None,
                "computer": b.computer,
                "gold": b.gold,
                "provinces": sum(1 for p in state.provinces if p.owner == b.seat),
                "units": sum(p.units for p in state.provinces if p.owner == b.seat),
                "score": score.get(b.seat),
                "hain_through": b.hain_through,
                "missions_done": list(b.missions_done),
            }
            for b in state.beys
        ],
        "provinces": [
            {
                "plate": plate,
                "name": gm[plate].name,
                "owner": p.owner,
                "units": p.units,
                "sur": p.sur,
            }
            for plate, p in enumerate(state.provinces, start=1)
        ],
        "treaties": [msgspec.to_builtins(t) for t in state.treaties],
    }


def _scores(state: SeasonState) -> dict[int, int]:
    if not state.provinces:
        return {}
    return scores(Board.of(state, state.divan))


def place(plate: int | None) -> str:
    """A province as the audit CLIs name one, in either language: its name with the plate,
    "İstanbul (34)" (what-if, explain, replay); "-" for none."""
    return "-" if plate is None else f"{game_map()[plate].name} ({plate})"


def state_table(view: dict[str, Any], lang: Lang = DEFAULT) -> str:
    """`state_json` as two aligned tables (beys, then provinces) and the treaties in force, for
    people in `lang` (names of provinces, phases and treaty kinds are data, as they are)."""

    def say(key: str, **details: object) -> str:
        return Said(key, **details).text(lang)

    heading = say(
        "replay.heading",
        season=view["season"],
        version=view["version"],
        phase=view["phase"],
        divan=view["divan"],
        rules=view["rules_version"],
    )
    lines = [heading, "", say("replay.beys")]
    bey_rows = [
        [
            str(b["seat"]),
            place(b["memleket"]),
            say("replay.computer") if b["computer"] else say("replay.human"),
            str(b["gold"]),
            str(b["provinces"]),
            str(b["units"]),
            "" if b["score"] is None else str(b["score"]),
            "" if b["hain_through"] is None else say("replay.hain", divan=b["hain_through"]),
        ]
        for b in view["beys"]
    ]
    head = [*say("replay.bey_columns").split("|"), ""]
    lines += _table(head, bey_rows)
    lines += ["", say("replay.provinces")]
    rows = [
        [
            str(p["plate"]),
            p["name"],
            "milis" if p["owner"] is None else say("replay.owner", seat=p["owner"]),
            str(p["units"]),
            "sur" if p["sur"] else "",
        ]
        for p in view["provinces"]
    ]
    lines += _table([*say("replay.province_columns").split("|"), ""], rows)
    lines += ["", say("replay.treaties")]
    lines += [
        say("replay.treaty", kind=t["kind"], a=t["a"], b=t["b"], divan=t["through_divan"])
        for t in view["treaties"]
    ] or ["  " + say("up.none")]
    return "\n".join(lines)


def _table(head: list[str], rows: list[list[str]]) -> list[str]:
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]
    return [
        "  " + "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip()
        for row in [head, *rows]
    ]


@dataclass
class EventDiff:
    """One event of a Divan's re-run beside the recorded one at the same place."""

    version: int | None  # the recorded event's version (None: missing from the record)
    type: str
    same: bool
    changes: list[str] = field(default_factory=list)  # "path: recorded -> re-run"


@dataclass
class DivanRerun:
    divan: int
    events: list[EventDiff]
    turn: list[str]  # computer-turn mismatches, from the domain's verify

    @property
    def ok(self) -> bool:
        return all(e.same for e in self.events) and not self.turn


def rerun_divan(events: Sequence[ev.Event], divan: int) -> DivanRerun:
    """Divan `divan` re-run from its DivanLocked (recorded orders and offers) and the seed,
    compared event by event with what the record holds after the lock."""
    for i, e in enumerate(events):
        if isinstance(e, ev.DivanLocked) and e.divan == divan:
            lock_at = i
            locked = e
            break
    else:
        reached = fold(events).divan
        raise ReplayError(Said("replay.never_locked", divan=divan, reached=reached))
    state = evolve(fold(events[:lock_at]), locked)
    late = any(
        isinstance(e, ev.DivanHeld) and e.divan == divan and e.late for e in events[:lock_at]
    )  # a live Divan held late: its report says so (issue 12)
    expected = marked_late(resolve_divan(state, inputs_of(state, locked)), late)
    recorded = list(events[lock_at + 1 : lock_at + 1 + len(expected)])
    diffs = []
    for j, want in enumerate(expected):
        got = recorded[j] if j < len(recorded) else None
        version = lock_at + 2 + j if got is not None else None
        if got is not None and codec.encode(got) == codec.encode(want):
            diffs.append(EventDiff(version, codec.event_type(want), True))
            continue
        recorded_obj = _builtins(got) if got is not None else None
        changes = _changes("", recorded_obj, _builtins(want))
        diffs.append(EventDiff(version, codec.event_type(want), False, changes))
    turn = [p.what for p in turn_problems(events, lock_at)]
    return DivanRerun(divan, diffs, turn)


def _builtins(e: ev.Event) -> Any:
    return msgspec.json.decode(codec.encode(e))


def _changes(path: str, recorded: Any, rerun: Any) -> list[str]:
    """Leaf differences between two JSON values, as "path: recorded -> re-run"."""
    if isinstance(recorded, dict) and isinstance(rerun, dict):
        out: list[str] = []
        for key in sorted(set(recorded) | set(rerun)):
            sub = f"{path}.{key}" if path else str(key)
            out += _changes(sub, recorded.get(key, "<absent>"), rerun.get(key, "<absent>"))
        return out
    if isinstance(recorded, list) and isinstance(rerun, list) and len(recorded) == len(rerun):
        out = []
        for k, (a, b) in enumerate(zip(recorded, rerun, strict=True)):
            out += _changes(f"{path}[{k}]", a, b)
        return out
    if recorded == rerun:
        return []
    shown = "<missing>" if recorded is None and not path else _short(recorded)
    return [f"{path or '<event>'}: {shown} -> {_short(rerun)}"]


def _short(value: Any) -> str:
    text = msgspec.json.encode(value).decode()
    return text if len(text) <= 120 else text[:117] + "..."


def rerun_text(rerun: DivanRerun, lang: Lang = DEFAULT) -> str:
    """The comparison for people, in `lang`: one line per event, the changes of each differing
    one (event types and field paths are data, as they are)."""

    def say(key: str, **details: object) -> str:
        return Said(key, **details).text(lang)

    lines = [say("replay.rerun", divan=rerun.divan)]
    for d in rerun.events:
        where = say("replay.version", version=d.version) if d.version is not None else None
        where = where or say("replay.missing")
        if d.same:
            lines.append(f"  = {where:>12}  {d.type}")
            continue
        lines.append(f"  ! {where:>12}  {d.type}  {say('replay.differs')}")
        lines += [f"      {c}" for c in d.changes]
    lines += [f"  ! {_turn(t, lang)}" for t in rerun.turn]
    lines.append(say("replay.same") if rerun.ok else say("replay.not_same"))
    return "\n".join(lines)


def _turn(what: str, lang: Lang) -> str:
    found = said_from_english("replay.", what)
    return found.text(lang) if found is not None else what


def rerun_json(rerun: DivanRerun) -> dict[str, Any]:
    return {
        "divan": rerun.divan,
        "ok": rerun.ok,
        "events": [
            {"version": d.version, "type": d.type, "same": d.same, "changes": d.changes}
            for d in rerun.events
        ],
        "computer_turn": rerun.turn,
    }


class CorrectionNote(msgspec.Struct, frozen=True):
    """ADR-53: a correction ops applied, beside the record it compensates (which stays): its
    season version, the Divan after which it applies, what was set, why, the version it
    compensates, and its line in Turkish and English (ops' line: a gold amount included)."""

    version: int
    divan: int
    correction: ev.Fix
    reason: str
    refers_to: int | None
    at: str
    tr: str
    en: str


def correction_notes(
    events: Sequence[ev.Event], upto: int, through_divan: int | None = None
) -> list[CorrectionNote]:
    """The corrections among the first `upto` events (with `through_divan`, only those applied
    after a Divan up to that one), in version order."""
    notes = []
    for i, e in enumerate(events[:upto]):
        if not isinstance(e, ev.CorrectionApplied):
            continue
        if through_divan is not None and e.divan > through_divan:
            continue
        line = correction(e, public=False)
        at = str(line.data["at"])
        notes.append(
            CorrectionNote(
                i + 1, e.divan, e.correction, e.reason, e.refers_to, at, line.tr, line.en
            )
        )
    return notes


def corrections_json(events: Sequence[ev.Event], upto: int) -> list[dict[str, Any]]:
    """ADR-53: the corrections among the first `upto` events, each with its season version,
    beside the original outcomes they compensate (which stay in the record)."""
    return [msgspec.to_builtins(n) for n in correction_notes(events, upto)]


def corrections_text(notes: Sequence[CorrectionNote], lang: Lang = DEFAULT) -> str:
    """The corrections' lines in `lang`, each after its season version (`seksenbir replay`,
    `seksenbir explain`)."""
    lines = [Said("audit.corrections", count=len(notes)).text(lang)]
    lines += [f"  v{n.version} {n.tr if lang == 'tr' else n.en}" for n in notes]
    return "\n".join(lines)
