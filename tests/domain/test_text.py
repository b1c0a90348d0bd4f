"""Issue 20 item 6, ADR-77: one free-text check (shared.domain.text), by Unicode properties.

The cases the attack found (`"\\u3164"`, `"\\u2800"`, `"\\u200b"` passed as reasons and showed as
empty; `"a\\u2028b"`, `"a\\u2029b"`, `"a\\u061cb"` passed the one-line and direction checks), the
derivation of Default_Ignorable_Code_Point against Unicode's own list for the code points
Python's unicodedata knows, and properties over any text (hypothesis).
"""

from __future__ import annotations

import sys
import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from shared.domain import commands as c
from shared.domain import text

BLANK = [
    "",
    " ",
    "\u3164",
    "\u2800",
    "\u200b",
    "\u115f\u1160",
    "\uffa0",
    "\u2060\u00a0\ufeff",
    "\u034f",
    "\ufe0f",
    "\U000e0041",
    "\u0301\u0301",
    "\u3000\u2003",
    "\u180e",
]
REFUSED = {
    "a\u2028b": "U+2028",
    "a\u2029b": "U+2029",
    "a\u061cb": "U+061C",
    "a\u200eb": "U+200E",
    "a\u202eb": "U+202E",
    "a\u2066b": "U+2066",
    "two\nlines": "U+000A",
    "a\rb": "U+000D",
    "a\x85b": "U+0085",
    "nul\x00": "U+0000",
    "\x1b[2J": "U+001B",
    "a\ud800b": "U+D800",
    "a\ue000b": "U+E000",
    "a\U000f0000b": "U+F0000",
    "a\ufffeb": "U+FFFE",
    "\u2028": "U+2028",  # blank too: the character is what is named
}
SHOWN = [
    "a",
    "Şahin Bey",
    "a\u200bb",
    "👨\u200d👩\u200d👧",
    "🏴\U000e0067\U000e0062\U000e007f",
    "e\u0301",
    "\u0600",
    "ي",
    "\u2800a",
    "ok\u00a0ok",
    "x\u3164",
]


@pytest.mark.parametrize("value", BLANK)
def test_a_text_with_nothing_visible_is_blank(value: str) -> None:
    assert text.text_problem(value) == ("blank", None)
    assert text.blank(value)


@pytest.mark.parametrize(("value", "named"), REFUSED.items())
def test_a_one_line_text_refuses_separators_controls_and_direction_marks(
    value: str, named: str
) -> None:
    assert text.text_problem(value) == ("character", named)


@pytest.mark.parametrize("value", SHOWN)
def test_a_text_with_something_visible_and_nothing_refused_is_taken(value: str) -> None:
    assert text.text_problem(value) is None


def test_the_lines_mode_allows_a_plain_line_break_and_nothing_else_of_the_kind() -> None:
    assert text.text_problem("one\ntwo", "lines") is None
    assert text.text_problem("\n\n", "lines") == ("blank", None)
    for other in ("\r", "\r\n", "\u2028", "\u2029", "\x85", "\x0b", "\x0c", "\u061c"):
        assert text.text_problem(f"one{other}two", "lines") is not None, repr(other)


# Unicode 14's DerivedCoreProperties.txt Default_Ignorable_Code_Point (Python 3.11's
# unicodedata is 14.0; later versions add none inside these planes' assigned characters)
DERIVED = [
    (0x00AD, 0x00AD),
    (0x034F, 0x034F),
    (0x061C, 0x061C),
    (0x115F, 0x1160),
    (0x17B4, 0x17B5),
    (0x180B, 0x180F),
    (0x200B, 0x200F),
    (0x202A, 0x202E),
    (0x2060, 0x206F),
    (0x3164, 0x3164),
    (0xFE00, 0xFE0F),
    (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0),
    (0xFFF0, 0xFFF8),
    (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A),
    (0xE0000, 0xE0FFF),
]


def test_default_ignorable_is_unicodes_derived_list() -> None:
    listed = {cp for low, high in DERIVED for cp in range(low, high + 1)}
    derived = {cp for cp in range(sys.maxunicode + 1) if text.default_ignorable(chr(cp))}
    assert derived == listed, (sorted(derived - listed)[:10], sorted(listed - derived)[:10])


def test_white_space_is_the_property_not_str_isspace() -> None:
    """str.isspace also takes U+001C … U+001F (bidi class B/S), which are not White_Space."""
    spaces = {cp for cp in range(sys.maxunicode + 1) if chr(cp).isspace()}
    assert spaces - text.WHITE_SPACE == set(range(0x1C, 0x20))
    assert spaces >= text.WHITE_SPACE


@given(st.text())
def test_any_text_is_refused_iff_it_holds_a_refused_character(value: str) -> None:
    found = text.refused_character(value)
    bad = [
        ch
        for ch in value
        if ord(ch) in text.BIDI_CONTROL
        or unicodedata.category(ch) in ("Cc", "Cs", "Co", "Cn", "Zl", "Zp")
    ]
    assert (found is None) == (not bad)
    if bad:
        assert found == f"U+{ord(bad[0]):04X}"


@given(st.text(), st.text(alphabet=st.sampled_from([b for b in BLANK if len(b) == 1])))
def test_blank_padding_never_makes_a_text_visible_nor_hides_one(value: str, pad: str) -> None:
    assert text.blank(pad)
    assert text.blank(pad + value + pad) == text.blank(value)


@given(st.text(alphabet=st.characters(categories=["Lu", "Ll", "Lo", "Nd", "So"]), min_size=1))
def test_letters_digits_and_symbols_are_visible(value: str) -> None:
    assert not text.blank(value.replace("\u2800", "") or "a")


@given(st.text())
def test_a_reason_is_refused_exactly_as_the_text_check_says(value: str) -> None:
    """R-admin (D-29 … D-31, ADR-53): reasons and corrections share the check."""
    refused = c.reason_refused(value)
    found = text.text_problem(value)
    if found is None:
        assert refused is None
    elif found[0] == "blank":
        assert refused is not None and refused.key == "reason_required"
    else:
        assert refused is not None and refused.code == "invalid_body"
        assert refused.details == {"field": "$.reason", "character": found[1]}


@pytest.mark.parametrize("fmt", ["\u200d", "\u200c", "\u00ad", "\ufeff", "\u2060", "\U000e0041"])
def test_the_lines_mode_refuses_every_format_character(fmt: str) -> None:
    """Issue 24, ADR-93: a chat text holds no format character (Cf) at all: ZWJ, ZWNJ, the
    soft hyphen, a BOM, a word joiner, a tag character; the one-line mode is unchanged."""
    assert text.text_problem(f"a{fmt}b", "lines") == ("character", f"U+{ord(fmt):04X}")
