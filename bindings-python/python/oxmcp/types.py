"""The protocol's wire types as pydantic models.

Attributes are snake_case (``result.structured_content``); the wire names (camelCase,
as the official SDK spells them: ``result.structuredContent``) work as aliases, both to
read attributes and to build models.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

Role = Literal["user", "assistant"]
#: How severe a log message is, least first.
LoggingLevel = Literal["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"]
_CAMEL_HUMP = re.compile(r"(?<=[a-z0-9])([A-Z])")


class WireModel(BaseModel):
    """Base of every wire type: camelCase on the wire, snake_case in Python, extra fields kept.

    Returned from a handler, a model whose class sets ``__mcp_kind__`` (content, resource
    contents, a message, a complete result) is sent as what it is; any other is data.
    """

    model_config = ConfigDict(
        alias_generator=to_camel,
        validate_by_name=True,
        validate_by_alias=True,
        serialize_by_alias=True,
        extra="allow",
        defer_build=True,
    )

    meta: dict[str, Any] | None = Field(default=None, alias="_meta", repr=False)

    def to_wire(self) -> dict[str, Any]:
        """The JSON object as sent on the wire."""
        return self.model_dump(mode="json", by_alias=True, exclude_none=True)

    def __getattr__(self, name: str) -> Any:
        snake = _CAMEL_HUMP.sub(r"_\1", name).lower()
        if snake != name and snake in type(self).model_fields:
            return getattr(self, snake)
        return super().__getattr__(name)  # type: ignore[misc]


class Annotations(WireModel):
    """Hints on how a client should use an object."""

    audience: list[Role] | None = None
    priority: float | None = None
    last_modified: str | None = None


class TextContent(WireModel):
    """Text."""

    __mcp_kind__: ClassVar[str] = "content"

    type: Literal["text"] = "text"
    text: str
    annotations: Annotations | None = None


class ImageContent(WireModel):
    """An image: base64 data and its MIME type."""

    __mcp_kind__: ClassVar[str] = "content"

    type: Literal["image"] = "image"
    data: str
    mime_type: str
    annotations: Annotations | None = None


class AudioContent(WireModel):
    """A sound: base64 data and its MIME type."""

    __mcp_kind__: ClassVar[str] = "content"

    type: Literal["audio"] = "audio"
    data: str
    mime_type: str
    annotations: Annotations | None = None


class TextResourceContents(WireModel):
    """A text resource's contents."""

    __mcp_kind__: ClassVar[str] = "contents"

    uri: str
    mime_type: str | None = None
    text: str


class BlobResourceContents(WireModel):
    """A binary resource's contents, base64-encoded."""

    __mcp_kind__: ClassVar[str] = "contents"

    uri: str
    mime_type: str | None = None
    blob: str


ResourceContents = TextResourceContents | BlobResourceContents


class ResourceLink(WireModel):
    """A link to a resource the client can read."""

    __mcp_kind__: ClassVar[str] = "content"

    type: Literal["resource_link"] = "resource_link"
    uri: str
    name: str
    title: str | None = None
    description: str | None = None
    mime_type: str | None = None
    size: int | None = None
    annotations: Annotations | None = None


class EmbeddedResource(WireModel):
    """A resource's contents, embedded in a result."""

    __mcp_kind__: ClassVar[str] = "content"

    type: Literal["resource"] = "resource"
    resource: ResourceContents
    annotations: Annotations | None = None


ContentBlock = Annotated[
    TextContent | ImageContent | AudioContent | ResourceLink | EmbeddedResource,
    Field(discriminator="type"),
]


class ToolAnnotations(WireModel):
    """Hints about a tool's behaviour."""

    title: str | None = None
    read_only_hint: bool | None = None
    destructive_hint: bool | None = None
    idempotent_hint: bool | None = None
    open_world_hint: bool | None = None


class Implementation(WireModel):
    """Who a client or server is."""

    name: str
    version: str
    title: str | None = None
    description: str | None = None
    website_url: str | None = None
    icons: list[dict[str, Any]] | None = None


class Tool(WireModel):
    """A tool the server offers."""

    name: str
    title: str | None = None
    description: str | None = None
    input_schema: dict[str, Any]
    output_schema: dict[str, Any] | None = None
    annotations: ToolAnnotations | None = None
    icons: list[dict[str, Any]] | None = None


class Resource(WireModel):
    """A static resource the server offers."""

    uri: str
    name: str
    title: str | None = None
    description: str | None = None
    mime_type: str | None = None
    size: int | None = None
    annotations: Annotations | None = None
    icons: list[dict[str, Any]] | None = None


class ResourceTemplate(WireModel):
    """A family of resources named by an RFC 6570 URI template."""

    uri_template: str
    name: str
    title: str | None = None
    description: str | None = None
    mime_type: str | None = None
    annotations: Annotations | None = None
    icons: list[dict[str, Any]] | None = None


class PromptArgument(WireModel):
    """An argument of a prompt."""

    name: str
    title: str | None = None
    description: str | None = None
    required: bool | None = None


class Prompt(WireModel):
    """A prompt the server offers."""

    name: str
    title: str | None = None
    description: str | None = None
    arguments: list[PromptArgument] | None = None
    icons: list[dict[str, Any]] | None = None


class NotificationParams(WireModel):
    """The params of a notification that has none but ``_meta``, as a low-level server's
    ``on_roots_list_changed`` gets them."""


class PaginatedRequestParams(WireModel):
    """The params of a list request: the cursor the previous page gave (none for the first)."""

    cursor: str | None = None


class InitializeRequestParams(WireModel):
    """The params of the legacy handshake's ``initialize``: the version the client asks for,
    its capabilities and who it is."""

    protocol_version: str
    capabilities: dict[str, Any] = Field(default_factory=dict)
    client_info: Implementation


class InitializeRequest(WireModel):
    """The legacy handshake's ``initialize`` request, as FastMCP's ``on_initialize`` gets it."""

    method: Literal["initialize"] = "initialize"
    params: InitializeRequestParams


class InitializeResult(WireModel):
    """The server's answer to ``initialize``: the version agreed on, its capabilities, who it
    is and its instructions."""

    __mcp_kind__: ClassVar[str] = "result"

    protocol_version: str
    capabilities: dict[str, Any] = Field(default_factory=dict)
    server_info: Implementation
    instructions: str | None = None


class CallToolRequestParams(WireModel):
    """The params of ``tools/call``, as a low-level server's ``on_call_tool`` gets them."""

    name: str
    arguments: dict[str, Any] | None = None


class GetPromptRequestParams(WireModel):
    """The params of ``prompts/get``, as a low-level server's ``on_get_prompt`` gets them."""

    name: str
    arguments: dict[str, str] | None = None


class ReadResourceRequestParams(WireModel):
    """The params of ``resources/read``, as a low-level server's ``on_read_resource`` gets them."""

    uri: str


class SubscribeRequestParams(WireModel):
    """The params of ``resources/subscribe``, as a low-level server's ``on_subscribe_resource``
    gets them."""

    uri: str


class UnsubscribeRequestParams(WireModel):
    """The params of ``resources/unsubscribe``, as a low-level server's
    ``on_unsubscribe_resource`` gets them."""

    uri: str


class SetLevelRequestParams(WireModel):
    """The params of ``logging/setLevel``, as a low-level server's ``on_set_logging_level``
    gets them."""

    level: LoggingLevel


class PaginatedResult(WireModel):
    """One page of a list: ``next_cursor`` names the next page (none after the last); in
    2026-07-28, ``ttl_ms`` and ``cache_scope`` say how long, and for whom, it may be kept."""

    next_cursor: str | None = None
    ttl_ms: int | None = None
    cache_scope: Literal["public", "private"] | None = None


class ListToolsResult(PaginatedResult):
    """A page of tools."""

    tools: list[Tool]


class ListResourcesResult(PaginatedResult):
    """A page of static resources."""

    resources: list[Resource]


class ListResourceTemplatesResult(PaginatedResult):
    """A page of resource templates."""

    resource_templates: list[ResourceTemplate]


class ListPromptsResult(PaginatedResult):
    """A page of prompts."""

    prompts: list[Prompt]


class PromptMessage(WireModel):
    """One message of a rendered prompt."""

    __mcp_kind__: ClassVar[str] = "message"

    role: Role
    content: ContentBlock


class CallToolResult(WireModel):
    """The result of a tool call; return one from a tool to control every field."""

    __mcp_kind__: ClassVar[str] = "result"

    content: list[ContentBlock] = Field(default_factory=list)
    structured_content: Any = None
    is_error: bool | None = None


TaskStatus = Literal["working", "input_required", "completed", "failed", "cancelled"]


class Task(WireModel):
    """A tool call the server runs in the background, as ``tasks/get`` shows it.
    ``ttl_ms`` and ``poll_interval_ms`` read either revision's names (2025-11-25 says
    ``ttl`` and ``pollInterval``)."""

    task_id: str
    status: TaskStatus
    status_message: str | None = None
    created_at: str
    last_updated_at: str
    ttl_ms: int | None = None
    poll_interval_ms: int | None = None


class ReadResourceResult(WireModel):
    """The contents of a resource."""

    __mcp_kind__: ClassVar[str] = "result"

    contents: list[ResourceContents]


class GetPromptResult(WireModel):
    """A rendered prompt."""

    __mcp_kind__: ClassVar[str] = "result"

    description: str | None = None
    messages: list[PromptMessage]


class Completion(WireModel):
    """Suggested values for an argument."""

    values: list[str]
    total: int | None = None
    has_more: bool | None = None


class PromptReference(WireModel):
    """The prompt whose argument a completion request is about."""

    type: Literal["ref/prompt"] = "ref/prompt"
    name: str
    title: str | None = None


class ResourceTemplateReference(WireModel):
    """The resource template whose variable a completion request is about."""

    type: Literal["ref/resource"] = "ref/resource"
    uri: str


class CompletionArgument(WireModel):
    """The argument being completed, and what the user typed so far."""

    name: str
    value: str


class CompletionContext(WireModel):
    """The values of the other arguments, when the client gives them."""

    arguments: dict[str, str] | None = None


class CompleteRequestParams(WireModel):
    """The params of ``completion/complete``, as a low-level server's ``on_completion`` gets
    them."""

    ref: Annotated[PromptReference | ResourceTemplateReference, Field(discriminator="type")]
    argument: CompletionArgument
    context: CompletionContext | None = None


class CompleteResult(WireModel):
    """The answer to ``completion/complete``."""

    __mcp_kind__: ClassVar[str] = "result"

    completion: Completion


class SamplingMessage(WireModel):
    """One message of a sampling conversation."""

    role: Role
    content: Any


class CreateMessageRequest(WireModel):
    """What a server asks of the client's model (``sampling/createMessage`` params)."""

    messages: list[SamplingMessage]
    max_tokens: int
    system_prompt: str | None = None
    temperature: float | None = None
    stop_sequences: list[str] | None = None
    model_preferences: dict[str, Any] | None = None
    include_context: str | None = None
    metadata: dict[str, Any] | None = None
    tools: list[Tool] | None = None
    """The tools the model may use (sampling with tools)."""
    tool_choice: dict[str, Any] | None = None
    """``{"mode": "auto" | "required" | "none"}``."""


class CreateMessageResult(WireModel):
    """The client's model's answer."""

    role: Role
    content: Any
    model: str
    stop_reason: str | None = None


class ElicitRequest(WireModel):
    """What a server asks of the client's user (``elicitation/create`` params)."""

    message: str
    requested_schema: dict[str, Any] | None = None
    mode: str | None = None
    url: str | None = None
    elicitation_id: str | None = None


class ElicitResult(WireModel):
    """What the user did: ``accept`` (with ``content``), ``decline`` or ``cancel``."""

    action: Literal["accept", "decline", "cancel"]
    content: dict[str, Any] | None = None


class LoggingMessageNotificationParams(WireModel):
    """A log message from the server (``notifications/message`` params)."""

    level: LoggingLevel
    logger: str | None = None
    data: Any = None


class ProgressNotificationParams(WireModel):
    """Progress on a request (``notifications/progress`` params): how far it got of the
    ``total`` (if known), with a ``message``, for the request whose ``progressToken`` it
    names; what a low-level server's ``on_progress`` gets."""

    progress_token: str | int
    progress: float
    total: float | None = None
    message: str | None = None


class Root(WireModel):
    """A root the client exposes (a directory or other URI)."""

    uri: str
    name: str | None = None


class ListRootsResult(WireModel):
    """The client's roots, as ``roots/list`` answers."""

    roots: list[Root]


class SkillResource(WireModel):
    """One file of a skill: its URI, and the size and digest its bytes must have."""

    uri: str
    digest: str
    size: int


class Skill(WireModel):
    """A skill a server offers (the skills extension): the URI of its ``SKILL.md``, the
    YAML front matter of that file, and every file of the skill (or ``"dynamic"``)."""

    uri: str
    frontmatter: dict[str, Any]
    resources: list[SkillResource] | Literal["dynamic"]

    @property
    def name(self) -> str | None:
        """The front matter's ``name``."""
        name = self.frontmatter.get("name")
        return name if isinstance(name, str) else None

    @property
    def description(self) -> str | None:
        """The front matter's ``description``."""
        description = self.frontmatter.get("description")
        return description if isinstance(description, str) else None
