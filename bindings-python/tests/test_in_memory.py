"""A server and client in one process over the in-memory transport: how Python functions
become definitions, how return values become results, and where handlers run."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import threading
import time
from collections.abc import AsyncIterator
from contextvars import ContextVar
from pathlib import Path
from typing import Annotated, Any, Literal

import anyio
import mcp_types
import pytest
from pydantic import BaseModel, Field

from conftest import EndlessTool, Notifications
from oxmcp import (
    Audio,
    CallToolResult,
    Client,
    Context,
    EmbeddedResource,
    File,
    Image,
    McpError,
    MCPServer,
    ResourceError,
    ResourceLink,
    ResourceNotFoundError,
    Server,
    TextContent,
    ToolError,
)
from oxmcp._native import runs_in_one_step
from oxmcp.fastmcp import Client as FastMCPClient
from oxmcp.fastmcp import Context as FastMCPContext
from oxmcp.fastmcp import FastMCP
from oxmcp.server import InterceptedRequest, NextMethod
from oxmcp.types import (
    Completion,
    CompletionArgument,
    ElicitRequest,
    ElicitResult,
    PromptReference,
    ResourceTemplateReference,
    TextResourceContents,
)

NAME = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}
THIS_FILE = Path(__file__).resolve().as_uri()


class Address(BaseModel):
    street: str
    city: str


@dataclasses.dataclass
class Person:
    name: str
    address: Address


def returning(value: Any) -> Any:
    """A function without parameters that returns `value`."""
    return lambda: value


def text_of(result: CallToolResult) -> str:
    return "".join(block.text for block in result.content if block.type == "text")


async def test_arguments_are_coerced_into_the_annotated_types() -> None:
    server = Server("coerce")
    seen: dict[str, Any] = {}

    @server.tool()
    async def register(person: Person, tags: set[str], score: float, nickname: str | None = None) -> str:
        seen.update(person=person, tags=tags, score=score, nickname=nickname)
        return "ok"

    async with Client(server) as client:
        tool = (await client.list_tools())[0]
        assert tool.input_schema["required"] == ["person", "tags", "score"]
        assert "$defs" in tool.input_schema, "nested models are referenced"
        arguments = {"person": {"name": "Ada", "address": {"street": "1 Main", "city": "London"}}, "tags": ["a", "b"]}
        result = await client.call_tool("register", {**arguments, "score": 3})
    assert text_of(result) == "ok"
    assert seen["person"] == Person("Ada", Address(street="1 Main", city="London"))
    assert seen["tags"] == {"a", "b"}
    assert isinstance(seen["score"], float) and seen["nickname"] is None


async def test_descriptions_come_from_docstrings_and_fields() -> None:
    server = Server("docs")

    @server.tool(description="Overrides the docstring")
    def overridden() -> None:
        """Not this."""

    @server.tool()
    def documented(count: Annotated[int, Field(description="How many", ge=1)]) -> None:
        """Does a thing.

        In detail.
        """

    def given() -> str:
        """Not this either."""
        return "given"

    def greeting(name: str) -> str:
        return f"hi {name}"

    # A function given with its options, as FastMCP's `mcp.tool(fn, name=...)` takes it.
    server.tool(given, name="named", description="Given with its options")
    server.prompt(greeting, name="hello", description="Greets")

    async with Client(server) as client:
        tools = {tool.name: tool for tool in await client.list_tools()}
        assert tools["overridden"].description == "Overrides the docstring"
        assert tools["named"].description == "Given with its options"
        assert [(p.name, p.description) for p in await client.list_prompts()] == [("hello", "Greets")]
        # The docstring as written, as the official SDK lists it.
        assert tools["documented"].description == "Does a thing.\n\n        In detail.\n        "
        count = tools["documented"].input_schema["properties"]["count"]
        assert (count["description"], count["minimum"]) == ("How many", 1)
        invalid = await client.call_tool("documented", {"count": 0})
        assert invalid.is_error is True, "the core validates the schema pydantic generated"


async def test_return_values_become_content() -> None:
    server = Server("content")
    link = ResourceLink(uri="file:///a.txt", name="a")
    embedded = EmbeddedResource(resource=TextResourceContents(uri="file:///b.txt", text="bee"))
    returns: dict[str, Any] = {
        "text": "plain",
        "nothing": None,
        "bytes": b"\x00\x01",
        "image": Image(b"png-bytes", mime_type="image/png"),
        "audio": Audio(b"wav-bytes"),
        "csv": File(data=b"a,b\n1,2\n", format="csv", name="totals"),
        "pdf": File(data=b"%PDF-1.7", format="pdf"),
        "here": File(path=__file__),
        "link": link,
        "embedded": embedded,
        "mixed": ["one", TextContent(text="two")],
        "full": CallToolResult(content=[TextContent(text="custom")], is_error=True),
    }
    for name, value in returns.items():
        server.add_tool(returning(value), name=name, structured_output=False)

    async with Client(server) as client:
        results = {name: await client.call_tool(name) for name in returns}
    assert text_of(results["text"]) == "plain"
    assert results["nothing"].content == []
    assert results["bytes"].content[0].type == "resource"
    assert results["image"].content[0].mime_type == "image/png"
    assert results["audio"].content[0].mime_type == "audio/wav"
    # Files are embedded resources, as FastMCP's `File` makes them: text as text, else a blob.
    csv = results["csv"].content[0].resource
    assert (csv.uri, csv.mime_type, csv.text) == ("file:///totals.csv", "text/csv", "a,b\n1,2\n")
    pdf = results["pdf"].content[0].resource
    assert (pdf.uri, pdf.mime_type, pdf.blob) == ("file:///resource.pdf", "application/pdf", "JVBERi0xLjc=")
    here = results["here"].content[0].resource
    assert here.uri == THIS_FILE and "test_return_values_become_content" in here.text
    assert results["link"].content[0] == link
    assert results["embedded"].content[0] == embedded
    assert [block.text for block in results["mixed"].content] == ["one", "two"]
    assert (text_of(results["full"]), results["full"].is_error) == ("custom", True)


async def test_output_schemas_follow_the_return_annotation() -> None:
    server = Server("schemas")

    @server.tool()
    def listing() -> list[int]:
        return [1, 2]

    @server.tool()
    def mapping() -> dict[str, int]:
        return {"a": 1}

    @server.tool()
    def person() -> Person:
        return Person("Ada", Address(street="s", city="c"))

    @server.tool()
    def untyped():  # type: ignore[no-untyped-def]
        return {"free": "form"}

    async with Client(server) as client:
        tools = {tool.name: tool for tool in await client.list_tools()}
        assert tools["listing"].output_schema is not None
        assert tools["listing"].output_schema["properties"]["result"]["type"] == "array"
        assert tools["mapping"].output_schema == {
            "type": "object",
            "additionalProperties": {"type": "integer"},
            "title": "mappingDictOutput",
        }
        assert tools["untyped"].output_schema is None
        assert (await client.call_tool("listing")).structured_content == {"result": [1, 2]}
        assert (await client.call_tool("mapping")).structured_content == {"a": 1}
        ada = (await client.call_tool("person")).structured_content
        assert ada == {"name": "Ada", "address": {"street": "s", "city": "c"}}
        assert text_of(await client.call_tool("untyped")) == '{\n  "free": "form"\n}'


async def test_output_that_breaks_the_schema_is_an_error() -> None:
    server = Server("liar")

    @server.tool()
    def count() -> int:
        return "many"  # type: ignore[return-value]

    async with Client(server) as client:
        with pytest.raises(McpError) as raised:
            await client.call_tool("count")
    assert raised.value.code == -32603


async def test_sync_handlers_run_on_worker_threads_and_async_ones_concurrently() -> None:
    server = Server("threads")
    loop_thread = threading.get_ident()

    @server.tool()
    def blocking() -> bool:
        time.sleep(0.3)
        return threading.get_ident() != loop_thread

    @server.tool()
    async def sleeper() -> bool:
        await asyncio.sleep(0.3)
        return threading.get_ident() == loop_thread

    async with Client(server) as client:
        started = time.perf_counter()
        results = await asyncio.gather(
            client.call_tool("blocking"),
            client.call_tool("blocking"),
            client.call_tool("sleeper"),
            client.call_tool("sleeper"),
        )
        elapsed = time.perf_counter() - started
    assert [r.structured_content for r in results] == [{"result": True}] * 4
    assert elapsed < 0.55, f"the four calls overlapped ({elapsed:.2f} s)"


async def test_async_handlers_that_never_wait_have_a_task_and_contextvars_of_their_own() -> None:
    """An ``async def`` without ``await`` ends in the step that starts it, and runs without
    a task of its own; each call still runs on the loop's thread, with a current task (what
    anyio's cancel scopes need) and its own copy of the contextvars."""
    server = Server("one step")
    loop_thread = threading.get_ident()
    marked: ContextVar[int | None] = ContextVar("marked", default=None)

    @server.tool()
    async def mark(n: int) -> list[Any]:
        before = marked.get()
        marked.set(n)
        # Entered for what it asks of asyncio (a current task), not to cancel anything.
        with anyio.CancelScope():  # noqa: ASYNC100
            on_loop = threading.get_ident() == loop_thread
        return [before, on_loop, asyncio.current_task() is not None]

    @server.tool()
    async def fail() -> None:
        raise ToolError("no")

    async with Client(server) as client:
        marks = [client.call_tool("mark", {"n": n}) for n in range(10)]
        failed, *results = await asyncio.gather(client.call_tool("fail"), *marks)
        assert runs_in_one_step(mark)
        assert [result.structured_content for result in results] == [{"result": [None, True, True]}] * 10
        assert failed.is_error and text_of(failed) == "no"
        assert (await client.call_tool("mark", {"n": 1})).structured_content == {"result": [None, True, True]}


async def test_definitions_take_the_official_sdks_models() -> None:
    """A server written for the official SDK (or FastMCP, whose documentation imports
    them from ``mcp.types``) gives its tools, resources and prompts the official
    ``ToolAnnotations``, ``Annotations`` and ``Icon``: listed as the wire has them."""
    server = Server("official models", icons=[mcp_types.Icon(src="https://example.com/s.png")])
    icon = mcp_types.Icon(src="https://example.com/i.png", mime_type="image/png")

    @server.tool(annotations=mcp_types.ToolAnnotations(read_only_hint=True, title="Look"), icons=[icon])
    def look() -> str:
        return "seen"

    @server.resource("data://a", annotations=mcp_types.Annotations(priority=0.5), icons=[icon])
    def a() -> str:
        return "a"

    @server.prompt(icons=[icon])
    def ask() -> str:
        return "?"

    async with Client(server) as client:
        wire_icon = {"src": "https://example.com/i.png", "mimeType": "image/png"}
        (tool,) = await client.list_tools()
        assert tool.to_wire()["annotations"] == {"readOnlyHint": True, "title": "Look"}
        assert tool.to_wire()["icons"] == [wire_icon]
        (resource,) = await client.list_resources()
        assert resource.to_wire()["annotations"] == {"priority": 0.5}
        assert resource.to_wire()["icons"] == [wire_icon]
        (prompt,) = await client.list_prompts()
        assert prompt.to_wire()["icons"] == [wire_icon]
        assert client.server_info is not None
        assert client.server_info.to_wire()["icons"] == [{"src": "https://example.com/s.png"}]


async def test_each_call_of_a_plain_def_handler_has_its_own_contextvars() -> None:
    """A plain ``def`` runs on a worker thread, each call in a copy of the thread's context,
    as each request's task is in the official SDKs: what one call sets is not seen by the
    next (Prefab UI names its loop variables by a counter kept so)."""
    server = Server("worker")
    marked: ContextVar[int | None] = ContextVar("marked", default=None)

    @server.tool()
    def mark(n: int) -> int | None:
        before = marked.get()
        marked.set(n)
        return before

    async with Client(server) as client:
        for n in range(4):
            assert (await client.call_tool("mark", {"n": n})).structured_content == {"result": None}


async def test_async_handlers_that_wait_run_in_a_task_of_their_own() -> None:
    """An ``async def`` that waits runs as a task of its own, from its start to its end."""
    server = Server("tasks")

    @server.tool()
    async def waits() -> bool:
        task = asyncio.current_task()
        await asyncio.sleep(0)
        return task is asyncio.current_task() and task is not None

    assert not runs_in_one_step(waits)
    async with Client(server) as client:
        results = await asyncio.gather(*(client.call_tool("waits") for _ in range(5)))
    assert [result.structured_content for result in results] == [{"result": True}] * 5


def test_async_handlers_run_on_the_loop_that_serves_now_while_another_still_runs() -> None:
    """A server served on one loop (in a thread that goes on running) and then on another
    runs its ``async def`` handlers on the second: each loop is told of calls through a
    socket of its own."""
    server = Server("two loops")

    @server.tool()
    async def where() -> str:
        return threading.current_thread().name

    async def ask() -> str:
        async with Client(server) as client:
            return str((await client.call_tool("where")).structured_content["result"])

    first = asyncio.new_event_loop()
    thread = threading.Thread(target=first.run_forever, name="first loop")
    thread.start()
    try:
        asked_first = asyncio.run_coroutine_threadsafe(ask(), first).result(timeout=10)
        asked_here = asyncio.run(ask())
    finally:
        first.call_soon_threadsafe(first.stop)
        thread.join()
        first.close()
    assert (asked_first, asked_here) == ("first loop", threading.current_thread().name)


def test_async_handlers_run_on_a_loop_that_watches_no_sockets() -> None:
    """A loop without ``add_reader`` (Windows' proactor loop) is told of calls with
    ``call_soon_threadsafe``."""

    class WatchesNoSockets(asyncio.SelectorEventLoop):
        def add_reader(self, *args: Any) -> None:
            raise NotImplementedError

    server = Server("no readers")

    @server.tool()
    async def twice(n: int) -> int:
        await asyncio.sleep(0)
        return 2 * n

    @server.tool()
    async def thrice(n: int) -> int:
        return 3 * n

    async def ask() -> list[Any]:
        async with Client(server) as client:
            calls = [client.call_tool(name, {"n": n}) for n in range(3) for name in ("twice", "thrice")]
            return [result.structured_content["result"] for result in await asyncio.gather(*calls)]

    loop = WatchesNoSockets()
    try:
        assert loop.run_until_complete(ask()) == [0, 0, 2, 3, 4, 6]
    finally:
        loop.close()


async def test_a_sync_handlers_thread_keeps_its_thread_locals_between_calls() -> None:
    """The threads that run plain functions live on with their Python thread state, so what
    a handler keeps in a `threading.local` (a connection, a cache) is there on its thread's
    next call, as on `asyncio.to_thread`'s threads."""
    server = Server("locals")
    kept = threading.local()

    @server.tool()
    def count() -> list[int]:
        kept.calls = getattr(kept, "calls", 0) + 1
        return [threading.get_ident(), kept.calls]

    async with Client(server) as client:
        seen = [(await client.call_tool("count")).structured_content["result"] for _ in range(20)]
    by_thread: dict[int, list[int]] = {}
    for thread, calls in seen:
        by_thread.setdefault(thread, []).append(calls)
    for calls in by_thread.values():
        assert calls == list(range(1, len(calls) + 1))
    assert max(len(calls) for calls in by_thread.values()) > 1, f"one call a thread: {seen}"


async def test_cancelled_sync_calls_keep_their_thread_turn() -> None:
    """A plain-function handler runs on until it returns even when its call is cancelled,
    and keeps its turn meanwhile: cancelling calls never lets more of them run at once than
    the cap (CPUs + 4, at most 32), which the first batch of calls measures."""
    server = Server("turns")
    release = threading.Event()
    lock = threading.Lock()
    running = 0
    most = 0

    @server.tool()
    def hold() -> str:
        nonlocal running, most
        with lock:
            running += 1
            most = max(most, running)
        try:
            release.wait(30)
        finally:
            with lock:
                running -= 1
        return "released"

    async def steady() -> int:
        """How many run once the number stops changing."""
        seen = -1
        while True:
            await asyncio.sleep(0.3)
            with lock:
                now = running
            if now == seen and now > 0:
                return now
            seen = now

    async with Client(server) as client:
        first = [asyncio.create_task(client.call_tool("hold")) for _ in range(40)]
        cap = await steady()
        second: list[asyncio.Task[CallToolResult]] = []
        try:
            assert cap < 40
            for call in first:
                call.cancel()
            await asyncio.gather(*first, return_exceptions=True)
            second = [asyncio.create_task(client.call_tool("hold")) for _ in range(40)]
            await steady()
            assert most == cap, f"{most} handlers ran at once after cancelling, the cap is {cap}"
        finally:
            release.set()
            results = await asyncio.gather(*second, return_exceptions=True)
    assert all(isinstance(r, CallToolResult) and text_of(r) == "released" for r in results), results


def cyclic_dict() -> dict[str, Any]:
    value: dict[str, Any] = {"name": "loop"}
    value["self"] = value
    return value


def cyclic_list() -> list[Any]:
    value: list[Any] = [1]
    value.append(value)
    return value


def nested(levels: int, make: Any) -> Any:
    """A value `levels` containers deep, each made by `make(inner)`."""
    value: Any = 0
    for _ in range(levels):
        value = make(value)
    return value


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        pytest.param(cyclic_dict(), "that contains itself", id="dict-in-itself"),
        pytest.param(cyclic_list(), "that contains itself", id="list-in-itself"),
        pytest.param({"items": [cyclic_dict()]}, "that contains itself", id="cycle-inside"),
        pytest.param(nested(100_000, lambda inner: {"a": inner}), "nested more than 128 levels deep", id="deep-dicts"),
        pytest.param(nested(100_000, lambda inner: [inner]), "nested more than 128 levels deep", id="deep-lists"),
        pytest.param(nested(100_000, lambda inner: (inner,)), "nested more than 128 levels deep", id="deep-tuples"),
    ],
)
@pytest.mark.parametrize("blocking", [True, False], ids=["sync", "async"])
async def test_cyclic_and_too_deep_values_are_tool_errors(value: Any, problem: str, blocking: bool) -> None:
    server = Server("shapes")
    if blocking:
        server.add_tool(returning(value), name="shape")
    else:

        async def shape() -> Any:
            return value

        server.add_tool(shape)
    server.add_tool(returning(nested(64, lambda inner: {"a": [inner]})), name="deep_enough")

    async with Client(server) as client:
        result = await client.call_tool("shape")
        assert result.is_error is True
        assert text_of(result) == f"the handler returned what cannot be sent: a value {problem}"
        assert (await client.call_tool("deep_enough")).is_error is not True, "128 levels are not too deep"


async def test_server_bounds_reach_the_core() -> None:
    server = Server("bounded", max_in_flight=1, max_subscriptions=1, end_grace=0.2)
    wait = EndlessTool(server, "wait")

    @server.resource("data://a")
    def a() -> str:
        return "a"

    @server.resource("data://b")
    def b() -> str:
        return "b"

    async with Client(server, era="legacy") as client:
        await client.subscribe_resource("data://a")
        with pytest.raises(McpError, match="at most 1"):
            await client.subscribe_resource("data://b")
        waiting = asyncio.create_task(client.call_tool("wait"))
        await wait.started.wait()
        with pytest.raises(McpError, match="at most 1"):
            await client.call_tool("wait")
    # The client left with its call in flight: the call is cancelled after `end_grace`
    # (0.2 s, not the default 5 s).
    await asyncio.wait_for(wait.cancelled.wait(), 3)
    with pytest.raises((McpError, ConnectionError)):
        await waiting


async def test_a_tools_unexpected_exception_is_logged_not_sent(caplog: pytest.LogCaptureFixture) -> None:
    """A ToolError's text is the result (after the tool's name from an ``MCPServer``, as the
    official SDK words it); an unexpected exception's text is logged with its traceback,
    never sent; with ``mask_error_details`` not even a ToolError's text is."""
    for kind, mask, meant in [
        (Server, False, "no such account"),
        (MCPServer, False, "Error executing tool refuse: no such account"),
        (Server, True, "the request failed"),
    ]:
        server = kind("masked", mask_error_details=mask)

        @server.tool()
        def leak() -> str:
            raise RuntimeError("the vault key is 1234")

        @server.tool()
        async def refuse() -> str:
            raise ToolError("no such account")

        caplog.clear()
        async with Client(server) as client:
            leaked, refused = await client.call_tool("leak"), await client.call_tool("refuse")
        assert (leaked.is_error, refused.is_error, text_of(refused)) == (True, True, meant)
        assert text_of(leaked) == ("the request failed" if mask else "Error executing tool leak")
        crash = next(record for record in caplog.records if record.name == "oxmcp" and record.exc_info)
        assert crash.getMessage() == "Tool 'leak' raised an unexpected exception"
        assert "the vault key is 1234" in caplog.text, "the detail stays on the server, in its log"


def test_bad_server_bounds_are_refused() -> None:
    with pytest.raises(ValueError, match="end_grace"):
        Server("bad", end_grace=-1.0)
    with pytest.raises(ValueError, match="client_request_timeout"):
        Server("bad", client_request_timeout=-1.0)
    with pytest.raises(OverflowError):
        Server("bad", max_in_flight=-1)


async def test_resource_and_prompt_failures_are_json_rpc_errors(caplog: pytest.LogCaptureFixture) -> None:
    """Worded as the official SDK words them: a ResourceError's text, an unexpected
    exception's not (it is logged), the URI in the error's data."""
    server = Server("errors")

    @server.resource("data://broken")
    def broken() -> str:
        raise RuntimeError("disk on fire")

    @server.resource("data://gone")
    def gone() -> str:
        raise ResourceError("the data was archived")

    @server.resource("data://{day}")
    async def by_day(day: str) -> str:
        raise KeyError(f"secret table {day}")

    @server.prompt()
    def strict(count: int) -> str:
        if count > 3:
            raise RuntimeError("the prompt store is at 10.0.0.7")
        return "x" * count

    async with Client(server, era="legacy") as client:
        failures = {}
        for uri in ("data://broken", "data://gone", "data://monday"):
            with pytest.raises(McpError) as read:
                await client.read_resource(uri)
            failures[uri] = (read.value.code, read.value.message, read.value.data)
        with pytest.raises(McpError) as prompt:
            await client.get_prompt("strict", {"count": "many"})
        assert prompt.value.code == -32602
        with pytest.raises(McpError) as crashed:
            await client.get_prompt("strict", {"count": "4"})
        assert (crashed.value.code, crashed.value.message) == (-32603, "Error rendering prompt strict")
        assert (await client.get_prompt("strict", {"count": "3"})).messages[0].content.text == "xxx"
    assert failures == {
        "data://broken": (-32603, "Error reading resource data://broken", {"uri": "data://broken"}),
        "data://gone": (-32603, "the data was archived", {"uri": "data://gone"}),
        "data://monday": (-32603, "Error creating resource from template data://monday", {"uri": "data://monday"}),
    }
    assert all(secret in caplog.text for secret in ("disk on fire", "secret table monday", "10.0.0.7"))


async def test_a_crash_of_a_completion_or_a_custom_request_is_logged_not_sent(caplog: pytest.LogCaptureFixture) -> None:
    """As the official SDK answers them: ``Error completing argument <name>``, and
    ``Internal server error`` for a request handler of one's own; the text in the log."""
    server = Server("crashes")

    @server.prompt(completions={"city": lambda value: {}[value]})
    def trip(city: str, day: str) -> str:
        return f"{city} on {day}"

    @server.completion()
    async def complete(ref: Any, argument: Any, context: Any) -> None:
        raise RuntimeError("dsn postgres://u:pw@10.0.0.7")

    @server.request_handler("acme/report")
    def report(params: dict[str, Any]) -> dict[str, Any]:
        raise RuntimeError("report store at 10.0.0.7")

    async with Client(server) as client:
        crashes = [
            (client.complete("city", "pa", prompt="trip"), "Error completing argument city"),
            (client.complete("day", "mo", prompt="trip"), "Error completing argument day"),
            (client.request("acme/report", {}), "Internal server error"),
        ]
        for request, said in crashes:
            with pytest.raises(McpError) as crashed:
                await request
            assert (crashed.value.code, crashed.value.message) == (-32603, said)
    logged = ("KeyError: 'pa'", "RuntimeError: dsn postgres", "RuntimeError: report store at 10.0.0.7")
    assert all(line in caplog.text for line in logged)


async def test_a_fastmcp_handler_sends_a_list_change_as_fastmcp_does(notifications: Any) -> None:
    mcp = FastMCP("changes")

    @mcp.tool
    async def refresh(ctx: FastMCPContext) -> str:
        await ctx.send_notification(mcp_types.PromptListChangedNotification())
        with pytest.raises(TypeError, match="sends no 'notifications/roots/list_changed'"):
            await ctx.send_notification(mcp_types.RootsListChangedNotification())
        return "sent"

    async with Client(mcp, era="legacy", notification_handler=notifications) as client:
        assert (await client.call_tool("refresh", {})).content[0].text == "sent"
        await notifications.wait_for("notifications/prompts/list_changed")


async def test_a_fastmcp_client_speaks_the_era_its_mode_names() -> None:
    mcp = FastMCP("eras")
    for mode, version in [("legacy", "2025-11-25"), ("2026-07-28", "2026-07-28"), ("auto", "2026-07-28")]:
        async with FastMCPClient(mcp, mode=mode) as client:
            assert client.native.protocol_version == version, mode
    with pytest.raises(ValueError, match=r"'2025-06-18' is a handshake-era version; use mode='legacy'"):
        FastMCPClient(mcp, mode="2025-06-18")
    with pytest.raises(ValueError, match="mode must be 'legacy', 'auto'"):
        FastMCPClient(mcp, mode="modern")


@pytest.mark.parametrize("era", ["legacy", "modern"])
async def test_an_interceptor_runs_around_every_request(era: Literal["legacy", "modern"]) -> None:
    server = Server("intercepted")

    @server.tool()
    def echo(text: str) -> str:
        return text

    @server.tool()
    def secret() -> str:
        return "the secret"

    seen: list[str] = []

    async def guard(request: InterceptedRequest, call_next: NextMethod) -> dict[str, Any]:
        seen.append(request.method)
        assert request.ctx.request_id is not None
        params = request.params or {}
        if request.method == "tools/call" and params["name"] == "secret":
            raise McpError(-32001, "not for you")
        if request.method == "tools/call":
            result = await call_next({**params, "arguments": {"text": "rewritten"}})
            return {**result, "content": [{"type": "text", "text": f"<{result['content'][0]['text']}>"}]}
        result = await call_next()
        if request.method == "tools/list":
            return {**result, "tools": [tool for tool in result["tools"] if tool["name"] != "secret"]}
        return result

    server.intercept(guard)
    async with Client(server, era=era) as client:
        assert [tool.name for tool in await client.list_tools()] == ["echo"]
        assert (await client.call_tool("echo", {"text": "hi"})).content[0].text == "<rewritten>"
        with pytest.raises(McpError, match="not for you") as refused:
            await client.call_tool("secret", {})
        assert refused.value.code == -32001
        # A method's error reaches the interceptor as the McpError it answered with.
        with pytest.raises(McpError) as unknown:
            await client.call_tool("missing", {})
        assert unknown.value.code == -32602
    expected = ["tools/list", "tools/call", "tools/call", "tools/call"]
    assert seen == (expected if era == "legacy" else ["server/discover", *expected])


async def test_a_fastmcp_server_serves_the_version_a_request_asks_for() -> None:
    mcp = FastMCP("versions")

    @mcp.tool(version="1.0")
    def charge(amount: int) -> dict[str, int]:
        return {"v1": amount}

    @mcp.tool(version="v2")
    async def charge(amount: int, fee: int = 0) -> dict[str, int]:  # noqa: F811
        return {"v2": amount + fee}

    @mcp.resource("config://app", version=1)
    def legacy_config() -> str:
        return "one"

    @mcp.resource("config://{env}", version="2.0")
    def config_of(env: str) -> str:
        return f"two {env}"

    @mcp.resource("config://{env}", version="10.0")
    def config_ten(env: str) -> str:
        return f"ten {env}"

    @mcp.prompt(version="1")
    def summarize(text: str) -> str:
        return f"v1 {text}"

    with pytest.raises(TypeError, match="different output schemas"):

        @mcp.tool(version="3")
        def charge(amount: int) -> str:
            return "three"

    for era in ("legacy", "modern"):
        async with FastMCPClient(mcp, mode="legacy" if era == "legacy" else "2026-07-28") as client:
            (tool,) = await client.list_tools()
            assert tool.meta["fastmcp"]["versions"] == ["v2", "1.0"]
            assert tool.meta["fastmcp"]["version"] == "v2"
            assert (await client.call_tool("charge", {"amount": 5, "fee": 1})).data == {"v2": 6}
            # PEP 440 spellings of one version are the same version, a leading v aside.
            assert (await client.call_tool("charge", {"amount": 5}, version="1")).data == {"v1": 5}
            assert (await client.call_tool("charge", {"amount": 5}, version="2")).data == {"v2": 5}
            with pytest.raises(ToolError, match=r"version 1\.0 takes no argument fee"):
                await client.call_tool("charge", {"amount": 5, "fee": 1}, version="1.0")
            with pytest.raises(ToolError, match="Unknown tool: 'charge'"):
                await client.call_tool("charge", {"amount": 5}, version="9")

            (template,) = await client.list_resource_templates()
            assert template.meta["fastmcp"]["versions"] == ["10.0", "2.0"]
            assert (await client.read_resource("config://prod"))[0].text == "ten prod"
            assert (await client.read_resource("config://prod", version="2.0"))[0].text == "two prod"
            with pytest.raises(ResourceNotFoundError):
                await client.read_resource("config://prod", version="3")
            assert (await client.read_resource("config://app", version="1.0"))[0].text == "one"

            prompt = await client.get_prompt("summarize", {"text": "x"}, version="1")
            assert prompt.messages[0].content.text == "v1 x"
            with pytest.raises(McpError, match="Unknown prompt: 'summarize'"):
                await client.get_prompt("summarize", {"text": "x"}, version="2")

    # The server's own listing gives every version, the oldest first; a client is listed the highest.
    listed = [(t.name, t.version, sorted(t.parameters["properties"])) for t in await mcp.list_tools()]
    assert listed == [("charge", "1.0", ["amount"]), ("charge", "v2", ["amount", "fee"])]
    assert (charge := await mcp.get_tool("charge")) is not None and charge.version == "v2"
    assert not mcp.remove_tool("charge", version="7")
    assert mcp.remove_tool("charge", version="2.0")
    async with FastMCPClient(mcp) as client:
        (tool,) = await client.list_tools()
        assert tool.meta["fastmcp"]["versions"] == ["1.0"]
        assert (await client.call_tool("charge", {"amount": 5})).data == {"v1": 5}
    assert mcp.remove_resource("config://{env}", version="10")
    assert mcp.remove_tool("charge")
    assert await mcp.list_tools() == []
    assert [t.meta["fastmcp"]["versions"] for t in await mcp.list_resource_templates()] == [["2.0"]]


async def test_a_search_transform_finds_and_calls_what_the_session_may_see() -> None:
    from oxmcp.fastmcp.server.transforms.search import BM25SearchTransform

    mcp = FastMCP("search")

    @mcp.tool
    def add(a: int, b: int) -> int:
        """Adds two numbers."""
        return a + b

    @mcp.tool(tags={"admin"})
    def wipe_numbers() -> str:
        """Wipes every number."""
        return "wiped"

    @mcp.tool
    def pinned() -> str:
        return "here"

    mcp.add_transform(BM25SearchTransform(always_visible=["pinned"]))
    mcp.disable(tags={"admin"})
    async with FastMCPClient(mcp) as client:
        assert [tool.name for tool in await client.list_tools()] == ["pinned", "search_tools", "call_tool"]
        found = (await client.call_tool("search_tools", {"query": "numbers"})).data
        assert [tool["name"] for tool in found] == ["add"], "what the session may not see is not found"
        called = await client.call_tool("call_tool", {"name": "add", "arguments": {"a": 1, "b": 2}})
        assert called.structured_content == {"result": 3}
        hidden = await client.call_tool_mcp("call_tool", {"name": "wipe_numbers"})
        assert (
            hidden.isError and hidden.content[0].text == "Error calling tool 'call_tool': Unknown tool: 'wipe_numbers'"
        )
        refused = await client.call_tool_mcp("call_tool", {"name": "add", "arguments": {"a": "x"}})
        assert refused.isError and refused.content[0].text.startswith("2 validation errors for call[add]")
        assert (await client.call_tool("add", {"a": 2, "b": 2})).data == 4, "a tool not listed is still called"


async def test_runtime_changes_are_announced(notifications: Any) -> None:
    server = Server("runtime")
    server.add_tool(lambda: "first", name="first")

    async with Client(server, era="legacy", notification_handler=notifications) as client:
        assert [tool.name for tool in await client.list_tools()] == ["first"]
        server.add_tool(lambda: "second", name="second")
        await notifications.wait_for("notifications/tools/list_changed")
        assert [tool.name for tool in await client.list_tools()] == ["first", "second"]
        assert server.remove_tool("first") is True
        assert server.remove_tool("first") is False
        await notifications.wait_for("notifications/tools/list_changed", count=2)

        server.add_resource(lambda: "r", "data://r")
        await notifications.wait_for("notifications/resources/list_changed")
        assert server.remove_resource("data://r") is True
        server.add_prompt(lambda: "p", name="p")
        await notifications.wait_for("notifications/prompts/list_changed")


async def test_the_context_in_memory() -> None:
    server = Server("ctx")

    @server.tool()
    async def info(ctx: Context) -> dict[str, Any]:
        return {"id_type": type(ctx.request_id).__name__, "era": ctx.era, "cancelled": ctx.is_cancelled}

    async with Client(server, era="modern") as client:
        assert (await client.call_tool("info")).structured_content == {
            "id_type": "int",
            "era": "modern",
            "cancelled": False,
        }


def test_definitions_are_checked_when_registered() -> None:
    server = Server("checks")
    with pytest.raises(TypeError, match="not URI variables"):
        server.add_resource(lambda name, extra: name, "greeting://{name}")
    with pytest.raises(TypeError, match="not parameters"):
        server.add_resource(lambda: "x", "greeting://{name}")
    with pytest.raises(TypeError, match="takes no parameters"):
        server.add_resource(lambda x: x, "data://static")
    with pytest.raises(ValueError, match="tool name"):
        server.add_tool(lambda: None, name="has space")
    with pytest.raises(TypeError, match=r"\*args"):
        server.add_tool(lambda *args: None, name="variadic")


async def test_handlers_can_name_their_input_requests_and_keep_state() -> None:
    server = Server("explicit")

    @server.tool(input_schema={"type": "object", "properties": {"greeting": {"type": "string", "minLength": 2}}})
    async def greet(greeting: str, ctx: Context) -> str:
        answer = (ctx.input_responses or {}).get("who")
        if answer is None:
            ctx.input_required(
                {"who": {"method": "elicitation/create", "params": {"message": "Name?", "requestedSchema": NAME}}},
                state=f"asked for {greeting}",
            )
        return f"{greeting}, {answer['content']['name']} ({ctx.request_state})"

    async def elicit(request: ElicitRequest) -> ElicitResult:
        assert request.message == "Name?"
        return ElicitResult(action="accept", content={"name": "Ada"})

    async with Client(server, era="modern", elicitation_handler=elicit) as client:
        tool = (await client.list_tools())[0]
        assert tool.input_schema["properties"]["greeting"]["minLength"] == 2, "the schema given is used"
        assert text_of(await client.call_tool("greet", {"greeting": "Hi"})) == "Hi, Ada (asked for Hi)"
        refused = await client.call_tool("greet", {"greeting": "H"})
        assert refused.is_error is True, "the core validates against the schema given"


def test_wire_names_read_as_attributes() -> None:
    result = CallToolResult(content=[TextContent(text="x")], structured_content={"a": 1}, is_error=False)
    assert result.structuredContent == {"a": 1}
    assert result.isError is False
    assert result.to_wire() == {
        "content": [{"type": "text", "text": "x"}],
        "structuredContent": {"a": 1},
        "isError": False,
    }


async def test_a_lifespan_runs_once_around_everything_that_serves_the_server() -> None:
    events: list[str] = []

    @contextlib.asynccontextmanager
    async def lifespan(server: Server) -> AsyncIterator[dict[str, str]]:
        events.append(f"start {server.name}")
        yield {"db": "connected"}
        events.append("stop")

    server = Server("lived", lifespan=lifespan)

    @server.tool()
    def state(ctx: Context[dict[str, str]]) -> str:
        return ctx.request_context.lifespan_context["db"]

    async with Client(server) as one, Client(server) as other:
        assert (await one.list_tools())[0].input_schema["properties"] == {}, "Context[...] is no argument"
        assert (await one.call_tool("state")).content[0].text == "connected"
        assert (await other.call_tool("state")).content[0].text == "connected"
        assert events == ["start lived"], "entered once for both clients"
    assert events == ["start lived", "stop"]


async def test_a_server_calls_its_own_tools_resources_and_prompts_as_its_clients_would() -> None:
    """``server.call_tool`` (and ``read_resource``, ``get_prompt``) in code and tests: through
    the server's interceptor, in its lifespan, a tool's failure raised as ``ToolError``."""
    events: list[str] = []

    @contextlib.asynccontextmanager
    async def lifespan(server: Server) -> AsyncIterator[dict[str, str]]:
        events.append("start")
        yield {"unit": "kg"}
        events.append("stop")

    server = MCPServer("direct", lifespan=lifespan)

    async def watch(request: InterceptedRequest, call_next: NextMethod) -> dict[str, Any]:
        events.append(request.method)
        return await call_next()

    server.intercept(watch)

    @server.tool()
    def weigh(grams: int, ctx: Context[dict[str, str]]) -> str:
        if grams < 0:
            raise ToolError("no negative weight")
        return f"{grams / 1000} {ctx.request_context.lifespan_context['unit']}"

    @server.tool()
    async def weigh_twice(grams: int) -> str:
        # A tool of the server composing another while a client is served: the lifespan
        # it is in is the one the direct call uses.
        once = await server.call_tool("weigh", {"grams": grams})
        return f"{once.content[0].text} twice"

    @server.resource("scale://{name}")
    def scale(name: str) -> str:
        return f"scale {name}"

    @server.prompt()
    def report(grams: str) -> str:
        return f"Report {grams} g"

    result = await server.call_tool("weigh", {"grams": 1500})
    assert (result.content[0].text, result.is_error) == ("1.5 kg", False)
    assert (events[0], events[-2:]) == ("start", ["tools/call", "stop"]), "in the lifespan, through the interceptor"
    with pytest.raises(ToolError, match=r"^Error executing tool weigh: no negative weight$"):
        await server.call_tool("weigh", {"grams": -1})
    with pytest.raises(ToolError, match="missing"):
        await server.call_tool("missing")
    assert (await server.read_resource("scale://kitchen"))[0].text == "scale kitchen"
    with pytest.raises(ResourceNotFoundError):
        await server.read_resource("other://kitchen")
    assert (await server.get_prompt("report", {"grams": "5"})).messages[0].content.text == "Report 5 g"

    events.clear()
    async with Client(server) as client:
        assert (await client.call_tool("weigh_twice", {"grams": 10})).content[0].text == "0.01 kg twice"
    assert events.count("start") == 1 and events.count("tools/call") == 2


async def test_the_servers_completion_handler_gets_models_and_may_return_values() -> None:
    server = Server("completing")
    asked: list[tuple[Any, Any, Any]] = []

    @server.prompt(completions={"language": lambda value: [value + "thon"]})
    def review(language: str, code: str) -> str:
        return f"{language}: {code}"

    @server.resource("repo://{owner}/{name}")
    def repo(owner: str, name: str) -> str:
        return f"{owner}/{name}"

    @server.completion()
    def complete(ref, argument, context):  # type: ignore[no-untyped-def]  # unannotated: oxmcp's models
        asked.append((ref, argument, context))
        if isinstance(ref, PromptReference):
            return [argument.value + "()"]
        if context is not None and context.arguments == {"owner": "oxmcp"}:
            return Completion(values=["core", "cli"], has_more=False)
        return None

    async with Client(server) as client:
        # A completer of the argument's own comes first.
        assert (await client.complete("language", "py", prompt="review")).values == ["python"]
        assert (await client.complete("code", "main", prompt="review")).values == ["main()"]
        templated = await client.complete("name", "", template="repo://{owner}/{name}", context={"owner": "oxmcp"})
        assert (templated.values, templated.has_more) == (["core", "cli"], False)
        assert (await client.complete("name", "", template="repo://{owner}/{name}")).values == []
    assert asked[0][0] == PromptReference(name="review")
    assert asked[0][1] == CompletionArgument(name="code", value="main")
    assert asked[1][0] == ResourceTemplateReference(uri="repo://{owner}/{name}")
    assert asked[2][2] is None


async def test_a_handler_tells_its_own_session_alone_a_list_changed(notifications: Notifications) -> None:
    server = Server("computed")

    @server.tool()
    async def refresh(ctx: Context) -> str:
        await ctx.session.send_resource_list_changed()
        return "refreshed"

    others = Notifications()
    async with (
        Client(server, era="legacy", notification_handler=notifications) as client,
        Client(server, era="legacy", notification_handler=others) as other,
    ):
        await other.list_tools()
        await client.call_tool("refresh")
        await notifications.wait_for("notifications/resources/list_changed")
        await other.list_tools()
        assert others.of("notifications/resources/list_changed") == []


@pytest.mark.parametrize("era", ["legacy", "modern"])
async def test_a_tool_reads_the_servers_own_resources(era: Literal["legacy", "modern"]) -> None:
    server = Server("library")

    @server.resource("notes://today", mime_type="text/markdown")
    def today() -> str:
        return "# Today"

    @server.resource("logo://{size}", mime_type="image/png")
    def logo(size: str) -> bytes:
        return b"\x89PNG" + size.encode()

    @server.tool()
    async def summarize(ctx: Context) -> str:
        (note,) = await ctx.read_resource("notes://today")
        (image,) = await ctx.read_resource("logo://small")
        try:
            await ctx.read_resource("notes://nowhere")
        except McpError as error:
            missing = error.message
        return f"{note.content!s} ({note.mime_type}); {image.content!r} ({image.mime_type}); {missing}"

    async with Client(server, era=era) as client:
        result = await client.call_tool("summarize")
    assert result.content == [
        TextContent(text="# Today (text/markdown); b'\\x89PNGsmall' (image/png); Resource not found: notes://nowhere")
    ]


async def test_a_fastmcp_client_keeps_listings_only_when_told_and_bounds_input_rounds() -> None:
    """FastMCP's ``Client(cache=...)``: off by default, as FastMCP's, a listing is asked
    of the server each time even while the server says it is fresh; ``cache=True`` keeps it
    (the core's list cache). ``input_required_max_rounds`` bounds the rounds one call may
    take (a tool asking three questions in the 2026-07-28 era fails with two)."""
    mcp = FastMCP("cached", cache_ttl=60)
    mcp.tool(lambda: "a", name="first")

    @mcp.tool
    async def survey(ctx: FastMCPContext) -> str:
        for _ in range(3):
            await ctx.elicit("Again?", response_type=bool)
        return "asked thrice"

    async def accept(message: str, response_type: Any, params: Any, context: Any) -> bool:
        return True

    async with (
        FastMCPClient(mcp, mode="2026-07-28") as fresh,
        FastMCPClient(mcp, mode="2026-07-28", cache=True) as caching,
        FastMCPClient(mcp, mode="2026-07-28", elicitation_handler=accept, input_required_max_rounds=2) as bounded,
    ):
        for client in (fresh, caching):
            assert len(await client.list_tools()) == 2
        mcp.tool(lambda: "b", name="second")
        assert len(await fresh.list_tools()) == 3
        assert len(await caching.list_tools()) == 2, "kept while the server says it is fresh"
        with pytest.raises(Exception, match="after 2 input rounds"):
            await bounded.call_tool("survey")
