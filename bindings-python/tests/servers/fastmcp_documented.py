"""Servers written as FastMCP's documentation writes them: `Field(...)` defaults and
descriptions in prompts and templates, templates' variables screened for paths that climb
out (`security=` to exempt one), a wildcard variable (`{path*}`), prompt arguments that are
not text, `ctx.elicit`'s answers told apart by `match`, a name registered twice (and
`on_duplicate`), the lowest log level sent to clients (`client_log_level`), `get_logger`,
`ctx.lifespan_context`, and a gateway whose proxied server is down. It prints what
FastMCP's client gets, and what it knows of the server."""

import asyncio
from contextlib import asynccontextmanager
from typing import Annotated

from fastmcp import Client, Context, FastMCP
from fastmcp.client.elicitation import ElicitResult
from fastmcp.client.transports import FastMCPTransport
from fastmcp.exceptions import McpError
from fastmcp.resources import ResourceSecurity
from fastmcp.server import create_proxy
from fastmcp.server.elicitation import AcceptedElicitation, CancelledElicitation, DeclinedElicitation
from fastmcp.utilities.logging import get_logger
from fastmcp.utilities.types import Image
from fastmcp.utilities.versions import VersionSpec
from pydantic import Field

logger = get_logger(__name__)


@asynccontextmanager
async def lifespan(server):
    yield {"db": "connected"}


mcp = FastMCP("Documented", instructions="Ask away.", lifespan=lifespan, client_log_level="warning")


@mcp.prompt
def analysis(
    data_uri: str = Field(description="The URI of the data."),
    kind: str = Field(default="summary", description="Type of analysis."),
) -> str:
    return f"Perform a '{kind}' analysis of {data_uri}."


@mcp.prompt
def average(numbers: list[int], topic: Annotated[str, Field(title="Topic", description="What about")]) -> str:
    return f"{topic}: {sum(numbers) / len(numbers)}"


@mcp.resource("items://{item_id}")
def item(item_id: str, fmt: str = Field(default="json", description="The format.")) -> str:
    return f"{item_id} as {fmt}"


@mcp.resource("files://{name}")
def read_file(name: str) -> str:
    return f"file {name}"


@mcp.resource("git://diff/{ref}", security=ResourceSecurity(exempt_params={"ref"}))
def git_diff(ref: str) -> str:
    return f"diff {ref}"


@mcp.resource("tagged://{category}{?tags*}")
def tagged(category: str, tags: list[str] | None = None) -> dict:
    return {"category": category, "tags": tags or []}


@mcp.resource("search://items?q={q}")
def search_items(q: str) -> str:
    return f"Results for {q!r}"


@mcp.resource("docs://{path*}")
def doc(path: str) -> str:
    return f"doc {path}"


@mcp.tool
async def ask_name(ctx: Context) -> str:
    match await ctx.elicit("Your name?", response_type=str):
        case AcceptedElicitation(data=name):
            return f"Hello {name}!"
        case DeclinedElicitation():
            return "No name given"
        case CancelledElicitation():
            return "Cancelled"
    return "?"


@mcp.tool
async def chatty(ctx: Context) -> str:
    await ctx.info("not sent")
    await ctx.warning("sent")
    return str(ctx.lifespan_context["db"])


@mcp.tool
def version() -> str:
    return "one"


@mcp.tool(name="version")
def version_two() -> str:
    return "two"


versioned = FastMCP("Versioned")


@versioned.tool(version="1.0")
def calc(x: int) -> int:
    return x


@versioned.tool(name="calc", version="2.0")
def calc_two(x: int, y: int = 0) -> int:
    return x + y


strict = FastMCP("Strict", on_duplicate="error")
strict.tool(version)
kept = FastMCP("Kept", on_duplicate="ignore")
kept.tool(version)
kept.tool(name="version")(version_two)


async def describe(client: Client[FastMCPTransport]) -> None:
    """What the client knows of the server once connected."""
    capabilities = client.server_capabilities
    print(client.server_info.name, client.instructions, client.protocol_version, capabilities.tools is not None)


async def main() -> None:
    print("logger", logger.name)
    answers = iter(["Ann", None])

    async def answer(message, response_type, params, context):
        given = next(answers)
        return response_type(value=given) if given else ElicitResult(action="decline")

    logs = []

    async def on_log(message):
        logs.append((message.level, message.data["msg"]))

    async with Client(mcp, elicitation_handler=answer, log_handler=on_log, mode="legacy") as client:
        await describe(client)
        for prompt in await client.list_prompts():
            print(prompt.name, [(a.name, a.required, a.description) for a in prompt.arguments])
        print((await client.get_prompt("analysis", {"data_uri": "file://x"})).messages[0].content.text)
        print((await client.get_prompt("average", {"numbers": [1, 2], "topic": "t"})).messages[0].content.text)
        print((await client.read_resource("items://5"))[0].text)
        for uri in (
            "files://notes.txt",
            "files://..%2F..%2Fetc%2Fpasswd",
            "files://%2Fetc",
            "git://diff/..%2F..",
            "docs://guide/intro.md",
            "tagged://books",
            "tagged://books?tags=alpha",
            "tagged://books?tags=alpha&tags=beta",
            "items://5#top",
            "search://items?q=shoes",
            "search://items?q=",
            "search://items?q=shoes&page=2",
        ):
            try:
                print(uri, (await client.read_resource(uri))[0].text)
            except McpError as error:
                print(uri, "refused:", error)
        print((await client.call_tool("ask_name", {})).data, (await client.call_tool("ask_name", {})).data)
        print((await client.call_tool("chatty", {})).data, logs)
        print([tool.name for tool in await client.list_tools()], (await client.call_tool("version", {})).data)
    manual = Client(mcp, auto_initialize=False, mode="legacy")
    async with manual:
        print("manual", manual.is_connected(), manual.initialize_result is None)
        result = await manual.initialize(timeout=10.0)
        print("initialized", result.server_info.name, result.protocol_version, await manual.initialize() == result)
    for spec in (None, VersionSpec(eq="1"), VersionSpec(lt="2.0"), VersionSpec(gte="1.5"), VersionSpec(eq="3")):
        found = await versioned.get_tool("calc", spec)
        print("get_tool", spec, found and (found.name, found.version, sorted(found.parameters["properties"])))
    print("keys", sorted(tool.key for tool in await mcp.list_tools()))
    print("icon", Image(data=b"\x89PNG", format="png").to_data_uri())
    mcp.local_provider.remove_tool("chatty")
    print("removed", "chatty" not in [tool.name for tool in await mcp.list_tools()])
    try:
        strict.tool(name="version")(version_two)
    except ValueError as error:
        print("refused:", error)
    async with Client(kept) as client:
        print("kept", (await client.call_tool("version", {})).data)
    # A gateway whose proxied server is down (nothing listens on port 9) serves the rest.
    gateway = FastMCP("Gateway")
    gateway.mount(create_proxy("http://127.0.0.1:9/mcp"), namespace="api")
    gateway.mount(kept, namespace="kept")
    async with Client(gateway) as client:
        print(
            "gateway",
            [tool.name for tool in await client.list_tools()],
            (await client.call_tool("kept_version", {})).data,
        )


if __name__ == "__main__":
    asyncio.run(main())
