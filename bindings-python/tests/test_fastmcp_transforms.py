"""FastMCP's tool transformation and namespaces on oxmcp: tools made from others, servers
whose tools and names change as they are served, what is added, removed and mounted after
a transform, and the mistakes refused when the tool is made. (That each lists and answers
as FastMCP's does is `test_dropin.py`'s `servers/fastmcp_transforms.py`.)"""

from __future__ import annotations

import asyncio
import itertools
import json
from typing import Any

import pytest

from oxmcp.fastmcp import Client as FastMCPClient
from oxmcp.fastmcp import Context, FastMCP
from oxmcp.fastmcp.exceptions import ToolError
from oxmcp.fastmcp.experimental.transforms.code_mode import CodeMode, GetTags, ListTools, MontySandboxProvider, Search
from oxmcp.fastmcp.server.middleware.tool_injection import ToolInjectionMiddleware
from oxmcp.fastmcp.server.providers import LocalProvider
from oxmcp.fastmcp.server.transforms import Namespace, ToolTransform, VersionFilter
from oxmcp.fastmcp.tools import Tool, ToolResult, forward, tool
from oxmcp.fastmcp.tools.tool_transform import ArgTransform, ToolTransformConfig

MODES = ("legacy", "2026-07-28")


@tool(description="Greets.")
def greet(name: str, greeting: str = "Hello") -> str:
    return f"{greeting}, {name}!"


@pytest.mark.parametrize("mode", MODES)
async def test_a_hidden_argument_is_made_for_each_call_and_a_transformed_default_wins(mode: str) -> None:
    numbers = itertools.count(1)
    mcp = FastMCP("made")
    mcp.add_tool(
        Tool.from_tool(
            greet,
            name="hi",
            transform_args={"name": ArgTransform(hide=True, default_factory=lambda: f"guest {next(numbers)}")},
        )
    )
    mcp.add_tool(Tool.from_tool(greet, name="hey", transform_args={"greeting": ArgTransform(default="Hey")}))
    async with FastMCPClient(mcp, mode=mode) as client:
        assert (await client.call_tool("hi", {})).data == "Hello, guest 1!"
        assert (await client.call_tool("hi", {"greeting": "Bye"})).data == "Bye, guest 2!"
        assert (await client.call_tool("hey", {"name": "Ada"})).data == "Hey, Ada!"
        # The hidden argument is not the client's to give.
        with pytest.raises(ToolError):
            await client.call_tool("hi", {"name": "Eve"})


@pytest.mark.parametrize("mode", MODES)
async def test_a_transform_function_checks_and_changes_what_it_forwards(mode: str) -> None:
    async def checked(who: str, ctx: Context) -> ToolResult:
        if not who:
            raise ValueError("who is empty")
        await ctx.info(f"greeting {who}")
        result = await forward(who=who.title())
        return ToolResult(content=f"{result.content[0].text} (checked)")

    mcp = FastMCP("made")
    hidden = {"name": ArgTransform(name="who"), "greeting": ArgTransform(hide=True)}
    made = Tool.from_tool(greet, transform_fn=checked, transform_args=hidden)
    assert made.name == "greet" and list(made.parameters["properties"]) == ["who"]
    mcp.add_tool(made)
    async with FastMCPClient(mcp, mode=mode) as client:
        assert (await client.call_tool("greet", {"who": "ada"})).content[0].text == "Hello, Ada! (checked)"
        with pytest.raises(ToolError, match="who is empty"):
            await client.call_tool("greet", {"who": ""})


@pytest.mark.parametrize("mode", MODES)
async def test_a_transform_function_with_kwargs_gets_every_argument(mode: str) -> None:
    async def shouted(**kwargs: str) -> str:
        result = await forward(**kwargs)
        return f"{result.content[0].text.upper()} {sorted(kwargs)}"

    mcp = FastMCP("made")
    mcp.add_tool(
        Tool.from_tool(greet, name="shout", transform_fn=shouted, transform_args={"name": ArgTransform(name="who")})
    )
    async with FastMCPClient(mcp, mode=mode) as client:
        listed = (await client.list_tools())[0].inputSchema
        assert listed["properties"] == {"who": {"type": "string"}, "greeting": {"default": "Hello", "type": "string"}}
        assert listed["required"] == ["who"]
        assert (await client.call_tool("shout", {"who": "ada"})).data == "HELLO, ADA! ['greeting', 'who']"


async def test_a_tool_before_a_server_reads_as_the_server_lists_it() -> None:
    made = Tool.from_function(greet, name="hello", tags={"greeting"}, version="2")
    mcp = FastMCP("made")
    mcp.add_tool(made)
    (listed,) = await mcp.list_tools()
    assert (made.tags, made.version) == (listed.tags, listed.version) == ({"greeting"}, "2")
    assert made.to_mcp_tool(name="hi").name == "hi"
    assert made.to_mcp_tool().input_schema == listed.parameters


def test_mistakes_are_refused_when_the_tool_is_made() -> None:
    with pytest.raises(ValueError, match="Unknown arguments in transform_args: nme"):
        Tool.from_tool(greet, transform_args={"nme": ArgTransform(name="x")})
    with pytest.raises(ValueError, match="Hidden parameter 'name' has no default"):
        Tool.from_tool(greet, transform_args={"name": ArgTransform(hide=True)})
    with pytest.raises(ValueError, match="mapped to the same names: name"):
        Tool.from_tool(greet, transform_args={"greeting": ArgTransform(name="name")})
    with pytest.raises(ValueError, match="default_factory can only be used with hide=True"):
        ArgTransform(default_factory=lambda: 1)
    with pytest.raises(ValueError, match="Function missing parameters required after transformation: greeting"):

        async def partial(name: str) -> str:
            return name

        Tool.from_tool(greet, transform_fn=partial)
    with pytest.raises(ValueError, match="duplicate target name 'x'"):
        ToolTransform({"a": ToolTransformConfig(name="x"), "b": ToolTransformConfig(name="x")})


async def test_forward_outside_a_transformed_tool_fails() -> None:
    with pytest.raises(RuntimeError, match="forward\\(\\) can only be called within a transformed tool"):
        await forward(x=1)


@pytest.mark.parametrize("mode", MODES)
async def test_a_namespace_serves_what_is_added_removed_and_mounted_after_it(mode: str) -> None:
    mcp = FastMCP("outer")
    mcp.add_tool(greet)
    mcp.add_transform(Namespace("api"))

    @mcp.tool
    def later() -> str:
        return "later"

    inner = FastMCP("inner")

    @inner.resource("data://inner/{id}")
    def item(id: str) -> str:
        return f"item {id}"

    mcp.mount(inner, namespace="in")
    async with FastMCPClient(mcp, mode=mode) as client:
        assert sorted(t.name for t in await client.list_tools()) == ["api_greet", "api_later"]
        assert (await client.call_tool("api_later", {})).data == "later"
        templates = [t.uriTemplate for t in await client.list_resource_templates()]
        assert templates == ["data://api/in/inner/{id}"]
        assert (await client.read_resource("data://api/in/inner/7"))[0].text == "item 7"
        # Removed by the name it was given.
        assert mcp.remove_tool("greet")
        assert [t.name for t in await client.list_tools()] == ["api_later"]


@pytest.mark.parametrize("mode", MODES)
async def test_a_tool_transform_changes_a_mounted_tool_and_hides_one_until_shown(mode: str) -> None:
    inner = FastMCP("inner")
    inner.add_tool(greet)
    mcp = FastMCP("outer")
    mcp.mount(inner, namespace="in")

    @mcp.tool
    def secret() -> str:
        return "secret"

    mcp.add_transform(
        ToolTransform(
            {
                "in_greet": ToolTransformConfig(name="welcome", arguments={"name": {"name": "who"}}),
                "secret": ToolTransformConfig(enabled=False),
            }
        )
    )
    async with FastMCPClient(mcp, mode=mode) as client:
        assert [t.name for t in await client.list_tools()] == ["welcome"]
        assert (await client.call_tool("welcome", {"who": "Ada"})).data == "Hello, Ada!"
        with pytest.raises(ToolError, match="Unknown tool: 'secret'"):
            await client.call_tool("secret", {})
    mcp.add_transform(ToolTransform({"secret": ToolTransformConfig(enabled=True)}))
    async with FastMCPClient(mcp, mode=mode) as client:
        assert sorted(t.name for t in await client.list_tools()) == ["secret", "welcome"]
        assert (await client.call_tool("secret", {})).data == "secret"


@pytest.mark.parametrize("mode", MODES)
async def test_injected_tools_are_served_in_place_of_the_servers_own(mode: str) -> None:
    mcp = FastMCP("injected")

    @mcp.tool
    def greet(name: str) -> str:
        return f"own {name}"

    injected = Tool.from_tool(globals()["greet"], transform_args={"greeting": ArgTransform(default="Hi")})
    mcp.add_middleware(ToolInjectionMiddleware([injected]))
    async with FastMCPClient(mcp, mode=mode) as client:
        assert [t.name for t in await client.list_tools()] == ["greet"]
        assert (await client.call_tool("greet", {"name": "Ada"})).data == "Hi, Ada!"


@pytest.mark.parametrize("mode", MODES)
async def test_a_version_filter_serves_one_range_of_a_shared_pool_of_versions(mode: str) -> None:
    pool = LocalProvider()
    for version in ("1.0", "2.0", "3.0"):

        def process(data: str, version: str = version) -> str:
            return f"v{version} {data}"

        pool.tool(process, version=version)

    @pool.tool
    def health() -> str:
        return "ok"

    @pool.resource("config://{env}", version="2.0")
    def config(env: str) -> str:
        return f"config of {env}"

    older = FastMCP("older", providers=[pool], transforms=[VersionFilter(version_lt="3.0")])
    newer = FastMCP("newer", providers=[pool])
    # Added after the provider: what is there and what comes later are narrowed alike.
    newer.add_transform(VersionFilter(version_gte="2.0", include_unversioned=False))
    newer.add_tool(lambda: "late", name="late")

    @pool.tool(version="4.0")
    def process(data: str) -> str:
        return f"v4.0 {data}"

    async with FastMCPClient(older, mode=mode) as client:
        tools = {t.name: t.meta["fastmcp"] for t in await client.list_tools()}
        assert tools == {
            "process": {"versions": ["2.0", "1.0"], "tags": [], "version": "2.0"},
            "health": {"tags": []},
        }
        assert (await client.call_tool("process", {"data": "x"})).data == "v2.0 x"
        assert (await client.call_tool("process", {"data": "x"}, version="1")).data == "v1.0 x"
        with pytest.raises(ToolError, match="Unknown tool: 'process'"):
            await client.call_tool("process", {"data": "x"}, version="3.0")
        assert (await client.call_tool("health", {})).data == "ok"
        (template,) = await client.list_resource_templates()
        assert template.meta["fastmcp"]["versions"] == ["2.0"]
    async with FastMCPClient(newer, mode=mode) as client:
        tools = {t.name: t.meta["fastmcp"].get("versions") for t in await client.list_tools()}
        assert tools == {"process": ["4.0", "3.0", "2.0"]}
        assert (await client.call_tool("process", {"data": "x"})).data == "v4.0 x"
        with pytest.raises(ToolError, match="Unknown tool: 'process'"):
            await client.call_tool("process", {"data": "x"}, version="1.0")
    assert repr(VersionFilter(version_gte="2.0", include_unversioned=False)) == (
        "VersionFilter(version_gte='2.0', include_unversioned=False)"
    )
    with pytest.raises(ValueError, match="At least one of version_gte or version_lt"):
        VersionFilter()


def code_mode_server(transform: CodeMode) -> FastMCP:
    """A server of three tools (one tagged, one hidden by the server's rules) behind ``transform``."""
    mcp = FastMCP("coded")

    @mcp.tool(tags={"math"})
    def add(a: int, b: int) -> int:
        return a + b

    @mcp.tool
    def shout(text: str) -> str:
        return text.upper()

    @mcp.tool
    def secret() -> str:
        return "hidden"

    mcp.disable(names={"secret"})
    mcp.add_transform(transform)
    return mcp


class Echoing:
    """A sandbox of one's own: runs no code, calls ``call_tool`` with what the code names
    (``tool:{json arguments}``)."""

    async def run(self, code: str, *, inputs: Any = None, external_functions: Any = None) -> Any:
        name, _, arguments = code.partition(":")
        return await external_functions["call_tool"](name, json.loads(arguments))


@pytest.mark.parametrize("mode", MODES)
async def test_code_mode_lists_its_tools_and_calls_the_visible_ones_from_code(mode: str) -> None:
    mcp = code_mode_server(CodeMode(discovery_tools=[GetTags(), ListTools()], max_tool_calls=2))
    async with FastMCPClient(mcp, mode=mode) as client:
        assert [t.name for t in await client.list_tools()] == ["tags", "list_tools", "execute"]
        assert (await client.call_tool("tags", {})).data == "- math (1 tool)\n- untagged (1 tool)"
        listed = (await client.call_tool("list_tools", {})).data
        assert listed == "- add\n- shout"
        code = "a = await call_tool('add', {'a': 2, 'b': 3})\nreturn await call_tool('shout', {'text': str(a)})"
        assert (await client.call_tool("execute", {"code": code})).structured_content == {"result": "{'RESULT': 5}"}
        thrice = "for n in range(3):\n    await call_tool('shout', {'text': 'x'})"
        with pytest.raises(ToolError, match="Tool call limit exceeded: at most 2"):
            await client.call_tool("execute", {"code": thrice})
        # What the session may not see is not reached from code either.
        with pytest.raises(ToolError, match="Unknown tool: secret"):
            await client.call_tool("execute", {"code": "return await call_tool('secret', {})"})
        # A tool the transform leaves out of the list is still called directly.
        assert (await client.call_tool("add", {"a": 1, "b": 1})).data == 2


async def test_code_mode_runs_a_sandbox_of_ones_own_and_names_what_a_refused_call_takes() -> None:
    mcp = code_mode_server(CodeMode(sandbox_provider=Echoing(), wall_clock_timeout_secs=5))
    async with FastMCPClient(mcp) as client:
        assert (await client.call_tool("execute", {"code": 'add:{"a": 1, "b": 2}'})).structured_content == {"result": 3}
        with pytest.raises(ToolError) as refused:
            await client.call_tool("execute", {"code": 'add:{"a": "one", "b": 2}'})
        assert str(refused.value).endswith(
            "call_tool('add') failed: a: Input should be a valid integer, unable to parse string as an integer\n"
            "Valid parameters for add (* = required): a*, b*"
        )


async def test_code_mode_bounds_the_time_of_code_and_refuses_what_it_cannot_apply() -> None:
    class Sleeping:
        async def run(self, code: str, **_: Any) -> Any:
            await asyncio.sleep(10)

    mcp = code_mode_server(CodeMode(sandbox_provider=Sleeping(), wall_clock_timeout_secs=0.2))
    async with FastMCPClient(mcp) as client:
        with pytest.raises(ToolError, match=r"wall-clock limit of 0\.2 seconds"):
            await client.call_tool("execute", {"code": ""})
    with pytest.raises(ValueError, match="collides with execute_tool_name"):
        code_mode_server(CodeMode(discovery_tools=[Search(name="execute")]))
    with pytest.raises(ValueError, match="Unsupported Monty resource limits: 'forever'"):
        await MontySandboxProvider(limits={"forever": True}).run("return 1")
