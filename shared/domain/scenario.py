"""The adjudication case format `seksenbir-scenario/1` (docs SCENARIO.md): load, run, compare."""

from __future__ import annotations

from typing import Any, Literal

import msgspec

from shared.domain import messages
from shared.domain.board import Board
from shared.domain.draws import NewsDraw, PinnedDraws
from shared.domain.events import BattlesResolved, DivanResolved, Event
from shared.domain.map import game_map
from shared.domain.resolve import DivanInputs, adjudicate
from shared.domain.state import (
    Bey,
    NewsCard,
    NewsKind,
    Offer,
    Order,
    OrderKind,
    Province,
    SeasonState,
    Treaty,
)

FORMAT = "seksenbir-scenario/1"


class ScenarioError(ValueError):
    """The scenario is not valid; the message says where. `key` and `params` name its text in
    the catalogue (shared.domain.messages), so the CLI says it in the language asked for."""

    def __init__(self, key: str, **params: object) -> None:
        super().__init__(messages.render(key, "en", params))
        self.key, self.params = key, params

    def text(self, lang: messages.Lang) -> str:
        return messages.render(self.key, lang, self.params)


class SBey(msgspec.Struct):
    seat: int
    memleket: int
    gold: int = 2
    computer: bool = False
    exiled: bool = False
    hain_through: int | None = None
    lost_memleket_before: bool = False
    missions: list[str] = []
    missions_done: list[str] = []


class SProvince(msgspec.Struct):
    owner: int | None = None
    units: int | None = None
    sur: bool = False
    milis: int | None = None


class STreaty(msgspec.Struct):
    kind: Literal["pact", "alliance"]
    beys: list[int]
    through_divan: int


class SOffer(msgspec.Struct, rename={"frm": "from"}):
    kind: Literal["pact", "alliance"]
    frm: int
    to: int
    answer: Literal["accept", "reject"] | None = None


class SOrder(msgspec.Struct, rename={"frm": "from"}):
    seat: int
    frm: int
    kind: OrderKind
    to: int | None = None
    units: int = 0


class SNews(msgspec.Struct):
    card: NewsKind
    region: str | None = None
    province: int | None = None
    seat: int | None = None


class SDraws(msgspec.Struct):
    fate: dict[str, dict[str, int]] = {}
    rebellion: dict[str, bool] = {}
    offers: dict[str, bool] = {}


class Scenario(msgspec.Struct):
    format: str
    divan: int
    beys: list[SBey]
    name: str = ""
    rules: list[str] = []
    seed: int = 0
    provinces: dict[str, SProvince] = {}
    treaties: list[STreaty] = []
    offers: list[SOffer] = []
    ceasefire: bool = False
    news: SNews | None = None
    orders: list[SOrder] = []
    draws: SDraws = msgspec.field(default_factory=SDraws)
    expected: dict[str, Any] | None = None
    reasoning: str | list[str] | None = None


def load(data: bytes) -> Scenario:
    try:
        sc = msgspec.json.decode(data, type=Scenario)
    except msgspec.ValidationError as exc:
        raise ScenarioError("scenario.invalid", error=str(exc)) from exc
    except msgspec.DecodeError as exc:  # not UTF-8 JSON at all (a ValidationError is one too)
        raise ScenarioError("scenario.not_json") from exc
    if sc.format != FORMAT:
        raise ScenarioError("scenario.format", want=FORMAT, got=sc.format)
    if not 1 <= sc.divan <= 16:
        raise ScenarioError("scenario.divan")
    for t in sc.treaties:
        if t.through_divan > 12:
            raise ScenarioError("scenario.through_divan")
    return sc


def to_state(sc: Scenario) -> SeasonState:
    gm = game_map()
    provinces = [Province(units=gm.full_milis[p]) for p in range(1, 82)]
    for key, p in sc.provinces.items():
        plate = int(key)
        if plate not in gm:
            raise ScenarioError("scenario.no_province", plate=key)
        if p.owner is None:
            provinces[plate - 1] = Province(
                units=p.milis if p.milis is not None else gm.full_milis[plate]
            )
        else:
            provinces[plate - 1] = Province(p.owner, p.units or 0, p.sur)
    beys = tuple(
        Bey(
            seat=b.seat,
            memleket=b.memleket,
            computer=b.computer,
            gold=b.gold,
            hain_through=b.hain_through,
            lost_memleket_before=b.lost_memleket_before,
            missions=tuple(b.missions),
            missions_done=tuple(b.missions_done),
        )
        for b in sorted(sc.beys, key=lambda b: b.seat)
    )
    treaties = tuple(
        sorted(
            (Treaty(t.kind, min(t.beys), max(t.beys), t.through_divan) for t in sc.treaties),
            key=Treaty.pair,
        )
    )
    return SeasonState(
        season_id="scenario",
        seed=sc.seed,
        phase="running",
        divan=sc.divan - 1,
        beys=beys,
        provinces=tuple(provinces),
        treaties=treaties,
        offers=tuple(Offer(o.kind, o.frm, o.to, o.answer) for o in sc.offers),
        ceasefire_divan=sc.divan if sc.ceasefire else None,
    )


def to_inputs(sc: Scenario, state: SeasonState) -> DivanInputs:
    orders: dict[int, list[Order]] = {}
    for o in sc.orders:
        orders.setdefault(o.seat, []).append(Order(o.frm, o.kind, o.to, o.units))
    news = None
    if sc.news is not None:
        card = NewsCard(sc.news.card, sc.news.region)
        news = NewsDraw(card, sc.news.province if sc.news.province is not None else sc.news.seat)
    draws = PinnedDraws(
        seed=sc.seed,
        divan=sc.divan,
        news=news,
        fates={int(k): v for k, v in sc.draws.fate.items()},
        rebellions={int(k): v for k, v in sc.draws.rebellion.items()},
        offers=dict(sc.draws.offers),
    )
    return DivanInputs(
        divan=sc.divan,
        orders={s: tuple(os) for s, os in orders.items()},
        offers=state.offers,
        draws=draws,
    )


def render(board: Board, events: list[Event]) -> dict[str, Any]:
    """The output shape of SCENARIO.md: provinces (all 81), beys, treaties, battles, report."""
    provinces: dict[str, Any] = {}
    for p in range(1, 82):
        if board.owner[p] is None:
            provinces[str(p)] = {"owner": None, "milis": board.units[p]}
        else:
            provinces[str(p)] = {
                "owner": board.owner[p],
                "units": board.units[p],
                "sur": board.sur[p],
            }
    beys = [
        {
            "seat": s,
            "gold": b.gold,
            "exiled": not board.holds_memleket(s),
            "hain_through": b.hain_through,
            "lost_memleket_before": b.lost_before,
            "missions_done": sorted(b.done),
        }
        for s, b in sorted(board.beys.items())
    ]
    treaties = [
        {"kind": t.kind, "beys": [t.a, t.b], "through_divan": t.through_divan}
        for _pair, t in sorted(board.treaties.items())
        if t.through_divan > board.divan
    ]
    battles = next((e.battles for e in events if isinstance(e, BattlesResolved)), ())
    report = next((e for e in events if isinstance(e, DivanResolved)), None)
    return {
        "provinces": provinces,
        "beys": beys,
        "treaties": treaties,
        "battles": msgspec.to_builtins(battles),
        "report": msgspec.to_builtins(report) if report else None,
    }


def run(sc: Scenario) -> dict[str, Any]:
    state = to_state(sc)
    events, board = adjudicate(state, to_inputs(sc, state))
    return render(board, events)


def differences(
    expected: dict[str, Any], actual: dict[str, Any], lang: messages.Lang = "en"
) -> list[str]:
    """Compare only the keys `expected` lists (SCENARIO.md); each difference in `lang`."""
    diffs: list[str] = []

    def say(key: str, **params: object) -> str:
        return messages.render(key, lang, params)

    for plate, want in expected.get("provinces", {}).items():
        got = actual["provinces"][str(plate)]
        for k, v in want.items():
            if got.get(k) != v:
                diffs.append(
                    say("scenario.diff_province", plate=plate, field=k, want=v, got=got.get(k))
                )
    beys = {b["seat"]: b for b in actual["beys"]}
    for want in expected.get("beys", []):
        got = beys.get(want["seat"], {})
        for k, v in want.items():
            value = sorted(v) if k == "missions_done" else v
            if got.get(k) != value:
                diffs.append(
                    say("scenario.diff_bey", seat=want["seat"], field=k, want=v, got=got.get(k))
                )
    if "treaties" in expected and _norm(expected["treaties"]) != _norm(actual["treaties"]):
        diffs.append(
            say("scenario.diff_treaties", want=expected["treaties"], got=actual["treaties"])
        )
    return diffs


def _norm(treaties: list[dict[str, Any]]) -> list[tuple[str, list[int], int]]:
    return sorted((t["kind"], sorted(t["beys"]), t["through_divan"]) for t in treaties)
