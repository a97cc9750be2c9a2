"""From a Python function to MCP definitions: JSON Schema from type hints (via pydantic),
descriptions from docstrings, and coercion of the JSON the core validated into the
annotated Python types."""

from __future__ import annotations

import dataclasses
import inspect
import types
import typing
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel, TypeAdapter, create_model
from pydantic.fields import FieldInfo
from typing_extensions import is_typeddict

from .content import Audio, Image
from .context import Context
from .types import WireModel

Coercer = Callable[[Any], Any]
EMPTY = inspect.Parameter.empty
_JSON_NATIVE: frozenset[Any] = frozenset({str, int, bool, dict, list, object, Any, EMPTY, type(None)})
_CONTENT: tuple[type, ...] = (Image, Audio, WireModel)


@dataclass(frozen=True)
class Parameter:
    """One parameter a client fills in (the context parameter is not one)."""

    name: str
    annotation: Any
    default: Any
    description: str | None

    @property
    def required(self) -> bool:
        """Whether the parameter has no default."""
        return self.default is EMPTY


@dataclass(frozen=True)
class FunctionSpec:
    """What registration needs to know about a handler function."""

    name: str
    description: str | None
    parameters: tuple[Parameter, ...]
    context_parameter: str | None
    is_async: bool
    return_annotation: Any


def inspect_function(fn: Callable[..., Any]) -> FunctionSpec:
    """Reads a handler's name, docstring, parameters and return annotation."""
    try:
        signature = inspect.signature(fn, eval_str=True)
    except NameError:
        signature = inspect.signature(fn)
    parameters = []
    context_parameter = None
    for parameter in signature.parameters.values():
        if parameter.kind in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD):
            raise TypeError(f"{_name_of(fn)}: *args and **kwargs cannot be MCP parameters")
        if _is_context(parameter.annotation):
            context_parameter = parameter.name
            continue
        parameters.append(
            Parameter(
                name=parameter.name,
                annotation=parameter.annotation,
                default=parameter.default,
                description=_field_description(parameter.annotation),
            )
        )
    call = getattr(fn, "__call__", None)  # noqa: B004 - async callable objects count too
    is_async = inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(call)
    return FunctionSpec(
        name=_name_of(fn),
        description=inspect.getdoc(fn),
        parameters=tuple(parameters),
        context_parameter=context_parameter,
        is_async=is_async,
        return_annotation=signature.return_annotation,
    )


def input_schema(spec: FunctionSpec) -> dict[str, Any]:
    """The JSON Schema (an object schema) of the parameters."""
    fields: dict[str, Any] = {}
    for parameter in spec.parameters:
        annotation = Any if parameter.annotation is EMPTY else parameter.annotation
        default = ... if parameter.required else parameter.default
        fields[parameter.name] = (annotation, default)
    model: type[BaseModel] = create_model(f"{spec.name}_arguments", **fields)
    schema = model.model_json_schema()
    schema.pop("title", None)
    return schema


def output_schema(annotation: Any) -> tuple[dict[str, Any] | None, bool]:
    """The output schema of a return annotation, and whether the value is wrapped as
    ``{"result": value}`` (for anything that is not an object: text and ``None`` too, as
    the official SDK does). ``None`` for content returns and for functions without a
    return annotation (or ``Any``)."""
    if annotation in (EMPTY, Any) or _is_content(annotation):
        return None, False
    schema = TypeAdapter(annotation).json_schema(mode="serialization")
    if _is_object_type(annotation):
        schema.pop("title", None)
        return schema, False
    definitions = schema.pop("$defs", None)
    wrapped: dict[str, Any] = {"type": "object", "properties": {"result": schema}, "required": ["result"]}
    if definitions:
        wrapped["$defs"] = definitions
    return wrapped, True


def json_coercer(annotation: Any) -> Coercer | None:
    """Turns validated JSON into the annotated type; ``None`` when JSON already is it."""
    if not _needs_coercion(annotation):
        return None
    return TypeAdapter(annotation).validate_python


def string_coercer(annotation: Any) -> Coercer | None:
    """Turns a string (prompt argument, URI template variable) into the annotated type."""
    if annotation in (EMPTY, str, Any, object):
        return None
    adapter: TypeAdapter[Any] = TypeAdapter(annotation)
    if _is_object_type(annotation) or get_origin(annotation) in (list, tuple, set, frozenset):
        return adapter.validate_json
    return adapter.validate_strings


def _field_description(annotation: Any) -> str | None:
    if get_origin(annotation) is Annotated:
        for extra in get_args(annotation)[1:]:
            if isinstance(extra, FieldInfo) and extra.description:
                return extra.description
    return None


def _needs_coercion(annotation: Any) -> bool:
    if annotation in _JSON_NATIVE:
        return False
    origin = get_origin(annotation)
    if origin is Annotated:
        return _needs_coercion(get_args(annotation)[0])
    if origin is Literal:
        return False
    if origin in (Union, types.UnionType, list, dict):
        return any(_needs_coercion(arg) for arg in get_args(annotation))
    return True


def _is_context(annotation: Any) -> bool:
    return isinstance(annotation, type) and issubclass(annotation, Context)


def _is_object_type(annotation: Any) -> bool:
    if get_origin(annotation) is Annotated:
        return _is_object_type(get_args(annotation)[0])
    if get_origin(annotation) is dict:
        return True
    if not isinstance(annotation, type):
        return False
    return issubclass(annotation, BaseModel) or dataclasses.is_dataclass(annotation) or is_typeddict(annotation)


def _is_content(annotation: Any) -> bool:
    """Content (not data): the content types and helpers, alone, in lists or in unions."""
    origin = get_origin(annotation)
    if origin in (list, tuple, typing.Sequence):
        args = [arg for arg in get_args(annotation) if arg is not Ellipsis]
        return bool(args) and all(_is_content(arg) for arg in args)
    if origin in (Union, types.UnionType):
        return all(_is_content(arg) for arg in get_args(annotation))
    if origin is Annotated:
        return _is_content(get_args(annotation)[0])
    if not isinstance(annotation, type) or _is_model(annotation):
        return False
    return issubclass(annotation, _CONTENT)


def _is_model(annotation: type) -> bool:
    """A user's pydantic model (structured), as opposed to the wire types (content)."""
    return issubclass(annotation, BaseModel) and not issubclass(annotation, WireModel)


def _name_of(fn: Callable[..., Any]) -> str:
    return getattr(fn, "__name__", None) or type(fn).__name__
