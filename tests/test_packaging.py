"""The wheel (what `pip install .` and `pipx install .` build and install) ships the templates.

They live in the repository's top-level templates/, which pyproject.toml maps into the
package as memcli/templates/. These tests build a wheel from a copy of the sources, install
it (not editable) into a fresh virtual environment and render the shipped templates through
its `memcli` console script. The checkout itself is the editable case: every other test.
"""

from __future__ import annotations

import importlib.metadata
import os
import shutil
import site
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from conftest import NOW, REPO, SAMPLE, Invoke, copy_tree

TEMPLATES = REPO / "templates"
SOURCES = ("pyproject.toml", "README.md", "LICENSE", "memcli", "templates")  # what the build reads
# What pip says when it cannot get setuptools>=77 for an isolated build (no network, no cache).
OFFLINE = (
    "No matching distribution found",
    "Could not find a version that satisfies",
    "Failed to establish a new connection",
    "Temporary failure in name resolution",
    "Network is unreachable",
)


def has_setuptools(floor: int) -> bool:
    try:
        return int(importlib.metadata.version("setuptools").split(".")[0]) >= floor
    except (importlib.metadata.PackageNotFoundError, ValueError):
        return False


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A wheel built by pip from a copy of the sources (a build writes build/ and *.egg-info)."""
    tmp = tmp_path_factory.mktemp("wheel")
    src = tmp / "src"
    src.mkdir()
    for name in SOURCES:
        if (REPO / name).is_dir():
            shutil.copytree(REPO / name, src / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(REPO / name, src / name)
    argv = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(tmp / "dist"), str(src)]
    if has_setuptools(77):  # pyproject.toml's build requirement is here: no download
        argv.append("--no-build-isolation")
    env = {**os.environ, "PIP_DEFAULT_TIMEOUT": "15", "PIP_RETRIES": "1"}  # offline: fail fast
    done = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=120, check=False)
    if done.returncode != 0 and any(s in done.stdout + done.stderr for s in OFFLINE):
        pytest.skip("pip cannot build the wheel offline: setuptools>=77 neither installed nor downloadable")
    assert done.returncode == 0, done.stdout + done.stderr
    (built,) = (tmp / "dist").glob("memcli-*.whl")
    return built


@pytest.fixture(scope="module")
def venv(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh virtual environment with the wheel installed as pip installs it (no pip of its
    own, so it is made in a blink). memcli's dependencies come from this environment's
    site-packages, added after the venv's own by a .pth line, so `import memcli` finds the
    wheel, never the checkout (this environment's editable hook is a .pth it does not run)."""
    root = tmp_path_factory.mktemp("venv") / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root)], check=True, timeout=60)
    python = root / "bin" / "python"
    install = ["install", "--no-deps", "--no-index", "--quiet", str(wheel)]
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), *install], check=True, timeout=120)
    purelib = run(root, str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))").strip()
    (Path(purelib) / "memcli-test-dependencies.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    return root


def run(cwd: Path, *argv: str) -> str:
    """stdout of argv, run from cwd (never the checkout) with no PYTHONPATH."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "MEMCLI_", "OPENCLAW_"))}
    done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, (argv, done.stdout, done.stderr)
    return done.stdout


def test_the_wheel_holds_the_templates_and_every_module(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    templates = {f"memcli/templates/{p.name}" for p in TEMPLATES.iterdir() if p.is_file()}
    assert {"memcli/templates/weekly-digest.md.j2", "memcli/templates/README.md"} <= templates
    modules = {p.relative_to(REPO).as_posix() for p in (REPO / "memcli").rglob("*.py")}
    assert templates | modules | {"memcli/py.typed"} <= names
    assert [n for n in names if not n.startswith(("memcli/", "memcli-"))] == []  # no top-level templates/


def test_the_installed_wheel_finds_its_own_templates(venv: Path) -> None:
    code = "import memcli, memcli.workspace.templates as t; print(memcli.__file__); print(t.SHIPPED)"
    package, shipped = map(Path, run(venv, str(venv / "bin" / "python"), "-c", code).splitlines())
    assert package.is_relative_to(venv), package  # the wheel, not the checkout
    assert shipped == package.parent / "templates"
    assert sorted(p.name for p in shipped.iterdir()) == sorted(p.name for p in TEMPLATES.iterdir())


@pytest.mark.parametrize(
    "args",
    [("--period", "2026-W43"), ("--session", "agent:main:main")],
    ids=["weekly-digest", "session-summary"],
)
def test_the_installed_console_script_renders_the_shipped_templates(
    venv: Path, cli: Invoke, tmp_path: Path, args: tuple[str, ...]
) -> None:
    """`memcli summarize` of the installed wheel prints what the checkout prints."""
    command = ["--now", NOW, "summarize", *args, "--output", "-"]
    memcli = str(venv / "bin" / "memcli")
    installed = run(tmp_path, memcli, "-w", str(copy_tree(SAMPLE, tmp_path / "a")), *command)
    checkout = cli("-w", str(copy_tree(SAMPLE, tmp_path / "b")), *command)
    assert checkout.exit_code == 0, checkout.stderr
    assert installed == checkout.stdout
    assert "kind: " in installed and "\n# " in installed
