"""The protocol's messages beyond listing and calling, in both eras, in process and over
Streamable HTTP: a missing resource, URL elicitation and its completion notice, roots
that change, custom methods, and skills (the skills extension)."""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, Literal

import pytest
from pydantic import BaseModel

from conftest import Notifications
from oxmcp import Client, Context, McpError, ProtocolError, ResourceNotFoundError, Server
from oxmcp.server import ServerRequestContext
from oxmcp.types import (
    CompleteRequestParams,
    CompleteResult,
    Completion,
    CreateMessageRequest,
    GetPromptRequestParams,
    GetPromptResult,
    NotificationParams,
    PaginatedRequestParams,
    ProgressNotificationParams,
    PromptMessage,
    PromptReference,
    Resource,
    SetLevelRequestParams,
    SubscribeRequestParams,
    TextContent,
    UnsubscribeRequestParams,
)

Era = Literal["legacy", "modern"]
ERAS: list[Era] = ["legacy", "modern"]
TRANSPORTS = ["memory", "http"]


@contextlib.asynccontextmanager
async def connect(server: Server, transport: str, era: Era, **options: Any) -> AsyncIterator[Client]:
    """A client of `server` in `era`, in process or over HTTP on a free port."""
    if transport == "memory":
        async with Client(server, era=era, **options) as client:
            yield client
        return
    async with await server.start_http(port=0) as http, Client.http(http.url, era=era, **options) as client:
        yield client


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize("era", ERAS)
async def test_a_missing_resource_raises_one_error_in_either_era(era: Era, transport: str) -> None:
    server = Server("files")

    @server.resource("file:///{name}")
    def read(name: str) -> str:
        if name != "here":
            raise ResourceNotFoundError(f"file:///{name}")
        return "present"

    async with connect(server, transport, era) as client:
        for uri in ["file:///gone", "other:///unknown"]:
            with pytest.raises(ResourceNotFoundError) as missing:
                await client.read_resource(uri)
            assert missing.value.uri == uri
            assert missing.value.code == (-32002 if era == "legacy" else -32602)
            assert missing.value.data == {"uri": uri}
            assert isinstance(missing.value, McpError)
        assert (await client.read_resource("file:///here")).contents[0].text == "present"


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_a_url_elicitation_completes_after_the_call_failed(transport: str, notifications: Notifications) -> None:
    server = Server("consent")
    contexts: asyncio.Queue[Context] = asyncio.Queue()

    @server.tool()
    async def connect_drive(ctx: Context) -> str:
        await contexts.put(ctx)
        consent = {"mode": "url", "message": "Sign in", "url": "https://drive.example/consent", "elicitationId": "c-1"}
        raise McpError(-32042, "URL elicitation required", {"elicitations": [consent]})

    async with connect(server, transport, "legacy", notification_handler=notifications) as client:
        with pytest.raises(McpError) as required:
            await client.call_tool("connect_drive")
        assert required.value.code == -32042
        assert required.value.data["elicitations"][0]["elicitationId"] == "c-1"
        ctx = await contexts.get()
        await ctx.session.send_elicit_complete("c-1")
        assert await notifications.wait_for("notifications/elicitation/complete") == [{"elicitationId": "c-1"}]


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize("heard_by", ["decorator", "low-level handler"])
async def test_a_legacy_client_says_its_roots_changed(transport: str, heard_by: str) -> None:
    seen: asyncio.Queue[tuple[Any, list[str]]] = asyncio.Queue()

    async def roots_changed(params: Any, ctx: Context) -> None:
        await seen.put((ctx.request_id, [root.uri for root in await ctx.list_roots()]))

    async def on_roots_list_changed(ctx: ServerRequestContext, params: NotificationParams | None) -> None:
        await roots_changed(params, ctx)

    if heard_by == "decorator":
        server = Server("rooted")
        server.notification_handler("notifications/roots/list_changed")(roots_changed)
    else:
        server = Server("rooted", on_roots_list_changed=on_roots_list_changed)

    roots = ["file:///one"]

    async def list_roots() -> list[str]:
        return roots

    async with connect(server, transport, "legacy", roots_handler=list_roots) as client:
        roots.append("file:///two")
        await client.send_roots_list_changed()
        request_id, uris = await asyncio.wait_for(seen.get(), 5)
        assert request_id is None
        assert uris == ["file:///one", "file:///two"]
    async with connect(server, transport, "modern", roots_handler=list_roots) as client:
        await client.send_roots_list_changed()
        await asyncio.sleep(0.2)
        assert seen.empty(), "2026-07-28 has no such notification"


async def test_a_low_level_server_hears_the_progress_a_client_reports() -> None:
    """``on_progress``: the official client reports progress (on a request the server sent
    it, say) and the low-level handler gets it as the official params."""
    from mcp import Client as OfficialClient

    heard: asyncio.Queue[Any] = asyncio.Queue()

    async def on_progress(ctx: ServerRequestContext, params: ProgressNotificationParams) -> None:
        await heard.put(params)

    server = Server("told", on_progress=on_progress)
    async with await server.start_http(port=0) as http, OfficialClient(http.url, mode="legacy") as client:
        # The official client warns that 2026-07-28 deprecates progress from clients.
        with pytest.warns(UserWarning, match="deprecated"):
            await client.session.send_progress_notification("job-1", 0.5, total=1.0, message="halfway")
        params = await asyncio.wait_for(heard.get(), 5)
    assert isinstance(params, ProgressNotificationParams)
    assert (params.progress_token, params.progress, params.total, params.message) == ("job-1", 0.5, 1.0, "halfway")


class Forecast(BaseModel):
    city: str
    days: int = 1


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize("era", ERAS)
async def test_custom_methods_and_an_extension(era: Era, transport: str) -> None:
    server = Server("extended")
    heard: asyncio.Queue[Any] = asyncio.Queue()

    @server.request_handler("weather/forecast")
    async def forecast(params: Forecast, ctx: Context) -> dict[str, Any]:
        return {"city": params.city, "days": params.days, "era": ctx.era}

    @server.notification_handler("notifications/weather/seen")
    async def seen(params: dict[str, Any]) -> None:
        await heard.put(params["city"])

    server.extension("com.example/weather", {"units": ["metric"]})
    with pytest.raises(ValueError, match="served by the core"):
        server.request_handler("tools/call")(forecast)

    async with connect(server, transport, era) as client:
        answer = await client.request("weather/forecast", {"city": "Oslo", "days": 3})
        assert {key: answer[key] for key in ("city", "days", "era")} == {"city": "Oslo", "days": 3, "era": era}
        with pytest.raises(McpError) as invalid:
            await client.request("weather/forecast", {"days": 3})
        assert invalid.value.code == -32602
        with pytest.raises(McpError) as unknown:
            await client.request("weather/unknown")
        assert unknown.value.code == -32601
        await client.notify("notifications/weather/seen", {"city": "Bergen"})
        assert await asyncio.wait_for(heard.get(), 5) == "Bergen"
        extensions = client.capabilities.get("extensions")
        assert extensions == ({"com.example/weather": {"units": ["metric"]}} if era == "modern" else None)


SKILLS = Path(__file__).resolve().parents[2] / "tests" / "skills"
SKILL_MD = "skill://pdf-processing/SKILL.md"
FORMS = "skill://pdf-processing/references/FORMS.md"


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_skills_are_listed_loaded_and_verified(transport: str) -> None:
    server = Server("skilled", skills=SKILLS)
    async with connect(server, transport, "modern") as client:
        [skill] = await client.list_skills()
        assert (skill.uri, skill.name) == (SKILL_MD, "pdf-processing")
        assert isinstance(skill.resources, list)
        assert [file.uri for file in skill.resources] == [SKILL_MD, FORMS]
        assert await client.get_skill(SKILL_MD) == skill
        with pytest.raises(McpError) as unknown:
            await client.get_skill("skill://nowhere/SKILL.md")
        assert unknown.value.code == -32602
        assert "# PDF processing" in await client.load_skill(skill)
        assert (await client.read_skill_file(skill, FORMS)).startswith(b"Forms have fields")

        tampered = skill.model_copy(update={"frontmatter": {**skill.frontmatter, "description": "Exfiltrate"}})
        with pytest.raises(ProtocolError, match="verification failed"):
            await client.load_skill(tampered)
        with pytest.raises(ProtocolError, match="verification failed"):
            await client.read_skill_file(skill, "skill://pdf-processing/secrets.txt")
    async with connect(server, transport, "legacy") as client:
        with pytest.raises(ProtocolError, match="does not offer skills"):
            await client.list_skills()


async def test_skills_added_to_a_server_are_served(tmp_path: Path) -> None:
    server = Server("skilled")
    server.add_skills(SKILLS)
    server.add_skills(SKILLS)
    async with connect(server, "memory", "modern") as client:
        [skill] = await client.list_skills()
        assert skill.uri == SKILL_MD
        assert [resource.uri for resource in await client.list_resources()] == [SKILL_MD]
    unnamed = tmp_path / "unnamed"
    unnamed.mkdir()
    (unnamed / "SKILL.md").write_text("# No front matter\n")
    with pytest.raises(ValueError, match="front matter"):
        server.add_skills(tmp_path)


async def test_the_skills_of_a_mounted_server_are_served_by_those_mounting_it_those_given_later_too() -> None:
    """A server mounted on one mounted on another: the skills it is given after both
    mounts are served by each, under the namespaces on the way up."""
    top, middle, team = Server("top"), Server("middle"), Server("team")
    top.mount(middle)
    middle.mount(team, "team")
    team.add_skill("review", {"SKILL.md": "---\nname: review\ndescription: Review a change\n---\n# Review\n"})
    async with connect(top, "memory", "modern") as client:
        [skill] = await client.list_skills()
        assert skill.uri == "skill://team/review/SKILL.md"
        assert "# Review" in await client.load_skill(skill)


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize("era", ERAS)
async def test_resources_not_known_up_front_are_listed_page_by_page(era: Era, transport: str) -> None:
    server = Server("files")
    names = [f"file{i}.txt" for i in range(1, 6)]

    @server.resource("config://app")
    def config() -> str:
        return "{}"

    @server.list_resources()
    async def files(cursor: str | None, ctx: Context) -> tuple[list[Resource], str | None]:
        start = int(cursor or 0)
        end = min(start + 2, len(names))
        page = [Resource(uri=f"file:///{name}", name=name) for name in names[start:end]]
        return page, (str(end) if end < len(names) else None)

    @server.resource("file:///{name}")
    def read_file(name: str) -> str:
        return f"contents of {name}"

    async with connect(server, transport, era) as client:
        listed = await client.list_resources()
        assert [resource.name for resource in listed] == ["config", *names]
        assert (await client.read_resource("file:///file5.txt")).contents[0].text == "contents of file5.txt"


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize("era", ERAS)
async def test_a_low_level_server_lists_serves_and_completes_what_it_does_not_register(
    era: Era, transport: str
) -> None:
    languages = ["python", "rust", "ruby"]

    async def on_list_prompts(ctx: ServerRequestContext, params: PaginatedRequestParams | None) -> dict[str, Any]:
        return {"prompts": [{"name": "review", "arguments": [{"name": "language", "required": True}]}]}

    def on_get_prompt(ctx: ServerRequestContext, params: GetPromptRequestParams) -> GetPromptResult:
        language = (params.arguments or {}).get("language")
        return GetPromptResult(messages=[PromptMessage(role="user", content=TextContent(text=f"Review {language}"))])

    async def on_completion(ctx: ServerRequestContext, params: CompleteRequestParams) -> CompleteResult | None:
        if not isinstance(params.ref, PromptReference) or params.ref.name != "review":
            return None
        values = [name for name in languages if name.startswith(params.argument.value)]
        return CompleteResult(completion=Completion(values=values))

    server = Server(
        "low-level", on_list_prompts=on_list_prompts, on_get_prompt=on_get_prompt, on_completion=on_completion
    )
    with pytest.raises(TypeError, match="on_ping"):
        Server("typo", on_ping=on_completion)  # type: ignore[call-arg]
    async with connect(server, transport, era) as client:
        assert [prompt.name for prompt in await client.list_prompts()] == ["review"]
        prompt = await client.get_prompt("review", {"language": "rust"})
        assert prompt.messages[0].content.text == "Review rust"
        assert (await client.complete("language", "r", prompt="review")).values == ["rust", "ruby"]
        with pytest.raises(McpError) as unknown:
            await client.complete("language", "r", template="file:///{name}")
        assert unknown.value.code == -32602, "no template is listed"


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_a_low_level_server_is_told_of_subscriptions_and_the_log_level(
    transport: str, notifications: Notifications
) -> None:
    told: list[str] = []

    async def on_subscribe_resource(ctx: ServerRequestContext, params: SubscribeRequestParams) -> None:
        if params.uri == "file:///secret":
            raise McpError(-32602, "not that one")
        told.append(f"subscribe {params.uri}")

    def on_unsubscribe_resource(ctx: ServerRequestContext, params: UnsubscribeRequestParams) -> None:
        told.append(f"unsubscribe {params.uri}")

    async def on_set_logging_level(ctx: ServerRequestContext, params: SetLevelRequestParams) -> dict[str, Any]:
        told.append(f"level {params.level}")
        return {}

    server = Server(
        "recording",
        on_subscribe_resource=on_subscribe_resource,
        on_unsubscribe_resource=on_unsubscribe_resource,
        on_set_logging_level=on_set_logging_level,
    )

    @server.resource("file:///{name}")
    def read(name: str) -> str:
        return name

    @server.tool()
    async def chatter(ctx: Context) -> str:
        await ctx.info("quiet")
        await ctx.warning("loud")
        return "done"

    async with connect(server, transport, "legacy", notification_handler=notifications) as client:
        await client.subscribe_resource("file:///a")
        await client.set_log_level("warning")
        with pytest.raises(McpError) as refused:
            await client.subscribe_resource("file:///secret")
        assert refused.value.code == -32602
        server.notify_resource_updated("file:///secret")
        server.notify_resource_updated("file:///a")
        updates = await notifications.wait_for("notifications/resources/updated")
        await client.call_tool("chatter")
        logged = await notifications.wait_for("notifications/message")
        await client.unsubscribe_resource("file:///a")
    assert [update["uri"] for update in updates] == ["file:///a"], "the core keeps the subscriptions"
    assert [message["data"] for message in logged] == ["loud"], "and filters by the level"
    assert told == ["subscribe file:///a", "level warning", "unsubscribe file:///a"]


CHATTY_SERVER = """
from oxmcp import Context, Server

server = Server("chatty")


@server.tool()
async def chatter(ctx: Context, n: int) -> str:
    await ctx.info(f"first {n}")
    await ctx.info(f"last {n}")
    return "done"


if __name__ == "__main__":
    server.run()
"""


@pytest.mark.parametrize("transport", [*TRANSPORTS, "stdio"])
@pytest.mark.parametrize("era", ERAS)
async def test_what_a_handler_sends_before_returning_arrives_before_its_result(
    era: Era, transport: str, notifications: Notifications, tmp_path: Path
) -> None:
    """The official clients hand a notification to the handler before reading on; so
    does oxmcp's, although the loop runs the handler and resolves the call."""
    script = tmp_path / "chatty.py"
    script.write_text(CHATTY_SERVER)
    namespace: dict[str, Any] = {}
    exec(compile(CHATTY_SERVER, str(script), "exec"), namespace)
    calls = 40
    if transport == "stdio":
        client = Client.stdio([sys.executable, str(script)], era=era, notification_handler=notifications)
        opened: contextlib.AbstractAsyncContextManager[Client] = client
    else:
        opened = connect(namespace["server"], transport, era, notification_handler=notifications)
    async with opened as client:
        await client.set_log_level("info")
        for n in range(calls):
            await client.call_tool("chatter", {"n": n})
            logged = [message["data"] for message in notifications.of("notifications/message")]
            assert logged[-2:] == [f"first {n}", f"last {n}"], f"call {n} returned before its messages"


async def test_a_servers_cache_hints_reach_modern_clients_of_its_lists_and_reads() -> None:
    for settings, expected in (
        ({}, (0, "public", "private")),
        ({"cache_ttl": 60}, (60_000, "private", "private")),
        ({"cache_ttl": 1.5, "cache_scope": "public"}, (1_500, "public", "public")),
    ):
        server = Server("cached", **settings)

        @server.tool()
        def echo(text: str) -> str:
            return text

        @server.resource("note://today")
        def note() -> str:
            return "today"

        async with Client(server, era="modern") as client:
            listed = await client.request("tools/list")
            read = await client.request("resources/read", {"uri": "note://today"})
        assert (listed.get("ttlMs"), listed.get("cacheScope"), read.get("cacheScope")) == expected, settings
        assert read.get("ttlMs") == expected[0]
    for refused in ({"cache_scope": "public"}, {"cache_ttl": 0}, {"cache_ttl": 5, "cache_scope": "everyone"}):
        with pytest.raises(ValueError, match="cache_"):
            Server("refused", **refused)


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize("era", ERAS)
async def test_a_handler_reads_where_the_http_request_came_from(era: Era, transport: str) -> None:
    server = Server("origins")

    @server.tool()
    def origin(ctx: Context) -> str:
        request = ctx.request_context.request
        if request is None:
            return "in process"
        client = request.client.host if request.client else "unknown"
        return f"{request.method} {request.url.path} from {client}"

    async with connect(server, transport, era) as client:
        answer = (await client.call_tool("origin")).content[0]
    expected = {"memory": "in process", "http": "POST /mcp from 127.0.0.1"}[transport]
    assert answer.type == "text" and answer.text == expected


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize("era", ERAS)
async def test_every_request_carries_progress_and_meta(era: Era, transport: str) -> None:
    server = Server("progressing")

    @server.resource("data://report")
    async def report(ctx: Context) -> str:
        await ctx.report_progress(1, 2, "half")
        return f"trace {(ctx.meta or {}).get('com.example/trace')}"

    @server.prompt()
    async def summary(ctx: Context) -> str:
        await ctx.report_progress(1, 1)
        return f"trace {(ctx.meta or {}).get('com.example/trace')}"

    seen: list[tuple[float, float | None, str | None]] = []

    def progress(done: float, total: float | None, message: str | None) -> None:
        seen.append((done, total, message))

    meta = {"com.example/trace": "t-1"}
    async with connect(server, transport, era) as client:
        read = await client.read_resource("data://report", progress_handler=progress, meta=meta)
        assert read.contents[0].text == "trace t-1"
        prompt = await client.get_prompt("summary", progress_handler=progress, meta=meta)
        assert prompt.messages[0].content.text == "trace t-1"
        for _ in range(50):
            if len(seen) == 2:
                break
            await asyncio.sleep(0.02)
        assert seen == [(1, 2, "half"), (1, 1, None)]


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize("era", ERAS)
async def test_capabilities_say_what_is_registered_and_what_is_declared(era: Era, transport: str) -> None:
    server = Server("tools-only")

    @server.tool()
    def echo(text: str) -> str:
        return text

    async with connect(server, transport, era) as client:
        capabilities = client.capabilities
        assert "tools" in capabilities and "logging" in capabilities, capabilities
        assert not {"prompts", "resources", "completions"} & capabilities.keys(), capabilities
        if era == "modern":
            async with await client.listen(tools_list_changed=True, prompts_list_changed=True) as subscription:
                assert subscription.acknowledged == {"toolsListChanged": True}
    flags = {"acme/flags": {"beta": True}}
    declaring = Server("declaring", declare=["prompts", "completions"], experimental_capabilities=flags)
    async with connect(declaring, transport, era) as client:
        capabilities = client.capabilities
        assert capabilities["prompts"] == {"listChanged": True}, capabilities
        assert "completions" in capabilities and "tools" not in capabilities, capabilities
        assert capabilities["experimental"] == flags, capabilities
    with pytest.raises(ValueError, match="not a capability"):
        Server("wrong", declare=["logging"])  # type: ignore[list-item]


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize("era", ERAS)
async def test_lists_are_read_page_by_page(era: Era, transport: str) -> None:
    server = Server("paged", page_size=2)
    for n in range(5):
        server.add_tool(lambda: "ok", name=f"t{n}")
    for n in range(3):
        server.add_prompt(lambda: "hi", name=f"p{n}")

    @server.resource("config://{name}")
    def config(name: str) -> str:
        return name

    async with connect(server, transport, era) as client:
        names: list[str] = []
        cursor: str | None = None
        pages = 0
        while True:
            page = await client.list_tools_page(cursor)
            names += [tool.name for tool in page.tools]
            pages += 1
            if page.next_cursor is None:
                break
            cursor = page.next_cursor
        assert (names, pages) == (["t0", "t1", "t2", "t3", "t4"], 3)
        first = await client.list_prompts_page()
        assert [prompt.name for prompt in first.prompts] == ["p0", "p1"] and first.next_cursor
        # The legacy era has no caching hints; 2026-07-28 lists say how long they keep.
        assert (first.ttl_ms is None) == (era == "legacy"), first
        templates = await client.list_resource_templates_page()
        assert [t.uri_template for t in templates.resource_templates] == ["config://{name}"]
        assert (await client.list_resources_page()).resources == []
        with pytest.raises(McpError):
            await client.list_tools_page("not a cursor")


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_a_2026_client_listens_for_list_changes(transport: str, notifications: Notifications) -> None:
    # Tools come after the client connected: the server says it will have them.
    server = Server("changing", declare=["tools"])
    async with connect(server, transport, "modern", notification_handler=notifications) as client:
        async with await client.listen(tools_list_changed=True):
            server.add_tool(lambda: "late", name="late")
            await notifications.wait_for("notifications/tools/list_changed")
        assert [tool.name for tool in await client.list_tools()] == ["late"]
        server.add_tool(lambda: "later", name="later")
        await asyncio.sleep(0.2)
        assert len(notifications.of("notifications/tools/list_changed")) == 1, "closed: no more"


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize("era", ERAS)
async def test_sampling_with_tools_goes_round_through_tool_results(era: Era, transport: str) -> None:
    server = Server("sampler")
    weather = {"name": "get_weather", "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}}}

    @server.tool()
    async def forecast(ctx: Context) -> str:
        first = await ctx.sample("Weather in Oslo?", tools=[weather], tool_choice="auto")
        use = first.content
        assert use["type"] == "tool_use", use
        answer = await ctx.sample(
            [
                {"role": "user", "content": {"type": "text", "text": "Weather in Oslo?"}},
                {"role": "assistant", "content": use},
                {
                    "role": "user",
                    "content": {
                        "type": "tool_result",
                        "toolUseId": use["id"],
                        "content": [{"type": "text", "text": "sun"}],
                    },
                },
            ],
            tools=[weather],
        )
        text: str = answer.content["text"]
        return text

    asked: list[CreateMessageRequest] = []

    async def model(request: CreateMessageRequest) -> dict[str, Any]:
        asked.append(request)
        if request.messages[-1].content["type"] == "tool_result":
            return {"role": "assistant", "content": {"type": "text", "text": "Sunny in Oslo"}, "model": "m"}
        use = {"type": "tool_use", "id": "call-1", "name": "get_weather", "input": {"city": "Oslo"}}
        return {"role": "assistant", "content": use, "model": "m", "stopReason": "toolUse"}

    async with connect(server, transport, era, sampling_handler=model, sampling_tools=True) as client:
        assert (await client.call_tool("forecast")).content[0].text == "Sunny in Oslo"
    assert [tool.name for tool in asked[0].tools or []] == ["get_weather"]
    assert asked[0].tool_choice == {"mode": "auto"}
    # A client that does not declare sampling with tools is not sent tools: the tool fails
    # (2026-07-28 says why with -32021, "missing required client capability").
    async with connect(server, transport, era, sampling_handler=model) as client:
        if era == "legacy":
            assert (await client.call_tool("forecast")).is_error
        else:
            with pytest.raises(McpError) as missing:
                await client.call_tool("forecast")
            assert missing.value.code == -32021
