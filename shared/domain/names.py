"""Beys' display names (issue 23, ADR-83): what a name may be, when two names are one, which
names nobody may take, and the names computer beys are given.

- **What a name may be** (R-15.5): 2 … 24 characters after NFC; letters (L*), decimal digits
  (Nd), the space and `. - _ '`, combining marks only on a letter (at most two in a row); at
  least one letter; no space at either end and never two in a row. Before any of this, the one
  free-text check (shared.domain.text: no control, format, bidirectional, private-use or
  unassigned character). A name is stored as NFC.
- **When two names are one** (R-15.5): their confusable keys meet. A key is Unicode TS #39's
  skeleton (the prototype mapping of confusables.txt, Unicode 14.0.0, shipped in
  `data/confusables.txt`) taken after NFKC, every decimal digit read as its ASCII digit (an
  Arabic-Indic "٣" is "3"), and case folding, and then without combining marks
  (so "Ayşe" is "ayse") and without the separators `. - _ '` and spaces. A name has two keys:
  case folded before the mapping, and mapped before case folding (then mapped again), since
  Turkish "I" folds to "i" and not to "ı", while the skeleton maps "I" to "l". Two names meet
  when any key of one is a key of the other.
- **Reserved whole names** (R-15.5): the seat forms "3. bey" and "Bey 3" (any seat number),
  "Han", "ops", "sistem", "system", "admin", "moderatör" and a few more, the titles a bey is
  shown with ("Hain", "Sürgün", "Bölge Beyi", "Bölge Hakimi", ADR-166), and every computer
  bey's name, each with its lookalikes (by the same keys). "Orhan" is not "Han".
- **One rule for every public name** (R-15.5): `name_refusal` is what a bey's name and a
  player's public name (`POST /v1/players`) both go through; a bey's is then unique in its
  season (shared.domain.naming), a player's need not be unique.
- **Computer beys** (R-15.5): named by the system from their memleket, "Konya Beyi": a form no
  human may take, so a computer bey never shares a name with a human one, in any season.
"""

from __future__ import annotations

import unicodedata
from functools import cache
from importlib import resources
from typing import Final

from shared.domain import text
from shared.domain.commands import Rejection, reject
from shared.domain.map import game_map

NAME_MIN: Final = 2
NAME_MAX: Final = 24
SEPARATORS: Final = frozenset(" .-_'")
MAX_MARKS: Final = 2
RESERVED_WORDS: Final[tuple[str, ...]] = (
    "Han",
    "ops",
    "sistem",
    "system",
    "admin",
    "moderatör",
    "moderator",
    "yönetici",
    "bilgisayar",
    "computer",
    "Divan",
    "Kurultay",
    # the titles a bey is shown with (the map, the leaderboard, /titles; ADR-166), as "Han" is
    "Hain",
    "Sürgün",
    "Bölge Beyi",
    "Bölge Hakimi",
)
SEAT_FORMS_UP_TO: Final = 999  # "any seat": every number a seat form could carry


@cache
def confusables() -> dict[str, str]:
    """TS #39's prototype mapping: a character -> its prototype (one or more characters)."""
    raw = resources.files("shared.domain").joinpath("data/confusables.txt").read_text("utf-8")
    table: dict[str, str] = {}
    for line in raw.splitlines():
        if not line or line.startswith("#"):
            continue
        source, target = line.split(";")
        table[chr(int(source, 16))] = "".join(chr(int(cp, 16)) for cp in target.split())
    return table


def _skeleton(s: str) -> str:
    """TS #39 skeleton: NFD, each character to its prototype, NFD again."""
    table = confusables()
    mapped = "".join(table.get(ch, ch) for ch in unicodedata.normalize("NFD", s))
    return unicodedata.normalize("NFD", mapped)


def _plain(s: str) -> str:
    """Without combining marks and separators: what is left to compare."""
    return "".join(
        ch
        for ch in unicodedata.normalize("NFD", s)
        if not unicodedata.category(ch).startswith("M") and ch not in SEPARATORS
    )


def _digits(s: str) -> str:
    """Every decimal digit as the ASCII digit it is: "٣. bey" (Arabic-Indic) is "3. bey"."""
    return "".join(str(unicodedata.decimal(ch)) if ch.isdecimal() else ch for ch in s)


def keys(name: str) -> tuple[str, ...]:
    """A name's confusable keys (see the module), sorted."""
    n = _digits(unicodedata.normalize("NFKC", name))
    folded_first = _plain(_skeleton(n.casefold()).casefold())
    mapped_first = _plain(_skeleton(_skeleton(n).casefold()).casefold())
    return tuple(sorted({folded_first, mapped_first}))


def computer_name(memleket: int) -> str:
    """A computer bey's name: its memleket's, "Konya Beyi" (R-15.5)."""
    return f"{game_map().names[memleket]} Beyi"


def seat_name(seat: int) -> str:
    """What a bey without a name is called: "3. bey" (the Turkish seat form)."""
    return f"{seat}. bey"


@cache
def reserved_keys() -> frozenset[str]:
    """Every key of a reserved whole name (R-15.5)."""
    names = [*RESERVED_WORDS]
    for n in range(SEAT_FORMS_UP_TO + 1):
        names += [f"{n}. bey", f"bey {n}"]
    names += [computer_name(plate) for plate in range(1, 82)]
    return frozenset(k for name in names for k in keys(name))


def _character_ok(ch: str, previous: str, marks: int) -> bool:
    cat = unicodedata.category(ch)
    if cat.startswith("L") or cat == "Nd" or ch in SEPARATORS:
        return True
    # a combining mark sits on a letter (or on a mark on one), never more than two in a row
    return (
        cat in ("Mn", "Mc") and marks < MAX_MARKS and previous != "" and previous not in SEPARATORS
    )


def name_problem(name: str) -> str | None:
    """Why `name` is not a name (a refusal key: `invalid_name.<variant>`), or None."""
    found = text.text_problem(name)
    if found is not None:
        return "invalid_name.character" if found[0] == "character" else "invalid_name.length"
    n = unicodedata.normalize("NFC", name)
    if not NAME_MIN <= len(n) <= NAME_MAX:
        return "invalid_name.length"
    if n != n.strip(" ") or "  " in n:
        return "invalid_name.spaces"
    previous, marks = "", 0
    for ch in n:
        if not _character_ok(ch, previous, marks):
            return "invalid_name.character"
        marks = marks + 1 if unicodedata.category(ch).startswith("M") else 0
        previous = ch
    if not any(unicodedata.category(ch).startswith("L") for ch in n):
        return "invalid_name.letter"
    return None


def is_reserved(name: str) -> bool:
    """Whether `name` is a reserved whole name or looks like one (R-15.5)."""
    reserved = reserved_keys()
    return any(k in reserved for k in keys(name))


def name_refusal(name: str, field: str = "$.name") -> Rejection | None:
    """R-15.5: why `name` may be nobody's name, or None: not a name (`invalid_name`, its
    variant saying what is wrong), or a reserved whole name or its lookalike
    (`name_reserved`). `field` names the member in the refusal."""
    problem = name_problem(name)
    if problem is not None:
        return reject(problem, field=field)
    if is_reserved(name):
        return reject("name_reserved", field=field)
    return None


def same_name(a: str, b: str) -> bool:
    """Whether two names are one by their confusable keys (R-15.5)."""
    theirs = keys(b)
    return any(k in theirs for k in keys(a))


def display_name(names: dict[int, str], seat: int, memleket: int, computer: bool) -> str:
    """How a bey is shown (R-15.5): its chosen name; a computer bey's given one; else the seat."""
    if seat in names:
        return names[seat]
    return computer_name(memleket) if computer else seat_name(seat)
