"""The demo server of the Python tests: every feature of the binding, served over stdio or
Streamable HTTP.

Run it as ``python demo.py`` (stdio) or ``python demo.py --http`` (Streamable HTTP on a free
port of 127.0.0.1, its URL on stderr); the tests start it as a child process.
"""

from __future__ import annotations

import asyncio
import base64
import dataclasses
import os
import sys
from typing import Annotated

from pydantic import BaseModel, Field
from typing_extensions import TypedDict

from oxmcp import Context, Image, McpError, PromptMessage, Server, TextContent, ToolError

PIXEL = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)

server = Server("oxmcp-python-demo", version="1.2.3", instructions="A demo: add numbers, greet people.")
cancelled_tasks: list[str] = []


class Point(BaseModel):
    """A point on the plane."""

    x: float
    y: float


@dataclasses.dataclass
class Stats:
    count: int
    mean: float


class Weather(TypedDict):
    city: str
    celsius: float


class Booking(BaseModel):
    confirm: bool
    seats: int = 1


@server.tool()
async def add(a: int, b: Annotated[int, Field(description="The second number")]) -> int:
    """Add two integers."""
    return a + b


@server.tool
def shout(text: str) -> str:
    """Upper-case the text (a sync tool, run on a worker thread; its print goes to stderr)."""
    print("shouting", text)
    return text.upper()


@server.tool()
async def midpoint(a: Point, b: Point) -> Point:
    """The point halfway between two points."""
    return Point(x=(a.x + b.x) / 2, y=(a.y + b.y) / 2)


@server.tool()
def stats(values: list[float]) -> Stats:
    """Count and mean of the values."""
    return Stats(count=len(values), mean=sum(values) / len(values))


@server.tool()
async def weather(city: str = "Paris") -> Weather:
    """The weather in a city (made up)."""
    return {"city": city, "celsius": 21.5}


@server.tool("pixel", title="A pixel", annotations={"readOnlyHint": True})
async def pixel_tool() -> list[TextContent | Image]:
    """Returns a 1x1 PNG with a caption."""
    return [TextContent(text="a pixel"), Image(PIXEL, mime_type="image/png")]


@server.tool()
async def fail(kind: str = "tool") -> str:
    """Fails: 'tool' with ToolError, 'rpc' with McpError."""
    if kind == "rpc":
        raise McpError(-32099, "a custom error", {"kind": kind})
    raise ToolError("the tool failed on purpose")


@server.tool()
async def slow(steps: int, ctx: Context) -> str:
    """Sleeps `steps` times 50 ms, reporting progress; records its cancellation."""
    try:
        for step in range(1, steps + 1):
            await asyncio.sleep(0.05)
            await ctx.progress(step, steps, f"step {step}")
    except asyncio.CancelledError:
        cancelled_tasks.append(str(ctx.request_id))
        raise
    return f"done after {steps} steps"


@server.tool()
async def cancellations() -> list[str]:
    """The request ids of the `slow` calls that were cancelled."""
    return cancelled_tasks


@server.tool()
async def whoami(ctx: Context) -> dict[str, object]:
    """What the context knows about the request."""
    return {"era": ctx.era, "version": ctx.protocol_version, "client": (ctx.client_info or {}).get("name")}


@server.tool()
async def log(ctx: Context) -> str:
    """Sends one log message of each of three levels."""
    await ctx.debug("a debug message", logger="demo")
    await ctx.info({"detail": "an info message"}, logger="demo")
    await ctx.error("an error message", logger="demo")
    return "logged"


@server.tool()
async def book(date: str, ctx: Context) -> str:
    """Books a table, asking the user to confirm (elicitation)."""
    answer = await ctx.elicit(f"Book a table on {date}?", Booking)
    if answer.accepted and answer.data is not None and answer.data.confirm:
        return f"booked {answer.data.seats} seats on {date}"
    return f"not booked ({answer.action})"


@server.tool()
async def ask_llm(question: str, ctx: Context) -> str:
    """Asks the client's model (sampling)."""
    reply = await ctx.sample(question, max_tokens=50, system_prompt="Be brief.")
    return f"{reply.model} said: {reply.content['text']}"


@server.tool()
async def roots(ctx: Context) -> str:
    """Lists the client's roots."""
    return ",".join(root.uri for root in await ctx.list_roots())


@server.tool()
async def add_tool(name: str) -> str:
    """Adds a tool named `name` that says its name."""

    async def say_name() -> str:
        return f"I am {name}"

    server.add_tool(say_name, name=name, description="Added at runtime")
    return "added"


@server.tool()
async def remove_tool(name: str) -> bool:
    """Removes a tool."""
    return server.remove_tool(name)


@server.tool()
async def touch(uri: str) -> str:
    """Announces that a resource changed."""
    server.notify_resource_updated(uri)
    return "touched"


@server.tool()
async def pid() -> int:
    """This process's id."""
    return os.getpid()


@server.resource("file:///readme.md", mime_type="text/markdown", description="What this server is")
def readme() -> str:
    return "# Demo\nHello."


@server.resource("file:///pixel.png", mime_type="image/png")
async def pixel_resource() -> bytes:
    return PIXEL


@server.resource("data://config")
def config() -> dict[str, object]:
    """Settings, as JSON."""
    return {"debug": False, "retries": 3}


@server.resource(
    "greeting://{name}",
    mime_type="text/plain",
    completions={"name": lambda value: [n for n in ("ada", "alan", "grace") if n.startswith(value)]},
)
def greeting(name: str) -> str:
    """A greeting for someone."""
    return f"Hello, {name}!"


@server.resource("square://{n}")
async def square(n: int) -> str:
    """The square of n (the variable is coerced to int)."""
    return str(n * n)


async def complete_language(value: str, context: dict[str, str]) -> list[str]:
    return [lang for lang in ("python", "rust", "typescript") if lang.startswith(value)]


@server.prompt(completions={"language": complete_language})
def review(code: str, language: str = "code") -> str:
    """Review a piece of code."""
    return f"Please review this {language}:\n{code}"


@server.prompt("chat", title="A short chat")
async def chat(topic: str, turns: int = 1) -> list[PromptMessage]:
    """A conversation starter."""
    messages = []
    for turn in range(turns):
        messages.append(PromptMessage(role="user", content=TextContent(text=f"Tell me about {topic} ({turn})")))
        messages.append(PromptMessage(role="assistant", content=TextContent(text="Gladly.")))
    return messages


if __name__ == "__main__":
    if "--http" in sys.argv[1:]:
        server.run(transport="http", port=0)
    else:
        server.run()
