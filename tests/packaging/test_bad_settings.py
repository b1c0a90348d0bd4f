"""A bad setting stops a process with one line, not a traceback (ADR-172).

Before: `SEKSENBIR_POOL_MAX=ten seksenbir up` (or serve, worker, every verb that reads Settings)
ended in a Python traceback, a Redis URL with a port that is not a number crashed the workers
after `up` had started them, `SEKSENBIR_LOG_LEVEL=verbose` an AttributeError, a negative count
was taken, and `SEKSENBIR_DEBUG=true` silently meant off. Now every process says one line naming
the variable, its value (never a password or a token) and what it accepts, in Turkish or with
`--lang en` in English, and exits 2 before anything starts. Checked in real processes.
"""

from __future__ import annotations

import math
import os
import subprocess
import sys

import msgspec
import pytest

from entrypoints.cli_args import say, setting_refusal
from shared.setting_checks import ACCEPTED, BOUNDS, SettingError
from shared.settings import VARIABLES, Settings

# Nothing listens on port 1: were a setting let through, the process would stop on its first
# connection instead of reaching a shared server.
NOWHERE = {
    "SEKSENBIR_PG_DSN": "postgresql://nobody@127.0.0.1:1/nothing",
    "SEKSENBIR_REDIS_URL": "redis://127.0.0.1:1/0",
}
SECRET = "s3cretpw"


def _run(argv: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    given = {k: v for k, v in os.environ.items() if not k.startswith("SEKSENBIR_")}
    return subprocess.run(
        [sys.executable, *argv],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
        env={**given, **NOWHERE, **env},
    )


def _one_line(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert done.stdout == "", done.stdout  # nothing started, nothing said of it
    return lines[0]


SEKSENBIR = ["-m", "entrypoints.cli"]


@pytest.mark.parametrize(
    ("verb", "env", "line"),
    [
        (
            ["up", "--port", "18557"],
            {"SEKSENBIR_POOL_MAX": "ten"},
            "seksenbir up: SEKSENBIR_POOL_MAX='ten' kabul edilmiyor: 1 ya da daha büyük bir tam"
            " sayı verin",
        ),
        (
            ["up", "--port", "18557", "--lang", "en"],
            {"SEKSENBIR_REDIS_URL": f"redis://u:{SECRET}@h:port/0"},
            "seksenbir up: SEKSENBIR_REDIS_URL='redis://u:***@h:port/0' is not accepted: give a"
            " URL of the form redis[s]://host:port/N | unix:///path?db=N",
        ),
        (
            ["--lang", "en", "serve", "--port", "18557"],
            {"SEKSENBIR_DEBUG": "ture"},
            "seksenbir serve: SEKSENBIR_DEBUG='ture' is not accepted: give 1, true, yes, on to"
            " turn it on, 0, false, no, off to turn it off (any case)",
        ),
        (
            ["worker", "resolver"],
            {"SEKSENBIR_RESOLVER_THREADS": "-2"},
            "seksenbir worker: SEKSENBIR_RESOLVER_THREADS='-2' kabul edilmiyor: 1 ya da daha"
            " büyük bir tam sayı verin",
        ),
        (
            ["scheduler", "--lang", "en"],
            {"SEKSENBIR_LOG_LEVEL": "verbose"},
            "seksenbir scheduler: SEKSENBIR_LOG_LEVEL='verbose' is not accepted: give DEBUG,"
            " INFO, WARNING, ERROR or CRITICAL",
        ),
        (
            ["migrate"],
            {"SEKSENBIR_PG_DSN": f"mysql://root:{SECRET}@db/x"},
            "seksenbir migrate: SEKSENBIR_PG_DSN='mysql://root:***@db/x' kabul edilmiyor:"
            " postgresql://user:password@host:port/db biçiminde bir URL verin",
        ),
        (
            ["deadletters", "list", "--lang", "en"],
            {"SEKSENBIR_OPS_TOKEN_SHA256": SECRET},
            "seksenbir deadletters: SEKSENBIR_OPS_TOKEN_SHA256=*** is not accepted: give SHA-256"
            " hex digests (64 characters each), separated by commas",
        ),
        (
            ["verify", "0123456789abcdef0123456789abcdef", "--lang", "en"],
            {"SEKSENBIR_COMPILED": "ture"},  # ADR-180: read before Settings, refused by it
            "seksenbir verify: SEKSENBIR_COMPILED='ture' is not accepted: give 1, true, yes, on"
            " to turn it on, 0, false, no, off to turn it off (any case)",
        ),
        (
            ["verify", "0123456789abcdef0123456789abcdef", "--lang", "en"],
            {"SEKSENBIR_NOTIFY_NICE": "25"},
            "seksenbir verify: SEKSENBIR_NOTIFY_NICE='25' is not accepted: give a whole number"
            " from 0 to 19",
        ),
    ],
    ids=lambda v: v[0] if isinstance(v, list) else None,
)
def test_a_bad_setting_is_one_line_and_exit_2(
    verb: list[str], env: dict[str, str], line: str
) -> None:
    said = _one_line(_run([*SEKSENBIR, *verb], env))
    assert said == line
    assert SECRET not in said


@pytest.mark.parametrize(
    ("argv", "program"),
    [
        (
            ["-m", "uvicorn", "--factory", "entrypoints.gateway:app_from_env", "--port", "18558"],
            "entrypoints.gateway:app_from_env",
        ),
        (
            ["-m", "entrypoints.dramatiq_main", "entrypoints.resolver_worker"],
            "entrypoints.dramatiq_main",
        ),
    ],
    ids=["uvicorn-factory", "dramatiq-main"],
)
def test_a_process_started_without_the_cli_says_the_same_line(
    argv: list[str], program: str
) -> None:
    """uvicorn's factory and Dramatiq's command line have no language switch: Turkish."""
    said = _one_line(_run(argv, {"SEKSENBIR_STREAMS_PER_PROCESS": "0"}))
    assert said == (
        f"{program}: SEKSENBIR_STREAMS_PER_PROCESS='0' kabul edilmiyor: 1 ya da daha büyük bir"
        " tam sayı verin"
    )


FLAGS = [f.name for f in msgspec.structs.fields(Settings) if isinstance(f.default, bool)]


@pytest.mark.parametrize("field", FLAGS)
def test_every_flag_takes_the_usual_spellings_and_refuses_the_rest(field: str) -> None:
    """ADR-172: 1/true/yes/on and 0/false/no/off in any case; unset or empty is off."""
    (variable,) = VARIABLES[field]
    assert FLAGS == ["read_redis_cluster", "debug"]  # a new flag is read this way too
    for on in ("1", "true", "TRUE", "Yes", "on", " On "):
        assert getattr(Settings.from_env({variable: on}), field) is True, on
    for off in ("", "0", "false", "False", "no", "OFF"):
        assert getattr(Settings.from_env({variable: off}), field) is False, off
    assert getattr(Settings.from_env({}), field) is False
    for bad in ("2", "ture", "enabled", "y", "-1"):
        with pytest.raises(SettingError) as refused:
            Settings.from_env({variable: bad})
        assert (refused.value.variable, refused.value.kind) == (variable, "flag")


NUMBERS = [
    f.name
    for f in msgspec.structs.fields(Settings)
    if isinstance(f.default, int | float) and not isinstance(f.default, bool)
]


@pytest.mark.parametrize("field", NUMBERS)
def test_every_numeric_setting_has_bounds_and_refuses_what_is_outside(field: str) -> None:
    """A count below what it accepts (a negative above all), a number that is not finite, or
    text: refused naming the variable, as `__post_init__` refuses a Settings built in code."""
    assert field in BOUNDS, "a numeric setting says what it accepts"
    (variable,) = VARIABLES[field]
    kind, low, high = BOUNDS[field]
    below = str(low if kind == "number_above" else low - 1)
    above = [] if high is None else [str(high + 1)]
    odd = (
        ["ten", "1e400", "nan", "inf"]
        if isinstance(getattr(Settings(), field), float)
        else ["ten", "2.5"]
    )
    for bad in [below, *above, *odd]:
        with pytest.raises(SettingError) as refused:
            Settings.from_env({variable: bad})
        assert refused.value.variable == variable, bad
        assert refused.value.value == repr(bad), bad
    for good in (str(low + 1), str(high or low + 1)):  # within: taken (and finite)
        if field != "resolve_time_limit_ms":  # above the statement timeout (10000) too
            assert math.isfinite(getattr(Settings.from_env({variable: good}), field))


def test_the_catalogue_says_in_english_what_the_error_says() -> None:
    """The command line's English line is the exception's own message (one text, two places)."""
    params = {
        "low": 1,
        "high": 19,
        "other": "SEKSENBIR_X",
        "limit": 5,
        "form": "f://",
        "item": "'x'",
        "on": "1, true",
        "off": "0, false",
    }
    for kind in ACCEPTED:
        exc = SettingError("SEKSENBIR_X", "v", kind, **params)
        assert setting_refusal(exc, "en") == str(exc), kind
        assert setting_refusal(exc, "tr") == say(
            f"setting.{kind}", "tr", variable="SEKSENBIR_X", value="'v'", **params
        )


@pytest.mark.parametrize(
    ("variable", "value", "shown"),
    [
        ("SEKSENBIR_PG_DSN", f"postgresql://u:{SECRET}@h:5432/d?sslmode=x&x=1:", "no"),
        (
            "SEKSENBIR_PG_DSN",
            f"postgresq://u@h:5432/d?password={SECRET}&port=x",
            "'postgresq://u@h:5432/d?password=***&port=x'",
        ),
        ("SEKSENBIR_PG_DSN", f"postgre:/u:{SECRET}@h/d", "'postgre:***@h/d'"),
        (
            "SEKSENBIR_BROKER_URL",
            f"amqp://guest:{SECRET}@rabbit:x/vh",
            "'amqp://guest:***@rabbit:x/vh'",
        ),
        (
            "SEKSENBIR_READ_REDIS_URL",
            f"redis://:{SECRET}@r:6379/zero",
            "'redis://:***@r:6379/zero'",
        ),
        ("SEKSENBIR_AUDITOR_TOKEN_SHA256", f"{'a' * 64},{SECRET}", "***"),
    ],
)
def test_a_refused_url_or_secret_never_shows_the_password(
    variable: str, value: str, shown: str
) -> None:
    """A DSN or URL names its password (redacted as rabbit_broker.redacted writes it); a token's
    digest is not shown at all. A DSN of a good shape passes (its query is asyncpg's)."""
    if shown == "no":
        assert Settings.from_env({variable: value}).pg_dsn == value
        return
    with pytest.raises(SettingError) as refused:
        Settings.from_env({variable: value})
    assert refused.value.value == shown
    assert SECRET not in str(refused.value)


@pytest.mark.parametrize("variable", ["SEKSENBIR_NOTIFY_KEY", "SEKSENBIR_VAPID_PRIVATE_KEY"])
def test_a_key_is_32_bytes_of_base64url_or_refused_unshown(variable: str) -> None:
    """A key that is not one was refused only where the API or the notify worker decoded it,
    after `up` had started them; now at start, its value never shown."""
    from shared.app.messaging.notify_store import Sealer
    from shared.app.messaging.webpush import VapidKeys

    good = VapidKeys.generate().private_key
    Sealer(good)  # a VAPID key's shape is the notify key's: 32 bytes
    assert Settings.from_env({variable: good}) != Settings()
    for bad in (good[:-2], good + "AA", "k", good[:-1] + "+", f"{SECRET}!"):
        with pytest.raises(SettingError) as refused:
            Settings.from_env({variable: bad})
        assert refused.value.value == "***"
        assert (SECRET not in str(refused.value)) and (good[:10] not in str(refused.value))


def test_a_digest_is_taken_in_any_case() -> None:
    """An upper-case digest matched no token before (they are compared as lower-case hex)."""
    digest = "0123ABCD" * 8
    settings = Settings.from_env({"SEKSENBIR_OPS_TOKEN_SHA256": f"{digest}, "})
    assert settings.ops_token_hashes == (digest.lower(),)
