"""deploy/Dockerfile and compose.yaml against the code, statically (issue 28; no Docker engine
here, so the image itself is never built by the tests): the compiled build stage (ADR-96),
every variable, copied path, port and host, and RabbitMQ as compose's broker (ADR-95).
tests/packaging/test_deploy.py checks compose's commands and the web stage."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import yaml

from shared import compiled
from shared.app.messaging.rabbit_broker import is_amqp, vhost_of
from shared.settings import VARIABLES, Settings

ROOT = Path(__file__).resolve().parents[2]
DOCKERFILE = ROOT / "deploy" / "Dockerfile"
SETTINGS_VARIABLES = {v for names in VARIABLES.values() for v in names}
# read outside Settings: the compiled guard (shared/compiled.py) runs before any setting is read
GUARD_VARIABLES = {compiled.ENABLE, compiled.DIRECTORY}


def stages() -> dict[str, list[str]]:
    """Each stage's instructions (continuation lines joined, comments dropped) by its name;
    the final, unnamed stage is "final"."""
    text = re.sub(r"\\\n\s*", " ", DOCKERFILE.read_text())
    lines = [ln.strip() for ln in text.splitlines() if ln.strip() and not ln.startswith("#")]
    out: dict[str, list[str]] = {}
    current: list[str] = []
    for line in lines:
        if line.upper().startswith("FROM "):
            m = re.match(r"FROM (\S+)(?: AS (\S+))?$", line, re.IGNORECASE)
            assert m, line
            current = out.setdefault(m.group(2) or "final", [])
        current.append(line)
    return out


def env_of(stage: list[str]) -> dict[str, str]:
    pairs: dict[str, str] = {}
    for line in stage:
        if line.upper().startswith("ENV "):
            pairs |= dict(re.findall(r"(\S+?)=(\S+)", line[4:]))
    return pairs


def compose() -> dict[str, Any]:
    loaded = yaml.safe_load((ROOT / "deploy" / "compose.yaml").read_text())
    assert isinstance(loaded, dict)
    return loaded


def interpolated(value: object) -> str:
    """compose's ${VAR:-default} with nothing set: the default."""
    return re.sub(r"\$\{[A-Z0-9_]+:-([^}]*)\}", r"\1", str(value))


def test_every_variable_the_image_sets_is_read_by_the_code() -> None:
    for name, stage in stages().items():
        unknown = set(env_of(stage)) - SETTINGS_VARIABLES - GUARD_VARIABLES
        assert unknown == set(), f"stage {name} sets variables nothing reads: {sorted(unknown)}"


def test_adr_96_the_image_builds_the_compiled_path_and_turns_it_on() -> None:
    """`make compile` in a stage on the final stage's Python, its build/compiled copied to
    the directory SEKSENBIR_COMPILED_DIR names, and SEKSENBIR_COMPILED=1 by default."""
    all_stages = stages()
    build, final = all_stages["compiled"], all_stages["final"]
    assert build[0].split()[1] == final[0].split()[1], "the build's Python is the final one's"
    assert "RUN make compile" in build
    makefile = (ROOT / "Makefile").read_text()
    assert re.search(r"(?m)^compile: ", makefile)
    assert "shared.compiled" in makefile.split("\ncompile:", 1)[1].split("\n\n", 1)[0]
    env = env_of(final)
    assert env[compiled.ENABLE] == "1"
    copies = [ln for ln in final if ln.startswith("COPY --from=compiled ")]
    assert copies == ["COPY --from=compiled /src/build/compiled ./build/compiled"]
    workdir = next(ln.split()[1] for ln in final if ln.startswith("WORKDIR "))
    assert env[compiled.DIRECTORY] == f"{workdir}/build/compiled"
    assert next(ln.split()[1] for ln in build if ln.startswith("WORKDIR ")) == "/src"


def test_every_path_the_image_copies_exists() -> None:
    for name, stage in stages().items():
        for line in stage:
            if line.startswith("COPY ") and not line.startswith("COPY --from"):
                for source in line.split()[1:-1]:
                    assert (ROOT / source).exists() or (ROOT / "web" / source).exists(), (
                        name,
                        source,
                    )


def test_the_entrypoint_is_the_projects_console_script() -> None:
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    entry = next(ln for ln in stages()["final"] if ln.startswith("ENTRYPOINT"))
    assert entry == 'ENTRYPOINT ["seksenbir"]' and "seksenbir" in scripts


def test_the_exposed_port_is_the_one_the_api_serves_publishes_and_checks() -> None:
    exposed = {ln.split()[1] for ln in stages()["final"] if ln.startswith("EXPOSE ")}
    api = compose()["services"]["api"]
    command = api["command"]
    port = command[command.index("--port") + 1]
    assert exposed == {port}
    assert [p.split(":")[-1] for p in api["ports"]] == [port]
    assert f"127.0.0.1:{port}/ready" in " ".join(api["healthcheck"]["test"])


def app_environments() -> dict[str, dict[str, str]]:
    services = compose()["services"]
    return {
        name: {k: interpolated(v) for k, v in svc.get("environment", {}).items()}
        for name, svc in services.items()
        if svc.get("build", {}).get("dockerfile") == "deploy/Dockerfile"
    }


def test_every_server_an_app_names_is_a_compose_service_it_waits_for() -> None:
    services = compose()["services"]
    for name, env in app_environments().items():
        waits = set(services[name].get("depends_on", {}))
        for variable in ("SEKSENBIR_PG_DSN", "SEKSENBIR_BROKER_URL", "SEKSENBIR_READ_REDIS_URL"):
            if variable in env:
                host = urlsplit(env[variable]).hostname
                assert host in services, (name, variable, host)
                assert host in waits, (name, f"does not wait for {host}")
                assert "test" in services[host]["healthcheck"], host


def test_adr_95_compose_runs_the_workers_on_rabbitmq_in_its_own_vhost() -> None:
    rabbit = compose()["services"]["rabbitmq"]
    for name, env in app_environments().items():
        if name == "migrate":
            continue
        settings = Settings.from_env(env)
        assert is_amqp(settings.broker_redis), name
        url = urlsplit(settings.broker_redis)
        assert url.port == 5672, name
        assert vhost_of(settings.broker_redis) == rabbit["environment"]["RABBITMQ_DEFAULT_VHOST"]
        assert url.username == rabbit["environment"]["RABBITMQ_DEFAULT_USER"]
        assert url.password == rabbit["environment"]["RABBITMQ_DEFAULT_PASS"]
    assert "/var/lib/rabbitmq" in " ".join(rabbit["volumes"])  # durable queues survive
    assert rabbit.get("hostname"), "a fixed node name, or a restart finds no data directory"
