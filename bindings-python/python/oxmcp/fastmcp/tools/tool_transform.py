"""FastMCP's tool transformation (``fastmcp.tools.tool_transform``): a tool made from
another, renamed or redescribed, its arguments renamed, redescribed, given defaults or
hidden (:class:`ArgTransform`), or run by a function of one's own that calls the other
with :func:`forward`. ``Tool.from_tool`` makes one; :class:`ToolTransformConfig` says the
same for ``ToolTransform`` (``fastmcp.server.transforms``), which changes a server's tools
as it serves them.

A transformed tool's call goes to the tool it was made from as that tool's own call would:
its handler, with the arguments renamed back and the hidden ones added. Its definition is
the other's, changed as asked; its input schema is made as FastMCP makes it."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable
from contextvars import ContextVar
from copy import deepcopy
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, InstanceOf, TypeAdapter, ValidationError, field_validator
from pydantic_core import InitErrorDetails, PydanticCustomError

from ..._errors import ArgumentsRefused
from ..._schema import FunctionSpec, inspect_function
from ...server._calling import native_context
from ...server._mounting import Transform, _Registration
from ...types import CallToolResult, ToolAnnotations
from .._schema import compressed
from ..server._versions import requested, unknown_version, version_key
from . import ToolResult
from .base import MadeTool, Tool, as_tool

if TYPE_CHECKING:
    from ..server.server import FastMCP


class _NotSetType:
    """What an option left out is: a change of nothing."""

    def __repr__(self) -> str:
        return "NotSet"


#: An option left out (FastMCP's ``NotSet``).
NotSet: Any = _NotSetType()

#: Keywords that describe a property rather than its type: kept when its type changes.
_DESCRIBING = frozenset({"title", "description", "deprecated", "readOnly", "writeOnly", "default", "examples"})
#: The ``_meta`` namespaces FastMCP's own, kept when a tool's ``meta`` is replaced.
_FRAMEWORK_META = ("fastmcp", "ui")


@dataclass(kw_only=True)
class ArgTransform:
    """How one of a tool's arguments changes: its ``name``, ``description``, ``default``
    (or, hidden, ``default_factory``), ``type``, ``examples``; ``hide`` takes it out of
    the schema (the tool gets its default); ``required=True`` makes it required."""

    name: str | Any = NotSet
    description: str | Any | None = NotSet
    default: Any = NotSet
    default_factory: Callable[[], Any] | Any = NotSet
    type: Any = NotSet
    hide: bool = False
    required: Literal[True] | Any = NotSet
    examples: Any = NotSet

    def __post_init__(self) -> None:
        has_default = self.default is not NotSet
        has_factory = self.default_factory is not NotSet
        if has_default and has_factory:
            raise ValueError(
                "Cannot specify both 'default' and 'default_factory' in ArgTransform. "
                "Use either 'default' for a static value or 'default_factory' for a callable."
            )
        if has_factory and not self.hide:
            raise ValueError(
                "default_factory can only be used with hide=True. Visible parameters must use static "
                "'default' values since JSON schema cannot represent dynamic factories."
            )
        if self.required is True and (has_default or has_factory):
            raise ValueError(
                "Cannot specify 'required=True' with 'default' or 'default_factory'. "
                "Required parameters cannot have defaults."
            )
        if self.hide and self.required is True:
            raise ValueError(
                "Cannot specify both 'hide=True' and 'required=True'. "
                "Hidden parameters cannot be required since clients cannot provide them."
            )
        if self.required is False:
            raise ValueError("Cannot specify 'required=False'. Set a default value instead.")

    def hidden_value(self) -> Any:
        """What a hidden argument's tool gets for it."""
        return self.default if self.default is not NotSet else self.default_factory()

    @property
    def has_default(self) -> bool:
        """Whether it gives the argument a value of its own (a default or a factory)."""
        return self.default is not NotSet or self.default_factory is not NotSet


class ArgTransformConfig(BaseModel):
    """An :class:`ArgTransform` as configuration (JSON): defaults of JSON's simple types."""

    model_config = ConfigDict(extra="forbid")

    name: str | None = None
    description: str | None = None
    default: str | int | float | bool | None = None
    hide: bool = False
    required: Literal[True] | None = None
    examples: Any | None = None

    def to_arg_transform(self) -> ArgTransform:
        """The :class:`ArgTransform` it says."""
        return ArgTransform(**self.model_dump(exclude_unset=True))


class ToolTransformConfig(BaseModel):
    """A tool's transformation as configuration: its new ``name``, ``title``,
    ``description``, ``tags``, ``meta``, whether it is ``enabled`` (listed and called), and
    its ``arguments``' transformations."""

    model_config = ConfigDict(extra="forbid")

    name: str | None = None
    version: str | None = None
    title: str | None = None
    description: str | None = None
    tags: set[str] = Field(default_factory=set)
    meta: dict[str, Any] | None = None
    enabled: bool = True
    arguments: dict[str, ArgTransformConfig] = {}

    @field_validator("tags", mode="before")
    @classmethod
    def _no_tags(cls, value: Any) -> Any:
        return set() if value is None else value

    def apply(self, tool: Tool | Callable[..., Any]) -> TransformedTool:
        """The tool ``tool`` becomes (``enabled`` is the server's to apply)."""
        return TransformedTool.checked(as_tool(tool), self.transformation())

    def transformation(self) -> Transformation:
        """What it changes."""
        changes = self.model_dump(exclude_unset=True, exclude={"arguments", "enabled"})
        arguments = {name: config.to_arg_transform() for name, config in self.arguments.items()}
        return Transformation(None, arguments, _changes(**changes))


@dataclass(frozen=True)
class _Arguments:
    """A transformed tool's arguments and how they reach the tool it was made from."""

    schema: dict[str, Any]
    #: The other tool's name of each argument renamed.
    parent_names: dict[str, str]
    #: The hidden arguments given a value, by the other tool's name.
    hidden: dict[str, ArgTransform]

    def filled(self, arguments: dict[str, Any]) -> dict[str, Any]:
        """``arguments`` with the schema's defaults of those left out (FastMCP's own fill
        them before the call, so that a transformed default is the one used)."""
        properties = self.schema.get("properties", {})
        defaults = {n: deepcopy(p["default"]) for n, p in properties.items() if n not in arguments and "default" in p}
        return {**defaults, **arguments}

    def parent_arguments(self, arguments: dict[str, Any]) -> dict[str, Any]:
        """The other tool's arguments: renamed back, the hidden ones added."""
        parent = {self.parent_names.get(name, name): value for name, value in arguments.items()}
        parent.update({name: transform.hidden_value() for name, transform in self.hidden.items()})
        return parent

    def in_own_names(self, refused: ArgumentsRefused) -> ArgumentsRefused:
        """What the other tool refused, said by this tool's argument names."""
        if not self.parent_names:
            return refused
        return ArgumentsRefused(_renamed(refused.refused, {old: new for new, old in self.parent_names.items()}))

    def checked(self, arguments: dict[str, Any]) -> dict[str, Any]:
        """``arguments`` as :func:`forward` takes them: those of the schema, the required
        ones given."""
        properties = self.schema.get("properties", {})
        if unknown := set(arguments) - set(properties):
            raise TypeError(f"Got unexpected keyword argument(s): {', '.join(sorted(unknown))}")
        if missing := set(self.schema.get("required", [])) - set(arguments):
            raise TypeError(f"Missing required argument(s): {', '.join(sorted(missing))}")
        return arguments


def _arguments(tool_name: str, parent_schema: dict[str, Any], transforms: dict[str, ArgTransform]) -> _Arguments:
    """The arguments of a tool made from one with ``parent_schema``, as FastMCP makes them."""
    parent_properties: dict[str, Any] = parent_schema.get("properties", {})
    if unknown := set(transforms) - set(parent_properties):
        raise ValueError(
            f"Unknown arguments in transform_args: {', '.join(sorted(unknown))}. "
            f"Parent tool `{tool_name}` has: {', '.join(sorted(parent_properties))}"
        )
    parent_required = set(parent_schema.get("required", []))
    definitions = deepcopy(parent_schema.get("$defs", {}))
    properties: dict[str, Any] = {}
    required: set[str] = set()
    parent_names: dict[str, str] = {}
    hidden: dict[str, ArgTransform] = {}
    for old_name, old_schema in parent_properties.items():
        transform = transforms.get(old_name, ArgTransform())
        if transform.hide:
            if not transform.has_default and old_name in parent_required:
                raise ValueError(
                    f"Hidden parameter '{old_name}' has no default value in parent tool and no default or "
                    "default_factory provided in ArgTransform. Either provide a default or default_factory in "
                    "ArgTransform or don't hide required parameters."
                )
            if transform.has_default:
                hidden[old_name] = transform
            continue
        name = transform.name if isinstance(transform.name, str) else old_name
        if name in properties:
            raise ValueError(f"Multiple arguments would be mapped to the same names: {name}")
        schema, is_required = _argument(deepcopy(old_schema), transform, old_name in parent_required, definitions)
        properties[name] = schema
        parent_names[name] = old_name
        if is_required:
            required.add(name)
    made: dict[str, Any] = {
        "type": "object",
        "properties": properties,
        "required": [name for name in properties if name in required],
        "additionalProperties": False,
    }
    if definitions:
        made = compressed({**made, "$defs": definitions})
    return _Arguments(made, {new: old for new, old in parent_names.items() if new != old}, hidden)


def _argument(
    schema: dict[str, Any], transform: ArgTransform, is_required: bool, definitions: dict[str, Any]
) -> tuple[dict[str, Any], bool]:
    """One argument's schema, and whether it is required, as ``transform`` changes it (the
    definitions a new type brings go to ``definitions``)."""
    if transform.description is None:
        schema.pop("description", None)
    elif transform.description is not NotSet:
        schema["description"] = transform.description
    if transform.required is True:
        is_required = True
        schema.pop("default", None)
    elif transform.default is not NotSet:
        schema["default"] = transform.default
        is_required = False
    if transform.type is not NotSet:
        typed = TypeAdapter(transform.type).json_schema()
        for name, definition in typed.pop("$defs", {}).items():
            if definitions.get(name, definition) != definition:
                raise ValueError(
                    f"$defs collision for '{name}': an ArgTransform introduces a definition with the same name "
                    "as an existing $defs entry but a different schema. Rename one of the colliding types to "
                    "avoid the conflict."
                )
            definitions[name] = definition
        schema = {**typed, **{key: value for key, value in schema.items() if key in _DESCRIBING or key[:2] == "x-"}}
    if transform.examples is not NotSet:
        schema["examples"] = transform.examples
    return schema, is_required


@dataclass(frozen=True)
class _Forwarding:
    """What :func:`forward` calls within a transformed tool's function: the other tool's
    handler, and how the arguments reach it."""

    handler: Callable[..., Any]
    arguments: _Arguments

    async def call(self, arguments: dict[str, Any]) -> ToolResult:
        """The other tool's result for ``arguments`` (by its own names)."""
        native = (arguments, native_context())
        if inspect.iscoroutinefunction(self.handler):
            value = await self.handler(*native)
        else:
            value = await asyncio.to_thread(self.handler, *native)
        return _tool_result(value)


_forwarding: ContextVar[_Forwarding | None] = ContextVar("oxmcp_fastmcp_forwarding", default=None)


async def forward(**kwargs: Any) -> ToolResult:
    """Within a transformed tool's function: calls the tool it was made from with these
    arguments (by the transformed tool's names: renamed back, the hidden ones added)."""
    forwarding = _forwarding.get()
    if forwarding is None:
        raise RuntimeError("forward() can only be called within a transformed tool")
    arguments = forwarding.arguments
    try:
        return await forwarding.call(arguments.parent_arguments(arguments.checked(kwargs)))
    except ArgumentsRefused as refused:
        raise arguments.in_own_names(refused) from None


async def forward_raw(**kwargs: Any) -> ToolResult:
    """Within a transformed tool's function: calls the tool it was made from with these
    arguments as they are (by that tool's own names)."""
    forwarding = _forwarding.get()
    if forwarding is None:
        raise RuntimeError("forward_raw() can only be called within a transformed tool")
    return await forwarding.call(kwargs)


def _tool_result(value: Any) -> ToolResult:
    """What a tool's handler gave, as a :class:`ToolResult`."""
    if isinstance(value, ToolResult):
        return value
    if isinstance(value, CallToolResult):
        return ToolResult(
            content=list(value.content),
            structured_content=value.structured_content,
            meta=value.meta,
            is_error=bool(value.is_error),
        )
    return ToolResult(content=[] if value is None else value)


def _changes(
    name: str | None = None,
    version: str | None = None,
    title: str | Any | None = NotSet,
    description: str | Any | None = NotSet,
    tags: set[str] | None = None,
    annotations: ToolAnnotations | dict[str, Any] | Any | None = NotSet,
    output_schema: dict[str, Any] | Any | None = NotSet,
    meta: dict[str, Any] | Any | None = NotSet,
) -> dict[str, Any]:
    """The changes given, those left out left out (None given: none, where that means
    something)."""
    given = {"name": name, "version": version, "title": title, "description": description, "tags": tags}
    given |= {"annotations": annotations, "output_schema": output_schema, "meta": meta}
    changes = {key: value for key, value in given.items() if value is not NotSet and value is not None}
    nullable = ("description", "annotations", "output_schema", "meta")
    return changes | {key: None for key in nullable if given[key] is None}


@dataclass(frozen=True)
class Transformation:
    """How a tool made from another differs from it: the function that runs it (None:
    the other's handler), its arguments' transformations, its other ``changes``."""

    transform_fn: Callable[..., Any] | None
    transform_args: dict[str, ArgTransform]
    changes: dict[str, Any]

    def made_from(self, parent: _Registration, server: FastMCP | None) -> _Registration:
        """The registration of the tool made from ``parent``'s (on ``server``; None: for
        its definition alone). Given a ``version``, it is the highest of ``parent``'s
        versions under that one alone, as FastMCP makes it."""
        version, versions = self.changes.get("version"), len(parent.versions or {None: parent})
        if version is not None and parent.versions:
            highest = max(parent.versions, key=version_key)
            parent = replace(parent, rest=(parent.versions[highest].rest[0], *parent.rest[1:]), versions=None)
        parent_definition = parent.definition
        name = self.changes.get("name") or parent_definition["name"]
        arguments = _arguments(parent_definition["name"], parent_definition["inputSchema"], self.transform_args)
        if self.transform_fn is None:
            made = replace(
                parent,
                definition={**parent_definition, "inputSchema": arguments.schema},
                rest=(_forwarding_handler(parent.rest[0], arguments, name), *parent.rest[1:]),
            )
        else:
            made = self._run_by(self.transform_fn, parent, arguments, server)
        made = self._changed(made, name)
        return made if version is None else _versioned_as(made, str(version), versions)

    def _run_by(
        self, fn: Callable[..., Any], parent: _Registration, arguments: _Arguments, server: FastMCP | None
    ) -> _Registration:
        """The registration of a tool run by ``fn``: its input schema the transformed one
        over the function's own, its output schema the function's (else the parent's,
        unless it returns a ``ToolResult``)."""
        from ..server.server import function_tool

        declared_fn, takes_all = _declared(fn)
        spec = inspect_function(declared_fn)
        declared = {parameter.name for parameter in spec.parameters}
        if not takes_all and (missing := set(arguments.schema["properties"]) - declared):
            raise ValueError(
                "Function missing parameters required after transformation: "
                f"{', '.join(sorted(missing))}. Function declares: {', '.join(sorted(declared))}"
            )
        options: dict[str, Any] = {"name": parent.definition["name"]}
        own = function_tool(declared_fn, options, None).definition
        schema = _merged(own["inputSchema"], arguments.schema)
        run = _forwarding_to(fn, spec, _Forwarding(parent.rest[0], arguments), _Arguments(schema, {}, {}))
        made = function_tool(run, {**options, "input_schema": schema}, server)
        definition = {key: value for key, value in parent.definition.items() if key != "outputSchema"}
        definition["inputSchema"] = schema
        output = made.rest[1]
        if "outputSchema" in own:
            definition["outputSchema"] = own["outputSchema"]
        elif spec.return_annotation is not ToolResult and "outputSchema" in parent.definition:
            definition["outputSchema"], output = parent.definition["outputSchema"], parent.rest[1]
        return replace(parent, definition=definition, rest=(made.rest[0], output, *parent.rest[2:]))

    def _changed(self, made: _Registration, name: str) -> _Registration:
        """``made`` with this tool's name, title, description, tags, annotations, output
        schema and meta."""
        changes, definition, rest = self.changes, dict(made.definition), list(made.rest)
        titled = made.titled
        if isinstance(title := changes.get("title"), str):
            titled = _titled(title)
        definition["name"] = name
        if titled is not None:
            definition.pop("title", None)
            if (made_title := titled(name)) is not None:
                definition["title"] = made_title
        for key in ("description", "annotations"):
            if key in changes:
                value = changes[key]
                definition.pop(key, None)
                if value is not None:
                    definition[key] = value.to_wire() if isinstance(value, ToolAnnotations) else value
        if "output_schema" in changes:
            schema = changes["output_schema"]
            definition.pop("outputSchema", None)
            rest[1] = "content"
            if schema is not None:
                definition["outputSchema"] = schema
                rest[1] = "wrapped" if schema.get("x-fastmcp-wrap-result") else "structured"
        meta = _meta(definition.pop("_meta", None), changes.get("meta", NotSet))
        if tags := changes.get("tags"):
            meta = {**(meta or {}), "fastmcp": {**(meta or {}).get("fastmcp", {}), "tags": sorted(tags)}}
        if meta is not None:
            definition["_meta"] = meta
        return replace(made, definition=definition, rest=tuple(rest), titled=titled)


def _versioned_as(made: _Registration, version: str, versions: int) -> _Registration:
    """``made`` listed as ``version`` (FastMCP's ``versions`` naming it once for each
    version it was made from), and answering a call for another version as unknown."""
    meta = dict(made.definition.get("_meta") or {})
    listed = {key: value for key, value in (meta.get("fastmcp") or {}).items() if key != "versions"}
    meta["fastmcp"] = {"versions": [version] * versions, **listed, "version": version}
    name, handler = made.definition["name"], made.rest[0]

    def refuse_others(native: tuple[Any, ...]) -> None:
        asked = requested(native[-1])
        if asked is not None and version_key(asked) != version_key(version):
            raise unknown_version("tool", name, native)

    if inspect.iscoroutinefunction(handler):

        async def run_on_loop(*native: Any) -> Any:
            refuse_others(native)
            return await handler(*native)

        run: Callable[..., Any] = run_on_loop
    else:

        def run_here(*native: Any) -> Any:
            refuse_others(native)
            return handler(*native)

        run = run_here
    return replace(made, definition={**made.definition, "_meta": meta}, rest=(run, *made.rest[1:]))


class TransformedTool(MadeTool):
    """A tool made from another (:meth:`from_tool`)."""

    #: The tool it is made from.
    parent_tool: Tool = Field(exclude=True, repr=False)
    #: How it is made from it.
    transformation: InstanceOf[Transformation] = Field(exclude=True, repr=False)

    @classmethod
    def checked(cls, parent: Tool, transformation: Transformation) -> TransformedTool:
        """The tool, its definition made now, as FastMCP makes it: what cannot be made
        fails here."""
        return cls.made(
            transformation.made_from(parent._registration(None), None),
            parent_tool=parent,
            transformation=transformation,
        )

    @classmethod
    def from_tool(
        cls,
        tool: Tool | Callable[..., Any],
        *,
        transform_fn: Callable[..., Any] | None = None,
        transform_args: dict[str, ArgTransform] | None = None,
        **changes: Any,
    ) -> TransformedTool:
        """``tool`` (or the tool a function makes) with these changes: a new ``name``,
        ``title``, ``description`` (None: none), ``tags``, ``annotations``,
        ``output_schema`` (None: none) or ``meta`` (FastMCP's own namespaces kept); its
        arguments changed by ``transform_args``; run by ``transform_fn`` (its parameters
        the transformed arguments; :func:`forward` calls ``tool``)."""
        transformation = Transformation(transform_fn, dict(transform_args or {}), _changes(**changes))
        return cls.checked(as_tool(tool), transformation)

    @property
    def transform_args(self) -> dict[str, ArgTransform]:
        """Its arguments' transformations."""
        return self.transformation.transform_args

    def _registration(self, server: FastMCP | None) -> _Registration:
        return self.transformation.made_from(self.parent_tool._registration(server), server)


def _titled(title: str) -> Callable[[str], str | None]:
    """What titles a tool ``title`` whatever its name."""
    return lambda _name: title


def _meta(source: dict[str, Any] | None, override: Any) -> dict[str, Any] | None:
    """A tool's ``_meta`` with ``meta=`` given: replaced, FastMCP's own namespaces kept (an
    override's keys in them winning)."""
    if override is NotSet:
        return source
    kept = {key: dict(value) for key in _FRAMEWORK_META if isinstance(value := (source or {}).get(key), dict) and value}
    if override is None:
        return kept or None
    merged = dict(override)
    for key, value in kept.items():
        given = override.get(key)
        merged[key] = {**value, **given} if isinstance(given, dict) else value
    return merged


def _merged(base: dict[str, Any], override: dict[str, Any]) -> dict[str, Any]:
    """A function's input schema with the transformed arguments' over it: each property's
    keywords from the transformed one where it has them; required as the transformed
    schema says, and as the function says of the rest; nothing with a default required."""
    properties = {name: dict(schema) for name, schema in base.get("properties", {}).items()}
    for name, schema in override.get("properties", {}).items():
        properties[name] = {**properties.get(name, {}), **schema}
    required = set(override.get("required", []))
    required |= {name for name in base.get("required", []) if name not in override.get("properties", {})}
    required -= {name for name, schema in properties.items() if "default" in schema}
    merged: dict[str, Any] = {
        "type": "object",
        "properties": properties,
        "required": [name for name in properties if name in required],
        "additionalProperties": False,
    }
    definitions = {**base.get("$defs", {}), **override.get("$defs", {})}
    return compressed({**merged, "$defs": definitions}) if definitions else merged


def _forwarding_handler(handler: Callable[..., Any], arguments: _Arguments, name: str) -> Callable[..., Any]:
    """The handler of the tool ``name`` made from another without a function of its own:
    the other's, called with the arguments checked (unknown or missing ones fail, as
    FastMCP's do), defaults filled, renamed back and the hidden ones added; what the other
    refuses is said by this tool's argument names."""
    # Imported here: FastMCP's conventions import the tools' module, which imports this one.
    from .._conventions import tool_failure

    def parent_arguments(given: dict[str, Any]) -> dict[str, Any]:
        try:
            return arguments.parent_arguments(arguments.checked(arguments.filled(given)))
        except TypeError as error:
            raise tool_failure(name, error) from error

    if inspect.iscoroutinefunction(handler):

        async def forward_on_loop(given: dict[str, Any], *native: Any) -> Any:
            try:
                return await handler(parent_arguments(given), *native)
            except ArgumentsRefused as refused:
                raise arguments.in_own_names(refused) from None

        return forward_on_loop

    def forward_here(given: dict[str, Any], *native: Any) -> Any:
        try:
            return handler(parent_arguments(given), *native)
        except ArgumentsRefused as refused:
            raise arguments.in_own_names(refused) from None

    return forward_here


def _renamed(refused: ValidationError, names: dict[str, str]) -> ValidationError:
    """``refused`` with the arguments it names renamed by ``names`` (FastMCP's words kept)."""
    errors: list[InitErrorDetails] = []
    for error in refused.errors(include_url=False):
        location = error["loc"]
        if location and location[0] in names:
            location = (names[str(location[0])], *location[1:])
        kind = PydanticCustomError(error["type"], error["msg"])
        errors.append({"type": kind, "loc": location, "input": error["input"]})
    return ValidationError.from_exception_data(refused.title, errors)


def _declared(fn: Callable[..., Any]) -> tuple[Callable[..., Any], bool]:
    """``fn`` as registration reads its parameters, without its ``**kwargs``, and whether it
    had them."""
    try:
        signature = inspect.signature(fn, eval_str=True)
    except NameError:
        signature = inspect.signature(fn)
    kept = [p for p in signature.parameters.values() if p.kind is not inspect.Parameter.VAR_KEYWORD]
    if len(kept) == len(signature.parameters):
        return fn, False

    def declared(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("read for its parameters, never run")

    declared.__name__, declared.__doc__ = getattr(fn, "__name__", "transform_fn"), fn.__doc__
    declared.__signature__ = signature.replace(parameters=kept)  # type: ignore[attr-defined]
    return declared, True


#: An argument of a transform function left out of a call.
_LEFT_OUT: Any = object()


def _forwarding_to(
    fn: Callable[..., Any], spec: FunctionSpec, forwarding: _Forwarding, schema: _Arguments
) -> Callable[..., Any]:
    """``fn`` run with :func:`forward` calling ``forwarding``'s tool, given the arguments as
    they came (FastMCP's does not convert them to the types the function annotates), those
    left out filled with the schema's defaults."""
    properties = set(schema.schema.get("properties", {}))

    def prepared(kwargs: dict[str, Any]) -> dict[str, Any]:
        given = {key: value for key, value in kwargs.items() if value is not _LEFT_OUT}
        return {**given, **schema.filled({key: value for key, value in given.items() if key in properties})}

    if inspect.iscoroutinefunction(fn):

        async def run_on_loop(**kwargs: Any) -> Any:
            token = _forwarding.set(forwarding)
            try:
                return await fn(**prepared(kwargs))
            finally:
                _forwarding.reset(token)

        run: Callable[..., Any] = run_on_loop
    else:

        def run_here(**kwargs: Any) -> Any:
            token = _forwarding.set(forwarding)
            try:
                return fn(**prepared(kwargs))
            finally:
                _forwarding.reset(token)

        run = run_here
    # Its parameters unannotated (the context's aside), so that they reach it as they came;
    # a function with `**kwargs` takes every argument of the schema. One left out is left
    # out (the schema's default, else the function's, is its value).
    keyword = inspect.Parameter.KEYWORD_ONLY
    parameters = [
        inspect.Parameter(p.name, keyword, default=p.default if p.required else _LEFT_OUT) for p in spec.parameters
    ]
    if _declared(fn)[1]:
        declared = {p.name for p in spec.parameters}
        parameters += [inspect.Parameter(name, keyword, default=_LEFT_OUT) for name in sorted(properties - declared)]
    if spec.context_parameter is not None:
        context = inspect.Parameter(
            spec.context_parameter, inspect.Parameter.KEYWORD_ONLY, annotation=spec.context_type
        )
        parameters.append(context)
    run.__name__, run.__doc__ = spec.name, spec.description
    run.__signature__ = inspect.Signature(parameters, return_annotation=spec.return_annotation)  # type: ignore[attr-defined]
    return run


class ConfiguredTools(Transform):
    """A server's tools changed as they are served, by name (FastMCP's ``ToolTransform``,
    ``fastmcp.server.transforms``, applies one)."""

    def __init__(self, transforms: dict[str, ToolTransformConfig]) -> None:
        self._transformations = {name: config.transformation() for name, config in transforms.items()}
        self._enabled = {
            name: config.enabled for name, config in transforms.items() if "enabled" in config.model_fields_set
        }

    def apply(self, registration: _Registration) -> _Registration:
        name = registration.definition.get("name")
        if registration.kind != "tool" or name not in self._transformations:
            return registration
        made = self._transformations[name].made_from(registration, None)
        # The tool made is one version, the one it lists: its versions are not served apart.
        return replace(made, enabled=self._enabled.get(name, made.enabled), versions=None)


__all__ = [
    "ArgTransform",
    "ArgTransformConfig",
    "NotSet",
    "ToolTransformConfig",
    "TransformedTool",
    "forward",
    "forward_raw",
]
