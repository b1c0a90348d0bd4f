"""The static board a client draws and explains: missions, news cards, perdes (R-1, R-8, R-10).

Texts are the game's own (the Turkish player rules, seeds/seksenbir-rules-tr.txt) with an
English rendering; the game's words (Divan, Hain, Bölge Beyi, Kurultay, memleket …) stay as
they are in both. `progress` tells a client how a mission's progress is measured.
"""

from __future__ import annotations

from typing import Literal

import msgspec

from shared.domain.state import DIVANS, SEATS

Progress = Literal["count", "title", "conquest", "battles", "kurultay"]


class Text(msgspec.Struct, frozen=True):
    tr: str
    en: str


class MissionInfo(msgspec.Struct, frozen=True):
    """R-10.1: a mission, and how its progress is measured (`target` for counted ones)."""

    id: str
    name: Text
    completed_when: Text
    progress: Progress
    target: int | None = None
    measure: str | None = None  # what is counted: provinces, outside_provinces, gold, repelled


class NewsInfo(msgspec.Struct, frozen=True):
    """R-8.2: a news card and its effect; `count` is how many the 25-card deck holds."""

    card: str
    name: Text
    effect: Text
    count: int
    regional: bool


class PerdeInfo(msgspec.Struct, frozen=True):
    """R-1.1: an act of the season and its Divans."""

    perde: int
    name: str
    divans: tuple[int, int]
    text: Text


class CalendarRules(msgspec.Struct, frozen=True):
    """R-1.1, R-1.3, R-10.4: when Divans are held and how long a season lasts."""

    divans: int
    seats: int
    zone: str
    utc_offset: str
    divan_time: str
    weekdays: Text
    first_divan: Text
    kurultay: Text


MISSIONS: tuple[MissionInfo, ...] = (
    MissionInfo(
        "M-1",
        Text("Memleket bölgenin Beyi ol", "Be Bölge Beyi of your memleket's region"),
        Text(
            "Memleketinin bölgesinde Bölge Beyi ya da Hakimi olduğunda",
            "when you are Bölge Beyi or Hakimi of your memleket's region",
        ),
        "title",
    ),
    MissionInfo(
        "M-2",
        Text("Büyük şehir fethet", "Conquer a big city"),
        Text(
            "Nüfusu 3 milyon ve üstü bir ili savaşla aldığında",
            "when you take a province of 3 million people or more by battle",
        ),
        "conquest",
    ),
    MissionInfo(
        "M-3",
        Text("10 ile ulaş", "Reach 10 provinces"),
        Text("En az 10 ilin olduğunda", "when you own at least 10 provinces"),
        "count",
        10,
        "provinces",
    ),
    MissionInfo(
        "M-4",
        Text("Memleket bölgen dışında 3 il tut", "Hold 3 provinces outside your region"),
        Text(
            "Memleketinin bölgesi dışında en az 3 ilin olduğunda",
            "when you own at least 3 provinces outside your memleket's region",
        ),
        "count",
        3,
        "outside_provinces",
    ),
    MissionInfo(
        "M-5",
        Text("Bir Hain'in ilini düşür", "Take a Hain's province"),
        Text(
            "Savaş adımı başlarken sahibi Hain rozeti taşıyan bir ili savaşla aldığında",
            "when you take by battle a province whose owner wore the Hain badge as the "
            "battles began",
        ),
        "conquest",
    ),
    MissionInfo(
        "M-6",
        Text("Memleketini sezon boyunca kaybetme", "Never lose your memleket"),
        Text(
            "Kurultay'da: memleketini sezon boyunca hiç kaybetmediysen",
            "at the Kurultay, if you never lost your memleket during the season",
        ),
        "kurultay",
    ),
    MissionInfo(
        "M-7",
        Text("Bir Divan'da 2 saldırı püskürt", "Repel 2 attacks in one Divan"),
        Text(
            "Bir Divan'da illerine yapılan en az 2 saldırı püskürtüldüğünde (eşitlik savaş "
            "sayılmaz)",
            "when at least 2 attacks on your provinces are repelled in one Divan (a standoff is "
            "not a fight)",
        ),
        "battles",
        2,
        "repelled",
    ),
    MissionInfo(
        "M-8",
        Text("15 altın biriktir", "Save 15 gold"),
        Text("Bir Divan sonunda en az 15 altının olduğunda", "when you have 15 gold after a Divan"),
        "count",
        15,
        "gold",
    ),
    MissionInfo(
        "M-9",
        Text("Sana en yakın beyin memleketini al", "Take the memleket of the nearest bey"),
        Text(
            "Memleketi seninkine en yakın beyin memleketini savaşla aldığında (eşitlikte küçük "
            "koltuk), kim tutuyor olursa olsun",
            "when you take by battle the memleket of the bey whose memleket is nearest yours "
            "(ties: the lower seat), whoever holds it",
        ),
        "conquest",
    ),
    MissionInfo(
        "M-10",
        Text("Bir ittifakla ortak fetih yap", "Make a joint conquest in an alliance"),
        Text(
            "İttifak grubunla birlikte ilerleyip bir il aldığında",
            "when your alliance group advances together and takes a province",
        ),
        "conquest",
    ),
)

NEWS: tuple[NewsInfo, ...] = (
    NewsInfo(
        "kuraklik",
        Text("Kuraklık", "Drought"),
        Text("Bir bölgede o Divan üretim yok", "no production in one region this Divan"),
        7,
        True,
    ),
    NewsInfo(
        "hasat",
        Text("Hasat bereketi", "Bountiful harvest"),
        Text("Bir bölgede o Divan her il +1 üretir", "every province of one region produces +1"),
        7,
        True,
    ),
    NewsInfo(
        "bayram",
        Text("Bayram", "Bayram"),
        Text(
            "Sonraki Divan'da beylere saldırı yok (ateşkes)",
            "no attacks on beys at the next Divan (ceasefire)",
        ),
        2,
        False,
    ),
    NewsInfo(
        "yerel_isyan",
        Text("Yerel isyan", "Local uprising"),
        Text(
            "Sahibinin memleketinden 3+ uzak, 1 birlikli bir il ayaklanır: sahipsiz olur, milis 2",
            "a 1-unit province 3+ steps from its owner's memleket rises: unowned, milis 2",
        ),
        3,
        False,
    ),
    NewsInfo(
        "seyyah_tuccar",
        Text("Seyyah tüccar", "Travelling merchant"),
        Text(
            "Rastgele bir beyin memleketine +2 birlik, kendisine +2 altın",
            "a random bey holding its memleket gets +2 units there and +2 gold",
        ),
        3,
        False,
    ),
    NewsInfo(
        "deprem",
        Text("Deprem", "Earthquake"),
        Text(
            "Memleket olmayan, en az 2 birlikli rastgele bir il birliklerinin yarısını kaybeder",
            "a random province that is no memleket, with 2+ units, loses half of them",
        ),
        3,
        False,
    ),
)

PERDES: tuple[PerdeInfo, ...] = (
    PerdeInfo(
        1,
        "Yerleşme",
        (1, 6),
        Text(
            "Sahipsiz iller yarı milisle başlar, dolar.",
            "Unowned provinces start at half milis and fill up.",
        ),
    ),
    PerdeInfo(
        2,
        "Savaşlar",
        (7, 12),
        Text(
            "Sahipsiz il kalmamıştır; sınırlar beyler arasındadır.",
            "No unowned province is left; the borders are between beys.",
        ),
    ),
    PerdeInfo(
        3,
        "Kurultay'a doğru",
        (13, 16),
        Text(
            "Tüm antlaşmalar düşer, üretim ×2. Herkes tek başına.",
            "Every treaty ends, production ×2. Everyone for themselves.",
        ),
    ),
)

CALENDAR = CalendarRules(
    divans=DIVANS,
    seats=SEATS,
    zone="Europe/Istanbul",
    utc_offset="+03:00",
    divan_time="21:00",
    weekdays=Text(
        "Tek Divanlar salı, çift Divanlar cuma",
        "odd Divans on Tuesdays, even Divans on Fridays",
    ),
    first_divan=Text(
        "1. Divan, kayıt kapandıktan en az 24 saat sonraki ilk salı 21:00",
        "Divan 1 is the first Tuesday 21:00 at least 24 hours after registration closes",
    ),
    kurultay=Text(
        "16. Divan'dan sonra Kurultay 24 saat açık kalır",
        "after Divan 16 the Kurultay is open for 24 hours",
    ),
)
