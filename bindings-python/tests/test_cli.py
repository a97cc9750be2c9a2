"""The ``oxmcp`` command as ``pip install oxmcp`` installs it (a console script into the
native module), against the Python demo server over stdio and HTTP."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from conftest import DEMO_SERVER, http_server

#: The console script, next to the interpreter of the environment it was installed into.
OXMCP = str(Path(sys.executable).parent / "oxmcp")


def oxmcp(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([OXMCP, *args], capture_output=True, text=True, timeout=60)


def answer(verb: str, *args: str) -> Any:
    """What `oxmcp verb --json args` prints, parsed."""
    done = oxmcp(verb, "--json", *args)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_the_command_lists_and_calls_a_python_server_over_stdio() -> None:
    tools = answer("tools", "--", *DEMO_SERVER)
    assert {"add", "shout", "midpoint"} <= {tool["name"] for tool in tools}
    # `a=2` is an integer, and `b` a JSON object, as the schema types them.
    assert answer("call", "add", "a=2", "b=3", "--", *DEMO_SERVER)["structuredContent"] == {"result": 5}
    midpoint = answer("call", "midpoint", 'a={"x": 0, "y": 0}', 'b={"x": 2, "y": 4}', "--", *DEMO_SERVER)
    assert midpoint["structuredContent"] == {"x": 1.0, "y": 2.0}
    failed = oxmcp("call", "fail", "--", *DEMO_SERVER)
    assert failed.returncode == 5


def test_the_command_reaches_a_python_server_over_http_in_both_eras() -> None:
    with http_server([*DEMO_SERVER, "--http"]) as url:
        for era in ("legacy", "modern"):
            info = answer("info", "--era", era, "--url", url)
            assert (info["serverInfo"]["name"], info["era"]) == ("oxmcp-python-demo", era)
            shouted = oxmcp("call", "shout", "text=hi", "--era", era, "--url", url)
            assert shouted.stdout == "HI\n", shouted.stderr
    unreachable = oxmcp("tools", "--url", url)
    assert unreachable.returncode == 2


def test_the_command_explains_itself() -> None:
    helped = oxmcp("--help")
    assert helped.returncode == 0
    assert "Exit codes" in helped.stdout
    assert oxmcp("call").returncode == 1
