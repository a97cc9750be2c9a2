"""MCP Apps written the FastMCP way: a `FastMCPApp` served by a server that another mounts
under a namespace, whose UI calls the app's tools (by function, by a name it gave one, and
one it does not have); tools rendered by Prefab UI with renderers of their own frame
policies. It prints what FastMCP's client gets: the tools' UI metadata, the renderers listed
and read, and the UI's calls as the outer server names them."""

import asyncio
import json

from fastmcp import Client, FastMCP, FastMCPApp
from fastmcp.apps import PrefabAppConfig, ResourceCSP
from prefab_ui.actions.mcp import CallTool
from prefab_ui.app import PrefabApp
from prefab_ui.components import Button, Column, Heading, Text

notes = FastMCPApp("Notes")


@notes.tool()
def save(text: str) -> str:
    """Keep a note."""
    return text


@notes.tool("wipe", model=True)
def clear() -> str:
    """Forget every note."""
    return ""


@notes.ui()
def open_notes(title: str = "Notes") -> PrefabApp:
    """Open the notes."""
    with Column() as view:
        Heading(title)
        Button("Save", on_click=CallTool(save, arguments={"text": "x"}))
        Button("Clear", on_click=CallTool("wipe"))
        Button("Elsewhere", on_click=CallTool("elsewhere"))
    return PrefabApp(view=view, state={"count": 0})


inner = FastMCP("inner", providers=[notes])


@inner.tool(app=True)
def banner(text: str) -> Column:
    """A banner."""
    with Column() as view:
        Text(text)
    return view


mcp = FastMCP("outer")
mcp.mount(inner, namespace="crm")


@mcp.tool(app=PrefabAppConfig(csp=ResourceCSP(connect_domains=["https://api.example.com"]), prefers_border=True))
async def chart(points: int = 3) -> PrefabApp:
    """A chart that fetches its data."""
    with Column() as view:
        Text(f"{points} points")
    return PrefabApp(view=view)


def card() -> PrefabApp:
    return PrefabApp(view=Text("card"))


async def main() -> None:
    async with Client(mcp) as client:
        for tool in sorted(await client.list_tools(), key=lambda t: t.name):
            print(tool.name, json.dumps(tool.meta, sort_keys=True))
        # The renderers the tools name (FastMCP lists the mounted server's under its
        # namespace too, which it cannot read).
        for resource in sorted(await client.list_resources(), key=lambda r: str(r.uri)):
            print(resource.uri, resource.mime_type, json.dumps(resource.meta, sort_keys=True))
            if str(resource.uri).startswith("ui://prefab/"):
                print((await client.read_resource(str(resource.uri)))[0].text[:15])
        for name, arguments in (("crm_open_notes", {"title": "Mine"}), ("crm_banner", {"text": "hi"}), ("chart", {})):
            result = await client.call_tool(name, arguments)
            print(name, [block.text for block in result.content], json.dumps(result.structured_content, sort_keys=True))
        print("saved", (await client.call_tool("crm_save", {"text": "a"})).data)
    # A renderer is served while a tool the server shows names it.
    cards = FastMCP("cards")
    cards.tool(app=True, tags={"ui"})(card)
    async with Client(cards) as client:
        [renderer] = [str(resource.uri) for resource in await client.list_resources()]
    cards.disable(tags={"ui"})
    async with Client(cards) as client:
        print("hidden", [str(resource.uri) for resource in await client.list_resources()])
        try:
            await client.read_resource(renderer)
        except Exception as error:
            print("refused", str(error).split(":")[0])


if __name__ == "__main__":
    asyncio.run(main())
