"""Divan step 7 and the Kurultay: what the report tells each bey, from the adjudication cases
(R-13, R-14). Every line is structured data with Turkish and English text."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec
import pytest

from shared.domain import codec, report_lines, scenario
from shared.domain import events as ev
from shared.domain.lifecycle import run_divan
from shared.domain.report_lines import kurultay, order_dropped
from shared.domain.rules.kinds import Dropped
from shared.domain.simulate import season, start
from shared.domain.state import OrderKind, Treaty

CASES = Path(__file__).parent / "cases"


def report(case: str) -> dict[str, Any]:
    sc = scenario.load((CASES / f"{case}.json").read_bytes())
    out = scenario.run(sc)["report"]
    assert out is not None
    return out  # type: ignore[no-any-return]


def lines(out: dict[str, Any], seat: int, kind: str) -> list[dict[str, Any]]:
    return [line for line in out["private"].get(seat, []) if line["kind"] == kind]


def assert_texts(line: dict[str, Any]) -> None:
    assert line["tr"]
    assert line["en"]
    assert line["tr"] != line["en"]


def test_r6_1_both_parties_are_told_whether_an_offer_was_accepted_or_rejected() -> None:
    out = report("r6_3_computer_answers_pinned_in_draws")
    (to_2, to_3) = lines(out, 1, "offer")
    assert (to_2["data"]["partner"], to_2["data"]["treaty"], to_2["data"]["outcome"]) == (
        2,
        "alliance",
        "accepted",
    )
    assert to_2["data"]["through_divan"] == 11
    assert (to_3["data"]["partner"], to_3["data"]["outcome"]) == (3, "rejected")
    assert "Bey 3 rejected" in to_3["en"]
    assert "reddetti" in to_3["tr"]
    (of_1,) = [x for x in lines(out, 3, "offer") if x["data"]["partner"] == 1]
    assert (of_1["data"]["from"], of_1["data"]["to"], of_1["data"]["outcome"]) == (1, 3, "rejected")
    for line in lines(out, 1, "offer") + lines(out, 2, "offer"):
        assert_texts(line)


def test_r6_1_the_public_report_lists_the_treaties_made_at_that_divan() -> None:
    out = report("r6_3_computer_answers_pinned_in_draws")
    made = [x["data"] for x in out["public"] if x["kind"] == "treaty"]
    assert made == [
        {"treaty": "alliance", "a": 1, "b": 2, "through_divan": 11},
        {"treaty": "pact", "a": 3, "b": 4, "through_divan": 9},
    ]
    assert all(x["data"]["outcome"] != "rejected" for x in out["public"] if "outcome" in x["data"])
    assert not [x for x in out["public"] if x["kind"] == "offer"]  # rejections stay private


def test_r6_1_an_unanswered_offer_is_told_as_lapsed() -> None:
    out = report("r6_1_unanswered_human_offer_expires")
    lapsed = [x for x in lines(out, 1, "offer") if x["data"]["outcome"] == "expired"]
    assert [x["data"]["partner"] for x in lapsed] == [2]


@pytest.mark.parametrize(
    ("case", "seat", "reason", "rule", "origin"),
    [
        ("r6_7_bayram_ceasefire_cancels_attacks_on_beys", 1, "ceasefire", "R-6.7", 25),
        ("r6_7_bayram_ceasefire_cancels_attacks_on_beys", 3, "ceasefire", "R-6.7", 36),
        ("r6_4_advance_into_ally_cancelled", 1, "ally", "R-6.4", 42),
        ("r4_5_isyan_orders_dropped_move_becomes_attack", 1, "not_owned", "R-4.5", 52),
        ("r4_2_clamped_zero_order_does_nothing", 1, "no_units", "R-4.2", 66),
        ("r5_3_support_for_own_attack_void_units_defend_origin", 1, "void_support", "R-5.3", 64),
    ],
)
def test_r13_an_order_a_rule_cancelled_is_reported_to_its_bey_with_the_reason(
    case: str, seat: int, reason: str, rule: str, origin: int
) -> None:
    out = report(case)
    mine = [x for x in lines(out, seat, "order_cancelled") if x["data"]["province"] == origin]
    assert [(x["data"]["reason"], x["data"]["rule"]) for x in mine] == [(reason, rule)]
    assert_texts(mine[0])
    assert rule in mine[0]["tr"]
    assert rule in mine[0]["en"]
    others = [
        x
        for s, xs in out["private"].items()
        if s != seat
        for x in xs
        if x["kind"] == "order_cancelled" and x["data"]["province"] == origin
    ]
    assert others == []  # only the bey whose order it was is told
    assert not [x for x in out["public"] if x["kind"] == "order_cancelled"]


def test_r6_7_the_bayram_line_names_bayram_in_both_languages() -> None:
    out = report("r6_7_bayram_ceasefire_cancels_attacks_on_beys")
    (line,) = lines(out, 1, "order_cancelled")
    assert line["tr"].startswith("Bayram ateşkesi")
    assert line["en"].startswith("Bayram ceasefire")


def test_r5_8_a_battle_line_says_who_attacked_who_defended_the_readers_side_and_who_took_it() -> (
    None
):
    out = report("r5_5_memleket_taken_owner_becomes_surgun")
    (won,) = lines(out, 1, "battle")
    (lost,) = lines(out, 2, "battle")
    for line in (won, lost):
        assert (line["data"]["attackers"], line["data"]["defender"]) == ([1], 2)
        assert (line["data"]["outcome"], line["data"]["taker"]) == ("taken", 1)
        assert_texts(line)
    assert (won["data"]["side"], won["data"]["result"]) == ("attacker", "won")
    assert (lost["data"]["side"], lost["data"]["result"]) == ("defender", "lost")
    assert won["en"] != lost["en"]
    assert won["tr"] != lost["tr"]
    assert "You took Mardin" in won["en"]
    assert "You lost Mardin" in lost["en"]
    assert "kaybettiniz" in lost["tr"]


def test_r5_8_a_repelled_attacker_and_the_defender_read_different_lines() -> None:
    out = report("r6_4_advance_into_ally_cancelled")
    (attacker,) = lines(out, 3, "battle")
    (defender,) = lines(out, 2, "battle")
    assert (attacker["data"]["side"], attacker["data"]["result"]) == ("attacker", "lost")
    assert (defender["data"]["side"], defender["data"]["result"]) == ("defender", "won")
    assert "repelled" in attacker["en"]
    assert "You held Aksaray" in defender["en"]


def test_r12_3_a_season_stored_with_report_version_1_replays_its_old_report() -> None:
    """Seasons stored before report version 2 have no `report_version`: they decode as 1 and
    re-run their Divans with the version-1 report, so verification still matches."""
    _state, events = start(5)
    created = msgspec.json.decode(codec.encode(events[0]))
    del created["report_version"]
    old = codec.decode_event(msgspec.json.encode(created))
    assert isinstance(old, ev.SeasonCreated)
    assert old.report_version == 1
    state = msgspec.structs.replace(_state, report_version=1)
    resolved = next(e for e in run_divan(state) if isinstance(e, ev.DivanResolved))
    battle = next(line for lines_ in resolved.private.values() for line in lines_)
    assert "side" not in battle.data  # the version-1 line
    assert battle.kind == "battle"


def test_r10_4_the_kurultay_report_has_the_votes_halk_sevgisi_scores_and_the_han() -> None:
    held = next(e for step in season(3) for e in step.events if isinstance(e, ev.KurultayHeld))
    out = kurultay(held)
    votes = {x.data["seat"]: x.data["candidate"] for x in out if x.kind == "vote"}
    assert votes == held.votes
    loved = [x.data["seat"] for x in out if x.kind == "halk_sevgisi"]
    assert loved == list(held.halk_sevgisi)
    scores = [(x.data["seat"], x.data["score"]) for x in out if x.kind == "score"]
    assert scores == [tuple(s) for s in held.scores]
    (han,) = [x for x in out if x.kind == "han"]
    assert han.data["seat"] == held.han
    assert all(x.tr and x.en for x in out)
    assert f"Han: {held.han}. bey" in han.tr
    assert f"The Han: Bey {held.han}" in han.en


@pytest.mark.parametrize(
    ("reason", "kind", "tr", "en"),
    [
        (
            "ally",
            "advance",
            "Ankara → İstanbul ilerleyişiniz iptal: İstanbul müttefikiniz 7. beyin; "
            "birlikler yerinde kaldı (R-6.4)",
            "Your advance Ankara → İstanbul was cancelled: İstanbul is your ally Bey 7's; "
            "the units stayed home (R-6.4)",
        ),
        (
            "ceasefire",
            "advance",
            "Bayram ateşkesi: Ankara → İstanbul ilerleyişiniz iptal; birlikler yerinde kaldı "
            "(R-6.7)",
            "Bayram ceasefire: your advance Ankara → İstanbul was cancelled; the units stayed "
            "home (R-6.7)",
        ),
        (
            "void_support",
            "support",
            "Ankara → İstanbul desteğiniz boşa çıktı: orada desteklenecek savunma ya da müttefik "
            "saldırısı yok; birlikler yerinde kaldı (R-5.3)",
            "Your support Ankara → İstanbul was void: no defence or ally's attack there to "
            "support; the units stayed home (R-5.3)",
        ),
        (
            "not_owned",
            "advance",
            "Ankara artık sizin değil: oradan İstanbul iline emriniz düştü (R-4.5)",
            "Ankara is no longer yours: your order from it to İstanbul was dropped (R-4.5)",
        ),
        (
            "no_units",
            "support",
            "Ankara ilinde gönderecek birlik yok (en az 1 birlik kalır): İstanbul emri bir şey "
            "yapmadı (R-4.2)",
            "Ankara had no unit to spare (one always stays): your order to İstanbul did "
            "nothing (R-4.2)",
        ),
    ],
)
def test_r13_a_dropped_orders_wording_is_the_stored_wording_for_every_reason(
    reason: str, kind: OrderKind, tr: str, en: str
) -> None:
    """The dropped-order lines are stored in DivanResolved (R-13): their wording, now built by
    f-strings rather than str.format templates (issue 12's speed work), is byte for byte the
    templates' wording, for every reason (the golden digests cover only the reasons played)."""
    d = Dropped(seat=3, origin=6, target=34, kind=kind, units=4, reason=reason, owner=7)
    line = order_dropped(d)
    assert (line.tr, line.en) == (tr, en)


# --- report version 4 (ADR-62): one language per line ----------------------------------------
def test_issue_11_a_news_card_drawn_for_a_bey_names_it_in_the_readers_language() -> None:
    """The travelling merchant is drawn for a bey: its English line said "(12. bey)". From
    report version 4 it is "Bey 12" in English; older seasons keep the line they were resolved
    with (a re-run must reproduce the record, R-12.3)."""
    from shared.domain.report import build
    from shared.domain.state import NAMED_REPORT_VERSION, NewsCard

    news = ev.NewsRevealed(divan=5, card=NewsCard("seyyah_tuccar"), seat=12)
    (line,), _ = build([news], [12], NAMED_REPORT_VERSION)
    assert (line.tr, line.en) == (
        "Haber: Seyyah tüccar (12. bey)",
        "News: Travelling merchant (Bey 12)",
    )
    for older in (1, 2, 3):
        (line,), _ = build([news], [12], older)
        assert line.en == "News: Travelling merchant (12. bey)"


def test_adr_157_the_news_line_of_yerel_isyan_says_uprising_as_the_card_does() -> None:
    """R-8.2: one word for one event. The board's card, the rules and the glossary call Yerel
    isyan a "Local uprising"; its report line said "Local revolt". From report version 5 the
    line says "Local uprising" (the card's own English name); older seasons keep the line they
    were resolved with (a re-run must reproduce the record, R-12.3). Turkish is the same in
    every version."""
    from shared.domain.catalogue import NEWS
    from shared.domain.report import build
    from shared.domain.state import API_REPORT_VERSION, UPRISING_REPORT_VERSION, NewsCard

    assert API_REPORT_VERSION == UPRISING_REPORT_VERSION == 5
    card = next(n for n in NEWS if n.card == "yerel_isyan")
    news = ev.NewsRevealed(divan=5, card=NewsCard("yerel_isyan"), province=52)
    (line,), _ = build([news], [12], UPRISING_REPORT_VERSION)
    assert (line.tr, line.en) == ("Haber: Yerel isyan (Ordu)", "News: Local uprising (Ordu)")
    assert line.en == f"News: {card.name.en} (Ordu)" and line.tr == f"Haber: {card.name.tr} (Ordu)"
    for older in (1, 2, 3, 4):
        (line,), _ = build([news], [12], older)
        assert (line.tr, line.en) == ("Haber: Yerel isyan (Ordu)", "News: Local revolt (Ordu)")
    # and every card's line names it as the board does, in both languages
    for info in NEWS:
        drawn = ev.NewsRevealed(divan=5, card=NewsCard(info.card), province=52)
        (line,), _ = build([drawn], [12], API_REPORT_VERSION)
        assert line.tr.startswith(f"Haber: {info.name.tr}") and line.en.startswith(
            f"News: {info.name.en}"
        ), info.card


def test_issue_11_an_alliance_made_is_an_alliance_in_english() -> None:
    from shared.domain.report import build
    from shared.domain.state import NAMED_REPORT_VERSION, Offer, Treaty

    made = ev.OfferSettled(
        divan=3,
        offer=Offer(frm=5, to=19, kind="alliance"),
        outcome="accepted",
        treaty=Treaty("alliance", 5, 19, 7),
    )
    public, _ = build([made], [5, 19], NAMED_REPORT_VERSION)
    assert public[0].en == "Bey 5 and Bey 19 made an alliance (through Divan 7)"
    assert (
        build([made], [5, 19], 3)[0][0].en == "Bey 5 and Bey 19 made a alliance (through Divan 7)"
    )


@pytest.mark.parametrize("seed", [5, 11])
def test_issue_11_no_english_line_of_a_whole_season_speaks_turkish(seed: int) -> None:
    """Every English line of a whole season at the API's report version, public and private:
    a bey is "Bey N", never "N. bey" (the game's own words aside)."""
    import re

    from shared.domain.state import NAMED_REPORT_VERSION

    english = []
    for step in season(seed, report_version=NAMED_REPORT_VERSION):
        for e in step.events:
            if isinstance(e, ev.DivanResolved):
                english += [x.en for x in e.public]
                english += [x.en for own in e.private.values() for x in own]
    assert len(english) > 500
    assert [t for t in english if re.search(r"\d\. bey|\bbeyi?n?\b|\ba alliance\b", t)] == []


def test_issue_11_the_kurultays_english_counts_one_point_and_one_vote() -> None:
    held = ev.KurultayHeld(
        votes={1: 2, 2: 1, 3: 1},
        halk_sevgisi=(1, 2),
        m6=(),
        scores=((1, 5), (2, 1), (3, 0)),
        han=1,
    )
    en = [x.en for x in kurultay(held)]
    assert "Halk Sevgisi: Bey 1 (2 votes, +3 points)" in en
    assert "Halk Sevgisi: Bey 2 (1 vote, +3 points)" in en
    assert "Rank 2: Bey 2, 1 point" in en
    assert "Rank 1: Bey 1, 5 points" in en
    assert "Rank 3: Bey 3, 0 points" in en


def test_r5_8_each_battle_line_has_its_data_keys_in_order_and_lists_of_its_own() -> None:
    """The stored encoding sorts keys, so no digest sees the data's key order: pinned here
    (the lines copy one template per battle), and no two lines share a list."""
    from shared.domain.report_battles import battle_lines

    group = ev.GroupRecord(beys=(3,), advances=((3, 4, 5),), support=(), strength=5)
    record = ev.BattleRecord(
        target=6,
        defender=2,
        defender_units=2,
        defence_bonus=0,
        defence_support=((7, 8, 1),),
        groups=(group,),
        outcome="held",
        fighting_group=0,
        attack=5,
        defence=6,
        attack_die=0,
        defence_die=1,
    )
    out = battle_lines(record)
    assert [seat for seat, _ in out] == [2, 3, 7]
    keys = ["target", "defender", "attackers", "fighting", "side", "result", "outcome"]
    keys += ["taker", "attack", "defence", "attack_die", "defence_die", "entering"]
    for _seat, line in out:
        assert list(line.data) == keys
    datas = [line.data for _s, line in out]
    assert [d["side"] for d in datas] == ["defender", "attacker", "defence_support"]
    assert datas[0]["attackers"] is not datas[1]["attackers"]
    assert datas[0]["fighting"] is not datas[1]["fighting"]


@pytest.mark.parametrize("seats", [[], [3], [3, 6], [1, 2, 3], [4, 5, 6, 7]])
def test_a_list_of_beys_reads_as_the_general_join_for_any_number(seats: list[int]) -> None:
    """R-14's wording of several beys: one and two by a shortcut each (issue 27), the same
    words as the general "a, b ve c" / "a, b and c" join."""
    names_tr = [f"{s}. bey" for s in seats]
    names_en = [f"Bey {s}" for s in seats]
    want_tr = " ve ".join([", ".join(names_tr[:-1]), names_tr[-1]]) if len(seats) > 1 else ""
    want_en = " and ".join([", ".join(names_en[:-1]), names_en[-1]]) if len(seats) > 1 else ""
    if len(seats) == 1:
        want_tr, want_en = names_tr[0], names_en[0]
    assert (report_lines._beys_tr(seats), report_lines._beys_en(seats)) == (want_tr, want_en)


def test_a_seats_words_are_looked_up_as_formatted_and_any_other_seat_is_formatted() -> None:
    """The battle and conquest lines take a seat's words from `report_lines.seat_words`, looked
    up in `report_lines.BEY` (issue 27): every seat a command can make is there, worded as an
    f-string words it, and a seat no command makes (a scenario's, say) still gets the same
    words, formatted."""
    from shared.domain import report
    from shared.domain.report_battles import battle_lines
    from shared.domain.state import SEATS

    assert sorted(report_lines.BEY) == list(range(1, SEATS + 1))
    assert all(report_lines.BEY[s] == (f"{s}. bey", f"Bey {s}") for s in report_lines.BEY)
    group = ev.GroupRecord(beys=(25,), advances=((25, 4, 5),), support=(), strength=5)
    record = ev.BattleRecord(
        target=6,
        defender=SEATS + 2,
        defender_units=1,
        defence_bonus=0,
        defence_support=(),
        groups=(group,),
        outcome="taken",
        fighting_group=0,
        attack=5,
        defence=1,
        attack_die=0,
        defence_die=0,
        entering=4,
        taker=25,
    )
    line = dict(battle_lines(record))[25]
    assert line.tr.startswith(f"{report._il(6)} savaşı: saldıran 25. bey, savunan 21. bey; ")
    assert "; 25. bey aldı." in line.tr and "; Bey 25 took it." in line.en
    assert line.en.startswith(f"Battle of {report._il(6)}: Bey 25 attacked, Bey 21 defended; ")
    conquest = report._conquest(record)
    assert (conquest.tr, conquest.en) == (
        f"25. bey {report._il(6)} ilini aldı",
        f"Bey 25 took {report._il(6)}",
    )


OFFER_CASES = [
    (
        "accepted",
        "alliance",
        4,
        Treaty("alliance", 3, 7, 9),
        (
            "3. bey ittifak teklifinizi kabul etti (9. Divan'a dek)",
            "Bey 3 accepted your alliance offer (through Divan 9)",
        ),
        (
            "7. beyin ittifak teklifini kabul ettiniz (9. Divan'a dek)",
            "You accepted Bey 7's alliance offer (through Divan 9)",
        ),
    ),
    (
        "rejected",
        "pact",
        4,
        None,
        (
            "3. bey saldırmazlık antlaşması teklifinizi reddetti",
            "Bey 3 rejected your non-aggression pact offer",
        ),
        (
            "7. beyin saldırmazlık antlaşması teklifini reddettiniz",
            "You rejected Bey 7's non-aggression pact offer",
        ),
    ),
    (
        "expired",
        "alliance",
        4,
        None,
        (
            "3. beye ittifak teklifiniz cevapsız kaldı ve düştü",
            "Your alliance offer to Bey 3 went unanswered and lapsed",
        ),
        (
            "7. beyin ittifak teklifi cevapsız kaldı ve düştü",
            "Bey 7's alliance offer went unanswered and lapsed",
        ),
    ),
    (
        "ignored",
        "pact",
        4,
        None,
        (
            "3. beye saldırmazlık antlaşması teklifiniz geçersiz sayıldı (ittifak sürerken saldırmazlık olmaz, R-6.2)",
            "Your non-aggression pact offer to Bey 3 did not count (no pact while allied, R-6.2)",
        ),
        (
            "7. beyin saldırmazlık antlaşması teklifi geçersiz sayıldı (ittifak sürerken saldırmazlık olmaz, R-6.2)",
            "Bey 7's non-aggression pact offer did not count (no pact while allied, R-6.2)",
        ),
    ),
    (
        "ignored",
        "pact",
        13,
        None,
        (
            "3. beye saldırmazlık antlaşması teklifiniz geçersiz sayıldı (perde 3'te antlaşma olmaz, R-6.6)",
            "Your non-aggression pact offer to Bey 3 did not count (no treaties in perde 3, R-6.6)",
        ),
        (
            "7. beyin saldırmazlık antlaşması teklifi geçersiz sayıldı (perde 3'te antlaşma olmaz, R-6.6)",
            "Bey 7's non-aggression pact offer did not count (no treaties in perde 3, R-6.6)",
        ),
    ),
]


@pytest.mark.parametrize(("outcome", "kind", "divan", "treaty", "maker", "answerer"), OFFER_CASES)
def test_an_offers_two_lines_are_made_together_as_each_was_worded_alone(
    outcome: str,
    kind: str,
    divan: int,
    treaty: Treaty | None,
    maker: tuple[str, str],
    answerer: tuple[str, str],
) -> None:
    """R-6.1 … R-6.6: the maker's line and the answerer's, made by one call (issue 27), read
    as each reader's line read when it was worded alone: every outcome, with and without a
    treaty's last Divan, both reasons an offer did not count; the data names the partner."""
    from shared.domain import report_offers
    from shared.domain.state import Offer

    e = ev.OfferSettled(divan=divan, offer=Offer(kind, 7, 3), outcome=outcome, treaty=treaty)  # type: ignore[arg-type]
    lines = report_offers.offer_outcomes(e)
    assert [(x.tr, x.en) for x in lines] == [maker, answerer]
    through = treaty.through_divan if treaty else None
    base = {"from": 7, "to": 3, "treaty": kind, "outcome": outcome, "through_divan": through}
    assert [x.data for x in lines] == [base | {"partner": 3}, base | {"partner": 7}]
    assert list(lines[1].data) == ["from", "to", "partner", "treaty", "outcome", "through_divan"]
