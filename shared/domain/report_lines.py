"""Report lines of report version 2: offers, dropped orders, battles as the reader saw them,
and the Kurultay (R-13, R-14). Structured data first, then Turkish and English text."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import chain
from operator import attrgetter

from shared.domain import calendar as cal
from shared.domain.events import (
    BattleRecord,
    CorrectionApplied,
    GoldFix,
    HainRevoke,
    KurultayHeld,
    OfferSettled,
    ProvinceFix,
    ReportLine,
)
from shared.domain.map import game_map
from shared.domain.rules.orders import Dropped
from shared.domain.state import NAMED_REPORT_VERSION, AdminAct, perde

TREATY = {
    "pact": ("saldırmazlık antlaşması", "non-aggression pact"),
    "alliance": ("ittifak", "alliance"),
}


def _il(plate: int | None) -> str:
    return game_map().names[plate] if plate else "-"


def _beys_tr(seats: Sequence[int]) -> str:
    if len(seats) == 1:
        return f"{seats[0]}. bey"
    names = [f"{s}. bey" for s in seats]
    return " ve ".join([", ".join(names[:-1]), names[-1]]) if len(names) > 1 else "".join(names)


def _beys_en(seats: Sequence[int]) -> str:
    if len(seats) == 1:
        return f"Bey {seats[0]}"
    names = [f"Bey {s}" for s in seats]
    return " and ".join([", ".join(names[:-1]), names[-1]]) if len(names) > 1 else "".join(names)


# --- step 2: offers (R-6.1 …) --------------------------------------------------
def treaty_made(e: OfferSettled, version: int) -> ReportLine:
    """Public: a treaty made at this Divan (treaties in force are public, R-14). Before report
    version 4 the English line said "a alliance" (ADR-62); older seasons keep it."""
    t = e.treaty
    assert t is not None
    tr, en = TREATY[t.kind]
    article = "an" if t.kind == "alliance" and version >= NAMED_REPORT_VERSION else "a"
    return ReportLine(
        "treaty",
        {"treaty": t.kind, "a": t.a, "b": t.b, "through_divan": t.through_divan},
        f"{t.a}. bey ile {t.b}. bey {tr} yaptı ({t.through_divan}. Divan'a dek)",
        f"Bey {t.a} and Bey {t.b} made {article} {en} (through Divan {t.through_divan})",
    )


def _offer_text(e: OfferSettled, reader: int) -> tuple[str, str]:
    """The reader's wording of the outcome (only the one used is built)."""
    o = e.offer
    tr_kind, en_kind = TREATY[o.kind]
    mine = reader == o.frm
    outcome = e.outcome
    if outcome == "accepted":
        until_tr = f" ({e.treaty.through_divan}. Divan'a dek)" if e.treaty else ""
        until_en = f" (through Divan {e.treaty.through_divan})" if e.treaty else ""
        text = (
            (
                f"{o.to}. bey {tr_kind} teklifinizi kabul etti{until_tr}",
                f"Bey {o.to} accepted your {en_kind} offer{until_en}",
            )
            if mine
            else (
                f"{o.frm}. beyin {tr_kind} teklifini kabul ettiniz{until_tr}",
                f"You accepted Bey {o.frm}'s {en_kind} offer{until_en}",
            )
        )
    elif outcome == "rejected":
        text = (
            (
                f"{o.to}. bey {tr_kind} teklifinizi reddetti",
                f"Bey {o.to} rejected your {en_kind} offer",
            )
            if mine
            else (
                f"{o.frm}. beyin {tr_kind} teklifini reddettiniz",
                f"You rejected Bey {o.frm}'s {en_kind} offer",
            )
        )
    elif outcome == "expired":
        text = (
            (
                f"{o.to}. beye {tr_kind} teklifiniz cevapsız kaldı ve düştü",
                f"Your {en_kind} offer to Bey {o.to} went unanswered and lapsed",
            )
            if mine
            else (
                f"{o.frm}. beyin {tr_kind} teklifi cevapsız kaldı ve düştü",
                f"Bey {o.frm}'s {en_kind} offer went unanswered and lapsed",
            )
        )
    elif outcome == "ignored":
        why_tr, why_en = (
            ("perde 3'te antlaşma olmaz, R-6.6", "no treaties in perde 3, R-6.6")
            if perde(e.divan) == 3
            else ("ittifak sürerken saldırmazlık olmaz, R-6.2", "no pact while allied, R-6.2")
        )
        text = (
            (
                f"{o.to}. beye {tr_kind} teklifiniz geçersiz sayıldı ({why_tr})",
                f"Your {en_kind} offer to Bey {o.to} did not count ({why_en})",
            )
            if mine
            else (
                f"{o.frm}. beyin {tr_kind} teklifi geçersiz sayıldı ({why_tr})",
                f"Bey {o.frm}'s {en_kind} offer did not count ({why_en})",
            )
        )
    else:
        raise KeyError(outcome)
    return text


def offer_outcome(e: OfferSettled, reader: int) -> ReportLine:
    """Private, to each party: how its offer was settled at step 2."""
    o = e.offer
    partner = o.to if reader == o.frm else o.frm
    tr, en = _offer_text(e, reader)
    data: dict[str, int | str | list[int] | None] = {
        "from": o.frm,
        "to": o.to,
        "partner": partner,
        "treaty": o.kind,
        "outcome": e.outcome,
        "through_divan": e.treaty.through_divan if e.treaty else None,
    }
    return ReportLine("offer", data, tr, en)


def offer_withdrawn(frm: int, to: int, kind: str | None, divan: int | None) -> ReportLine:
    """Private, to the bey an offer was made to (issue 20): the offerer withdrew it before
    Divan `divan` (R-6.1), so it will not be settled there. `kind` null: not known to the
    reader of the events (never, for an offer the stream holds)."""
    tr_kind, en_kind = TREATY.get(kind or "", ("antlaşma", "treaty"))
    before_tr = f" ({divan}. Divan'dan önce)" if divan is not None else ""
    before_en = f" before Divan {divan}" if divan is not None else ""
    data: dict[str, int | str | list[int] | None] = {
        "from": frm,
        "to": to,
        "treaty": kind,
        "divan": divan,
    }
    return ReportLine(
        "offer_withdrawn",
        data,
        f"{frm}. bey size yaptığı {tr_kind} teklifini geri çekti{before_tr}",
        f"Bey {frm} withdrew its {en_kind} offer to you{before_en}",
    )


# --- step 3: orders a rule dropped (R-4.2, R-4.5, R-5.3, R-6.4, R-6.7) -----------------------
RULE = {
    "ally": "R-6.4",
    "ceasefire": "R-6.7",
    "void_support": "R-5.3",
    "not_owned": "R-4.5",
    "no_units": "R-4.2",
}


STAYED = ("birlikler yerinde kaldı", "the units stayed home")
_S_TR, _S_EN = STAYED


# reason -> its wording (Turkish, English) from o origin, t target, v_tr/v_en the order, w owner
# and r the rule's suffix. f-strings, not str.format templates: a template's fields were parsed
# again for every line; the suffix inside them, not appended after (two more strings a line).
def _ally(o: str, t: str, v_tr: str, v_en: str, w: int | None, *, r: str) -> tuple[str, str]:
    return (
        f"{o} → {t} {v_tr} iptal: {t} müttefikiniz {w}. beyin; {_S_TR}{r}",
        f"Your {v_en} {o} → {t} was cancelled: {t} is your ally Bey {w}'s; {_S_EN}{r}",
    )


def _ceasefire(o: str, t: str, v_tr: str, v_en: str, w: int | None, *, r: str) -> tuple[str, str]:
    return (
        f"Bayram ateşkesi: {o} → {t} {v_tr} iptal; {_S_TR}{r}",
        f"Bayram ceasefire: your {v_en} {o} → {t} was cancelled; {_S_EN}{r}",
    )


def _void_support(
    o: str, t: str, v_tr: str, v_en: str, w: int | None, *, r: str
) -> tuple[str, str]:
    return (
        f"{o} → {t} {v_tr} boşa çıktı: orada desteklenecek savunma ya da müttefik saldırısı "
        f"yok; {_S_TR}{r}",
        f"Your {v_en} {o} → {t} was void: no defence or ally's attack there to support; {_S_EN}{r}",
    )


def _not_owned(o: str, t: str, v_tr: str, v_en: str, w: int | None, *, r: str) -> tuple[str, str]:
    return (
        f"{o} artık sizin değil: oradan {t} iline emriniz düştü{r}",
        f"{o} is no longer yours: your order from it to {t} was dropped{r}",
    )


def _no_units(o: str, t: str, v_tr: str, v_en: str, w: int | None, *, r: str) -> tuple[str, str]:
    return (
        f"{o} ilinde gönderecek birlik yok (en az 1 birlik kalır): {t} emri bir şey yapmadı{r}",
        f"{o} had no unit to spare (one always stays): your order to {t} did nothing{r}",
    )


DROPPED = {
    "ally": _ally,
    "ceasefire": _ceasefire,
    "void_support": _void_support,
    "not_owned": _not_owned,
    "no_units": _no_units,
}
_RULE_SUFFIX = {reason: f" ({rule})" for reason, rule in RULE.items()}
_ORDER_WORDS = {"advance": ("ilerleyişiniz", "advance")}
_SUPPORT_WORDS = ("desteğiniz", "support")


def order_dropped(d: Dropped) -> ReportLine:
    """Private, to the bey whose order it was."""
    names = game_map().names
    o = names[d.origin] if d.origin else "-"
    t = names[d.target] if d.target else "-"
    v_tr, v_en = _ORDER_WORDS.get(d.kind, _SUPPORT_WORDS)
    tr, en = DROPPED[d.reason](o, t, v_tr, v_en, d.owner, r=_RULE_SUFFIX[d.reason])
    data: dict[str, int | str | list[int] | None] = {
        "province": d.origin,
        "target": d.target,
        "order": d.kind,
        "units": d.units,
        "reason": d.reason,
        "rule": RULE[d.reason],
        "owner": d.owner,
    }
    return ReportLine("order_cancelled", data, tr, en)


# --- step 3: a battle as one of its parties saw it (R-5.8, R-14) ----------------------------
Side = tuple[str, int | None]  # the reader's side and the index of its group


def _sides(r: BattleRecord) -> dict[int, Side]:
    """Every party's side (R-14): the defender; then an attacker, by its group; then an attack
    supporter, by the group it backed; every other party supported the defence."""
    sides: dict[int, Side] = {}
    if r.defender is not None:
        sides[r.defender] = ("defender", None)
    for i, g in enumerate(r.groups):
        for s in g.beys:
            sides.setdefault(s, ("attacker", i))
    for i, g in enumerate(r.groups):
        for s, _o, _u in g.support:
            sides.setdefault(s, ("attack_support", i))
    for s, _o, _u in r.defence_support:
        sides.setdefault(s, ("defence_support", None))
    return sides


SIDE = {
    "attacker": ("siz saldırdınız", "you attacked"),
    "defender": ("siz savundunuz", "you defended"),
    "attack_support": ("saldırıyı desteklediniz", "you supported the attack"),
    "defence_support": ("savunmayı desteklediniz", "you supported the defence"),
}
NOT_FOUGHT = (
    "Grubunuz savaşmadı: daha güçlü bir grup savaştı.",
    "Your group did not fight: a stronger group did.",
)
GROUP_WON = ("Grubunuz kazandı.", "Your group won.")
REPELLED = ("Saldırınız püskürtüldü.", "Your attack was repelled.")
SUPPORTED_WON = ("Desteklediğiniz taraf kazandı.", "The side you supported won.")
SUPPORTED_LOST = ("Desteklediğiniz taraf kaybetti.", "The side you supported lost.")


def _outcome_text(r: BattleRecord, il: str) -> tuple[str, str]:
    score = f" {r.attack}–{r.defence}" if r.attack is not None else ""
    if r.outcome == "taken":
        return (
            f"{il} düştü{score}; {r.taker}. bey aldı.",
            f"{il} fell{score}; Bey {r.taker} took it.",
        )
    if r.outcome == "held":
        return f"{il} direndi{score}.", f"{il} held{score}."
    return (
        "En güçlü gruplar eşitti: savaş olmadı.",
        "The strongest groups were equal: nobody fought.",
    )


def _verdict(side: str, result: str, took: bool, il: str) -> tuple[str, str]:
    """What a battle that was fought came to for one reader: by its side and result."""
    if result == "not_fought":
        return NOT_FOUGHT
    if side == "defender":
        if result == "lost":
            return f"{il} ilini kaybettiniz.", f"You lost {il}."
        return f"{il} ilini korudunuz.", f"You held {il}."
    if side == "attacker":
        if result != "won":
            return REPELLED
        return (f"{il} ilini siz aldınız.", f"You took {il}.") if took else GROUP_WON
    return SUPPORTED_WON if result == "won" else SUPPORTED_LOST


_BEYS = attrgetter("beys")


def battle_lines(r: BattleRecord) -> list[tuple[int, ReportLine]]:
    """Each party's line, by seat (R-14): who attacked, who defended, the reader's side, the
    result for it (standoff; won or lost; not_fought for a group weaker than the one that
    fought), the outcome and who took the province. What every reader shares is worded once
    per battle."""
    groups, outcome, fighting_group = r.groups, r.outcome, r.fighting_group
    target, defender, taker = r.target, r.defender, r.taker
    if len(groups) == 1:  # a group's beys are sorted already
        attackers = list(groups[0].beys)
    else:
        attackers = sorted(set(chain.from_iterable(map(_BEYS, groups))))
    fighting = list(groups[fighting_group].beys) if fighting_group is not None else []
    il = game_map().names[target]
    defender_tr = f"{defender}. bey" if defender is not None else "milis"
    defender_en = f"Bey {defender}" if defender is not None else "the milis"
    outcome_tr, outcome_en = _outcome_text(r, il)
    if len(attackers) == 1:  # `_beys_tr`/`_beys_en` of one bey, inline: no call each
        head_tr = f"{il} savaşı: saldıran {attackers[0]}. bey, savunan {defender_tr}; "
        head_en = f"Battle of {il}: Bey {attackers[0]} attacked, {defender_en} defended; "
    else:
        head_tr = f"{il} savaşı: saldıran {_beys_tr(attackers)}, savunan {defender_tr}; "
        head_en = f"Battle of {il}: {_beys_en(attackers)} attacked, {defender_en} defended; "
    taken = outcome == "taken"
    defended = ("won", "lost") if not taken else ("lost", "won")  # (defence's, attack's)
    # Every line's data is this battle's template copied (a dict copy is one C call; a
    # 13-key literal inserted each key again, issue 12) with the reader's four keys set in
    # place, so the key order is the template's.
    template: dict[str, int | str | list[int] | None] = {
        "target": target,
        "defender": defender,
        "attackers": None,
        "fighting": None,
        "side": None,
        "result": None,
        "outcome": outcome,
        "taker": taker,
        "attack": r.attack,
        "defence": r.defence,
        "attack_die": r.attack_die,
        "defence_die": r.defence_die,
        "entering": r.entering,
    }
    out = []
    sides = _sides(r)
    for seat in sorted(sides):
        side, group = sides[seat]
        if outcome == "standoff":  # no verdict
            result = "standoff"
            side_tr, side_en = SIDE[side]
            tr = f"{head_tr}{side_tr}. {outcome_tr}"
            en = f"{head_en}{side_en}. {outcome_en}"
        else:
            if side in ("defender", "defence_support"):
                result = defended[0]
            elif group != fighting_group:
                result = "not_fought"
            else:
                result = defended[1]
            verdict_tr, verdict_en = _verdict(side, result, seat == taker, il)
            side_tr, side_en = SIDE[side]
            tr = f"{head_tr}{side_tr}. {outcome_tr} {verdict_tr}"
            en = f"{head_en}{side_en}. {outcome_en} {verdict_en}"
        data = template.copy()
        data["attackers"] = attackers[:]
        data["fighting"] = fighting[:]
        data["side"] = side
        data["result"] = result
        out.append((seat, ReportLine("battle", data, tr, en)))
    return out


def battle_for(r: BattleRecord, seat: int) -> ReportLine:
    """The line of one party of the battle (see `battle_lines`)."""
    return next(line for s, line in battle_lines(r) if s == seat)


# --- the Kurultay (R-10.4, R-10.5) ---------------------------------------------------------
def _count(n: int, noun: str) -> str:
    """English counts: 1 point, 2 points (the Kurultay's lines are built when they are read,
    from `kurultay_held.v1`, so their wording is no record's)."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def kurultay(e: KurultayHeld) -> tuple[ReportLine, ...]:
    """The Kurultay's report, public: every vote, Halk Sevgisi, M-6, the final scores, the Han."""
    lines = [
        ReportLine(
            "vote",
            {"seat": seat, "candidate": candidate},
            f"{seat}. bey {candidate}. beye oy verdi",
            f"Bey {seat} voted for Bey {candidate}",
        )
        for seat, candidate in sorted(e.votes.items())
    ]
    tally: dict[int, int] = {}
    for candidate in e.votes.values():
        tally[candidate] = tally.get(candidate, 0) + 1
    lines += [
        ReportLine(
            "halk_sevgisi",
            {"seat": seat, "votes": tally.get(seat, 0), "points": 3},
            f"Halk Sevgisi: {seat}. bey ({tally.get(seat, 0)} oy, +3 puan)",
            f"Halk Sevgisi: Bey {seat} ({_count(tally.get(seat, 0), 'vote')}, +3 points)",
        )
        for seat in e.halk_sevgisi
    ]
    lines += [
        ReportLine(
            "mission",
            {"seat": seat, "mission": "M-6"},
            f"{seat}. bey görevini tamamladı: M-6",
            f"Bey {seat} completed mission M-6",
        )
        for seat in e.m6
    ]
    lines += [
        ReportLine(
            "score",
            {"rank": rank, "seat": seat, "score": score},
            f"{rank}. sıra: {seat}. bey, {score} puan",
            f"Rank {rank}: Bey {seat}, {_count(score, 'point')}",
        )
        for rank, (seat, score) in enumerate(e.scores, start=1)
    ]
    lot_tr, lot_en = (
        (" (eşitlik kurayla bozuldu)", " (the tie was broken by lot)") if e.lot_used else ("", "")
    )
    lines.append(
        ReportLine(
            "han",
            {"seat": e.han, "lot": int(e.lot_used)},
            f"Han: {e.han}. bey{lot_tr}",
            f"The Han: Bey {e.han}{lot_en}",
        )
    )
    return tuple(lines)


# --- season admin (D-29 … D-31) ----------------------------------------------------------------
_ACTS = {
    "postpone": ("kayıt kapanışı ertelendi", "registration close postponed"),
    "cancel": ("sezon iptal edildi", "season cancelled"),
    "pause": ("sezon durduruldu", "season paused"),
    "resume": ("sezon sürdürüldü", "season resumed"),
}


def season_admin(act: AdminAct) -> ReportLine:
    """A season-admin act, public (issue 12): what, why, when and by whom (the season admin or
    ops); a moved calendar is in the season's status."""
    tr, en = _ACTS[act.act]
    who_tr, who_en = (
        ("sezon yöneticisi", "the season admin") if act.by == "admin" else ("ops", "ops")
    )
    when = cal.iso(act.at)
    return ReportLine(
        "season_admin",
        {"act": act.act, "reason": act.reason, "at": when, "by": act.by},
        f"Sezon yönetimi: {tr} ({who_tr}, {when}); gerekçe: {act.reason}",
        f"Season admin: {en} ({who_en}, {when}); reason: {act.reason}",
    )


# --- report version 3: sealed orders (ADR-57, D-35) -----------------------------------------
def orders_sealed(seat: int, digest: str) -> ReportLine:
    """Public: bey `seat`'s sealed digest for this Divan (its salt stays its own)."""
    return ReportLine(
        "orders_sealed",
        {"seat": seat, "digest": digest},
        f"{seat}. beyin emirleri mühürlendi: {digest}",
        f"Bey {seat}'s orders were sealed: {digest}",
    )


def own_seal(divan: int, salt: str, digest: str) -> ReportLine:
    """Private: the bey's own salt and digest, to recompute from the orders it sent."""
    return ReportLine(
        "orders_sealed",
        {"divan": divan, "salt": salt, "digest": digest},
        f"{divan}. Divan emirleriniz mühürlendi: tuz {salt}, özet {digest}",
        f"Your orders for Divan {divan} were sealed: salt {salt}, digest {digest}",
    )


# --- corrections (ADR-53, ADR-58) -------------------------------------------------------------
def correction(e: CorrectionApplied, *, public: bool = True) -> ReportLine:
    """A correction applied by ops, in the public reports (issue 13: replay, export and
    verification show both the defect and its fix): what was set, after which Divan, when, why,
    and the version it compensates. A bey's gold is secret (R-14): the public line says whose
    gold was corrected, never the amount; ops' own line (`public=False`, `seksenbir replay`,
    explain) has it."""
    when = cal.iso(e.at)
    data: dict[str, int | str | list[int] | None] = {
        "correction": e.correction.__struct_config__.tag,  # province, gold, revoke_hain
        "divan": e.divan,
        "reason": e.reason,
        "at": when,
        "refers_to": e.refers_to,
    }
    fix = e.correction
    match fix:
        case ProvinceFix():
            data |= {"province": fix.province, "owner": fix.owner, "units": fix.units}
            data["sur"] = int(fix.sur)
            holder_tr = f"{fix.owner}. bey" if fix.owner is not None else "milis"
            holder_en = f"Bey {fix.owner}" if fix.owner is not None else "milis"
            sur_tr, sur_en = (", surlu", ", with a sur") if fix.sur else ("", "")
            tr = f"{_il(fix.province)}: {holder_tr}, {fix.units} birlik{sur_tr}"
            en = f"{_il(fix.province)}: {holder_en}, {fix.units} units{sur_en}"
        case GoldFix():
            data["seat"] = fix.seat
            if public:
                tr = f"{fix.seat}. beyin altını düzeltildi (miktarı gizli, R-14)"
                en = f"Bey {fix.seat}'s gold corrected (the amount is secret, R-14)"
            else:
                data["gold"] = fix.gold
                tr = f"{fix.seat}. beyin altını {fix.gold}"
                en = f"Bey {fix.seat}'s gold set to {fix.gold}"
        case HainRevoke():
            data["seat"] = fix.seat
            tr = f"{fix.seat}. beyin Hain nişanı kaldırıldı"
            en = f"Bey {fix.seat}'s Hain badge removed"
    ref_tr = f"; {e.refers_to}. sürümdeki olayı telafi eder" if e.refers_to else ""
    ref_en = f"; compensates the event at version {e.refers_to}" if e.refers_to else ""
    return ReportLine(
        "correction",
        data,
        f"Düzeltme ({e.divan}. Divan'dan sonra, ops, {when}): {tr}{ref_tr}; gerekçe: {e.reason}",
        f"Correction (after Divan {e.divan}, ops, {when}): {en}{ref_en}; reason: {e.reason}",
    )
