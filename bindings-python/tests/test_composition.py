"""Servers made of servers: mounted on one another, as FastMCP's ``mount`` (what a client of
the parent lists and gets, as components come and go on the mounted server, and whose
lifespan runs), and proxies of servers elsewhere, as FastMCP's ``create_proxy`` (what a
client of the proxy gets, over a real stdio connection to the other server)."""

from __future__ import annotations

import contextlib
import sys
import textwrap
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from balancer import free_port
from key_value.aio.stores.memory import MemoryStore

from conftest import REPO, Notifications
from oxmcp import Client, Context, Server
from oxmcp.fastmcp import Client as FastMCPClient
from oxmcp.fastmcp import Context as FastMCPContext
from oxmcp.fastmcp import FastMCP
from oxmcp.fastmcp.client.logging import LogMessage
from oxmcp.fastmcp.server import create_proxy
from oxmcp.fastmcp.server.transforms import Namespace
from oxmcp.types import ElicitRequest, ElicitResult

#: A FastMCP server run over stdio, behind the proxies.
UPSTREAM = textwrap.dedent(
    """
    import asyncio
    from oxmcp.fastmcp import Context, FastMCP

    mcp = FastMCP("Upstream")

    @mcp.tool
    async def count(to: int, ctx: Context) -> str:
        await ctx.info(f"counting to {to}")
        for step in range(1, to + 1):
            await ctx.report_progress(step, to)
        return f"counted to {to}"

    @mcp.tool
    def fail() -> str:
        raise ValueError("upstream failure")

    @mcp.resource("notes://{name}")
    def note(name: str) -> str:
        return f"a note on {name}"

    @mcp.prompt
    def summarize(text: str) -> str:
        return f"Summarize: {text}"

    if __name__ == "__main__":
        mcp.run()
    """
)


def weather() -> FastMCP:
    """A server with one of each component."""
    server = FastMCP("Weather")

    @server.tool
    def forecast(city: str) -> str:
        """The forecast for a city."""
        return f"Sunny in {city}"

    @server.resource("weather://today")
    def today() -> str:
        return "warm"

    @server.resource("weather://cities/{city}")
    def city(city: str) -> str:
        return f"warm in {city}"

    @server.prompt
    def ask(city: str) -> str:
        return f"What is the weather in {city}?"

    return server


async def test_a_mounted_server_is_served_under_its_namespace() -> None:
    main = FastMCP("Main")

    @main.tool
    def status() -> str:
        return "up"

    main.mount(weather(), namespace="weather")
    async with Client(main) as client:
        assert [t.name for t in await client.list_tools()] == ["status", "weather_forecast"]
        assert [r.uri for r in await client.list_resources()] == ["weather://weather/today"]
        templates = await client.list_resource_templates()
        assert [t.uri_template for t in templates] == ["weather://weather/cities/{city}"]
        assert [p.name for p in await client.list_prompts()] == ["weather_ask"]
        called = await client.call_tool("weather_forecast", {"city": "Oslo"})
        assert called.content[0].text == "Sunny in Oslo"
        assert (await client.read_resource("weather://weather/today")).contents[0].text == "warm"
        assert (await client.read_resource("weather://weather/cities/Bergen")).contents[0].text == "warm in Bergen"
        prompt = await client.get_prompt("weather_ask", {"city": "Oslo"})
        assert prompt.messages[0].content.text == "What is the weather in Oslo?"
        # Not served under its own name: FastMCP answers an unknown tool with a tool error.
        unknown = await client.call_tool("forecast", {"city": "Oslo"})
        assert unknown.is_error and unknown.content[0].text == "Unknown tool: 'forecast'"


async def test_without_a_namespace_names_stay_and_the_first_server_keeps_a_name() -> None:
    main = FastMCP("Main")

    @main.tool
    def forecast(city: str) -> str:
        return "the main server's own"

    other = FastMCP("Other")

    @other.tool(name="forecast")
    def other_forecast(city: str) -> str:
        return "the second mounted server's"

    @other.tool
    def alerts() -> str:
        return "none"

    main.mount(weather())
    main.mount(other, tool_names={"alerts": "warnings"})
    async with Client(main) as client:
        assert [t.name for t in await client.list_tools()] == ["forecast", "warnings"]
        assert (await client.call_tool("forecast", {"city": "x"})).content[0].text == "the main server's own"
        assert (await client.call_tool("warnings", {})).content[0].text == "none"
        assert [r.uri for r in await client.list_resources()] == ["weather://today"]


async def test_what_a_mounted_server_adds_and_removes_later_is_served_and_told() -> None:
    main = FastMCP("Main")
    sub = weather()
    main.mount(sub, namespace="w")
    inner = FastMCP("Inner")
    sub.mount(inner, namespace="in")
    changes: list[str] = []

    async def heard(method: str, params: Any) -> None:
        changes.append(method)

    async with Client(main, era="legacy", notification_handler=heard) as client:

        @inner.tool
        def late() -> str:
            return "added while serving"

        assert "w_in_late" in [t.name for t in await client.list_tools()]
        assert (await client.call_tool("w_in_late", {})).content[0].text == "added while serving"
        assert inner.remove_tool("late")
        assert sub.remove_tool("forecast")
        assert [t.name for t in await client.list_tools()] == []
        assert [t.name for t in await main.list_tools()] == []
    assert "notifications/tools/list_changed" in changes


async def test_a_mounted_servers_lifespan_runs_with_its_parents() -> None:
    entered: list[str] = []

    @contextlib.asynccontextmanager
    async def connect(server: Server[Any]) -> AsyncIterator[dict[str, str]]:
        entered.append("enter")
        yield {"db": "connected"}
        entered.append("exit")

    sub = FastMCP("Database", lifespan=connect)

    @sub.tool
    def query(ctx: Context) -> str:
        return str(ctx.request_context.lifespan_context["db"])

    main = FastMCP("Main")
    main.mount(sub, namespace="db")
    async with Client(main) as client:
        assert (await client.call_tool("db_query", {})).content[0].text == "connected"
        assert entered == ["enter"]
    assert entered == ["enter", "exit"]


def test_a_server_is_mounted_neither_on_itself_nor_in_a_circle() -> None:
    first, second = FastMCP("First"), FastMCP("Second")
    with pytest.raises(ValueError, match="itself"):
        first.mount(first)
    first.mount(second)
    with pytest.raises(ValueError, match="mounted on it"):
        second.mount(first)
    with pytest.raises(ValueError, match="once"):
        first.mount(second)


@pytest.fixture
def upstream(tmp_path: Path) -> Path:
    """The upstream server's script."""
    script = tmp_path / "upstream.py"
    script.write_text(UPSTREAM)
    return script


async def test_a_proxy_serves_what_the_server_behind_it_offers(upstream: Path) -> None:
    proxy = create_proxy(str(upstream), name="Front")

    @proxy.tool
    def own() -> str:
        return "the proxy's own"

    logged: list[tuple[str, Any]] = []

    async def log(message: LogMessage) -> None:
        logged.append((message.level, message.data))

    async with FastMCPClient(upstream) as direct, FastMCPClient(proxy, log_handler=log) as client:
        listed = [t.model_dump() for t in await client.list_tools()]
        assert [t["name"] for t in listed] == ["own", "count", "fail"]
        assert listed[1:] == [t.model_dump() for t in await direct.list_tools()]
        assert (await client.list_resource_templates())[0].uriTemplate == "notes://{name}"
        steps: list[float] = []

        async def heard(progress: float, total: float | None, message: str | None) -> None:
            steps.append(progress)

        counted = await client.call_tool("count", {"to": 3}, progress_handler=heard)
        assert counted.data == "counted to 3"
        assert steps == [1, 2, 3]
        assert logged == [("info", {"msg": "counting to 3", "extra": None})], "the log message of the call behind it"
        failed = await client.call_tool("fail", {}, raise_on_error=False)
        assert failed.is_error
        assert failed.content[0].text == (await direct.call_tool("fail", {}, raise_on_error=False)).content[0].text
        read = await client.read_resource("notes://oslo")
        assert read[0].text == "a note on oslo"
        prompt = await client.get_prompt("summarize", {"text": "x"})
        assert prompt.messages[0].content.text == "Summarize: x"
        assert (await client.call_tool("own", {})).data == "the proxy's own"


async def test_a_proxy_whose_server_is_down_at_first_serves_it_once_it_answers(
    notifications: Notifications,
) -> None:
    """FastMCP's proxies connect as requests need the backend; oxmcp's tries again, less
    and less often, and tells its clients the lists changed once the backend answers."""
    port = free_port()
    backend = FastMCP("Late")

    @backend.tool
    def late() -> str:
        return "here at last"

    proxy = create_proxy(f"http://127.0.0.1:{port}/mcp", name="Front")

    @proxy.tool
    def own() -> str:
        return "the proxy's own"

    async with Client(proxy, era="legacy", notification_handler=notifications) as client:
        assert [tool.name for tool in await client.list_tools()] == ["own"]
        async with await backend.start_http(port=port):
            await notifications.wait_for("notifications/tools/list_changed", timeout=10)
            assert [tool.name for tool in await client.list_tools()] == ["own", "late"]
            assert (await client.call_tool("late")).content[0].text == "here at last"


async def test_a_proxy_whose_server_went_away_reaches_it_again(tmp_path: Path, notifications: Notifications) -> None:
    """The server behind a proxy exits: the proxy serves the rest meanwhile (its lists
    still answer), starts it again, and serves what it offers once it answers."""
    script = tmp_path / "leaving.py"
    script.write_text(
        textwrap.dedent(
            """
            import os
            from oxmcp.fastmcp import FastMCP

            mcp = FastMCP("Leaving")

            @mcp.tool
            def pid() -> int:
                return os.getpid()

            @mcp.tool
            def leave() -> str:
                os._exit(3)

            if __name__ == "__main__":
                mcp.run()
            """
        )
    )
    proxy = create_proxy(str(script), name="Front")

    @proxy.tool
    def own() -> str:
        return "the proxy's own"

    async with Client(proxy, era="legacy", notification_handler=notifications) as client:
        first = (await client.call_tool("pid")).structured_content
        left = await client.call_tool("leave")
        assert left.is_error
        await notifications.wait_for("notifications/tools/list_changed", timeout=10)
        assert [tool.name for tool in await client.list_tools()] == ["own"], "served without it meanwhile"
        await notifications.wait_for("notifications/tools/list_changed", count=2, timeout=15)
        assert [tool.name for tool in await client.list_tools()] == ["own", "pid", "leave"]
        again = (await client.call_tool("pid")).structured_content
        assert again != first, "a new process of the server"


async def test_fastmcps_proxy_classes_serve_the_backend_and_hand_on_its_log_messages(
    upstream: Path, notifications: Notifications
) -> None:
    """FastMCP's ``ProxyProvider`` (added under a namespace) and ``FastMCPProxy`` with a
    ``ProxyClient``: the backend's components, and its log messages reach the caller of
    their call."""
    from oxmcp.fastmcp.server.providers.proxy import FastMCPProxy, ProxyClient, ProxyProvider

    gateway = FastMCP("Gateway")
    gateway.add_provider(ProxyProvider(lambda: ProxyClient(upstream)), namespace="up")
    direct = FastMCPProxy(client_factory=ProxyClient(upstream).new, name="Direct")
    for server, count in ((gateway, "up_count"), (direct, "count")):
        async with Client(server, era="legacy", notification_handler=notifications) as client:
            await client.set_log_level("info")
            assert (await client.call_tool(count, {"to": 1})).content[0].text == "counted to 1"
            assert notifications.of("notifications/message")[-1]["data"]["msg"] == "counting to 1"
            names = {tool.name for tool in await client.list_tools()}
            assert count in names and f"{count.removesuffix('count')}fail" in names


async def test_a_proxy_served_over_stdio_reaches_its_server_over_stdio(upstream: Path, tmp_path: Path) -> None:
    front = tmp_path / "front.py"
    front.write_text(f"from oxmcp.fastmcp.server import create_proxy\ncreate_proxy({str(upstream)!r}).run()\n")
    for era in ("legacy", "modern"):
        async with Client.stdio([sys.executable, str(front)], era=era) as client:
            assert [t.name for t in await client.list_tools()] == ["count", "fail"]
            assert (await client.call_tool("count", {"to": 2})).content[0].text == "counted to 2"


async def test_a_mounted_proxy_is_served_under_its_namespace(upstream: Path) -> None:
    main = FastMCP("Main")
    tools = FastMCP("Tools")
    tools.mount(create_proxy(str(upstream)), namespace="up")
    main.mount(tools, namespace="all")
    main.mount(create_proxy(str(upstream)))
    async with FastMCPClient(main) as client:
        names = [t.name for t in await client.list_tools()]
        assert names == ["all_up_count", "all_up_fail", "count", "fail"]
        templates = [t.uriTemplate for t in await client.list_resource_templates()]
        assert templates == ["notes://all/up/{name}", "notes://{name}"]
        assert (await client.call_tool("all_up_count", {"to": 1})).data == "counted to 1"
        assert (await client.call_tool("count", {"to": 2})).data == "counted to 2"
        read = await client.read_resource("notes://all/up/oslo")
        assert (read[0].text, str(read[0].uri)) == ("a note on oslo", "notes://all/up/oslo")
        assert [p.name for p in await client.list_prompts()] == ["all_up_summarize", "summarize"]


async def test_a_namespace_transform_names_what_the_server_proxies_too(upstream: Path) -> None:
    main = FastMCP("Main")
    main.mount(create_proxy(str(upstream)), namespace="up")

    @main.tool
    def own() -> str:
        return "own"

    main.add_transform(Namespace("api"))
    async with FastMCPClient(main) as client:
        assert [t.name for t in await client.list_tools()] == ["api_own", "api_up_count", "api_up_fail"]
        assert (await client.call_tool("api_up_count", {"to": 1})).data == "counted to 1"
        assert [t.uriTemplate for t in await client.list_resource_templates()] == ["notes://api/up/{name}"]
        assert (await client.read_resource("notes://api/up/oslo"))[0].text == "a note on oslo"
        assert [p.name for p in await client.list_prompts()] == ["api_up_summarize"]


async def test_a_proxy_mounted_by_the_lifespan_is_served(upstream: Path) -> None:
    """As FastMCP's diagnostics example does: the lifespan starts what it proxies, then
    mounts the proxy."""

    @contextlib.asynccontextmanager
    async def lifespan(server: Server[Any]) -> AsyncIterator[None]:
        server.mount(create_proxy(str(upstream)), namespace="proxied")
        yield

    main = FastMCP("Diagnostics", lifespan=lifespan)
    async with FastMCPClient(main) as client:
        assert [t.name for t in await client.list_tools()] == ["proxied_count", "proxied_fail"]
        assert (await client.call_tool("proxied_count", {"to": 1})).data == "counted to 1"


async def test_the_questions_of_the_server_behind_a_proxy_reach_the_proxys_client(tmp_path: Path) -> None:
    """A 2026-07-28 server's elicitation goes to whoever called the proxy: passed through to
    a 2026-07-28 client (its answer and the server's state come back with its retry), asked
    on the session of a 2025-11-25 one."""
    asking = tmp_path / "asking.py"
    asking.write_text(
        textwrap.dedent(
            """
            from oxmcp.fastmcp import Context, FastMCP

            mcp = FastMCP("Asking")

            @mcp.tool
            async def greet(ctx: Context) -> str:
                answer = await ctx.elicit("Your name?", response_type=str)
                return f"hello, {answer.data}"

            if __name__ == "__main__":
                mcp.run()
            """
        )
    )
    asked: list[str] = []

    async def user(request: ElicitRequest) -> ElicitResult:
        asked.append(request.message)
        return ElicitResult(action="accept", content={"value": "Ada"})

    proxy = create_proxy(str(asking))
    for era in ("legacy", "modern"):
        async with Client(proxy, era=era, elicitation_handler=user) as client:
            assert (await client.call_tool("greet", {})).content[0].text == "hello, Ada"
    assert asked == ["Your name?", "Your name?"]


async def test_a_legacy_servers_question_behind_a_proxy_reaches_its_legacy_caller() -> None:
    """A server of 2025-11-25 (written with the official TypeScript SDK) asks on its
    connection, not within the call: while the call is the only one pending, the proxy's
    caller of that era answers, on its session; a 2026-07-28 caller cannot be asked
    mid-call, and the proxy refuses the question."""
    server = ["node", str(REPO / "tests" / "interop" / "typescript" / "server.mjs"), "--stdio"]
    proxy = create_proxy({"mcpServers": {"typescript": {"command": server[0], "args": server[1:]}}})

    async def user(request: ElicitRequest) -> ElicitResult:
        return ElicitResult(action="accept", content={"ok": True})

    async with Client(proxy, era="legacy", elicitation_handler=user) as client:
        assert (await client.call_tool("confirm", {})).content[0].text == 'accept: {"ok":true}'
    async with Client(proxy, era="modern", elicitation_handler=user) as client:
        refused = await client.call_tool("confirm", {})
        assert refused.is_error
        assert "cannot tell which of its callers" in refused.content[0].text


def test_fastmcps_proxy_classes_refuse_to_forward_skills_they_cannot(upstream: Path) -> None:
    from oxmcp.fastmcp.server.providers.proxy import FastMCPProxy, ProxyClient, ProxyProvider

    with pytest.raises(NotImplementedError, match="skills"):
        ProxyProvider(lambda: ProxyClient(upstream), skills=True)
    with pytest.raises(NotImplementedError, match="skills"):
        FastMCPProxy(client_factory=ProxyClient(upstream).new, skills=True)


async def test_servers_given_one_session_state_store_share_what_handlers_keep_in_it() -> None:
    """``FastMCP(session_state_store=...)``, FastMCP's way for a server and the one mounted
    on it (or replicas) to share ``ctx.set_state``: the values live in that store's
    ``fastmcp_state`` collection, as FastMCP keeps them, and a server given none keeps its
    own."""
    store = MemoryStore()
    parent = FastMCP("Parent", session_state_store=store)
    child = FastMCP("Child", session_state_store=store)
    alone = FastMCP("Alone")

    @parent.tool
    async def remember(value: str, ctx: FastMCPContext) -> str:
        await ctx.set_state("memo", {"v": value})
        return "kept"

    async def recall(ctx: FastMCPContext) -> str:
        return repr(await ctx.get_state("memo"))

    async def forget(ctx: FastMCPContext) -> str:
        await ctx.delete_state("memo")
        return repr(await ctx.get_state("memo"))

    for server in (child, alone):
        server.tool(recall)
        server.tool(forget)
    parent.mount(child, namespace="c")
    parent.mount(alone, namespace="a")
    async with FastMCPClient(parent) as client:
        assert (await client.call_tool("remember", {"value": "x"})).data == "kept"
        assert (await client.call_tool("c_recall", {})).data == "{'v': 'x'}"
        assert (await client.call_tool("a_recall", {})).data == "None", "a server given no store keeps its own"
        [key] = await store.keys(collection="fastmcp_state")
        assert await store.get(key=key, collection="fastmcp_state") == {"value": {"v": "x"}}
        assert (await client.call_tool("c_forget", {})).data == "None"
        assert await store.keys(collection="fastmcp_state") == []
