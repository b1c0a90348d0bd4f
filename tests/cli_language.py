"""Which language a line for people is in: the checks behind the CLI's language tests (issue 11).

`seksenbir … --lang tr` (the default) must print no English-only line, `--lang en` no Turkish
one. What is the same in both languages is taken out first: the game's words (Divan, Hain,
Kurultay, memleket, milis, sur …, the list of tests/domain/test_messages.py), the provinces'
names, and data (event types and field names in snake_case, ids, hashes, DSNs, paths, JSON,
quoted values), then the rest is checked against a list of words only one language has.
"""

from __future__ import annotations

import json
import re

from shared.domain.map import game_map
from tests.domain.test_messages import GAME_WORDS, TURKISH_LETTERS

ENGLISH = re.compile(
    r"\b(the|is|are|and|not|no|of|to|with|only|must|try|again|you|season|seasons|version|events?"
    r"|line|broken|missing|refused|warning|database|phase|seat|gold|units|score|human"
    r"|computer|kind|through|differs|same|record|plate|name|owner|treaties|provinces|beys|none|read"
    r"|ok|fail|failed|first|match|applied|rebuilt|dead|letters?|replayed|found|whole"
    r"|number|give|has|from|into|head|usage|options|show|help|message|exit|re-run)\b",
    re.I,
)
TURKISH = re.compile(
    r"\b(sezon|sezonu|sezonda|olay|yok|verin|ya da|bir|iller|beyler|koltuk|plaka|sahip|puan|insan"
    r"|eksik|uyarı|sürüm|satır|kırık|sağlam|dosya|kullanım|seçenekler|tutmadı|reddedildi|evre"
    r"|kurallar|antlaşmalar|altın|birlik)\b",
    re.I,
)
DATA = re.compile(
    r"\b[a-z]+(?:_[a-z0-9]+)+(?:\.v\d+)?\b"  # snake_case: event types, fields, codes
    r"|\b[0-9a-f]{16,}\b"  # hashes
    r"|\b[0-9a-f]{8}-[0-9a-f-]{27}\b"  # uuids
    r"|\S+@\S+|\S*/\S*"  # DSNs, paths, rules versions
    r"|'[^']*'|\"[^\"]*\""  # quoted values (season ids, given text)
    r"|\{.*\}|\[.*\]"  # JSON, argument lists
    r"|`[^`]*`"  # a command named
    r"|--[\w-]+|-[a-z]\b|\b[A-Z]{2,}\b"  # options, metavars
)
PHASES = re.compile(r"\b(registration|divans|kurultay|over|cancelled)\b")


def _names() -> re.Pattern[str]:
    names = sorted({p.name for p in game_map().by_plate.values()}, key=len, reverse=True)
    return re.compile("|".join(re.escape(n) for n in names))


NAMES = _names()


def _is_json(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


def human_lines(text: str, *, data_too: tuple[str, ...] = ()) -> list[str]:
    """The lines of `text` that are for people: a JSON document printed whole is data."""
    if text.strip() and _is_json(text):
        return []
    out = []
    for line in text.splitlines():
        if not line.strip() or _is_json(line):
            continue
        out.append(line)
    return out


ARGPARSE_NAMES = re.compile(r"^\s+[\w-]+(?=\s{2,}|$)|^\s+\S+$")  # a positional's name, usage's tail
OPTION = re.compile(r"--[\w-]+")
VERB = re.compile(r"\bseksenbir(?: [a-z]+)*(?=:)|\bseksenbir [a-z]+")
QUOTED = re.compile(r'"[^"\n]*"')  # a literal in quotes: a JSON key or value to type as it is


def _neutral(line: str, data_too: tuple[str, ...]) -> str:
    for value in data_too:
        line = line.replace(value, " ")
    line = OPTION.sub(" ", line)
    line = QUOTED.sub(" ", line)
    line = VERB.sub(" ", line)
    line = ARGPARSE_NAMES.sub(" ", line)
    line = GAME_WORDS.sub(" ", line)
    line = NAMES.sub(" ", line)
    line = DATA.sub(" ", line)
    return PHASES.sub(" ", line)


def english_in(lines: list[str], data_too: tuple[str, ...] = ()) -> list[str]:
    """The lines that have an English-only word left."""
    return [ln for ln in lines if ENGLISH.search(_neutral(ln, data_too))]


def turkish_in(lines: list[str], data_too: tuple[str, ...] = ()) -> list[str]:
    """The lines that have a Turkish letter or a Turkish-only word left."""
    out = []
    for ln in lines:
        rest = _neutral(ln, data_too)
        if TURKISH_LETTERS.search(rest) or TURKISH.search(rest):
            out.append(ln)
    return out


def wrong_language(text: str, lang: str, data_too: tuple[str, ...] = ()) -> list[str]:
    """The human lines of `text` not in `lang`: tr mode has no English-only line, en no Turkish."""
    lines = human_lines(text)
    return english_in(lines, data_too) if lang == "tr" else turkish_in(lines, data_too)
