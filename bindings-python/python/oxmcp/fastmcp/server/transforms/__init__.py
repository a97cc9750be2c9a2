"""FastMCP's ``fastmcp.server.transforms``: tools made of a server's prompts and resources,
for clients that only call tools. ``mcp.add_transform(PromptsAsTools(mcp))`` adds
``list_prompts`` and ``get_prompt``; ``ResourcesAsTools(mcp)`` adds ``list_resources`` and
``read_resource``. Each runs what a client's request would (the prompt's or resource's
handler, with the calling tool's context) and answers as FastMCP's do: JSON text, a single
resource's text as it is, bytes in base64.

``Namespace("api")`` serves every component under a namespace (``api_greet``,
``data://api/info``), as mounting does; ``ToolTransform({...})`` changes tools by name as
:class:`~oxmcp.fastmcp.tools.tool_transform.ToolTransformConfig` says; ``VersionFilter``
serves the versions in a range. Each applies to what the server has and will have, those
of mounted servers and providers too, after the transforms before; given to a provider
(``provider.add_transform``), to that provider's components alone.

The search transforms (:mod:`.search`) list a search tool and a tool that calls what it
finds in place of the server's tools; ``CodeMode`` (:mod:`oxmcp.fastmcp.experimental.transforms.code_mode`)
tools that find them and code that calls them. Visibility is the server's ``enable`` and
``disable`` (:mod:`.visibility`). FastMCP's other transforms and transforms of one's own
are not served: ``add_transform`` refuses them."""

from __future__ import annotations

import base64
import json
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any

from .... import _native
from ...._errors import McpError
from ....server._mounting import Kind, Renaming, _Registration
from ....server._mounting import Transform as ComponentTransform
from ...exceptions import NotFoundError, ToolError
from ...server.context import Context
from ...tools.tool_transform import ConfiguredTools, ToolTransformConfig
from ...utilities.versions import VersionSpec
from .._versions import narrowed

if TYPE_CHECKING:
    from ...server.server import FastMCP

#: The descriptions FastMCP gives the tools it makes, which clients list.
_LIST_PROMPTS = (
    "List all available prompts.\n\nReturns JSON with prompt metadata including name, description,\n"
    "and optional arguments."
)
_GET_PROMPT = (
    "Get a prompt by name with optional arguments.\n\nReturns the rendered prompt as JSON with a messages "
    "array.\nArguments should be provided as a dict mapping argument names\nto values."
)
_LIST_RESOURCES = (
    "List all available resources and resource templates.\n\nReturns JSON with resource metadata. Static "
    "resources have a\n'uri' field, while templates have a 'uri_template' field with\nplaceholders like {name}."
)
_READ_RESOURCE = (
    "Read a resource by its URI.\n\nFor static resources, provide the exact URI. For templated\nresources, "
    "provide the URI with template parameters filled in.\n\nReturns the resource content as a string. Binary "
    "content is\nbase64-encoded."
)
#: The resource tools only read.
_READ_ONLY = {"readOnlyHint": True}


#: A tool a transform adds: its description, its function, its annotations.
_Made = tuple[str, Callable[..., Any], dict[str, bool] | None]


class Transform(ABC):
    """What ``mcp.add_transform`` applies to a server: the tools it adds, and which of the
    server's tools stay listed."""

    @abstractmethod
    def _apply(self, server: FastMCP) -> None:
        """Adds this transform's tools to ``server``."""

    def _lists(self, name: str) -> bool:
        """Whether the tool ``name`` stays listed (hidden, it can still be called)."""
        return True

    def _given(self, kind: Kind, served: str) -> str | None:
        """The name (or URI) of what this transform serves as ``served``, before it; None
        when it serves nothing so. Used for a provider's own transforms
        (:meth:`~oxmcp.fastmcp.server.providers.Provider.add_transform`), whose provider is
        asked for a component by the name it gave."""
        return served


class Namespace(Transform):
    """Serves every component under ``prefix``: tools and prompts ``prefix_name``,
    resources and templates ``scheme://prefix/path`` (a URI without ``://`` as it is)."""

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix

    def __repr__(self) -> str:
        return f"Namespace({self.prefix!r})"

    def _apply(self, server: FastMCP) -> None:
        server._components.transform(Renaming(self.prefix))

    def _given(self, kind: Kind, served: str) -> str | None:
        if kind in ("tool", "prompt"):
            return _native.name_from(self.prefix, served)
        return _native.uri_from(self.prefix, served)


class ToolTransform(Transform):
    """Changes the tools named as their :class:`ToolTransformConfig` says (renamed,
    redescribed, their arguments changed); ``enabled=False`` hides one (not listed, and
    answered as unknown, unless the server's visibility rules show it), ``enabled=True``
    shows one an earlier ``ToolTransform`` hid."""

    def __init__(self, transforms: dict[str, ToolTransformConfig]) -> None:
        targets: dict[str, str] = {}
        for original, config in transforms.items():
            target = config.name or original
            if target in targets:
                raise ValueError(
                    f"ToolTransform has duplicate target name {target!r}: "
                    f"both {targets[target]!r} and {original!r} map to it"
                )
            targets[target] = original
        self.transforms = transforms
        #: The name each tool it changes had, by the name it is served as.
        self._originals = targets

    def __repr__(self) -> str:
        names = list(self.transforms)
        if len(names) <= 3:
            return f"ToolTransform({names!r})"
        return f"ToolTransform({names[:3]!r}... +{len(names) - 3} more)"

    def _apply(self, server: FastMCP) -> None:
        server._components.transform(ConfiguredTools(self.transforms))
        if any(not config.enabled for config in self.transforms.values()):
            server._hides_tools()

    def _given(self, kind: Kind, served: str) -> str | None:
        if kind != "tool":
            return served
        if served in self._originals:
            return self._originals[served]
        # A tool renamed is no longer served under its own name.
        return None if served in self.transforms else served


class VersionFilter(Transform):
    """Serves the versions from ``version_gte`` (included) to ``version_lt`` (excluded),
    compared as FastMCP compares them (PEP 440, a leading ``v`` aside, else as text), so
    that one pool of versioned components makes several API surfaces: of each name the
    highest of them is listed, with them alone as its versions, and a request for another
    version is answered as for an unknown one. Unversioned components are served unless
    ``include_unversioned=False``."""

    def __init__(
        self, *, version_gte: str | None = None, version_lt: str | None = None, include_unversioned: bool = True
    ) -> None:
        if version_gte is None and version_lt is None:
            raise ValueError("At least one of version_gte or version_lt must be specified")
        self.version_gte = version_gte
        self.version_lt = version_lt
        self.include_unversioned = include_unversioned

    def __repr__(self) -> str:
        parts = [f"version_gte={self.version_gte!r}"] if self.version_gte else []
        parts += [f"version_lt={self.version_lt!r}"] if self.version_lt else []
        parts += [] if self.include_unversioned else ["include_unversioned=False"]
        return f"VersionFilter({', '.join(parts)})"

    def _apply(self, server: FastMCP) -> None:
        server._components.transform(_VersionRange(self))

    def matches(self, version: str | None) -> bool:
        """Whether a component of ``version`` (None: unversioned) is served."""
        spec = VersionSpec(gte=self.version_gte, lt=self.version_lt)
        return spec.matches(version, match_none=self.include_unversioned)


@dataclass(frozen=True, eq=False)
class _VersionRange(ComponentTransform):
    """A server's components narrowed to the versions a :class:`VersionFilter` serves."""

    filter: VersionFilter

    def apply(self, registration: _Registration) -> _Registration | None:
        return narrowed(registration, self.filter.matches)


#: The transforms a provider applies to its own components (the rest make tools of a
#: server's).
_PROVIDER_TRANSFORMS = (Namespace, ToolTransform, VersionFilter)


class _ToolsOf(Transform):
    """A transform that adds tools made of what the server it is given offers."""

    def __init__(self, provider: FastMCP) -> None:
        from ..server import FastMCP

        if not isinstance(provider, FastMCP):
            raise TypeError(
                f"{type(self).__name__} requires a FastMCP server instance, not a {type(provider).__name__}. "
                f"Pass your FastMCP server: {type(self).__name__}(mcp)"
            )
        self._provider = provider

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._provider!r})"

    def _apply(self, server: FastMCP) -> None:
        for description, fn, hints in self._tools(server):
            server.tool(fn, description=description, annotations=hints)

    @abstractmethod
    def _tools(self, server: FastMCP) -> list[_Made]:
        """The tools this transform adds to ``server``."""


class PromptsAsTools(_ToolsOf):
    """Adds ``list_prompts`` (each prompt's name, description and arguments, as JSON) and
    ``get_prompt`` (a prompt rendered with the arguments given: its messages, as JSON)."""

    def _tools(self, server: FastMCP) -> list[_Made]:
        async def list_prompts() -> str:
            listed = [
                {
                    "name": prompt.name,
                    "description": prompt.description,
                    "arguments": [
                        {
                            "name": argument.name,
                            "description": argument.description,
                            "required": bool(argument.required),
                        }
                        for argument in prompt.arguments or []
                    ],
                }
                for prompt in await server.list_prompts()
            ]
            return json.dumps(listed, indent=2)

        async def get_prompt(
            name: Annotated[str, "The name of the prompt to get"],
            ctx: Context,
            arguments: Annotated[dict[str, Any] | None, "Optional arguments for the prompt"] = None,
        ) -> str:
            try:
                result = await ctx.get_prompt(name, arguments)
            except McpError:
                # Worded as FastMCP words an unknown prompt, and one missing arguments.
                prompt = next((p for p in await server.list_prompts() if p.name == name), None)
                if prompt is None:
                    raise NotFoundError(f"Unknown prompt: {name!r}") from None
                required = {argument.name for argument in prompt.arguments or [] if argument.required}
                if missing := required - set(arguments or {}):
                    raise ToolError(f"Missing required arguments: {missing}") from None
                raise
            messages = [
                {
                    "role": message.role,
                    "content": message.content.text if message.content.type == "text" else message.content.to_wire(),
                }
                for message in result.messages
            ]
            return json.dumps({"messages": messages}, indent=2)

        return [(_LIST_PROMPTS, list_prompts, None), (_GET_PROMPT, get_prompt, None)]


class ResourcesAsTools(_ToolsOf):
    """Adds ``list_resources`` (each resource's URI, name, description and MIME type, and
    each template's URI template, name and description, as JSON) and ``read_resource`` (a
    resource's single text as it is, a single binary in base64, several as JSON)."""

    def _tools(self, server: FastMCP) -> list[_Made]:
        async def list_resources() -> str:
            listed: list[dict[str, Any]] = [
                {
                    "uri": resource["uri"],
                    "name": resource["name"],
                    "description": resource.get("description"),
                    "mime_type": resource.get("mimeType"),
                }
                for resource in server._components.definitions("resource")
            ]
            listed += [
                {"uri_template": template.uri_template, "name": template.name, "description": template.description}
                for template in await server.list_resource_templates()
            ]
            return json.dumps(listed, indent=2)

        async def read_resource(uri: Annotated[str, "The URI of the resource to read"], ctx: Context) -> str:
            contents = await ctx.read_resource(uri)
            if len(contents) == 1:
                return _text(contents[0].content)
            return json.dumps([{"content": _text(part.content), "mime_type": part.mime_type} for part in contents])

        return [(_LIST_RESOURCES, list_resources, _READ_ONLY), (_READ_RESOURCE, read_resource, _READ_ONLY)]


def _text(content: str | bytes) -> str:
    """A resource's text as it is; its bytes in base64."""
    return base64.b64encode(content).decode() if isinstance(content, bytes) else content


__all__ = ["Namespace", "PromptsAsTools", "ResourcesAsTools", "ToolTransform", "Transform", "VersionFilter"]
