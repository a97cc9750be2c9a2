"""FastMCP's providers on oxmcp: components found in a directory's files by their standalone
decorators, another server given as a provider, each under a namespace or not, after the
server's own. (FastMCP's `filesystem-provider` example, compared with FastMCP, is
`test_dropin.py`'s.)"""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from oxmcp.fastmcp import Client as FastMCPClient
from oxmcp.fastmcp import FastMCP
from oxmcp.fastmcp.server.providers import FileSystemProvider

MODES = ("legacy", "2026-07-28")

TOOLS = '''
from oxmcp.fastmcp.tools import tool

@tool(name="add-numbers", tags={"math"})
def add(a: int, b: int) -> int:
    return a + b

@tool
def shout(text: str) -> str:
    return text.upper()

def _helper() -> None:
    """Not marked: not served."""
'''

RESOURCES = """
from oxmcp.fastmcp.resources import resource
from oxmcp.fastmcp.prompts import prompt

@resource("notes://{name}")
def note(name: str) -> str:
    return f"note {name}"

@prompt("ask")
def question(topic: str) -> str:
    return f"What about {topic}?"
"""


@pytest.fixture
def components(tmp_path: Path) -> Path:
    (tmp_path / "tools").mkdir()
    (tmp_path / "tools" / "math.py").write_text(TOOLS)
    (tmp_path / "more.py").write_text(RESOURCES)
    (tmp_path / "broken.py").write_text("import no_such_module\n")
    return tmp_path


@pytest.mark.parametrize("mode", MODES)
async def test_a_directorys_marked_functions_are_served_and_a_broken_file_is_left_out(
    mode: str, components: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING):
        provider = FileSystemProvider(components)
    assert list(provider.failed_files) == [components / "broken.py"]
    assert "No module named 'no_such_module'" in provider.failed_files[components / "broken.py"]
    assert "Failed to load" in caplog.text
    mcp = FastMCP("files", providers=[provider])

    @mcp.tool
    def shout(text: str) -> str:
        return "own " + text

    async with FastMCPClient(mcp, mode=mode) as client:
        assert sorted(t.name for t in await client.list_tools()) == ["add-numbers", "shout"]
        assert (await client.call_tool("add-numbers", {"a": 1, "b": 2})).data == 3
        # The server's own comes first.
        assert (await client.call_tool("shout", {"text": "hi"})).data == "own hi"
        assert (await client.read_resource("notes://a"))[0].text == "note a"
        prompt = await client.get_prompt("ask", {"topic": "tea"})
        assert prompt.messages[0].content.text == "What about tea?"


@pytest.mark.parametrize("mode", MODES)
async def test_a_provider_is_served_under_its_namespace(mode: str, components: Path) -> None:
    other = FastMCP("other")

    @other.tool
    def ping() -> str:
        return "pong"

    mcp = FastMCP("outer")
    mcp.add_provider(FileSystemProvider(components / "tools"), namespace="files")
    mcp.add_provider(other, namespace="other")
    async with FastMCPClient(mcp, mode=mode) as client:
        assert sorted(t.name for t in await client.list_tools()) == ["files_add-numbers", "files_shout", "other_ping"]
        assert (await client.call_tool("other_ping", {})).data == "pong"


def test_what_is_not_a_provider_is_refused() -> None:
    with pytest.raises(TypeError, match="as providers"):
        FastMCP("x", providers=[object()])  # type: ignore[list-item]
