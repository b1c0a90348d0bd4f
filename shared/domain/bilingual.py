"""Two languages, one text each (docs/api.md "Language"): Turkish by default, English on request."""

from __future__ import annotations

from typing import Literal, NamedTuple

Lang = Literal["tr", "en"]
LANGS: tuple[Lang, ...] = ("tr", "en")
DEFAULT: Lang = "tr"


class Text(NamedTuple):
    tr: str
    en: str


T = Text
