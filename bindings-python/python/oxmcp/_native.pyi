"""The compiled core binding. Private: use the `oxmcp` package."""

from collections.abc import Awaitable, Callable, Iterable, Sequence
from os import PathLike
from typing import Any, Literal, final

__all__ = [
    "CONNECTION_CLOSED",
    "HEADER_MISMATCH",
    "INTERNAL_ERROR",
    "INVALID_PARAMS",
    "INVALID_REQUEST",
    "METHOD_NOT_FOUND",
    "MISSING_REQUIRED_CLIENT_CAPABILITY",
    "PARSE_ERROR",
    "PROTOCOL_REQUESTS",
    "PROTOCOL_VERSIONS",
    "REQUEST_TIMEOUT",
    "RESOURCE_NOT_FOUND",
    "UNSUPPORTED_PROTOCOL_VERSION",
    "URL_ELICITATION_REQUIRED",
    "Client",
    "ClientConfig",
    "Context",
    "HttpConfig",
    "HttpEndpoint",
    "HttpExchange",
    "HttpServer",
    "InputRequired",
    "IntrospectionVerifier",
    "JwtVerifier",
    "NextCall",
    "NotifiedCall",
    "OAuth",
    "PendingCall",
    "PendingInput",
    "Reporting",
    "Server",
    "StartBatch",
    "Subscription",
    "ToolTask",
    "after_fork_in_child",
    "name_from",
    "name_in",
    "request_id_jag",
    "run_cli",
    "run_to_end",
    "runs_in_one_step",
    "shutdown",
    "skill_entry",
    "uri_from",
    "uri_in",
    "uri_template_match",
    "uri_template_variables",
]

_Json = Any
_OnProgress = Callable[[float, float | None, str | None], None]

# The core's error codes (`oxmcp::protocol::code`).
PARSE_ERROR: int
INVALID_REQUEST: int
METHOD_NOT_FOUND: int
INVALID_PARAMS: int
INTERNAL_ERROR: int
RESOURCE_NOT_FOUND: int
URL_ELICITATION_REQUIRED: int
HEADER_MISMATCH: int
MISSING_REQUIRED_CLIENT_CAPABILITY: int
UNSUPPORTED_PROTOCOL_VERSION: int
#: Every protocol revision the core speaks, newest first, with its era.
PROTOCOL_VERSIONS: dict[str, Literal["legacy", "modern"]]
#: The requests the protocol defines that a server answers (the core answers them).
PROTOCOL_REQUESTS: list[str]
CONNECTION_CLOSED: int
REQUEST_TIMEOUT: int

def run_to_end(coroutine: Any) -> Any:
    """What a coroutine whose code never awaits returns in its one step."""

def runs_in_one_step(callable: Any) -> bool:
    """Whether `callable` is a coroutine function that never waits (no ``await``)."""

def skill_entry(files: list[tuple[str, bytes]]) -> dict[str, Any]:
    """The skills extension's entry of the skill of ``files``, checked as a served skill is."""

def uri_template_variables(template: str) -> list[str]:
    """The variable names of an RFC 6570 URI template (none for a plain URI)."""

def name_in(namespace: str, name: str) -> str:
    """A tool's or prompt's name under a namespace, as a mounted server's are."""

def uri_in(namespace: str, uri: str) -> str:
    """A resource's or template's URI under a namespace, as a mounted server's are."""

def uri_template_match(template: str, uri: str) -> dict[str, str] | None:
    """The values ``uri`` gives the variables of an RFC 6570 URI template, or None."""

def name_from(namespace: str, name: str) -> str | None:
    """A tool's or prompt's name before a namespace was put on it, or None when not under it."""

def uri_from(namespace: str, uri: str) -> str | None:
    """A resource's or template's URI before a namespace was put on it, or None when not under it."""

# An async function (run on the loop) or a plain one (run on a worker thread).
_Handler = Callable[..., Any]

class InputRequired(BaseException):
    """Ends this run of a handler so that the client can supply input (multi round-trip,
    2026-07-28). Raised by Context methods; let it propagate."""

@final
class PendingInput:
    """The core's answer carried by an InputRequired."""

@final
class NextCall:
    """The method of an intercepted request: runs it, with the params as sent or others."""

    def __call__(self, params: _Json | None = None) -> Awaitable[_Json]: ...

@final
class NotifiedCall:
    """What the server does with an intercepted notification: its handler."""

    def run(self) -> Awaitable[None]: ...

@final
class PendingCall:
    """One call of a Python handler, from the loop's side."""

    def cancel(self) -> None: ...

@final
class Reporting:
    """A handler's coroutine as its task runs it, answering the call in its last step."""

    def __await__(self) -> Reporting: ...
    def __iter__(self) -> Reporting: ...
    def __next__(self) -> Any: ...
    def send(self, value: Any) -> Any: ...
    def throw(self, kind: Any, value: Any = None, traceback: Any = None) -> Any: ...
    def close(self) -> None: ...

@final
class StartBatch:
    """Calls of Python handlers on their way to the loop, which starts them."""

    def __call__(self, *args: Any, **kwargs: Any) -> None: ...

@final
class Context:
    """One request's context."""

    @property
    def request_id(self) -> int | str | None: ...
    @property
    def request_key(self) -> int: ...
    @property
    def session_id(self) -> str | None: ...
    @property
    def transport(self) -> Literal["stdio", "streamable-http", "sse", "memory", "other"]: ...
    @property
    def protocol_version(self) -> str: ...
    @property
    def era(self) -> Literal["legacy", "modern"]: ...
    @property
    def client_info(self) -> dict[str, Any] | None: ...
    @property
    def client_capabilities(self) -> dict[str, Any]: ...
    @property
    def access_token(self) -> dict[str, Any] | None: ...
    @property
    def http_headers(self) -> dict[str, str] | None: ...
    @property
    def http_target(self) -> tuple[str, tuple[str, int] | None] | None: ...
    @property
    def meta(self) -> dict[str, Any] | None: ...
    @property
    def input_responses(self) -> dict[str, Any] | None: ...
    @property
    def request_state(self) -> str | None: ...
    def input_required(self, requests: dict[str, Any], state: str | None = None) -> InputRequired: ...
    @property
    def cancelled(self) -> bool: ...
    def progress(self, progress: float, total: float | None = None, message: str | None = None) -> Awaitable[None]: ...
    def close_stream(self) -> Awaitable[None]: ...
    def notify_list_changed(self, kind: str) -> None: ...
    def notify_session_list_changed(self, kind: str) -> Awaitable[None]: ...
    def log(self, level: str, data: _Json, logger: str | None = None) -> Awaitable[None]: ...
    def task_status(self, message: str) -> Awaitable[None]: ...
    def begin_task(self) -> Awaitable[None]: ...
    @property
    def is_task(self) -> bool: ...
    def elicit(self, params: dict[str, Any]) -> Awaitable[dict[str, Any]]: ...
    def sample(self, params: dict[str, Any]) -> Awaitable[dict[str, Any]]: ...
    def read_resource(self, uri: str) -> Awaitable[_Json]: ...
    def get_prompt(self, name: str, arguments: dict[str, str] | None = None) -> Awaitable[dict[str, Any]]: ...
    def list_roots(self) -> Awaitable[dict[str, Any]]: ...
    def ping(self) -> Awaitable[None]: ...
    def call_tool(self, name: str, arguments: dict[str, Any] | None = None) -> Awaitable[dict[str, Any]]: ...
    def notify_elicitation_complete(self, elicitation_id: str) -> Awaitable[None]: ...

@final
class Server:
    """An MCP server whose handlers are Python callables."""

    def __new__(
        cls,
        info: dict[str, Any],
        instructions: str | None = None,
        page_size: int | None = None,
        max_in_flight: int | None = None,
        max_subscriptions: int | None = None,
        end_grace: float | None = None,
        client_request_timeout: float | None = None,
        mask_error_details: bool | None = None,
        auth: JwtVerifier | IntrospectionVerifier | Callable[[str], Awaitable[dict[str, Any] | None]] | None = None,
        task_store: str | PathLike[str] | None = None,
        task_ttl: float | None = None,
        task_poll_interval: float | None = None,
        max_tasks: int | None = None,
        store: str | None = None,
        skills: str | PathLike[str] | None = None,
        skill_listing: Literal["entries", "files"] = "entries",
        skill_meta: dict[str, Any] | None = None,
        declare: list[str] | None = None,
        unknown_tool_error: str | None = None,
        unknown_resource_error: str | None = None,
        unknown_prompt_error: str | None = None,
        cache_ttl: float | None = None,
        cache_scope: str | None = None,
        request_state_keys: list[bytes] | None = None,
        request_state_audience: str | None = None,
        request_state_ttl: float | None = None,
        experimental: dict[str, dict[str, Any]] | None = None,
    ) -> Server: ...
    def add_tool(
        self,
        definition: dict[str, Any],
        handler: _Handler,
        output: Literal["content", "structured", "wrapped"] = "content",
        scopes: list[str] | None = None,
        task: Literal["forbidden", "optional", "required"] = "forbidden",
        asks_before_task: bool = False,
        handler_checks_arguments: bool = False,
    ) -> None: ...
    def remove_tool(self, name: str) -> bool: ...
    def add_resource(
        self,
        definition: dict[str, Any],
        handler: _Handler,
        scopes: list[str] | None = None,
        contents_meta: dict[str, Any] | None = None,
    ) -> None: ...
    def add_skills(self, dir: str | PathLike[str]) -> None: ...
    def add_skill(self, path: str, files: list[tuple[str, bytes]]) -> None: ...
    def add_skills_of(self, other: Server, namespace: str | None = None) -> None: ...
    def remove_resource(self, uri: str) -> bool: ...
    def add_resource_template(
        self,
        definition: dict[str, Any],
        handler: _Handler,
        completions: dict[str, _Handler] | None = None,
        scopes: list[str] | None = None,
        contents_meta: dict[str, Any] | None = None,
    ) -> None: ...
    def remove_resource_template(self, uri_template: str) -> bool: ...
    def add_prompt(
        self,
        definition: dict[str, Any],
        handler: _Handler,
        completions: dict[str, _Handler] | None = None,
        scopes: list[str] | None = None,
    ) -> None: ...
    def remove_prompt(self, name: str) -> bool: ...
    def notify_list_changed(self, kind: str) -> None: ...
    def notify_resource_updated(self, uri: str) -> None: ...
    def start_http(self, host: str, port: int, config: HttpConfig) -> Awaitable[HttpServer]: ...
    def serve_stdio(self) -> Awaitable[None]: ...
    def http_endpoint(self, config: HttpConfig) -> HttpEndpoint: ...
    def set_completer(self, complete: Callable[[_Json, Context], Any]) -> None: ...
    def serve_from_catalog(self, method: str, handler: Callable[[Any, Context], Any]) -> None: ...
    def serve_proxies(self, proxies: list[tuple[Client, list[str]]]) -> None: ...
    def add_request_handler(self, method: str, handler: Callable[[_Json, Context], Any]) -> None: ...
    def set_interceptor(
        self,
        interceptor: Callable[[str, _Json, Context, NextCall], Any],
        notified: Callable[[str, _Json, Context, NotifiedCall], Any] | None = None,
        initialize: bool = False,
    ) -> None: ...
    def add_notification_handler(self, method: str, handler: Callable[[_Json, Context], Any]) -> None: ...
    def declare_extension(self, id: str, settings: _Json) -> None: ...

@final
class HttpConfig:
    """Settings of the HTTP endpoint."""

    def __new__(
        cls,
        path: str | None = None,
        allowed_origins: list[str] | None = None,
        allowed_hosts: list[str] | None = None,
        stateless: bool | None = None,
        json_response: bool | None = None,
        session_idle_timeout: float | None = None,
        max_sessions: int | None = None,
        body_limit: int | None = None,
        legacy_sse: bool | None = None,
        cors_origins: list[str] | None = None,
        new_session_timeout: float | None = None,
        header_read_timeout: float | None = None,
        body_read_timeout: float | None = None,
        shutdown_timeout: float | None = None,
        max_connections: int | None = None,
        max_in_flight: int | None = None,
        event_bytes_kept: tuple[int, int] | None = None,
        sse_retry: float | None = None,
        resource_url: str | None = None,
        authorization_servers: list[str] | None = None,
        required_scopes: list[str] | None = None,
        scope_implies: dict[str, list[str]] | None = None,
        list_only_permitted: bool | None = None,
        dpop_nonces: bool | None = None,
        check_audience: bool | None = None,
        verifier: Any = None,
    ) -> HttpConfig: ...
    @property
    def path(self) -> str: ...

@final
class JwtVerifier:
    """JWT access tokens checked with the keys of the issuer's JWKS."""

    def __new__(
        cls, jwks_uri: str, issuer: str, audience: list[str] | None = None, leeway: float | None = None
    ) -> JwtVerifier: ...
    def verify(self, token: str) -> Awaitable[dict[str, Any] | None]: ...

@final
class IntrospectionVerifier:
    """Tokens checked at the authorization server's introspection endpoint."""

    def __new__(
        cls,
        endpoint: str,
        client_id: str,
        client_secret: str,
        issuer: str | None = None,
        client_secret_post: bool = False,
        cache_for: float | None = None,
    ) -> IntrospectionVerifier: ...
    def verify(self, token: str) -> Awaitable[dict[str, Any] | None]: ...

@final
class OAuth:
    """The OAuth client of the HTTP client: the core's provider."""

    def __new__(
        cls,
        grant: str,
        client_name: str,
        *,
        authorize: Callable[[str], Any] | None = None,
        redirect_uri: str | None = None,
        open_browser: Callable[[str], Any] | None = None,
        loopback_port: int = 0,
        issuer: str | None = None,
        client_id: str | None = None,
        client_secret: str | None = None,
        private_key_pem: str | None = None,
        assertion: Callable[[dict[str, Any]], Awaitable[str]] | None = None,
        client_metadata_url: str | None = None,
        token_file: str | PathLike[str] | None = None,
        storage: Any = None,
        dpop: bool = False,
    ) -> OAuth: ...
    @property
    def redirect_uri(self) -> str | None: ...

@final
class HttpServer:
    """A running HTTP listener of a server."""

    @property
    def url(self) -> str: ...
    @property
    def host(self) -> str: ...
    @property
    def port(self) -> int: ...
    def wait(self) -> Awaitable[None]: ...
    def close(self) -> Awaitable[None]: ...

@final
class HttpEndpoint:
    """The endpoint of one server, served by the web app that mounts it."""

    def exchange(
        self,
        method: str,
        path: str,
        headers: Iterable[Sequence[bytes]],
        client: tuple[str, int] | None = None,
    ) -> HttpExchange: ...
    def shutdown(self) -> Awaitable[None]: ...

@final
class HttpExchange:
    """One request on its way through the endpoint."""

    def send_body(self, chunk: bytes) -> Awaitable[bool]: ...
    def end_body(self) -> None: ...
    def response(self) -> Awaitable[tuple[int, list[tuple[bytes, bytes]], list[bytes], bool] | None]: ...
    def send_whole_body(self, body: bytes) -> None: ...
    def next_chunk(self) -> Awaitable[bytes | None]: ...
    def cancel(self) -> None: ...

@final
class ClientConfig:
    """How a client connects."""

    def __new__(
        cls,
        name: str,
        version: str,
        era: str = "auto",
        timeout: float | None = None,
        sampling: _Handler | None = None,
        elicitation: _Handler | None = None,
        roots: _Handler | None = None,
        on_notification: Callable[[str, Any], None] | None = None,
        max_list_pages: int | None = None,
        max_server_requests: int | None = None,
        max_sampling_per_round: int | None = None,
        tasks: bool = True,
        sampling_tools: bool = False,
        elicitation_url: bool = False,
        cache_lists: bool = True,
        max_input_rounds: int | None = None,
    ) -> ClientConfig: ...

@final
class Subscription:
    """An open `subscriptions/listen` stream."""

    @property
    def acknowledged(self) -> dict[str, Any]: ...
    def close(self) -> None: ...

@final
class ToolTask:
    """A tool call the server runs as a task (or answered in place)."""

    @property
    def id(self) -> str | None: ...
    def status(self) -> Awaitable[dict[str, Any] | None]: ...
    def wait(self) -> Awaitable[dict[str, Any] | None]: ...
    def result(self) -> Awaitable[dict[str, Any]]: ...
    def cancel(self) -> Awaitable[None]: ...

@final
class Client:
    """A connection to an MCP server."""

    @staticmethod
    def connect_stdio(
        command: list[str],
        config: ClientConfig,
        env: dict[str, str] | None = None,
        cwd: str | PathLike[str] | None = None,
        quiet: bool = False,
        max_message_size: int | None = None,
    ) -> Awaitable[Client]: ...
    @staticmethod
    def connect_in_process(server: Server, config: ClientConfig) -> Awaitable[Client]: ...
    @staticmethod
    def connect_http(
        url: str,
        config: ClientConfig,
        headers: dict[str, str] | None = None,
        bearer_token: Callable[[], Awaitable[str | None]] | None = None,
        connect_timeout: float | None = None,
        legacy_sse_fallback: bool = True,
        request_timeout: float | None = None,
        max_message_size: int | None = None,
        reconnect: tuple[float, float, int] | None = None,
        auth: OAuth | None = None,
        tls_roots: list[bytes] | None = None,
        tls_insecure: bool = False,
    ) -> Awaitable[Client]: ...
    def server_details(self) -> dict[str, Any]: ...
    def list_tools(self) -> Awaitable[list[dict[str, Any]]]: ...
    def list_resources(self) -> Awaitable[list[dict[str, Any]]]: ...
    def list_resource_templates(self) -> Awaitable[list[dict[str, Any]]]: ...
    def list_prompts(self) -> Awaitable[list[dict[str, Any]]]: ...
    def list_page(
        self, kind: Literal["tools", "resources", "resource_templates", "prompts"], cursor: str | None = None
    ) -> Awaitable[dict[str, Any]]: ...
    def call_tool(
        self,
        name: str,
        arguments: _Json = None,
        timeout: float | None = None,
        on_progress: _OnProgress | None = None,
        meta: dict[str, Any] | None = None,
    ) -> Awaitable[dict[str, Any]]: ...
    def call_tool_as_task(self, name: str, arguments: _Json = None) -> Awaitable[ToolTask]: ...
    def tool_task(self, id: str) -> ToolTask: ...
    def read_resource(
        self,
        uri: str,
        timeout: float | None = None,
        on_progress: _OnProgress | None = None,
        meta: dict[str, Any] | None = None,
    ) -> Awaitable[dict[str, Any]]: ...
    def get_prompt(
        self,
        name: str,
        arguments: dict[str, str] | None = None,
        timeout: float | None = None,
        on_progress: _OnProgress | None = None,
        meta: dict[str, Any] | None = None,
    ) -> Awaitable[dict[str, Any]]: ...
    def complete(
        self, reference: dict[str, Any], argument: str, value: str, context: dict[str, str] | None = None
    ) -> Awaitable[dict[str, Any]]: ...
    def subscribe_resource(self, uri: str) -> Awaitable[None]: ...
    def unsubscribe_resource(self, uri: str) -> Awaitable[None]: ...
    def set_log_level(self, level: str) -> Awaitable[None]: ...
    def ping(self) -> Awaitable[None]: ...
    def send_roots_list_changed(self) -> Awaitable[None]: ...
    def listen(self, filter: dict[str, Any]) -> Awaitable[Subscription]: ...
    def list_skills(self) -> Awaitable[list[dict[str, Any]]]: ...
    def get_skill(self, uri: str) -> Awaitable[dict[str, Any]]: ...
    def load_skill(self, skill: dict[str, Any]) -> Awaitable[str]: ...
    def read_skill_file(self, skill: dict[str, Any], uri: str) -> Awaitable[bytes]: ...
    def request(
        self,
        method: str,
        params: dict[str, Any] | None = None,
        timeout: float | None = None,
        on_progress: _OnProgress | None = None,
    ) -> Awaitable[dict[str, Any]]: ...
    def notify(self, method: str, params: dict[str, Any] | None = None) -> Awaitable[None]: ...
    def closed(self) -> Awaitable[None]: ...
    def close(self) -> Awaitable[None]: ...

def run_cli(argv: list[str]) -> int: ...
def shutdown() -> None:
    """Stops the runtime at interpreter exit."""

def after_fork_in_child() -> None:
    """Forgets the parent's runtime in a forked child."""

def request_id_jag(
    token_endpoint: str,
    client_id: str,
    id_token: str,
    issuer: str,
    resource: str,
    scope: str | None = None,
    client_secret: str | None = None,
) -> Awaitable[str]: ...
