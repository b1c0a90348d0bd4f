"""What every `seksenbir` command shares: lines for people in the chosen language, argparse
types that refuse in that language, the season ids a command may name."""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, NoReturn

if TYPE_CHECKING:
    from shared.domain.messages import Lang
    from shared.setting_checks import SettingError
    from shared.settings import Settings


def say(key: str, lang: Lang, **params: object) -> str:
    """A line for people, in `lang` (shared.domain.messages); a parameter that is a Said (an
    export's why, a chain reason) is rendered in `lang` too."""
    from shared.domain.messages import Said

    return Said(key, **params).text(lang)


def setting_refusal(exc: SettingError, lang: Lang) -> str:
    """A variable's value refused at start (ADR-172), in `lang`: the variable, its value as
    shown (never a secret or a password) and what it accepts."""
    return say(f"setting.{exc.kind}", lang, variable=exc.variable, value=exc.value, **exc.params)


def refuse_setting(exc: SettingError, program: str) -> NoReturn:
    """A process started without the command line (uvicorn's factory, Dramatiq's command line)
    whose settings are refused: the same one line, in Turkish (no language switch there), on
    stderr, and exit 2 before anything starts; not Python's traceback."""
    print(f"{program}: {setting_refusal(exc, 'tr')}", file=sys.stderr, flush=True)
    raise SystemExit(2)


def settings_or_refusal(program: str) -> Settings:
    """This process's Settings, or, refused, `refuse_setting`'s one line and exit 2."""
    from shared.setting_checks import SettingError
    from shared.settings import Settings

    try:
        return Settings.from_env()
    except SettingError as exc:
        refuse_setting(exc, program)


def os_error(exc: OSError, lang: Lang) -> str:
    """A file that cannot be read, for people in `lang` (the OS's own text is English only)."""
    import errno

    source = shown_file(str(exc.filename)) if exc.filename is not None else ""
    if isinstance(exc, FileNotFoundError):
        return say("audit.no_such_file", lang, source=source)
    if isinstance(exc, PermissionError):
        return say("cli.no_permission", lang, source=source)
    code = errno.errorcode.get(exc.errno or 0, str(exc.errno))
    return say("cli.unreadable", lang, source=source, error=code)


def os_words(exc: OSError, lang: Lang) -> str:
    """`os_error`'s words without the file (named beside them, as verify's JSON does): never
    the OS's own text ("[Errno 21] Is a directory: '/tmp'")."""
    import errno

    if isinstance(exc, FileNotFoundError):
        return say("cli.os.no_such_file", lang)
    if isinstance(exc, PermissionError):
        return say("cli.os.no_permission", lang)
    return say("cli.os.unreadable", lang, error=errno.errorcode.get(exc.errno or 0, str(exc.errno)))


# A whole number as the API reads one (a JSON integer, D-27): ASCII digits, no leading zero,
# a minus only in front (then refused by the bounds where a negative means nothing); never
# what int() also takes: "١" (Arabic-Indic), " 3", "1_0", "+3", "007".
_WHOLE = re.compile(r"-?(?:0|[1-9][0-9]*)")


def whole(lang: Lang) -> Callable[[str], int]:
    """An argparse type: a whole number written as the API takes it (`_WHOLE`); anything else
    is refused by argparse (exit 2) in `lang`, in one line."""

    def parse(text: str) -> int:
        if _WHOLE.fullmatch(text) is None:
            # quoted, so " 3" shows its space; repr escapes a control character
            said = repr(text[:40]) + ("…" if len(text) > 40 else "")
            raise argparse.ArgumentTypeError(say("cli.not_a_number", lang, text=said))
        return int(text)

    return parse


def bounded_int(
    lang: Lang, accept: Callable[[int], bool], key: str, **params: object
) -> Callable[[str], int]:
    """An argparse type: an integer `accept` takes; anything else is refused by argparse
    (exit 2) in `lang`: not a number, or the catalogue's `key` with `n` and `params`."""

    def parse(text: str) -> int:
        n = whole(lang)(text)
        if not accept(n):
            raise argparse.ArgumentTypeError(say(key, lang, n=n, **params))
        return n

    return parse


def command(lang: Lang) -> Callable[[str], str]:
    """An argparse type: a command line to run (shadow's --adjudicate-cmd), as the shell would
    split it; an empty one or one with an unclosed quotation is refused by argparse (exit 2),
    not by shlex's traceback when the first Divan is tried."""

    def parse(text: str) -> str:
        import shlex

        try:
            words = shlex.split(text)
        except ValueError:
            raise argparse.ArgumentTypeError(
                say("cli.command_quote", lang, text=shown(text, 200))
            ) from None
        if not words:
            raise argparse.ArgumentTypeError(say("cli.command_empty", lang))
        return text

    return parse


def divans(lang: Lang) -> Callable[[str], int]:
    """R-1.1: a season has Divans 1 … 16; anything else is refused by argparse (exit 2). The
    rule's module is read when a Divan is given, not when the parser is built."""

    def parse(text: str) -> int:
        from shared.domain.state import DIVANS

        return bounded_int(lang, lambda n: 1 <= n <= DIVANS, "cli.divans", last=DIVANS)(text)

    return parse


def seed(lang: Lang) -> Callable[[str], int]:
    """R-1.5: a seed is 0 … 2^63 − 1 (as `POST /seasons` takes it); argparse refuses the rest."""
    return bounded_int(lang, lambda n: 0 <= n < 2**63, "cli.seed")


def port(lang: Lang) -> Callable[[str], int]:
    """A TCP port to listen on, 1 … 65535: argparse refuses the rest (exit 2) before `up` or
    `serve` starts anything."""
    return bounded_int(lang, lambda n: 1 <= n <= 65535, "cli.port")


def processes(lang: Lang) -> Callable[[str], int]:
    """How many worker processes: at least 1."""
    return bounded_int(lang, lambda n: n >= 1, "cli.processes")


def threads(lang: Lang) -> Callable[[str], int]:
    """How many threads a worker process runs: 0 (the worker's default) or more."""
    return bounded_int(lang, lambda n: n >= 0, "cli.threads")


def language_of(argv: Sequence[str]) -> Lang:
    """The --lang given anywhere in argv (read first, so argparse's own refusals use it)."""
    from shared.domain.messages import language

    for i, arg in enumerate(argv):
        if arg == "--lang" and i + 1 < len(argv):
            return language(argv[i + 1])
        if arg.startswith("--lang="):
            return language(arg.partition("=")[2])
    return language(None)


LANG_HELP = "language of the lines for people: tr (default) or en"


def later(module: str, name: str) -> Callable[[argparse.Namespace], int]:
    """A verb's function, imported only when that verb runs: every start builds the parser of
    every verb, and one verb (or `--help`) need not load another's modules (issue 27)."""

    def run(args: argparse.Namespace) -> int:
        import importlib

        return int(getattr(importlib.import_module(module), name)(args))

    run.__qualname__ = run.__name__ = name
    return run


def _t(key: str, lang: Any, **params: object) -> str:
    """A line for people in `lang`, from the catalogue (shared.domain.messages)."""
    return say(key, lang, **params)


DSN_HELP = "PostgreSQL DSN (default: SEKSENBIR_PG_DSN)"


def possible_season(season_id: str, verb: str, lang: Any = "tr") -> str:
    """The season id, if a season can have it (shared.eventstore.model.possible_season_id);
    else one line and SystemExit 2 before the database is asked (issue 20: a NUL, or an
    invalid UTF-8 byte of the command line, reached asyncpg and ended in a traceback)."""
    from shared.eventstore.model import MAX_SEASON_ID, possible_season_id

    if not possible_season_id(season_id):
        # repr: the id as escapes, never a control character or a lone surrogate on a terminal
        text = _t("audit.impossible_season", lang, season=ascii(season_id), most=MAX_SEASON_ID)
        print(f"seksenbir {verb}: {text}", file=sys.stderr)
        raise SystemExit(2)
    return season_id


def shown(name: str | None, most: int = 100) -> str | None:
    """A name read from a file (a season id, an event type) or a file's own name, as a line for
    people shows it: as
    it is when it is short and printable, else quoted with its escapes and cut, so a file's
    control or bidi characters (U+202E) cannot rewrite the line around them on a terminal."""
    import unicodedata

    if name is None:
        return None
    plain = len(name) <= most and all(
        unicodedata.category(c)[0] not in "CZ" or c == " " for c in name
    )
    if plain:
        return name
    quoted = repr(name)  # repr escapes what is not printable (U+202E as \u202e), keeps ş
    return quoted if len(quoted) <= most + 2 else quoted[: most + 2] + "…"


def shown_file(path: str) -> str:
    """A file's name in a line for people: as `shown`, cut past 200 characters (a deep path of
    ordinary names stays whole; a name with a control or bidi character is quoted)."""
    return shown(path, 200) or ""
