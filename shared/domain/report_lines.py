"""Report lines (R-13, R-14): offers, dropped orders, the Kurultay, admin acts, seals and
corrections; a battle's lines are shared.domain.report_battles'. Structured data first, then
Turkish and English text."""

from __future__ import annotations

from collections.abc import Sequence

from shared.domain import calendar as cal
from shared.domain.admin import ADMIN_ACTS
from shared.domain.events import (
    CorrectionApplied,
    GoldFix,
    HainRevoke,
    KurultayHeld,
    ProvinceFix,
    ReportLine,
)
from shared.domain.map import game_map
from shared.domain.rules.kinds import ORDER_KINDS, Dropped
from shared.domain.state import SEATS, AdminAct

TREATY = {
    "pact": ("saldırmazlık antlaşması", "non-aggression pact"),
    "alliance": ("ittifak", "alliance"),
}


def _il(plate: int | None) -> str:
    return game_map().names[plate] if plate else "-"


def _words(seat: int) -> tuple[str, str]:
    return f"{seat}. bey", f"Bey {seat}"


# A seat's name in each language ("5. bey", "Bey 5"), made once at import: one lookup where two
# ints were formatted (about 500 instructions each; issue 27).
BEY: dict[int, tuple[str, str]] = {s: _words(s) for s in range(1, SEATS + 1)}


def seat_words(seat: int) -> tuple[str, str]:
    """A seat's words in Turkish and English: looked up for seats 1..SEATS, formatted for any
    other (a scenario's; no command makes one)."""
    words = BEY.get(seat)
    return words if words is not None else _words(seat)


def _beys_tr(seats: Sequence[int]) -> str:
    # One and two beys (every group of one battle but the rarest) by one f-string each: the
    # general join is a list, a comprehension and two joins (about 7,000 instructions; issue 27).
    if len(seats) == 1:
        return f"{seats[0]}. bey"
    if len(seats) == 2:
        return f"{seats[0]}. bey ve {seats[1]}. bey"
    names = [f"{s}. bey" for s in seats]
    return " ve ".join([", ".join(names[:-1]), names[-1]]) if len(names) > 1 else "".join(names)


def _beys_en(seats: Sequence[int]) -> str:
    if len(seats) == 1:
        return f"Bey {seats[0]}"
    if len(seats) == 2:
        return f"Bey {seats[0]} and Bey {seats[1]}"
    names = [f"Bey {s}" for s in seats]
    return " and ".join([", ".join(names[:-1]), names[-1]]) if len(names) > 1 else "".join(names)


# --- step 2: offers (R-6.1 …) --------------------------------------------------


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


def order_dropped(d: Dropped) -> ReportLine:
    """Private, to the bey whose order it was."""
    names = game_map().names
    o = names[d.origin] if d.origin else "-"
    t = names[d.target] if d.target else "-"
    words = ORDER_KINDS[d.kind].yours
    assert words is not None  # only a targeted kind is ever dropped
    v_tr, v_en = words
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
def season_admin(act: AdminAct) -> ReportLine:
    """A season-admin act, public (issue 12): what, why, when and by whom (the season admin or
    ops); a moved calendar is in the season's status."""
    tr, en = ADMIN_ACTS[act.act].words
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
