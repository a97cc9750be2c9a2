"""OpenAPI descriptions that refer outside themselves, given to FastMCP's `from_openapi`:
refused when an operation's schemas need what is elsewhere (a parameter, a body, a
property of a component schema), served when only data or an unused component does.
`tests/test_dropin.py` runs it with FastMCP and with its imports changed, and compares
what it prints."""

import asyncio
import json
from typing import Any

import httpx2
from fastmcp import Client, FastMCP

PET = {"type": "object", "properties": {"name": {"type": "string"}}}


def described(operation: dict[str, Any], schemas: dict[str, Any]) -> dict[str, Any]:
    return {
        "openapi": "3.0.0",
        "info": {"title": "Pets", "version": "1"},
        "paths": {"/pets": {"post": {"operationId": "add_pet", **operation}}},
        "components": {"schemas": schemas},
    }


def body(schema: dict[str, Any]) -> dict[str, Any]:
    return {
        "requestBody": {"content": {"application/json": {"schema": schema}}},
        "responses": {"200": {"description": "ok"}},
    }


CASES = {
    "parameter": described(
        {
            "parameters": [{"$ref": "https://example.com/common.yaml#/Limit"}],
            "responses": {"200": {"description": "ok"}},
        },
        {},
    ),
    "parameter schema": described(
        {
            "parameters": [{"name": "limit", "in": "query", "schema": {"$ref": "common.yaml#/Limit"}}],
            "responses": {"200": {"description": "ok"}},
        },
        {},
    ),
    "body": described(body({"$ref": "other.yaml#/components/schemas/Pet"}), {}),
    "component property": described(
        body({"$ref": "#/components/schemas/Pet"}),
        {"Pet": {**PET, "properties": {"owner": {"$ref": "people.json#/Owner"}}}},
    ),
    "response": described(
        {
            "responses": {
                "200": {"description": "ok", "content": {"application/json": {"schema": {"$ref": "pet.json"}}}}
            }
        },
        {},
    ),
    "example": described(body({**PET, "example": {"$ref": "not/a/schema"}}), {}),
    "unused component": described(body(PET), {"Pet": PET, "Owner": {"$ref": "people.json#/Owner"}}),
}


async def main() -> None:
    for case, description in CASES.items():
        try:
            mcp = FastMCP.from_openapi(description, client=httpx2.AsyncClient(base_url="http://127.0.0.1:9"))
        except ValueError as error:
            print(case, "refused:", error)
            continue
        async with Client(mcp) as client:
            for tool in await client.list_tools():
                print(case, "served:", tool.name, json.dumps(tool.input_schema, sort_keys=True))


if __name__ == "__main__":
    asyncio.run(main())
