"""An explained Divan and a what-if, as text for people in tr or en (the CLI's and the ops
endpoints' text form)."""

from __future__ import annotations

from collections.abc import Sequence

from shared.app.ops.divan_tools import BeyAt, ExplainOut, ProvinceAt, WhatIfOut
from shared.app.ops.ops_replay import corrections_text, place
from shared.domain.explain import AdvanceNote, BattleNote
from shared.domain.messages import Lang, render


# --- text for people ----------------------------------------------------------------------
def _say(_text: str, _lang: Lang, **params: object) -> str:
    return render(f"explain.{_text}", _lang, params)


def _who(seat: int | None, lang: Lang) -> str:
    return _say("milis", lang) if seat is None else _say("bey", lang, seat=seat)


def explain_text(out: ExplainOut, lang: Lang, provinces: Sequence[int] = ()) -> str:
    """`seksenbir explain`: the verification, then every battle, in Turkish or English;
    `provinces`: the ones the explanation was narrowed to (no battle there is not "no battle
    in this Divan")."""
    v = out.verification
    lines = [_say("head", lang, season=out.season_id, divan=out.divan)]
    lines.append(_say("verified" if v.ok else "not_verified", lang))
    for check in v.events:
        if not check.same:
            lines += [f"  ! {check.type}: {c}" for c in check.changes]
    lines += [f"  ! {t}" for t in v.computer_turn]
    if out.explanation.ceasefire:
        lines.append(_say("ceasefire", lang))
    if not out.explanation.battles:
        if provinces:
            plates = ", ".join(place(p) for p in provinces)
            lines.append(_say("no_battles.at", lang, provinces=plates))
        else:
            lines.append(_say("no_battles", lang))
    for b in out.explanation.battles:
        lines += ["", *_battle_text(b, lang)]
    if out.explanation.dropped:
        lines += ["", _say("dropped_head", lang)]
        for d in out.explanation.dropped:
            lines.append(
                "  "
                + _say(
                    "dropped",
                    lang,
                    seat=d.seat,
                    origin=place(d.origin),
                    target=place(d.target),
                    kind=_say(f"kind.{d.kind}", lang),
                    units=d.units,
                    why=_say(f"why.{d.reason}", lang),
                    rule=d.rule,
                )
            )
    lines += _sets_text(out, lang)
    if out.corrections:
        lines += ["", corrections_text(out.corrections, lang)]
    return "\n".join(lines)


def _sets_text(out: ExplainOut, lang: Lang) -> list[str]:
    """ADR-103: each order set submitted for the Divan, its instant against the lock's."""
    sets = out.orders.sets
    if not sets:
        return []
    locked = out.orders.locked_at
    lines = ["", _say("sets_head", lang, at=locked.isoformat() if locked else "-")]
    for s in sets:
        at = s.submitted_at.isoformat() if s.submitted_at else _say("set.at_lock", lang)
        sealed = _say("set.sealed", lang) if s.sealed else ""
        late = "" if s.before_lock else _say("set.late", lang)
        orders = len(s.orders)
        lines.append(
            "  " + _say("set", lang, seat=s.seat, at=at, count=orders, mark=sealed, what=late)
        )
    return lines


def _battle_text(b: BattleNote, lang: Lang) -> list[str]:
    lines = [
        _say(
            "battle",
            lang,
            target=b.target,
            defender=_who(b.defender, lang),
            units=b.defender_units,
        )
    ]
    for g in b.groups:
        advances = ", ".join(_advance(a, lang) for a in g.advances)
        mark = _say("fighting" if g.fighting else "went_home", lang)
        lines.append(
            "  "
            + _say("group", lang, index=g.index + 1, advances=advances, support=g.support)
            + f" = {g.strength}; {mark}"
        )
    lines += _support_lines(b, lang)
    bonus = b.bonus
    if b.defender is not None:
        lines.append(
            "  "
            + _say(
                "bonus",
                lang,
                memleket=bonus.memleket,
                sur=bonus.sur,
                hemsehri=bonus.hemsehri,
                total=bonus.total,
            )
        )
    for d in b.dice:
        key = f"({d.divan}, {d.purpose}, {d.key[0]}/{d.key[1]})"
        how = _say("die_zero" if not d.drawn else ("die_pinned" if d.pinned else "die_seed"), lang)
        lines.append(
            "  " + _say(f"die.{d.side}", lang, value=d.value, key=key) + f" — {how} ({d.rule})"
        )
    if b.attack is not None:
        lines.append("  " + _say("sums", lang, attack=b.attack, defence=b.defence))
    outcome = _say(
        f"outcome.{b.outcome}",
        lang,
        taker=b.taker,
        entering=b.entering,
        a_lost=b.attacker_losses,
        d_lost=b.defender_losses,
    )
    lines.append("  " + outcome + f" [{', '.join(b.rules)}]")
    return lines


def _advance(a: AdvanceNote, lang: Lang) -> str:
    origin = place(a.origin)
    said = _say("advance", lang, seat=a.seat, origin=origin, units=a.units, ordered=a.ordered)
    return said + (" " + _say("betrayal", lang) if a.betrayal else "")


def _support_lines(b: BattleNote, lang: Lang) -> list[str]:
    """Each support of a battle: where it came from, how it was classified, and why."""
    lines = []
    for s in b.supports:
        counted = _say("counted" if s.counted else "not_counted", lang)
        lines.append(
            "  "
            + _say(
                "support",
                lang,
                seat=s.seat,
                origin=place(s.origin),
                units=s.units,
                kind=_say(f"support.{s.classified}", lang),
            )
            + f": {counted} ({_say(f'why.{s.why}', lang)}; {', '.join(s.rules)})"
        )
    return lines


def what_if_text(out: WhatIfOut, lang: Lang) -> str:
    lines = [_say("what_if_head", lang, season=out.season_id, divan=out.divan)]
    if not out.changed:
        lines.append(_say("what_if_same", lang))
        return "\n".join(lines)
    for bc in out.battles:
        recorded, what_if = _outcome(bc.recorded, lang), _outcome(bc.what_if, lang)
        lines.append(
            "  "
            + _say("what_if_battle", lang, target=bc.target, recorded=recorded, what_if=what_if)
        )
    for p in out.provinces:  # named as the battle lines and the console name it
        was, now = _province(p.recorded, lang), _province(p.what_if, lang)
        lines.append(f"  {p.name} ({p.plate}): {was} -> {now}")
    for bey in out.beys:
        was, now = _bey(bey.recorded, lang), _bey(bey.what_if, lang)
        lines.append(f"  {_who(bey.seat, lang)}: {was} -> {now}")
    for t in out.treaties:
        lines.append(
            "  "
            + _say(
                f"what_if_{t.change}",
                lang,
                kind=_say(f"what_if_treaty.{t.treaty.kind}", lang),
                a=_who(t.treaty.beys[0], lang),
                b=_who(t.treaty.beys[1], lang),
                through=t.treaty.through_divan,
            )
        )
    for line in out.report_only_recorded:
        lines.append(f"  - {getattr(line, lang)}")
    for line in out.report_only_what_if:
        lines.append(f"  + {getattr(line, lang)}")
    return "\n".join(lines)


def _outcome(outcome: str | None, lang: Lang) -> str:
    """A battle's outcome in words, as the Divan reports say it; None: no battle there."""
    return _say(f"what_if_outcome.{outcome or 'none'}", lang)


def _province(p: ProvinceAt, lang: Lang) -> str:
    sur = ", sur" if p.sur else ""  # the game's word in both languages
    return _say("what_if_holding", lang, who=_who(p.owner, lang), units=p.units) + sur


def _bey(b: BeyAt, lang: Lang) -> str:
    text = _say("bey_state", lang, gold=b.gold, provinces=b.provinces, units=b.units)
    if b.hain_through is not None:
        text += " " + _say("hain", lang, through=b.hain_through)
    return text
