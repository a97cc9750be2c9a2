"""FastMCP's providers on oxmcp: components found in a directory's files by their standalone
decorators, another server given as a provider, each under a namespace or not, after the
server's own; an HTTP API's operations read from its OpenAPI description, called over a
real socket. (FastMCP's `filesystem-provider` example and a FastAPI app's server, compared
with FastMCP, are `test_dropin.py`'s.)"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import sys
import urllib.request
from collections.abc import Callable
from pathlib import Path

import pytest

from conftest import http_server
from oxmcp.fastmcp import Client as FastMCPClient
from oxmcp.fastmcp import FastMCP
from oxmcp.fastmcp.exceptions import ToolError
from oxmcp.fastmcp.server.providers import FileSystemProvider
from oxmcp.fastmcp.server.providers.openapi import MCPType, OpenAPIProvider, RouteMap
from oxmcp.fastmcp.skills import Skill, SkillsClientExtension
from oxmcp.fastmcp.skills.provider import SkillsDirectoryProvider

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


def test_a_skills_provider_serves_each_roots_skills_the_first_root_keeping_a_path(tmp_path: Path) -> None:
    """(FastMCP's ``skills`` example, compared with FastMCP, is ``test_dropin.py``'s.)"""
    first, second = tmp_path / "first", tmp_path / "second"
    for root, text in ((first, "first"), (second, "second")):
        (root / "review").mkdir(parents=True)
        (root / "review" / "SKILL.md").write_text(f"---\nname: review\ndescription: {text}\n---\n")
    mcp = FastMCP("skills", providers=[SkillsDirectoryProvider([first, second, tmp_path / "missing"])])

    async def listed() -> list[tuple[str, str | None]]:
        async with FastMCPClient(mcp) as client:
            return [(str(r.uri), r.description) for r in await client.list_resources()]

    assert asyncio.run(listed()) == [
        ("skill://review/SKILL.md", "first"),
        ("skill://review/_manifest", "File listing for review"),
    ]
    with pytest.raises(ValueError, match="reads skills once"):
        SkillsDirectoryProvider(first, reload=True)
    with pytest.raises(ValueError, match="without a namespace"):
        FastMCP("x").add_provider(SkillsDirectoryProvider(first), namespace="x")


async def test_a_skill_is_read_file_by_file_and_a_file_that_changed_is_refused(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    (root / "review").mkdir(parents=True)
    (root / "review" / "SKILL.md").write_text("---\nname: review\ndescription: Reviews\n---\nRead the diff.\n")
    (root / "review" / "notes.md").write_text("Notes.")
    mcp = FastMCP("skills", providers=[SkillsDirectoryProvider(root)])
    async with FastMCPClient(mcp, extensions=[SkillsClientExtension()]) as client:
        [entry] = await client.list_skills()
        skill = await client.read_skill(entry.uri)
        assert (skill.name, list(skill.files)) == ("review", ["SKILL.md", "notes.md"])
        written = skill.to_directory(tmp_path / "out" / "review")
        assert Skill.from_directory(written) == skill
        with pytest.raises(FileExistsError):
            skill.to_directory(written)
    async with FastMCPClient(mcp) as client:
        with pytest.raises(RuntimeError, match="did not opt into the Skills extension"):
            await client.list_skills()
        assert await client.read_skill("skill://review/SKILL.md") == skill
        with pytest.raises(ValueError, match=r"SKILL\.md URI"):
            await client.read_skill("skill://review/notes.md")

    # A server whose file is not what its manifest says.
    tampered = FastMCP("tampered")
    manifest = json.loads(skill_manifest(skill))
    manifest["files"][1]["hash"] = "sha256:" + "0" * 64
    tampered.resource("skill://review/_manifest")(text_of(json.dumps(manifest)))
    for path, content in skill.files.items():
        tampered.resource(f"skill://review/{path}")(text_of(content.decode()))
    async with FastMCPClient(tampered) as client:
        with pytest.raises(ValueError, match=r"skill://review/notes\.md does not have the digest"):
            await client.read_skill("skill://review/SKILL.md")


def text_of(text: str) -> Callable[[], str]:
    """A resource function that reads ``text``."""
    return lambda: text


def skill_manifest(skill: Skill) -> str:
    """The ``_manifest`` FastMCP serves beside ``skill``'s files."""
    files = [{"path": path, "size": file.size, "hash": file.digest} for path, file in skill.manifest.files.items()]
    return json.dumps({"skill": skill.name, "files": files}, indent=2)


def test_a_skill_is_made_only_of_files_that_stay_in_its_folder() -> None:
    skill_md = "---\nname: review\ndescription: Reviews\n---\n"
    assert Skill.from_files({"SKILL.md": skill_md}).description == "Reviews"
    for files, refusal in [
        ({"SKILL.md": skill_md, "../escape.md": "x"}, "is not a relative path"),
        ({"SKILL.md": skill_md, "/etc/passwd": "x"}, "is not a relative path"),
        ({"notes.md": "x"}, "needs a SKILL.md"),
        ({"SKILL.md": "---\nname: Review\ndescription: x\n---\n"}, "1 to 64 of a-z"),
        ({"SKILL.md": "no front matter"}, "needs a SKILL.md"),
    ]:
        with pytest.raises(ValueError, match=refusal):
            Skill.from_files(files)
    written = Skill(name="review", description="Reviews", instructions="# Review\n", frontmatter={"license": "MIT"})
    assert written.files["SKILL.md"] == b"---\nname: review\ndescription: Reviews\nlicense: MIT\n---\n# Review\n"
    assert written.manifest.frontmatter.license == "MIT"
    with pytest.raises(ValueError, match="as `instructions`"):
        Skill(name="review", description="Reviews", instructions="", files={"SKILL.md": ""})


def test_what_is_not_a_provider_is_refused() -> None:
    with pytest.raises(TypeError, match="as providers"):
        FastMCP("x", providers=[object()])  # type: ignore[list-item]


async def test_an_openapi_description_is_served_calling_its_api_over_http() -> None:
    """The shop API of ``servers/fastmcp_openapi.py`` served by uvicorn; its description,
    with its URL as its server, made a server (the client made from that URL): a call with
    a body and a header, one with path and query arguments, the API's 404 as the tool's
    error, a GET mapped to a resource read; an operation excluded is not served."""
    servers = Path(__file__).parent / "servers"
    uvicorn = [sys.executable, "-m", "uvicorn", "--app-dir", str(servers), "fastmcp_openapi:app", "--port", "0"]
    with http_server(uvicorn) as url:
        described = await asyncio.to_thread(urllib.request.urlopen, f"{url}/openapi.json")
        with described:
            spec = {**json.load(described), "servers": [{"url": url}]}
        maps = [
            RouteMap(methods=["GET"], pattern=r"^/health$", mcp_type=MCPType.RESOURCE),
            RouteMap(methods=["PUT"], mcp_type=MCPType.EXCLUDE),
        ]
        mcp = FastMCP.from_openapi(spec, route_maps=maps, mcp_names={"create_item": "add_item"})
        async with FastMCPClient(mcp) as client:
            names = {tool.name for tool in await client.list_tools()}
            added = await client.call_tool("add_item", {"name": "ink", "price": 2, "x-request-id": "r7"})
            item = await client.call_tool("get_item_items", {"item_id": 1})
            with pytest.raises(ToolError, match=re.escape('HTTP error 404: Not Found - {"detail": "no such item"}')):
                await client.call_tool("get_item_items", {"item_id": 99})
            health = await client.read_resource("resource://health_health_get")
    assert "rename_items" not in names and "add_item" in names
    assert added.structured_content == {"id": 2, "request": "r7"}
    assert item.structured_content == {"name": "pen", "price": 1.5, "tags": []}
    assert health[0].text == '"ok"'


def test_an_openapi_description_without_a_server_needs_a_client() -> None:
    spec = {"openapi": "3.1.0", "info": {"title": "x", "version": "1"}, "paths": {}}
    with pytest.raises(ValueError, match="No server URL found"):
        OpenAPIProvider(spec)
    with pytest.raises(ValueError, match="not OpenAPI 3"):
        OpenAPIProvider({"swagger": "2.0", "paths": {}}, client=object())


async def test_a_provider_is_not_asked_for_what_the_server_has_itself() -> None:
    """A call of the server's own tool, a prompt or a read of its own resource runs it
    without asking the provider (the server's own come first, as in FastMCP); a name the
    server lacks is asked of the provider."""
    from oxmcp.fastmcp.server.providers import Provider
    from oxmcp.fastmcp.tools import Tool

    asked: list[str] = []

    class Counting(Provider):
        async def _get_tool(self, name: str, version: object = None) -> Tool | None:
            asked.append(name)
            return None

    mcp = FastMCP("own", providers=[Counting()])

    @mcp.tool
    def add(a: int, b: int) -> int:
        return a + b

    @mcp.resource("notes://today")
    def today() -> str:
        return "nothing planned"

    async with FastMCPClient(mcp) as client:
        assert (await client.call_tool("add", {"a": 1, "b": 2})).data == 3
        assert [c.text for c in await client.read_resource("notes://today")] == ["nothing planned"]
        with pytest.raises(ToolError, match="Unknown tool"):
            await client.call_tool("elsewhere", {})
    assert asked == ["elsewhere"]


async def test_a_provider_is_asked_by_its_own_names_through_its_transforms() -> None:
    """A provider under a namespace of its own and a tool renamed, served under the
    server's namespace: a call by the name served asks the provider for the name it gave;
    a name its transforms do not serve is not asked of it. Transforms that make tools of a
    server's components are refused."""
    from oxmcp.fastmcp.server.providers import Provider
    from oxmcp.fastmcp.server.transforms import Namespace, PromptsAsTools, ToolTransform
    from oxmcp.fastmcp.tools import Tool
    from oxmcp.fastmcp.tools.tool_transform import ToolTransformConfig

    asked: list[str] = []

    def add(a: int, b: int) -> int:
        return a + b

    class Asked(Provider):
        async def _get_tool(self, name: str, version: object = None) -> Tool | None:
            asked.append(name)
            return Tool.from_function(add, name=name) if name == "add" else None

    provider = Asked()
    provider.add_transform(Namespace("calc"))
    provider.add_transform(ToolTransform({"calc_add": ToolTransformConfig(name="plus")}))
    mcp = FastMCP("layered")
    mcp.add_provider(provider, namespace="math")
    async with FastMCPClient(mcp) as client:
        assert (await client.call_tool("math_plus", {"a": 1, "b": 2})).data == 3
        for unserved in ("math_calc_add", "plus", "math_other"):
            with pytest.raises(ToolError, match="Unknown tool"):
                await client.call_tool(unserved, {})
    assert asked == ["add"]
    with pytest.raises(TypeError, match="PromptsAsTools is not served"):
        provider.add_transform(PromptsAsTools(mcp))
