"""The official Python SDK's stories (``examples/stories`` of the pinned ``mcp``, unpacked
at run time: their code is not the project's): each a server, often a low-level one beside
it, and a client that checks what it is answered and says ``OK``. Their servers, with
their imports of the official SDK's server turned to oxmcp's, run on oxmcp; each story's
own client, the official SDK's, drives them over Streamable HTTP in both eras, as the
SDK's CI drives them (its stdio client does not pass on the environment the stories'
imports need)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import tomllib

from conftest import ported_from_official, unpacked_sdist

#: The stories whose servers run on oxmcp, each with its servers (``server_lowlevel``
#: beside ``server`` where the story has one its manifest runs).
SERVED = {
    "apps": ("server",),
    "bearer_auth": ("server", "server_lowlevel"),
    "custom_methods": ("server",),
    "dual_era": ("server", "server_lowlevel"),
    "error_handling": ("server", "server_lowlevel"),
    "extensions": ("server",),
    "json_response": ("server", "server_lowlevel"),
    "legacy_elicitation": ("server", "server_lowlevel"),
    "legacy_routing": ("server", "server_lowlevel"),
    "lifespan": ("server", "server_lowlevel"),
    "middleware": ("server",),
    "mrtr": ("server", "server_lowlevel"),
    "oauth_client_credentials": ("server", "server_lowlevel"),
    "pagination": ("server", "server_lowlevel"),
    "parallel_calls": ("server", "server_lowlevel"),
    "prompts": ("server", "server_lowlevel"),
    "reconnect": ("server", "server_lowlevel"),
    "resources": ("server", "server_lowlevel"),
    "roots": ("server", "server_lowlevel"),
    "sampling": ("server", "server_lowlevel"),
    "schema_validators": ("server", "server_lowlevel"),
    "sse_polling": ("server", "server_lowlevel"),
    "starlette_mount": ("server",),
    "stateless_legacy": ("server", "server_lowlevel"),
    "streaming": ("server", "server_lowlevel"),
    "subscriptions": ("server", "server_lowlevel"),
    "tools": ("server", "server_lowlevel"),
}
#: The stories oxmcp does not serve as the official SDK does, and why (the README lists them).
NOT_SERVED = {
    "identity_assertion": "an authorization server of the server's own (auth_server_provider)",
    "oauth": "an authorization server of the server's own, on a fixed port",
    "refund_desk": "resolver dependencies (Resolve, Elicit[T])",
    "serve_one": "its client times out under the official SDK too",
    "standalone_get": "oxmcp announces a registered resource itself: the explicit announcement makes two",
    "stickynotes": "it reaches into the official server's private _resource_manager",
}


@pytest.fixture(scope="module")
def stories(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory holding the stories as the package ``stories``, their servers ported."""
    root = tmp_path_factory.mktemp("stories")
    source = unpacked_sdist("mcp", tmp_path_factory.mktemp("sdist")) / "examples" / "stories"
    shutil.copytree(source, root / "stories")
    for module in (root / "stories").rglob("*.py"):
        if module.name.startswith("server") or module.name == "_hosting.py":
            module.write_text(ported_from_official(module.read_text()))
    return root


def test_every_story_of_the_official_sdk_is_accounted_for(stories: Path) -> None:
    """A story a newer SDK adds is run here or listed as not served, with its servers."""
    manifest = tomllib.loads((stories / "stories" / "manifest.toml").read_text())
    assert set(manifest["story"]) == set(SERVED) | set(NOT_SERVED)
    for name, servers in SERVED.items():
        settings = manifest["defaults"] | manifest["story"][name]
        low_level = settings["lowlevel"] and (stories / "stories" / name / "server_lowlevel.py").exists()
        assert servers == (("server", "server_lowlevel") if low_level else ("server",)), name


@pytest.mark.parametrize("era", ["modern", "legacy"])
@pytest.mark.parametrize(
    ("story", "server"), [(name, server) for name, servers in SERVED.items() for server in servers]
)
def test_an_official_story_passes_its_own_client_on_oxmcp(story: str, server: str, era: str, stories: Path) -> None:
    """The story's client starts the ported server on a port of its own, checks every
    answer, and stops it."""
    command = [sys.executable, "-m", f"stories.{story}.client", "--http", "--server", server]
    if era == "legacy":
        command.append("--legacy")
    run = subprocess.run(command, cwd=stories, capture_output=True, text=True, timeout=120)
    told = run.stdout + run.stderr
    assert run.returncode == 0 and f"OK: {story}" in told, told
