"""Settings are the only reader of the environment, and docs/configuration.md lists every knob.

Issue 10: environment variables were read in the resolver's actors, the projections' actors,
the stack launcher, the scheduler and logging, and some Settings fields had no variable at all.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import msgspec
import pytest
import yaml

from entrypoints.cli import parser
from shared.settings import VARIABLES, Settings, given

ROOT = Path(__file__).resolve().parents[2]
TABLE_ROW = re.compile(r"^\| `([A-Za-z0-9_]+)`(?:, `([A-Za-z0-9_]+)`)? \|", re.MULTILINE)

# The only modules besides shared/settings.py that may read the environment, and why
# (docs/configuration.md, "Read by others, not by Settings").
EXCEPTIONS = {
    # test-only fault injection, read at each fault point so a test can arm one in a subprocess
    "shared/faults.py",
    # `python -m shared.eventstore.migrate DSN`: the event store's own entry point, below Settings
    # in the layers (Settings imports shared.app); `seksenbir migrate` is the supported one
    "shared/eventstore/migrate.py",
    # ADR-60's guard: decides at `import shared`, before any domain module and before Settings
    # (which imports shared.app, and with it the domain) can exist
    "shared/compiled.py",
}
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
    "log_format": "console",
    "log_level": "DEBUG",
}


@pytest.mark.parametrize("field", sorted(VARIABLES))
def test_each_variable_sets_its_field(field: str) -> None:
    """Every variable really reaches its field (not only a row in a table)."""
    default = getattr(Settings(), field)
    for variable in VARIABLES[field]:
        value = ODD.get(field)
        if value is None:
            value = "0123abc" if field.endswith("_hashes") else str(default * 2 + 1)
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


def _environment_reads(path: Path) -> list[str]:
    """Each `os.environ`, `os.getenv`, `getenv` or `environ` use in a module, as file:line."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        name = None
        if isinstance(node, ast.Attribute) and node.attr in ("environ", "getenv", "environb"):
            name = node.attr
        elif isinstance(node, ast.Name) and node.id in ("environ", "getenv"):
            name = node.id
        elif (
            isinstance(node, ast.ImportFrom)
            and node.module == "os"
            and {a.name for a in node.names} & {"environ", "getenv", "environb"}
        ):
            name = "from os import"
        if name is not None:
            found.append(f"{path.relative_to(ROOT)}:{getattr(node, 'lineno', 0)} {name}")
    return found


def test_no_module_but_settings_reads_the_environment() -> None:
    reads = []
    for package in ("shared", "services", "entrypoints"):
        for path in sorted((ROOT / package).rglob("*.py")):
            relative = str(path.relative_to(ROOT))
            if relative == "shared/settings.py" or relative in EXCEPTIONS:
                continue
            reads += _environment_reads(path)
    assert reads == [], "read the environment through shared.settings instead"


def test_the_exceptions_still_read_the_environment() -> None:
    """An exception that no longer needs its place on the list comes off it."""
    for relative in sorted(EXCEPTIONS):
        assert _environment_reads(ROOT / relative), relative


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
