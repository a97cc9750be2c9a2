"""The client fixture of the official MCP conformance suite, written with oxmcp's Python
package: the same client as the Rust fixture (``tests/conformance/src/bin/conformance-client.rs``),
answering sampling, elicitation and roots requests, and signing in with ``oxmcp.auth.OAuth``
in the ``auth/*`` scenarios.

Usage: ``python client.py <server-url>``, with the scenario in ``MCP_CONFORMANCE_SCENARIO``,
the protocol version to speak in ``MCP_CONFORMANCE_PROTOCOL_VERSION`` and the scenario's
credentials, if any, in ``MCP_CONFORMANCE_CONTEXT``. Exits 0 when the scenario's steps
succeed, 1 otherwise.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import urllib.error
import urllib.parse
import urllib.request
from typing import Any

from oxmcp import Client, ProtocolError
from oxmcp.auth import AssertionTarget, OAuth, request_id_jag
from oxmcp.types import CreateMessageRequest, ElicitRequest, Tool

#: The redirect URI the client registers; the suite's authorization server approves at once
#: and the client reads its redirect, so nothing listens there.
REDIRECT_URI = "http://localhost:3000/callback"
#: The client ID metadata document URL the suite expects (``auth/basic-cimd``).
CLIENT_METADATA_URL = "https://conformance-test.local/client-metadata.json"
LEGACY_VERSIONS = {"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"}


def era() -> str:
    """The era of ``MCP_CONFORMANCE_PROTOCOL_VERSION``: the suite says which to speak."""
    version = os.environ.get("MCP_CONFORMANCE_PROTOCOL_VERSION")
    if version is None:
        return "auto"
    return "legacy" if version in LEGACY_VERSIONS else "modern"


def approve(url: str) -> str:
    """The user's part of the code flow: the suite's authorization server approves at once,
    so the redirect it answers with is the callback."""

    class Stop(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args: Any) -> None:
            return None

    try:
        with urllib.request.build_opener(Stop).open(url) as answer:
            raise RuntimeError(f"the authorization endpoint answered {answer.status} without a redirect")
    except urllib.error.HTTPError as answer:
        location = answer.headers.get("Location")
        if not location:
            raise RuntimeError(f"the authorization endpoint answered {answer.code} without a redirect") from None
        return urllib.parse.urljoin(url, location)


def first_authorization_server(url: str) -> str:
    """The first authorization server the MCP server names (the suite gives no issuer with
    some credentials; an app would configure the issuer it registered with)."""
    parts = urllib.parse.urlsplit(url)
    path = parts.path.rstrip("/")
    for candidate in (f"/.well-known/oauth-protected-resource{path}", "/.well-known/oauth-protected-resource"):
        metadata_url = urllib.parse.urlunsplit((parts.scheme, parts.netloc, candidate, "", ""))
        try:
            with urllib.request.urlopen(metadata_url) as answer:
                servers = json.load(answer).get("authorization_servers") or []
                if servers:
                    return str(servers[0])
        except urllib.error.URLError:
            continue
    raise RuntimeError("the scenario's MCP server names no authorization server")


def oauth(scenario: str, url: str, context: dict[str, Any]) -> OAuth:
    """The OAuth client of the scenario, with the credentials of its context."""
    issuer = context.get("issuer") or (first_authorization_server(url) if "client_id" in context else None)
    if scenario == "auth/client-credentials-basic":
        return OAuth.client_credentials(
            issuer=issuer, client_id=context["client_id"], client_secret=context.get("client_secret")
        )
    if scenario == "auth/client-credentials-jwt":
        return OAuth.client_credentials(
            issuer=issuer, client_id=context["client_id"], private_key_pem=context["private_key_pem"]
        )
    if scenario == "auth/wif-jwt-bearer":
        jwt = context["valid_jwt"]
        return OAuth.jwt_bearer(
            issuer=issuer,
            client_id=context["client_id"],
            client_secret=context.get("client_secret"),
            assertion=lambda target: jwt,
        )
    if scenario == "auth/enterprise-managed-authorization":

        async def id_jag(target: AssertionTarget) -> str:
            return await request_id_jag(
                token_endpoint=context["idp_token_endpoint"],
                client_id=context["idp_client_id"],
                id_token=context["idp_id_token"],
                target=target,
            )

        return OAuth.jwt_bearer(
            issuer=issuer, client_id=context["client_id"], client_secret=context.get("client_secret"), assertion=id_jag
        )

    async def authorize(authorization_url: str) -> str:
        return await asyncio.to_thread(approve, authorization_url)

    # DPoP is used with the authorization servers that offer it (auth/dpop*).
    return OAuth(
        "oxmcp-conformance-client",
        authorize=authorize,
        redirect_uri=REDIRECT_URI,
        client_metadata_url=CLIENT_METADATA_URL,
        issuer=issuer,
        client_id=context.get("client_id"),
        client_secret=context.get("client_secret"),
        dpop=True,
    )


def sample_value(schema: dict[str, Any], name: str) -> Any:
    if schema.get("enum"):
        return schema["enum"][0]
    if "default" in schema:
        return schema["default"]
    kind = schema.get("type")
    if kind in ("number", "integer"):
        return 3 if name == "b" else 2
    return {"boolean": True, "array": [], "object": {}}.get(str(kind), "test")


def arguments_for(tool: Tool) -> dict[str, Any]:
    """A value of the right type for each required property of the tool's input schema."""
    schema = tool.input_schema
    properties = schema.get("properties") or {}
    return {name: sample_value(properties.get(name) or {}, name) for name in schema.get("required") or []}


async def sampling(request: CreateMessageRequest) -> dict[str, Any]:
    """A fixed answer that quotes the last message's text."""
    messages = request.model_dump(mode="json", by_alias=True)["messages"]
    content = messages[-1]["content"] if messages else []
    blocks = content if isinstance(content, list) else [content]
    asked = next((block["text"] for block in blocks if block.get("type") == "text"), "")
    return {
        "role": "assistant",
        "content": {"type": "text", "text": f"A test answer to: {asked}"},
        "model": "test-model",
        "stopReason": "endTurn",
    }


async def elicitation(request: ElicitRequest) -> dict[str, Any]:
    """A user who accepts a form as the server pre-filled it (SEP-1034), filling in what it
    requires without a default."""
    params = request.model_dump(mode="json", by_alias=True)
    schema = params.get("requestedSchema")
    if schema is None:
        return {"action": "decline"}
    properties = schema.get("properties") or {}
    content = {name: field["default"] for name, field in properties.items() if "default" in field}
    for name in schema.get("required") or []:
        content.setdefault(name, sample_value(properties.get(name) or {}, name))
    return {"action": "accept", "content": content}


async def roots() -> list[dict[str, str]]:
    return [{"uri": "file:///tmp/oxmcp-conformance", "name": "Conformance root"}]


async def run(scenario: str, url: str, context: dict[str, Any]) -> None:
    """Does what the scenario asks, as the Rust fixture does."""
    auth = oauth(scenario, url, context) if scenario.startswith("auth/") else None
    handlers = {"sampling_handler": sampling, "elicitation_handler": elicitation, "roots_handler": roots}
    async with Client.http(url, auth=auth, era=era(), timeout=20, **handlers) as client:
        if scenario in ("initialize", "json-schema-ref-no-deref"):
            await client.list_tools()
        elif scenario == "json-schema-2020-12-preservation":
            tools = {tool.name: tool for tool in await client.list_tools()}
            focal = tools["json_schema_2020_12_tool"]
            await client.call_tool("json_schema_echo", {"schema": focal.input_schema})
        elif scenario in ("elicitation-sep1034-client-defaults", "elicitation-defaults"):
            await call_tools(client, context)
        elif scenario == "sep-2640-client-no-prefetch":
            await client.list_skills()
        elif scenario.startswith("sep-2640-client-verify"):
            await use_skills(client)
        else:
            await exercise_everything(client, context)


async def use_skills(client: Client) -> None:
    """Loads each skill the server lists, then reads its other files, each checked against
    the skill's entry; a skill that fails a check is dropped unread."""
    for skill in await client.list_skills():
        try:
            await client.load_skill(skill)
        except ProtocolError as refused:
            print(f"conformance-client (python): refused {skill.uri}: {refused}", file=sys.stderr)
            continue
        if isinstance(skill.resources, list):
            for file in skill.resources:
                if file.uri != skill.uri:
                    await client.read_skill_file(skill, file.uri)


async def call_tools(client: Client, context: dict[str, Any]) -> None:
    """Calls the tools the scenario's context names, else every tool with arguments made
    from its schema."""
    tools = await client.list_tools()
    if "toolCalls" in context:
        for call in context["toolCalls"]:
            await client.call_tool(call["name"], call.get("arguments") or {})
        return
    for tool in tools:
        await client.call_tool(tool.name, arguments_for(tool))


async def exercise_everything(client: Client, context: dict[str, Any]) -> None:
    """Calls each tool, reads each resource, gets each prompt the server offers."""
    capabilities = client.capabilities
    if "tools" in capabilities:
        await call_tools(client, context)
    if "resources" in capabilities:
        for resource in await client.list_resources():
            await client.read_resource(str(resource.uri))
    if "prompts" in capabilities:
        for prompt in await client.list_prompts():
            required = {argument.name: "test" for argument in prompt.arguments or [] if argument.required}
            await client.get_prompt(prompt.name, required)


def main() -> None:
    scenario = os.environ.get("MCP_CONFORMANCE_SCENARIO", "")
    if len(sys.argv) != 2:
        sys.exit("usage: MCP_CONFORMANCE_SCENARIO=<scenario> python client.py <server-url>")
    context = json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT") or "{}")
    try:
        asyncio.run(asyncio.wait_for(run(scenario, sys.argv[1], context), 25))
    except Exception as error:  # any failure fails the scenario, with its reason
        print(f"conformance-client (python): {scenario}: {error!r}", file=sys.stderr)
        sys.exit(1)
    print(f"conformance-client (python): {scenario}: done", file=sys.stderr)


if __name__ == "__main__":
    main()
