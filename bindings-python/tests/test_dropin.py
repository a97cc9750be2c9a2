"""Servers written with the official SDK or with FastMCP run on oxmcp with their imports
changed. The snippets the official SDK publishes in its source distribution
(``examples/snippets/servers`` of the pinned ``mcp``) and the examples FastMCP publishes in its
(``examples/`` of the pinned ``fastmcp``), downloaded and unpacked at run time (their code is
not the project's), run once as published and once ported: ``from mcp.server.mcpserver
import`` turned into ``from oxmcp import``, ``fastmcp`` into ``oxmcp.fastmcp``. The official
client must get the same tool, resource and prompt lists, and the same results, from both,
in both eras."""

from __future__ import annotations

import asyncio
import json
import re
import shutil
import subprocess
import sys
import tempfile
import urllib.error
import urllib.request
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx2
import pytest
from mcp import Client as OfficialClient
from mcp import MCPError, StdioServerParameters, types
from pydantic import BaseModel, TypeAdapter

from conftest import ERAS, http_server, ported_from_official, unpacked_sdist
from oxmcp import Client, Context, MCPServer

REFERENCE: TypeAdapter[types.PromptReference | types.ResourceTemplateReference] = TypeAdapter(
    types.PromptReference | types.ResourceTemplateReference
)
#: The prefix of the protocol's own `_meta` keys.
PROTOCOL_META = "io.modelcontextprotocol/"
UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
#: Runs the snippet at argv[1] (which it sees as its argv[0]) and serves its ``mcp`` (or
#: ``server``, or ``app``) over stdio.
RUN = (
    "import runpy, sys; sys.argv = sys.argv[1:]; found = runpy.run_path(sys.argv[0]); "
    "next(found[name] for name in ('mcp', 'server', 'app') if name in found).run()"
)
#: Runs the low-level snippet at argv[1] as it runs itself (its ``run()``), or serves its
#: ``server`` over stdio as the low-level snippets do, with its SDK's ``stdio_server``.
RUN_LOW_LEVEL = """
import asyncio, importlib, runpy, sys
sys.argv = sys.argv[1:]
found = runpy.run_path(sys.argv[0])

async def serve():
    server = found["server"]
    stdio = importlib.import_module(type(server).__module__.partition(".")[0] + ".server.stdio")
    async with stdio.stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())

asyncio.run(found["run"]() if "run" in found else serve())
"""
#: The official SDK's server package where a module path names it (``mcp.server.stdio``),
#: The picture the ``images`` snippet makes a thumbnail of (written by `a_picture`).
PICTURE = Path(tempfile.gettempdir()) / "oxmcp-dropin-picture.png"


@dataclass(frozen=True)
class Visit:
    """What the client asks of a snippet's server besides its lists."""

    #: Tools called, each with its arguments (``tool#case``: the tool once more).
    calls: dict[str, dict[str, Any]] = field(default_factory=dict)
    reads: list[str] = field(default_factory=list)
    prompts: dict[str, dict[str, str]] = field(default_factory=dict)
    #: `completion/complete` requests: the reference, the argument, the other arguments.
    completions: list[tuple[dict[str, str], dict[str, str], dict[str, str] | None]] = field(default_factory=list)
    eras: tuple[str, ...] = tuple(ERAS)
    #: Whether the lists are taken again at the end (what the visit changed of them).
    relist: bool = False
    #: The keys of a result's `_meta` that differ from run to run (a time taken).
    volatile: tuple[str, ...] = ()
    #: Whether every resource listed is read too, after those of `reads`.
    read_listed: bool = False


SNIPPETS = {
    "basic_tool": Visit(calls={"sum": {"a": 1, "b": 2}, "get_weather": {"city": "Paris"}}),
    "basic_resource": Visit(reads=["config://settings", "file://documents/readme"]),
    "basic_prompt": Visit(prompts={"review_code": {"code": "x = 1"}, "debug_error": {"error": "boom"}}),
    "mcpserver_quickstart": Visit(
        calls={"add": {"a": 1, "b": 2}}, reads=["greeting://Ada"], prompts={"greet_user": {"name": "Ada"}}
    ),
    "tool_progress": Visit(calls={"long_running_task": {"task_name": "report", "steps": 3}}),
    # Sampling through the official SDK's `ctx.session.create_message`, and elicitation in
    # form and URL modes (and the -32042 error): requests to the client, which the official
    # server makes in the legacy era only.
    "sampling": Visit(calls={"generate_poem": {"topic": "the sea"}}, eras=("legacy",)),
    "elicitation": Visit(
        calls={
            "book_table": {"date": "2024-12-25", "time": "19:00", "party_size": 2},
            "secure_payment": {"amount": 12.5},
            "connect_service": {"service_name": "github"},
        },
        eras=("legacy",),
    ),
    # One completion handler for every prompt and template (`@mcp.completion()`), given
    # the official SDK's types.
    "completion": Visit(
        completions=[
            ({"type": "ref/prompt", "name": "review_code"}, {"name": "language", "value": "py"}, None),
            ({"type": "ref/prompt", "name": "review_code"}, {"name": "code", "value": "x"}, None),
            (
                {"type": "ref/resource", "uri": "github://repos/{owner}/{repo}"},
                {"name": "repo", "value": ""},
                {"owner": "modelcontextprotocol"},
            ),
        ],
        prompts={"review_code": {"language": "python", "code": "x = 1"}},
    ),
    # Log messages at each level, and `ctx.session.send_resource_list_changed()`.
    "notifications": Visit(calls={"process_data": {"data": "records"}}),
    # A lifespan whose state handlers read as `ctx.request_context.lifespan_context`.
    "lifespan_example": Visit(calls={"query_db": {}}),
    # An `Image` made with Pillow (`Image(data=..., format="png")`).
    "images": Visit(calls={"create_thumbnail": {"image_path": str(PICTURE)}}),
    # Results built with the official SDK's types (`mcp.types`), one checked against a model.
    "direct_call_tool_result": Visit(calls={"advanced_tool": {}, "validated_tool": {}, "empty_result_tool": {}}),
    # `get_user` and `get_config` return objects whose text the official SDK writes with
    # their memory address; their listings are compared all the same.
    "structured_output": Visit(
        calls={
            "get_weather": {"city": "Paris"},
            "get_location": {"address": "10 Downing Street"},
            "get_statistics": {"data_type": "sales"},
            "list_cities": {},
            "get_temperature": {"city": "Paris"},
        }
    ),
}


@pytest.fixture(scope="module", autouse=True)
def a_picture() -> None:
    """A small picture for the ``images`` snippet."""
    from PIL import Image

    Image.new("RGB", (300, 200), (30, 120, 200)).save(PICTURE)


@pytest.fixture(scope="module")
def snippets(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The official SDK's server snippets."""
    return unpacked_sdist("mcp", tmp_path_factory.mktemp("sdist")) / "examples" / "snippets" / "servers"


def ported(source: Path, directory: Path) -> Path:
    """The snippet with its imports from the official SDK's server turned to oxmcp's."""
    path = directory / source.name
    path.write_text(ported_from_official(source.read_text()))
    return path


def over_stdio(snippet: Path, runner: str = RUN) -> StdioServerParameters:
    """The official client's way to start the server of `snippet` over stdio."""
    return StdioServerParameters(command=sys.executable, args=["-c", runner, str(snippet)])


async def answered(request: Awaitable[Any], volatile: tuple[str, ...] = ()) -> Any:
    """What a request is answered with: its result without the protocol's `_meta` and the
    `volatile` keys, or its error."""
    try:
        return without_meta(dumped(await request), volatile)
    except MCPError as error:
        return {"code": error.code, "message": error.message, "data": error.data}


async def survey(server: StdioServerParameters | str, visit: Visit, era: str) -> dict[str, Any]:
    """What the official client sees of `server` (started over stdio, or at a URL): its
    lists, then the answers to `visit`."""
    seen: dict[str, Any] = {"logs": [], "notified": set(), "asked": []}

    async def ask_user(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        seen["asked"].append(dumped(params))
        return await agree(context, params)

    async def on_log(params: types.LoggingMessageNotificationParams) -> None:
        seen["logs"].append([params.level, params.data])

    async def on_message(message: Any) -> None:
        if isinstance(message, types.ServerNotification):
            seen["notified"].add(message.method)

    mode = "legacy" if era == "legacy" else "auto"
    async with OfficialClient(
        server,
        mode=mode,
        sampling_callback=write_poem,
        elicitation_callback=ask_user,
        logging_callback=on_log,
        log_level="debug",
        message_handler=on_message,
    ) as client:
        seen["tools"] = await listed(client.list_tools(), "tools")
        seen["resources"] = await listed(client.list_resources(), "resources")
        seen["templates"] = await listed(client.list_resource_templates(), "resource_templates")
        seen["prompts"] = await listed(client.list_prompts(), "prompts")
        for name, arguments in visit.calls.items():
            # `tool#case` calls `tool` again, with other arguments.
            called = client.call_tool(name.partition("#")[0], arguments)
            seen[f"call {name}"] = await answered(called, visit.volatile)
        listed_uris = [resource["uri"] for resource in seen["resources"]] if visit.read_listed else []
        for uri in [*visit.reads, *listed_uris]:
            seen[f"read {uri}"] = await answered(client.read_resource(uri))
        for name, arguments in visit.prompts.items():
            seen[f"prompt {name}"] = await answered(client.get_prompt(name, arguments))
        for ref, argument, context in visit.completions:
            reference = REFERENCE.validate_python(ref)
            completed = await client.complete(reference, argument, context)
            seen[f"complete {json.dumps([ref, argument])}"] = without_meta(dumped(completed))
        # A last round trip: notifications sent before it have arrived.
        tools = await listed(client.list_tools(), "tools")
        if visit.relist:
            seen["tools at the end"] = tools
            seen["resources at the end"] = await listed(client.list_resources(), "resources")
            seen["templates at the end"] = await listed(client.list_resource_templates(), "resource_templates")
            seen["prompts at the end"] = await listed(client.list_prompts(), "prompts")
    seen["notified"] = sorted(seen["notified"])
    # The snippets name their elicitations with fresh UUIDs.
    settled: dict[str, Any] = json.loads(UUID.sub("<uuid>", json.dumps(seen)))
    return settled


async def listed(listing: Awaitable[BaseModel], items: str) -> list[Any]:
    """The first page of a list, as the wire has each item. A server that does not offer
    what is listed lists nothing: the official low-level server answers -32601 where
    oxmcp gives an empty list."""
    try:
        page = await listing
    except MCPError as error:
        if error.code != types.METHOD_NOT_FOUND:
            raise
        return []
    return [dumped(item) for item in getattr(page, items)]


async def write_poem(context: Any, params: types.CreateMessageRequestParams) -> types.CreateMessageResult:
    """The client's model: a poem about what the last message asks."""
    asked = params.messages[-1].content
    text = asked.text if isinstance(asked, types.TextContent) else "?"
    content = types.TextContent(type="text", text=f"A poem, as asked: {text}")
    return types.CreateMessageResult(role="assistant", content=content, model="verse-1")


#: What the user types into a form's fields, by type (`alternativeDate` by name).
ANSWERS: dict[str, Any] = {"string": "Ada", "integer": 7, "number": 7.5, "boolean": True}


def answer_of(name: str, asked: dict[str, Any]) -> Any:
    """What the user fills in field ``name`` of a form: the first of its choices (of those
    to pick several of, the last alone), or an answer of its type."""
    choices = asked.get("enum") or [one["const"] for one in asked.get("oneOf", [])]
    if asked.get("type") == "array":
        items = asked.get("items", {})
        return (items.get("enum") or [one["const"] for one in items.get("anyOf", [])])[-1:]
    return "2024-12-27" if name == "alternativeDate" else choices[0] if choices else ANSWERS[asked["type"]]


async def agree(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
    """The user: accepts a URL at once, and fills in a form (:func:`answer_of`; the
    alternative date of the official snippet)."""
    if isinstance(params, types.ElicitRequestURLParams):
        return types.ElicitResult(action="accept")
    properties = params.requested_schema.get("properties", {})
    content = {name: answer_of(name, asked) for name, asked in properties.items()}
    return types.ElicitResult(action="accept", content=content)


def dumped(model: BaseModel) -> Any:
    """A model as the wire has it."""
    return model.model_dump(exclude_none=True, by_alias=True, mode="json")


def without_meta(result: dict[str, Any], volatile: tuple[str, ...] = ()) -> dict[str, Any]:
    """A result without what the protocol's keys of its ``_meta`` say (where each SDK names
    itself) and its `volatile` keys; what the server's own say (FastMCP's) stays."""
    kept = {key: value for key, value in result.items() if key != "_meta"}
    meta = {
        key: value
        for key, value in (result.get("_meta") or {}).items()
        if not key.startswith(PROTOCOL_META) and key not in volatile
    }
    return {**kept, "_meta": meta} if meta else kept


def each_era(visits: dict[str, Visit]) -> list[tuple[str, str]]:
    """Each visit with each era it is made in."""
    return [(name, era) for name in sorted(visits) for era in visits[name].eras]


async def compare(original: Path, ported: Path, visit: Visit, era: str, runner: str = RUN) -> None:
    """The official client sees the same of the server `original` and of its port."""
    theirs = await survey(over_stdio(original, runner), visit, era)
    ours = await survey(over_stdio(ported, runner), visit, era)
    assert_same(ours, theirs)


@pytest.mark.parametrize(("snippet", "era"), each_era(SNIPPETS))
async def test_an_official_sdk_server_runs_on_oxmcp_with_its_import_changed(
    snippet: str, era: str, snippets: Path, tmp_path: Path
) -> None:
    original = snippets / f"{snippet}.py"
    await compare(original, ported(original, tmp_path), SNIPPETS[snippet], era)


#: The official SDK's low-level servers (``Server(on_list_tools=..., ...)``), whose module
#: path ``mcp.server`` becomes ``oxmcp.server``. Not here: ``lowlevel/lifespan``, which
#: prints on stdout, where the official SDK's stdio breaks on it (tested on its own).
LOW_LEVEL = {
    "lowlevel/basic": Visit(prompts={"example-prompt": {"arg1": "a"}}),
    "lowlevel/structured_output": Visit(calls={"get_weather": {"city": "Paris"}}),
    "lowlevel/direct_call_tool_result": Visit(calls={"advanced_tool": {"message": "hi"}}),
    "pagination_example": Visit(),
}


@pytest.mark.parametrize(("snippet", "era"), each_era(LOW_LEVEL))
async def test_an_official_low_level_server_runs_on_oxmcp_with_its_module_path_changed(
    snippet: str, era: str, snippets: Path, tmp_path: Path
) -> None:
    original = snippets / f"{snippet}.py"
    await compare(original, ported(original, tmp_path), LOW_LEVEL[snippet], era, RUN_LOW_LEVEL)


async def test_a_low_level_server_whose_lifespan_prints_serves_stdio(snippets: Path, tmp_path: Path) -> None:
    """The official ``lowlevel/lifespan`` snippet prints as its lifespan starts; on oxmcp
    that goes to stderr, and its handlers get what the lifespan yielded."""
    snippet = ported(snippets / "lowlevel" / "lifespan.py", tmp_path)
    visit = Visit(calls={"query_db": {"query": "x"}})
    for era in ERAS:
        seen = await survey(over_stdio(snippet, RUN_LOW_LEVEL), visit, era)
        assert [tool["name"] for tool in seen["tools"]] == ["query_db"]
        result = seen["call query_db"]
        assert result["content"][0]["text"] == "Query results: [{'id': '1', 'name': 'Example', 'query': 'x'}]", era


def assert_same(ours: dict[str, Any], theirs: dict[str, Any]) -> None:
    """Each thing seen of the official server is seen the same of the ported one."""
    for key in theirs:
        assert ours.get(key) == theirs[key], key
    assert ours.keys() == theirs.keys()


#: The snippets that mount servers in a Starlette app, each endpoint's path with what the
#: client asks of it.
MOUNTED = {
    "streamable_http_basic_mounting": {"/mcp": Visit(calls={"hello": {}})},
    "streamable_http_multiple_servers": {
        "/api/": Visit(calls={"api_status": {}}),
        "/chat/": Visit(calls={"send_message": {"message": "hi"}}),
    },
    "streamable_starlette_mount": {
        "/echo/mcp": Visit(calls={"echo": {"message": "hi"}}),
        "/math/mcp": Visit(calls={"add_two": {"n": 40}}),
    },
}


async def survey_app(app: Path, endpoints: dict[str, Visit]) -> dict[tuple[str, str], dict[str, Any]]:
    """What the official client sees of each endpoint of the ASGI app `app` (a module with
    an ``app``), served by uvicorn, in each era."""
    uvicorn = [sys.executable, "-m", "uvicorn", "--app-dir", str(app.parent), f"{app.stem}:app", "--port", "0"]
    with http_server(uvicorn) as url:
        return {
            (path, era): await survey(url + path, visit, era) for path, visit in endpoints.items() for era in visit.eras
        }


@pytest.mark.parametrize("snippet", sorted(MOUNTED))
async def test_an_official_sdk_app_mounting_servers_runs_on_oxmcp_with_its_import_changed(
    snippet: str, snippets: Path, tmp_path: Path
) -> None:
    """Served by uvicorn as published and ported, the app's endpoints answer the official
    client alike, in both eras."""
    original = snippets / f"{snippet}.py"
    theirs = await survey_app(original, MOUNTED[snippet])
    ours = await survey_app(ported(original, tmp_path), MOUNTED[snippet])
    assert ours.keys() == theirs.keys()
    for key in theirs:
        assert_same(ours[key], theirs[key])


def document(url: str) -> dict[str, Any]:
    """The JSON document at `url`."""
    with urllib.request.urlopen(url, timeout=10) as answer:
        document: dict[str, Any] = json.loads(answer.read())
        return document


def refusal(url: str, token: str | None) -> tuple[int, str | None, str | None]:
    """The status of an ``initialize`` POSTed to `url` with `token`, and the error and the
    metadata URL its ``WWW-Authenticate`` challenge names."""
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}},
    }
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    request = urllib.request.Request(url, json.dumps(body).encode(), headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status, None, None
    except urllib.error.HTTPError as refused:
        challenge = refused.headers.get("WWW-Authenticate", "")
        error = re.search(r'error="([^"]+)"', challenge)
        metadata = re.search(r'resource_metadata="([^"]+)"', challenge)
        return refused.code, error and error.group(1), metadata and metadata.group(1)


async def test_an_official_sdk_protected_resource_runs_on_oxmcp_with_its_import_changed(tmp_path: Path) -> None:
    """``servers/official_bearer.py`` (``token_verifier`` and ``AuthSettings``), served by
    uvicorn as published and ported: the same refusals and metadata, and a caller with the
    required scope gets its answer (the verifier's tokens name no resource, which the
    settings do not ask for), from a tool that reads the request's headers too
    (``ctx.headers``, ``ctx.request_context.request.headers``)."""
    original = Path(__file__).parent / "servers" / "official_bearer.py"
    seen = []
    for app in (original, ported(original, tmp_path)):
        uvicorn = [sys.executable, "-m", "uvicorn", "--app-dir", str(app.parent), f"{app.stem}:app", "--port", "0"]
        with http_server(uvicorn, noise_free=False) as served:
            url = served + "/mcp"
            metadata = document(served + "/.well-known/oauth-protected-resource/mcp")
            async with Client.http(url, bearer_token="alice-token", headers={"X-Tenant": "acme"}) as client:
                added = await client.call_tool("add", {"a": 1, "b": 2})
                tenant = await client.call_tool("tenant")
            seen.append(
                {
                    # The official SDK names an error for a request without a token too, where
                    # RFC 6750 (3.1) says not to; oxmcp does not.
                    "none": refusal(url, None)[::2],
                    "unknown": refusal(url, "nobody-token"),
                    "scope": refusal(url, "bob-token")[:2],
                    "metadata": {key: metadata.get(key) for key in ("resource", "authorization_servers")},
                    "added": added.structured_content,
                    "tenant": tenant.structured_content,
                }
            )
    theirs, ours = seen
    assert ours == theirs
    assert ours["none"] == (401, "http://127.0.0.1:8000/.well-known/oauth-protected-resource/mcp")
    assert ours["unknown"][:2] == (401, "invalid_token")
    assert ours["scope"] == (403, "insufficient_scope")
    assert ours["added"] == {"result": 3}
    assert ours["tenant"] == {"result": "acme / acme"}, "the handler reads the request's headers"


async def test_a_fastmcp_server_reads_a_calls_http_headers_the_same_with_its_imports_changed(tmp_path: Path) -> None:
    """``servers/fastmcp_headers.py``, served by uvicorn as published and ported: what
    ``get_http_headers()`` gives (credentials left out unless included),
    ``get_http_request()`` (headers, URL, client, query, cookies) and the
    ``CurrentHeaders()`` dependency, in both eras."""
    original = Path(__file__).parent / "servers" / "fastmcp_headers.py"
    headers = {"X-Tenant": "acme", "X-Trace": "t-1", "Authorization": "Bearer sesame", "Cookie": "session=s-1"}
    seen = []
    for app in (original, ported_from_fastmcp(original, tmp_path)):
        uvicorn = [sys.executable, "-m", "uvicorn", "--app-dir", str(app.parent), f"{app.stem}:app", "--port", "0"]
        with http_server(uvicorn, noise_free=False) as served:
            results = {}
            for era in ERAS:
                async with Client.http(served + "/mcp?via=test", era=era, headers=headers) as client:
                    for tool in ("forwarded", "with_credentials", "origin", "injected"):
                        results[(era, tool)] = (await client.call_tool(tool)).structured_content
            seen.append(results)
    theirs, ours = seen
    assert ours == theirs
    assert ours[("modern", "forwarded")] == {"x-tenant": "acme", "x-trace": "t-1"}
    assert ours[("legacy", "injected")] == {"result": "acme with Bearer sesame"}
    assert ours[("modern", "origin")] == {
        "client": "127.0.0.1",
        "path": "/mcp",
        "host": "127.0.0.1",
        "url": "/mcp?via=test",
        "method": "POST",
        "via": "test",
        "session": "s-1",
    }


async def test_the_official_settings_ask_a_token_for_its_resource_only_when_they_say_so() -> None:
    """A token the verifier says is meant for another resource is taken when the settings
    do not ask (as the official SDK takes it) and refused when they do; either way the
    handler sees the token as the verifier gave it."""
    from oxmcp.server.auth.provider import AccessToken
    from oxmcp.server.auth.settings import AuthSettings

    other = "https://other.example/mcp"

    class ForAnother:
        async def verify_token(self, token: str) -> AccessToken | None:
            return AccessToken(token=token, client_id="c", scopes=["s"], resource=other)

    seen = {}
    for strict in (False, True):
        server = MCPServer(
            "notes",
            token_verifier=ForAnother(),
            auth=AuthSettings(
                issuer_url="https://as.example",
                resource_server_url="http://127.0.0.1/mcp",
                validate_token_resource=strict,
            ),
        )

        @server.tool()
        def audience(ctx: Context) -> list[str]:
            token = ctx.access_token
            return token.audience if token else []

        async with await server.start_http(port=0) as http:
            status = (await asyncio.to_thread(refusal, http.url, "t"))[:2]
            if status[0] == 200:
                async with Client.http(http.url, bearer_token="t") as client:
                    seen[strict] = (await client.call_tool("audience")).structured_content
            else:
                seen[strict] = status
    assert seen == {False: {"result": [other]}, True: (401, "invalid_token")}


async def test_a_mounted_app_serves_without_entering_a_lifespan(snippets: Path, tmp_path: Path) -> None:
    """The official ``streamable_http_path_config`` snippet enters no
    ``session_manager.run()``, so the official SDK answers its every request with 500; on
    oxmcp the endpoint starts on the first request."""
    snippet = ported(snippets / "streamable_http_path_config.py", tmp_path)
    seen = await survey_app(snippet, {"/process/": Visit(calls={"process_data": {"data": "x"}})})
    for era in ERAS:
        answer = seen[("/process/", era)]["call process_data"]
        assert answer["content"] == [{"type": "text", "text": "Processed: x"}]
        assert answer["structuredContent"] == {"result": "Processed: x"}


#: FastMCP's examples that serve with what FastMCP and the official SDK share, with what
#: the client asks of each. (`desktop`'s `dir://desktop` lists a home directory, so it is
#: only listed; FastMCP does not elicit in the 2026-07-28 era.)
FASTMCP_EXAMPLES = {
    # And what FastMCP answers for a tool, resource or prompt it does not have.
    "echo": Visit(
        calls={"echo_tool": {"text": "hi"}, "nope": {}},
        reads=["echo://static", "echo://hello", "nope://x"],
        prompts={"echo": {"text": "hi"}, "nope": {}},
    ),
    "simple_echo": Visit(calls={"echo": {"text": "hi"}}),
    # Nested models and `Annotated[..., Field(max_length=...)]` parameters.
    "complex_inputs": Visit(calls={"name_shrimp": {"tank": {"shrimp": [{"name": "bob"}]}, "extra_names": ["al"]}}),
    # Command-line arguments read at import (none given: the defaults).
    "config_server": Visit(calls={"get_status": {}, "echo_message": {"message": "m"}}),
    "desktop": Visit(calls={"add": {"a": 1, "b": 2}}, reads=["greeting://Ada"]),
    # `ctx.elicit(message, response_type=str)` and a dataclass, answered by the user.
    "elicitation": Visit(calls={"greet": {}, "survey": {}}, eras=("legacy",)),
    # `ToolResult` with content, structured content and meta.
    "tool_result_echo": Visit(calls={"echo": {"text": "a b"}}, volatile=("execution_time_ms",)),
    # A decorator that returns `ToolResult`s of YAML text; a plain `-> dict` beside it.
    "custom_tool_serializer_decorator": Visit(calls={"get_example_data": {}, "get_json_data": {}}),
    # `ctx.set_state` then `ctx.get_state` in the same session (FastMCP gives each request of
    # 2026-07-28 a session of its own; oxmcp keeps a stdio connection's).
    # Two servers mounted in a third under namespaces: their tools and resources renamed.
    "mount_example": Visit(
        calls={
            "check_app_status": {},
            "weather_get_weather_forecast": {"location": "Oslo"},
            "news_get_news_headlines": {},
        },
        reads=["weather://weather/forecast", "news://news/headlines"],
    ),
    # A search transform lists `search_tools` and `call_tool` in place of the tools: found by
    # a regular expression, or ranked by BM25, then called by name.
    "search/server_regex": Visit(
        calls={"search_tools": {"pattern": "text|numb"}, "call_tool": {"name": "add", "arguments": {"a": 1, "b": 2}}}
    ),
    "search/server_bm25": Visit(
        calls={
            "search_tools": {"query": "count the words of a text"},
            "call_tool": {"name": "word_count", "arguments": {"text": "a b c"}},
        }
    ),
    # Tools hidden by tag (`server.disable(tags=...)`) and shown to a session by a tool
    # (`ctx.enable_components`), whose rules FastMCP keeps in 2025-11-25 only.
    "namespace_activation/server": Visit(
        calls={"list_users": {}, "activate_admin": {}, "reset_user_password": {"username": "ada"}},
        eras=("legacy",),
        relist=True,
    ),
    "persistent_state/server": Visit(
        calls={"set_value": {"key": "colour", "value": "teal"}, "get_value": {"key": "colour"}}, eras=("legacy",)
    ),
    # Tools, resources, templates and prompts marked by the standalone decorators in the files
    # of a directory (`FileSystemProvider`), found and served.
    "filesystem-provider/server": Visit(
        calls={"add-numbers": {"a": 1, "b": 2}, "greet": {"name": "Ada"}},
        reads=["config://app", "config://env/dev", "config://features"],
        prompts={"explain-concept": {"topic": "monads"}},
    ),
    # The skill folders under a directory (`SkillsDirectoryProvider`): every file listed and
    # read, with each skill's manifest.
    "skills/server": Visit(
        reads=[
            "skill://code-review/SKILL.md",
            "skill://pdf-processing/reference.md",
            "skill://pdf-processing/_manifest",
        ]
    ),
    # `add_transform(CodeMode())`: the tools found, described, and called by code run in
    # pydantic-monty's sandbox, one of them failing, one unknown; a tool called directly.
    "code_mode/server": Visit(
        calls={
            "search": {"query": "add numbers"},
            "search#detailed": {"query": "text", "detail": "detailed", "limit": 2},
            "search#full": {"query": "fibonacci numbers", "detail": "full"},
            "search#tags": {"query": "string", "tags": ["untagged"]},
            "get_schema": {"tools": ["add", "nope"]},
            "get_schema#full": {"tools": ["word_count"], "detail": "full"},
            "execute": {
                "code": "total = await call_tool('add', {'a': 1, 'b': 2})\n"
                "seq = await call_tool('fibonacci', {'n': 5})\n"
                "return {'total': total, 'seq': seq, 'up': await call_tool('to_uppercase', {'text': 'hi'})}"
            },
            "execute#refused": {"code": "return await call_tool('add', {'a': 'one', 'b': 2})"},
            "execute#unknown": {"code": "return await call_tool('nope', {})"},
            "multiply": {"x": 2, "y": 3},
        }
    ),
    # Tools rendered by Prefab UI (`app=True`, or a Prefab component returned): their
    # component trees, and the renderer's resource they share, read.
    "apps/greet_server": Visit(
        calls={"greet": {"name": "Ada", "language": "French"}, "farewell": {"name": "Ada"}}, read_listed=True
    ),
    "apps/chart_server": Visit(calls={"sales_chart": {"stacked": True}}, read_listed=True),
    "apps/datatable_server": Visit(calls={"team_directory": {"department": "Engineering"}}),
    # Buttons that call the server's other tools; those tools called, one failing.
    "apps/inspector_demo": Visit(
        calls={"demo": {}, "echo": {"message": "hi"}, "echo_with_logs": {"message": "m"}, "fail": {}}
    ),
    "apps/patterns_server": Visit(
        calls={
            "quarterly_revenue": {"year": 2024},
            "contact_form": {},
            "save_contact": {"name": "Ada", "email": "ada@example.com"},
            "feature_flags": {},
            "project_overview": {},
        }
    ),
    "apps/showcase_server": Visit(calls={"showcase": {}}),
    # `FastMCPApp`s: the tools that open them, whose UIs call the apps' other tools by the
    # names the server lists them under; those tools (listed for the app) called.
    "apps/contacts/contacts_server": Visit(
        calls={
            "contact_manager": {},
            "save_contact": {"data": {"name": "Ada", "email": "ada@example.com"}},
            "search_contacts": {"query": "ada"},
            "list_contacts": {},
        },
        read_listed=True,
    ),
    "apps/approvals/approvals_server": Visit(
        calls={
            "approval_dashboard": {},
            "approve_request": {"request_id": "REQ-001"},
            "add_comment": {"request_id": "REQ-002", "comment": "why?"},
            "approval_dashboard#after": {},
        }
    ),
    "apps/explorer/explorer_server": Visit(
        calls={"data_explorer": {}, "analyze_data": {"region": "North"}, "filter_data": {"product": "Widget"}}
    ),
    "apps/quiz/quiz_server": Visit(
        calls={
            "take_quiz": {"topic": "Rivers"},
            "submit_answer": {
                "question_index": 0,
                "selected": 1,
                "correct": 1,
                "total_questions": 3,
                "current_score": 0,
            },
        }
    ),
    "apps/sales_dashboard/sales_dashboard_server": Visit(calls={"sales_dashboard": {}}),
    "apps/inventory/inventory_server": Visit(
        calls={"inventory_manager": {}, "update_quantity": {"item_id": 1, "delta": 2}, "search_items": {"query": "a"}}
    ),
    # Listed (its map geocodes places over the network), and its tools' own annotations,
    # the official SDK's `ToolAnnotations`.
    "apps/map/map_server": Visit(),
    "apps/media_picker/media_picker_server": Visit(
        calls={"save_media": {"source": "youtube", "source_id": "dQw4w9WgXcQ", "title": "t"}}
    ),
    # `add_transform(PromptsAsTools(mcp))`: the prompts listed and rendered by tools.
    "prompts_as_tools/server": Visit(
        calls={"list_prompts": {}, "get_prompt": {"name": "analyze_code", "arguments": {"code": "x", "language": "go"}}}
    ),
    # `add_transform(ResourcesAsTools(mcp))`: resources and templates listed and read by tools.
    "resources_as_tools/server": Visit(
        calls={"list_resources": {}, "read_resource": {"uri": "user://42/profile"}}, reads=["config://app"]
    ),
}


@pytest.fixture(scope="module")
def fastmcp_examples(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """FastMCP's examples."""
    return unpacked_sdist("fastmcp", tmp_path_factory.mktemp("sdist")) / "examples"


def ported_from_fastmcp(source: Path, directory: Path) -> Path:
    """The example with its imports of ``fastmcp`` turned to ``oxmcp.fastmcp``."""
    text = re.sub(r"^(from|import) fastmcp\b", r"\1 oxmcp.fastmcp", source.read_text(), flags=re.MULTILINE)
    assert not re.search(r"^(from|import) fastmcp\b", text, flags=re.MULTILINE)
    path = directory / source.name
    path.write_text(text)
    return path


#: FastMCP's examples the official client reaches through an oxmcp proxy.
PROXIED_EXAMPLES = ("echo", "complex_inputs", "tool_result_echo")


@pytest.mark.parametrize(("example", "era"), [(name, era) for name in PROXIED_EXAMPLES for era in ERAS])
async def test_the_official_client_sees_a_fastmcp_server_the_same_through_an_oxmcp_proxy(
    example: str, era: str, fastmcp_examples: Path, tmp_path: Path
) -> None:
    """A FastMCP example, served by FastMCP (the MCP configuration of its command), behind
    ``create_proxy`` (the port of FastMCP's, whose connection to it is oxmcp's client): its
    lists, results, reads and prompts reach the official client as they do without the
    proxy."""
    original = fastmcp_examples / f"{example}.py"
    served = {"mcpServers": {example: {"command": sys.executable, "args": ["-c", RUN, str(original)]}}}
    proxy = tmp_path / "proxy.py"
    proxy.write_text(f"from oxmcp.fastmcp.server import create_proxy\n\nmcp = create_proxy({served!r})\n")
    await compare(original, proxy, FASTMCP_EXAMPLES[example], era)


def test_a_fastmcp_app_lists_what_it_mounted_as_fastmcp_does(fastmcp_examples: Path, tmp_path: Path) -> None:
    """``mount_example``'s ``get_server_details()`` lists the app's tools and resources, its
    own and those of the servers it mounted, with FastMCP's ``list_tools()`` and
    ``list_resources()``: it prints the same both ways."""
    original = fastmcp_examples / "mount_example.py"
    details = "import asyncio, runpy, sys; asyncio.run(runpy.run_path(sys.argv[1])['get_server_details']())"
    printed = [
        subprocess.run([sys.executable, "-c", details, str(path)], capture_output=True, text=True, check=True).stdout
        for path in (original, ported_from_fastmcp(original, tmp_path))
    ]
    assert "weather_get_weather_forecast" in printed[0]
    assert printed[1] == printed[0]


@pytest.mark.parametrize(("example", "era"), each_era(FASTMCP_EXAMPLES))
async def test_a_fastmcp_server_runs_on_oxmcp_with_its_imports_changed(
    example: str, era: str, fastmcp_examples: Path, tmp_path: Path
) -> None:
    original = fastmcp_examples / f"{example}.py"
    await compare(original, ported_example(original, fastmcp_examples, tmp_path), FASTMCP_EXAMPLES[example], era)


def ported_example(original: Path, examples: Path, directory: Path) -> Path:
    """FastMCP's example `original` ported into `directory`: an example in a directory of
    its own with the files beside it (a provider's), its Python files ported."""
    if original.parent != examples:
        copied(original.parent, directory, port=True)
    return ported_from_fastmcp(original, directory)


def copied(folder: Path, target: Path, *, port: bool, files: str = "**/*") -> None:
    """The `files` of `folder` copied into `target`, their imports of FastMCP ported when
    `port`."""
    for source in folder.glob(files):
        into = target / source.relative_to(folder)
        if source.is_dir():
            into.mkdir(parents=True, exist_ok=True)
            continue
        into.parent.mkdir(parents=True, exist_ok=True)
        if port and source.suffix == ".py":
            ported_from_fastmcp(source, into.parent)
        else:
            shutil.copyfile(source, into)


async def test_a_fastmcp_skills_server_offers_the_same_skills_ported(fastmcp_examples: Path, tmp_path: Path) -> None:
    """The skills of FastMCP's ``skills`` example, as a 2026-07-28 client lists and gets them
    (the skills extension: each file's digest and size), are the same from its port, and
    they load as they verify."""
    original = fastmcp_examples / "skills" / "server.py"
    seen = []
    for server in (original, ported_example(original, fastmcp_examples, tmp_path)):
        async with Client.stdio([sys.executable, "-c", RUN, str(server)], quiet=True) as client:
            skills = await client.list_skills()
            got = [await client.get_skill(skill.uri) for skill in skills]
            assert "Code Review" in await client.load_skill(skills[0])
            seen.append([skill.model_dump(mode="json", by_alias=True, exclude_none=True) for skill in skills + got])
    skill_uris = ["skill://code-review/SKILL.md", "skill://pdf-processing/SKILL.md"]
    assert [skill["uri"] for skill in seen[0]] == skill_uris * 2
    assert seen[1] == seen[0]


#: A server of resources as a user writes one with either Python SDK (``SDK`` the import,
#: ``Server`` the class): decorated with ``meta``, read as text, bytes and data, none of them
#: declaring a MIME type.
RESOURCES_AS_USERS_WRITE_THEM = """
SDK

mcp = Server("resources")


@mcp.resource("notes://today", meta={"source": "desk"})
def today() -> str:
    return "a note"


@mcp.resource("logo://{size}", meta={"kind": "image"})
def logo(size: str) -> bytes:
    return size.encode()


@mcp.resource("data://config")
def config() -> dict[str, bool]:
    return {"debug": False}
"""


@pytest.mark.parametrize("sdk", ["official", "fastmcp"])
@pytest.mark.parametrize("era", ERAS)
async def test_resources_are_declared_and_read_as_each_sdk_does(sdk: str, era: str, tmp_path: Path) -> None:
    # Each content read carries the resource's meta, and every function's resource is
    # declared text/plain, whatever it returns.
    imports = {
        "official": "from mcp.server.mcpserver import MCPServer as Server",
        "fastmcp": "from fastmcp import FastMCP as Server",
    }
    original = tmp_path / "theirs" / "resources.py"
    original.parent.mkdir()
    original.write_text(RESOURCES_AS_USERS_WRITE_THEM.replace("SDK", imports[sdk]))
    port = ported if sdk == "official" else ported_from_fastmcp
    visit = Visit(reads=["notes://today", "logo://small", "data://config"])
    await compare(original, port(original, tmp_path), visit, era)


#: Calls of the tools FastMCP's transforms add that fail or find nothing (an unknown prompt,
#: a prompt missing an argument, an unknown resource, a tool that is not there or is the
#: transform's own, a pattern the engine refuses, a query no tool shares a word with,
#: arguments the tool refuses):
#: each example, its tool and the arguments.
FAILING_TRANSFORM_CALLS = [
    ("prompts_as_tools/server", "get_prompt", {"name": "nope"}),
    (
        "prompts_as_tools/server",
        "get_prompt",
        {"name": "review_pull_request", "arguments": {"title": "t", "description": "d"}},
    ),
    ("resources_as_tools/server", "read_resource", {"uri": "nope://x"}),
    ("search/server_regex", "call_tool", {"name": "nope"}),
    ("search/server_regex", "call_tool", {"name": "search_tools", "arguments": {"pattern": "a"}}),
    ("search/server_regex", "search_tools", {"pattern": "(?<=a)b"}),
    ("search/server_bm25", "search_tools", {"query": "zz"}),
    # Arguments the tool does not take, in pydantic's words (the one that converts converted).
    ("search/server_regex", "call_tool", {"name": "add", "arguments": {"a": "x", "b": "2"}}),
]


@pytest.mark.parametrize(("example", "tool", "arguments"), FAILING_TRANSFORM_CALLS)
async def test_a_tool_a_fastmcp_transform_adds_fails_or_finds_nothing_as_fastmcps_does(
    example: str, tool: str, arguments: dict[str, Any], fastmcp_examples: Path, tmp_path: Path
) -> None:
    original = fastmcp_examples / f"{example}.py"
    visit = Visit(calls={tool: arguments}, eras=("legacy",))
    await compare(original, ported_from_fastmcp(original, tmp_path), visit, "legacy")


#: The server in `servers/fastmcp_style.py`, written the way FastMCP's users write one, with
#: what the client asks of it: in both eras, and the elicitations in 2025-11-25 only
#: (FastMCP refuses them in 2026-07-28, where oxmcp asks them through the client's retry).
FASTMCP_STYLE = {
    "both eras": Visit(
        calls={
            "add": {"a": 1, "b": 2},
            "nothing": {},
            "settings": {},
            "counts": {},
            "points": {"n": 2},
            "read": {"sensor": "s"},
            "untyped": {"items": [1, "a"]},
            "pixel": {},
            "refuse": {"reason": "no"},
            "crash": {},
            "summary": {"words": ["a", "b"]},
            "steps": {"n": 2},
            "convert": {"amount": 2.5},
            "total": {"tree": {"value": 1, "children": [{"value": 2}, {"value": 3, "children": [{"value": 4}]}]}},
            "transport": {},
            "slow": {},
            "invoice": {"amounts": [1.5, 2]},
            "plain_sum": {"a": 1, "b": 2},
            "chart": {"points": [1, 2]},
            "quote": {"amount": 10, "discount": 3},
        },
        reads=["data://settings", "data://points/3", "ui://charts/view.html"],
        prompts={"ask": {"topic": "x"}, "plain": {"topic": "y"}, "review": {"code": "x = 1"}},
    ),
    "elicitation": Visit(calls={"pick": {}}, eras=("legacy",)),
    # State kept for the session, which FastMCP gives each request of 2026-07-28 (oxmcp keeps
    # a stdio connection's).
    "state": Visit(calls={"remember": {"note": "a"}, "recall": {}}, eras=("legacy",)),
}


#: The server in `servers/fastmcp_visibility.py`, which hides and shows what it offers as
#: FastMCP's users do: for everyone, in both eras; for one session from its tools, in
#: 2025-11-25 only (FastMCP gives each request of 2026-07-28 a session of its own).
FASTMCP_VISIBILITY = {
    "everyone": Visit(
        calls={"purge": {}, "preview": {}},
        reads=["notes://public", "notes://secret", "users://1/profile", "files://a"],
        prompts={"greet": {"name": "Ada"}, "audit": {"scope": "all"}},
    ),
    "session": Visit(
        calls={"show_internal": {}, "purge": {}, "hide_add": {}, "add": {"a": 1, "b": 2}},
        reads=["notes://secret"],
        eras=("legacy",),
        relist=True,
    ),
    "reset": Visit(calls={"hide_add": {}, "reset": {}, "add": {"a": 1, "b": 2}}, eras=("legacy",), relist=True),
}


@pytest.mark.parametrize(("visit", "era"), each_era(FASTMCP_VISIBILITY))
async def test_a_fastmcp_server_hides_and_shows_as_fastmcps_does(visit: str, era: str, tmp_path: Path) -> None:
    original = Path(__file__).parent / "servers" / "fastmcp_visibility.py"
    await compare(original, ported_from_fastmcp(original, tmp_path), FASTMCP_VISIBILITY[visit], era)


#: What the client asks of the server in `servers/fastmcp_middleware.py`.
FASTMCP_MIDDLEWARE = Visit(
    calls={
        "bad": {"x": 3},
        "missing": {},
        "flaky": {},
        "down": {},
        "long": {},
        "rows": {},
        "short": {},
    }
)


@pytest.mark.parametrize("era", ERAS)
async def test_fastmcp_middleware_answers_as_fastmcps_does(era: str, tmp_path: Path) -> None:
    original = Path(__file__).parent / "servers" / "fastmcp_middleware.py"
    await compare(original, ported_from_fastmcp(original, tmp_path), FASTMCP_MIDDLEWARE, era)


#: What the client asks of the server in `servers/fastmcp_transforms.py`, whose tools are
#: made from others, changed by `ToolTransform` and all served under a namespace.
FASTMCP_TRANSFORMS = Visit(
    calls={
        "api_find_items": {"query": "cat"},
        "api_get_my_data": {"query": "orders"},
        "api_safe_divide": {"numerator": 6, "denominator": 3},
        "api_halved": {"a": 6, "b": 1},
        "api_shout": {"query": "dog", "limit": 1},
        "api_count": {"text": "The cat and the hat", "word": "the"},
        # Arguments converted as pydantic's lax mode does, or refused in its words.
        "api_count#lax": {"text": "The cat", "word": "the", "ignore_case": "false"},
        "api_find_items#lax": {"query": "cat", "limit": "1"},
        "api_find_items#refused": {"query": "cat", "limit": "many"},
        "api_safe_divide#refused": {"numerator": "six", "denominator": 3},
        "api_weather_forecast#refused": {"place": 5},
        "api_count_strictly": {"text": "The cat and the hat", "ignore_case": "yes"},
        "api_lookup": {"query": "q"},
        "api_weather_forecast": {"place": "Oslo"},
        "api_internal_only": {},
    },
    reads=["data://api/info", "data://api/users/7"],
    prompts={"api_hello": {"name": "Ada"}},
)


@pytest.mark.parametrize("era", ERAS)
async def test_fastmcp_transforms_serve_as_fastmcps_do(era: str, tmp_path: Path) -> None:
    original = Path(__file__).parent / "servers" / "fastmcp_transforms.py"
    await compare(original, ported_from_fastmcp(original, tmp_path), FASTMCP_TRANSFORMS, era)


@pytest.mark.parametrize(("visit", "era"), each_era(FASTMCP_STYLE))
async def test_a_server_written_the_fastmcp_way_runs_on_oxmcp_with_its_imports_changed(
    visit: str, era: str, tmp_path: Path
) -> None:
    original = Path(__file__).parent / "servers" / "fastmcp_style.py"
    await compare(original, ported_from_fastmcp(original, tmp_path), FASTMCP_STYLE[visit], era)


def test_a_fastmcp_servers_own_tests_pass_with_its_imports_changed(fastmcp_examples: Path, tmp_path: Path) -> None:
    """FastMCP's ``testing_demo``: a server and the pytest suite FastMCP's documentation
    teaches, which drives it with FastMCP's ``Client`` in process (``result.data``, the
    contents ``read_resource`` gives, a tool's ``inputSchema``). Ported, every test passes."""
    demo = fastmcp_examples / "testing_demo"
    (tmp_path / "tests").mkdir()
    ported_from_fastmcp(demo / "server.py", tmp_path)
    ported_from_fastmcp(demo / "tests" / "test_server.py", tmp_path / "tests")
    # Its pytest settings (`asyncio_mode = "auto"`, `pythonpath = ["."]`), as published.
    (tmp_path / "pyproject.toml").write_text((demo / "pyproject.toml").read_text())
    tests = len(re.findall(r"^async def test_", (demo / "tests" / "test_server.py").read_text(), flags=re.MULTILINE))
    pytest = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
    run = subprocess.run(
        [*pytest, "-o", "asyncio_default_fixture_loop_scope=function"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    summary = run.stdout.strip().splitlines()[-1] if run.stdout.strip() else run.stderr
    assert run.returncode == 0, run.stdout + run.stderr
    passed = re.match(r"(\d+) passed in ", summary)
    assert passed and int(passed.group(1)) >= tests, summary


def printed_both_ways(
    program: str, tmp_path: Path, port: Callable[[Path, Path], Path] = ported_from_fastmcp
) -> tuple[str, str]:
    """What the program ``servers/<program>`` prints run with the SDK it is written for
    (FastMCP unless ``port`` is another's), and with its imports changed to oxmcp's."""
    original = Path(__file__).parent / "servers" / program
    printed = []
    for path in (original, port(original, tmp_path)):
        run = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, timeout=120)
        assert run.returncode == 0, run.stderr
        printed.append(run.stdout)
    published, ported = printed
    return published, ported


def test_a_fastmcp_servers_apps_render_the_same_with_its_imports_changed(tmp_path: Path) -> None:
    """``servers/fastmcp_apps.py``: a ``FastMCPApp`` served two servers deep under a
    namespace, whose UI names the tools it calls as the outermost server lists them (a
    tool it does not have by its identity), and tools rendered by Prefab UI whose renderers
    differ by the frame policy they ask for, listed and read; a renderer no longer served
    once the only tool that names it is hidden."""
    published, ported = printed_both_ways("fastmcp_apps.py", tmp_path)
    assert ported == published
    assert '"crm_save": "__' in ported and '"tool": "crm_wipe"' in ported
    assert "https://api.example.com" in ported


def test_a_fastmcp_servers_requests_are_served_the_same_with_its_imports_changed(tmp_path: Path) -> None:
    """``servers/fastmcp_requests.py``, written as FastMCP's documentation writes a server:
    a completion function checking ``mcp.types``, the request's ``_meta``, state that
    middleware sets for the request alone, middleware that looks a tool up to refuse it,
    changes arguments in place and reads results by the official types,
    ``ToolError(log_level=)`` and a dependency that cannot be resolved answer alike."""
    published, ported = printed_both_ways("fastmcp_requests.py", tmp_path)
    assert ported == published
    assert "search [\"query='hello'\"] inspected" in ported and "secret True Tool not found" in ported
    assert "poem ['nature', 'night']" in ported and "whoami object of ops" in ported
    assert "add_expense True Error calling tool 'add_expense': Failed to resolve dependency" in ported


@pytest.mark.parametrize("run", ["run", "run_async"])
async def test_a_fastmcp_servers_own_routes_are_served_beside_its_endpoint(run: str, tmp_path: Path) -> None:
    """``servers/fastmcp_routes.py`` (``@mcp.custom_route``), ported and run over HTTP as
    written (``mcp.run``, ``await mcp.run_async``): its routes answer beside the endpoint
    (a method a route does not take is 405), and the official client uses the endpoint in
    both eras; Ctrl-C stops it cleanly."""
    server = ported_from_fastmcp(Path(__file__).parent / "servers" / "fastmcp_routes.py", tmp_path)
    with http_server([sys.executable, str(server), *(["--async"] if run == "run_async" else [])]) as url:
        async with httpx2.AsyncClient(base_url=url.removesuffix("/mcp")) as http:
            assert (await http.get("/health")).json() == {"status": "ok"}
            assert (await http.post("/echo/hi", content=b"!")).text == "hi!"
            assert (await http.get("/echo/hi")).status_code == 405
        for era in ERAS:
            seen = await survey(url, Visit(calls={"add": {"a": 1, "b": 2}}), era)
            assert seen["call add"]["structuredContent"] == {"result": 3}


def test_fastmcp_servers_written_as_its_documentation_writes_them_answer_the_same_ported(tmp_path: Path) -> None:
    """``servers/fastmcp_documented.py``: ``Field(...)`` defaults and descriptions in prompts
    and templates (their values, not the fields), templates' variables screened for paths
    that climb out (one exempt), a wildcard ``{path*}``, prompt arguments that are not text
    described by their JSON schema, query parameters (a list, ``{?tags*}``; written out,
    ``?q={q}``), a fragment left out, a client initialized by hand (``auto_initialize=False``),
    ``get_tool(name, version=VersionSpec(...))``,
    ``ctx.elicit``'s answers matched by class, a name
    registered twice (replaced; refused or kept by ``on_duplicate``), ``client_log_level``,
    ``get_logger`` and ``ctx.lifespan_context``."""
    published, ported = printed_both_ways("fastmcp_documented.py", tmp_path)
    assert ported == published
    assert "Perform a 'summary' analysis of file://x." in ported and "5 as json" in ported
    assert "Hello Ann! No name given" in ported and "connected [('warning', 'sent')]" in ported
    assert "refused: Component already exists" in ported and "kept one" in ported
    assert "files://..%2F..%2Fetc%2Fpasswd refused: Resource not found" in ported
    assert "git://diff/..%2F.. diff ../.." in ported and "docs://guide/intro.md doc guide/intro.md" in ported
    assert 'tagged://books?tags=alpha&tags=beta {"category": "books", "tags": ["alpha", "beta"]}' in ported
    assert "items://5#top 5 as json" in ported and "search://items?q= Results for ''" in ported
    assert "search://items?q=shoes&page=2 refused: Resource not found" in ported
    assert "manual True True" in ported and "initialized Documented 2025-11-25 True" in ported
    assert "get_tool VersionSpec(gte=None, lt='2.0', eq=None) ('calc', '1.0', ['x'])" in ported


def test_a_fastmcp_servers_skills_made_in_code_read_the_same_with_its_imports_changed(tmp_path: Path) -> None:
    """``servers/fastmcp_skills.py``: `Skill` objects given to `SkillCatalogProvider`s are
    listed file by file, each skill's manifest beside them, the skills listed by URI, and
    read back by FastMCP's client byte for byte, with the skills extension and without; a
    server that mounts their server serves them under its namespace."""
    published, ported = printed_both_ways("fastmcp_skills.py", tmp_path)
    assert ported == published
    assert "['skill://team/ops/deploy/SKILL.md', 'skill://team/review/SKILL.md']" in ported
    assert "review Review a change ['SKILL.md', 'checklist.md', 'scripts/lint.py'] True" in ported


def test_a_fastmcp_servers_failures_read_the_same_with_its_imports_changed(tmp_path: Path) -> None:
    """``servers/fastmcp_failures.py``: FastMCP's errors' texts as they are, anything else's
    after what failed (``Error calling tool 'withdraw': ...``, ``Error reading resource
    ...``, ``Error rendering prompt ...``), and without it under ``mask_error_details``,
    given or from ``FASTMCP_MASK_ERROR_DETAILS``."""
    published, ported = printed_both_ways("fastmcp_failures.py", tmp_path)
    assert ported == published
    unmasked, masked = ported.split("\nTrue withdraw 500")
    assert "'vault key 1234'" in unmasked and "10.0.0.7" in unmasked
    assert "withdraw 5 True Error calling tool 'withdraw'\n" in masked, "masked as asked"
    assert "None withdraw 5 True Error calling tool 'withdraw'\n" in masked, "masked by the environment"
    assert "1234" not in masked and "10.0.0.7" not in masked and "/srv" not in masked


def test_openapi_references_outside_the_description_are_refused_as_fastmcp_refuses_them(tmp_path: Path) -> None:
    """``servers/fastmcp_openapi_refs.py``: an operation whose body or response refers
    outside the description (directly, or by a component schema's property) refused with
    FastMCP's words; such a parameter left out; a ``$ref`` in an example, or in a component
    no operation uses, served."""
    published, ported = printed_both_ways("fastmcp_openapi_refs.py", tmp_path)
    assert ported == published
    assert "body refused: Failed to resolve reference 'other.yaml#/components/schemas/Pet'" in ported
    assert "component property refused: External or non-local reference not supported: people.json" in ported
    assert "parameter served: add_pet" in ported and "unused component served" in ported


def test_a_fastmcp_server_asked_directly_lists_and_answers_the_same_with_its_imports_changed(tmp_path: Path) -> None:
    """``servers/fastmcp_direct.py``: ``await mcp.list_tools()`` gives FastMCP's tools
    (``parameters``, ``output_schema``, ``tags``) after the server's visibility rules and
    middleware, ``get_tool`` one or None, ``call_tool`` a ``ToolResult`` or a raised
    ``ToolError``, ``list_resources`` what is visible, ``render_prompt`` the messages."""
    published, ported = printed_both_ways("fastmcp_direct.py", tmp_path)
    assert ported == published
    assert "get_tool: Adds two numbers. None" in ported and "ToolResult {'result': 3} ['3']" in ported


def test_fastmcp_middleware_sees_the_clients_notifications_the_same_with_its_imports_changed(tmp_path: Path) -> None:
    """``servers/fastmcp_notified.py``: middleware's ``on_message`` and ``on_notification``
    see the client's ``notifications/initialized`` and ``notifications/roots/list_changed``."""
    published, ported = printed_both_ways("fastmcp_notified.py", tmp_path)
    assert ported == published
    assert "notification notifications/roots/list_changed from client" in ported


def test_fastmcp_middleware_gates_the_handshake_the_same_with_its_imports_changed(tmp_path: Path) -> None:
    """``servers/fastmcp_greeted.py``: ``on_initialize`` reads the client's info from the
    ``InitializeRequest``, the server's from the result it passes on, and refuses a client."""
    published, ported = printed_both_ways("fastmcp_greeted.py", tmp_path)
    assert ported == published
    assert "refused: True" in ported and "welcome got Greeted (Be brief.)" in ported


def test_fastmcp_dependencies_are_injected_the_same_with_their_imports_changed(tmp_path: Path) -> None:
    """``servers/fastmcp_dependencies.py``: ``CurrentContext()``, ``CurrentFastMCP()`` and
    ``Depends(...)`` (sync, async, an async context manager closed after the call, one
    depending on others) as defaults of tools', a template's and a prompt's parameters:
    left out of their schemas and arguments, resolved at each call; ``get_context()``."""
    published, ported = printed_both_ways("fastmcp_dependencies.py", tmp_path)
    assert ported == published
    assert "repository on connection-1 in celsius on Dependencies" in ported and "closed: ['connection-1']" in ported


def test_fastmcp_prompt_and_resource_results_read_the_same_with_their_imports_changed(tmp_path: Path) -> None:
    """``servers/fastmcp_results.py``: prompts returning ``Message`` lists (roles, data as
    JSON text), text beside them and ``PromptResult`` (its description and ``meta``);
    resources returning ``ResourceResult`` (text, bytes and data items, their MIME types and
    ``meta``, the result's) and lists of ``ResourceContent``, a template's too; both eras."""
    published, ported = printed_both_ways("fastmcp_results.py", tmp_path)
    assert ported == published
    assert '"_meta": {"part": 2}, "blob": "AAFiaW5hcnk="' in ported and "card of ada" in ported


def test_fastmcp_components_added_as_objects_list_and_read_the_same_with_their_imports_changed(
    tmp_path: Path,
) -> None:
    """``servers/fastmcp_components.py``: ``TextResource``, ``BinaryResource``,
    ``FileResource`` (text, and bytes by MIME type), ``DirectoryResource`` (a pattern), a
    ``Resource`` subclass returning a ``ResourceResult``, ``Resource.from_function`` with
    tags, ``ResourceTemplate.from_function`` with ``add_template``, a function the standalone
    ``@resource`` marked, ``Prompt.from_function`` with ``add_prompt``, a template's failures
    and the ``Progress`` dependency; both eras. FastMCP's ``Progress`` only counts outside a Docket worker;
    oxmcp's tells the client each step."""
    published, ported = printed_both_ways("fastmcp_components.py", tmp_path)
    counted = [line for line in ported.splitlines() if line.startswith("updates ")]
    without_updates = lambda printed: [line for line in printed.splitlines() if not line.startswith("updates ")]  # noqa: E731
    assert without_updates(ported) == without_updates(published)
    steps = [[1.0, 3.0, "processing a"], [2.0, 3.0, "processing b"], [3.0, 3.0, "processing c"]]
    assert counted == [f"updates {json.dumps(steps)}"] * 2
    assert '"_meta": {"owner": "team"}, "text": "# Notes' in ported and '"text": ["a.csv", "b.csv"]' in ported
    # A resource's failure in FastMCP's words: a ResourceError's text, anything else's after the URI.
    assert "read failed memo://secret -32603 memo secret is sealed" in ported
    assert "read failed memo://lost -32603 Error reading resource 'memo://lost': 'lost'" in ported


def test_a_fastmcp_server_of_a_fastapi_app_lists_and_answers_the_same_with_its_imports_changed(tmp_path: Path) -> None:
    """``servers/fastmcp_openapi.py``: ``FastMCP.from_fastapi`` with route maps: tools named
    from the operation ids, their parameters, header and pydantic body in one input schema
    (definitions inlined), output schemas (a list's wrapped as ``result``, a component's
    marked), a resource and a template with their tags; calls with path, query, header and
    body arguments, the API's error status as the tool's error; reads; both eras."""
    published, ported = printed_both_ways("fastmcp_openapi.py", tmp_path)
    assert ported == published
    assert '"structuredContent": {"id": 2, "request": "r1"}' in ported and "HTTP error 422" in ported
    assert "read failed -32603 Error reading resource 'resource://get_item_items/9': HTTP error 404" in ported


def test_an_api_gets_the_requests_fastmcp_sends_it_with_its_imports_changed(tmp_path: Path) -> None:
    """``servers/fastmcp_openapi_requests.py``: query lists not exploded (comma, pipe,
    space), a ``deepObject`` filter, objects in the ``form`` style, booleans as ``true``;
    path, header and cookie values in the ``simple`` style; a path value that makes a dot
    segment (``..``, encoded or not) refused before any request, where it reached the API's
    root; bodies of variants a ``discriminator`` maps listed as one object of their
    properties, a variant's fields sent (they were dropped)."""
    published, ported = printed_both_ways("fastmcp_openapi_requests.py", tmp_path)
    assert ported == published
    assert "ids=1%7C2&words=x+y&filter%5Bcolor%5D=red" in ported and '"x-tags": "p,q"' in ported
    assert ported.count("cannot contain dot segments") == 3
    assert '"body": {"breed": "lab", "kind": "dog", "name": "rex", "size": "big"}' in ported


def test_a_search_answers_in_fastmcps_markdown_with_its_imports_changed(tmp_path: Path) -> None:
    """``servers/fastmcp_search_markdown.py``: ``serialize_tools_for_output_markdown`` as a
    search transform's serializer: each tool's parameters and result fields with their
    types, choices, defaults and required marks, an object's fields by name."""
    published, ported = printed_both_ways("fastmcp_search_markdown.py", tmp_path)
    assert ported == published
    assert '- `colour` (string?, one of "red"/"blue")' in ported and "*(no parameters)*" in ported


def test_fastmcp_replicas_share_cached_answers_the_same_with_their_imports_changed(tmp_path: Path) -> None:
    """``servers/fastmcp_caching.py``: ``ResponseCachingMiddleware(cache_storage=...)`` with a
    py-key-value store two replicas share (one answers from what the other kept), a tool
    left out, a failure and an answer too large not kept, a resource and a prompt kept; and
    ``statistics()``: each method's lookups, hits, misses and puts."""
    published, ported = printed_both_ways("fastmcp_caching.py", tmp_path)
    assert ported == published
    assert "1 count 1" in ported and "1 statistics call_tool (2, 2, 1)" in ported


def test_a_providers_components_are_asked_for_as_fastmcp_asks_with_its_imports_changed(tmp_path: Path) -> None:
    """``servers/fastmcp_provider.py``: a ``Provider`` subclass reading a SQLite table on
    each request, its tools ``Tool`` subclasses that run themselves: rows changed, added and
    disabled served at the next request (a disabled tool unknown), a tool's ``ToolError``,
    resources, a template and a prompt, two versions of a name called by version, the
    provider's lifespan entered and left with the server's, its visibility rules (a version
    spec among them), a namespace, transforms of its own (a namespace, a tool renamed, a
    version range added while it serves), and wrapped copies under two namespaces."""
    published, ported = printed_both_ways("fastmcp_provider.py", tmp_path)
    assert ported == published
    assert "changed call multiply_numbers {'result': 2.0, 'operation': 'divide'}" in ported
    assert "own minus {'result': 7, 'operation': 'add'}" in ported
    assert "twice [] ['opened', 'opened', 'closed', 'closed']" in ported
    assert "disabled True [\"Unknown tool: 'add_numbers'\"]" in ported and "lifespan ['opened', 'closed']" in ported


def test_a_fastmcp_client_group_routes_and_connects_as_fastmcps_does_with_its_imports_changed(tmp_path: Path) -> None:
    """``servers/fastmcp_group.py``: FastMCP's ``ClientGroup`` over two servers in two
    eras: tools listed under each server's name, calls routed, nested blocks (the clients
    stay connected until the last one ends, a client's own block keeps it), a route
    resolved, an unknown name refused, a group made from a configuration."""
    published, ported = printed_both_ways("fastmcp_group.py", tmp_path)
    assert ported == published
    assert "['notes_count', 'notes_forecast_note', 'weather_forecast']" in ported
    assert "kept by its own block True" in ported


def test_a_fastmcp_server_lists_its_own_components_before_those_it_mounted_as_fastmcp_does(tmp_path: Path) -> None:
    """``servers/fastmcp_order.py``: a server's own tools, resources and prompts first, then
    each mounted server's in the order they were mounted, whenever each was registered."""
    published, ported = printed_both_ways("fastmcp_order.py", tmp_path)
    assert ported == published
    listed = "['own', 'first_early', 'first_late', 'first_last', 'first_nested_deep', 'second_other']"
    assert f"Parent tools {listed}" in ported


def test_a_fastmcp_servers_sessions_answer_as_fastmcps_with_its_imports_changed(tmp_path: Path) -> None:
    """``servers/fastmcp_sessions.py``: FastMCP's session state (``SessionProvider``,
    ``SessionId`` arguments listed with FastMCP's description, ``get_session``, a cart kept
    across calls, cleared and ended, ids never made refused, ``UserSession`` refused without
    a token and None when optional) answers the same."""
    published, ported = printed_both_ways("fastmcp_sessions.py", tmp_path)
    assert ported == published
    assert "2 items in cart: ['apple', 'pear']" in ported and "Invalid or unknown session." in ported


def test_official_sdk_tools_of_classes_it_has_no_schema_for_answer_the_same_ported(tmp_path: Path) -> None:
    """``servers/official_returns.py``: a tool returning a date, a UUID, a decimal, an enum,
    a path, a duration, a class of one's own or a bare container has no output schema under
    the official SDK, and its value goes out as its JSON text (a list's and a tuple's item
    by item); ``int`` and ``list[int]`` are wrapped as before, and a wrapped value that is
    not JSON as Python holds it (bytes, an optional date, a list of dates) has its own JSON
    as text, quoted; a class with annotated attributes is an object with its ``repr`` as
    text."""
    published, on_oxmcp = printed_both_ways("official_returns.py", tmp_path, ported)
    assert on_oxmcp == published
    assert 'datetime null | [{"type": "text", "text": "\\"2026-01-02T03:04:05\\""}] None' in on_oxmcp
    assert "int {" in on_oxmcp and "{'result': 1}" in on_oxmcp
    assert """[{"type": "text", "text": "\\"2026-01-02T03:04:05\\""}] {'result': '2026-01-02T03:04:05'}""" in on_oxmcp
    assert """[{"type": "text", "text": "\\"Hinted(x, 2)\\""}] {'name': 'x', 'size': 2}""" in on_oxmcp


def test_fastmcp_tools_results_follow_their_return_annotations_as_fastmcps_do(tmp_path: Path) -> None:
    """``servers/fastmcp_returns.py``: for each return annotation (bare and parameterized
    sequences, objects, scalars, ``Any``, ``None``, optional, bytes, models, dataclasses,
    TypedDicts, unions, dates, UUIDs, durations), the output schema listed and the content,
    structured content and ``_meta`` of a call, as FastMCP makes them, and the values
    FastMCP's client reads of them."""
    published, ported = printed_both_ways("fastmcp_returns.py", tmp_path)
    assert ported == published
    assert "bare_list null |" in ported and 'binary null | [{"text": "/wA=", "type": "text"}]' in ported
    assert 'any_object null | [{"text": "{\\"a\\":1}", "type": "text"}] {"a": 1}' in ported
    assert "uuid reads UUID('00000000-0000-0000-0000-000000000005')" in ported


def test_a_tool_transform_versions_tools_as_fastmcps_does_with_its_imports_changed(tmp_path: Path) -> None:
    """``servers/fastmcp_transform_versions.py``: ``ToolTransformConfig(version=...)`` lists
    a tool as that version alone (one made from several versions runs the highest), serves
    a call asking for it or for none, and answers one asking for another as unknown."""
    published, ported = printed_both_ways("fastmcp_transform_versions.py", tmp_path)
    assert ported == published
    assert "called calc5 5.0 3" in ported and "called plain 1.0 ToolError Unknown tool: 'plain'" in ported


def test_fastmcp_elicitation_forms_ask_and_read_as_fastmcps_do(tmp_path: Path) -> None:
    """``servers/fastmcp_elicit_forms.py``: ``ctx.elicit(message, response_type)`` with
    FastMCP's shorthand forms (titled choices as a dict, positional or by keyword; several
    choices as a nested list or a list of one dict; ``list[Literal[...]]``; a value titled
    and described; a list of choices): the schema the client is asked to fill in, and the
    value the tool gets from the answer."""
    published, ported = printed_both_ways("fastmcp_elicit_forms.py", tmp_path)
    assert ported == published
    assert """got multi_titled False ['accept ["l"]']""" in ported
    assert '"oneOf": [{"const": "low", "title": "Low priority"}' in ported


def test_a_reloading_filesystem_provider_serves_its_changed_files_as_fastmcps_does(tmp_path: Path) -> None:
    """``servers/fastmcp_reload.py``: ``FileSystemProvider(root, reload=True)`` while its
    files change between requests: a tool rewritten, a file added, one that fails to import
    (in ``failed_files``), one removed; each change served at the next request (the files
    were read once)."""
    published, ported = printed_both_ways("fastmcp_reload.py", tmp_path)
    assert ported == published
    assert "rewritten ['greet'] [] Good morning, Ada" in ported and "removed [] ['review'] None" in ported


async def test_official_resources_and_prompts_added_as_objects_read_the_same_with_their_imports_changed(
    tmp_path: Path,
) -> None:
    """``servers/official_components.py``: resources given to ``add_resource`` as objects
    (text, bytes, a text file and a binary one, a directory's listing, a function's data as
    JSON), their ``meta`` on what is read, and a prompt given to ``add_prompt``, seen by the
    official client in both eras."""
    original = Path(__file__).parent / "servers" / "official_components.py"
    reads = ["resource://notice", "resource://magic", "file:///readme.md", "file:///logo.png"]
    visit = Visit(reads=[*reads, "resource://docs", "config://settings"], prompts={"code_review": {"code": "x = 1"}})
    for era in ERAS:
        await compare(original, ported(original, tmp_path), visit, era)


async def test_an_official_servers_form_of_optional_fields_is_asked_the_same_with_its_import_changed(
    tmp_path: Path,
) -> None:
    """``servers/official_elicit.py``: ``ctx.elicit(message, schema=Model)`` with optional
    fields (``T | None``, asked as ``T``, not required, no null default), a choice and
    several choices: the form the official client is asked to fill in, and the answer."""
    original = Path(__file__).parent / "servers" / "official_elicit.py"
    await compare(original, ported(original, tmp_path), Visit(calls={"book": {}}), "legacy")


@pytest.mark.parametrize("era", ERAS)
async def test_an_official_servers_failures_read_the_same_with_its_imports_changed(era: str, tmp_path: Path) -> None:
    """``servers/official_failures.py``: a ``ToolError``'s text after the tool's name, an
    ``MCPError`` as it is, a ``ResourceError``'s text, and crashes of a tool, a resource, a
    template and a prompt answered without their text, as the official SDK answers them.
    One difference: a prompt's crash is JSON-RPC's internal error (-32603) naming the prompt
    in both eras, where the official SDK sends code 0 to a legacy client (pinned for its 1.x
    servers, its source says) and a nameless "Internal server error" to a modern one."""
    original = Path(__file__).parent / "servers" / "official_failures.py"
    visit = Visit(
        calls={"withdraw": {"amount": 500}, "withdraw#rpc": {"amount": -1}, "withdraw#crash": {"amount": 5}},
        reads=["ledger://current", "ledger://archived", "ledger://day/3"],
        prompts={"audit": {"account": "acme"}},
    )
    theirs = await survey(over_stdio(original), visit, era)
    ours = await survey(over_stdio(ported(original, tmp_path)), visit, era)
    official = {"legacy": (0, "Error rendering prompt audit"), "modern": (-32603, "Internal server error")}[era]
    assert tuple(theirs.pop("prompt audit").values()) == (*official, None)
    assert ours.pop("prompt audit") == {"code": -32603, "message": "Error rendering prompt audit", "data": None}
    assert_same(ours, theirs)
    assert "1234" not in json.dumps(ours) and "10.0.0.7" not in json.dumps(ours)


def test_an_official_server_asked_directly_lists_and_answers_the_same_with_its_import_changed(tmp_path: Path) -> None:
    """``servers/official_direct.py``: the official SDK's ``await mcp.list_tools()``,
    ``call_tool`` (its result, or a raised ``ToolError`` for the tool's failure and for an
    unknown tool, ``UnexpectedToolError`` for its crash), ``read_resource`` (a raised
    ``ResourceError`` or ``UnexpectedResourceError``), ``list_resource_templates``,
    ``list_prompts`` and ``get_prompt``."""
    published, on_oxmcp = printed_both_ways("official_direct.py", tmp_path, ported)
    assert on_oxmcp == published
    assert "add {'result': 3} ['3'] False" in on_oxmcp and "missing raised ToolError" in on_oxmcp
    assert "crash raised UnexpectedToolError: Error executing tool crash\n" in on_oxmcp
    assert "never raised UnexpectedResourceError" in on_oxmcp and "10.0.0.7" not in on_oxmcp


def test_a_fastmcp_client_hears_the_same_notifications_with_its_imports_changed(tmp_path: Path) -> None:
    """``servers/fastmcp_messages.py``: FastMCP's ``Client`` with a ``message_handler``
    (a ``MessageHandler`` and a function) given the official SDK's notification models."""
    published, ported = printed_both_ways("fastmcp_messages.py", tmp_path)
    assert ported == published
    assert "LoggingMessageNotification: info" in ported and "LoggingMessageNotification notifications/message" in ported


def test_a_fastmcp_client_reaches_a_server_through_an_mcp_config_with_its_imports_changed(tmp_path: Path) -> None:
    """``servers/fastmcp_config.py``: FastMCP's ``Client`` given MCP configuration dicts (with
    ``mcpServers`` and without), a stdio server's command, args and env, and a timeout; then
    a config naming two servers, whose tools and resources it reaches under their names."""
    published, ported = printed_both_ways("fastmcp_config.py", tmp_path)
    assert ported == published
    assert ported.splitlines().count("greet: ahoy, Ada") == 2
    assert "clerk_greet: good day, Ada" in ported


def test_an_mcp_config_names_the_transport_fastmcp_would_use() -> None:
    from oxmcp.fastmcp.client.transports import (
        MCPConfigTransport,
        SSETransport,
        StdioTransport,
        StreamableHttpTransport,
    )

    def transport(server: dict[str, Any]) -> object:
        return MCPConfigTransport({"mcpServers": {"one": server}}).transport

    assert transport({"url": "https://example.com/mcp"}) == StreamableHttpTransport("https://example.com/mcp")
    assert isinstance(transport({"url": "https://example.com/sse/"}), SSETransport)
    assert isinstance(transport({"url": "https://example.com/events", "transport": "sse"}), SSETransport)
    remote = transport({"url": "https://example.com/x", "transport": "http", "headers": {"X-Team": "a"}, "auth": "t"})
    assert remote == StreamableHttpTransport("https://example.com/x", {"X-Team": "a"}, "t")
    stdio = transport({"command": "uvx", "args": ["notes"], "cwd": "/srv"})
    assert stdio == StdioTransport("uvx", ["notes"], None, "/srv")
    with pytest.raises(ValueError, match="No MCP servers"):
        MCPConfigTransport({"mcpServers": {}})
    with pytest.raises(ValueError, match="2 servers"):
        _ = MCPConfigTransport({"a": {"url": "https://a/mcp"}, "b": {"url": "https://b/mcp"}}).transport
    with pytest.raises(ValueError, match="a command or a url"):
        MCPConfigTransport({"mcpServers": {"one": {"args": []}}})


#: FastMCP's examples whose own client, FastMCP's ``Client`` in process, prints what it got
#: (the session ids it prints are random: compared as ``<id>``), with a line each prints only
#: when it got what it asked for (the YAML text: a content block the official type checks).
FASTMCP_CLIENT_EXAMPLES = {
    "custom_tool_serializer_decorator.py": "name: Test",
    "persistent_state/client_stdio.py": "get user → Alice",
    # A proxy of a server in the same process (`create_proxy`), called in process.
    "in_memory_proxy_example.py": "proxied 'echo' call: 'Original server echoes: Hello, simplified proxied world!'",
    # Several versions of one tool, listed as the highest with every version, called by version.
    "versioning/versioned_components.py": "calculate(5, 3) v1.0     -> 8",
    "versioning/client_version_selection.py": "ToolError: Unknown tool: 'charge'",
    # One `LocalProvider` of versions served by three servers, each with a `VersionFilter`.
    "versioning/version_filters.py": "│ process │ 3.0           │",
    # A FastAPI app's routes made tools, resources or nothing by `RouteMap`s of tags.
    "tags_example.py": "Tools (2): create_user_users_post, get_admin_stats_admin_stats_get",
    # A `Provider` of tools read from a SQLite table (seeded by its `setup_db.py` first),
    # each a `Tool` subclass that runs itself.
    "providers/sqlite/server.py": "Result: {'result': 42, 'operation': 'multiply'}",
    # A directory's skills (`SkillsDirectoryProvider`) listed, read and verified file by file,
    # and written out, with the skills extension and without it (through each `_manifest`).
    "skills/client.py": "Read without the Skills extension: code-review",
}


@pytest.mark.parametrize(("example", "expected"), FASTMCP_CLIENT_EXAMPLES.items())
def test_a_fastmcp_example_client_prints_the_same_with_its_imports_changed(
    example: str, expected: str, fastmcp_examples: Path, tmp_path: Path
) -> None:
    printed = []
    for tree, port in ((tmp_path / "published", False), (tmp_path / "ported", True)):
        # The examples import each other as the package `examples`, run from its parent.
        folder = (fastmcp_examples / example).parent
        target = tree / "examples" / folder.relative_to(fastmcp_examples)
        # The files beside an example in a folder of its own; the other examples' sources.
        copied(folder, target, port=port, files="*.py" if folder == fastmcp_examples else "**/*")
        seeding = (tree / "examples" / example).parent / "setup_db.py"
        if seeding.exists():
            subprocess.run([sys.executable, str(seeding)], check=True, capture_output=True, timeout=120)
        module = "examples." + example.removesuffix(".py").replace("/", ".")
        run = subprocess.run([sys.executable, "-m", module], cwd=tree, capture_output=True, text=True, timeout=120)
        assert run.returncode == 0, run.stderr
        printed.append(re.sub(r"session [0-9a-f]{8}\b", "session <id>", run.stdout))
    published, ported = printed
    assert ported == published
    assert expected in ported
