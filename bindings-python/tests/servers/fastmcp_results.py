"""A server written the way FastMCP's users return whole prompt and resource results:
`Message` and `PromptResult` from `fastmcp.prompts`, `ResourceContent` and `ResourceResult`
from `fastmcp.resources`. `tests/test_dropin.py` runs it with FastMCP and, with its imports
changed, with oxmcp, and compares what a client gets."""

import asyncio
import json

from fastmcp import Client, FastMCP
from fastmcp.prompts import Message, PromptResult
from fastmcp.resources import ResourceContent, ResourceResult

mcp = FastMCP("Results")


@mcp.prompt
def roleplay(character: str) -> list[Message]:
    """Starts a roleplay."""
    return [
        Message(f"Let's roleplay. You are {character}."),
        Message("Understood, I am ready.", role="assistant"),
        Message({"scene": "tavern", "mood": "merry"}),
    ]


@mcp.prompt
def mixed(topic: str) -> list[Message | str]:
    return [f"Tell me about {topic}.", Message("Gladly.", role="assistant")]


@mcp.prompt
def summary(text: str) -> PromptResult:
    """Summarizes a text."""
    return PromptResult(
        [Message(f"Summarize: {text}"), Message("Here is a summary:", role="assistant")],
        description="A summary request",
        meta={"source": "results"},
    )


@mcp.prompt
def plain() -> PromptResult:
    return PromptResult("Just one message.")


@mcp.resource("data://items")
def items() -> ResourceResult:
    return ResourceResult(
        [
            ResourceContent({"key": "value"}),
            ResourceContent(b"\x00\x01binary", meta={"part": 2}),
            ResourceContent("# Title", mime_type="text/markdown"),
        ],
        meta={"count": 3},
    )


@mcp.resource("data://simple")
def simple() -> ResourceResult:
    return ResourceResult("hello world")


@mcp.resource("data://listed")
def listed() -> list[ResourceContent]:
    return [ResourceContent("one"), ResourceContent({"two": 2})]


@mcp.resource("data://{name}/card")
def card(name: str) -> ResourceResult:
    return ResourceResult([ResourceContent(f"card of {name}")])


def shown(result: object, *members: str) -> str:
    """The result's `members` and its `_meta` less the protocol's own keys (the server's
    name and version, which differ between the SDKs)."""
    wire = result.model_dump(mode="json", by_alias=True, exclude_none=True)
    meta = {key: value for key, value in wire.get("_meta", {}).items() if not key.startswith("io.modelcontext")}
    return json.dumps({**{member: wire.get(member) for member in members}, "_meta": meta}, sort_keys=True)


async def main() -> None:
    for mode in ("legacy", "2026-07-28"):
        async with Client(mcp, mode=mode) as client:
            for name, arguments in [
                ("roleplay", {"character": "a pirate"}),
                ("mixed", {"topic": "tides"}),
                ("summary", {"text": "long"}),
                ("plain", {}),
            ]:
                print(name, shown(await client.get_prompt_mcp(name, arguments), "description", "messages"))
            for uri in ["data://items", "data://simple", "data://listed", "data://ada/card"]:
                print(uri, shown(await client.read_resource_mcp(uri), "contents"))


asyncio.run(main())
