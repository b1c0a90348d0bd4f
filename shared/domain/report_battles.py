"""Report lines: a battle as each of its parties saw it (R-5.8, R-14), report version 2 on."""

from __future__ import annotations

from functools import cache
from itertools import chain
from operator import attrgetter

from shared.domain.events import BattleRecord, ReportLine
from shared.domain.map import game_map
from shared.domain.report_lines import _beys_en, _beys_tr, seat_words

# A party's role in one battle: its side, its result and the words its line gives after
# the battle's head, in each language: the side with ". " after it, then the verdict with " "
# before it ("" for a standoff, which has none). Every role but the three that name the province
# is one of these constants; those three are made once per plate (`_plate_words`).
Role = tuple[str, str, str, str, str, str]

_ATTACKER = ("siz saldırdınız. ", "you attacked. ")
_DEFENDER = ("siz savundunuz. ", "you defended. ")
_ATTACK_SUPPORT = ("saldırıyı desteklediniz. ", "you supported the attack. ")
_DEFENCE_SUPPORT = ("savunmayı desteklediniz. ", "you supported the defence. ")


def _role(side: str, words: tuple[str, str], result: str, verdict: tuple[str, str] | None) -> Role:
    if verdict is None:
        return (side, result, *words, "", "")
    return (side, result, *words, " " + verdict[0], " " + verdict[1])


NOT_FOUGHT = (
    "Grubunuz savaşmadı: daha güçlü bir grup savaştı.",
    "Your group did not fight: a stronger group did.",
)


GROUP_WON = ("Grubunuz kazandı.", "Your group won.")


REPELLED = ("Saldırınız püskürtüldü.", "Your attack was repelled.")


SUPPORTED_WON = ("Desteklediğiniz taraf kazandı.", "The side you supported won.")


SUPPORTED_LOST = ("Desteklediğiniz taraf kaybetti.", "The side you supported lost.")

_ATTACKER_NOT_FOUGHT = _role("attacker", _ATTACKER, "not_fought", NOT_FOUGHT)
_SUPPORT_NOT_FOUGHT = _role("attack_support", _ATTACK_SUPPORT, "not_fought", NOT_FOUGHT)

# By outcome, the roles that name no province: the defence's supporters, the fighting group's
# attackers and attack supporters, and those of a group that did not fight (R-14's results:
# the defence lost a province taken and won one held; the fighting group the other way; a
# weaker group did not fight; nobody won or lost a standoff, which has no fighting group).
_ROLES: dict[str, tuple[Role, Role, Role, Role, Role]] = {
    "taken": (
        _role("defence_support", _DEFENCE_SUPPORT, "lost", SUPPORTED_LOST),
        _role("attacker", _ATTACKER, "won", GROUP_WON),
        _role("attack_support", _ATTACK_SUPPORT, "won", SUPPORTED_WON),
        _ATTACKER_NOT_FOUGHT,
        _SUPPORT_NOT_FOUGHT,
    ),
    "held": (
        _role("defence_support", _DEFENCE_SUPPORT, "won", SUPPORTED_WON),
        _role("attacker", _ATTACKER, "lost", REPELLED),
        _role("attack_support", _ATTACK_SUPPORT, "lost", SUPPORTED_LOST),
        _ATTACKER_NOT_FOUGHT,
        _SUPPORT_NOT_FOUGHT,
    ),
    "standoff": (
        _role("defence_support", _DEFENCE_SUPPORT, "standoff", None),
        _role("attacker", _ATTACKER, "standoff", None),
        _role("attack_support", _ATTACK_SUPPORT, "standoff", None),
        _role("attacker", _ATTACKER, "standoff", None),
        _role("attack_support", _ATTACK_SUPPORT, "standoff", None),
    ),
}
_DEFENDER_STANDOFF = _role("defender", _DEFENDER, "standoff", None)


class _PlateWords:
    """What a battle's lines say of its province, made once per plate: the head's start, the
    defender's two roles (lost, held) and the taker's role, in both languages."""

    __slots__ = ("head_en", "head_tr", "held", "il", "lost", "took")

    def __init__(self, il: str) -> None:
        self.il = il
        self.head_tr = f"{il} savaşı: saldıran "
        self.head_en = f"Battle of {il}: "
        lost = (f"{il} ilini kaybettiniz.", f"You lost {il}.")
        self.lost = _role("defender", _DEFENDER, "lost", lost)
        self.held = _role(
            "defender", _DEFENDER, "won", (f"{il} ilini korudunuz.", f"You held {il}.")
        )
        took = (f"{il} ilini siz aldınız.", f"You took {il}.")
        self.took = _role("attacker", _ATTACKER, "won", took)


@cache
def _plate_words(plate: int) -> _PlateWords:
    return _PlateWords(game_map().names[plate])


_BEYS = attrgetter("beys")


def _outcome(r: BattleRecord, words: _PlateWords) -> tuple[str, str, Role]:
    """The outcome's words every reader shares (both languages) and the defender's role."""
    il = words.il
    if r.outcome == "standoff":
        return (
            "En güçlü gruplar eşitti: savaş olmadı.",
            "The strongest groups were equal: nobody fought.",
            _DEFENDER_STANDOFF,
        )
    score = f" {r.attack}–{r.defence}" if r.attack is not None else ""
    if r.outcome == "held":
        return f"{il} direndi{score}.", f"{il} held{score}.", words.held
    taker = r.taker
    assert taker is not None  # a province taken has its taker
    taker_tr, taker_en = seat_words(taker)
    return (
        f"{il} düştü{score}; {taker_tr} aldı.",
        f"{il} fell{score}; {taker_en} took it.",
        words.lost,
    )


def _parties(r: BattleRecord, parties: dict[int, Role], took: Role) -> dict[int, Role]:
    """Each party's role into `parties` (the defender's there already), found in R-14's order
    (the defender; an attacker by its group; an attack supporter by the group it backed; a
    defence supporter), the first a seat gets its own; the fighting group's taker (R-5.5)
    took the province."""
    d_support, attack, attack_support, other_attack, other_support = _ROLES[r.outcome]
    fighting_group = r.fighting_group
    for i, g in enumerate(r.groups):
        role = attack if i == fighting_group else other_attack
        for s in g.beys:
            if s not in parties:
                parties[s] = role
    taker = r.taker
    # Compared by value, not identity: a compiled build (ADR-60) boxes a role read from a dict
    # as a new tuple.
    if taker is not None and parties.get(taker) == attack:
        parties[taker] = took
    for i, g in enumerate(r.groups):
        role = attack_support if i == fighting_group else other_support
        for s, _o, _u in g.support:
            if s not in parties:
                parties[s] = role
    for s, _o, _u in r.defence_support:
        if s not in parties:
            parties[s] = d_support
    return parties


def battle_lines(r: BattleRecord) -> list[tuple[int, ReportLine]]:
    """Each party's line, by seat (R-14): who attacked, who defended, the reader's side, the
    result for it (standoff; won or lost; not_fought for a group weaker than the one that
    fought), the outcome and who took the province. What every reader shares is worded once
    per battle, what names the province once per plate; each party's side, result and own
    words are its role (`_ROLES`, `_parties`): a line is two joins and its data."""
    groups, fighting_group, defender = r.groups, r.fighting_group, r.defender
    if len(groups) == 1:  # a group's beys are sorted already
        attackers = list(groups[0].beys)
    else:
        attackers = sorted(set(chain.from_iterable(map(_BEYS, groups))))
    fighting = list(groups[fighting_group].beys) if fighting_group is not None else []
    words = _plate_words(r.target)
    outcome_tr, outcome_en, defender_role = _outcome(r, words)
    if defender is None:
        defender_tr, defender_en = "milis", "the milis"
    else:  # the seats' words looked up, not formatted (issue 27)
        defender_tr, defender_en = seat_words(defender)
    if len(attackers) == 1:  # `_beys_tr`/`_beys_en` of one bey, inline: no call each
        attacker_tr, attacker_en = seat_words(attackers[0])
    else:
        attacker_tr, attacker_en = _beys_tr(attackers), _beys_en(attackers)
    head_tr = f"{words.head_tr}{attacker_tr}, savunan {defender_tr}; "
    head_en = f"{words.head_en}{attacker_en} attacked, {defender_en} defended; "
    parties = _parties(r, {} if defender is None else {defender: defender_role}, words.took)
    # Every line's data is this battle's template copied (a dict copy is one C call; a 13-key
    # literal inserted each key again, issue 12) with the reader's four keys set in place, so
    # the key order is the template's.
    template: dict[str, int | str | list[int] | None] = {
        "target": r.target,
        "defender": defender,
        "attackers": None,
        "fighting": None,
        "side": None,
        "result": None,
        "outcome": r.outcome,
        "taker": r.taker,
        "attack": r.attack,
        "defence": r.defence,
        "attack_die": r.attack_die,
        "defence_die": r.defence_die,
        "entering": r.entering,
    }
    out = []
    for seat in sorted(parties):
        side, result, side_tr, side_en, verdict_tr, verdict_en = parties[seat]
        data = template.copy()
        data["attackers"] = attackers.copy()  # not `[:]`: no slice object built each
        data["fighting"] = fighting.copy()
        data["side"] = side
        data["result"] = result
        tr = f"{head_tr}{side_tr}{outcome_tr}{verdict_tr}"
        en = f"{head_en}{side_en}{outcome_en}{verdict_en}"
        out.append((seat, ReportLine("battle", data, tr, en)))
    return out


def battle_for(r: BattleRecord, seat: int) -> ReportLine:
    """The line of one party of the battle (see `battle_lines`)."""
    return next(line for s, line in battle_lines(r) if s == seat)
