"""A server written the way FastMCP's users add components as objects: `TextResource`,
`BinaryResource`, `FileResource` and `DirectoryResource` from `fastmcp.resources`, a
resource subclass of their own, `Resource.from_function`, `ResourceTemplate.from_function`
with `add_template`, a function the standalone `@resource` marked, `Prompt.from_function`
with `add_prompt`, and the `Progress` dependency. `tests/test_dropin.py` runs it with
FastMCP and, with its imports changed, with oxmcp, and compares what a client gets."""

import asyncio
import json
import tempfile
from pathlib import Path

from fastmcp import Client, FastMCP
from fastmcp.dependencies import Progress
from fastmcp.exceptions import ResourceError
from fastmcp.prompts import Prompt
from fastmcp.resources import (
    BinaryResource,
    DirectoryResource,
    FileResource,
    Resource,
    ResourceContent,
    ResourceResult,
    ResourceTemplate,
    TextResource,
    resource,
)

mcp = FastMCP("Components")
files = Path(tempfile.mkdtemp())
(files / "notes.md").write_text("# Notes\nSunday: maintenance.")
(files / "logo.png").write_bytes(b"\x89PNG\r\n")
(files / "data").mkdir()
(files / "data" / "a.csv").write_text("x,y")
(files / "data" / "b.csv").write_text("1,2")
(files / "data" / "c.txt").write_text("z")

mcp.add_resource(
    TextResource(uri="resource://notice", name="Notice", text="Maintenance on Sunday.", tags={"notification"})
)
mcp.add_resource(BinaryResource(uri="resource://magic", data=b"\x00\x01\x02", mime_type="application/octet-stream"))
mcp.add_resource(
    FileResource(
        uri="file:///notes.md",
        path=files / "notes.md",
        name="Notes",
        description="The team's notes",
        mime_type="text/markdown",
        meta={"owner": "team"},
    )
)
mcp.add_resource(FileResource(uri="file:///logo.png", path=files / "logo.png", mime_type="image/png"))
mcp.add_resource(DirectoryResource(uri="resource://data", path=files / "data", name="Data", pattern="*.csv"))


class Counter(Resource):
    """Counts its reads."""

    reads: int = 0

    async def read(self) -> ResourceResult:
        self.reads += 1
        return ResourceResult([ResourceContent({"reads": self.reads})], meta={"kind": "counter"})


mcp.add_resource(Counter(uri="resource://counter", name="counter", version="2"))


def weather() -> dict:
    """Today's weather."""
    return {"sky": "clear", "high": 21}


mcp.add_resource(Resource.from_function(weather, "weather://today", tags={"weather"}, mime_type="application/json"))


def forecast(city: str, days: int) -> str:
    return f"{days} days of sun in {city}"


mcp.add_template(ResourceTemplate.from_function(forecast, "weather://{city}/{days}", description="A forecast"))


@resource("config://app", name="app-config", mime_type="application/json")
def app_config() -> dict:
    return {"debug": False}


mcp.add_resource(app_config)


def review(code: str, language: str = "python") -> str:
    """Asks for a review."""
    return f"Review this {language} code:\n{code}"


mcp.add_prompt(Prompt.from_function(review, name="code-review", tags={"coding"}))


@mcp.resource("memo://{name}")
def memo(name: str) -> str:
    if name == "secret":
        raise ResourceError("memo secret is sealed")
    raise KeyError(name)


@mcp.tool
async def process(items: list[str], progress: Progress = Progress()) -> str:
    """Processes items, telling how far it got."""
    await progress.set_total(len(items))
    for item in items:
        await progress.set_message(f"processing {item}")
        await progress.increment()
    return f"{progress.current}/{progress.total}: {progress.message}"


def listed(items: list, *fields: str) -> list[dict]:
    wire = [item.model_dump(mode="json", by_alias=True, exclude_none=True) for item in items]
    return sorted(({field: entry.get(field) for field in fields} for entry in wire), key=json.dumps)


def contents(result: object) -> list[dict]:
    wire = result.model_dump(mode="json", by_alias=True, exclude_none=True)
    read = []
    for item in wire["contents"]:
        if item["uri"] == "resource://data":
            item["text"] = sorted(json.loads(item["text"])["files"])
        read.append(item)
    meta = {key: value for key, value in wire.get("_meta", {}).items() if not key.startswith("io.modelcontext")}
    return [read, meta]


async def processed(client: Client) -> tuple[object, list]:
    """What ``process`` returns, and the progress the client was told of."""
    updates = []

    async def progressed(progress: float, total: float | None, message: str | None) -> None:
        updates.append([progress, total, message])

    result = await client.call_tool("process", {"items": ["a", "b", "c"]}, progress_handler=progressed)
    return result, updates


async def main() -> None:
    for mode in ("legacy", "2026-07-28"):
        async with Client(mcp, mode=mode) as client:
            resources = await client.list_resources()
            print("resources", json.dumps(listed(resources, "uri", "name", "description", "mimeType", "_meta")))
            templates = await client.list_resource_templates()
            print("templates", json.dumps(listed(templates, "uriTemplate", "name", "description")))
            prompts = await client.list_prompts()
            print("prompts", json.dumps(listed(prompts, "name", "description", "arguments", "_meta")))
            for uri in [
                "resource://notice",
                "resource://magic",
                "file:///notes.md",
                "file:///logo.png",
                "resource://data",
                "resource://counter",
                "weather://today",
                "weather://paris/3",
                "config://app",
            ]:
                print(uri, json.dumps(contents(await client.read_resource_mcp(uri))))
            rendered = await client.get_prompt("code-review", {"code": "print(1)"})
            print("prompt", json.dumps([m.model_dump(mode="json", exclude_none=True) for m in rendered.messages]))
            for uri in ["memo://secret", "memo://lost"]:
                try:
                    await client.read_resource_mcp(uri)
                except Exception as error:
                    print("read failed", uri, error.code, error.message)
            result, updates = await processed(client)
            print("process", result.data)
            # FastMCP's `Progress` outside a Docket worker only counts; oxmcp's tells the client.
            print("updates", json.dumps(updates))


asyncio.run(main())
