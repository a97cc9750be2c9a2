"""FastMCP's ``fastmcp.server.providers.openapi.components``: the tool, resource and
resource template that call one operation of an HTTP API with the client given, each
registered on a server as ``mcp.tool``, ``mcp.resource`` and a template register theirs."""

from __future__ import annotations

import inspect
import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ....utilities.openapi import Argument, HTTPRoute, body_encoding, body_media_type
from ...dependencies import get_http_headers
from . import parameters

if TYPE_CHECKING:
    from ...server import FastMCP

#: How much of an error answer's body a tool error quotes.
_ERROR_BODY_LIMIT = 2000


class OperationError(Exception):
    """The API answered an operation with an error status (its text is FastMCP's)."""


@dataclass
class _Operation:
    """One operation of the API and the client that calls it."""

    client: Any
    route: HTTPRoute

    async def call(self, arguments: dict[str, Any], where: dict[str, Argument]) -> Any:
        """The API's answer to the operation with ``arguments``, put where ``where`` says;
        :class:`OperationError` for an error status."""
        path, queried, headers, body = self.route.path, [], {}, None
        # A path parameter is always required (OpenAPI's rule).
        missing = [
            name for name, argument in where.items() if argument.location == "path" and arguments.get(name) is None
        ]
        if missing:
            raise ValueError(f"Missing required arguments: {', '.join(missing)}")
        for name, value in arguments.items():
            argument = where.get(name)
            if argument is None or value is None:
                continue
            if argument.location == "path":
                path = path.replace(f"{{{argument.openapi_name}}}", self._path_value(argument, value))
            elif argument.location == "query":
                queried.append((argument, value))
            elif argument.location == "header":
                headers[argument.openapi_name] = parameters.simple(value, argument.explode)
            elif argument.location == "cookie":
                cookie = f"{argument.openapi_name}={parameters.scalar(value)}"
                headers["cookie"] = "; ".join(filter(None, [headers.get("cookie"), cookie]))
            elif argument.whole:
                body = value
            else:
                body = {**(body or {}), argument.openapi_name: value}
        # The headers of the MCP request that carried the call (credentials aside), as FastMCP
        # passes them on; the operation's own win.
        headers = {**get_http_headers(), **headers}
        sent = {} if body is None else _encoded(body, self.route)
        params = parameters.query(queried)
        response = await self.client.request(self.route.method, path, params=params, headers=headers, **sent)
        _raise_for_status(response)
        return response

    def _path_value(self, argument: Argument, value: Any) -> str:
        """A path parameter's value as written in the path, refused in FastMCP's words."""
        try:
            return parameters.path_segment(argument.openapi_name, value, argument.explode)
        except ValueError as error:
            route = f"{self.route.method} {self.route.path}"
            raise ValueError(f"Error building request for {route}: ValueError: {error}") from error


def _encoded(body: Any, route: HTTPRoute) -> dict[str, Any]:
    """The client's argument that sends ``body`` as the route's media type says (as FastMCP
    does): a form's fields as text, a multipart body's as parts (bytes as they are), a
    list a field per item, an object (or a list of objects) as JSON, as OpenAPI's Encoding
    Object has it by default or its ``contentType`` says; anything else as JSON."""
    media_type = body_media_type(route)
    if not isinstance(body, dict) or media_type not in _FORMS:
        return {"json": body}
    encoding = body_encoding(route)
    fields = [(name, item) for name, value in body.items() for item in _field_values(value, encoding.get(name))]
    if media_type == "multipart/form-data":
        return {"files": [(name, (None, item)) for name, item in fields]}
    data: dict[str, list[str]] = {}
    for name, item in fields:
        data.setdefault(name, []).append(item.decode() if isinstance(item, bytes) else item)
    return {"data": data}


#: The media types whose bodies are sent as fields.
_FORMS = ("application/x-www-form-urlencoded", "multipart/form-data")


def _field_values(value: Any, encoding: dict[str, Any] | None) -> list[str | bytes]:
    """The values of the form fields a body property makes: JSON text for an object or a
    list of objects (or any value its ``contentType`` says is JSON), else a field per item
    of a list, each as text (bytes as they are)."""
    content_type = (encoding or {}).get("contentType")
    if content_type is not None:
        as_json = _is_json(content_type)
    else:
        as_json = isinstance(value, dict) or (isinstance(value, list) and any(isinstance(item, dict) for item in value))
    if as_json:
        return [json.dumps(value, allow_nan=False)]
    return [item if isinstance(item, bytes) else parameters.scalar(item) for item in parameters.listed(value)]


def _is_json(content_type: str) -> bool:
    media_type = content_type.split(";", 1)[0].strip().lower()
    return media_type == "application/json" or media_type.endswith("+json")


def _raise_for_status(response: Any) -> None:
    """:class:`OperationError` for an answer that is not a success, quoting its body (not
    an HTML page)."""
    if 200 <= response.status_code < 300:
        return
    message = f"HTTP error {response.status_code}: {response.reason_phrase}"
    if 300 <= response.status_code < 400 and (location := response.headers.get("location")):
        message += f" - Location: {location}"
    kind = response.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    body = response.text
    if body and kind not in ("text/html", "application/xhtml+xml"):
        try:
            quoted = json.dumps(response.json(), ensure_ascii=False)
        except ValueError:
            quoted = "" if body.lstrip().lower().startswith(("<!doctype html", "<html")) else body
        if quoted:
            message += f" - {quoted[:_ERROR_BODY_LIMIT]}"
    raise OperationError(message)


@dataclass
class OpenAPITool:
    """The tool that calls one operation: its arguments are the operation's parameters
    and body properties (:func:`~oxmcp.fastmcp.utilities.openapi.flat_parameter_schema`),
    its result the API's JSON answer (structured), or its text."""

    client: Any
    route: HTTPRoute
    name: str
    description: str
    parameters: dict[str, Any]
    output_schema: dict[str, Any] | None
    arguments: dict[str, Argument]
    tags: set[str] = field(default_factory=set)
    meta: dict[str, Any] | None = None

    async def run(self, arguments: dict[str, Any]) -> Any:
        """Calls the operation with ``arguments``."""
        from ....tools import ToolResult

        response = await _Operation(self.client, self.route).call(arguments, self.arguments)
        try:
            result = response.json()
        except ValueError:
            return ToolResult(content=response.text)
        wrapped = (
            self.output_schema.get("x-fastmcp-wrap-result") if self.output_schema else not isinstance(result, dict)
        )
        return ToolResult(structured_content={"result": result} if wrapped else result)

    def register(self, server: FastMCP) -> None:
        """Serves it on ``server``."""

        async def call(arguments: dict[str, Any]) -> Any:
            return await self.run(arguments)

        server.tool(
            name=self.name,
            description=self.description,
            input_schema=self.parameters,
            output_schema=self.output_schema,
            tags=self.tags,
            meta=self.meta,
            raw_arguments=True,
        )(call)


@dataclass
class OpenAPIResource:
    """The resource whose contents are a GET of one operation without arguments: JSON as
    JSON text, text as text, anything else as bytes."""

    client: Any
    route: HTTPRoute
    uri: str
    name: str
    description: str
    mime_type: str = "application/json"
    tags: set[str] = field(default_factory=set)
    meta: dict[str, Any] | None = None

    async def read(self) -> Any:
        """The answer to the operation, as FastMCP's resources give it."""
        return await self._read({}, {})

    async def _read(self, arguments: dict[str, Any], where: dict[str, Argument]) -> Any:
        from ....resources import ResourceContent, ResourceResult

        response = await _Operation(self.client, self.route).call(arguments, where)
        kind = response.headers.get("content-type", "").lower()
        essence = kind.split(";")[0].strip()
        if essence == "application/json" or essence.endswith("+json"):
            return ResourceResult([ResourceContent(json.dumps(response.json()), mime_type=essence)])
        if "text/" in kind or "application/xml" in kind:
            return ResourceResult([ResourceContent(response.text, mime_type=self.mime_type)])
        return ResourceResult([ResourceContent(response.content, mime_type=self.mime_type)])

    def register(self, server: FastMCP) -> None:
        """Serves it on ``server``."""

        async def read() -> Any:
            return await self.read()

        self._register(server, read)

    def _register(self, server: FastMCP, read: Any) -> None:
        """Registers ``read`` as its function at its URI (template)."""
        server.resource(
            self.uri,
            name=self.name,
            description=self.description,
            mime_type=self.mime_type,
            tags=self.tags,
            meta=self.meta,
        )(read)


@dataclass
class OpenAPIResourceTemplate(OpenAPIResource):
    """The resources whose contents are a GET of one operation with its path parameters,
    the variables of ``uri`` (named as Python names)."""

    def register(self, server: FastMCP) -> None:
        names = sorted(p.name for p in self.route.parameters if p.location == "path")
        where = {name: Argument("path", name) for name in names}

        async def read(**variables: str) -> Any:
            return await self._read(variables, where)

        # The template's variables are its function's parameters.
        read.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
            [inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, annotation=str) for name in names]
        )
        self._register(server, read)


__all__ = ["OpenAPIResource", "OpenAPIResourceTemplate", "OpenAPITool", "OperationError"]
