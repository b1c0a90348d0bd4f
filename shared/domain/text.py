"""One check for every free text a person writes (issue 20 item 6, ADR-77): admin reasons and
correction reasons now; bey names and chat later.

A free text is shown as written: in the status, the public reports, the CLI's lines. Two
questions are asked of it, both by Unicode properties (never by a list of look-alikes):

- **refused**: a character that changes how the text around it reads or cannot be shown:
  General_Category Cc (controls: NUL, ESC, a line break, DEL, C1), Cs (a lone surrogate), Co
  (private use), Cn (unassigned in this runtime's Unicode, and the noncharacters), Zl (U+2028
  LINE SEPARATOR), Zp (U+2029 PARAGRAPH SEPARATOR), and every Bidi_Control character (U+061C
  ARABIC LETTER MARK, U+200E/F, U+202A … U+202E, U+2066 … U+2069: Trojan Source,
  CVE-2021-42574). In `lines` mode (chat, issue 24, ADR-93) a plain `\\n` is allowed and
  nothing else of the kind (no `\\r`, no U+2028, no U+0085), and every format character (Cf)
  is refused too: ZWJ and ZWNJ, the soft hyphen, a BOM, tag characters, the invisible
  operators. A message is read by other people in a list of many; a character that draws
  nothing yet joins, hides or splits what is around it is a spoofing tool there, and Turkish
  needs none (an emoji ZWJ sequence shows as its parts).
- **blank**: no visible character: every character is White_Space, Default_Ignorable_Code_Point
  (a zero-width space, a word joiner, a BOM, the Hangul fillers U+115F, U+1160, U+3164, U+FFA0,
  variation selectors, tag characters), a combining mark that has no base to sit on (Mn, Me),
  or U+2800 BRAILLE PATTERN BLANK (a symbol, not Default_Ignorable, but it draws nothing).

Python's unicodedata gives the categories and bidirectional classes but neither White_Space
nor Default_Ignorable_Code_Point nor Bidi_Control, so these are written out below from
Unicode's own definitions (PropList.txt and DerivedCoreProperties.txt, Unicode 15.1), with
the categories read from unicodedata; tests/domain/test_text.py checks the derivation.
"""

from __future__ import annotations

import unicodedata
from typing import Final, Literal


def _ranges(*spans: tuple[int, int]) -> frozenset[int]:
    return frozenset(cp for low, high in spans for cp in range(low, high + 1))


# PropList.txt White_Space (unchanged since Unicode 6.3)
WHITE_SPACE: Final = _ranges(
    (0x0009, 0x000D),
    (0x0020, 0x0020),
    (0x0085, 0x0085),
    (0x00A0, 0x00A0),
    (0x1680, 0x1680),
    (0x2000, 0x200A),
    (0x2028, 0x2029),
    (0x202F, 0x202F),
    (0x205F, 0x205F),
    (0x3000, 0x3000),
)
# PropList.txt Bidi_Control
BIDI_CONTROL: Final = _ranges(
    (0x061C, 0x061C), (0x200E, 0x200F), (0x202A, 0x202E), (0x2066, 0x2069)
)
# PropList.txt Other_Default_Ignorable_Code_Point
OTHER_DEFAULT_IGNORABLE: Final = _ranges(
    (0x034F, 0x034F),
    (0x115F, 0x1160),
    (0x17B4, 0x17B5),
    (0x2065, 0x2065),
    (0x3164, 0x3164),
    (0xFFA0, 0xFFA0),
    (0xFFF0, 0xFFF8),
    (0xE0000, 0xE0000),
    (0xE0002, 0xE001F),
    (0xE0080, 0xE00FF),
    (0xE01F0, 0xE0FFF),
)
# PropList.txt Variation_Selector
VARIATION_SELECTOR: Final = _ranges(
    (0x180B, 0x180D), (0x180F, 0x180F), (0xFE00, 0xFE0F), (0xE0100, 0xE01EF)
)
# PropList.txt Prepended_Concatenation_Mark (format characters that are shown)
PREPENDED_CONCATENATION_MARK: Final = _ranges(
    (0x0600, 0x0605),
    (0x06DD, 0x06DD),
    (0x070F, 0x070F),
    (0x0890, 0x0891),
    (0x08E2, 0x08E2),
    (0x110BD, 0x110BD),
    (0x110CD, 0x110CD),
)
# DerivedCoreProperties.txt: Default_Ignorable_Code_Point = Other_Default_Ignorable_Code_Point
# + Cf + Variation_Selector - White_Space - FFF9..FFFB (interlinear annotation) - 13430..1343F
# (Egyptian hieroglyph format controls) - Prepended_Concatenation_Mark
_NOT_IGNORABLE: Final = WHITE_SPACE | _ranges((0xFFF9, 0xFFFB), (0x13430, 0x1343F))
BRAILLE_BLANK: Final = 0x2800

REFUSED_CATEGORIES: Final = frozenset({"Cc", "Cs", "Co", "Cn", "Zl", "Zp"})
_UNSEEN_MARKS: Final = frozenset({"Mn", "Me"})

Mode = Literal["line", "lines"]


def default_ignorable(ch: str) -> bool:
    """Unicode's Default_Ignorable_Code_Point, from its definition (see the module)."""
    cp = ord(ch)
    if cp in _NOT_IGNORABLE or cp in PREPENDED_CONCATENATION_MARK:
        return False
    return (
        cp in OTHER_DEFAULT_IGNORABLE
        or cp in VARIATION_SELECTOR
        or unicodedata.category(ch) == "Cf"
    )


def refused_character(text: str, mode: Mode = "line") -> str | None:
    """The first character a free text may not hold, as `U+XXXX`, or None."""
    for ch in text:
        if mode == "lines" and ch == "\n":
            continue
        cp = ord(ch)
        category = unicodedata.category(ch)
        if cp in BIDI_CONTROL or category in REFUSED_CATEGORIES:
            return f"U+{cp:04X}"
        if mode == "lines" and category == "Cf":
            return f"U+{cp:04X}"
    return None


def visible(ch: str) -> bool:
    """Whether a character draws something on its own (see the module: `blank`)."""
    cp = ord(ch)
    return not (
        cp in WHITE_SPACE
        or cp == BRAILLE_BLANK
        or default_ignorable(ch)
        or unicodedata.category(ch) in _UNSEEN_MARKS
    )


def blank(text: str) -> bool:
    """No visible character at all (an empty text too)."""
    return not any(visible(ch) for ch in text)


def text_problem(text: str, mode: Mode = "line") -> tuple[str, str | None] | None:
    """Why a free text is refused, or None: ("character", "U+2028") for a character it may not
    hold (checked first: a refused character is named even in an otherwise blank text), or
    ("blank", None) for a text with nothing visible in it."""
    found = refused_character(text, mode)
    if found is not None:
        return "character", found
    if blank(text):
        return "blank", None
    return None
