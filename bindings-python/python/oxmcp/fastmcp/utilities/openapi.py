"""FastMCP's ``fastmcp.utilities.openapi``: an OpenAPI 3 description read into its
operations (:class:`HTTPRoute`), and the schemas FastMCP gives the tools made of them: one
input schema of an operation's parameters and JSON body together
(:func:`flat_parameter_schema`), and an output schema from its first successful JSON
response (:func:`output_schema`). Local ``$ref``\\ s are followed; the component schemas a
schema names are kept as its ``$defs``; a description that refers outside itself is refused,
in FastMCP's words."""

from __future__ import annotations

import logging
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Literal

from .._schema import dereferenced

HttpMethod = Literal["GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "HEAD", "TRACE"]
ParameterLocation = Literal["path", "query", "header", "cookie"]

_log = logging.getLogger("oxmcp.fastmcp")

_METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
_COMPONENT_SCHEMA = "#/components/schemas/"
#: The success statuses whose response describes an operation's result, in this order.
_SUCCESS = ("200", "201", "202", "204")
_JSON_TYPES = (
    "application/json",
    "application/vnd.api+json",
    "application/hal+json",
    "application/ld+json",
    "text/json",
)


@dataclass
class ParameterInfo:
    """One parameter of an operation: where it goes, and its schema."""

    name: str
    location: ParameterLocation
    required: bool = False
    schema_: dict[str, Any] = field(default_factory=dict)
    description: str | None = None
    #: How its value is written (``form``, ``simple``, ``deepObject``...): None, the default.
    style: str | None = None
    #: Whether a list or object is written item by item: None, the style's default.
    explode: bool | None = None


@dataclass
class RequestBodyInfo:
    """An operation's request body: its schema by content type, and how a form's
    properties are encoded (each property's Encoding Object, by content type)."""

    required: bool = False
    content_schema: dict[str, dict[str, Any]] = field(default_factory=dict)
    description: str | None = None
    encoding: dict[str, dict[str, dict[str, Any]]] = field(default_factory=dict)


@dataclass
class HTTPRoute:
    """One operation of an OpenAPI description."""

    path: str
    method: HttpMethod
    operation_id: str | None = None
    summary: str | None = None
    description: str | None = None
    tags: list[str] = field(default_factory=list)
    parameters: list[ParameterInfo] = field(default_factory=list)
    request_body: RequestBodyInfo | None = None
    #: Each response's schema by content type, by status.
    responses: dict[str, dict[str, dict[str, Any]]] = field(default_factory=dict)
    #: The description's component schemas, by name.
    schemas: dict[str, Any] = field(default_factory=dict)
    openapi_version: str = "3.1.0"


def parse_openapi_to_http_routes(spec: dict[str, Any]) -> list[HTTPRoute]:
    """The operations of the OpenAPI 3 description ``spec``, in its order."""
    version = str(spec.get("openapi", ""))
    if not version.startswith("3"):
        raise ValueError(f"Invalid OpenAPI specification: not OpenAPI 3 (openapi: {version or 'missing'})")
    schemas = spec.get("components", {}).get("schemas", {})
    routes = []
    for path, item in spec.get("paths", {}).items():
        item = _resolved(spec, item)
        shared = item.get("parameters", [])
        for method in _METHODS:
            operation = item.get(method)
            if not isinstance(operation, dict):
                continue
            route = HTTPRoute(
                path=path,
                method=method.upper(),  # type: ignore[arg-type]
                operation_id=operation.get("operationId"),
                summary=operation.get("summary"),
                description=operation.get("description"),
                tags=list(operation.get("tags", [])),
                parameters=_parameters(spec, [*shared, *operation.get("parameters", [])], schemas),
                request_body=_request_body(spec, operation.get("requestBody")),
                responses=_responses(spec, operation.get("responses", {})),
                schemas=schemas,
                openapi_version=version,
            )
            _refuse_external_refs(route)
            routes.append(route)
    return routes


#: The keywords whose values are data, not schemas: a ``$ref`` in them is not one.
_DATA_KEYWORDS = frozenset(("example", "examples", "default", "const", "enum"))


def _refuse_external_refs(route: HTTPRoute) -> None:
    """Refuses an operation whose body or response schemas refer outside the description
    (the component schemas they name included), in FastMCP's words: it serves only what the
    description itself holds. (Such a parameter is left out: :func:`_parameters`.)"""
    body = route.request_body.content_schema.values() if route.request_body else ()
    responses = (schema for response in route.responses.values() for schema in response.values())
    for schema in (*body, *responses):
        _refuse_outside(schema, route.schemas)


def _refuse_outside(schema: dict[str, Any], schemas: dict[str, Any]) -> None:
    """Refuses ``schema`` when it is a reference outside the description, or holds one
    (the component schemas it names included)."""
    if isinstance(ref := schema.get("$ref"), str) and not ref.startswith("#/"):
        raise _not_local(ref)
    _refuse_nested_external_refs(schema, schemas, set())


def _refuse_nested_external_refs(schema: Any, schemas: dict[str, Any], followed: set[str]) -> None:
    """Refuses ``schema`` when it, or a component schema it names (``followed`` those seen),
    refers outside the description."""
    if isinstance(schema, list):
        for item in schema:
            _refuse_nested_external_refs(item, schemas, followed)
        return
    if not isinstance(schema, dict):
        return
    if isinstance(ref := schema.get("$ref"), str):
        if not ref.startswith("#/"):
            raise NotLocal(
                f"External or non-local reference not supported: {ref}. FastMCP only supports local schema "
                "references starting with '#/'. Please include all schema definitions within the OpenAPI document."
            )
        if ref.startswith(_COMPONENT_SCHEMA) and ref not in followed:
            followed.add(ref)
            _refuse_nested_external_refs(schemas.get(ref.removeprefix(_COMPONENT_SCHEMA)), schemas, followed)
    for key, value in schema.items():
        if key not in _DATA_KEYWORDS:
            _refuse_nested_external_refs(value, schemas, followed)


class NotLocal(ValueError):
    """A reference outside the description, which FastMCP does not follow."""


def _not_local(ref: str) -> NotLocal:
    """The error of a reference outside the description, in FastMCP's words."""
    return NotLocal(f"Failed to resolve reference '{ref}': External or non-local reference not supported: {ref}")


def _resolved(spec: dict[str, Any], value: Any) -> Any:
    """``value``, or what its local ``$ref`` (and theirs) points at."""
    seen = set()
    while isinstance(value, dict) and isinstance(ref := value.get("$ref"), str):
        if not ref.startswith("#/"):
            raise _not_local(ref)
        if ref in seen:
            raise ValueError(f"Invalid OpenAPI specification: cannot resolve $ref {ref}")
        seen.add(ref)
        value = spec
        for part in ref[2:].split("/"):
            value = value[part.replace("~1", "/").replace("~0", "~")]
    return value


def _parameters(spec: dict[str, Any], given: list[Any], schemas: dict[str, Any]) -> list[ParameterInfo]:
    """The parameters, an operation's replacing its path's of the same name and place; one
    that refers outside the description left out (and logged), as FastMCP leaves it out."""
    found: dict[tuple[str, str], ParameterInfo] = {}
    for given_parameter in given:
        try:
            parameter = _resolved(spec, given_parameter)
            schema = dict(parameter.get("schema") or {})
            if not schema and parameter.get("content"):
                schema = dict(next(iter(parameter["content"].values())).get("schema") or {})
            _refuse_outside(schema, schemas)
        except NotLocal as refused:
            named = given_parameter.get("name") or given_parameter.get("$ref")
            _log.error("Failed to extract parameter %r: %s", named, refused)
            continue
        location = parameter.get("in")
        if location not in ("path", "query", "header", "cookie"):
            continue
        found[(parameter["name"], location)] = ParameterInfo(
            name=parameter["name"],
            location=location,
            required=bool(parameter.get("required", location == "path")),
            schema_=schema,
            description=parameter.get("description"),
            style=parameter.get("style"),
            explode=parameter.get("explode"),
        )
    return list(found.values())


def _request_body(spec: dict[str, Any], body: Any) -> RequestBodyInfo | None:
    if body is None:
        return None
    body = _resolved(spec, body)
    media_types = body.get("content", {}).items()
    content = {kind: dict(media.get("schema") or {}) for kind, media in media_types}
    encoding = {kind: dict(media["encoding"]) for kind, media in media_types if isinstance(media.get("encoding"), dict)}
    return RequestBodyInfo(bool(body.get("required", False)), content, body.get("description"), encoding)


def _responses(spec: dict[str, Any], responses: dict[str, Any]) -> dict[str, dict[str, dict[str, Any]]]:
    return {
        str(status): {kind: dict(media.get("schema") or {}) for kind, media in response.get("content", {}).items()}
        for status, response in ((status, _resolved(spec, response)) for status, response in responses.items())
    }


def with_defs(schema: Any) -> Any:
    """``schema``, rebuilt (its objects and arrays new, so the result may be changed), with
    its references to component schemas made references to ``$defs``, and OpenAPI 3.0's
    ``nullable`` said as JSON Schema says it."""
    if isinstance(schema, list):
        return [with_defs(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    made = {key: with_defs(value) for key, value in schema.items()}
    if isinstance(ref := made.get("$ref"), str) and ref.startswith(_COMPONENT_SCHEMA):
        made["$ref"] = "#/$defs/" + ref.removeprefix(_COMPONENT_SCHEMA)
    if made.pop("nullable", False):
        if isinstance(kind := made.get("type"), str):
            made["type"] = [kind, "null"]
        elif "type" not in made:
            made = {"anyOf": [made, {"type": "null"}]}
    return made


def _named_defs(value: Any, schemas: dict[str, Any], found: dict[str, Any]) -> dict[str, Any]:
    """``found`` with the component schemas ``value`` names, and those they name."""
    if isinstance(value, list):
        for item in value:
            _named_defs(item, schemas, found)
    elif isinstance(value, dict):
        ref = value.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            name = ref.removeprefix("#/$defs/")
            if name not in found and name in schemas:
                found[name] = with_defs(schemas[name])
                _named_defs(found[name], schemas, found)
        for item in value.values():
            _named_defs(item, schemas, found)
    return found


def _with_named_defs(schema: dict[str, Any], schemas: dict[str, Any]) -> dict[str, Any]:
    """``schema`` with the definitions it names inlined, as FastMCP lists it (a recursive
    one kept as ``$defs``)."""
    defs = _named_defs(schema, schemas, {})
    return dereferenced({**schema, "$defs": defs}) if defs else schema


@dataclass
class Argument:
    """Where an argument of a tool goes in the request: its place, and its name there."""

    location: Literal["path", "query", "header", "cookie", "body"]
    openapi_name: str
    #: Whether it is the body whole (a body that is not an object of properties).
    whole: bool = False
    #: A parameter's style and explode, as its description gives them.
    style: str | None = None
    explode: bool | None = None


def flat_parameter_schema(route: HTTPRoute) -> tuple[dict[str, Any], dict[str, Argument]]:
    """The input schema of a tool that calls ``route``, and where each of its arguments
    goes: the parameters, then the properties of an object body (or the body whole, as
    ``body``); a parameter whose name another argument has is named
    ``<name>__<location>``."""
    body_schema, body_properties, body_name = _body(route)
    names = Counter(parameter.name for parameter in route.parameters)
    taken = set(body_properties) | ({body_name} if body_name else set())
    properties: dict[str, Any] = {}
    required: list[str] = []
    arguments: dict[str, Argument] = {}
    for parameter in route.parameters:
        schema = with_defs(parameter.schema_)
        if parameter.description and not schema.get("description"):
            schema["description"] = parameter.description
        name = parameter.name
        if names[name] > 1 or name in taken:
            name = f"{name}__{parameter.location}"
            where = f"({parameter.location.capitalize()} parameter)"
            schema["description"] = f"{schema['description']} {where}" if schema.get("description") else where
        properties[name] = schema
        arguments[name] = Argument(parameter.location, parameter.name, style=parameter.style, explode=parameter.explode)
        if parameter.required:
            required.append(name)
    body_required = route.request_body is not None and route.request_body.required
    for name, schema in body_properties.items():
        properties[name] = schema
        arguments[name] = Argument("body", name)
    if body_properties and body_required:
        required.extend(body_schema.get("required", []))
    if body_name:
        properties[body_name] = body_schema
        arguments[body_name] = Argument("body", body_name, whole=True)
        if body_required:
            required.append(body_name)
    schema = {"type": "object", "properties": properties, "required": required}
    return _with_named_defs(schema, route.schemas), arguments


def body_media_type(route: HTTPRoute) -> str | None:
    """The media type a route's body is sent as: the first its description declares (as
    FastMCP sends it), without parameters; None without a body."""
    if route.request_body is None or not route.request_body.content_schema:
        return None
    return next(iter(route.request_body.content_schema)).split(";", 1)[0].strip().lower()


def body_encoding(route: HTTPRoute) -> dict[str, dict[str, Any]]:
    """The Encoding Object of each property of the body as it is sent, by name."""
    if route.request_body is None or not route.request_body.content_schema:
        return {}
    return route.request_body.encoding.get(next(iter(route.request_body.content_schema)), {})


def _body(route: HTTPRoute) -> tuple[dict[str, Any], dict[str, Any], str | None]:
    """A route's body, of the media type it is sent as: its schema, its properties when it
    is an object whose properties become arguments, else the name of the one argument it
    is (none without a body)."""
    if route.request_body is None or not route.request_body.content_schema:
        return {}, {}, None
    schema = with_defs(next(iter(route.request_body.content_schema.values())))
    if route.request_body.description and not schema.get("description"):
        schema["description"] = route.request_body.description
    target = _merged(_referenced(schema, route.schemas), route.schemas)
    if (variants := _discriminated(target, route.schemas)) is not None:
        target = {**target, "properties": variants}
    if isinstance(target.get("properties"), dict) and target.get("type", "object") == "object":
        return target, dict(target["properties"]), None
    if "$ref" in schema:
        return schema, {}, "body"
    name = re.sub(r"[^a-zA-Z0-9_]", "_", str(schema.get("title", "body")).lower())
    return schema, {}, name if name and not name[0].isdigit() else "body_data"


def _referenced(schema: dict[str, Any], schemas: dict[str, Any]) -> dict[str, Any]:
    """The component schema ``schema`` refers to, else ``schema``."""
    if isinstance(ref := schema.get("$ref"), str) and ref.startswith("#/$defs/"):
        referenced: dict[str, Any] = with_defs(schemas.get(ref.removeprefix("#/$defs/"), {}))
        return referenced
    return schema


def _merged(schema: dict[str, Any], schemas: dict[str, Any]) -> dict[str, Any]:
    """An ``allOf`` schema as the one object it describes, as FastMCP makes a body's: the
    properties and required names of its parts (by reference too, and theirs) together."""
    parts = schema.get("allOf")
    if not isinstance(parts, list):
        return schema
    merged = {key: value for key, value in schema.items() if key != "allOf"}
    properties: dict[str, Any] = {}
    required: list[str] = []
    for part in [*parts, merged]:
        part = _merged(_referenced(part, schemas), schemas) if isinstance(part, dict) else {}
        properties.update(part.get("properties") or {})
        required += [name for name in part.get("required") or [] if name not in required]
    return {**merged, "type": "object", "properties": properties, "required": required}


def _discriminated(schema: dict[str, Any], schemas: dict[str, Any]) -> dict[str, Any] | None:
    """The properties of an object whose ``discriminator`` maps its variants, as FastMCP
    flattens them: its own, then each variant's own, optional (those that differ between
    variants as ``anyOf`` their schemas), the discriminating property describing the
    variants; None without a mapping to a variant this description has. (Models fill one
    object of optional properties better than ``oneOf`` branches; the API checks the
    variant.)"""
    discriminator = schema.get("discriminator")
    if not isinstance(discriminator, dict):
        return None
    tag, mapping = discriminator.get("propertyName"), discriminator.get("mapping")
    if not isinstance(tag, str) or not isinstance(mapping, dict):
        return None
    own = schema.get("properties") or {}
    alternatives: dict[str, list[Any]] = {}
    values, uses = [], []
    for value, target in mapping.items():
        name = _variant_name(target) if isinstance(target, str) else None
        variant = schemas.get(name) if name else None
        if not isinstance(variant, dict):
            continue
        variant_properties = _merged(with_defs(variant), schemas).get("properties") or {}
        fields = [name for name in variant_properties if name not in own]
        for name in fields:
            seen = alternatives.setdefault(name, [])
            if variant_properties[name] not in seen:
                seen.append(variant_properties[name])
        values.append(repr(value))
        if fields:
            uses.append(f"{value!r} uses {', '.join(fields)}")
    if not values:
        return None
    flattened = {name: found[0] if len(found) == 1 else {"anyOf": found} for name, found in alternatives.items()}
    properties = {**own, **flattened}
    note = f"Selects the variant. Accepted values: {', '.join(values)}."
    if uses:
        note += f" {'; '.join(uses)}. Send only the fields belonging to the selected variant."
    tag_schema = properties.get(tag)
    if not isinstance(tag_schema, dict):
        tag_schema = {"type": "string"}
    described = tag_schema.get("description")
    properties[tag] = {**tag_schema, "description": f"{described} {note}" if described else note}
    return properties


def _variant_name(target: str) -> str | None:
    """The component a discriminator's mapping names: by reference, or by its bare name."""
    for prefix in ("#/$defs/", _COMPONENT_SCHEMA):
        if target.startswith(prefix):
            return target.removeprefix(prefix) or None
    return None if target.startswith("#") or "/" in target else target or None


def success_response(route: HTTPRoute) -> dict[str, dict[str, Any]] | None:
    """The schemas by content type of the response that describes ``route``'s result:
    200, 201, 202 or 204 first, else any 2xx."""
    for status in _SUCCESS:
        if status in route.responses:
            return route.responses[status]
    return next((content for status, content in route.responses.items() if status.startswith("2")), None)


def output_schema(route: HTTPRoute) -> dict[str, Any] | None:
    """The output schema of a tool that calls ``route``: its JSON result's, an object's as
    it is and any other wrapped as ``result`` (``x-fastmcp-wrap-result``); none when a
    successful answer may have no body."""
    if any(status.startswith("2") and not content for status, content in route.responses.items()):
        return None
    content = success_response(route)
    if not content:
        return None
    schema = next((content[kind] for kind in _JSON_TYPES if kind in content), None) or next(iter(content.values()))
    if not schema:
        return None
    schema = with_defs(schema)
    named = schema.get("$ref", "").removeprefix("#/$defs/")
    if named in route.schemas:
        # A component whole: FastMCP marks which.
        schema = {**with_defs(route.schemas[named]), "x-fastmcp-top-level-schema": named}
    if schema.get("type") != "object":
        schema = {
            "type": "object",
            "properties": {"result": schema},
            "required": ["result"],
            "x-fastmcp-wrap-result": True,
        }
    return _with_named_defs(schema, route.schemas)


def response_mime_type(route: HTTPRoute) -> str:
    """The MIME type of ``route``'s successful answer: JSON unless it says otherwise."""
    content = success_response(route)
    if not content:
        return "application/json"
    return next((kind for kind in _JSON_TYPES if kind in content), next(iter(content)))


__all__ = [
    "Argument",
    "HTTPRoute",
    "HttpMethod",
    "ParameterInfo",
    "RequestBodyInfo",
    "flat_parameter_schema",
    "output_schema",
    "parse_openapi_to_http_routes",
    "response_mime_type",
    "success_response",
    "with_defs",
]
