"""Release hygiene: the built wheel and sdist install and play, the version has one source.

The build test runs ``python -m build`` on this tree (the sdist first, then the wheel
built from that sdist, so a file the sdist forgot breaks the wheel too), installs the
wheel into a fresh venv with no index and no dependencies (the core has none), and runs
the README's quick-start check there, both as ``dicebound`` and as ``python -m dicebound``.
"""

from __future__ import annotations

import io
import re
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from importlib import metadata
from pathlib import Path

import pytest

import dicebound
from dicebound.app.version import dicebound_version
from dicebound.edge.cli import main
from repo_paths import REPO

ROOT = REPO
QUICK_START = ["check", "--ruleset", "dnd5e-srd", "--character", "mira"]
QUICK_TAG = '[skill_check: skill="Stealth" dc="15"]'


def test_the_version_is_written_once_and_everything_reads_it() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert "version" not in project, "the version lives in src/dicebound/__init__.py only"
    assert project["dynamic"] == ["version"]
    hatch = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["hatch"]
    assert hatch["version"]["path"] == "src/dicebound/__init__.py"
    assert re.fullmatch(r"\d+\.\d+\.\d+", dicebound.__version__)
    # The installed metadata (the editable install's) was read from the same line; a
    # bumped __version__ without a reinstall fails here, which is what it should do.
    assert metadata.version("dicebound") == dicebound.__version__
    assert dicebound_version() == dicebound.__version__


def test_health_and_the_openapi_document_report_the_same_version(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient

    from dicebound.edge.http.app import create_app
    from service_support import ADMIN_TOKEN

    monkeypatch.setenv("DICEBOUND_ADMIN_TOKEN", ADMIN_TOKEN)
    with TestClient(create_app(f"sqlite:///{tmp_path / 'v.db'}")) as client:
        assert client.get("/health").json()["version"] == dicebound.__version__
        assert client.get("/openapi.json").json()["info"]["version"] == dicebound.__version__


def test_the_changelog_names_the_current_version_and_keeps_an_unreleased_section() -> None:
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    headings = re.findall(r"^## \[([^\]]+)\]", text, flags=re.MULTILINE)
    assert headings[0] == "Unreleased"
    assert dicebound.__version__ in headings
    # Keep a Changelog: a released version carries its date, newest first.
    dated = re.findall(r"^## \[(\d[^\]]*)\] - (\d{4}-\d{2}-\d{2})$", text, flags=re.MULTILINE)
    assert [v for v, _ in dated] == headings[1:]
    assert [d for _, d in dated] == sorted((d for _, d in dated), reverse=True)


def test_python_dash_m_dicebound_is_the_command_line() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "dicebound", *QUICK_START, "--seed", "42", QUICK_TAG],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    out = io.StringIO()
    code = main([*QUICK_START, "--seed", "42", QUICK_TAG], out=out)
    assert (done.returncode, done.stdout) == (code, out.getvalue())
    assert code == 0 and 'result="success"' in done.stdout
    usage = subprocess.run(
        [sys.executable, "-m", "dicebound"], capture_output=True, text=True, check=False
    )
    assert usage.returncode == 2 and "usage: dicebound" in usage.stderr
    version = subprocess.run(
        [sys.executable, "-m", "dicebound", "--version"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert (version.returncode, version.stdout) == (0, f"dicebound {dicebound.__version__}\n")


@pytest.mark.release
def test_the_built_wheel_installs_into_a_fresh_venv_and_runs_the_quick_start(
    tmp_path: Path,
) -> None:
    pytest.importorskip("build", reason="the build package comes with the dev extra")
    dist = tmp_path / "dist"
    built = subprocess.run(
        [sys.executable, "-m", "build", "--outdir", str(dist), str(ROOT)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    version = dicebound.__version__
    wheel = dist / f"dicebound-{version}-py3-none-any.whl"
    sdist = dist / f"dicebound-{version}.tar.gz"
    assert wheel.is_file() and sdist.is_file(), sorted(p.name for p in dist.iterdir())

    with tarfile.open(sdist) as tar:
        names = set(tar.getnames())
    top = f"dicebound-{version}"
    for needed in ("pyproject.toml", "README.md", "CHANGELOG.md", "src/dicebound/__init__.py"):
        assert f"{top}/{needed}" in names, needed
    with zipfile.ZipFile(wheel) as zipped:
        inside = set(zipped.namelist())
        meta = zipped.read(f"dicebound-{version}.dist-info/METADATA").decode("utf-8")
    assert "dicebound/data/rulesets/dnd5e-srd.json" in inside
    assert "dicebound/data/characters/dnd5e-srd/mira.json" in inside
    assert "dicebound/py.typed" in inside
    assert f"\nVersion: {version}\n" in meta
    # The core needs nothing: every dependency the wheel declares is behind an extra.
    requires = [line for line in meta.splitlines() if line.startswith("Requires-Dist:")]
    assert requires and all("extra ==" in line for line in requires), requires

    venv = tmp_path / "fresh"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(python),
            "install",
            "--quiet",
            "--no-deps",
            "--no-index",
            str(wheel),
        ],
        check=True,
        timeout=120,
    )
    for command in ([str(venv / "bin" / "dicebound")], [str(python), "-m", "dicebound"]):
        ran = subprocess.run(
            [*command, *QUICK_START, QUICK_TAG],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
            cwd=tmp_path,
        )
        assert ran.returncode == 0, ran.stderr
        assert ran.stdout.startswith('[skill_check: skill="Stealth" dc="15" rolls="')
        assert "Stealth check — Mira Quickfoot" in ran.stdout
        shown = subprocess.run([*command, "--version"], capture_output=True, text=True, check=False)
        assert shown.stdout == f"dicebound {dicebound.__version__}\n"
    installed = subprocess.run(
        [
            str(python),
            "-c",
            "import dicebound, importlib.metadata as m; "
            "print(dicebound.__version__, m.version('dicebound'), dicebound.__file__)",
        ],
        capture_output=True,
        text=True,
        check=True,
        cwd=tmp_path,
    )
    got_version, got_meta, where = installed.stdout.split()
    assert got_version == got_meta == version
    assert Path(where).is_relative_to(venv), "the fresh venv ran its own copy, not this tree"
