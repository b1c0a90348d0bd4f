"""deploy/: the compose file and the Dockerfile, checked statically (no Docker engine runs here;
issue 14, "Deployment"). Each check would fail if the file drifted from the code."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from entrypoints.cli import parser
from shared.settings import VARIABLES, Settings

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"
SETTINGS_VARIABLES = {v for names in VARIABLES.values() for v in names}
THIRD_PARTY = {"dramatiq_worker_timeout"}  # read by Dramatiq itself (docs/configuration.md)


def compose() -> dict[str, Any]:
    loaded = yaml.safe_load((DEPLOY / "compose.yaml").read_text())
    assert isinstance(loaded, dict)
    return loaded


def app_services() -> dict[str, dict[str, Any]]:
    """The services that run the project's image (built from deploy/Dockerfile)."""
    return {
        name: svc
        for name, svc in compose()["services"].items()
        if svc.get("build", {}).get("dockerfile") == "deploy/Dockerfile"
    }


def test_the_compose_file_runs_every_process_of_the_stack() -> None:
    """Every role of `seksenbir up`, the notifications worker included (issue 25)."""
    assert set(app_services()) == {
        "migrate",
        "api",
        "resolver",
        "projections",
        "notify",
        "scheduler",
    }


@pytest.mark.parametrize("name", sorted(app_services()))
def test_every_compose_command_is_a_real_seksenbir_subcommand(name: str) -> None:
    command = app_services()[name]["command"]
    args = parser().parse_args(command)  # argparse exits (SystemExit) on anything unknown
    assert args.command == command[0]


@pytest.mark.parametrize("name", sorted(app_services()))
def test_every_variable_compose_sets_is_one_the_settings_read(name: str) -> None:
    env = app_services()[name].get("environment", {})
    unknown = {k for k in env if k not in SETTINGS_VARIABLES | THIRD_PARTY}
    assert unknown == set(), f"{name} sets variables nothing reads: {sorted(unknown)}"


def test_the_broker_and_the_read_models_are_apart_in_compose() -> None:
    for name, svc in app_services().items():
        # compose's ${VAR:-default} interpolation, with nothing set: the default
        env = {
            k: re.sub(r"\$\{[A-Z0-9_]+:-([^}]*)\}", r"\1", str(v))
            for k, v in svc.get("environment", {}).items()
        }
        if name == "migrate":
            continue
        settings = Settings.from_env(env)
        assert settings.broker_redis != settings.read_redis, name


def test_every_server_the_stack_waits_on_has_a_health_check() -> None:
    services = compose()["services"]
    for name in ("postgres", "redis", "api"):
        assert "test" in services[name].get("healthcheck", {}), name
    assert "/ready" in " ".join(services["api"]["healthcheck"]["test"])


def test_the_broker_redis_keeps_its_queues() -> None:
    """RELIABILITY 15: append-only persistence, and never an eviction."""
    command = " ".join(compose()["services"]["redis"]["command"])
    assert "--appendonly yes" in command and "--maxmemory-policy noeviction" in command


def test_postgres_acknowledges_only_durable_commits() -> None:
    """RELIABILITY 8: fsync and synchronous_commit on."""
    command = " ".join(compose()["services"]["postgres"]["command"])
    assert "fsync=on" in command and "synchronous_commit=on" in command


def test_the_image_runs_as_an_unprivileged_user() -> None:
    lines = [
        line.strip()
        for line in (DEPLOY / "Dockerfile").read_text().splitlines()
        if line.strip() and not line.strip().startswith("#")
    ]
    last_from = max(i for i, line in enumerate(lines) if line.upper().startswith("FROM "))
    users = [line.split()[1] for line in lines[last_from:] if line.upper().startswith("USER ")]
    assert users, "no USER after the last FROM: the processes run as root"
    assert users[-1] not in {"root", "0", "0:0"}
    entry = next(line for line in lines if line.upper().startswith("ENTRYPOINT"))
    assert re.search(r'\["seksenbir"\]', entry), entry


def test_the_image_builds_the_browser_client_and_serves_it() -> None:
    """Issue 22, ADR-78: a Node stage builds web/ from its lock (npm ci, npm run build) with
    every input the build reads, and the final image takes only its dist/ and points the
    gateway at it (SEKSENBIR_WEB_DIR)."""
    text = (DEPLOY / "Dockerfile").read_text()
    stages = re.split(r"(?m)^FROM ", text)[1:]
    web = next(s for s in stages if re.match(r"node:\d+\S* AS web\b", s))
    assert int(re.match(r"node:(\d+)", web).group(1)) >= 20  # type: ignore[union-attr]
    assert "npm ci" in web and "npm run build" in web
    copied = set(re.findall(r"(?m)^COPY (?!--from)(.+) \S+$", web))
    sources = {p for line in copied for p in line.split()}
    root = DEPLOY.parent
    for needed in (
        "web/package.json",
        "web/package-lock.json",
        "web/index.html",
        "web/vite.config.ts",
        "web/tsconfig.json",
        "web/tsconfig.test.json",
        "web/scripts",
        "web/pwa",
        "web/data",
        "web/public",
        "web/src",
        "web/tests/unit",
    ):
        assert needed in sources, needed
        assert (root / needed).exists(), needed
    final = stages[-1]
    assert "COPY --from=web /web/dist ./web/dist" in final
    assert "SEKSENBIR_WEB_DIR=/app/web/dist" in final
    assert re.search(r"(?m)^WORKDIR /app$", final)


def test_every_long_running_process_is_restarted_by_compose() -> None:
    """Issue 20, item 2: a standalone `seksenbir worker` exits when one of its Dramatiq worker
    processes dies (as do the others on a fatal error); compose starts it again
    (docs/operations.md). Only the one-shot migration is not restarted."""
    restart = {name: svc.get("restart") for name, svc in app_services().items()}
    assert restart == {
        "migrate": "no",
        "api": "unless-stopped",
        "resolver": "unless-stopped",
        "projections": "unless-stopped",
        "notify": "unless-stopped",
        "scheduler": "unless-stopped",
    }
