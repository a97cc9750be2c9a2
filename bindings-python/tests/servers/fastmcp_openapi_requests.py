"""A server FastMCP's users make of an HTTP API whose description styles its parameters
(query lists not exploded: comma, pipe and space delimited; a `deepObject` filter; an
object in the `form` style; booleans; path, header and cookie values in the `simple`
style: a list, a boolean, an exploded object; path values that would make a dot segment),
whose bodies are objects of variants a `discriminator` maps (one by `allOf` of the parent,
one by `oneOf`), and a form whose object fields go as JSON. The API echoes what reached
it. `tests/test_dropin.py` runs it with FastMCP and, with its imports changed, with oxmcp,
and compares the tools listed and what each sent."""

import asyncio
import json

import httpx2 as httpx
from fastmcp import Client, FastMCP
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route


async def echo(request: Request) -> JSONResponse:
    headers = {name: request.headers.get(name) for name in ("x-tags", "x-debug", "x-point", "cookie")}
    form = request.headers.get("content-type", "").startswith("application/x-www-form-urlencoded")
    body = (await request.body()).decode() if form else await request.json() if request.method == "POST" else None
    return JSONResponse(
        {"path": request.scope["raw_path"].decode(), "query": request.scope["query_string"].decode(), **headers}
        | ({"body": body} if body is not None else {})
    )


api = Starlette(routes=[Route("/{rest:path}", echo, methods=["GET", "POST"])])

STRINGS = {"type": "array", "items": {"type": "string"}}
POINT = {"type": "object", "properties": {"x": {"type": "integer"}, "y": {"type": "integer"}}}
ECHOED = {"200": {"description": "What the API got", "content": {"application/json": {"schema": {"type": "object"}}}}}
COMPONENT = "#/components/schemas/"
VARIANTS = {
    # A parent whose variants extend it (`allOf`), one named bare, one adding nothing.
    "Pet": {
        "type": "object",
        "properties": {"kind": {"type": "string", "description": "What it is"}, "name": {"type": "string"}},
        "required": ["kind", "name"],
        "discriminator": {
            "propertyName": "kind",
            "mapping": {"cat": COMPONENT + "Cat", "dog": "Dog", "fish": COMPONENT + "Fish"},
        },
    },
    "Cat": {
        "allOf": [
            {"$ref": COMPONENT + "Pet"},
            {"properties": {"indoor": {"type": "boolean"}, "size": {"type": "integer"}}},
        ]
    },
    "Dog": {
        "allOf": [
            {"$ref": COMPONENT + "Pet"},
            {"properties": {"breed": {"type": "string"}, "size": {"type": "string"}}, "required": ["breed"]},
        ]
    },
    "Fish": {"allOf": [{"$ref": COMPONENT + "Pet"}]},
    # A body that is one of its variants (`oneOf`), the discriminating property theirs.
    "Shape": {
        "type": "object",
        "oneOf": [{"$ref": COMPONENT + "Circle"}, {"$ref": COMPONENT + "Square"}],
        "discriminator": {
            "propertyName": "form",
            "mapping": {"circle": COMPONENT + "Circle", "square": COMPONENT + "Square"},
        },
    },
    "Circle": {
        "type": "object",
        "properties": {"form": {"const": "circle"}, "r": {"type": "number"}},
        "required": ["form"],
    },
    "Square": {"type": "object", "properties": {"form": {"const": "square"}, "side": {"type": "number"}}},
}


# A form whose object and list-of-objects fields go as JSON (OpenAPI's default encoding),
# one list as JSON because its encoding says so.
PROFILE = {
    "type": "object",
    "properties": {
        "name": {"type": "string"},
        "address": {"type": "object", "properties": {"city": {"type": "string"}}},
        "tags": STRINGS,
        "contacts": {"type": "array", "items": {"type": "object", "properties": {"email": {"type": "string"}}}},
        "labels": STRINGS,
        "active": {"type": "boolean"},
    },
}
FORM = {"schema": PROFILE, "encoding": {"labels": {"contentType": "application/json"}}}


def posted(operation: str, component: str) -> dict:
    body = {"required": True, "content": {"application/json": {"schema": {"$ref": COMPONENT + component}}}}
    return {"post": {"operationId": operation, "requestBody": body, "responses": ECHOED}}


def parameter(name: str, where: str, schema: dict, **how: object) -> dict:
    return {"name": name, "in": where, "schema": schema, "required": where == "path", **how}


spec = {
    "openapi": "3.1.0",
    "info": {"title": "Styles", "version": "1"},
    "paths": {
        "/search": {
            "get": {
                "operationId": "search",
                "parameters": [
                    parameter("tags", "query", STRINGS, style="form", explode=False),
                    parameter("ids", "query", {"type": "array", "items": {"type": "integer"}}, style="pipeDelimited"),
                    parameter("words", "query", STRINGS, style="spaceDelimited"),
                    parameter("filter", "query", {"type": "object"}, style="deepObject", explode=True),
                    parameter("point", "query", POINT, explode=False),
                    parameter("near", "query", POINT),
                    parameter("flags", "query", {"type": "array", "items": {"type": "boolean"}}),
                    parameter("exact", "query", {"type": "boolean"}),
                ],
                "responses": ECHOED,
            }
        },
        "/files/{names}/{flag}/{shape}": {
            "get": {
                "operationId": "files",
                "parameters": [
                    parameter("names", "path", STRINGS),
                    parameter("flag", "path", {"type": "boolean"}),
                    parameter("shape", "path", POINT, explode=True),
                    parameter("x-tags", "header", STRINGS),
                    parameter("x-debug", "header", {"type": "boolean"}),
                    parameter("x-point", "header", POINT, explode=True),
                    parameter("session", "cookie", {"type": "boolean"}),
                ],
                "responses": ECHOED,
            }
        },
        "/pets": posted("add_pet", "Pet"),
        "/shapes": posted("add_shape", "Shape"),
        "/profile": {
            "post": {
                "operationId": "save_profile",
                "requestBody": {"content": {"application/x-www-form-urlencoded": FORM}},
                "responses": ECHOED,
            }
        },
        "/docs/{name}": {
            "get": {
                "operationId": "doc",
                "parameters": [parameter("name", "path", {"type": "string"})],
                "responses": ECHOED,
            }
        },
    },
    "components": {"schemas": VARIANTS},
}

mcp = FastMCP.from_openapi(
    spec, client=httpx.AsyncClient(transport=httpx.ASGITransport(app=api), base_url="http://api")
)

CALLS = [
    (
        "search",
        {
            "tags": ["a", "b c"],
            "ids": [1, 2],
            "words": ["x", "y"],
            "filter": {"color": "red", "size": 2},
            "point": {"x": 1, "y": 2},
            "near": {"x": 3, "y": 4},
            "flags": [True, False],
            "exact": True,
        },
    ),
    ("search", {"tags": [], "filter": {}}),
    (
        "files",
        {
            "names": ["a.txt", "b/c"],
            "flag": False,
            "shape": {"x": 1, "y": 2},
            "x-tags": ["p", "q"],
            "x-debug": True,
            "x-point": {"x": 5, "y": 6},
            "session": True,
        },
    ),
    ("add_pet", {"kind": "dog", "name": "rex", "breed": "lab", "size": "big"}),
    ("add_shape", {"form": "circle", "r": 2}),
    (
        "save_profile",
        {
            "name": "Ada",
            "address": {"city": "Oslo"},
            "tags": ["a", "b"],
            "contacts": [{"email": "ada@example.com"}],
            "labels": ["x", "y"],
            "active": True,
        },
    ),
    ("doc", {"name": "v1.2"}),
    ("doc", {"name": ".."}),
    ("doc", {"name": "%2e%2e"}),
    ("doc", {"name": "a/../b"}),
]


async def main() -> None:
    async with Client(mcp) as client:
        for tool in await client.list_tools():
            print("tool", tool.name, json.dumps(tool.input_schema, sort_keys=True))
        for name, arguments in CALLS:
            result = await client.call_tool_mcp(name, arguments)
            if result.is_error:
                print(name, "failed:", result.content[0].text)
            else:
                print(name, json.dumps(result.structured_content, sort_keys=True))


if __name__ == "__main__":
    asyncio.run(main())
