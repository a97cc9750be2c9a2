"""The server fixture of the official MCP conformance suite, written with oxmcp's Python
package: the same tools, resources, prompts and completions as the Rust fixture
(``tests/conformance/src/bin/conformance-server.rs``), for both protocol eras on one
Streamable HTTP endpoint bound to 127.0.0.1.

Usage: ``python server.py [--port N]`` (else ``PORT``, else any free port). The endpoint's
URL is the first line on stdout. SIGINT or SIGTERM stops it.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import os
import signal
import sys
from pathlib import Path
from typing import Annotated, Any

from pydantic import Field

from oxmcp import (
    Audio,
    Context,
    EmbeddedResource,
    Image,
    McpError,
    PromptMessage,
    ProtocolError,
    Server,
    TextContent,
    ToolError,
)
from oxmcp.types import TextResourceContents

TEST_IMAGE = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
)
TEST_AUDIO = base64.b64decode("UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=")
LOGGER = "conformance-test-server"

server = Server(
    "oxmcp-conformance-server",
    instructions="The oxmcp fixture of the MCP conformance suite.",
    skills=Path(__file__).resolve().parents[2] / "skills",
)


def compact(value: Any) -> str:
    """JSON without spaces, as the Rust fixture writes it."""
    return json.dumps(value, separators=(",", ":"))


def embedded(uri: str, mime_type: str, text: str) -> EmbeddedResource:
    return EmbeddedResource(resource=TextResourceContents(uri=uri, mime_type=mime_type, text=text))


def text_of(content: Any) -> str:
    """The text of a sampling answer's content (one block or a list)."""
    blocks = content if isinstance(content, list) else [content]
    for block in blocks:
        if isinstance(block, dict) and block.get("type") == "text":
            return str(block["text"])
    return "No response"


def form(message: str, properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    """A wire elicitation request for a form."""
    schema = {"type": "object", "properties": properties, "required": required}
    return {"method": "elicitation/create", "params": {"message": message, "requestedSchema": schema}}


def elicit_one(message: str, field: str, kind: str) -> dict[str, Any]:
    return form(message, {field: {"type": kind}}, [field])


def sampling(prompt: str, max_tokens: int) -> dict[str, Any]:
    """A wire sampling request of one user message."""
    messages = [{"role": "user", "content": {"type": "text", "text": prompt}}]
    return {"method": "sampling/createMessage", "params": {"messages": messages, "maxTokens": max_tokens}}


ROOTS = {"method": "roots/list"}


def answer(ctx: Context, key: str) -> dict[str, Any] | None:
    """The client's answer to the input request `key`, if this retry brought one."""
    return (ctx.input_responses or {}).get(key)


def elicited_text(ctx: Context, key: str, field: str) -> str | None:
    content = (answer(ctx, key) or {}).get("content") or {}
    value = content.get(field)
    return value if isinstance(value, str) else None


def elicited_or_ask(ctx: Context, key: str, field: str, message: str) -> str:
    """The text the user gave for `field` under `key`; else ends the run asking for it."""
    value = elicited_text(ctx, key, field)
    if value is None:
        ctx.input_required({key: elicit_one(message, field, "string")})
    return value


# Tools of both eras


@server.tool()
async def test_simple_text() -> str:
    """Tests simple text content response"""
    return "This is a simple text response for testing."


@server.tool()
async def test_image_content() -> Image:
    """Tests image content response"""
    return Image(TEST_IMAGE, mime_type="image/png")


@server.tool()
async def test_audio_content() -> Audio:
    """Tests audio content response"""
    return Audio(TEST_AUDIO, mime_type="audio/wav")


@server.tool()
async def test_embedded_resource() -> EmbeddedResource:
    """Tests embedded resource content response"""
    return embedded("test://embedded-resource", "text/plain", "This is an embedded resource content.")


@server.tool()
async def test_multiple_content_types() -> list[TextContent | Image | EmbeddedResource]:
    """Tests response with multiple content types (text, image, resource)"""
    return [
        TextContent(text="Multiple content types test:"),
        Image(TEST_IMAGE, mime_type="image/png"),
        embedded("test://mixed-content-resource", "application/json", compact({"test": "data", "value": 123})),
    ]


@server.tool()
async def test_tool_with_logging(ctx: Context) -> str:
    """Tests tool that emits log messages during execution"""
    steps = ["Tool execution started", "Tool processing data", "Tool execution completed"]
    for index, step in enumerate(steps):
        if index:
            await asyncio.sleep(0.05)
        await ctx.info(step, logger=LOGGER)
    return "Tool with logging executed successfully"


@server.tool()
async def test_tool_with_progress(ctx: Context) -> str:
    """Tests tool that reports progress notifications"""
    for index, step in enumerate([0.0, 50.0, 100.0]):
        if index:
            await asyncio.sleep(0.05)
        await ctx.progress(step, 100.0, f"Completed step {step:g} of 100")
    token = (ctx.meta or {}).get("progressToken")
    if token is None:
        return "no progress token"
    return token if isinstance(token, str) else compact(token)


@server.tool()
async def test_error_handling() -> str:
    """Tests error response handling"""
    raise ToolError("This tool intentionally returns an error for testing")


@server.tool()
async def test_reconnection(ctx: Context) -> str:
    """Tests SSE stream disconnection and client reconnection (SEP-1699)"""
    # A message before the result makes the answer a (resumable) SSE stream.
    await ctx.info("Reconnection test started", logger=LOGGER)
    await asyncio.sleep(0.1)
    return "Reconnection test completed successfully."


@server.tool()
async def test_sampling(
    prompt: Annotated[str, Field(description="The prompt to send to the LLM")], ctx: Context
) -> str:
    """Tests server-initiated sampling (LLM completion request)"""
    try:
        reply = await ctx.sample(prompt, max_tokens=100)
    except ProtocolError as error:
        return f"Sampling not supported or error: {error}"
    return f"LLM response: {text_of(reply.content)}"


async def elicitation_summary(ctx: Context, message: str, schema: dict[str, Any], label: str) -> str:
    """Elicits, and reports the user's answer as text (or why there is none)."""
    try:
        result = await ctx.elicit(message, schema)
    except ProtocolError as error:
        return f"Elicitation not supported or error: {error}"
    return f"{label}: action={result.action}, content={compact(result.data or {})}"


@server.tool()
async def test_elicitation(
    message: Annotated[str, Field(description="The message to show the user")], ctx: Context
) -> str:
    """Tests server-initiated elicitation (user input request)"""
    schema = {
        "type": "object",
        "properties": {"response": {"type": "string", "description": "User's response"}},
        "required": ["response"],
    }
    return await elicitation_summary(ctx, message, schema, "User response")


@server.tool()
async def test_elicitation_sep1034_defaults(ctx: Context) -> str:
    """Tests elicitation with default values per SEP-1034"""
    schema = {
        "type": "object",
        "properties": {
            "name": {"type": "string", "description": "User name", "default": "John Doe"},
            "age": {"type": "integer", "description": "User age", "default": 30},
            "score": {"type": "number", "description": "User score", "default": 95.5},
            "status": {
                "type": "string",
                "description": "User status",
                "enum": ["active", "inactive", "pending"],
                "default": "active",
            },
            "verified": {"type": "boolean", "description": "Verification status", "default": True},
        },
        "required": [],
    }
    message = "Please review and update the form fields with defaults"
    return await elicitation_summary(ctx, message, schema, "Elicitation completed")


def titled(values: list[tuple[str, str]]) -> list[dict[str, str]]:
    return [{"const": value, "title": title} for value, title in values]


@server.tool()
async def test_elicitation_sep1330_enums(ctx: Context) -> str:
    """Tests elicitation with enum schema improvements per SEP-1330"""
    options = ["option1", "option2", "option3"]
    schema = {
        "type": "object",
        "properties": {
            "untitledSingle": {"type": "string", "description": "Select one option", "enum": options},
            "titledSingle": {
                "type": "string",
                "description": "Select one option with titles",
                "oneOf": titled([("value1", "First Option"), ("value2", "Second Option"), ("value3", "Third Option")]),
            },
            "legacyEnum": {
                "type": "string",
                "description": "Select one option (legacy)",
                "enum": ["opt1", "opt2", "opt3"],
                "enumNames": ["Option One", "Option Two", "Option Three"],
            },
            "untitledMulti": {
                "type": "array",
                "description": "Select multiple options",
                "minItems": 1,
                "maxItems": 3,
                "items": {"type": "string", "enum": options},
            },
            "titledMulti": {
                "type": "array",
                "description": "Select multiple options with titles",
                "minItems": 1,
                "maxItems": 3,
                "items": {
                    "anyOf": titled(
                        [("value1", "First Choice"), ("value2", "Second Choice"), ("value3", "Third Choice")]
                    )
                },
            },
        },
        "required": [],
    }
    message = "Please select options from the enum fields"
    return await elicitation_summary(ctx, message, schema, "Elicitation completed")


JSON_SCHEMA_2020_12 = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "$defs": {
        "address": {
            "$anchor": "addressDef",
            "type": "object",
            "properties": {"street": {"type": "string"}, "city": {"type": "string"}},
        },
    },
    "properties": {
        "name": {"type": "string"},
        "address": {"$ref": "#/$defs/address"},
        "contactMethod": {"type": "string", "enum": ["phone", "email"]},
        "phone": {"type": "string"},
        "email": {"type": "string"},
    },
    "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
    "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
    "then": {"required": ["phone"]},
    "else": {"required": ["email"]},
    "additionalProperties": False,
}


@server.tool(input_schema=JSON_SCHEMA_2020_12)
async def json_schema_2020_12_tool(
    name: str | None = None,
    address: dict[str, Any] | None = None,
    contactMethod: str | None = None,
    phone: str | None = None,
    email: str | None = None,
) -> str:
    """Tool with JSON Schema 2020-12 features for conformance testing (SEP-1613)"""
    given = {"name": name, "address": address, "contactMethod": contactMethod, "phone": phone, "email": email}
    arguments = {key: value for key, value in given.items() if value is not None}
    return f"JSON Schema 2020-12 tool called with: {compact(arguments)}"


@server.tool(
    input_schema={
        "type": "object",
        "properties": {"region": {"type": "string", "description": "A region", "x-mcp-header": "Region"}},
        "required": ["region"],
    }
)
async def test_header_param(region: str) -> str:
    """Echoes a region sent both in the arguments and as an Mcp-Param header (SEP-2243)"""
    return f"Region: {region}"


# 2026-07-28 diagnostics of the `server-stateless` scenario


@server.tool()
async def test_missing_capability(ctx: Context) -> str:
    """Test tool requiring sampling: fails with -32021 when the client lacks it"""
    reply = await ctx.sample("Say hello", max_tokens=20)
    return f"Success: {text_of(reply.content)}"


@server.tool()
async def test_streaming_elicitation(ctx: Context) -> str:
    """Diagnostic tool validating response progress streams"""
    await ctx.progress(50.0, 100.0, "Half way")
    await ctx.info("Streaming", logger=LOGGER)
    return "Streaming complete"


@server.tool()
async def test_logging_tool(ctx: Context) -> str:
    """Diagnostic logging validator tool"""
    await ctx.info("Diagnostic trace logging activated", logger=LOGGER)
    return "Logging evaluated"


async def dynamic_tool() -> str:
    """A tool added at runtime"""
    return "This is a dynamically added tool."


async def dynamic_prompt() -> str:
    """A prompt added at runtime"""
    return "This is a dynamically added prompt."


@server.tool()
async def test_trigger_tool_change() -> str:
    """Adds or removes the tool test_dynamic_tool, so the tool list changes"""
    if not server.remove_tool("test_dynamic_tool"):
        server.add_tool(dynamic_tool, name="test_dynamic_tool")
    return "Mutation triggered"


@server.tool()
async def test_trigger_prompt_change() -> str:
    """Adds or removes the prompt test_dynamic_prompt, so the prompt list changes"""
    if not server.remove_prompt("test_dynamic_prompt"):
        server.add_prompt(dynamic_prompt, name="test_dynamic_prompt")
    return "Mutation triggered"


# The 2026-07-28 multi round-trip tools of the `input-required-result-*` scenarios, in the
# explicit style (named input requests, their own state), which the core seals.


@server.tool()
async def test_input_required_result_elicitation(ctx: Context) -> str:
    """MRTR: returns InputRequiredResult with elicitation request"""
    return f"Hello, {elicited_or_ask(ctx, 'user_name', 'name', 'What is your name?')}!"


@server.tool()
async def test_input_required_result_sampling(ctx: Context) -> str:
    """MRTR: returns InputRequiredResult with sampling request"""
    reply = answer(ctx, "capital_question")
    if reply is None or "model" not in reply:
        ctx.input_required({"capital_question": sampling("What is the capital of France?", 100)})
    return f"Sampling result: {text_of(reply['content'])}"


@server.tool()
async def test_input_required_result_list_roots(ctx: Context) -> str:
    """MRTR: returns InputRequiredResult with roots/list request"""
    reply = answer(ctx, "client_roots")
    if reply is None or "roots" not in reply:
        ctx.input_required({"client_roots": ROOTS})
    uris = [root["uri"] for root in reply["roots"]]
    return f"Found {len(uris)} root(s): {', '.join(uris)}"


@server.tool()
async def test_input_required_result_request_state(ctx: Context) -> str:
    """MRTR: returns InputRequiredResult with requestState"""
    content = (answer(ctx, "confirm") or {}).get("content") or {}
    if content.get("ok") is True and ctx.request_state == "request-state":
        return "state-ok: requestState validated"
    ctx.input_required({"confirm": elicit_one("Please confirm", "ok", "boolean")}, state="request-state")


@server.tool()
async def test_input_required_result_multiple_inputs(ctx: Context) -> str:
    """MRTR: returns InputRequiredResult with multiple input requests"""
    name = elicited_text(ctx, "user_name", "name")
    greeting = answer(ctx, "greeting") or {}
    roots = answer(ctx, "client_roots") or {}
    if name is not None and "model" in greeting and "roots" in roots and ctx.request_state is not None:
        return f"Name: {name}; Greeting: {text_of(greeting['content'])}; Roots: {len(roots['roots'])}"
    ctx.input_required(
        {
            "user_name": elicit_one("What is your name?", "name", "string"),
            "greeting": sampling("Generate a greeting", 50),
            "client_roots": ROOTS,
        },
        state="multiple-inputs",
    )


@server.tool()
async def test_input_required_result_multi_round(ctx: Context) -> str:
    """MRTR: multi-round InputRequiredResult workflow"""
    try:
        state = json.loads(ctx.request_state or "null")
    except ValueError:
        state = None
    round_ = state.get("round") if isinstance(state, dict) else None
    if round_ == 1 and (name := elicited_text(ctx, "step1", "name")) is not None:
        ctx.input_required(
            {"step2": elicit_one("Step 2: What is your favorite color?", "color", "string")},
            state=compact({"round": 2, "name": name}),
        )
    if round_ == 2 and (color := elicited_text(ctx, "step2", "color")) is not None:
        return f"Multi-round complete for {state.get('name', 'friend')} who likes {color}"
    ctx.input_required(
        {"step1": elicit_one("Step 1: What is your name?", "name", "string")}, state=compact({"round": 1})
    )


@server.tool()
async def test_input_required_result_tampered_state(ctx: Context) -> str:
    """MRTR: integrity-protected requestState (the core seals and checks it)"""
    if answer(ctx, "confirm") is not None and ctx.request_state == "tamper-test":
        return "integrity-ok: state verified"
    ctx.input_required({"confirm": elicit_one("Please confirm", "ok", "boolean")}, state="tamper-test")


@server.tool()
async def test_input_required_result_capabilities(ctx: Context) -> str:
    """MRTR: respects client capabilities in inputRequests"""
    if ctx.input_responses:
        return f"capabilities-ok: received {','.join(sorted(ctx.input_responses))}"
    requests = {}
    if ctx.client_capabilities.get("elicitation") is not None:
        requests["elicit_input"] = elicit_one("Elicitation input", "value", "string")
    if ctx.client_capabilities.get("sampling") is not None:
        requests["sample_input"] = sampling("Sample request", 50)
    if not requests:
        return "No supported capabilities declared"
    ctx.input_required(requests, state="capabilities-test")


# Resources


STATIC_RESOURCES: list[tuple[str, str, str, str, str | bytes]] = [
    (
        "static-text",
        "Static Text Resource",
        "A static text resource for testing",
        "text/plain",
        "This is the content of the static text resource.",
    ),
    (
        "static-binary",
        "Static Binary Resource",
        "A static binary resource (image) for testing",
        "image/png",
        TEST_IMAGE,
    ),
    (
        "watched-resource",
        "Watched Resource",
        "A resource that can be subscribed to",
        "text/plain",
        "Watched resource content",
    ),
]


def returning(body: str | bytes) -> Any:
    """A resource function that returns `body`."""

    async def read() -> str | bytes:
        return body

    return read


for name, title, description, mime_type, body in STATIC_RESOURCES:
    server.add_resource(
        returning(body),
        f"test://{name}",
        name=name,
        title=title,
        description=description,
        mime_type=mime_type,
    )


@server.resource(
    "test://template/{id}/data",
    name="template",
    title="Resource Template",
    description="A resource template with parameter substitution",
    mime_type="application/json",
    completions={"id": lambda value: ["123"]},
)
async def template(id: str) -> str:
    return compact({"id": id, "templateTest": True, "data": f"Data for ID: {id}"})


# Prompts


def complete_from(values: list[str]) -> Any:
    """Completes from a fixed list, by prefix."""
    return lambda prefix: [value for value in values if value.startswith(prefix)]


@server.prompt(title="Simple Test Prompt")
async def test_simple_prompt() -> str:
    """A simple prompt without arguments"""
    return "This is a simple prompt for testing."


@server.prompt(
    title="Prompt With Arguments",
    completions={
        "arg1": complete_from(["paris", "park", "party", "test", "testing"]),
        "arg2": complete_from(["world", "wide", "web"]),
    },
)
async def test_prompt_with_arguments(
    arg1: Annotated[str, Field(description="First test argument")],
    arg2: Annotated[str, Field(description="Second test argument")],
) -> str:
    """A prompt with required arguments"""
    return f"Prompt with arguments: arg1='{arg1}', arg2='{arg2}'"


@server.prompt(title="Prompt With Embedded Resource")
async def test_prompt_with_embedded_resource(
    resourceUri: Annotated[str, Field(description="URI of the resource to embed")],
) -> list[PromptMessage]:
    """A prompt that includes an embedded resource"""
    return [
        PromptMessage(
            role="user", content=embedded(resourceUri, "text/plain", "Embedded resource content for testing.")
        ),
        PromptMessage(role="user", content=TextContent(text="Please process the embedded resource above.")),
    ]


@server.prompt(title="Prompt With Image")
async def test_prompt_with_image() -> list[PromptMessage]:
    """A prompt that includes image content"""
    return [
        PromptMessage(role="user", content=Image(TEST_IMAGE, mime_type="image/png").to_content()),
        PromptMessage(role="user", content=TextContent(text="Please analyze the image above.")),
    ]


@server.prompt()
async def test_input_required_result_prompt(ctx: Context) -> str:
    """MRTR: prompt that requires elicitation input"""
    context = elicited_or_ask(ctx, "user_context", "context", "What context should the prompt use?")
    return f"Prompt with context: {context}"


def port() -> int:
    """``--port N``, else ``PORT``, else 0 (any free port)."""
    parser = argparse.ArgumentParser(description="The oxmcp Python fixture of the MCP conformance suite.")
    parser.add_argument("--port", type=int, default=int(os.environ.get("PORT", "0")))
    return int(parser.parse_args().port)


# The tools of the tasks extension's scenarios (tasks-*): one that never runs as a task,
# one that may, and some that must (failing as a tool, failing as a request, asking once,
# asking twice at once).


@server.tool()
def greet(name: str) -> str:
    """Greets someone, always in place."""
    return f"Hello, {name}!"


@server.tool(task="optional")
async def slow_compute(seconds: int = 0, label: str = "") -> str:
    """Computes for `seconds`: as a task for clients that support tasks."""
    await asyncio.sleep(seconds)
    return f'Computation "{label}" completed after {seconds} seconds. Result: 42.'


@server.tool(task="required")
async def failing_job() -> str:
    """Fails as a tool after a second."""
    await asyncio.sleep(1)
    raise ToolError("the job failed")


@server.tool(task="required")
async def protocol_error_job() -> str:
    """Fails as a request."""
    await asyncio.sleep(0.5)
    raise McpError(-32603, "the job broke")


@server.tool(task="required")
async def confirm_delete(filename: str, ctx: Context) -> str:
    """Deletes a file once the user confirms."""
    schema = {"type": "object", "properties": {"confirm": {"type": "boolean"}}, "required": ["confirm"]}
    answer = await ctx.elicit(f"Delete '{filename}'?", schema)
    return f"deleted '{filename}'" if (answer.data or {}).get("confirm") else f"kept '{filename}'"


@server.tool(task="required")
async def multi_input(ctx: Context) -> str:
    """Asks for a name and a confirmation at once."""
    name_schema = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}
    confirm_schema = {"type": "object", "properties": {"confirm": {"type": "boolean"}}, "required": ["confirm"]}
    name, _ = await asyncio.gather(ctx.elicit("Your name?", name_schema), ctx.elicit("Go ahead?", confirm_schema))
    return f"done for {(name.data or {}).get('name', '')}"


@server.tool(task="required", asks_before_task=True)
async def test_tool_with_task(ctx: Context) -> str:
    """Asks for a name in place, then greets as a task."""
    answer = await ctx.elicit(
        "Your name?", {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}
    )
    await ctx.begin_task()
    return f"Hello, {(answer.data or {}).get('name', '')}!"


async def main() -> None:
    async with await server.start_http("127.0.0.1", port()) as http:
        print(http.url, flush=True)
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(signum, stop.set)
        await stop.wait()


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except OSError as error:
        print(f"conformance server: {error}", file=sys.stderr)
        sys.exit(1)
