"""A server written the way FastMCP's users serve an HTTP API: a FastAPI app (path, query
and header parameters, pydantic bodies, form and multipart bodies, a body described with
`allOf`, a list and a plain answer, an error) made a server
with `FastMCP.from_fastapi`, some of its GETs mapped to a resource and a resource template.
`tests/test_dropin.py` runs it with FastMCP and, with its imports changed, with oxmcp, and
compares what a client gets; `tests/test_fastmcp_providers.py` serves `app` with uvicorn."""

import asyncio
import json
from typing import Annotated

from fastapi import FastAPI, File, Form, Header, HTTPException, Query, Request
from fastmcp import Client, FastMCP
from fastmcp.server.providers.openapi import MCPType, RouteMap
from pydantic import BaseModel, Field

app = FastAPI(title="Shop")


class Item(BaseModel):
    name: str
    price: float = Field(description="In euros")
    tags: list[str] = []


class Order(BaseModel):
    item: Item
    quantity: int = 1


items = {1: Item(name="pen", price=1.5)}


@app.get("/items/{item_id}", tags=["items"])
def get_item(item_id: int) -> Item:
    """Gets an item."""
    if item_id not in items:
        raise HTTPException(404, "no such item")
    return items[item_id]


@app.get("/items", tags=["items"], summary="List items")
def list_items(
    limit: Annotated[int, Query(description="At most this many")] = 10, tag: str | None = None
) -> list[Item]:
    return [item for item in items.values() if tag is None or tag in item.tags][:limit]


@app.post("/items", tags=["items"], operation_id="create_item")
def create_item(item: Item, x_request_id: Annotated[str | None, Header()] = None) -> dict:
    """Creates an item."""
    items[len(items) + 1] = item
    return {"id": len(items), "request": x_request_id}


@app.post("/orders/{item_id}")
def order(item_id: int, order: Order) -> Order:
    """Orders an item."""
    return order


@app.put("/items/{item_id}/name")
def rename(item_id: int, name: str) -> str:
    items[item_id].name = name
    return name


@app.post("/feedback")
def feedback(
    name: Annotated[str, Form()], rating: Annotated[int, Form()], tags: Annotated[list[str] | None, Form()] = None
) -> dict:
    """Takes feedback from a web form."""
    return {"name": name, "rating": rating, "tags": tags or []}


@app.post("/upload")
def upload(
    file: Annotated[bytes, File()], note: Annotated[str, Form()], urgent: Annotated[bool, Form()] = False
) -> dict:
    """Takes a file and a note."""
    return {"size": len(file), "text": file.decode(), "note": note, "urgent": urgent}


# A body its description composes of a component and properties of its own.
PET = {
    "allOf": [
        {"$ref": "#/components/schemas/Item"},
        {"type": "object", "properties": {"breed": {"type": "string"}}, "required": ["breed"]},
    ]
}


@app.post("/pets", openapi_extra={"requestBody": {"required": True, "content": {"application/json": {"schema": PET}}}})
async def create_pet(request: Request) -> dict:
    """Registers a pet."""
    return await request.json()


@app.get("/health")
def health() -> str:
    return "ok"


mcp = FastMCP.from_fastapi(
    app,
    route_maps=[
        RouteMap(methods=["GET"], pattern=r"^/health$", mcp_type=MCPType.RESOURCE),
        RouteMap(
            methods=["GET"], pattern=r"^/items/\{item_id\}$", mcp_type=MCPType.RESOURCE_TEMPLATE, mcp_tags={"read"}
        ),
    ],
)


def shown(value: object) -> str:
    """`value` as JSON, without the protocol's `_meta` keys (the server's name and version,
    which differ between the SDKs)."""
    wire = value.model_dump(mode="json", exclude_none=True, by_alias=True)
    meta = {key: item for key, item in wire.pop("_meta", {}).items() if not key.startswith("io.modelcontext")}
    return json.dumps({**wire, **({"_meta": meta} if meta else {})}, sort_keys=True)


async def main() -> None:
    for mode in ("legacy", "2026-07-28"):
        async with Client(mcp, mode=mode) as client:
            for tool in await client.list_tools():
                print("tool", shown(tool))
            for resource in await client.list_resources():
                print("resource", shown(resource))
            for template in await client.list_resource_templates():
                print("template", shown(template))
            for name, arguments in [
                ("create_item", {"name": "ink", "price": 2, "tags": ["office"], "x-request-id": "r1"}),
                ("list_items_items_get", {"limit": 5, "tag": "office"}),
                ("order_orders", {"item_id": 1, "item": {"name": "a", "price": 1}, "quantity": 2}),
                ("rename_items", {"item_id": 1, "name": "quill"}),
                ("create_item", {"name": "ink"}),
                ("feedback_feedback_post", {"name": "Ada", "rating": 5, "tags": ["fast", "kind"]}),
                ("upload_upload_post", {"file": "hello", "note": "a note", "urgent": True}),
                ("create_pet_pets_post", {"name": "rex", "price": 3, "breed": "lab"}),
            ]:
                print("call", name, shown(await client.call_tool_mcp(name, arguments)))
            for uri in ["resource://health_health_get", "resource://get_item_items/1"]:
                print("read", uri, shown(await client.read_resource_mcp(uri)))
            try:
                await client.read_resource_mcp("resource://get_item_items/9")
            except Exception as error:
                print("read failed", error.code, error.message)


if __name__ == "__main__":
    asyncio.run(main())
