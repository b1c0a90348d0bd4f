"""Report lines: a treaty made and an offer settled, as its maker and its answerer read it
(R-6.1 … R-6.3, R-6.6), report version 2 on."""

from __future__ import annotations

from shared.domain.events import OfferSettled, ReportLine
from shared.domain.report_lines import TREATY
from shared.domain.state import NAMED_REPORT_VERSION, perde


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


Words = tuple[str, str, str, str]  # the maker's line (Turkish, English), the answerer's


def _answered(e: OfferSettled) -> Words:
    """R-6.1: an offer accepted (through which Divan) or rejected, as its maker and its answerer
    read it."""
    o = e.offer
    tr_kind, en_kind = TREATY[o.kind]
    if e.outcome == "accepted":
        until_tr = f" ({e.treaty.through_divan}. Divan'a dek)" if e.treaty else ""
        until_en = f" (through Divan {e.treaty.through_divan})" if e.treaty else ""
        return (
            f"{o.to}. bey {tr_kind} teklifinizi kabul etti{until_tr}",
            f"Bey {o.to} accepted your {en_kind} offer{until_en}",
            f"{o.frm}. beyin {tr_kind} teklifini kabul ettiniz{until_tr}",
            f"You accepted Bey {o.frm}'s {en_kind} offer{until_en}",
        )
    return (
        f"{o.to}. bey {tr_kind} teklifinizi reddetti",
        f"Bey {o.to} rejected your {en_kind} offer",
        f"{o.frm}. beyin {tr_kind} teklifini reddettiniz",
        f"You rejected Bey {o.frm}'s {en_kind} offer",
    )


def _lapsed(e: OfferSettled) -> Words:
    """R-6.1, R-6.2, R-6.6: an offer unanswered, or one that did not count, and why, as its
    maker and its answerer read it."""
    o = e.offer
    tr_kind, en_kind = TREATY[o.kind]
    if e.outcome == "expired":
        return (
            f"{o.to}. beye {tr_kind} teklifiniz cevapsız kaldı ve düştü",
            f"Your {en_kind} offer to Bey {o.to} went unanswered and lapsed",
            f"{o.frm}. beyin {tr_kind} teklifi cevapsız kaldı ve düştü",
            f"Bey {o.frm}'s {en_kind} offer went unanswered and lapsed",
        )
    why_tr, why_en = (
        ("perde 3'te antlaşma olmaz, R-6.6", "no treaties in perde 3, R-6.6")
        if perde(e.divan) == 3
        else ("ittifak sürerken saldırmazlık olmaz, R-6.2", "no pact while allied, R-6.2")
    )
    return (
        f"{o.to}. beye {tr_kind} teklifiniz geçersiz sayıldı ({why_tr})",
        f"Your {en_kind} offer to Bey {o.to} did not count ({why_en})",
        f"{o.frm}. beyin {tr_kind} teklifi geçersiz sayıldı ({why_tr})",
        f"Bey {o.frm}'s {en_kind} offer did not count ({why_en})",
    )


def offer_outcomes(e: OfferSettled) -> tuple[ReportLine, ReportLine]:
    """Private, to each party: how its offer was settled at step 2, the maker's line and the
    answerer's, made together (what they share, the treaty's words and its last Divan, worded
    once; issue 27)."""
    o = e.offer
    if e.outcome in ("accepted", "rejected"):
        mine_tr, mine_en, theirs_tr, theirs_en = _answered(e)
    elif e.outcome in ("expired", "ignored"):
        mine_tr, mine_en, theirs_tr, theirs_en = _lapsed(e)
    else:
        raise KeyError(e.outcome)
    through = e.treaty.through_divan if e.treaty else None
    maker: dict[str, int | str | list[int] | None] = {
        "from": o.frm,
        "to": o.to,
        "partner": o.to,
        "treaty": o.kind,
        "outcome": e.outcome,
        "through_divan": through,
    }
    answerer = maker.copy()
    answerer["partner"] = o.frm
    if o.to == o.frm:  # no command makes one; read as its maker, as each line was worded alone
        return ReportLine("offer", maker, mine_tr, mine_en), ReportLine(
            "offer", answerer, mine_tr, mine_en
        )
    return (
        ReportLine("offer", maker, mine_tr, mine_en),
        ReportLine("offer", answerer, theirs_tr, theirs_en),
    )
