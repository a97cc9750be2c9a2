"""A Python server as an OAuth resource server, against a real authorization server
(oidc-provider from npm, tests/auth/provider.mjs, started and stopped by each test): JWT and
introspected tokens, scopes per tool, resource and prompt, the caller in
``ctx.access_token``, refusals with their challenges, a verifier written in Python, and the
official Python SDK's OAuth client completing the authorization code flow, with a step-up,
against the server; and the oxmcp Python client's own OAuth (``OAuth``): the code flow through
the browser and back to its loopback listener, a step-up, a refresh, tokens kept in a file
across runs, and a machine client."""

from __future__ import annotations

import asyncio
import base64
import json
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import pytest

from conftest import AUTHORIZATION_SERVER, ERAS, http_server
from oxmcp import Client, Context, HttpServer, McpError, Server
from oxmcp.auth import AccessToken, IntrospectionVerifier, JWTVerifier, OAuth, TokenVerifier
from oxmcp.fastmcp.server.sessions import SessionId, UserSession

REDIRECT_URI = "http://127.0.0.1:9/callback"


def notes_server(auth: Any) -> Server:
    """``whoami`` says who called; writing, the secret and the summary need ``notes:write``."""
    server = Server("notes", auth=auth)

    @server.tool()
    async def whoami(ctx: Context) -> str:
        token = ctx.access_token
        if token is None:
            return "nobody"
        return f"{token.subject or token.client_id} {','.join(token.scopes)}"

    @server.tool(scopes=["notes:write"])
    async def write_note(text: str) -> str:
        return f"written: {text}"

    @server.resource("notes://secret", scopes=["notes:write"])
    def secret() -> str:
        return "the secret"

    @server.prompt(scopes=["notes:write"])
    def summarize() -> str:
        return "Summarize my notes."

    return server


@contextmanager
def authorization_server(**settings: str) -> Iterator[dict[str, Any]]:
    """The authorization server's metadata, while it runs with `settings` (its env)."""
    command = ["env", *(f"{key}={value}" for key, value in settings.items()), *AUTHORIZATION_SERVER]
    with http_server(command, url_on="stdout", noise_free=False) as issuer:
        yield get_json(f"{issuer}/.well-known/oauth-authorization-server")


@asynccontextmanager
async def protected(auth: Any, **options: Any) -> AsyncIterator[HttpServer]:
    async with await notes_server(auth).start_http(port=0, required_scopes=["notes:read"], **options) as http:
        yield http


def get_json(url: str) -> dict[str, Any]:
    with urllib.request.urlopen(url) as answer:
        return dict(json.load(answer))


def post_form(url: str, form: dict[str, str], basic: str | None = None) -> dict[str, Any]:
    request = urllib.request.Request(url, data=urllib.parse.urlencode(form).encode())
    if basic:
        request.add_header("Authorization", "Basic " + base64.b64encode(basic.encode()).decode())
    with urllib.request.urlopen(request) as answer:
        return dict(json.load(answer))


async def service_token(metadata: dict[str, Any], resource: str, scope: str) -> str:
    """A client credentials token of the pre-registered client ``svc`` for `resource`."""
    form = {"grant_type": "client_credentials", "resource": resource, "scope": scope}
    answer = await asyncio.to_thread(post_form, metadata["token_endpoint"], form, "svc:svc-secret")
    return str(answer["access_token"])


def refusal(url: str, token: str | None = None) -> tuple[int, str]:
    """The status and ``WWW-Authenticate`` of a bare POST with `token`."""
    request = urllib.request.Request(url, data=b'{"jsonrpc": "2.0", "id": 1, "method": "ping"}')
    request.add_header("Content-Type", "application/json")
    request.add_header("Accept", "application/json, text/event-stream")
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request) as answer:
            return answer.status, ""
    except urllib.error.HTTPError as error:
        return error.code, error.headers.get("WWW-Authenticate", "")


def text(result: Any) -> str:
    return "".join(block.text for block in result.content if block.type == "text")


async def test_jwt_tokens_reach_handlers_and_each_scope_is_enforced() -> None:
    with authorization_server() as metadata:
        verifier = JWTVerifier(jwks_uri=metadata["jwks_uri"], issuer=metadata["issuer"])
        async with protected(verifier) as http:
            metadata_url = http.url.replace("/mcp", "/.well-known/oauth-protected-resource/mcp")
            status, challenge = await asyncio.to_thread(refusal, http.url)
            assert (status, challenge) == (401, f'Bearer scope="notes:read", resource_metadata="{metadata_url}"')
            status, challenge = await asyncio.to_thread(refusal, http.url, "forged")
            assert status == 401 and 'error="invalid_token"' in challenge
            document = await asyncio.to_thread(get_json, metadata_url)
            assert document["authorization_servers"] == [metadata["issuer"]]
            assert document["scopes_supported"] == ["notes:read", "notes:write"]

            reader = await service_token(metadata, http.url, "notes:read")
            for era in ERAS:
                async with Client.http(http.url, bearer_token=reader, era=era) as client:
                    assert text(await client.call_tool("whoami")) == "svc notes:read"
                    for forbidden in (
                        client.call_tool("write_note", {"text": "x"}),
                        client.read_resource("notes://secret"),
                        client.get_prompt("summarize"),
                    ):
                        with pytest.raises(McpError):
                            await forbidden
            writer = await service_token(metadata, http.url, "notes:read notes:write")
            async with Client.http(http.url, bearer_token=writer) as client:
                assert text(await client.call_tool("write_note", {"text": "x"})) == "written: x"
                assert (await client.read_resource("notes://secret")).contents[0].text == "the secret"
                await client.get_prompt("summarize")


async def test_opaque_tokens_are_introspected() -> None:
    with authorization_server(ACCESS_TOKEN_FORMAT="opaque") as metadata:
        verifier = IntrospectionVerifier(
            endpoint=metadata["introspection_endpoint"],
            client_id="svc",
            client_secret="svc-secret",
            issuer=metadata["issuer"],
        )
        async with protected(verifier) as http:
            token = await service_token(metadata, http.url, "notes:read")
            async with Client.http(http.url, bearer_token=token) as client:
                assert text(await client.call_tool("whoami")) == "svc notes:read"
            status, _ = await asyncio.to_thread(refusal, http.url, "not-a-token")
            assert status == 401


class Passwords(TokenVerifier):
    """A verifier written in Python: fixed tokens and their scopes, for whatever resource
    `url` says."""

    def __init__(self) -> None:
        self.url = ""
        self.scopes = {"let-me-in": ["notes:read"], "all-notes": ["notes:read", "notes"]}

    async def verify(self, token: str) -> AccessToken | None:
        if token not in self.scopes:
            return None
        return AccessToken(token, subject="carol", scopes=self.scopes[token], audience=[self.url], claims={"x": 1})


async def test_a_verifier_written_in_python() -> None:
    verifier = Passwords()
    async with protected(verifier, authorization_servers=["https://as.example"]) as http:
        verifier.url = http.url
        async with Client.http(http.url, bearer_token="let-me-in") as client:
            assert text(await client.call_tool("whoami")) == "carol notes:read"
        status, challenge = await asyncio.to_thread(refusal, http.url, "guess")
        assert status == 401 and "the token is not valid" in challenge
    # In process (and over stdio) there are no tokens.
    async with Client(notes_server(verifier)) as client:
        assert text(await client.call_tool("whoami")) == "nobody"


async def test_lists_can_show_each_caller_only_what_its_scopes_permit() -> None:
    verifier = Passwords()
    options: dict[str, Any] = {
        "authorization_servers": ["https://as.example"],
        "list_only_permitted": True,
        "scope_implies": {"notes": ["notes:write"]},
    }
    async with protected(verifier, **options) as http:
        verifier.url = http.url
        for era in ERAS:
            async with Client.http(http.url, bearer_token="let-me-in", era=era) as client:
                assert [tool.name for tool in await client.list_tools()] == ["whoami"]
                assert await client.list_resources() == []
                assert await client.list_prompts() == []
            async with Client.http(http.url, bearer_token="all-notes", era=era) as client:
                assert [tool.name for tool in await client.list_tools()] == ["whoami", "write_note"]
                assert [str(resource.uri) for resource in await client.list_resources()] == ["notes://secret"]
                assert [prompt.name for prompt in await client.list_prompts()] == ["summarize"]


async def test_settings_that_cannot_work_are_refused() -> None:
    with pytest.raises(ValueError, match="need a server with auth"):
        await notes_server(None).start_http(port=0, required_scopes=["x"])
    with pytest.raises(ValueError, match="need a server with auth"):
        await notes_server(None).start_http(port=0, list_only_permitted=True)
    with pytest.raises(OSError, match="not the endpoint's"):
        await protected(Passwords(), resource_url="https://notes.example/api").__aenter__()
    with pytest.raises(TypeError, match="verify"):
        Server("x", auth="secret")  # type: ignore[arg-type]


async def test_the_official_python_client_completes_the_code_flow_with_a_step_up() -> None:
    from mcp import Client as OfficialClient
    from mcp.client.auth import OAuthClientProvider
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client
    from mcp.shared.auth import AuthorizationCodeResult, OAuthClientInformationFull, OAuthClientMetadata, OAuthToken

    class Memory:
        def __init__(self) -> None:
            self.tokens: OAuthToken | None = None
            self.client: OAuthClientInformationFull | None = None

        async def get_tokens(self) -> OAuthToken | None:
            return self.tokens

        async def set_tokens(self, tokens: OAuthToken) -> None:
            self.tokens = tokens

        async def get_client_info(self) -> OAuthClientInformationFull | None:
            return self.client

        async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
            self.client = client_info

    callbacks: list[str] = []

    def approve(url: str) -> str:
        """The user: follows the authorization URL's redirects to the app's redirect URI."""

        class Stop(urllib.request.HTTPRedirectHandler):
            def redirect_request(self, *args: Any) -> None:
                return None

        opener = urllib.request.build_opener(Stop)
        for _ in range(10):
            try:
                opener.open(url)
            except urllib.error.HTTPError as answer:
                url = urllib.parse.urljoin(url, answer.headers["Location"])
                if url.startswith(REDIRECT_URI):
                    return url
        raise AssertionError("no redirect to the app")

    async def redirect(url: str) -> None:
        callbacks.append(await asyncio.to_thread(approve, url))

    async def callback() -> AuthorizationCodeResult:
        query = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(callbacks[-1]).query))
        return AuthorizationCodeResult(code=query["code"], state=query.get("state"), iss=query.get("iss"))

    with authorization_server() as metadata:
        verifier = JWTVerifier(jwks_uri=metadata["jwks_uri"], issuer=metadata["issuer"])
        async with protected(verifier) as http:
            provider = OAuthClientProvider(
                http.url,
                OAuthClientMetadata(
                    client_name="official", redirect_uris=[REDIRECT_URI], token_endpoint_auth_method="none"
                ),
                Memory(),
                redirect_handler=redirect,
                callback_handler=callback,
            )
            async with create_mcp_http_client(auth=provider) as http_client:
                official = OfficialClient(streamable_http_client(http.url, http_client=http_client))
                async with official:
                    whoami = await official.call_tool("whoami", {})
                    assert whoami.content[0].text.startswith("alice notes:read")
                    written = await official.call_tool("write_note", {"text": "hi"})
                    assert written.content[0].text == "written: hi"
            assert len(callbacks) == 2, "one authorization, one step-up"


def browser(trips: list[str], stop_at: str | None = None) -> Callable[[str], str]:
    """The user's browser, the user approving at once: follows the authorization URL's
    redirects and loads the page it lands on (the app's loopback listener), or stops at the
    first redirect to `stop_at` and gives its URL. Each trip is counted in `trips`."""

    class Stop(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args: Any) -> None:
            return None

    def visit(url: str) -> str:
        trips.append(url)
        opener = urllib.request.build_opener(Stop)
        for _ in range(10):
            try:
                with opener.open(url) as page:
                    page.read()
                    return url
            except urllib.error.HTTPError as answer:
                if answer.code not in (302, 303):
                    raise
                url = urllib.parse.urljoin(url, answer.headers["Location"])
                if stop_at and url.startswith(stop_at):
                    return url
        raise AssertionError("the browser went round in circles")

    return visit


@pytest.mark.parametrize("era", ERAS)
async def test_the_oxmcp_client_signs_in_through_the_browser_steps_up_and_refreshes(era: str) -> None:
    # Access tokens live 3 s, so that one expires during the test and is refreshed.
    with authorization_server(ACCESS_TOKEN_TTL="3") as metadata:
        verifier = JWTVerifier(jwks_uri=metadata["jwks_uri"], issuer=metadata["issuer"])
        async with protected(verifier) as http:
            trips: list[str] = []
            oauth = OAuth("notes app", open_browser=browser(trips))
            assert oauth.redirect_uri and oauth.redirect_uri.startswith("http://127.0.0.1:")
            async with Client.http(http.url, auth=oauth, era=era) as client:
                assert text(await client.call_tool("whoami")) == "alice notes:read"
                assert len(trips) == 1
                # write_note needs more: one more trip, for every scope asked so far.
                assert text(await client.call_tool("write_note", {"text": "x"})) == "written: x"
                assert len(trips) == 2
                asked = urllib.parse.parse_qs(urllib.parse.urlsplit(trips[1]).query)["scope"][0].split()
                assert {"notes:read", "notes:write"} <= set(asked)
                # Once the token expired, the refresh token gets a new one, no user involved.
                await asyncio.sleep(4)
                assert text(await client.call_tool("whoami")).startswith("alice")
                assert len(trips) == 2
            # Another client of the same OAuth shares its tokens.
            async with Client.http(http.url, auth=oauth, era=era) as again:
                assert text(await again.call_tool("whoami")).startswith("alice")
                assert len(trips) == 2
            assert "token" not in repr(oauth).lower()


async def test_tokens_kept_in_a_file_sign_the_next_run_in(tmp_path: Path) -> None:
    # Access tokens live 3 s: the next run finds them expired and refreshes them, as the
    # client the first run registered (kept with the tokens).
    with authorization_server(ACCESS_TOKEN_TTL="3") as metadata:
        verifier = JWTVerifier(jwks_uri=metadata["jwks_uri"], issuer=metadata["issuer"], leeway=0)
        async with protected(verifier) as http:
            trips: list[str] = []
            redirect_uri = "http://127.0.0.1:9/callback"
            token_file = tmp_path / "tokens.json"

            def app(trips: list[str]) -> OAuth:
                """The app, as it starts: it takes the user through itself (`authorize`)."""
                approve = browser(trips, stop_at=redirect_uri)

                async def authorize(url: str) -> str:
                    return await asyncio.to_thread(approve, url)

                return OAuth("notes app", authorize=authorize, redirect_uri=redirect_uri, token_file=token_file)

            async with Client.http(http.url, auth=app(trips)) as client:
                assert text(await client.call_tool("whoami")) == "alice notes:read"
            assert len(trips) == 1
            assert token_file.stat().st_mode & 0o777 == 0o600
            kept = json.loads(token_file.read_text())
            assert kept["issuer"] == metadata["issuer"] and kept["client"]["client_id"]
            # The next run, once the token expired: signed in by the file, the user is not asked.
            await asyncio.sleep(4)
            async with Client.http(http.url, auth=app(trips)) as client:
                assert text(await client.call_tool("whoami")) == "alice notes:read"
            assert len(trips) == 1


async def test_tokens_kept_by_the_apps_own_storage() -> None:
    class Keyring:
        """The app's place for secrets: sync `load`, async `save`."""

        def __init__(self) -> None:
            self.text: str | None = None

        def load(self) -> str | None:
            return self.text

        async def save(self, tokens: str | None) -> None:
            self.text = tokens

    with authorization_server() as metadata:
        verifier = JWTVerifier(jwks_uri=metadata["jwks_uri"], issuer=metadata["issuer"])
        async with protected(verifier) as http:
            trips: list[str] = []
            keyring = Keyring()
            for _ in range(2):
                oauth = OAuth("notes app", open_browser=browser(trips), storage=keyring)
                async with Client.http(http.url, auth=oauth) as client:
                    assert text(await client.call_tool("whoami")) == "alice notes:read"
            assert len(trips) == 1, "the second start was signed in by the storage"
            assert keyring.text is not None and metadata["issuer"] in keyring.text
    with pytest.raises(ValueError, match="not both"):
        OAuth("app", token_file="t.json", storage=Keyring())
    # A storage that cannot work fails every connection the same way, none of them panics.
    broken = OAuth("app", open_browser=lambda url: None, storage=object())  # type: ignore[arg-type]
    for _ in range(2):
        with pytest.raises(AttributeError, match="load"):
            await Client.http("http://127.0.0.1:9/mcp", auth=broken).connect()


def fastmcp_notes(auth: Any) -> Any:
    """A server written with FastMCP, its imports changed: its tools read the caller with
    ``get_access_token()``, one a plain function and one a coroutine."""
    from oxmcp.fastmcp import FastMCP
    from oxmcp.fastmcp.server.auth import require_scopes
    from oxmcp.fastmcp.server.dependencies import get_access_token

    mcp = FastMCP("notes", auth=auth)

    def caller() -> str:
        token = get_access_token()
        return "nobody" if token is None else f"{token.client_id} {' '.join(token.scopes)}"

    @mcp.tool
    def whoami() -> str:
        return caller()

    @mcp.tool
    async def whoami_later() -> str:
        await asyncio.sleep(0)
        return caller()

    @mcp.tool(auth=require_scopes("notes:write"))
    def write_note(text: str) -> str:
        return f"written: {text}"

    return mcp


async def test_a_fastmcp_server_verifies_tokens_with_its_provider() -> None:
    """FastMCP's providers as ``FastMCP(auth=...)``: a ``JWTVerifier`` (checked in the
    core) and a ``StaticTokenVerifier`` behind a ``RemoteAuthProvider``; the protected
    resource metadata names the authorization servers, and the tools see the caller."""
    from oxmcp.fastmcp.server.auth import RemoteAuthProvider
    from oxmcp.fastmcp.server.auth.providers.jwt import JWTVerifier as FastMCPJWTVerifier
    from oxmcp.fastmcp.server.auth.providers.jwt import StaticTokenVerifier

    with authorization_server() as metadata:
        jwt = FastMCPJWTVerifier(
            jwks_uri=metadata["jwks_uri"], issuer=metadata["issuer"], required_scopes=["notes:read"]
        )
        async with await fastmcp_notes(jwt).start_http(port=0) as http:
            metadata_url = http.url.replace("/mcp", "/.well-known/oauth-protected-resource/mcp")
            document = await asyncio.to_thread(get_json, metadata_url)
            assert document["authorization_servers"] == [metadata["issuer"]]
            status, challenge = await asyncio.to_thread(refusal, http.url)
            assert status == 401 and 'scope="notes:read"' in challenge
            token = await service_token(metadata, http.url, "notes:read")
            assert (await jwt.verify_token(token)) is not None and (await jwt.verify_token("forged")) is None
            async with Client.http(http.url, bearer_token=token) as client:
                for tool in ("whoami", "whoami_later"):
                    assert text(await client.call_tool(tool)) == "svc notes:read"
                # auth=require_scopes(...): the core asks for the scope the tool needs.
                with pytest.raises(McpError, match="insufficient_scope"):
                    await client.call_tool("write_note", {"text": "x"})
            writer = await service_token(metadata, http.url, "notes:read notes:write")
            async with Client.http(http.url, bearer_token=writer) as client:
                assert text(await client.call_tool("write_note", {"text": "x"})) == "written: x"

    tokens = {"dev-token": {"client_id": "dev", "scopes": ["notes:read"]}}
    remote = RemoteAuthProvider(
        token_verifier=StaticTokenVerifier(tokens),
        authorization_servers=["https://as.example"],
        base_url="https://notes.example",
    )
    assert remote.as_resource_server()[1]["resource_url"] == "https://notes.example/mcp"
    remote.base_url = None
    async with await fastmcp_notes(remote).start_http(port=0) as http:
        document = await asyncio.to_thread(
            get_json, http.url.replace("/mcp", "/.well-known/oauth-protected-resource/mcp")
        )
        assert document["authorization_servers"] == ["https://as.example"]
        assert (await asyncio.to_thread(refusal, http.url, "guess"))[0] == 401
        async with Client.http(http.url, bearer_token="dev-token") as client:
            assert text(await client.call_tool("whoami_later")) == "dev notes:read"
    async with Client(fastmcp_notes(remote)) as client:
        assert text(await client.call_tool("whoami")) == "nobody"
    with pytest.raises(ValueError, match="jwks_uri"):
        FastMCPJWTVerifier(public_key="-----BEGIN PUBLIC KEY-----", issuer="https://as.example")
    with pytest.raises(TypeError, match="require_scopes"):
        fastmcp_notes(None).tool(auth=lambda context: True)(lambda: "x")


@pytest.mark.parametrize("era", ERAS)
async def test_fastmcp_sessions_are_kept_by_caller(era: str) -> None:
    """FastMCP's session state over HTTP with tokens: ``session: UserSession`` is each
    caller's own bucket, kept across calls (in the 2026-07-28 era too, whose requests stand
    alone), and a session ``create_session`` made for one caller does not resolve for
    another (the same words as an id never made)."""
    from oxmcp.fastmcp import FastMCP
    from oxmcp.fastmcp.server.auth import RemoteAuthProvider
    from oxmcp.fastmcp.server.auth.providers.jwt import StaticTokenVerifier
    from oxmcp.fastmcp.server.dependencies import get_session
    from oxmcp.fastmcp.server.sessions import SessionProvider

    tokens = {"ada": {"client_id": "ada", "scopes": []}, "bob": {"client_id": "bob", "scopes": []}}
    verifier = StaticTokenVerifier(tokens)
    provider = RemoteAuthProvider(token_verifier=verifier, authorization_servers=["https://as.example"], base_url=None)
    mcp = FastMCP("facts", auth=provider)
    mcp.add_provider(SessionProvider())

    @mcp.tool
    async def remember(fact: str, session: UserSession) -> list[str]:
        facts: list[str] = await session.get("facts", default=[])
        await session.set("facts", [*facts, fact])
        return [*facts, fact]

    @mcp.tool
    async def note(text: str, session_id: SessionId) -> str:
        session = await get_session(session_id)
        await session.set("note", text)
        return f"{session.id == session_id}"

    async with await mcp.start_http(port=0) as http:
        async with (
            Client.http(http.url, bearer_token="ada", era=era) as ada,
            Client.http(http.url, bearer_token="bob", era=era) as bob,
        ):
            for fact in ("a", "b"):
                await ada.call_tool("remember", {"fact": fact})
            assert (await bob.call_tool("remember", {"fact": "z"})).structured_content == {"result": ["z"]}
            assert (await ada.call_tool("remember", {"fact": "c"})).structured_content == {"result": ["a", "b", "c"]}
            made = text(await ada.call_tool("create_session"))
            assert text(await ada.call_tool("note", {"text": "x", "session_id": made})) == "True"
            refused = await bob.call_tool("note", {"text": "y", "session_id": made})
            assert refused.is_error and text(refused) == "Invalid or unknown session."
            assert text(await ada.call_tool("end_session", {"session_id": made})) == "session ended"
            assert (await ada.call_tool("note", {"text": "x", "session_id": made})).is_error


async def test_a_fastmcp_server_accepts_the_tokens_its_debug_verifier_validates() -> None:
    """FastMCP's ``DebugTokenVerifier``: a token its ``validate`` (here a coroutine
    function) accepts calls as its ``client_id`` with its ``scopes``; one it refuses, raises
    for, or a blank one is refused with a 401."""
    from oxmcp.fastmcp.server.auth import RemoteAuthProvider
    from oxmcp.fastmcp.server.auth.providers.debug import DebugTokenVerifier

    async def validate(token: str) -> bool:
        if token == "broken":
            raise RuntimeError("the token store is down")
        return token.startswith("valid-")

    verifier = DebugTokenVerifier(validate=validate, client_id="dev", scopes=["notes:read"])
    remote = RemoteAuthProvider(
        token_verifier=verifier, authorization_servers=["https://as.example"], base_url="https://notes.example"
    )
    # The endpoint's own URL is its resource (the port is picked when it starts).
    remote.base_url = None
    async with await fastmcp_notes(remote).start_http(port=0) as http:
        async with Client.http(http.url, bearer_token="valid-1") as client:
            assert text(await client.call_tool("whoami_later")) == "dev notes:read"
        for refused in ("nope", "broken"):
            assert (await asyncio.to_thread(refusal, http.url, refused))[0] == 401
    assert await DebugTokenVerifier().verify_token("anything") is not None
    assert await DebugTokenVerifier().verify_token("  ") is None


async def test_a_fastmcp_server_introspects_opaque_tokens() -> None:
    """FastMCP's ``IntrospectionTokenVerifier`` behind a ``RemoteAuthProvider`` that names
    the authorization server: active tokens granting the required scopes pass (checked in
    the core), others are refused; with an ``audience``, a token must name it (checked by
    the provider)."""
    from oxmcp.fastmcp.server.auth import RemoteAuthProvider
    from oxmcp.fastmcp.server.auth.providers.introspection import IntrospectionTokenVerifier

    def served(verifier: IntrospectionTokenVerifier, issuer: str) -> Any:
        remote = RemoteAuthProvider(token_verifier=verifier, authorization_servers=[issuer], base_url="http://x")
        # The endpoint's own URL is its resource (the port is picked when it starts).
        remote.base_url = None
        return fastmcp_notes(remote)

    with authorization_server(ACCESS_TOKEN_FORMAT="opaque") as metadata:
        settings: dict[str, Any] = {
            "introspection_url": metadata["introspection_endpoint"],
            "client_id": "svc",
            "client_secret": "svc-secret",
            "required_scopes": ["notes:read"],
        }
        introspected = IntrospectionTokenVerifier(**settings)
        async with await served(introspected, metadata["issuer"]).start_http(port=0) as http:
            reader = await service_token(metadata, http.url, "notes:read")
            caller = await introspected.verify_token(reader)
            assert caller is not None and caller.client_id == "svc" and caller.resource == http.url
            assert await introspected.verify_token("not-a-token") is None
            async with Client.http(http.url, bearer_token=reader) as client:
                assert text(await client.call_tool("whoami_later")) == "svc notes:read"
            assert (await asyncio.to_thread(refusal, http.url, "not-a-token"))[0] == 401

            elsewhere = IntrospectionTokenVerifier(**settings, audience="https://elsewhere.example/mcp")
            assert await elsewhere.verify_token(reader) is None
            meant = IntrospectionTokenVerifier(**settings, audience=http.url, client_auth_method="client_secret_post")
            assert await meant.verify_token(reader) is not None
        async with await served(elsewhere, metadata["issuer"]).start_http(port=0) as http:
            token = await service_token(metadata, http.url, "notes:read")
            assert (await asyncio.to_thread(refusal, http.url, token))[0] == 401
    with pytest.raises(ValueError, match="client_auth_method"):
        IntrospectionTokenVerifier(**settings, client_auth_method="private_key_jwt")  # type: ignore[arg-type]


async def test_a_fastmcp_servers_auth_middleware_asks_its_scopes_of_every_component() -> None:
    """FastMCP's ``AuthMiddleware``: ``require_scopes`` asked of every tool, ``restrict_tag``
    of the tools so tagged; each caller is refused what its token does not grant."""
    from oxmcp.fastmcp import FastMCP
    from oxmcp.fastmcp.server.auth import RemoteAuthProvider, require_scopes, restrict_tag
    from oxmcp.fastmcp.server.auth.providers.jwt import StaticTokenVerifier
    from oxmcp.fastmcp.server.middleware import AuthMiddleware

    tokens = {
        "reader": {"client_id": "r", "scopes": ["notes:read"]},
        "admin": {"client_id": "a", "scopes": ["notes:read", "notes:admin"]},
        "guest": {"client_id": "g", "scopes": []},
    }
    provider = RemoteAuthProvider(
        token_verifier=StaticTokenVerifier(tokens), authorization_servers=["https://as.example"], base_url=None
    )
    checks = [require_scopes("notes:read"), restrict_tag("admin", scopes=["notes:admin"])]
    mcp = FastMCP("notes", auth=provider, middleware=[AuthMiddleware(auth=checks)])

    @mcp.tool
    def read() -> str:
        return "notes"

    @mcp.tool(tags={"admin"})
    def purge() -> str:
        return "purged"

    async with await mcp.start_http(port=0) as http:
        async with Client.http(http.url, bearer_token="reader") as client:
            assert text(await client.call_tool("read")) == "notes"
            with pytest.raises(McpError, match="insufficient_scope"):
                await client.call_tool("purge")
        async with Client.http(http.url, bearer_token="admin") as client:
            assert text(await client.call_tool("purge")) == "purged"
        async with Client.http(http.url, bearer_token="guest") as client:
            with pytest.raises(McpError, match="insufficient_scope"):
                await client.call_tool("read")
    # Over stdio and in process nothing is asked, as FastMCP skips its checks there.
    async with Client(mcp) as client:
        assert text(await client.call_tool("purge")) == "purged"
    with pytest.raises(TypeError, match="restrict_tag"):
        AuthMiddleware(auth=lambda context: True)
    with pytest.raises(RuntimeError, match="before registering"):
        mcp.add_middleware(AuthMiddleware(auth=require_scopes("notes:read")))


async def test_a_fastmcp_client_signs_in_as_its_auth_says() -> None:
    """A client written with FastMCP, its imports changed: a machine client
    (``ClientCredentialsOAuthProvider``) and a bearer token given as the client's ``auth``."""
    from oxmcp.fastmcp import Client as FastMCPClient
    from oxmcp.fastmcp.client.auth import BearerAuth, ClientCredentialsOAuthProvider
    from oxmcp.fastmcp.client.auth import OAuth as FastMCPOAuth
    from oxmcp.fastmcp.client.transports import StreamableHttpTransport

    with authorization_server() as metadata:
        verifier = JWTVerifier(jwks_uri=metadata["jwks_uri"], issuer=metadata["issuer"])
        async with protected(verifier) as http:
            machine = ClientCredentialsOAuthProvider(
                client_id="svc", client_secret="svc-secret", scopes=["notes:read"], issuer=metadata["issuer"]
            )
            async with FastMCPClient(http.url, auth=machine) as client:
                assert text(await client.call_tool("whoami")) == "svc notes:read"
            token = await service_token(metadata, http.url, "notes:read")
            for auth in (token, BearerAuth(token)):
                async with FastMCPClient(StreamableHttpTransport(http.url, auth=auth)) as client:
                    assert text(await client.call_tool("whoami")) == "svc notes:read"
    with pytest.raises(ValueError, match="issuer="):
        ClientCredentialsOAuthProvider(client_id="svc", client_secret="s")
    with pytest.raises(ValueError, match="token_storage"):
        FastMCPOAuth(token_storage=object())
    with pytest.raises(ValueError, match="over HTTP"):
        FastMCPClient("server.py", auth="token")


async def test_a_machine_client_uses_client_credentials() -> None:
    with authorization_server() as metadata:
        verifier = JWTVerifier(jwks_uri=metadata["jwks_uri"], issuer=metadata["issuer"])
        async with protected(verifier) as http:
            oauth = OAuth.client_credentials(issuer=metadata["issuer"], client_id="svc", client_secret="svc-secret")
            for era in ERAS:
                async with Client.http(http.url, auth=oauth, era=era) as client:
                    assert text(await client.call_tool("whoami")) == "svc notes:read"
            # Its credentials go to no other authorization server.
            stranger = OAuth.client_credentials(issuer="https://other.example", client_id="svc", client_secret="s")
            with pytest.raises(McpError, match="not one this client is registered with"):
                async with Client.http(http.url, auth=stranger) as client:
                    await client.call_tool("whoami")
    with pytest.raises(ValueError, match="redirect_uri"):
        OAuth("app", authorize=lambda url: url)
