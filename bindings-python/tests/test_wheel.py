"""The package as users install it: ``maturin build --release --zig --compatibility
manylinux2014`` makes an abi3 wheel linked against glibc 2.17 (zig from the ``ziglang``
package is the linker), which installs into a fresh virtual environment on a machine with no
Rust toolchain (cargo off the PATH) and runs the example server and client and the ``oxmcp``
command; ``auditwheel show`` finds it manylinux_2_17-compliant; the source distribution
carries the workspace it builds from. These are the commands of the release workflow's Linux
job (.github/workflows/release.yml)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tarfile
import venv
from pathlib import Path

import pytest

from conftest import REPO

MATURIN = str(Path(sys.executable).parent / "maturin")
AUDITWHEEL = str(Path(sys.executable).parent / "auditwheel")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheels")
    build = [MATURIN, "build", "--release", "--quiet", "--zig", "--compatibility", "manylinux2014", "--out", str(out)]
    # maturin runs zig as `python -m ziglang`, with the first python on the PATH: this one.
    path = os.pathsep.join([str(Path(sys.executable).parent), os.environ["PATH"]])
    subprocess.run(build, cwd=REPO, env={**os.environ, "PATH": path}, check=True, timeout=1800)
    (built,) = out.glob("*.whl")
    return built


def without_rust() -> dict[str, str]:
    """This environment with every directory holding cargo or rustc taken off the PATH."""
    kept = [
        directory
        for directory in os.environ["PATH"].split(os.pathsep)
        if not any((Path(directory) / tool).exists() for tool in ("cargo", "rustc"))
    ]
    env = {**os.environ, "PATH": os.pathsep.join(kept)}
    env.pop("VIRTUAL_ENV", None)
    assert shutil.which("cargo", path=env["PATH"]) is None
    return env


def test_the_wheel_is_abi3_and_installs_on_glibc_2_17(wheel: Path) -> None:
    assert "-cp310-abi3-" in wheel.name and "manylinux_2_17_x86_64" in wheel.name, wheel.name
    shown = subprocess.run([AUDITWHEEL, "show", str(wheel)], capture_output=True, text=True, check=True)
    assert '"manylinux_2_17_x86_64"' in shown.stdout, shown.stdout


def test_the_wheel_installs_and_runs_without_rust(wheel: Path, tmp_path: Path) -> None:
    env = without_rust()
    home = tmp_path / "venv"
    venv.create(home, with_pip=True)
    python = str(home / "bin" / "python")
    install = [python, "-m", "pip", "install", "-q", "--disable-pip-version-check", str(wheel)]
    subprocess.run(install, env=env, check=True, timeout=600)
    example = REPO / "examples" / "python"
    ran = subprocess.run(
        [python, str(example / "client.py"), python], env=env, capture_output=True, text=True, timeout=120
    )
    assert ran.returncode == 0, ran.stderr
    for era in ("legacy", "modern"):
        assert f"== {era} era over stdio" in ran.stdout
    assert "booked 2 seats on Friday" in ran.stdout
    # The command the package installs, from the wheel's own native module.
    listed = subprocess.run(
        [str(home / "bin" / "oxmcp"), "tools", "--json", "--", python, str(example / "server.py")],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert listed.returncode == 0, listed.stderr
    assert '"name":"book"' in listed.stdout


def interpreter(version: str) -> str | None:
    """A Python `version` that runs: on the PATH, or one pyenv installed (whose shims run
    only the selected versions)."""
    pyenv = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "versions"
    candidates = [shutil.which(f"python{version}"), *sorted(map(str, pyenv.glob(f"{version}.*/bin/python{version}")))]
    for candidate in filter(None, candidates):
        if subprocess.run([candidate, "--version"], capture_output=True).returncode == 0:
            return candidate
    return None


#: The newer Pythons the abi3 wheel must run on, where this machine has them.
NEWER_PYTHONS = [found for version in ("3.12", "3.13") if (found := interpreter(version))]


@pytest.mark.skipif(not NEWER_PYTHONS, reason="no Python 3.12 or 3.13 on this machine")
@pytest.mark.parametrize("interpreter", NEWER_PYTHONS)
def test_the_wheel_runs_async_handlers_on_newer_pythons(wheel: Path, tmp_path: Path, interpreter: str) -> None:
    """The abi3 wheel on 3.12 and later, where handlers' tasks start eagerly: answers,
    failures, timeouts, a task and contextvars of each handler's own, all as on 3.11."""
    home = tmp_path / "venv"
    subprocess.run([interpreter, "-m", "venv", str(home)], check=True, timeout=120)
    python = str(home / "bin" / "python")
    install = [python, "-m", "pip", "install", "-q", "--disable-pip-version-check", str(wheel)]
    subprocess.run(install, check=True, timeout=600)
    script = Path(__file__).parent / "servers" / "async_handlers.py"
    ran = subprocess.run([python, str(script)], capture_output=True, text=True, timeout=120)
    assert ran.returncode == 0, ran.stderr
    seen = json.loads(ran.stdout)
    inside = {"task": True, "before": "unset", "after": "set inside"}
    assert seen == {
        "echoed": True,
        "waited": True,
        "inside": [inside, inside],
        "outside": "unset",
        "failed": [True, "refused"],
        "timed_out": True,
        "after": "still here",
    }, ran.stderr


def test_the_source_distribution_carries_the_workspace(tmp_path: Path) -> None:
    subprocess.run([MATURIN, "sdist", "--out", str(tmp_path)], cwd=REPO, check=True, capture_output=True, timeout=300)
    (sdist,) = tmp_path.glob("*.tar.gz")
    with tarfile.open(sdist) as archive:
        archive.extractall(tmp_path, filter="data")
    root = tmp_path / sdist.name.removesuffix(".tar.gz")
    for needed in ("pyproject.toml", "Cargo.lock", "core/src/lib.rs", "cli/src/lib.rs", "bindings-python/src/lib.rs"):
        assert (root / needed).exists(), needed
    # Its workspace resolves from what it carries (the crates from the registry cache).
    manifest = str(root / "bindings-python" / "Cargo.toml")
    metadata = ["cargo", "metadata", "--offline", "--format-version", "1", "--manifest-path", manifest]
    resolved = subprocess.run(metadata, capture_output=True, text=True, timeout=300)
    assert resolved.returncode == 0, resolved.stderr
