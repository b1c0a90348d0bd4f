"""Settings are the only reader of the environment (tests/packaging/test_module_guards.py holds
it), and docs/configuration.md lists every knob.

Issue 10: environment variables were read in the resolver's actors, the projections' actors,
the stack launcher, the scheduler and logging, and some Settings fields had no variable at all.
"""

from __future__ import annotations

import re
from pathlib import Path

import msgspec
import pytest
import yaml

from entrypoints.cli import parser
from shared.settings import VARIABLES, Settings, given

ROOT = Path(__file__).resolve().parents[2]
TABLE_ROW = re.compile(r"^\| `([A-Za-z0-9_]+)`(?:, `([A-Za-z0-9_]+)`)? \|", re.MULTILINE)

# Read at `import shared` by shared/compiled.py, so not Settings fields (ADR-60).
BEFORE_SETTINGS = {"SEKSENBIR_COMPILED", "SEKSENBIR_COMPILED_DIR"}
# Variables the deployment may set that Settings does not hold: Dramatiq reads them itself.
THIRD_PARTY = {"dramatiq_worker_timeout", "dramatiq_prom_host", "dramatiq_prom_port"}


def documented() -> set[str]:
    text = (ROOT / "docs" / "configuration.md").read_text()
    return {name for row in TABLE_ROW.findall(text) for name in row if name}


def test_every_settings_field_has_a_variable_and_a_row_in_the_configuration_table() -> None:
    fields = {f.name for f in msgspec.structs.fields(Settings)}
    assert set(VARIABLES) == fields
    rows = documented()
    named = {v for names in VARIABLES.values() for v in names}
    assert named - rows == set(), "variables without a row in docs/configuration.md"
    settings_rows = {r for r in rows if r.startswith("SEKSENBIR_")}
    # every SEKSENBIR_* row is a Settings variable (the migrate module's DSN is SEKSENBIR_PG_DSN)
    assert settings_rows - named == BEFORE_SETTINGS, "rows for variables no Settings field reads"
    assert rows - named <= THIRD_PARTY | BEFORE_SETTINGS | {"FAULT_POINT", "dramatiq_prom_db"}


# A value unlike each field's default, as the environment would carry it.
ODD = {
    "pg_dsn": "postgresql://elsewhere/db",
    "redis_url": "redis://elsewhere:6379/3",
    "broker_url": "redis://queues:6379/0",
    "read_redis_url": "redis://reads:6379/2",
    "broker_namespace": "ns",
    "cors_origins": "https://a.example,https://b.example",
    "projection_prefix": "px",
    "trusted_proxies": "10.0.0.5",
    "debug": "1",
    "data_dir": "/tmp/somewhere",
    "web_dir": "/tmp/client",
    "outbound_allow": "127.0.0.1,hooks.internal",
    "vapid_private_key": "A" * 42 + "E",  # 32 bytes, base64url (ADR-172)
    "vapid_subject": "mailto:x@example.org",
    "notify_key": "B" * 42 + "E",
    "log_format": "console",
    "log_level": "DEBUG",
    "notify_nice": "19",  # a niceness is 0 … 19
}


@pytest.mark.parametrize("field", sorted(VARIABLES))
def test_each_variable_sets_its_field(field: str) -> None:
    """Every variable really reaches its field (not only a row in a table)."""
    default = getattr(Settings(), field)
    for variable in VARIABLES[field]:
        value = ODD.get(field)
        if value is None:
            # a digest (64 hex characters) in the _SHA256 variable, any token in the plain one
            value = "0123abcd" * 8 if field.endswith("_hashes") else str(default * 2 + 1)
        if field == "statement_timeout_ms":
            value = "20000"  # still below resolve_time_limit_ms
        env = {variable: value}
        assert getattr(Settings.from_env(env), field) != default, variable


@pytest.mark.parametrize(
    ("env", "broker", "read"),
    [
        ({}, "redis://127.0.0.1:6379/0", "redis://127.0.0.1:6379/1"),
        ({"SEKSENBIR_REDIS_URL": "redis://r:6379/4"}, "redis://r:6379/4", "redis://r:6379/5"),
        ({"SEKSENBIR_REDIS_URL": "redis://r:6379"}, "redis://r:6379", "redis://r:6379/1"),
        (
            {"SEKSENBIR_REDIS_URL": "unix:///s.sock?db=0"},
            "unix:///s.sock?db=0",
            "unix:///s.sock?db=1",
        ),
        (
            {"SEKSENBIR_REDIS_URL": "redis://r/0", "SEKSENBIR_READ_REDIS_URL": "redis://o/7"},
            "redis://r/0",
            "redis://o/7",
        ),
        ({"SEKSENBIR_BROKER_URL": "redis://q/3"}, "redis://q/3", "redis://127.0.0.1:6379/1"),
    ],
    ids=["defaults", "db-4", "no-db", "socket", "read-given", "broker-given"],
)
def test_issue_14_the_broker_and_the_read_models_default_to_different_databases(
    env: dict[str, str], broker: str, read: str
) -> None:
    settings = Settings.from_env(env)
    assert (settings.broker_redis, settings.read_redis) == (broker, read)
    assert settings.broker_redis != settings.read_redis


def test_given_names_only_the_seksenbir_variables_that_are_set() -> None:
    env = {"SEKSENBIR_PG_DSN": "postgresql://x/y", "SEKSENBIR_REDIS_URL": "", "HOME": "/root"}
    assert given(env) == {"SEKSENBIR_PG_DSN"}


def test_settings_keeps_tokens_as_the_tokens_module_does() -> None:
    """Settings hashes the ops and auditor tokens itself (it imports nothing of the layers):
    the same digest as shared.app.access.tokens.token_hash, or no ops token would ever match."""
    from shared.app.access.tokens import token_hash
    from shared.settings import token_digest

    for token in ("", "ops-token", "İl ş ğ", "x" * 200):
        assert token_digest(token) == token_hash(token)


# --- deploy/compose.yaml -----------------------------------------------------------------------


def _our_services() -> dict[str, dict[str, object]]:
    """The compose services that run the seksenbir image (merge keys resolved by PyYAML)."""
    compose = yaml.safe_load((ROOT / "deploy" / "compose.yaml").read_text())
    ours = {
        name: service
        for name, service in compose["services"].items()
        if isinstance(service.get("build"), dict)
        and service["build"].get("dockerfile") == "deploy/Dockerfile"
    }
    assert {"api", "resolver", "projections", "scheduler", "migrate"} <= set(ours)
    return ours


def test_every_compose_command_is_a_seksenbir_subcommand() -> None:
    """The image's entry point is `seksenbir`; each command must parse as its arguments."""
    dockerfile = (ROOT / "deploy" / "Dockerfile").read_text()
    assert 'ENTRYPOINT ["seksenbir"]' in dockerfile
    for name, service in _our_services().items():
        command = service.get("command")
        assert isinstance(command, list), f"{name}: a command list"
        try:
            parser().parse_args([str(arg) for arg in command])
        except SystemExit:
            pytest.fail(f"compose service {name}: `seksenbir {' '.join(command)}` does not parse")


def test_every_compose_variable_is_one_the_settings_read() -> None:
    named = {v for names in VARIABLES.values() for v in names}
    for name, service in _our_services().items():
        environment = service.get("environment") or {}
        assert isinstance(environment, dict), f"{name}: environment as a mapping"
        unknown = set(environment) - named - THIRD_PARTY
        assert unknown == set(), f"compose service {name} sets variables nothing reads"


# --- the table's defaults and a bad value (session 24) ----------------------------------------

DEFAULT_CELL = re.compile(r"^\| `(SEKSENBIR_[A-Z0-9_]+)` \| ([^|]*) \|", re.MULTILINE)


def test_each_documented_default_is_the_settings_default() -> None:
    """The "default" column says what a process runs with when the variable is unset: a
    literal (`10`, `json`) is the field's default, "empty" or "unset" an empty or off one."""
    text = (ROOT / "docs" / "configuration.md").read_text().split("## Read by others")[0]
    field_of = {v: f for f, names in VARIABLES.items() for v in names}
    unset = Settings.from_env({})
    checked = 0
    for variable, cell in DEFAULT_CELL.findall(text):
        value = getattr(unset, field_of[variable])
        literal = re.match(r"`([^`]*)`$", cell.strip())
        if literal and not literal.group(1).startswith("SEKSENBIR_"):
            said = literal.group(1)
            if isinstance(value, bool | str):
                assert said == str(value), (variable, said, value)
            else:
                assert float(said) == value, (variable, said, value)
            checked += 1
        elif cell.startswith(("empty", "unset")):
            assert not value or field_of[variable] == "read_redis_url", (variable, value)
            checked += 1
    assert checked >= 50


@pytest.mark.parametrize(
    ("variable", "value", "accepted"),
    [
        ("SEKSENBIR_POOL_MAX", "ten", "give a whole number, 1 or more"),
        ("SEKSENBIR_SWEEP_SECONDS", "2s", "give a number above 0"),
        ("SEKSENBIR_DATA", None, ""),
    ],
)
def test_a_value_that_is_not_a_number_stops_the_process_naming_its_variable(
    variable: str, value: str | None, accepted: str
) -> None:
    """docs/configuration.md: every process validates the whole Settings at start and a bad
    value stops it; the error names the variable to fix (it said only "invalid literal for
    int() with base 10: 'ten'") and what it accepts (ADR-172). A text variable takes any text."""
    if value is None:
        assert Settings.from_env({variable: "ten"}).data_dir == "ten"
        return
    with pytest.raises(ValueError, match=f"^{variable}='{value}' is not accepted: {accepted}$"):
        Settings.from_env({variable: value})
