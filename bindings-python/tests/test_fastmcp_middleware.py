"""FastMCP's middleware on a ported server: each hook sees its requests, may change the
message it passes on and what comes back, or answer by itself, in both eras."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import sys
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from oxmcp import Client, McpError
from oxmcp.fastmcp import Client as FastMCPClient
from oxmcp.fastmcp import FastMCP
from oxmcp.fastmcp.exceptions import ToolError
from oxmcp.fastmcp.server.extensions import MethodBinding, ServerExtension, read_client_extension_settings
from oxmcp.fastmcp.server.middleware import CallNext, Middleware, MiddlewareContext
from oxmcp.fastmcp.server.middleware.caching import CallToolSettings, ResponseCachingMiddleware
from oxmcp.fastmcp.server.middleware.error_handling import ErrorHandlingMiddleware, RetryMiddleware
from oxmcp.fastmcp.server.middleware.logging import LoggingMiddleware, StructuredLoggingMiddleware
from oxmcp.fastmcp.server.middleware.rate_limiting import RateLimitingMiddleware, SlidingWindowRateLimitingMiddleware
from oxmcp.fastmcp.server.middleware.timing import DetailedTimingMiddleware, TimingMiddleware
from oxmcp.fastmcp.tools import ToolResult

MODES = ("legacy", "2026-07-28")


class Recording(Middleware):
    """Notes every message and request it sees, in order."""

    def __init__(self) -> None:
        self.seen: list[str] = []

    async def on_message(self, context: MiddlewareContext[Any], call_next: CallNext[Any, Any]) -> Any:
        self.seen.append(f"message {context.method}")
        return await call_next(context)

    async def on_request(self, context: MiddlewareContext[Any], call_next: CallNext[Any, Any]) -> Any:
        self.seen.append(f"request {context.method}")
        return await call_next(context)


class Gatekeeper(Middleware):
    """Hides and refuses the admin tools, rewrites and reshapes calls."""

    async def on_list_tools(self, context: MiddlewareContext[Any], call_next: CallNext[Any, Any]) -> Any:
        return [tool for tool in await call_next(context) if "admin" not in tool.tags]

    async def on_call_tool(self, context: MiddlewareContext[Any], call_next: CallNext[Any, Any]) -> Any:
        assert context.fastmcp_context is not None
        name = context.message.name
        if name == "wipe":
            raise ToolError("wipe is for admins")
        if name == "add":
            arguments = {**context.message.arguments, "b": 100}
            context = context.copy(message=context.message.model_copy(update={"arguments": arguments}))
        if name == "flaky":
            # A tool's failure reaches the hooks as FastMCP's does.
            with pytest.raises(ToolError) as failed:
                await call_next(context)
            return ToolResult(content=f"recovered from: {failed.value}")
        result = await call_next(context)
        if name == "shout":
            assert isinstance(result, ToolResult)
            return ToolResult(content=result.content[0].text.upper())
        return result

    async def on_get_prompt(self, context: MiddlewareContext[Any], call_next: CallNext[Any, Any]) -> Any:
        raise McpError(-32001, f"prompt {context.message.name} is switched off")

    async def on_read_resource(self, context: MiddlewareContext[Any], call_next: CallNext[Any, Any]) -> Any:
        result = await call_next(context)
        result.contents[0].text += " (checked)"
        return result


def guarded_server() -> tuple[FastMCP, Recording]:
    recording = Recording()
    mcp = FastMCP("guarded", middleware=[recording])
    mcp.add_middleware(Gatekeeper())

    @mcp.tool
    def add(a: int, b: int) -> int:
        return a + b

    @mcp.tool(tags={"admin"})
    def wipe() -> str:
        return "wiped"

    @mcp.tool
    async def shout(text: str) -> str:
        return text

    @mcp.tool
    def flaky() -> str:
        raise ValueError("flaked")

    @mcp.resource("notes://today")
    def today() -> str:
        return "nothing planned"

    @mcp.prompt
    def greet(name: str) -> str:
        return f"Hello {name}"

    return mcp, recording


@pytest.mark.parametrize("mode", MODES)
async def test_middleware_runs_around_every_request(mode: str) -> None:
    mcp, recording = guarded_server()
    async with FastMCPClient(mcp, mode=mode) as client:
        assert [tool.name for tool in await client.list_tools()] == ["add", "shout", "flaky"]
        assert (await client.call_tool("add", {"a": 1, "b": 2})).data == 101
        shouted = await client.call_tool("shout", {"text": "hi"})
        assert [block.text for block in shouted.content] == ["HI"]
        with pytest.raises(ToolError, match="wipe is for admins"):
            await client.call_tool("wipe", {})
        recovered = await client.call_tool("flaky", {})
        assert [block.text for block in recovered.content] == ["recovered from: Error calling tool 'flaky': flaked"]
        (contents,) = await client.read_resource("notes://today")
        assert contents.text == "nothing planned (checked)"
        with pytest.raises(McpError, match="prompt greet is switched off") as refused:
            await client.get_prompt("greet", {"name": "Ada"})
        assert refused.value.code == -32001
    seen = recording.seen
    calls = [entry for entry in seen if entry.endswith("tools/call")]
    assert calls == ["message tools/call", "request tools/call"] * 4
    assert {"request tools/list", "request resources/read", "request prompts/get"} <= set(seen)
    assert ("request server/discover" in seen) == (mode != "legacy")
    assert ("request initialize" in seen) == (mode == "legacy")


def echo_server(*middleware: Middleware) -> FastMCP:
    mcp = FastMCP("echo", middleware=list(middleware))

    @mcp.tool
    def weather(city: str) -> dict[str, Any]:
        return {"city": city, "degrees": 21}

    @mcp.tool
    def broken() -> str:
        raise ValueError("no luck")

    return mcp


@pytest.mark.parametrize("mode", MODES)
async def test_what_middleware_passes_on_is_sent_as_the_method_gave_it(mode: str) -> None:
    answers = []
    for mcp in (echo_server(), echo_server(Middleware(), Recording())):
        async with FastMCPClient(mcp, mode=mode) as client:
            listed = (await client.list_tools_mcp()).model_dump(by_alias=True)
            called = [
                (await client.call_tool_mcp(name, arguments)).model_dump(by_alias=True)
                for name, arguments in (("weather", {"city": "Oslo"}), ("broken", {}))
            ]
            answers.append((listed, called))
    assert answers[0] == answers[1]


@pytest.mark.parametrize("mode", MODES)
async def test_fastmcp_logging_timing_and_error_handling_middleware(
    mode: str, caplog: pytest.LogCaptureFixture
) -> None:
    errors = ErrorHandlingMiddleware(error_callback=lambda error, context: told.append(context.method))
    told: list[str | None] = []
    logged = LoggingMiddleware(include_payloads=True, methods=["tools/call"])
    mcp = echo_server(
        errors,
        TimingMiddleware(),
        DetailedTimingMiddleware(),
        logged,
        StructuredLoggingMiddleware(include_payload_length=True),
    )
    caplog.set_level(logging.INFO)
    async with FastMCPClient(mcp, mode=mode) as client:
        assert (await client.call_tool("weather", {"city": "Oslo"})).data == {"city": "Oslo", "degrees": 21}
        # A tool's failure passes the error handling, which answers it as what the tool
        # raised calls for (a ValueError: invalid params), as FastMCP's does.
        with pytest.raises(McpError, match="Invalid params: Error calling tool 'broken': no luck") as failed:
            await client.call_tool_mcp("broken", {})
        assert failed.value.code == -32602
    timings = [record.getMessage() for record in caplog.records if record.name == "fastmcp.timing"]
    assert any(message.startswith("Request tools/call completed in ") for message in timings), timings
    assert any(message.startswith("Request tools/call failed after ") for message in timings), timings
    detailed = [record.getMessage() for record in caplog.records if record.name == "fastmcp.timing.detailed"]
    assert any(message.startswith("Tool 'weather' completed in ") for message in detailed), detailed
    assert any(message.startswith("Tool 'broken' failed after ") for message in detailed), detailed
    assert errors.get_error_stats() == {"ToolError:tools/call": 1}
    assert told == ["tools/call"]
    lines = [record.getMessage() for record in caplog.records if record.name == "fastmcp.middleware.logging"]
    assert lines[0].startswith("event=request_start method=tools/call source=client payload={")
    assert '"city":"Oslo"' in lines[0] and lines[0].endswith("payload_type=CallToolRequestParams")
    assert lines[1].startswith("event=request_success method=tools/call source=client duration_ms=")
    assert lines[3].startswith("event=request_error method=tools/call source=client duration_ms=")
    assert lines[3].endswith("error=Error calling tool 'broken': no luck")
    structured = [
        json.loads(record.getMessage())
        for record in caplog.records
        if record.name == "fastmcp.middleware.structured_logging"
    ]
    seen = {(event["event"], event["method"]) for event in structured}
    assert {("request_start", "tools/call"), ("request_success", "tools/call"), ("request_error", "tools/call")} <= seen
    assert all("payload_length" in event for event in structured if event["event"] == "request_start")


@pytest.mark.parametrize("mode", MODES)
async def test_a_tools_failure_reaches_the_middleware_with_what_the_tool_raised(mode: str) -> None:
    attempts: dict[str, int] = {"flaky": 0, "down": 0}
    causes: list[type[BaseException] | None] = []

    class Cause(Middleware):
        async def on_call_tool(self, context: MiddlewareContext[Any], call_next: CallNext[Any, Any]) -> Any:
            try:
                return await call_next(context)
            except ToolError as failed:
                causes.append(None if failed.__cause__ is None else type(failed.__cause__))
                raise

    mcp = FastMCP(
        "errors", middleware=[ErrorHandlingMiddleware(), RetryMiddleware(max_retries=2, base_delay=0), Cause()]
    )

    @mcp.tool
    def missing() -> str:
        raise FileNotFoundError("no such file")

    @mcp.tool
    async def flaky() -> str:
        attempts["flaky"] += 1
        if attempts["flaky"] < 3:
            raise ConnectionError(f"try {attempts['flaky']}")
        return f"worked after {attempts['flaky']}"

    @mcp.tool
    def down() -> str:
        attempts["down"] += 1
        raise ConnectionError("always down")

    async with FastMCPClient(mcp, mode=mode) as client:
        with pytest.raises(McpError, match="Not found: Error calling tool 'missing': no such file") as failed:
            await client.call_tool_mcp("missing", {})
        assert failed.value.code == -32001
        assert (await client.call_tool("flaky", {})).data == "worked after 3"
        with pytest.raises(McpError, match="Internal error: Error calling tool 'down': always down") as failed:
            await client.call_tool_mcp("down", {})
        assert failed.value.code == -32603
    assert attempts == {"flaky": 3, "down": 3}, "each retried twice, as the tool raised ConnectionError"
    assert causes == [
        FileNotFoundError,
        ConnectionError,
        ConnectionError,
        ConnectionError,
        ConnectionError,
        ConnectionError,
    ]


@pytest.mark.parametrize("mode", MODES)
async def test_fastmcp_rate_limiting_middleware(mode: str) -> None:
    for limiting, refusal in (
        (
            RateLimitingMiddleware(max_requests_per_second=0.001, burst_capacity=3),
            "Rate limit exceeded for client: global",
        ),
        (
            RateLimitingMiddleware(max_requests_per_second=0.001, burst_capacity=3, global_limit=True),
            "Global rate limit exceeded",
        ),
        (
            SlidingWindowRateLimitingMiddleware(max_requests=3, get_client_id=lambda context: "me"),
            "Rate limit exceeded: 3 requests per 1 minutes for client: me",
        ),
    ):
        async with FastMCPClient(echo_server(limiting), mode=mode) as client:
            answered = 0
            with pytest.raises(McpError) as refused:
                while answered < 4:
                    await client.call_tool_mcp("weather", {"city": "Oslo"})
                    answered += 1
            assert (refused.value.code, refused.value.message) == (-32000, refusal)
            # The handshake is a request, as a 2026-07-28 client's discovery is.
            assert answered == 2


@pytest.mark.parametrize("mode", MODES)
async def test_fastmcp_response_caching_middleware(mode: str) -> None:
    """What FastMCP's caching gives, checked against FastMCP 4.2.3 by hand: the same call
    answered from the cache, other arguments and excluded tools not, failures never kept."""
    runs = {"count": 0, "boom": 0, "read": 0, "prompt": 0}
    caching = ResponseCachingMiddleware(call_tool_settings=CallToolSettings(excluded_tools=["fresh"]))
    mcp = FastMCP("cached", middleware=[caching])

    @mcp.tool
    def count(step: int = 1) -> int:
        runs["count"] += step
        return runs["count"]

    @mcp.tool
    def fresh() -> int:
        runs["count"] += 1
        return runs["count"]

    @mcp.tool
    def boom() -> str:
        runs["boom"] += 1
        raise ValueError(f"boom {runs['boom']}")

    @mcp.resource("data://r")
    def read() -> str:
        runs["read"] += 1
        return f"read {runs['read']}"

    @mcp.prompt
    def greet(name: str) -> str:
        runs["prompt"] += 1
        return f"{name} {runs['prompt']}"

    async with FastMCPClient(mcp, mode=mode) as client:
        calls = [("count", {}), ("count", {}), ("count", {"step": 2}), ("count", {"step": 2}), ("fresh", {})]
        answers = [(await client.call_tool(name, arguments)).data for name, arguments in calls]
        assert answers == [1, 1, 3, 3, 4]
        assert (await client.call_tool("fresh", {})).data == 5
        for attempt in (1, 2):
            failed = await client.call_tool_mcp("boom", {})
            assert failed.isError and failed.content[0].text == f"Error calling tool 'boom': boom {attempt}"
        for _ in range(2):
            assert (await client.read_resource("data://r"))[0].text == "read 1"
            assert (await client.get_prompt("greet", {"name": "a"})).messages[0].content.text == "a 1"
        listed = [tool.name for tool in await client.list_tools()]
        mcp.tool(lambda: "late", name="late")
        assert [tool.name for tool in await client.list_tools()] == listed, "lists are kept five minutes"
    with pytest.raises(TypeError, match="cache_storage"):
        ResponseCachingMiddleware(cache_storage=object())  # type: ignore[arg-type]


PINGED_SERVER = """
from oxmcp.fastmcp import FastMCP
from oxmcp.fastmcp.server.middleware import PingMiddleware

mcp = FastMCP("pinged", middleware=[PingMiddleware(interval_ms=20)])

@mcp.tool
def hello() -> str:
    return "hi"

mcp.run()
"""


async def test_a_quiet_session_is_pinged(tmp_path: Path) -> None:
    script = tmp_path / "pinged.py"
    script.write_text(PINGED_SERVER)
    server = await asyncio.create_subprocess_exec(
        sys.executable, str(script), stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE
    )
    assert server.stdin is not None and server.stdout is not None
    stdin, stdout = server.stdin, server.stdout

    def send(message: dict[str, Any]) -> None:
        stdin.write(json.dumps({"jsonrpc": "2.0", **message}).encode() + b"\n")

    try:
        capabilities = {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"},
        }
        send({"id": 1, "method": "initialize", "params": capabilities})
        assert json.loads(await asyncio.wait_for(stdout.readline(), 10))["id"] == 1
        send({"method": "notifications/initialized"})
        send({"id": 2, "method": "tools/call", "params": {"name": "hello", "arguments": {}}})
        pings = 0
        while pings < 3:
            message = json.loads(await asyncio.wait_for(stdout.readline(), 10))
            if message.get("method") == "ping":
                assert "params" not in message or message["params"] == {}
                pings += 1
                send({"id": message["id"], "result": {}})
        stdin.close()
        assert await asyncio.wait_for(server.wait(), 10) == 0, "the server ends with its input"
    finally:
        if server.returncode is None:
            server.kill()
            await server.wait()


class Forecast(BaseModel):
    city: str


class WeatherExtension(ServerExtension):
    """An extension as FastMCP's documentation writes one: settings, a method of its own
    (2026-07-28 only), an interceptor that answers one tool itself, and a lifespan."""

    identifier = "com.example/weather"

    def __init__(self, events: list[str]) -> None:
        self.events = events

    def settings(self) -> dict[str, Any]:
        return {"units": ["metric"]}

    def methods(self) -> list[MethodBinding]:
        async def forecast(ctx: Any, params: Forecast) -> dict[str, Any]:
            asked = read_client_extension_settings(ctx, self.identifier)
            return {"city": params.city, "sky": "clear", "server": self.server.name, "asked": asked}

        return [MethodBinding("weather/forecast", Forecast, forecast, frozenset({"2026-07-28"}))]

    async def intercept_tool_call(self, params: Any, context: Any, call_next: Any) -> Any:
        self.events.append(f"call {params.name}")
        if params.name == "blocked":
            return ToolResult(content="blocked by the extension")
        return await call_next()

    @contextlib.asynccontextmanager
    async def _living(self) -> Any:
        self.events.append("up")
        yield
        self.events.append("down")

    def lifespan(self) -> Any:
        return self._living()


async def test_a_server_extension_declares_serves_intercepts_and_lives_with_its_server() -> None:
    """FastMCP's ``ServerExtension`` through ``add_extension``: its settings declared to
    2026-07-28 clients, its method answered (params checked, other protocol versions told
    it is unknown), its interceptor around each tool call, its lifespan with the server's;
    an identifier without a reverse-DNS prefix, and a binding of a protocol method, refused."""
    events: list[str] = []
    mcp = FastMCP("weather")

    @mcp.tool
    def blocked() -> str:
        return "ran"

    @mcp.tool
    def allowed() -> str:
        return "ran"

    mcp.add_extension(WeatherExtension(events))
    async with Client(mcp, era="modern") as client:
        assert client.capabilities["extensions"]["com.example/weather"] == {"units": ["metric"]}
        answer = await client.request("weather/forecast", {"city": "Oslo"})
        assert answer["city"] == "Oslo" and answer["server"] == "weather" and answer["asked"] is None
        with pytest.raises(McpError, match="Invalid params for weather/forecast"):
            await client.request("weather/forecast", {"town": "Oslo"})
        assert (await client.call_tool("blocked")).content[0].text == "blocked by the extension"
        assert (await client.call_tool("allowed")).content[0].text == "ran"
    async with Client(mcp, era="legacy") as client:
        with pytest.raises(McpError, match="not available at protocol version '2025-11-25'"):
            await client.request("weather/forecast", {"city": "Oslo"})
    assert events == ["up", "call blocked", "call allowed", "down", "up", "down"]

    class Unprefixed(ServerExtension):
        pass

    with pytest.raises(TypeError, match="reverse-DNS prefix"):
        Unprefixed.identifier = "weather"
        FastMCP("x").add_extension(Unprefixed())
    with pytest.raises(ValueError, match="cannot bind spec method 'tools/call'"):
        MethodBinding("tools/call", Forecast, WeatherExtension(events).methods()[0].handler)
