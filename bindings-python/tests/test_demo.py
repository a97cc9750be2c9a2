"""The demo server (oxmcp, Python) as a child process, driven by the oxmcp Python client
over stdio and Streamable HTTP, in both protocol eras."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest

from conftest import CONNECTIONS, DEMO_SERVER, MRTR_PENDING, TRANSPORTS, Notifications, connect
from oxmcp import Client, McpError
from oxmcp.types import CreateMessageRequest, ElicitRequest, ElicitResult, Root

PIXEL = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
VERSIONS = {"legacy": "2025-11-25", "modern": "2026-07-28"}


async def answer_elicitation(request: ElicitRequest) -> ElicitResult:
    assert request.requested_schema is not None
    assert set(request.requested_schema["properties"]) == {"confirm", "seats"}
    return ElicitResult(action="accept", content={"confirm": True, "seats": 2})


async def answer_sampling(request: CreateMessageRequest) -> dict[str, Any]:
    question = request.messages[0].content["text"]
    assert request.system_prompt == "Be brief."
    return {"role": "assistant", "content": {"type": "text", "text": f"Paris ({question})"}, "model": "test-model"}


async def answer_roots() -> list[Root | str]:
    return ["file:///a", Root(uri="file:///b", name="b")]


@pytest.fixture(params=CONNECTIONS)
async def client(request: pytest.FixtureRequest, notifications: Notifications) -> AsyncIterator[Client]:
    transport, era = request.param
    async with connect(
        DEMO_SERVER,
        transport,
        era=era,
        elicitation_handler=answer_elicitation,
        sampling_handler=answer_sampling,
        roots_handler=answer_roots,
        notification_handler=notifications,
    ) as client:
        yield client


def text_of(result: Any) -> str:
    return "".join(block.text for block in result.content if block.type == "text")


def era_of(client: Client) -> str:
    return "modern" if client.protocol_version == VERSIONS["modern"] else "legacy"


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_eras_are_negotiated_as_asked(transport: str) -> None:
    for era, version in [("legacy", "2025-11-25"), ("modern", "2026-07-28"), ("auto", "2026-07-28")]:
        async with connect(DEMO_SERVER, transport, era=era) as client:
            assert client.protocol_version == version, era
            assert client.server_info is not None
            assert (client.server_info.name, client.server_info.version) == ("oxmcp-python-demo", "1.2.3")
            assert client.instructions == "A demo: add numbers, greet people."
            assert "tools" in client.capabilities


async def test_tools_are_listed_with_schemas_from_type_hints(client: Client) -> None:
    tools = {tool.name: tool for tool in await client.list_tools()}
    assert list(tools)[:4] == ["add", "shout", "midpoint", "stats"], "registration order"
    add = tools["add"]
    assert add.description == "Add two integers."
    assert add.input_schema["properties"]["a"]["type"] == "integer"
    assert add.input_schema["properties"]["b"]["description"] == "The second number"
    assert add.input_schema["required"] == ["a", "b"]
    assert add.output_schema == {
        "type": "object",
        "properties": {"result": {"title": "Result", "type": "integer"}},
        "required": ["result"],
        "title": "addOutput",
    }
    # As the official SDK: text is data too, wrapped.
    assert tools["shout"].output_schema == {
        "type": "object",
        "properties": {"result": {"title": "Result", "type": "string"}},
        "required": ["result"],
        "title": "shoutOutput",
    }
    assert tools["midpoint"].output_schema is not None
    assert set(tools["midpoint"].output_schema["properties"]) == {"x", "y"}
    assert "required" not in tools["weather"].input_schema, "a parameter with a default is optional"
    assert tools["pixel"].title == "A pixel"
    assert tools["pixel"].annotations is not None and tools["pixel"].annotations.read_only_hint is True


async def test_typed_tools_return_structured_output(client: Client) -> None:
    added = await client.call_tool("add", {"a": 2, "b": 40})
    assert added.structured_content == {"result": 42}
    # As the official SDK: the content is the value's own text, the structure wrapped.
    assert text_of(added) == "42"
    assert added.is_error is None

    shouted = await client.call_tool("shout", {"text": "hi"})
    assert (text_of(shouted), shouted.structured_content) == ("HI", {"result": "HI"})

    middle = await client.call_tool("midpoint", {"a": {"x": 0, "y": 0}, "b": {"x": 2, "y": 4}})
    assert middle.structured_content == {"x": 1.0, "y": 2.0}
    assert text_of(middle) == '{\n  "x": 1.0,\n  "y": 2.0\n}'

    stats = await client.call_tool("stats", {"values": [1, 2, 6]})
    assert stats.structured_content == {"count": 3, "mean": 3.0}

    weather = await client.call_tool("weather")
    assert weather.structured_content == {"city": "Paris", "celsius": 21.5}


async def test_invalid_arguments_are_reported_by_the_core(client: Client) -> None:
    result = await client.call_tool("add", {"a": "x", "b": 1})
    assert result.is_error is True
    assert "/a" in text_of(result) and "integer" in text_of(result)


async def test_failures_become_error_results_or_json_rpc_errors(client: Client) -> None:
    # A ToolError's text (an unexpected exception's is kept on the server: test_in_memory).
    meant = await client.call_tool("fail", {"kind": "tool"})
    assert (meant.is_error, text_of(meant)) == (True, "the tool failed on purpose")
    with pytest.raises(McpError) as raised:
        await client.call_tool("fail", {"kind": "rpc"})
    assert (raised.value.code, raised.value.message, raised.value.data) == (-32099, "a custom error", {"kind": "rpc"})
    with pytest.raises(McpError) as unknown:
        await client.call_tool("no_such_tool")
    assert unknown.value.code == -32602
    assert (await client.call_tool("add", {"a": 1, "b": 1})).structured_content == {"result": 2}, "still serving"


async def test_content_helpers(client: Client) -> None:
    result = await client.call_tool("pixel")
    assert [block.type for block in result.content] == ["text", "image"]
    image = result.content[1]
    assert image.type == "image"
    assert (image.mime_type, image.data) == ("image/png", PIXEL)


async def test_progress_reaches_the_callback(client: Client) -> None:
    seen: list[tuple[float, float | None, str | None]] = []
    result = await client.call_tool("slow", {"steps": 3}, progress_handler=lambda *p: seen.append(p))
    assert text_of(result) == "done after 3 steps"
    for _ in range(100):
        if len(seen) == 3:
            break
        await asyncio.sleep(0.01)
    assert seen == [(1.0, 3.0, "step 1"), (2.0, 3.0, "step 2"), (3.0, 3.0, "step 3")]


async def test_cancelling_the_call_cancels_the_handler_task(client: Client) -> None:
    call = asyncio.create_task(client.call_tool("slow", {"steps": 200}))
    await asyncio.sleep(0.3)
    call.cancel()
    with pytest.raises(asyncio.CancelledError):
        await call
    cancelled: list[str] = []
    for _ in range(100):
        cancelled = (await client.call_tool("cancellations")).structured_content["result"]
        if cancelled:
            break
        await asyncio.sleep(0.02)
    assert len(cancelled) == 1, "the handler saw asyncio.CancelledError"


async def test_timeouts_raise_and_cancel(client: Client) -> None:
    with pytest.raises(TimeoutError):
        await client.call_tool("slow", {"steps": 200}, timeout=0.2)


async def test_resources_and_templates(client: Client) -> None:
    resources = {r.uri: r for r in await client.list_resources()}
    assert list(resources) == ["file:///readme.md", "file:///pixel.png", "data://config"]
    assert resources["file:///readme.md"].mime_type == "text/markdown"
    assert resources["data://config"].description == "Settings, as JSON."
    templates = [t.uri_template for t in await client.list_resource_templates()]
    assert templates == ["greeting://{name}", "square://{n}"]

    readme = (await client.read_resource("file:///readme.md")).contents[0]
    assert (readme.mime_type, readme.text) == ("text/markdown", "# Demo\nHello.")
    pixel = (await client.read_resource("file:///pixel.png")).contents[0]
    assert (pixel.mime_type, pixel.blob) == ("image/png", PIXEL)
    config = (await client.read_resource("data://config")).contents[0]
    # Declared text/plain, as the official SDK declares a function's resource.
    assert (config.mime_type, config.text) == ("text/plain", '{\n  "debug": false,\n  "retries": 3\n}')
    greeting = (await client.read_resource("greeting://ada")).contents[0]
    assert (greeting.uri, greeting.text) == ("greeting://ada", "Hello, ada!")
    assert (await client.read_resource("square://7")).contents[0].text == "49"

    with pytest.raises(McpError) as bad_variable:
        await client.read_resource("square://seven")
    assert bad_variable.value.code == -32602
    with pytest.raises(McpError) as missing:
        await client.read_resource("file:///missing")
    assert missing.value.code == (-32002 if era_of(client) == "legacy" else -32602)


async def test_prompts_and_completions(client: Client) -> None:
    prompts = {p.name: p for p in await client.list_prompts()}
    review = prompts["review"]
    assert review.description == "Review a piece of code."
    assert [(a.name, a.required) for a in review.arguments or []] == [("code", True), ("language", False)]
    assert prompts["chat"].title == "A short chat"

    rendered = await client.get_prompt("review", {"code": "x = 1", "language": "python"})
    assert rendered.messages[0].role == "user"
    assert rendered.messages[0].content.text == "Please review this python:\nx = 1"
    chat = await client.get_prompt("chat", {"topic": "owls", "turns": "2"})
    assert [m.role for m in chat.messages] == ["user", "assistant", "user", "assistant"]

    with pytest.raises(McpError) as missing:
        await client.get_prompt("review")
    assert missing.value.code == -32602

    languages = await client.complete("language", "py", prompt="review")
    assert languages.values == ["python"]
    names = await client.complete("name", "a", template="greeting://{name}")
    assert names.values == ["ada", "alan"]


async def test_the_context_knows_the_request(client: Client) -> None:
    result = await client.call_tool("whoami")
    era = era_of(client)
    assert result.structured_content == {"era": era, "version": VERSIONS[era], "client": "oxmcp-python"}


async def test_log_messages_above_the_level_arrive(client: Client, notifications: Notifications) -> None:
    await client.set_log_level("info")
    assert text_of(await client.call_tool("log")) == "logged"
    messages = await notifications.wait_for("notifications/message", count=2)
    assert [(m["level"], m["logger"]) for m in messages] == [("info", "demo"), ("error", "demo")]
    assert messages[0]["data"] == {"detail": "an info message"}


async def test_tools_added_and_removed_at_runtime(client: Client, notifications: Notifications) -> None:
    assert text_of(await client.call_tool("add_tool", {"name": "dynamic"})) == "added"
    assert "dynamic" in [tool.name for tool in await client.list_tools()]
    assert text_of(await client.call_tool("dynamic")) == "I am dynamic"
    if era_of(client) == "legacy":
        await notifications.wait_for("notifications/tools/list_changed")
    assert (await client.call_tool("remove_tool", {"name": "dynamic"})).structured_content == {"result": True}
    assert "dynamic" not in [tool.name for tool in await client.list_tools()]
    with pytest.raises(McpError):
        await client.call_tool("dynamic")


async def test_resource_updates_reach_subscribers(client: Client, notifications: Notifications) -> None:
    await client.subscribe_resource("greeting://ada")
    await client.call_tool("touch", {"uri": "greeting://ada"})
    updates = await notifications.wait_for("notifications/resources/updated")
    assert updates[0]["uri"] == "greeting://ada"


async def test_the_server_asks_the_client(client: Client) -> None:
    """Elicitation, sampling and roots; the modern era needs multi round-trip requests."""
    try:
        booked = await client.call_tool("book", {"date": "Friday"})
    except Exception as error:
        if era_of(client) == "modern" and MRTR_PENDING in str(error):
            pytest.xfail(f"{MRTR_PENDING} requests are being built in the core")
        raise
    if era_of(client) == "modern" and booked.is_error and MRTR_PENDING in text_of(booked):
        pytest.xfail(f"{MRTR_PENDING} requests are being built in the core")
    assert text_of(booked) == "booked 2 seats on Friday"
    asked = await client.call_tool("ask_llm", {"question": "Capital of France?"})
    assert text_of(asked) == "test-model said: Paris (Capital of France?)"
    roots = await client.call_tool("roots")
    assert text_of(roots) == "file:///a,file:///b"
